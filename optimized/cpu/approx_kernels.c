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
 * the same loop with a variable length, in dst itself.  Samples [at, at + n) of every row into dst[at, at + n). */
#define XC_ROWSUM(NAME, SRC, DST, B)                                                                          \
    XC_CPU_CLONES void NAME(const SRC *const *src, int nrows, size_t at, size_t n, DST *dst)             \
    {                                                                                                        \
        size_t off = at;                                                                                     \
        const size_t end = at + n;                                                                           \
        for (; off + (B) <= end; off += (B)) {                                                               \
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
        const size_t m = end - off;                                                                          \
        DST *d = dst + off;                                                                                  \
        for (size_t k = 0; k < m; k++)                                                                       \
            d[k] = 0;                                                                                        \
        for (int i = 0; i < nrows; i++) {                                                                    \
            const SRC *q = src[i] + off;                                                                     \
            for (size_t k = 0; k < m; k++)                                                                   \
                d[k] = (DST)(d[k] + q[k]);                                                                   \
        }                                                                                                    \
    }

static XC_ROWSUM(rowsum_u8_u16_widen, uint8_t, uint16_t, 256)
XC_ROWSUM(xc_cpu_rowsum_u16_u16, uint16_t, uint16_t, 256)
XC_ROWSUM(xc_cpu_rowsum_u16_u32, uint16_t, uint32_t, 128)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES) &&              \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define XC_ROWSUM_V4 1
#define XC_V4 __attribute__((target("arch=x86-64-v4")))

/* 8-bit rows, AVX-512: two samples per 16-bit lane, as the direct kernel's tile_u8_v4 (cpu_kernels.c).  Per row
 * a little-endian word w = lo + 256 hi of two samples adds into aw and w >> 8 = hi into ah, modulo 2^16: ah is
 * the odd samples' sum H, exact because the caller guarantees every sum fits uint16, and aw - 256 ah the even
 * samples' sum L modulo 2^16, which is L for the same reason.  One load, one shift and two adds per 64 samples
 * where widening takes two loads and two adds.  NV vectors of 64 samples per block (inlined with a constant);
 * mask: the bytes of the last vector that exist (the loads of the others are whole), so a block may end short of
 * 64 samples without reading past n. */
static inline __attribute__((always_inline)) XC_V4 void pair_block(const uint8_t *const *src, int nrows, size_t off,
                                                                  int NV, __mmask64 mask, uint16_t *dst)
{
    __m512i aw[8], ah[8];
    for (int j = 0; j < NV; j++)
        aw[j] = ah[j] = _mm512_setzero_si512();
    for (int i = 0; i < nrows; i++) {
        const uint8_t *q = src[i] + off;
        for (int j = 0; j < NV; j++) {
            __m512i v = j == NV - 1 ? _mm512_maskz_loadu_epi8(mask, q + 64 * j) : _mm512_loadu_si512(q + 64 * j);
            __asm__("" : "+v"(v));   /* one read: GCC would fold the load into both the add and the shift */
            aw[j] = _mm512_add_epi16(aw[j], v);
            ah[j] = _mm512_add_epi16(ah[j], _mm512_srli_epi16(v, 8));
        }
    }
    /* back to sample order: unpack interleaves pairs within 128-bit lanes (samples 16L..16L+7 in lo's lane L,
     * 16L+8.. in hi's), the permutes put the lanes in order */
    const __m512i first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    for (int j = 0; j < NV; j++) {
        const __m512i even = _mm512_sub_epi16(aw[j], _mm512_slli_epi16(ah[j], 8));
        const __m512i lo = _mm512_unpacklo_epi16(even, ah[j]), hi = _mm512_unpackhi_epi16(even, ah[j]);
        const __m512i a = _mm512_permutex2var_epi64(lo, first, hi), b = _mm512_permutex2var_epi64(lo, second, hi);
        uint16_t *d = dst + off + 64 * (size_t)j;
        if (j < NV - 1 || mask == ~(__mmask64)0) {
            _mm512_storeu_si512(d, a);
            _mm512_storeu_si512(d + 32, b);
        } else {   /* the words of the samples that exist: bit k of mask is sample k */
            _mm512_mask_storeu_epi16(d, (__mmask32)mask, a);
            _mm512_mask_storeu_epi16(d + 32, (__mmask32)(mask >> 32), b);
        }
    }
}

/* 16-bit rows into float sums, AVX-512, written straight from the registers: vcvtudq2ps rounds to nearest as
 * (float)(double) does (a uint32 is exact in double, so both round once).  Every block but the partial ones
 * streams (out + off 64-byte aligned, whole vectors); a partial block stores plainly the lanes in mask, and its
 * loads stop there too. */
#define XC_SUM16_NV 16   /* vectors of 16 sums per uint32 block: 256 sums (measured 10 % faster than 128) */
#define XC_SUM16_NP 8    /* vectors of 32 sums per uint16 block: the same 256 */

/* uint32 lanes: one widening load and one add per 16 sums and row.  NV vectors (a constant where inlined). */
static inline __attribute__((always_inline)) XC_V4 void sum16_block(const uint16_t *const *src, int nrows, size_t at,
                                                                   size_t off, int NV, __mmask16 mask, int stream,
                                                                   float *out)
{
    __m512i acc[XC_SUM16_NV];
    for (int j = 0; j < NV; j++)
        acc[j] = _mm512_setzero_si512();
    for (int i = 0; i < nrows; i++) {
        const uint16_t *q = src[i] + at + off;
        for (int j = 0; j < NV; j++) {
            const __m256i v = j == NV - 1 ? _mm256_maskz_loadu_epi16(mask, q + 16 * j)
                                          : _mm256_loadu_si256((const __m256i *)(q + 16 * j));
            acc[j] = _mm512_add_epi32(acc[j], _mm512_cvtepu16_epi32(v));
        }
    }
    for (int j = 0; j < NV; j++) {
        const __m512 f = _mm512_cvtepu32_ps(acc[j]);
        if (stream)
            _mm512_stream_ps(out + off + 16 * (size_t)j, f);
        else
            _mm512_mask_storeu_ps(out + off + 16 * (size_t)j, j == NV - 1 ? mask : (__mmask16)0xffff, f);
    }
}

/* uint16 lanes where a group of rows' sums fit them: one 64-byte load and one add per 32 sums and row, widened
 * into uint32 once per group of rows (groups of `group` rows, or where cut is given the rows [cut[g], cut[g + 1])).
 * NP vectors of 32 sums (a constant where inlined); mask: the sums of the last vector that exist (its loads stop
 * there too).  stream: whole vectors at a 64-byte aligned out + off, streamed; else plain stores of the lanes in
 * mask. */
static inline __attribute__((always_inline)) XC_V4 void sum16_pairs(const uint16_t *const *src, int nrows, int group,
                                                                   const int32_t *cut, size_t at, size_t off, int NP,
                                                                   __mmask32 mask, int stream, float *out)
{
    __m512i acc[2 * XC_SUM16_NP];
    for (int j = 0; j < 2 * NP; j++)
        acc[j] = _mm512_setzero_si512();
    for (int g = 0, i0 = 0, i1; i0 < nrows; g++, i0 = i1) {
        i1 = cut ? cut[g + 1] : nrows - i0 > group ? i0 + group : nrows;
        __m512i p[XC_SUM16_NP];
        for (int j = 0; j < NP; j++)
            p[j] = _mm512_setzero_si512();
        for (int i = i0; i < i1; i++) {
            const uint16_t *q = src[i] + at + off;
            for (int j = 0; j < NP; j++)
                p[j] = _mm512_add_epi16(p[j], j == NP - 1 ? _mm512_maskz_loadu_epi16(mask, q + 32 * j)
                                                          : _mm512_loadu_si512(q + 32 * j));
        }
        for (int j = 0; j < NP; j++) {
            acc[2 * j] = _mm512_add_epi32(acc[2 * j], _mm512_cvtepu16_epi32(_mm512_castsi512_si256(p[j])));
            acc[2 * j + 1] = _mm512_add_epi32(acc[2 * j + 1], _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(p[j], 1)));
        }
    }
    for (int j = 0; j < 2 * NP; j++) {
        const __m512 f = _mm512_cvtepu32_ps(acc[j]);
        if (stream)
            _mm512_stream_ps(out + off + 16 * (size_t)j, f);
        else
            _mm512_mask_storeu_ps(out + off + 16 * (size_t)j,
                                  j < 2 * NP - 2 ? (__mmask16)0xffff : (__mmask16)(mask >> (j & 1 ? 16 : 0)), f);
    }
}

/* The sums up to out's first 64-byte boundary in plain stores, then blocks of 256 and of 16 (in uint16 lanes: of
 * 256, 128, 64 and 32) in streaming stores, the rest plain: every line the streaming stores write is whole.  A
 * caller's piece of 256 sums that starts at a boundary but ends short of one (a plane row's last block) is thus a
 * few passes over the rows, not one per 16 sums (measured: 14 % of stage 2's time went to those passes). */
static XC_V4 void rowsum_u16_f32_v4(const uint16_t *const *src, int nrows, size_t at, size_t n, int group,
                                    const int32_t *cut, int ncut, float *out)
{
    const size_t mis = ((uintptr_t)out & 63) / sizeof *out;
    size_t off = mis ? 16 - mis : 0;
    off = off < n ? off : n;
    if (off)
        sum16_block(src, nrows, at, 0, 1, (__mmask16)((1u << off) - 1), 0, out);
    if (cut ? ncut < nrows : group > 1) {   /* the rest of a 256 in halving blocks: a pass over the rows per block */
        const __mmask32 all = ~(__mmask32)0;
        for (; off + 32 * XC_SUM16_NP <= n; off += 32 * XC_SUM16_NP)
            sum16_pairs(src, nrows, group, cut, at, off, XC_SUM16_NP, all, 1, out);
        if (off + 128 <= n) {
            sum16_pairs(src, nrows, group, cut, at, off, 4, all, 1, out);
            off += 128;
        }
        if (off + 64 <= n) {
            sum16_pairs(src, nrows, group, cut, at, off, 2, all, 1, out);
            off += 64;
        }
        if (off + 32 <= n) {
            sum16_pairs(src, nrows, group, cut, at, off, 1, all, 1, out);
            off += 32;
        }
        if (off < n)
            sum16_pairs(src, nrows, group, cut, at, off, 1, (__mmask32)((1ull << (n - off)) - 1), 0, out);
        return;
    }
    for (; off + 16 * XC_SUM16_NV <= n; off += 16 * XC_SUM16_NV)
        sum16_block(src, nrows, at, off, XC_SUM16_NV, 0xffff, 1, out);
    for (; off + 16 <= n; off += 16)
        sum16_block(src, nrows, at, off, 1, 0xffff, 1, out);
    if (off < n)
        sum16_block(src, nrows, at, off, 1, (__mmask16)((1u << (n - off)) - 1), 0, out);
}

static XC_V4 void rowsum_u8_u16_v4(const uint8_t *const *src, int nrows, size_t at, size_t n, uint16_t *dst)
{
    size_t off = at;
    const size_t end = at + n;
    for (; off + 512 <= end; off += 512)
        pair_block(src, nrows, off, 8, ~(__mmask64)0, dst);
    for (; off + 64 <= end; off += 64)
        pair_block(src, nrows, off, 1, ~(__mmask64)0, dst);
    if (off < end)
        pair_block(src, nrows, off, 1, ((__mmask64)1 << (end - off)) - 1, dst);
}
#endif

void xc_cpu_rowsum_u8_u16(const uint8_t *const *src, int nrows, size_t at, size_t n, uint16_t *dst)
{
#ifdef XC_ROWSUM_V4
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) {
        rowsum_u8_u16_v4(src, nrows, at, n, dst);
        return;
    }
#endif
    rowsum_u8_u16_widen(src, nrows, at, n, dst);
}

void xc_cpu_rowsum_u16_f32_at(const uint16_t *const *src, int nrows, size_t at, size_t n, int group,
                              uint32_t *scratch, float *out)
{
#ifdef XC_ROWSUM_V4
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) {
        rowsum_u16_f32_v4(src, nrows, at, n, group, NULL, 0, out + at);
        return;
    }
#endif
    (void)group;
    xc_cpu_rowsum_u16_u32(src, nrows, at, n, scratch);
    xc_cpu_store_u32(scratch + at, out + at, n);
}

void xc_cpu_rowsum_u16_f32_cut(const uint16_t *const *src, int nrows, size_t at, size_t n, const int32_t *cut,
                               int ncut, uint32_t *scratch, float *out)
{
#ifdef XC_ROWSUM_V4
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) {
        rowsum_u16_f32_v4(src, nrows, at, n, 1, cut, ncut, out + at);
        return;
    }
#endif
    (void)cut;
    (void)ncut;
    xc_cpu_rowsum_u16_u32(src, nrows, at, n, scratch);
    xc_cpu_store_u32(scratch + at, out + at, n);
}

void xc_cpu_rowsum_u16_f32(const uint16_t *const *src, int nrows, size_t n, int group, uint32_t *scratch, float *out)
{
    xc_cpu_rowsum_u16_f32_at(src, nrows, 0, n, group, scratch, out);
}

/* dst[u] = a[u] + b[u], u < n: stage 2's pair rows of subband dedispersion (the caller guarantees the sums fit). */
XC_CPU_CLONES void xc_cpu_rowadd_u16(const uint16_t *a, const uint16_t *b, size_t n, uint16_t *dst)
{
    for (size_t u = 0; u < n; u++)
        dst[u] = (uint16_t)(a[u] + b[u]);
}

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
