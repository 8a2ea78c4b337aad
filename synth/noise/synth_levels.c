/* Quantised noise from its exact discrete law: the table and the draws (synth_levels.h). */
#include "synth/noise/synth_levels.h"

#include "synth/model/xc_synth.h"
#include "synth/noise/synth_noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && defined(__x86_64__)
#include <immintrin.h>
#define XC_LEVELS_AVX512 1
#endif

/* P(lo <= Z < hi) for Z ~ N(0,1), from the nearer tail so that neither tail
 * loses its digits to cancellation. */
static double normal_mass(double lo, double hi)
{
    if (lo >= 0)
        return 0.5 * (erfc(lo / M_SQRT2) - erfc(hi / M_SQRT2));
    if (hi <= 0)
        return 0.5 * (erfc(-hi / M_SQRT2) - erfc(-lo / M_SQRT2));
    return 1.0 - 0.5 * erfc(-lo / M_SQRT2) - 0.5 * erfc(hi / M_SQRT2);
}

void xc_synth_level_probs(int nbits, double *p)
{
    if (nbits <= 1) {   /* x > 0 */
        p[0] = p[1] = 0.5;
        return;
    }
    /* xc_synth_quantise: level k covers x in [(k - 1/2)/scale - 4, (k + 1/2)/scale - 4), the end levels the tails */
    const int top = (1 << nbits) - 1;
    const double scale = top / 8.0;
    for (int k = 0; k <= top; k++)
        p[k] = normal_mass(k == 0 ? -INFINITY : (k - 0.5) / scale - 4.0, k == top ? INFINITY : (k + 0.5) / scale - 4.0);
}

typedef struct {
    double frac;
    uint32_t k;
} remainder_t;

static int by_frac_desc(const void *a, const void *b)
{
    const remainder_t *x = a, *y = b;
    if (x->frac != y->frac)
        return x->frac < y->frac ? 1 : -1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* The probabilities in units of 2^-32, summing to 2^32 exactly: each rounded
 * down, then one unit more to the largest remainders (ties to the lower level). */
static xc_status units(int nbits, uint64_t *u, xc_error *err)
{
    const size_t n = (size_t)1 << nbits;
    double *p = malloc(n * sizeof *p);
    remainder_t *r = malloc(n * sizeof *r);
    if (!p || !r) {
        free(p);
        free(r);
        return xc_error_set(err, XC_ENOMEM, "out of memory for the %d-bit level table", nbits);
    }
    xc_synth_level_probs(nbits, p);
    double sum = 0;
    for (size_t k = 0; k < n; k++)
        sum += p[k];
    uint64_t total = 0;
    for (size_t k = 0; k < n; k++) {
        double v = p[k] / sum * 4294967296.0;
        u[k] = (uint64_t)floor(v);
        total += u[k];
        r[k].frac = v - floor(v);
        r[k].k = (uint32_t)k;
    }
    qsort(r, n, sizeof *r, by_frac_desc);
    for (size_t j = 0; total < (1ull << 32); j = (j + 1) % n, total++)
        u[r[j].k]++;
    free(p);
    free(r);
    return XC_OK;
}

xc_status xc_levels_init(xc_levels *t, int nbits, xc_error *err)
{
    memset(t, 0, sizeof *t);
    if (nbits < 1 || nbits > 16)
        return xc_error_set(err, XC_EINVAL, "nbits = %d: the exact noise takes 1..16 bits", nbits);
    t->nbits = nbits;
    const size_t n = (size_t)1 << nbits;
    const uint64_t cap = 1ull << (32 - nbits);   /* each column's units */
    uint64_t *u = malloc(n * sizeof *u);
    uint32_t *small = malloc(n * sizeof *small), *large = malloc(n * sizeof *large);
    t->thr = malloc(n * sizeof *t->thr);
    t->alias = malloc(n * sizeof *t->alias);
    t->packed = nbits == 8 ? malloc(n * sizeof *t->packed) : NULL;
    xc_status st = u && small && large && t->thr && t->alias && (nbits != 8 || t->packed)
                       ? units(nbits, u, err)
                       : xc_error_set(err, XC_ENOMEM, "out of memory for the %d-bit level table", nbits);
    if (!st) {
        /* Vose: a column below its share is topped up from one above it. */
        size_t ns = 0, nl = 0;
        for (size_t k = 0; k < n; k++) {
            if (u[k] < cap)
                small[ns++] = (uint32_t)k;
            else
                large[nl++] = (uint32_t)k;
        }
        while (ns && nl) {
            uint32_t s = small[--ns], l = large[nl - 1];
            t->thr[s] = (uint32_t)u[s];
            t->alias[s] = (uint16_t)l;
            u[l] -= cap - u[s];
            if (u[l] < cap) {
                nl--;
                small[ns++] = l;
            }
        }
        /* what is left holds its share exactly (integer units) */
        while (nl) {
            uint32_t k = large[--nl];
            t->thr[k] = (uint32_t)(cap - 1), t->alias[k] = (uint16_t)k;
        }
        while (ns) {
            uint32_t k = small[--ns];
            t->thr[k] = (uint32_t)(cap - 1), t->alias[k] = (uint16_t)k;
        }
        for (size_t k = 0; t->packed && k < n; k++)
            t->packed[k] = (t->thr[k] << 8) | t->alias[k];
    }
    free(u);
    free(small);
    free(large);
    if (st)
        xc_levels_free(t);
    return st;
}

void xc_levels_free(xc_levels *t)
{
    free(t->thr);
    free(t->alias);
    free(t->packed);
    memset(t, 0, sizeof *t);
}

uint16_t xc_synth_level_exact(uint64_t seed, uint64_t sample, int chan, int nbits)
{
    xc_levels t;
    if (xc_levels_init(&t, nbits, NULL))
        return 0;
    uint32_t w[4];
    xc_synth_words(seed, XC_STREAM_LEVEL, sample, (uint32_t)chan >> 2, w);
    uint16_t v = xc_levels_draw(&t, w[chan & 3]);
    xc_levels_free(&t);
    return v;
}

/* ---- one part --------------------------------------------------------------------- */

#ifdef XC_LEVELS_AVX512
/* 8-bit levels of n words through the packed table, 16 at a time.  The table
 * lives in 16 registers: each pair looked up by the column's low 5 bits
 * (vpermt2d), the pair chosen by its top 3 (a gather is slower on AMD Zen 4). */
__attribute__((target("avx512f"))) static size_t draw8_avx512(const uint32_t *packed, const uint32_t *w, size_t n,
                                                             uint8_t *out)
{
    const __m512i lowmask = _mm512_set1_epi32(0xffffff), lvmask = _mm512_set1_epi32(0xff);
    __m512i T[16];
    for (int j = 0; j < 16; j++)
        T[j] = _mm512_loadu_si512(packed + 16 * j);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i x = _mm512_loadu_si512(w + i), col = _mm512_srli_epi32(x, 24), r[4];
        __mmask16 b5 = _mm512_test_epi32_mask(col, _mm512_set1_epi32(32));
        for (int j = 0; j < 4; j++)
            r[j] = _mm512_mask_blend_epi32(b5, _mm512_permutex2var_epi32(T[4 * j], col, T[4 * j + 1]),
                                           _mm512_permutex2var_epi32(T[4 * j + 2], col, T[4 * j + 3]));
        __mmask16 b6 = _mm512_test_epi32_mask(col, _mm512_set1_epi32(64));
        __mmask16 b7 = _mm512_test_epi32_mask(col, _mm512_set1_epi32(128));
        __m512i e = _mm512_mask_blend_epi32(b7, _mm512_mask_blend_epi32(b6, r[0], r[1]),
                                            _mm512_mask_blend_epi32(b6, r[2], r[3]));
        __mmask16 own = _mm512_cmplt_epu32_mask(_mm512_and_si512(x, lowmask), _mm512_srli_epi32(e, 8));
        __m512i lv = _mm512_mask_blend_epi32(own, _mm512_and_si512(e, lvmask), col);
        _mm_storeu_si128((__m128i *)(out + i), _mm512_cvtepi32_epi8(lv));
    }
    return i;
}

/* Appends to q the channel quads of x[0..n) (n a multiple of 16) holding a nonzero value. */
__attribute__((target("avx512f"))) static size_t nonzero_quads_avx512(const float *x, size_t n, uint32_t q0,
                                                                     uint32_t *q)
{
    size_t nq = 0;
    for (size_t c = 0; c < n; c += 16) {
        unsigned m = _mm512_cmp_ps_mask(_mm512_loadu_ps(x + c), _mm512_setzero_ps(), _CMP_NEQ_UQ);
        for (unsigned k = 0; m; k++, m >>= 4)
            if (m & 15u)
                q[nq++] = q0 + (uint32_t)(c / 4 + k);
    }
    return nq;
}
#endif

#define PIECE 1024   /* channels a row is drawn in at a time */

/* xc_synth_quantise inlined: the same float operations, rounded half to even
 * by the SSE2 conversion as rintf rounds in the default mode. */
static inline uint16_t level_of(float x, int nbits)
{
    if (nbits <= 1)
        return x > 0.0f ? 1 : 0;
    const float top = (float)((1u << nbits) - 1u), scale = top * 0.125f;
    float v = (x + 4.0f) * scale;
    v = v > 0.0f ? v : 0.0f;
    v = v < top ? v : top;
#ifdef XC_LEVELS_AVX512
    return (uint16_t)_mm_cvtss_si32(_mm_set_ss(v));
#else
    return (uint16_t)rintf(v);
#endif
}

static void draw_piece(const xc_levels *t, const uint32_t *w, size_t m, uint16_t *lev, uint8_t *out8)
{
    size_t k = 0;
    if (out8) {
#ifdef XC_LEVELS_AVX512
        if (__builtin_cpu_supports("avx512f"))
            k = draw8_avx512(t->packed, w, m, out8);
#endif
        for (; k < m; k++)
            out8[k] = (uint8_t)xc_levels_draw(t, w[k]);
        return;
    }
    for (; k < m; k++)
        lev[k] = xc_levels_draw(t, w[k]);
}

/* Values with signal in channels c0..c0+m-1 of one spectrum: quantise(noise + x), x reset to 0. */
static void patch_piece(int nbits, uint64_t seed, uint64_t sample, size_t c0, size_t m, float *x, uint16_t *lev,
                        uint8_t *out8)
{
    uint32_t q[PIECE / 4];
    size_t nq = 0, c = 0;
#ifdef XC_LEVELS_AVX512
    if (__builtin_cpu_supports("avx512f")) {
        c = m / 16 * 16;
        nq = nonzero_quads_avx512(x, c, (uint32_t)(c0 / 4), q);
    }
#endif
    for (; c < m; c += 4)
        for (size_t k = c; k < c + 4 && k < m; k++)
            if (x[k] != 0.0f) {
                q[nq++] = (uint32_t)((c0 + c) / 4);
                break;
            }
    float z[64];
    for (size_t j = 0; j < nq; j += 16) {
        const size_t nn = nq - j < 16 ? nq - j : 16;
        xc_synth_gauss_list(seed, XC_STREAM_NOISE, sample, q + j, nn, z);
        for (size_t a = 0; a < nn; a++)
            for (size_t k = 0; k < 4; k++) {
                const size_t ch = 4 * (size_t)q[j + a] + k - c0;
                if (ch >= m || x[ch] == 0.0f)
                    continue;
                uint16_t v = level_of(z[4 * a + k] + x[ch], nbits);
                x[ch] = 0.0f;
                if (out8)
                    out8[ch] = (uint8_t)v;
                else
                    lev[ch] = v;
            }
    }
}

#ifdef XC_LEVELS_AVX512
/* 8 bits, the first nv whole 16-channel vectors of a piece: the Gaussians of
 * the blocks holding signal (xc_synth_gauss_list, the values patch_piece
 * uses), expanded back into each vector's lanes, and its values with signal
 * level_of(z + x) as sixteen lanes (the same float operations), the others
 * kept; x reset to 0. */
__attribute__((target("avx512f"))) static void patch8_avx512(uint64_t seed, uint64_t sample, size_t c0, size_t nv,
                                                            float *x, uint8_t *out8)
{
    uint32_t vl[PIECE / 16], blocks[PIECE / 4];
    uint16_t sigm[PIECE / 16], quads[PIECE / 16];
    float z[PIECE + 16];
    size_t n = 0, nb = 0;
    for (size_t v = 0; v < nv; v++) {
        const unsigned m = _mm512_cmp_ps_mask(_mm512_loadu_ps(x + 16 * v), _mm512_setzero_ps(), _CMP_NEQ_UQ);
        if (!m)
            continue;
        const unsigned any = (m | m >> 1 | m >> 2 | m >> 3) & 0x1111u;   /* bit 4k: block k has signal */
        for (unsigned b = any; b; b &= b - 1)
            blocks[nb++] = (uint32_t)(c0 / 4 + 4 * v) + (uint32_t)__builtin_ctz(b) / 4;
        vl[n] = (uint32_t)v, sigm[n] = (uint16_t)m, quads[n++] = (uint16_t)(any * 15u);
    }
    if (!n)
        return;
    xc_synth_gauss_list(seed, XC_STREAM_NOISE, sample, blocks, nb, z);
    memset(z + 4 * nb, 0, 16 * sizeof *z);   /* what the last vector's load reads past the list */
    const __m512 four = _mm512_set1_ps(4.0f), scale = _mm512_set1_ps(31.875f), top = _mm512_set1_ps(255.0f);
    const float *zp = z;
    for (size_t j = 0; j < n; j++) {
        float *xv = x + 16 * (size_t)vl[j];
        uint8_t *o = out8 + 16 * (size_t)vl[j];
        const __m512 s = _mm512_loadu_ps(xv);
        const __m512 zv = _mm512_maskz_expand_ps(quads[j], _mm512_loadu_ps(zp));   /* lanes past the list unused */
        zp += __builtin_popcount(quads[j]);
        __m512 v = _mm512_mul_ps(_mm512_add_ps(_mm512_add_ps(zv, s), four), scale);
        v = _mm512_min_ps(_mm512_max_ps(v, _mm512_setzero_ps()), top);
        const __m512i old = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)o));
        _mm_storeu_si128((__m128i *)o,
                         _mm512_cvtepi32_epi8(_mm512_mask_blend_epi32(sigm[j], old, _mm512_cvtps_epi32(v))));
        _mm512_storeu_ps(xv, _mm512_setzero_ps());
    }
}
#endif

/* Values with signal of one piece (patch_piece), whole 16-channel vectors by
 * patch8_avx512 at 8 bits where the CPU has AVX-512F. */
static void patch_any(int nbits, uint64_t seed, uint64_t sample, size_t c0, size_t m, float *x, uint16_t *lev,
                      uint8_t *out8)
{
    size_t done = 0;
#ifdef XC_LEVELS_AVX512
    if (out8 && nbits == 8 && __builtin_cpu_supports("avx512f")) {
        done = m / 16 * 16;
        patch8_avx512(seed, sample, c0, m / 16, x, out8);
    }
#endif
    if (done < m)
        patch_piece(nbits, seed, sample, c0 + done, m - done, x + done, lev ? lev + done : NULL,
                    out8 ? out8 + done : NULL);
}

void xc_levels_part(const xc_levels *t, uint64_t seed, uint64_t first, size_t n, int nchans, float *x, uint16_t *lev,
                    xc_bitorder order, uint8_t *out)
{
    const size_t nch = (size_t)nchans;
    const int eight = t->nbits == 8;
    uint32_t w[PIECE];
    for (size_t i = 0; i < n; i++)
        for (size_t c0 = 0; c0 < nch; c0 += PIECE) {
            const size_t m = nch - c0 < PIECE ? nch - c0 : PIECE, at = i * nch + c0;
            xc_synth_words_blocks(seed, XC_STREAM_LEVEL, first + i, (uint32_t)(c0 / 4), (m + 3) / 4, w);
            draw_piece(t, w, m, lev + at, eight ? out + at : NULL);
            if (x)
                patch_any(t->nbits, seed, first + i, c0, m, x + at, eight ? NULL : lev + at, eight ? out + at : NULL);
        }
    if (!eight)
        xc_fb_pack_u16(lev, n * nch, t->nbits, order, out);
}
