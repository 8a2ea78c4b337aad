/* The inner tile kernels of the CPU dedisperser, one per input element type.
 *
 * Each is compiled three times (target_clones) and picked by the loader, so the
 * binary runs on any x86-64 but uses AVX-512BW where present.  GCC 12 does not
 * accept "avx512bw" as a dispatchable clone, hence "arch=x86-64-v4" (AVX-512
 * F/BW/CD/DQ/VL).  The loops are written for GCC's vectorizer: the block length
 * is a constant, so the accumulator array becomes eight vector registers and the
 * k loop a handful of widen-and-add instructions per channel.
 *
 * -O3's unroll-and-jam fuses pairs of channel iterations into a scalar loop
 * that runs twenty times slower (measured: 2.5 vs 49 G adds/s), so it is off
 * for this file. */
#pragma GCC optimize("no-loop-unroll-and-jam")

#include "optimized/cpu/cpu_internal.h"

/* XC_CPU_NO_CLONES builds one version for the compiler's -m flags (to test
 * the AVX2 and baseline code paths on an AVX-512 machine). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES)
#define XC_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define XC_CLONES
#endif

/* Integer input is summed exactly: the caller caps nc at the narrow type's
 * overflow limit, and the narrow sums are widened into uint64. */
#define XC_TILE_KERNEL(NAME, STORE, NARROW, WIDE, B)                                         \
    XC_CLONES void NAME(const STORE *const *rows, int nd, int nc, int nblk, WIDE *wide,     \
                        size_t wstride)                                                     \
    {                                                                                       \
        for (int b = 0; b < nblk; b++) {                                                    \
            const size_t off = (size_t)b * (B);                                             \
            for (int d = 0; d < nd; d++) {                                                  \
                const STORE *const *r = rows + (size_t)d * (size_t)nc;                      \
                NARROW acc[B];                                                              \
                for (int k = 0; k < (B); k++)                                               \
                    acc[k] = 0;                                                             \
                for (int i = 0; i < nc; i++) {                                              \
                    const STORE *q = r[i] + off;                                            \
                    for (int k = 0; k < (B); k++)                                           \
                        acc[k] = (NARROW)(acc[k] + q[k]);                                   \
                }                                                                           \
                WIDE *w = wide + (size_t)d * wstride + off;                                 \
                for (int k = 0; k < (B); k++)                                               \
                    w[k] += (WIDE)acc[k];                                                   \
            }                                                                               \
        }                                                                                   \
    }

XC_TILE_KERNEL(xc_cpu_tile_u8, uint8_t, uint16_t, uint64_t, XC_CPU_BLOCK_U8)
XC_TILE_KERNEL(xc_cpu_tile_u16, uint16_t, uint32_t, uint64_t, XC_CPU_BLOCK_U16)
XC_TILE_KERNEL(xc_cpu_tile_u32, uint32_t, uint32_t, uint64_t, XC_CPU_BLOCK_U32)
XC_TILE_KERNEL(xc_cpu_tile_u64, uint64_t, uint64_t, uint64_t, XC_CPU_BLOCK_U64)
/* Float: per-lane sums in channel order (vectorizing across k never reorders
 * one sample's additions), widened to double once per channel tile. */
XC_TILE_KERNEL(xc_cpu_tile_f32, float, float, double, XC_CPU_BLOCK_F32)

#define XC_SCALE_KERNEL(NAME, SUMT)                                                          \
    XC_CLONES void NAME(int kind, float k1, float k2, const SUMT *sum, float *out, size_t n) \
    {                                                                                       \
        switch (kind) {                                                                     \
        case XC_SCALE_SUM:                                                                  \
            for (size_t i = 0; i < n; i++)                                                  \
                out[i] = (float)(double)sum[i];                                             \
            break;                                                                          \
        case XC_SCALE_DEDISP:                                                               \
            for (size_t i = 0; i < n; i++)                                                  \
                out[i] = (float)(double)sum[i] * 1.0f / k1 * k2;                            \
            break;                                                                          \
        default:                                                                            \
            for (size_t i = 0; i < n; i++)                                                  \
                out[i] = (float)(double)sum[i] / k1 / k2;                                   \
            break;                                                                          \
        }                                                                                   \
    }

XC_SCALE_KERNEL(xc_cpu_scale_u64, uint64_t)
XC_SCALE_KERNEL(xc_cpu_scale_f64, double)
