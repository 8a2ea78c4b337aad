/* Threaded host copies for the GPU dedisperser's staging (gpu_hostcopy.h).
 * Pieces of at least 2 MiB per thread, at most 16 threads: beyond that one
 * host's memory bandwidth, not the thread count, sets the rate.
 * Copies of STREAM_MIN bytes or more store with streaming (non-temporal)
 * stores: the bytes go to memory without first reading the lines they
 * overwrite and without evicting the cache, and nothing reads them back soon
 * (the DMA engine reads the staging; the caller reads its plane after the
 * gulp).  On an H200 host (16 cores, scripts/gpu-hostcopy-probe.c) 512 MiB
 * between page-locked and pageable memory moved at 38-39 GB/s with memcpy
 * and 55-60 GB/s with streaming stores on 16 threads. */
#include "optimized/gpu/gpu_hostcopy.h"

#include <omp.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define PIECE ((size_t)2 << 20)
#define MAXT 16
#define STREAM_MIN ((size_t)1 << 20)

/* n bytes from src to dst with streaming stores where the target allows
 * (SSE2: 16-byte aligned stores; the unaligned head and the tail by memcpy). */
static void copy_stream(void *dst, const void *src, size_t n)
{
#if defined(__SSE2__)
    char *d = (char *)dst;
    const char *s = (const char *)src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    head = head > n ? n : head;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    const size_t m = n & ~(size_t)63;
    for (size_t k = 0; k < m; k += 64) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(s + k)), b = _mm_loadu_si128((const __m128i *)(s + k + 16));
        const __m128i c = _mm_loadu_si128((const __m128i *)(s + k + 32)), e = _mm_loadu_si128((const __m128i *)(s + k + 48));
        _mm_stream_si128((__m128i *)(d + k), a);
        _mm_stream_si128((__m128i *)(d + k + 16), b);
        _mm_stream_si128((__m128i *)(d + k + 32), c);
        _mm_stream_si128((__m128i *)(d + k + 48), e);
    }
    memcpy(d + m, s + m, n - m);
    _mm_sfence();   /* the streamed stores ordered before what follows */
#else
    memcpy(dst, src, n);
#endif
}

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
    const int stream = n >= STREAM_MIN;
    if (nt == 1) {
        if (stream)
            copy_stream(dst, src, n);
        else
            memcpy(dst, src, n);
        return;
    }
#pragma omp parallel num_threads(nt)
    {
        const size_t t = (size_t)omp_get_thread_num(), T = (size_t)omp_get_num_threads();
        const size_t a = n * t / T, b = n * (t + 1) / T;
        copy_stream((char *)dst + a, (const char *)src + a, b - a);
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
    const size_t bytes = nrows * rowlen * sizeof(float);
    const int nt = threads_for(bytes);
    if (bytes < STREAM_MIN) {
        for (size_t d = 0; d < nrows; d++)
            memcpy(dst + d * dpitch, src + d * spitch, rowlen * sizeof(float));
        return;
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t d = 0; d < nrows; d++)
        copy_stream(dst + d * dpitch, src + d * spitch, rowlen * sizeof(float));
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
