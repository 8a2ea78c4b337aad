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

/* The add peak the tile kernels are held against: a register-only loop of
 * vector adds on 16-bit lanes, in the instruction set the loader picked for
 * the kernels (the same order as the target_clones resolver).  Eight
 * accumulators of one vector each, each adding its neighbour: no constant, no
 * load, and more independent adds per cycle than any core has adders.  Each
 * version is written at its own vector width (GCC splits wider generic vectors
 * through memory).  Returns a function of the sums, so the loop is kept;
 * *lanes: 16-bit lanes per vector. */
#define XC_ADD_PROBE(NAME, TARGET, BYTES)                                                     \
    typedef uint16_t NAME##_v __attribute__((vector_size(BYTES)));                            \
    TARGET static uint16_t NAME(long iters)                                                   \
    {                                                                                         \
        NAME##_v a0 = {0}, a1 = {1}, a2 = {2}, a3 = {3}, a4 = {4}, a5 = {5}, a6 = {6}, a7 = {7}; \
        for (long n = 0; n < iters; n++) {                                                    \
            a0 += a1, a1 += a2, a2 += a3, a3 += a4;                                           \
            a4 += a5, a5 += a6, a6 += a7, a7 += a0;                                           \
        }                                                                                     \
        NAME##_v s = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;                                   \
        uint16_t r = 0;                                                                       \
        for (int k = 0; k < (BYTES) / 2; k++)                                                 \
            r = (uint16_t)(r ^ s[k]);                                                         \
        return r;                                                                             \
    }

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES)
XC_ADD_PROBE(probe_v4, __attribute__((target("arch=x86-64-v4"))), 64)
XC_ADD_PROBE(probe_avx2, __attribute__((target("avx2"))), 32)
#endif
XC_ADD_PROBE(probe_base, , 16)

uint16_t xc_cpu_add_probe(long iters, int *lanes)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) {
        *lanes = 32;
        return probe_v4(iters);
    }
    if (__builtin_cpu_supports("avx2")) {
        *lanes = 16;
        return probe_avx2(iters);
    }
#endif
    *lanes = 8;
    return probe_base(iters);
}
