/* The row-sum kernels of the approximate CPU dedispersers: dst[u] = sum_i src[i][u], u < n, for a list of
 * shifted rows.  Both stages of subband dedispersion are such sums (stage 1 over a subband's channels, stage 2
 * over the subbands), so they run at the direct kernel's rate: a block of B sums stays in vector registers
 * across the rows, as in cpu_kernels.c, and each row costs one widening load and one add per vector.
 *
 * Compiled three times (target_clones, picked by the loader) like cpu_kernels.c, so a plain -O3 build uses
 * AVX-512BW where the machine has it.  Integer sums are exact: the caller guarantees they fit DST. */
#pragma GCC optimize("no-loop-unroll-and-jam")

#include "optimized/cpu/cpu_internal.h"

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

/* (float)(double)sum of each, the XC_SCALE_SUM store of XC_CPU_STORE, vectorized, in streaming stores
 * (XC_CPU_STREAM): the plane is written once and read by nobody here.  The caller fences once per work item.
 * _plain: the same values in ordinary stores, the other half of the bench's plane-write measure. */
#define XC_SUM_AT(i) ((float)(double)sum[i])
XC_CPU_CLONES void xc_cpu_store_u32(const uint32_t *sum, float *out, size_t n) { XC_CPU_STREAM(out, n, XC_SUM_AT); }
XC_CPU_CLONES void xc_cpu_store_u64(const uint64_t *sum, float *out, size_t n) { XC_CPU_STREAM(out, n, XC_SUM_AT); }
XC_CPU_CLONES void xc_cpu_store_f64(const double *sum, float *out, size_t n) { XC_CPU_STREAM(out, n, XC_SUM_AT); }
XC_CPU_CLONES void xc_cpu_store_u32_plain(const uint32_t *sum, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = XC_SUM_AT(i);
}
