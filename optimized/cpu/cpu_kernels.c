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

/* 8-bit input.  The AVX-512 version (tile_u8_v4) keeps two samples per
 * 16-bit lane.  A little-endian word w of a row is lo + 256 hi, samples 2k
 * and 2k+1; per channel it adds w into aw and w >> 8 (= hi) into ah, modulo
 * 2^16.  ah is then the odd samples' sum H exactly (at most 257 channels, so
 * H <= 257 x 255 = 65535), and aw - 256 ah is the even samples' sum L modulo
 * 2^16, which is L itself for the same reason.  That is one load, one shift
 * and two adds per 64 samples, where widening bytes to words takes a load, a
 * shuffle and an add per 32.  The other versions widen in blocks of 256
 * samples, what sixteen AVX2 registers hold, one per XC_CPU_BLOCK_U8.
 *
 * The narrow sums of a (block, trial) may run on over several channel tiles
 * (the caller keeps the total within the narrow bound): from_part starts them
 * from part instead of zero, to (XC_U8_TO_PART) leaves them there instead of
 * widening them into wide.  So a small channel tile, whose rows stay in L1 while the
 * tile's trials reread them, does not pay the widening once per tile.  part's
 * layout is each version's own (pairs or samples), the same size as a block. */
XC_CLONES static void tile_u8_widen(const uint8_t *const *rows, int nd, int nc, int nblk, uint16_t *part,
                                    int from_part, int to, uint32_t *wide, size_t wstride, const int *shared)
{
    enum { B = 256 };
    for (int b = 0; b < nblk; b++) {
        const size_t off = (size_t)b * B;
        for (int d = 0; d < nd; d++) {
            const uint8_t *const *r = rows + (size_t)d * (size_t)nc;
            /* a pair's trial: its shared rows, then its own (xc_cpu_tile_u8) */
            int n0 = nc, s1 = 0;
            if (shared && (d | 1) < nd) {
                const int ns = shared[d / 2];
                r = rows + (size_t)(d & ~1) * (size_t)nc;
                n0 = ns;
                s1 = d & 1 ? nc : ns;
            }
            uint16_t *p = part + (size_t)d * wstride + off;
            /* from zero, the carried sums added after the loop (the same sum
             * modulo 2^16): loaded before it, they cost 4-10 % (AVX2, measured) */
            uint16_t acc[B];
            for (int k = 0; k < B; k++)
                acc[k] = 0;
            for (int i = 0; i < nc; i++) {
                const uint8_t *q = r[i < n0 ? i : s1 + i - n0] + off;
                for (int k = 0; k < B; k++)
                    acc[k] = (uint16_t)(acc[k] + q[k]);
            }
            if (from_part)
                for (int k = 0; k < B; k++)
                    acc[k] = (uint16_t)(acc[k] + p[k]);
            uint32_t *w = wide + (size_t)d * wstride + off;
            if (to == XC_U8_TO_PART)
                for (int k = 0; k < B; k++)
                    p[k] = acc[k];
            else if (to == XC_U8_TO_WIDE_SET)
                for (int k = 0; k < B; k++)
                    w[k] = acc[k];
            else
                for (int k = 0; k < B; k++)
                    w[k] += acc[k];
        }
    }
}
_Static_assert(XC_CPU_BLOCK_U8 % 256 == 0, "an 8-bit block is a whole number of widening blocks");

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES) &&              \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define XC_TILE_U8_V4 1
typedef uint16_t xc_u16v __attribute__((vector_size(64), aligned(1), may_alias));

/* The sums of one block and trial back to sample order, added into w (set:
 * written over it, so the caller need not zero it first). */
__attribute__((target("arch=x86-64-v4"))) static inline void u8_unpair(const xc_u16v *aw, const xc_u16v *ah,
                                                                      uint32_t *w, int set)
{
    enum { H = XC_CPU_BLOCK_U8 / 2 };
    uint16_t lo[H], hi[H];
    __builtin_memcpy(lo, aw, sizeof lo);
    __builtin_memcpy(hi, ah, sizeof hi);
    if (set)
        for (int k = 0; k < H; k++) {
            w[2 * k] = (uint16_t)(lo[k] - (uint16_t)(hi[k] << 8));
            w[2 * k + 1] = hi[k];
        }
    else
        for (int k = 0; k < H; k++) {
            w[2 * k] += (uint16_t)(lo[k] - (uint16_t)(hi[k] << 8));
            w[2 * k + 1] += hi[k];
        }
}

/* The loads (unaligned, so each touches two cache lines) are what limits this
 * loop, and GCC folds the load into both the add and the shift, reading each
 * vector twice: the empty asm keeps v in a register, so it is read once. */
#define XC_U8_NV (XC_CPU_BLOCK_U8 / 64)
__attribute__((target("arch=x86-64-v4"))) static inline void u8_rows(const uint8_t *const *r, int n, size_t off,
                                                                    xc_u16v *aw, xc_u16v *ah)
{
    for (int i = 0; i < n; i++) {
        const uint8_t *q = r[i] + off;
        for (int j = 0; j < XC_U8_NV; j++) {
            xc_u16v v;
            __builtin_memcpy(&v, q + 64 * j, sizeof v);
            __asm__("" : "+v"(v));
            aw[j] += v;
            ah[j] += v >> 8;
        }
    }
}

/* Two trials' own rows, n each, in one loop (one loop's bookkeeping for
 * both; two loops ran alike, within the noise, measured). */
__attribute__((target("arch=x86-64-v4"))) static inline void u8_rows2(const uint8_t *const *ra,
                                                                     const uint8_t *const *rb, int n, size_t off,
                                                                     xc_u16v *aw, xc_u16v *ah, xc_u16v *bw,
                                                                     xc_u16v *bh)
{
    for (int i = 0; i < n; i++) {
        const uint8_t *qa = ra[i] + off, *qb = rb[i] + off;
        for (int j = 0; j < XC_U8_NV; j++) {
            xc_u16v v, u;
            __builtin_memcpy(&v, qa + 64 * j, sizeof v);
            __builtin_memcpy(&u, qb + 64 * j, sizeof u);
            __asm__("" : "+v"(v), "+v"(u));
            aw[j] += v;
            ah[j] += v >> 8;
            bw[j] += u;
            bh[j] += u >> 8;
        }
    }
}

/* A trial's sums out of the registers: into part, or into wide. */
__attribute__((target("arch=x86-64-v4"))) static inline void u8_out(const xc_u16v *aw, const xc_u16v *ah,
                                                                   uint16_t *p, int to, uint32_t *w)
{
    if (to == XC_U8_TO_PART) {
        __builtin_memcpy(p, aw, XC_U8_NV * sizeof *aw);
        __builtin_memcpy(p + XC_U8_NV * 32, ah, XC_U8_NV * sizeof *ah);
    } else {
        u8_unpair(aw, ah, w, to == XC_U8_TO_WIDE_SET);
    }
}

/* part holds a block's aw then its ah (NV vectors each).  A pair of trials
 * (shared != NULL) sums the rows their delays share once, into both. */
__attribute__((target("arch=x86-64-v4"))) static void tile_u8_v4(const uint8_t *const *rows, int nd, int nc,
                                                                int nblk, uint16_t *part, int from_part,
                                                                int to, uint32_t *wide, size_t wstride,
                                                                const uint8_t *const *pf, int npf,
                                                                const int *shared)
{
    enum { NV = XC_U8_NV };
    const int np = shared ? nd / 2 : 0;
    for (int b = 0; b < nblk; b++) {
        const size_t off = (size_t)b * XC_CPU_BLOCK_U8;
        for (int i = 0; i < npf; i++)
            for (const uint8_t *a = pf[i] + off, *e = pf[npf + i] + off + XC_CPU_BLOCK_U8; a < e; a += 64)
                __builtin_prefetch(a, 0, 2);
        for (int q = 0; q < np; q++) {
            const int d = 2 * q, ns = shared[q];
            const uint8_t *const *r = rows + (size_t)d * (size_t)nc;
            uint16_t *p = part + (size_t)d * wstride + off;
            xc_u16v aw[NV], ah[NV], bw[NV], bh[NV];
            for (int j = 0; j < NV; j++)
                aw[j] = ah[j] = (xc_u16v){0};
            u8_rows(r, ns, off, aw, ah);
            for (int j = 0; j < NV; j++) {
                bw[j] = aw[j];
                bh[j] = ah[j];
            }
            if (from_part)
                for (int j = 0; j < NV; j++) {
                    xc_u16v v;
                    __builtin_memcpy(&v, p + 32 * j, sizeof v);
                    aw[j] += v;
                    __builtin_memcpy(&v, p + NV * 32 + 32 * j, sizeof v);
                    ah[j] += v;
                    __builtin_memcpy(&v, p + wstride + 32 * j, sizeof v);
                    bw[j] += v;
                    __builtin_memcpy(&v, p + wstride + NV * 32 + 32 * j, sizeof v);
                    bh[j] += v;
                }
            u8_rows2(r + ns, r + nc, nc - ns, off, aw, ah, bw, bh);
            uint32_t *w = wide + (size_t)d * wstride + off;
            u8_out(aw, ah, p, to, w);
            u8_out(bw, bh, p + wstride, to, w + wstride);
        }
        for (int d = 2 * np; d < nd; d++) {
            const uint8_t *const *r = rows + (size_t)d * (size_t)nc;
            uint16_t *p = part + (size_t)d * wstride + off;
            xc_u16v aw[NV], ah[NV];
            if (from_part) {
                __builtin_memcpy(aw, p, sizeof aw);
                __builtin_memcpy(ah, p + NV * 32, sizeof ah);
            } else {
                for (int j = 0; j < NV; j++)
                    aw[j] = ah[j] = (xc_u16v){0};
            }
            u8_rows(r, nc, off, aw, ah);
            u8_out(aw, ah, p, to, wide + (size_t)d * wstride + off);
        }
    }
}
#endif

void xc_cpu_tile_u8(const uint8_t *const *rows, int nd, int nc, int nblk, uint16_t *part, int from_part,
                    int to, uint32_t *wide, size_t wstride, const uint8_t *const *pf, int npf, const int *shared)
{
#ifdef XC_TILE_U8_V4
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) {
        tile_u8_v4(rows, nd, nc, nblk, part, from_part, to, wide, wstride, pf, pf ? npf : 0, shared);
        return;
    }
#endif
    (void)pf;
    (void)npf;
    tile_u8_widen(rows, nd, nc, nblk * (XC_CPU_BLOCK_U8 / 256), part, from_part, to, wide, wstride, shared);
}
int xc_cpu_tile_c_u8(void)
{
#ifdef XC_TILE_U8_V4
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4"))
        return XC_CPU_TILE_C_U8;
#endif
    return XC_CPU_TILE_C;
}
XC_TILE_KERNEL(xc_cpu_tile_u16, uint16_t, uint32_t, uint64_t, XC_CPU_BLOCK_U16)
XC_TILE_KERNEL(xc_cpu_tile_u32, uint32_t, uint32_t, uint64_t, XC_CPU_BLOCK_U32)
XC_TILE_KERNEL(xc_cpu_tile_u64, uint64_t, uint64_t, uint64_t, XC_CPU_BLOCK_U64)
/* Float: per-lane sums in channel order (vectorizing across k never reorders
 * one sample's additions), widened to double once per channel tile. */
XC_TILE_KERNEL(xc_cpu_tile_f32, float, float, double, XC_CPU_BLOCK_F32)

/* In streaming stores (XC_CPU_STREAM; the caller fences): each trial's row of a tile goes to the plane
 * once and is not read back. */
#define XC_SCALED_SUM(i) (XC_SUMF(i))
#define XC_SCALED_DEDISP(i) (XC_SUMF(i) * 1.0f / k1 * k2)
#define XC_SCALED_MEAN(i) (XC_SUMF(i) / k1 / k2)
#define XC_SUMF(i) ((float)(double)sum[i])
#define XC_SCALE_KERNEL(NAME, SUMT)                                                          \
    XC_CLONES void NAME(int kind, float k1, float k2, const SUMT *sum, float *out, size_t n) \
    {                                                                                       \
        switch (kind) {                                                                     \
        case XC_SCALE_SUM:                                                                  \
            XC_CPU_STREAM(out, n, XC_SCALED_SUM);                                           \
            break;                                                                          \
        case XC_SCALE_DEDISP:                                                               \
            XC_CPU_STREAM(out, n, XC_SCALED_DEDISP);                                        \
            break;                                                                          \
        default:                                                                            \
            XC_CPU_STREAM(out, n, XC_SCALED_MEAN);                                          \
            break;                                                                          \
        }                                                                                   \
    }

XC_SCALE_KERNEL(xc_cpu_scale_u64, uint64_t)
XC_SCALE_KERNEL(xc_cpu_scale_f64, double)
/* A uint32 is exact in double, so (float)(double)s and (float)s round once
 * from the same value: the same float, converted 16 to a vector instead of 8. */
#undef XC_SUMF
#define XC_SUMF(i) ((float)sum[i])
XC_SCALE_KERNEL(xc_cpu_scale_u32, uint32_t)

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
XC_ADD_PROBE(probe_avx2, __attribute__((target("avx2"))), 32)

/* The AVX-512 loop in assembly, at a known place in a 64-byte line: the same eight adds, but where the loop
 * lands matters to some front ends.  On the AMD EPYC (family 26) of the measurements the compiled loop ran
 * at about 240 or about 440 G lane adds per CPU second depending on its address alone (the same code in two
 * builds; starts at 16 and 24 bytes into a line fast, at 0, 8, 32..60 slow, measured), so the probe runs it
 * at two places (place 0: the line's start, else 16 bytes in) and the caller keeps the faster. */
#define XC_PROBE_V4_LOOP(SKIP)                                                                                  \
    __asm__ volatile(".p2align 6\n\t" SKIP "\n1:\n\t"                                                          \
                     "vpaddw %1, %0, %0\n\tvpaddw %2, %1, %1\n\tvpaddw %3, %2, %2\n\tvpaddw %4, %3, %3\n\t"    \
                     "vpaddw %5, %4, %4\n\tvpaddw %6, %5, %5\n\tvpaddw %7, %6, %6\n\tvpaddw %0, %7, %7\n\t"    \
                     "dec %8\n\tjnz 1b"                                                                         \
                     : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6), "+v"(a7), "+r"(iters))
typedef uint16_t probe_v4_v __attribute__((vector_size(64)));
__attribute__((target("arch=x86-64-v4"))) static uint16_t probe_v4(long iters, int place)
{
    probe_v4_v a0 = {0}, a1 = {1}, a2 = {2}, a3 = {3}, a4 = {4}, a5 = {5}, a6 = {6}, a7 = {7};
    if (iters > 0 && place)
        XC_PROBE_V4_LOOP(".skip 16, 0x90");
    else if (iters > 0)
        XC_PROBE_V4_LOOP("");
    probe_v4_v s = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
    uint16_t r = 0;
    for (int k = 0; k < 32; k++)
        r = (uint16_t)(r ^ s[k]);
    return r;
}
#endif
XC_ADD_PROBE(probe_base, , 16)

uint16_t xc_cpu_add_probe(long iters, int place, int *lanes)
{
    (void)place;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) {
        *lanes = 32;
        return probe_v4(iters, place);
    }
    if (__builtin_cpu_supports("avx2")) {
        *lanes = 16;
        return probe_avx2(iters);
    }
#endif
    *lanes = 8;
    return probe_base(iters);
}
