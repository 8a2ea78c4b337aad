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
