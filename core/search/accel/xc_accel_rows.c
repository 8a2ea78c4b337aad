/* The row loops of the accel search's harmonic sums (xc_accel_pipeline.c's
 * search_block): a plane row into double sums, a sub-harmonic's powers added
 * through an index table, and the scan for sums above a stage's threshold.
 * Each element is independent (no sum runs across elements), so the
 * vectorised loops give the scalar loops' bits; they are compiled for
 * AVX-512, AVX2 and the baseline and picked by the loader (target_clones, as
 * optimized/cpu/cpu_kernels.c), because core is built for the baseline
 * x86-64 and the scalar loops (perf: half of a 4-harmonic search, the scan's
 * branch per element the largest part) ran one element at a time. */
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "core/search/xc_accel.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES)
#define XC_ROW_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define XC_ROW_CLONES
#endif

XC_ROW_CLONES void xc_accel_row_load(double *restrict row, const float *restrict f, size_t m)
{
#pragma omp simd
    for (size_t j = 0; j < m; j++)
        row[j] = f[j];
}

XC_ROW_CLONES void xc_accel_row_add(double *restrict row, const float *restrict sub, const int32_t *restrict ri,
                                    size_t m, int mode)
{
    if (mode == XC_ROW_ADD_INSIDE) {
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            row[j] += sub[ri[j]];
    } else if (mode == XC_ROW_ADD_CLIPPED) {
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            row[j] += ri[j] >= 0 ? sub[ri[j] >= 0 ? ri[j] : 0] : 0.0f;
    } else {
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            row[j] = (double)(float)(row[j] + (ri[j] >= 0 ? sub[ri[j] >= 0 ? ri[j] : 0] : 0.0f));
    }
}

/* Blocks of 32 elements are tested as a whole (a vector comparison and an
 * OR); only a block with an element above thr is searched one by one. */
XC_ROW_CLONES size_t xc_accel_row_above(const double *restrict v, size_t from, size_t m, double thr)
{
    size_t j = from;
    for (; j < m && j % 32; j++)
        if (v[j] > thr)
            return j;
    for (; j + 32 <= m; j += 32) {
        int any = 0;
#pragma omp simd reduction(| : any)
        for (size_t k = 0; k < 32; k++)
            any |= v[j + k] > thr;
        if (any)
            for (size_t k = 0; k < 32; k++)
                if (v[j + k] > thr)
                    return j + k;
    }
    for (; j < m; j++)
        if (v[j] > thr)
            return j;
    return m;
}

XC_ROW_CLONES size_t xc_accel_rowf_above(const float *restrict v, size_t from, size_t m, double thr)
{
    size_t j = from;
    for (; j < m && j % 32; j++)
        if ((double)v[j] > thr)
            return j;
    for (; j + 32 <= m; j += 32) {
        int any = 0;
#pragma omp simd reduction(| : any)
        for (size_t k = 0; k < 32; k++)
            any |= (double)v[j + k] > thr;
        if (any)
            for (size_t k = 0; k < 32; k++)
                if ((double)v[j + k] > thr)
                    return j + k;
    }
    for (; j < m; j++)
        if ((double)v[j] > thr)
            return j;
    return m;
}

/* One element of a stage: its sum over the sub-harmonics, as the row loops
 * above make it. */
static inline double stage_one(double v, const float *const *sub, const int32_t *const *ri, int nsub, size_t j,
                               int mode)
{
    for (int e = 0; e < nsub; e++) {
        const int32_t k = ri[e][j];
        if (mode == XC_ROW_ADD_INSIDE)
            v += sub[e][k];
        else if (mode == XC_ROW_ADD_CLIPPED)
            v += k >= 0 ? sub[e][k] : 0.0f;
        else
            v = (double)(float)(v + (k >= 0 ? sub[e][k] : 0.0f));
    }
    return v;
}

static int stage_generic(double *row, const float *const *sub, const int32_t *const *ri, int nsub, size_t m,
                         int mode, double thr)
{
    int any = 0;
    for (size_t j = 0; j < m; j++) {
        row[j] = stage_one(row[j], sub, ri, nsub, j, mode);
        any |= row[j] > thr;
    }
    return any;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* A sub-harmonic's index, round(i h/H) with h/H < 1, rises by at most 7
 * over 8 consecutive j, so 8 of its values are one unaligned load of 8
 * floats and a permute instead of a gather (the caller's rows readable 7
 * floats past their last index); a group with an index below 0 (a zero
 * power) or outside [first, first + 7] takes the scalar elements.  The additions and
 * roundings are the scalar ones, element by element. */
__attribute__((target("avx2"))) static int stage_avx2(double *row, const float *const *sub,
                                                      const int32_t *const *ri, int nsub, size_t m, int mode,
                                                      double thr)
{
    const __m256d t = _mm256_set1_pd(thr);
    __m256d f = _mm256_setzero_pd();
    const int presto = mode == XC_ROW_ADD_PRESTO;
    size_t j = 0;
    for (; j + 8 <= m; j += 8) {
        int ok = 1;
        for (int e = 0; e < nsub && ok; e++) {
            const int32_t *r = ri[e] + j;
            __m256i idx = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)r), _mm256_set1_epi32(r[0]));
            ok = r[0] >= 0 && _mm256_testz_si256(idx, _mm256_set1_epi32(~7));   /* every lane in [r[0], r[0] + 7] */
        }
        if (!ok) {
            for (size_t k = j; k < j + 8; k++)
                row[k] = stage_one(row[k], sub, ri, nsub, k, mode);
            __m256d a0 = _mm256_loadu_pd(row + j), a1 = _mm256_loadu_pd(row + j + 4);
            f = _mm256_or_pd(f, _mm256_or_pd(_mm256_cmp_pd(a0, t, _CMP_GT_OQ), _mm256_cmp_pd(a1, t, _CMP_GT_OQ)));
            continue;
        }
        __m256d a0 = _mm256_loadu_pd(row + j), a1 = _mm256_loadu_pd(row + j + 4);
        /* preset presto: the sums are floats, and a double sum of two
         * floats rounded to float is their float sum (53 >= 2 x 24 + 2:
         * the double rounding is innocuous, Figueroa 1995), so the adds
         * are float adds, 8 a vector */
        __m256 p = _mm256_set_m128(_mm256_cvtpd_ps(a1), _mm256_cvtpd_ps(a0));
        for (int e = 0; e < nsub; e++) {
            const int32_t *r = ri[e] + j, b = r[0];
            __m256i idx = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)r), _mm256_set1_epi32(b));
            __m256 v = _mm256_permutevar8x32_ps(_mm256_loadu_ps(sub[e] + b), idx);
            if (presto) {
                p = _mm256_add_ps(p, v);
                continue;
            }
            a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
            a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
        }
        if (presto) {
            a0 = _mm256_cvtps_pd(_mm256_castps256_ps128(p));
            a1 = _mm256_cvtps_pd(_mm256_extractf128_ps(p, 1));
        }
        _mm256_storeu_pd(row + j, a0);
        _mm256_storeu_pd(row + j + 4, a1);
        f = _mm256_or_pd(f, _mm256_or_pd(_mm256_cmp_pd(a0, t, _CMP_GT_OQ), _mm256_cmp_pd(a1, t, _CMP_GT_OQ)));
    }
    int any = _mm256_movemask_pd(f) != 0;
    for (; j < m; j++) {
        row[j] = stage_one(row[j], sub, ri, nsub, j, mode);
        any |= row[j] > thr;
    }
    return any;
}
#endif

int xc_accel_stage_add(double *row, const float *const *sub, const int32_t *const *ri, int nsub, size_t m, int mode,
                       double thr)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx2"))
        return stage_avx2(row, sub, ri, nsub, m, mode, thr);
#endif
    return stage_generic(row, sub, ri, nsub, m, mode, thr);
}
