/* The row-sum kernels of the approximate CPU dedispersers: dst[u] = sum_i src[i][u], u < n, for a list of
 * shifted rows.  Both stages of subband dedispersion are such sums (stage 1 over a subband's channels, stage 2
 * over the subbands), so they run at the direct kernel's rate: a block of B sums stays in vector registers
 * across the rows, as in cpu_kernels.c, and each row costs one widening load and one add per vector.
 *
 * Compiled three times (target_clones, picked by the loader) like cpu_kernels.c, so a plain -O3 build uses
 * AVX-512BW where the machine has it.  Integer sums are exact: the caller guarantees they fit DST. */
#pragma GCC optimize("no-loop-unroll-and-jam")

#include "optimized/cpu/cpu_internal.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

/* B: sums per register block (512 bytes of DST: eight AVX-512 registers).  The last n mod B sums go through
 * the same loop with a variable length, in dst itself. */
#define XC_ROWSUM(NAME, SRC, DST, B)                                                                          \
    XC_CPU_CLONES void NAME(const SRC *const *src, int nrows, size_t n, DST *dst)                        \
    {                                                                                                        \
        size_t off = 0;                                                                                      \
        for (; off + (B) <= n; off += (B)) {                                                                 \
            DST acc[B];                                                                                      \
            for (int k = 0; k < (B); k++)                                                                    \
                acc[k] = 0;                                                                                  \
            for (int i = 0; i < nrows; i++) {                                                                \
                const SRC *q = src[i] + off;                                                                 \
                for (int k = 0; k < (B); k++)                                                                \
                    acc[k] = (DST)(acc[k] + q[k]);                                                           \
            }                                                                                                \
            for (int k = 0; k < (B); k++)                                                                    \
                dst[off + (size_t)k] = acc[k];                                                               \
        }                                                                                                    \
        const size_t m = n - off;                                                                            \
        DST *d = dst + off;                                                                                  \
        for (size_t k = 0; k < m; k++)                                                                       \
            d[k] = 0;                                                                                        \
        for (int i = 0; i < nrows; i++) {                                                                    \
            const SRC *q = src[i] + off;                                                                     \
            for (size_t k = 0; k < m; k++)                                                                   \
                d[k] = (DST)(d[k] + q[k]);                                                                   \
        }                                                                                                    \
    }

XC_ROWSUM(xc_cpu_rowsum_u8_u16, uint8_t, uint16_t, 256)
XC_ROWSUM(xc_cpu_rowsum_u16_u16, uint16_t, uint16_t, 256)
XC_ROWSUM(xc_cpu_rowsum_u16_u32, uint16_t, uint32_t, 128)

/* (float)(double)sum of each, the XC_SCALE_SUM store of XC_CPU_STORE, vectorized.  The plane is written once
 * and read by nobody here, so aligned runs of 64 go out as non-temporal stores: no read of the line
 * before it is written, and the plane does not push the rows out of cache.  The closing sfence orders them
 * before the work item ends (OpenMP's barrier does not order non-temporal stores). */
XC_CPU_CLONES void xc_cpu_store_u32(const uint32_t *sum, float *out, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    for (; i < n && ((uintptr_t)(out + i) & 15); i++)
        out[i] = (float)(double)sum[i];
    float tmp[64] __attribute__((aligned(64)));
    for (; i + 64 <= n; i += 64) {
        for (int k = 0; k < 64; k++)
            tmp[k] = (float)(double)sum[i + (size_t)k];
        for (int k = 0; k < 64; k += 4)
            _mm_stream_ps(out + i + k, _mm_load_ps(tmp + k));
    }
    _mm_sfence();
#endif
    for (; i < n; i++)
        out[i] = (float)(double)sum[i];
}
