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

#ifdef XC_LEVELS_AVX512
/* A batch of channel quads holding signal (patch8_part), a table's scratch. */
#define QMAX 1024   /* quads a batch holds */

typedef struct {
    uint64_t a[QMAX + 16];   /* sample (the stores of a row's entries write 16) */
    uint32_t q[QMAX + 16];   /* quad in its row */
    float z[4 * QMAX];
    size_t n;
} quad_list;

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
    t->thr8 = nbits == 8 ? malloc(n) : NULL;
    t->alias8 = nbits == 8 ? malloc(n) : NULL;
    int scratch_ok = 1;
#ifdef XC_LEVELS_AVX512
    if (nbits == 8 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("bmi2"))
        scratch_ok = (t->scratch = malloc(sizeof(quad_list))) != NULL;
#endif
    xc_status st = u && small && large && t->thr && t->alias && (nbits != 8 || (t->thr8 && t->alias8)) && scratch_ok
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
        for (size_t k = 0; t->thr8 && k < n; k++)
            t->thr8[k] = (uint8_t)(t->thr[k] >> 16), t->alias8[k] = (uint8_t)t->alias[k];
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
    free(t->scratch);
    free(t->thr8);
    free(t->alias8);
    memset(t, 0, sizeof *t);
}

uint16_t xc_synth_level_exact(uint64_t seed, uint64_t sample, int chan, int nbits)
{
    xc_levels t;
    if (xc_levels_init(&t, nbits, NULL))
        return 0;
    uint32_t w[4];
    uint16_t v;
    if (nbits <= 8) {
        xc_synth_words(seed, XC_STREAM_LEVEL, sample, (uint32_t)chan >> 3, w);
        const uint32_t h = xc_levels_half(w, chan);
        int tie;
        v = xc_levels_draw16(&t, h, &tie);
        if (tie) {
            xc_synth_words(seed, XC_STREAM_TIE, sample, (uint32_t)chan, w);
            v = xc_levels_refine(&t, h, w[0]);
        }
    } else {
        xc_synth_words(seed, XC_STREAM_LEVEL, sample, (uint32_t)chan >> 2, w);
        v = xc_levels_draw(&t, w[chan & 3]);
    }
    xc_levels_free(&t);
    return v;
}

/* ---- one part --------------------------------------------------------------------- */

/* Ties of a part waiting for their 16 further bits (xc_levels_refine): the
 * value's place in the part (row * nchans + channel) and its 16 bits. */
#define TIES 256
typedef struct {
    const xc_levels *t;
    uint64_t seed, first;   /* the part's first spectrum */
    size_t nch;
    uint16_t *lev;          /* the levels, or (8 bits) */
    uint8_t *out8;          /* the bytes */
    size_t n;
    size_t pos[TIES];
    uint16_t h[TIES];
} ties_t;

/* Each waiting tie's level from word 0 of its counter (sample, chan) of XC_STREAM_TIE. */
static void ties_resolve(ties_t *d)
{
    uint64_t a[TIES];
    uint32_t c[TIES], f[TIES];
    for (size_t j = 0; j < d->n; j++)
        a[j] = d->first + d->pos[j] / d->nch, c[j] = (uint32_t)(d->pos[j] % d->nch);
    xc_synth_words_at(d->seed, XC_STREAM_TIE, a, c, d->n, f);
    for (size_t j = 0; j < d->n; j++) {
        const uint16_t v = xc_levels_refine(d->t, d->h[j], f[j]);
        if (d->out8)
            d->out8[d->pos[j]] = (uint8_t)v;
        else
            d->lev[d->pos[j]] = v;
    }
    d->n = 0;
}

static inline void tie_add(ties_t *d, size_t pos, uint16_t h)
{
    d->pos[d->n] = pos, d->h[d->n++] = h;
    if (d->n == TIES && d->t)
        ties_resolve(d);
}

/* nbits 1..8, the values k0..m-1 of a piece: value k's 16 bits are half k of
 * the words w (xc_levels_half), its level goes to lev[at + k] (or out8), a tie
 * waits in d with the alias written. */
static void draw_halves(const xc_levels *t, const uint32_t *w, size_t k0, size_t m, size_t at, ties_t *d)
{
    for (size_t k = k0; k < m; k++) {
        const uint32_t h = (w[k >> 1] >> (16 * (k & 1))) & 0xffffu;
        int tie;
        const uint16_t v = xc_levels_draw16(t, h, &tie);
        if (d->out8)
            d->out8[at + k] = (uint8_t)v;
        else
            d->lev[at + k] = v;
        if (tie)
            tie_add(d, at + k, (uint16_t)h);
    }
}

#ifdef XC_LEVELS_AVX512
/* 8 bits: draw_halves of the first whole 64 values of a piece, 64 at a time.
 * The halves' high bytes (the columns) and low bytes are split by vpermt2b,
 * the 256-byte thresholds (thr >> 16) and aliases looked up in four registers
 * each by vpermt2b on the column's low 7 bits, the half chosen by its top bit. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static size_t draw8_vbmi(const xc_levels *t, const uint32_t *w,
                                                                               size_t m, size_t at, ties_t *d)
{
    static const uint8_t even[64] = {0,  2,  4,  6,  8,   10,  12,  14,  16,  18,  20,  22,  24,  26,  28,  30,
                                     32, 34, 36, 38, 40,  42,  44,  46,  48,  50,  52,  54,  56,  58,  60,  62,
                                     64, 66, 68, 70, 72,  74,  76,  78,  80,  82,  84,  86,  88,  90,  92,  94,
                                     96, 98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118, 120, 122, 124, 126};
    const __m512i ie = _mm512_loadu_si512(even), io = _mm512_add_epi8(ie, _mm512_set1_epi8(1));
    const __m512i T0 = _mm512_loadu_si512(t->thr8), T1 = _mm512_loadu_si512(t->thr8 + 64);
    const __m512i T2 = _mm512_loadu_si512(t->thr8 + 128), T3 = _mm512_loadu_si512(t->thr8 + 192);
    const __m512i A0 = _mm512_loadu_si512(t->alias8), A1 = _mm512_loadu_si512(t->alias8 + 64);
    const __m512i A2 = _mm512_loadu_si512(t->alias8 + 128), A3 = _mm512_loadu_si512(t->alias8 + 192);
    const uint16_t *h = (const uint16_t *)w;   /* x86: half k of the words is h[k] */
    size_t i = 0;
    for (; i + 64 <= m; i += 64) {
        const __m512i a = _mm512_loadu_si512(h + i), b = _mm512_loadu_si512(h + i + 32);
        const __m512i col = _mm512_permutex2var_epi8(a, io, b), r = _mm512_permutex2var_epi8(a, ie, b);
        const __mmask64 top = _mm512_movepi8_mask(col);
        const __m512i th = _mm512_mask_blend_epi8(top, _mm512_permutex2var_epi8(T0, col, T1),
                                                  _mm512_permutex2var_epi8(T2, col, T3));
        const __m512i al = _mm512_mask_blend_epi8(top, _mm512_permutex2var_epi8(A0, col, A1),
                                                  _mm512_permutex2var_epi8(A2, col, A3));
        _mm512_storeu_si512(d->out8 + at + i, _mm512_mask_blend_epi8(_mm512_cmplt_epu8_mask(r, th), al, col));
        for (uint64_t tie = _mm512_cmpeq_epi8_mask(r, th); tie; tie &= tie - 1) {
            const size_t k = i + (size_t)__builtin_ctzll(tie);
            tie_add(d, at + k, h[k]);
        }
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

/* The levels of one row's piece of m channels from c0 (place at in the part). */
static void draw_piece(const xc_levels *t, uint64_t sample, size_t c0, size_t m, size_t at, ties_t *d)
{
    uint32_t w[PIECE];
    if (t->nbits > 8) {
        xc_synth_words_blocks(d->seed, XC_STREAM_LEVEL, sample, (uint32_t)(c0 / 4), (m + 3) / 4, w);
        for (size_t k = 0; k < m; k++)
            d->lev[at + k] = xc_levels_draw(t, w[k]);
        return;
    }
    xc_synth_words_blocks(d->seed, XC_STREAM_LEVEL, sample, (uint32_t)(c0 / 8), (m + 7) / 8, w);
    size_t k = 0;
#ifdef XC_LEVELS_AVX512
    if (d->out8 && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw"))
        k = draw8_vbmi(t, w, m, at, d);
#endif
    draw_halves(t, w, k, m, at, d);
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
/* The values with signal of a whole part at 8 bits, in batches of channel
 * quads holding signal: the quads listed (a compress of each 64 channels'
 * nonzero quads), their Gaussians in 32-lane sets (xc_synth_gauss_at, the
 * values patch_piece uses), each quad's levels level_of(z + x) in four lanes
 * (the same float operations) over the drawn ones where x is nonzero; x reset to 0. */
__attribute__((target("avx512f"))) static void quads_patch8(uint64_t seed, uint64_t first, quad_list *L, size_t nch,
                                                           float *x, uint8_t *out)
{
    xc_synth_gauss_at(seed, XC_STREAM_NOISE, L->a, L->q, L->n, L->z);
    const __m128 four = _mm_set1_ps(4.0f), scale = _mm_set1_ps(31.875f), top = _mm_set1_ps(255.0f);
    for (size_t j = 0; j < L->n; j++) {
        const size_t p = (size_t)(L->a[j] - first) * nch + 4 * (size_t)L->q[j];
        if (4 * (size_t)L->q[j] + 4 > nch) {   /* a row's last, partial quad */
            for (size_t k = 0; 4 * (size_t)L->q[j] + k < nch; k++)
                if (x[p + k] != 0.0f) {
                    out[p + k] = (uint8_t)level_of(L->z[4 * j + k] + x[p + k], 8);
                    x[p + k] = 0.0f;
                }
            continue;
        }
        const __m128 s = _mm_loadu_ps(x + p);
        __m128 v = _mm_mul_ps(_mm_add_ps(_mm_add_ps(_mm_loadu_ps(L->z + 4 * j), s), four), scale);
        v = _mm_min_ps(_mm_max_ps(v, _mm_setzero_ps()), top);
        int b;
        memcpy(&b, out + p, 4);
        const __m128i lv = _mm_cvtps_epi32(v), old = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(b));
        const __m128i nz = _mm_castps_si128(_mm_cmp_ps(s, _mm_setzero_ps(), _CMP_NEQ_UQ));
        const __m128i r = _mm_or_si128(_mm_and_si128(nz, lv), _mm_andnot_si128(nz, old));
        b = _mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(r, r), r));
        memcpy(out + p, &b, 4);
        _mm_storeu_ps(x + p, _mm_setzero_ps());
    }
    L->n = 0;
}

__attribute__((target("avx512f,bmi2,popcnt"))) static void patch8_part(const xc_levels *t, uint64_t seed,
                                                                      uint64_t first, size_t n, size_t nch, float *x,
                                                                      uint8_t *out)
{
    quad_list *L = t->scratch;
    L->n = 0;
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (size_t i = 0; i < n; i++) {
        const float *row = x + i * nch;
        for (size_t c = 0; c < nch; c += 64) {
            if (L->n + 16 > QMAX)
                quads_patch8(seed, first, L, nch, x, out);
            uint64_t m = 0;
            for (size_t k = 0; k < 4 && c + 16 * k < nch; k++) {
                const size_t left = nch - c - 16 * k;
                const __mmask16 ld = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
                m |= (uint64_t)_mm512_cmp_ps_mask(_mm512_maskz_loadu_ps(ld, row + c + 16 * k), _mm512_setzero_ps(),
                                                  _CMP_NEQ_UQ)
                     << (16 * k);
            }
            if (!m)
                continue;
            const __mmask16 qm = (__mmask16)_pext_u64(m | m >> 1 | m >> 2 | m >> 3, 0x1111111111111111ull);
            const __m512i q = _mm512_add_epi32(_mm512_set1_epi32((int)(c / 4)), lanes);
            /* a compress into a register, then a whole store (vpcompressd to memory is slow on AMD Zen 4) */
            _mm512_storeu_si512(L->q + L->n, _mm512_maskz_compress_epi32(qm, q));
            const __m512i smp = _mm512_set1_epi64((long long)(first + i));
            _mm512_storeu_si512(L->a + L->n, smp);
            _mm512_storeu_si512(L->a + L->n + 8, smp);
            L->n += (size_t)_mm_popcnt_u32(qm);
        }
    }
    if (L->n)
        quads_patch8(seed, first, L, nch, x, out);
}
#endif

void xc_levels_part(const xc_levels *t, uint64_t seed, uint64_t first, size_t n, int nchans, float *x, uint16_t *lev,
                    xc_bitorder order, uint8_t *out)
{
    const size_t nch = (size_t)nchans;
    const int eight = t->nbits == 8;
    ties_t d = {.t = t, .seed = seed, .first = first, .nch = nch, .lev = eight ? NULL : lev, .out8 = eight ? out : NULL};
    /* every table draw of the part, its ties, then the values with signal over them */
    for (size_t i = 0; i < n; i++)
        for (size_t c0 = 0; c0 < nch; c0 += PIECE)
            draw_piece(t, first + i, c0, nch - c0 < PIECE ? nch - c0 : PIECE, i * nch + c0, &d);
    if (d.n)
        ties_resolve(&d);
#ifdef XC_LEVELS_AVX512
    if (x && t->scratch) {   /* 8 bits with AVX-512F and BMI2: the whole part at once */
        patch8_part(t, seed, first, n, nch, x, out);
        x = NULL;
    }
#endif
    for (size_t i = 0; x && i < n; i++)
        for (size_t c0 = 0; c0 < nch; c0 += PIECE) {
            const size_t m = nch - c0 < PIECE ? nch - c0 : PIECE, at = i * nch + c0;
            patch_piece(t->nbits, seed, first + i, c0, m, x + at, eight ? NULL : lev + at, eight ? out + at : NULL);
        }
    if (!eight)
        xc_fb_pack_u16(lev, n * nch, t->nbits, order, out);
}
