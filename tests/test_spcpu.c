/* The CPU single-pulse searcher's row statistics (optimized/cpu/sp_cpu_stats.c)
 * against the reference's (xc_sp_row_stats, medians by sorting): the block
 * baselines and the rms must be the same doubles, on rows long enough for
 * the sampled selection and on rows built to defeat its sample (the exact
 * fallback), with equal values, outliers, odd and even counts, several
 * blocks; and the searcher's detections on long rows equal the reference's. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/cpu/sp_cpu_internal.h"
#include "optimized/cpu/xc_sp_cpu.h"
#include "reference/xc_sp_ref.h"
#include "tests/xc_test.h"

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* A uniform deviate in [0, 1). */
static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1p-53; }

typedef enum { NOISE_INT, NOISE_FLOAT, OUTLIERS, SAMPLE_TRAP, MOSTLY_EQUAL, CONSTANT, NKINDS } kind;

static const char *kind_name[NKINDS] = {"integer noise", "float noise", "outliers", "sample trap", "mostly equal",
                                        "constant"};

/* Row x of n samples of the kind: integer sums of 64 bytes (as a dedispersed
 * 8-bit plane), signed non-integer floats, 30 % of the samples 10^6 and more,
 * every 32nd sample (the ones a selection samples) far above the rest, 90 %
 * of the samples one value, or all one value. */
static void row_fill(float *x, size_t n, kind k, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull | 1;
    for (size_t t = 0; t < n; t++) {
        double y = 0;
        for (int i = 0; i < 64; i++)
            y += (double)(rng_next(&s) >> 56);
        double u = rng_unit(&s);
        switch (k) {
        case NOISE_INT: x[t] = (float)y; break;
        case NOISE_FLOAT: x[t] = (float)((y - 8160) * 0.37); break;
        case OUTLIERS: x[t] = u < 0.3 ? (float)(1e6 + y * 1000) : (float)y; break;
        case SAMPLE_TRAP: x[t] = t % 32 == 16 ? 1e5f : (float)y; break;
        case MOSTLY_EQUAL: x[t] = u < 0.9 ? 8000.0f : (float)y; break;
        default: x[t] = 42.0f; break;
        }
    }
}

/* Exact: both compute the same medians of the same doubles, so any
 * difference (tolerance 0) is a wrong rank. */
static void check_stats(const float *x, size_t n, size_t block, xc_sp_stat stat, const char *what)
{
    xc_spconf c = {.stat = stat, .threshold = 6, .block = block, .nwidths = 1, .widths = {1}, .threads = 1};
    size_t nb = xc_sp_nblocks(n, block);
    double *m = malloc(nb * sizeof *m), *tmp = malloc(n * sizeof *tmp), s_ref;
    xc_sp_scratch w;
    int ok = xc_sp_scratch_alloc(&w, n, nb) == 0;
    CU_ASSERT_FATAL(ok && m && tmp);
    xc_sp_row_stats(x, n, &c, m, &s_ref, tmp);
    double s = xc_sp_cpu_prepare(x, n, &c, &w);
    if (s != s_ref && !(isnan(s) && isnan(s_ref)))
        printf("\n  %s, n %zu, block %zu: rms %.17g, expected %.17g (tolerance 0)\n", what, n, block, s, s_ref);
    CU_ASSERT(s == s_ref || (isnan(s) && isnan(s_ref)));
    size_t bad = 0;
    for (size_t b = 0; b < (stat == XC_SP_MEAN_SD ? 1 : nb); b++)
        if (w.m[b] != m[b] && bad++ < 3)
            printf("\n  %s, n %zu: baseline %zu %.17g, expected %.17g (tolerance 0)\n", what, n, b, w.m[b], m[b]);
    CU_ASSERT_EQUAL(bad, 0);
    /* integer rows: every prefix sum is exact, so equal to the sequential sum */
    double P = 0;
    for (size_t t = 0; t < n && x[t] == floor(x[t]); t++) {
        P += (double)x[t];
        if (w.P[t + 1] != P) {
            printf("\n  %s, n %zu: P[%zu] %.17g, expected %.17g (tolerance 0)\n", what, n, t + 1, w.P[t + 1], P);
            CU_FAIL("prefix sum");
            break;
        }
    }
    xc_sp_scratch_free(&w);
    free(m);
    free(tmp);
}

XC_TEST(test_stats_exact, "stats_exact")
{
    static const struct {
        size_t n, block;
    } shapes[] = {{1, 1}, {2, 5}, {3, 2}, {100, 7}, {2047, 2047}, {2048, 4096}, {2049, 600}, {20001, 5000},
                  {32768, 31250}, {40000, 4096}};
    float *x = malloc(40000 * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    for (size_t i = 0; i < XC_NCASES(shapes); i++)
        for (int k = 0; k < NKINDS; k++) {
            char what[96];
            row_fill(x, shapes[i].n, (kind)k, i * 31 + (size_t)k);
            snprintf(what, sizeof what, "%s (median, MAD)", kind_name[k]);
            check_stats(x, shapes[i].n, shapes[i].block, XC_SP_MEDIAN_MAD, what);
            snprintf(what, sizeof what, "%s (mean, sd)", kind_name[k]);
            check_stats(x, shapes[i].n, shapes[i].block, XC_SP_MEAN_SD, what);
        }
    free(x);
}

/* Long integer rows with bursts, many detections at a low threshold: the
 * cpu's list equals the reference's entry for entry (snr tolerance 0: the
 * same IEEE expression of the same exact integers). */
XC_TEST(test_long_rows_detections, "long_rows_detections")
{
    const size_t nr = 3, n = 24001;
    float *x = malloc(nr * n * sizeof *x);
    double dms[3] = {1, 2, 3};
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    for (size_t r = 0; r < nr; r++) {
        row_fill(x + r * n, n, r == 2 ? OUTLIERS : NOISE_INT, 100 + r);
        for (size_t t = 5000 * (r + 1); t < 5000 * (r + 1) + 40; t++)
            x[r * n + t] += 300;
    }
    xc_spconf c = {.stat = XC_SP_MEDIAN_MAD, .threshold = 3.5, .block = 7000, .nwidths = 7,
                   .widths = {1, 2, 4, 8, 16, 32, 64}, .threads = 2};
    xc_spplane pl = {x, nr, n, n, 0, 1e-3, 1, 0, dms};
    xc_spdets a = {0}, b = {0};
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_sp_reference.execute(&xc_sp_reference, NULL, &c, &pl, &a, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_sp_cpu.execute(&xc_sp_cpu, NULL, &c, &pl, &b, &err), XC_OK);
    if (a.n != b.n)
        printf("\n  detections: %zu, expected %zu (tolerance 0)\n", b.n, a.n);
    CU_ASSERT_EQUAL_FATAL(b.n, a.n);
    CU_ASSERT(a.n > 100);
    size_t bad = 0;
    for (size_t i = 0; i < a.n; i++) {
        const xc_spdet *p = &b.d[i], *q = &a.d[i];
        if ((p->snr != q->snr || p->sample != q->sample || p->width != q->width || p->dm_index != q->dm_index ||
             p->begin != q->begin || p->end != q->end) && bad++ < 3)
            printf("\n  detection %zu: snr %.17g t %lld w %d row %d, expected snr %.17g t %lld w %d row %d\n", i,
                   p->snr, (long long)p->sample, p->width, p->dm_index, q->snr, (long long)q->sample, q->width,
                   q->dm_index);
    }
    CU_ASSERT_EQUAL(bad, 0);
    xc_spdets_free(&a);
    xc_spdets_free(&b);
    free(x);
}

XC_TEST_MAIN("spcpu")
