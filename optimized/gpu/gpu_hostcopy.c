/* Threaded host copies for the GPU dedisperser's staging (gpu_hostcopy.h).
 * Pieces of at least 2 MiB per thread, at most 16 threads: beyond that one
 * host's memory bandwidth, not the thread count, sets the rate. */
#include "optimized/gpu/gpu_hostcopy.h"

#include <omp.h>
#include <string.h>

#define PIECE ((size_t)2 << 20)
#define MAXT 16

static int threads_for(size_t bytes)
{
    size_t t = bytes / PIECE;
    int m = omp_get_max_threads();
    if (m > MAXT)
        m = MAXT;
    return t < 1 ? 1 : t > (size_t)m ? m : (int)t;
}

void xc_gpu_copy_bytes(void *dst, const void *src, size_t n)
{
    const int nt = threads_for(n);
    if (nt == 1) {
        memcpy(dst, src, n);
        return;
    }
#pragma omp parallel num_threads(nt)
    {
        const size_t t = (size_t)omp_get_thread_num(), T = (size_t)omp_get_num_threads();
        const size_t a = n * t / T, b = n * (t + 1) / T;
        memcpy((char *)dst + a, (const char *)src + a, b - a);
    }
}

void xc_gpu_narrow_bytes(uint8_t *dst, const uint16_t *src, size_t n)
{
    const int nt = threads_for(n * sizeof *src);
    const long m = (long)n;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (long k = 0; k < m; k++)
        dst[k] = (uint8_t)src[k];
}

void xc_gpu_copy_rows(float *dst, size_t dpitch, const float *src, size_t spitch, size_t rowlen, size_t nrows)
{
    if (dpitch == rowlen && spitch == rowlen) {
        xc_gpu_copy_bytes(dst, src, nrows * rowlen * sizeof(float));
        return;
    }
    const int nt = threads_for(nrows * rowlen * sizeof(float));
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t d = 0; d < nrows; d++)
        memcpy(dst + d * dpitch, src + d * spitch, rowlen * sizeof(float));
}

void xc_gpu_to_float(float *dst, const double *src, size_t n, int threads)
{
    int nt = threads > 0 ? threads : omp_get_max_threads();
    int most = threads_for(n * sizeof(double));
    nt = nt > most ? most : nt;
    const long m = (long)n;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (long k = 0; k < m; k++)
        dst[k] = (float)src[k];
}
