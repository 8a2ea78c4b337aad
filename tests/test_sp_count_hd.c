/* Host emulation of the GPU single-pulse statistics by counting
 * (optimized/gpu/sp_count_hd.h, the passes of sp_gpu_count.cuh): the same
 * sample bracket, passes, bins and steps, one value at a time, must give
 * the reference's block medians and MAD rms (xc_sp_block_medians,
 * xc_sp_row_stats) bit for bit on integer rows: noise of the spreads the
 * bench's planes have (one pass) and far wider ones (several), ties, two
 * middle values far apart, brackets that miss, negative values, short
 * blocks, half-integer medians; and must refuse (leave to the selection)
 * rows holding a value that is not an integer under 2^24. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sp/xc_spsearch.h"
#include "optimized/gpu/sp_count_hd.h"
#include "tests/xc_test.h"

/* One pass: values under lo counted, those in [lo, hi] binned by 2^s. */
static void emu_pass(const int32_t *k, size_t N, int32_t lo, int32_t hi, unsigned s, unsigned *hist, unsigned *below)
{
    memset(hist, 0, XC_SP_CNT_NB * sizeof *hist);
    *below = 0;
    const uint32_t span = (uint32_t)hi - (uint32_t)lo;
    for (size_t i = 0; i < N; i++) {
        const uint32_t off = (uint32_t)k[i] - (uint32_t)lo;
        *below += k[i] < lo;
        if (off <= span)
            hist[off >> s]++;
    }
}

/* The values of ranks (N - 1) / 2 and N / 2, as cnt_select takes them;
 * *passes counts the reads of the values.  0 where the full range misses. */
static int emu_select(const int32_t *k, size_t N, int32_t lo, int32_t hi, int32_t flo, int32_t fhi, int32_t *r0,
                      int32_t *r1, int *passes)
{
    static unsigned hist[XC_SP_CNT_NB];
    const unsigned k0 = (unsigned)((N - 1) / 2), k1 = (unsigned)(N / 2);
    int full = lo == flo && hi == fhi;
    *passes = 0;
    for (int pass = 0; pass < XC_SP_CNT_PASSES; pass++) {
        const unsigned s = xc_sp_cnt_shift((uint32_t)hi - (uint32_t)lo);
        unsigned below, total = 0, b0 = 0, b1 = 0;
        emu_pass(k, N, lo, hi, s, hist, &below);
        ++*passes;
        for (int i = 0; i < XC_SP_CNT_NB; i++)
            total += hist[i];
        if (k0 < below || k1 - below >= total) {
            if (full)
                return 0;
            lo = flo, hi = fhi, full = 1;
            continue;
        }
        for (unsigned i = 0, pre = 0; i < XC_SP_CNT_NB; pre += hist[i++]) {
            if (pre <= k0 - below && k0 - below < pre + hist[i])
                b0 = i;
            if (pre <= k1 - below && k1 - below < pre + hist[i])
                b1 = i;
        }
        int32_t nlo = lo, nhi = hi;
        switch (xc_sp_cnt_next(lo, s, b0, b1, &nlo, &nhi)) {
        case XC_SP_CNT_DONE:
            *r0 = (int32_t)((uint32_t)lo + b0);
            *r1 = (int32_t)((uint32_t)lo + b1);
            return 1;
        case XC_SP_CNT_ENDS:
            *r0 = INT32_MIN, *r1 = INT32_MAX;
            ++*passes;
            for (size_t i = 0; i < N; i++) {
                const uint32_t bin = ((uint32_t)k[i] - (uint32_t)lo) >> s;
                if (bin == b0 && k[i] > *r0)
                    *r0 = k[i];
                if (bin == b1 && k[i] < *r1)
                    *r1 = k[i];
            }
            return 1;
        default:
            lo = nlo, hi = nhi, full = 0;
        }
    }
    return 0;
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The first bracket from the sample of keys k[i N / NS], as the kernels take it. */
static void emu_bracket(const int32_t *k, size_t N, int32_t flo, int32_t fhi, int32_t *lo, int32_t *hi)
{
    int32_t smp[XC_SP_CNT_NS];
    for (size_t i = 0; i < XC_SP_CNT_NS; i++)
        smp[i] = k[i * N / XC_SP_CNT_NS];
    qsort(smp, XC_SP_CNT_NS, sizeof *smp, cmp_i32);
    xc_sp_cnt_bracket(smp, N, (N - 1) / 2, flo, fhi, lo, hi);
}

/* cnt_median: 0 where a value is not an integer under 2^24. */
static int emu_median(const float *x, size_t N, int32_t *k, double *med, int *passes)
{
    for (size_t i = 0; i < N; i++) {
        if (!xc_sp_cnt_int(x[i]))
            return 0;
        k[i] = (int32_t)x[i];
    }
    int32_t lo, hi, r0, r1;
    emu_bracket(k, N, -XC_SP_CNT_VMAX, XC_SP_CNT_VMAX, &lo, &hi);
    if (!emu_select(k, N, lo, hi, -XC_SP_CNT_VMAX, XC_SP_CNT_VMAX, &r0, &r1, passes))
        return 0;
    *med = xc_sp_cnt_mid((double)r0, (double)r1, N);
    return 1;
}

/* cnt_mad over a row of integers with block medians m. */
static int emu_mad(const float *x, size_t n, size_t L, const double *m, int32_t *k, double *mad, int *passes)
{
    const size_t nb = xc_sp_nblocks(n, L);
    for (size_t t = 0; t < n; t++) {
        const size_t b = t / L < nb ? t / L : nb - 1;
        k[t] = xc_sp_cnt_dev2((int32_t)x[t], xc_sp_cnt_twice(m[b]));
    }
    int32_t lo, hi, r0, r1;
    emu_bracket(k, n, 0, XC_SP_CNT_DMAX, &lo, &hi);
    if (!emu_select(k, n, lo, hi, 0, XC_SP_CNT_DMAX, &r0, &r1, passes))
        return 0;
    *mad = xc_sp_cnt_mid(0.5 * (double)r0, 0.5 * (double)r1, n);
    return 1;
}

static double gauss(uint64_t *s)
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
        u[i] = ((double)((*s * 2685821657736338717ull) >> 11) + 0.5) * 0x1p-53;
    }
    return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* A row of kind: 0 noise of sigma around mu, 1 the same with bursts and
 * ties (every value rounded to a multiple of 8), 2 two values, half each
 * (the middle values far apart), 3 noise with the sample's positions
 * raised far above the rest (the bracket misses), 4 a constant. */
static void fill_row(float *x, size_t n, int kind, double mu, double sigma, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull | 1;
    for (size_t t = 0; t < n; t++) {
        double v = mu + sigma * gauss(&s);
        if (kind == 1)
            v = 8.0 * floor(v / 8.0) + (t % 5000 < 40 ? 20.0 * sigma : 0.0);
        if (kind == 2)
            v = t % 2 ? mu + sigma : mu - sigma;
        if (kind == 4)
            v = mu;
        x[t] = (float)fmin(fmax(rint(v), -XC_SP_CNT_VMAX), XC_SP_CNT_VMAX);
    }
    if (kind == 3)
        for (size_t i = 0; i < XC_SP_CNT_NS; i++)
            x[i * n / XC_SP_CNT_NS] = (float)(mu + 50.0 * sigma);
}

/* Every block's median and the row's MAD rms, counted and referenced. */
static int check_row(const float *x, size_t n, size_t L, int *maxpasses, const char *what)
{
    const size_t nb = xc_sp_nblocks(n, L);
    double *m = malloc(nb * sizeof *m), *mr = malloc(nb * sizeof *mr), *tmp = malloc(n * sizeof *tmp);
    int32_t *k = malloc(n * sizeof *k);
    int bad = 0, passes = 0;
    xc_spconf c;
    memset(&c, 0, sizeof c);
    c.stat = XC_SP_MEDIAN_MAD;
    c.block = L;
    double sref, mad;
    xc_sp_row_stats(x, n, &c, mr, &sref, tmp);
    for (size_t b = 0; b < nb; b++) {
        const size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
        if (!emu_median(x + lo, hi - lo, k, &m[b], &passes)) {
            bad++;
            fprintf(stderr, "  %s: block %zu refused\n", what, b);
            continue;
        }
        *maxpasses = passes > *maxpasses ? passes : *maxpasses;
        if (memcmp(&m[b], &mr[b], sizeof m[b]) && bad++ < 5)
            fprintf(stderr, "  %s: block %zu median observed %.17g, expected %.17g, tolerance 0\n", what, b, m[b],
                    mr[b]);
    }
    if (!bad && emu_mad(x, n, L, m, k, &mad, &passes)) {
        *maxpasses = passes > *maxpasses ? passes : *maxpasses;
        const double s = XC_SP_MAD_SCALE * mad;
        if (memcmp(&s, &sref, sizeof s) && bad++ < 5)
            fprintf(stderr, "  %s: rms observed %.17g, expected %.17g, tolerance 0\n", what, s, sref);
    } else if (!bad) {
        bad++;
        fprintf(stderr, "  %s: MAD refused\n", what);
    }
    free(m), free(mr), free(tmp), free(k);
    return bad;
}

XC_TEST(test_sp_count_rows, "sp_count_rows")
{
    /* the bench's planes at 512 and 2048 channels of 8-bit noise (one pass
     * a statistic), 16-bit-like spreads (several), and the shapes above */
    static const struct {
        int kind;
        double mu, sigma;
        size_t n, L;
        int passes;   /* the most passes a statistic may take; 0: any */
    } rows[] = {
        {0, 65280, 1672, 149000, 31250, 1}, {0, 261120, 3344, 149000, 31250, 1}, {0, 0, 300, 20000, 3000, 1},
        {0, -5e5, 2e5, 60000, 7000, 0},     {0, 4e6, 3e6, 50001, 9999, 0},       {1, 65280, 1672, 80000, 31250, 0},
        {1, -100, 30, 7777, 1000, 0},       {2, 1000, 4e6, 40000, 10000, 0},     {2, 7, 0.5, 1000, 100, 0},
        {3, 65280, 1672, 100000, 25000, 0}, {3, 10, 1, 9000, 9000, 0},           {4, 12345, 0, 5000, 1000, 1},
        {0, 100, 10, 1, 1, 0},              {0, 100, 10, 2, 1, 0},               {0, 100, 10, 3, 2, 0},
        {0, 100, 10, 997, 60, 0},           {0, 100, 10, 1237, 300, 0},          {0, 100, 3, 2003, 2003, 0},
    };
    size_t most = 0;
    for (size_t i = 0; i < XC_NCASES(rows); i++)
        most = rows[i].n > most ? rows[i].n : most;
    float *x = malloc(most * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    for (size_t i = 0; i < XC_NCASES(rows); i++) {
        char what[64];
        snprintf(what, sizeof what, "row %zu (kind %d, n %zu)", i, rows[i].kind, rows[i].n);
        fill_row(x, rows[i].n, rows[i].kind, rows[i].mu, rows[i].sigma, i + 1);
        int passes = 0;
        CU_ASSERT_EQUAL(check_row(x, rows[i].n, rows[i].L, &passes, what), 0);
        if (rows[i].passes && passes > rows[i].passes)
            fprintf(stderr, "  %s: observed %d passes, expected at most %d\n", what, passes, rows[i].passes);
        CU_ASSERT(!rows[i].passes || passes <= rows[i].passes);
    }
    free(x);
}

/* A block holding one value that is not an integer under 2^24 is left to
 * the selection, wherever that value lies. */
XC_TEST(test_sp_count_refuses, "sp_count_refuses")
{
    enum { N = 3001 };
    static float x[N];
    static int32_t k[N];
    const float odd[] = {0.5f, -2.25f, 0x1p24f, -0x1p24f, 3e9f, INFINITY, -INFINITY, NAN, -NAN};
    for (size_t j = 0; j < XC_NCASES(odd); j++)
        for (size_t at = 0; at < N; at += 1499) {
            fill_row(x, N, 0, 500, 40, j + 7);
            x[at] = odd[j];
            double med;
            int passes;
            CU_ASSERT_EQUAL(emu_median(x, N, k, &med, &passes), 0);
        }
    CU_ASSERT(xc_sp_cnt_int(-0.0f) && xc_sp_cnt_int(16777215.0f) && xc_sp_cnt_int(-16777215.0f));
    CU_ASSERT(!xc_sp_cnt_int(16777216.0f) && !xc_sp_cnt_int(0.999999f) && !xc_sp_cnt_int(NAN));
}

/* The steps after a pass: a unit bin ends it, one wide bin narrows to
 * itself, two wide bins take their ends. */
XC_TEST(test_sp_count_steps, "sp_count_steps")
{
    int32_t lo = 0, hi = 0;
    CU_ASSERT_EQUAL(xc_sp_cnt_next(-7, 0, 3, 4, &lo, &hi), XC_SP_CNT_DONE);
    CU_ASSERT_EQUAL(xc_sp_cnt_next(-7, 3, 5, 6, &lo, &hi), XC_SP_CNT_ENDS);
    CU_ASSERT_EQUAL(xc_sp_cnt_next(-7, 3, 5, 5, &lo, &hi), XC_SP_CNT_NARROW);
    CU_ASSERT_EQUAL(lo, -7 + 40);
    CU_ASSERT_EQUAL(hi, -7 + 47);
    CU_ASSERT_EQUAL(xc_sp_cnt_shift(XC_SP_CNT_NB - 1), 0u);
    CU_ASSERT_EQUAL(xc_sp_cnt_shift(XC_SP_CNT_NB), 1u);
    CU_ASSERT_EQUAL(xc_sp_cnt_shift(2u * XC_SP_CNT_VMAX), 13u);
    CU_ASSERT_EQUAL(xc_sp_cnt_dev2(5, 11), 1);   /* |5 - 5.5| = 1/2 */
    CU_ASSERT_EQUAL(xc_sp_cnt_twice(-3.5), -7);
}

XC_TEST_MAIN("sp_count_hd")
