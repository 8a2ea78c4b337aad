/* The accel search's vectorised row loops (core/search/accel/xc_accel_rows.c) against the
 * scalar loops they replaced, bit for bit, on random rows of awkward lengths
 * (0, 1, 31, 32, 33, 1000, 4099) at awkward offsets; the threshold scan's
 * first hit at every position of a block and across blocks; hand cases. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/xc_accel.h"
#include "tests/xc_assert.h"
#include "tests/xc_test.h"

static uint64_t rs = 88172645463325252ull;
static double urand(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (double)(rs >> 11) * 0x1.0p-53;
}

static const size_t LENS[] = {0, 1, 31, 32, 33, 1000, 4099};

/* Index of the first element that differs in bits, or n. */
static size_t first_diff(const double *a, const double *b, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (memcmp(&a[j], &b[j], sizeof *a))
            return j;
    return n;
}

XC_TEST(test_rows_add_modes, "rows_add_modes")
{
    const size_t nsub = 5000;
    float *sub = malloc(nsub * sizeof *sub);
    double *row = malloc(4100 * sizeof *row), *want = malloc(4100 * sizeof *want);
    int32_t *ri = malloc(4100 * sizeof *ri);
    float *f = malloc(4100 * sizeof *f);
    CU_ASSERT_FATAL(sub && row && want && ri && f);
    for (size_t k = 0; k < nsub; k++)
        sub[k] = (float)(urand() * 30.0);
    for (size_t li = 0; li < XC_NCASES(LENS); li++) {
        const size_t m = LENS[li];
        for (int mode = XC_ROW_ADD_INSIDE; mode <= XC_ROW_ADD_PRESTO; mode++) {
            for (size_t j = 0; j < m; j++) {
                f[j] = (float)(urand() * 100.0);
                ri[j] = (int32_t)(urand() * (double)nsub);
                if (mode != XC_ROW_ADD_INSIDE && urand() < 0.2)
                    ri[j] = -1;
            }
            /* the scalar loops the vectorised ones replaced */
            for (size_t j = 0; j < m; j++) {
                want[j] = f[j];
                if (mode == XC_ROW_ADD_INSIDE)
                    want[j] += sub[ri[j]];
                else if (mode == XC_ROW_ADD_CLIPPED)
                    want[j] += ri[j] >= 0 ? sub[ri[j]] : 0.0f;
                else
                    want[j] = (double)(float)(want[j] + (ri[j] >= 0 ? sub[ri[j]] : 0.0f));
            }
            xc_accel_row_load(row, f, m);
            xc_accel_row_add(row, sub, ri, m, mode);
            size_t d = first_diff(row, want, m);
            if (d != m)
                printf("\n  length %zu, mode %d: element %zu is %.17g, expected %.17g\n", m, mode, d, row[d], want[d]);
            CU_ASSERT_EQUAL(d, m);
        }
    }
    free(sub), free(row), free(want), free(ri), free(f);
}

/* The scalar scan: the first j in [from, m) with v[j] > thr. */
static size_t scan_d(const double *v, size_t from, size_t m, double thr)
{
    for (size_t j = from; j < m; j++)
        if (v[j] > thr)
            return j;
    return m;
}

XC_TEST(test_rows_above, "rows_above")
{
    double *v = malloc(4100 * sizeof *v);
    float *vf = malloc(4100 * sizeof *vf);
    CU_ASSERT_FATAL(v && vf);
    int bad = 0;
    for (size_t li = 0; li < XC_NCASES(LENS); li++) {
        const size_t m = LENS[li];
        for (int density = 0; density < 3; density++) {
            /* no hits, rare hits, hits everywhere */
            const double p = density == 0 ? 0.0 : density == 1 ? 0.003 : 0.5;
            const double thr = 10.5;
            for (size_t j = 0; j < m; j++) {
                v[j] = urand() < p ? 20.0 + urand() : urand() * 10.0;
                if (urand() < 0.01)
                    v[j] = thr;   /* equal: not above */
                vf[j] = (float)v[j];
            }
            /* every hit, walked as search_block walks them, from every start */
            for (size_t from = 0; from <= m && from < 70; from++) {
                size_t a = xc_accel_row_above(v, from, m, thr), b = scan_d(v, from, m, thr);
                size_t af = xc_accel_rowf_above(vf, from, m, thr);
                if (a != b || af != b) {
                    if (!bad)
                        printf("\n  length %zu, density %d, from %zu: double scan %zu, float scan %zu, expected %zu\n",
                               m, density, from, a, af, b);
                    bad++;
                }
            }
            size_t n1 = 0, n2 = 0;
            for (size_t j = xc_accel_row_above(v, 0, m, thr); j < m; j = xc_accel_row_above(v, j + 1, m, thr))
                n1++;
            for (size_t j = 0; j < m; j++)
                n2 += v[j] > thr;
            if (n1 != n2)
                printf("\n  length %zu, density %d: %zu hits walked, expected %zu\n", m, density, n1, n2);
            CU_ASSERT_EQUAL(n1, n2);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(v), free(vf);
}

/* Hand cases: a hit in the last element of a 32-block, the first of the
 * next; equality (not above), NaN (never above) and -inf inside a whole
 * block (the vector path) and inside a partial one (the scalar path). */
XC_TEST(test_rows_hand, "rows_hand")
{
    double v[130];
    for (int j = 0; j < 130; j++)
        v[j] = 1.0;
    v[31] = 5.0;
    v[32] = 5.0;
    v[40] = 2.0;    /* equal to the threshold: not above */
    v[41] = NAN;
    v[42] = -INFINITY;
    v[69] = 2.5;
    v[98] = 2.0;    /* the same in the whole block [96, 128) */
    v[99] = NAN;
    v[100] = 3.0;
    CU_ASSERT_EQUAL(xc_accel_row_above(v, 0, 130, 2.0), 31);
    CU_ASSERT_EQUAL(xc_accel_row_above(v, 32, 130, 2.0), 32);
    CU_ASSERT_EQUAL(xc_accel_row_above(v, 33, 130, 2.0), 69);
    CU_ASSERT_EQUAL(xc_accel_row_above(v, 33, 69, 2.0), 69);
    CU_ASSERT_EQUAL(xc_accel_row_above(v, 64, 130, 2.0), 69);
    CU_ASSERT_EQUAL(xc_accel_row_above(v, 96, 130, 2.0), 100);
    CU_ASSERT_EQUAL(xc_accel_row_above(v, 70, 70, 2.0), 70);
    float vf[130];
    for (int j = 0; j < 130; j++)
        vf[j] = (float)v[j];
    CU_ASSERT_EQUAL(xc_accel_rowf_above(vf, 96, 130, 2.0), 100);
    CU_ASSERT_EQUAL(xc_accel_rowf_above(vf, 33, 130, 2.0), 69);
    double r[3] = {0};
    const float s[4] = {1.5f, 2.25f, 0.5f, 8.0f};
    const int32_t ri[3] = {3, -1, 1};
    xc_accel_row_add(r, s, ri, 3, XC_ROW_ADD_CLIPPED);
    CU_ASSERT_EQUAL(r[0], 8.0);
    CU_ASSERT_EQUAL(r[1], 0.0);
    CU_ASSERT_EQUAL(r[2], 2.25);
    /* PRESTO mode rounds each sum to float: 1 + 2^-30 is 1 in float */
    double q[1] = {1.0};
    const float tiny[1] = {0x1p-30f};
    const int32_t i0[1] = {0};
    xc_accel_row_add(q, tiny, i0, 1, XC_ROW_ADD_PRESTO);
    CU_ASSERT_EQUAL(q[0], 1.0);
    q[0] = 1.0;
    xc_accel_row_add(q, tiny, i0, 1, XC_ROW_ADD_INSIDE);
    CU_ASSERT_EQUAL(q[0], 1.0 + 0x1p-30);
}

/* A stage's additions in one pass (xc_accel_stage_add) against its
 * xc_accel_row_add calls in turn and the scan, bit for bit: 1 to 7
 * sub-harmonic rows indexed as the harmonic sums index them (round(i h/H)
 * from a block's lowest index, so the vector loads apply), with the first
 * indices -1 (zero powers below the plane) or wide random indices (the
 * element-by-element path) mixed in, powers from 1e-9 to 1e7 (preset
 * presto's float sums), every mode, awkward lengths and offsets. */
XC_TEST(test_rows_stage_add, "rows_stage_add")
{
    enum { NS = 7, SUBLEN = 5000 };
    float *sub[NS];
    const float *sv[NS];
    int32_t *ri[NS];
    const int32_t *rv[NS];
    double *row = malloc(4100 * sizeof *row), *want = malloc(4100 * sizeof *want);
    int ok = row && want;
    for (int e = 0; e < NS; e++) {
        sub[e] = malloc((SUBLEN + 8) * sizeof *sub[e]);
        ri[e] = malloc(4100 * sizeof *ri[e]);
        ok = ok && sub[e] && ri[e];
    }
    CU_ASSERT_FATAL(ok);
    size_t bad = 0, cases = 0;
    for (size_t li = 0; li < XC_NCASES(LENS); li++)
        for (int mode = XC_ROW_ADD_INSIDE; mode <= XC_ROW_ADD_PRESTO; mode++)
            for (int nsub = 1; nsub <= NS; nsub++)
                for (int pattern = 0; pattern < 3; pattern++) {
                    const size_t m = LENS[li];
                    const long i0 = 37 + (long)(urand() * 3000);
                    for (int e = 0; e < nsub; e++) {
                        for (size_t k = 0; k < SUBLEN + 8; k++)
                            sub[e][k] = (float)pow(10.0, urand() * 16 - 9);
                        double frac = (double)(2 * e + 1) / 16;
                        long lo = (long)((double)i0 * frac + 0.5);
                        for (size_t j = 0; j < m; j++) {
                            ri[e][j] = (int32_t)((long)((double)(i0 + (long)j) * frac + 0.5) - lo);
                            if (pattern == 1 && mode != XC_ROW_ADD_INSIDE && j < 11)
                                ri[e][j] = -1;
                            if (pattern == 2 && urand() < 0.05)
                                ri[e][j] = (int32_t)(urand() * (SUBLEN - 1));
                        }
                        sv[e] = sub[e];
                        rv[e] = ri[e];
                    }
                    for (size_t j = 0; j < m; j++)
                        row[j] = want[j] = (float)pow(10.0, urand() * 16 - 9);
                    for (int e = 0; e < nsub; e++)
                        xc_accel_row_add(want, sub[e], ri[e], m, mode);
                    double thr = m ? want[(size_t)(urand() * (double)m)] : 0;
                    for (int q = 0; q < 2; q++, thr = 1e30) {
                        if (q)
                            for (size_t j = 0; j < m; j++)
                                row[j] = (float)(want[j] * 0.5);
                        double *w = q ? malloc((m + 1) * sizeof *w) : want;
                        CU_ASSERT_FATAL(w != NULL);
                        if (q) {
                            memcpy(w, row, m * sizeof *w);
                            for (int e = 0; e < nsub; e++)
                                xc_accel_row_add(w, sub[e], ri[e], m, mode);
                        }
                        int any = xc_accel_stage_add(row, sv, rv, nsub, m, mode, thr);
                        size_t d = first_diff(row, w, m);
                        int any_want = xc_accel_row_above(w, 0, m, thr) < m;
                        if (d < m || any != any_want) {
                            if (bad++ < 5)
                                printf("\n  m %zu mode %d nsub %d pattern %d: element %zu %.17g, expected %.17g; "
                                       "above %d, expected %d", m, mode, nsub, pattern, d, d < m ? row[d] : 0.0,
                                       d < m ? w[d] : 0.0, any, any_want);
                        }
                        cases++;
                        if (q)
                            free(w);
                    }
                }
    printf("\n  %zu cases, %zu differ (tolerance: none, bit for bit)", cases, bad);
    CU_ASSERT_EQUAL(bad, 0);
    for (int e = 0; e < NS; e++)
        free(sub[e]), free(ri[e]);
    free(row), free(want);
}

XC_TEST_MAIN("accel_rows")
