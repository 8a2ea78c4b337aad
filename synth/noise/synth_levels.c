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
    t->thr8 = nbits == 8 ? malloc(n) : NULL;
    t->alias8 = nbits == 8 ? malloc(n) : NULL;
    /* the level of x is floor(x za + zb), clipped; eps bounds the roundings of that in float (about 2^-24 30
     * (scale + 1) levels over the clipped range, synth_levels_signal.c) four times over */
    const float scale = nbits <= 1 ? 1.0f : (float)((1u << nbits) - 1u) / 8.0f;
    t->za = scale;
    t->zb = nbits <= 1 ? 1.0f : 4.0f * scale + 0.5f;
    t->eps = (scale + 1.0f) / 131072.0f;
    t->ftop = (float)((1u << nbits) - 1u);
    xc_status st = u && small && large && t->thr && t->alias && (nbits != 8 || (t->thr8 && t->alias8))
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
    free(t->zq);
    free(t->zc);
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

/* Values of a part waiting for their 16 further bits: table ties
 * (xc_levels_refine; s 0) and values with signal that their top 16 bits
 * leave undecided (xc_levels_signal_exact; s the signal): the value's place
 * in the part (row * nchans + channel), its 16 bits and its signal. */
#define TIES 256
#define SIGS 1024   /* values with signal a list holds */
typedef struct {
    const xc_levels *t;
    uint64_t seed, first;   /* the part's first spectrum */
    size_t nch;
    float *x;               /* the part's signal, or NULL */
    uint16_t *lev;          /* the levels, or (8 bits) */
    uint8_t *out8;          /* the bytes */
    size_t n;
    size_t pos[TIES];
    uint16_t h[TIES];
    float s[TIES];
#ifdef XC_LEVELS_AVX512
    /* 8 bits: values with signal listed densely (place in the part, 16 bits, signal) */
    size_t ns;
    uint32_t spos[SIGS + 16], sh[SIGS + 16];
    float ss[SIGS + 16];
#endif
} ties_t;

/* Each waiting value's level from word 0 of its counter (sample, chan) of XC_STREAM_TIE. */
static void ties_resolve(ties_t *d)
{
    uint64_t a[TIES];
    uint32_t c[TIES], f[TIES];
    for (size_t j = 0; j < d->n; j++)
        a[j] = d->first + d->pos[j] / d->nch, c[j] = (uint32_t)(d->pos[j] % d->nch);
    xc_synth_words_at(d->seed, XC_STREAM_TIE, a, c, d->n, f);
    for (size_t j = 0; j < d->n; j++) {
        const uint16_t v = d->s[j] == 0.0f
                               ? xc_levels_refine(d->t, d->h[j], f[j])
                               : xc_levels_signal_exact(d->t, (uint32_t)d->h[j] << 16 | (f[j] & 0xffffu), d->s[j]);
        if (d->out8)
            d->out8[d->pos[j]] = (uint8_t)v;
        else
            d->lev[d->pos[j]] = v;
    }
    d->n = 0;
}

static inline void tie_add(ties_t *d, size_t pos, uint16_t h, float s)
{
    d->pos[d->n] = pos, d->h[d->n] = h, d->s[d->n++] = s;
    if (d->n == TIES && d->t)
        ties_resolve(d);
}

/* The level of value at with 16 bits h written: a table draw without signal,
 * else the signal's span's lower end; a tie or an undecided span waits in d
 * (after the write, which a full list's resolution must follow); x reset to 0. */
static inline void draw_one(const xc_levels *t, uint32_t h, size_t at, ties_t *d)
{
    const float s = d->x ? d->x[at] : 0.0f;
    int lo, hi, tie;
    uint16_t v;
    if (s != 0.0f) {
        xc_levels_signal_span(t, h, s, &lo, &hi);
        v = (uint16_t)lo, tie = lo != hi;
        d->x[at] = 0.0f;
    } else {
        v = xc_levels_draw16(t, h, &tie);
    }
    if (d->out8)
        d->out8[at] = (uint8_t)v;
    else
        d->lev[at] = v;
    if (tie)
        tie_add(d, at, (uint16_t)h, s);
}

/* nbits 1..8, the values k0..m-1 of a piece: value k's 16 bits are half k of
 * the words w (xc_levels_half), its level goes to lev[at + k] (or out8). */
static void draw_halves(const xc_levels *t, const uint32_t *w, size_t k0, size_t m, size_t at, ties_t *d)
{
    for (size_t k = k0; k < m; k++)
        draw_one(t, (w[k >> 1] >> (16 * (k & 1))) & 0xffffu, at + k, d);
}

#ifdef XC_LEVELS_AVX512
/* The listed values with signal, 16 at a time: each value's span over the
 * cell of h's top 12 bits (xc_levels_span_in's float operations in 16 lanes,
 * the two quantiles gathered from zc, which stays in L1), its lower end
 * written; a span that cell leaves open takes the cell of all 16 bits (zq),
 * and one still open waits for its 16 further bits. */
__attribute__((target("avx512f,avx512bw"))) static void signal_list(const xc_levels *t, ties_t *d)
{
    const __m512 z = _mm512_setzero_ps(), top = _mm512_set1_ps(t->ftop), za = _mm512_set1_ps(t->za);
    const __m512 zb = _mm512_set1_ps(t->zb), eps = _mm512_set1_ps(t->eps);
    const __m512i one = _mm512_set1_epi32(1);
    uint32_t open[SIGS + 16];   /* the values the cells of zc leave open */
    size_t nopen = 0;
    for (size_t j = 0; j < d->ns; j += 16) {
        const size_t cnt = d->ns - j < 16 ? d->ns - j : 16;
        const __mmask16 m = (__mmask16)((1u << cnt) - 1);
        const __m512i hc = _mm512_srli_epi32(_mm512_maskz_loadu_epi32(m, d->sh + j), XC_LEVELS_ZC_SHIFT);
        const __m512 s = _mm512_maskz_loadu_ps(m, d->ss + j);
        /* each lane's pair (zc[c], zc[c + 1]) as one 64-bit element, 8 lanes a gather */
        const __m512i p0 = _mm512_i32gather_epi64(_mm512_castsi512_si256(hc), (const void *)t->zc, 4);
        const __m512i p1 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(hc, 1), (const void *)t->zc, 4);
        const __m512i ev = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
        const __m512 q0 = _mm512_castsi512_ps(_mm512_permutex2var_epi32(p0, ev, p1));
        const __m512 q1 = _mm512_castsi512_ps(_mm512_permutex2var_epi32(p0, _mm512_add_epi32(ev, one), p1));
        __m512 a = _mm512_sub_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_add_ps(q0, s), za), zb), eps);
        __m512 b = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_add_ps(q1, s), za), zb), eps);
        a = _mm512_min_ps(_mm512_max_ps(a, z), top);   /* max(-inf, 0) = 0, as the scalar's */
        b = _mm512_min_ps(_mm512_max_ps(b, z), top);
        const __m512i lo = _mm512_cvttps_epi32(a), hi = _mm512_cvttps_epi32(b);
        uint8_t v[16];
        _mm_storeu_si128((__m128i *)v, _mm512_cvtepi32_epi8(lo));
        for (size_t l = 0; l < cnt; l++)
            d->out8[d->spos[j + l]] = v[l];
        for (unsigned u = _mm512_mask_cmpneq_epi32_mask(m, lo, hi); u; u &= u - 1) {
            const size_t l = j + (size_t)__builtin_ctz(u);
            _mm_prefetch((const char *)(t->zq + d->sh[l]), _MM_HINT_T0);   /* zq is 256 KB: its misses overlapped */
            open[nopen++] = (uint32_t)l;
        }
    }
    for (size_t o = 0; o < nopen; o++) {
        const size_t l = open[o];
        int flo, fhi;
        xc_levels_span_in(t, t->zq, d->sh[l], d->ss[l], &flo, &fhi);
        d->out8[d->spos[l]] = (uint8_t)flo;
        if (flo != fhi)
            tie_add(d, d->spos[l], (uint16_t)d->sh[l], d->ss[l]);
    }
    d->ns = 0;
}

/* 8 bits: draw_halves of the first whole 64 values of a piece, 64 at a time.
 * The halves' high bytes (the columns) and low bytes are split by vpermt2b,
 * the 256-byte thresholds (thr >> 16) and aliases looked up in four registers
 * each by vpermt2b on the column's low 7 bits, the half chosen by its top bit;
 * the values with signal (signal16) blended over them. */
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
    float *x = d->x ? d->x + at : NULL;
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    size_t i = 0;
    for (; i + 64 <= m; i += 64) {
        const __m512i a = _mm512_loadu_si512(h + i), b = _mm512_loadu_si512(h + i + 32);
        const __m512i col = _mm512_permutex2var_epi8(a, io, b), r = _mm512_permutex2var_epi8(a, ie, b);
        const __mmask64 top = _mm512_movepi8_mask(col);
        const __m512i th = _mm512_mask_blend_epi8(top, _mm512_permutex2var_epi8(T0, col, T1),
                                                  _mm512_permutex2var_epi8(T2, col, T3));
        const __m512i al = _mm512_mask_blend_epi8(top, _mm512_permutex2var_epi8(A0, col, A1),
                                                  _mm512_permutex2var_epi8(A2, col, A3));
        __m512i v = _mm512_mask_blend_epi8(_mm512_cmplt_epu8_mask(r, th), al, col);
        uint64_t sig = 0;
        for (int j = 0; x && j < 4; j++)
            sig |= (uint64_t)_mm512_cmp_ps_mask(_mm512_loadu_ps(x + i + 16 * j), _mm512_setzero_ps(), _CMP_NEQ_UQ)
                   << (16 * j);
        _mm512_storeu_si512(d->out8 + at + i, v);
        /* the writes first: a full list's resolution writes its values */
        for (uint64_t tie = _mm512_cmpeq_epi8_mask(r, th) & ~sig; tie; tie &= tie - 1) {
            const size_t k = i + (size_t)__builtin_ctzll(tie);
            tie_add(d, at + k, h[k], 0.0f);
        }
        /* the values with signal listed (a compress into a register, then whole stores: vpcompressd to memory is
         * slow on AMD Zen 4), their levels made 16 at a time (signal_list) */
        if (sig && d->ns + 64 > SIGS)
            signal_list(t, d);
        for (int j = 0; j < 4; j++) {
            const __mmask16 mj = (__mmask16)(sig >> (16 * j));
            if (!mj)
                continue;
            const __m512i pos = _mm512_add_epi32(_mm512_set1_epi32((int)(at + i + 16 * (size_t)j)), lanes);
            const __m512i hh = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(h + i + 16 * j)));
            _mm512_storeu_si512(d->spos + d->ns, _mm512_maskz_compress_epi32(mj, pos));
            _mm512_storeu_si512(d->sh + d->ns, _mm512_maskz_compress_epi32(mj, hh));
            _mm512_storeu_ps(d->ss + d->ns, _mm512_maskz_compress_ps(mj, _mm512_loadu_ps(x + i + 16 * j)));
            d->ns += (size_t)__builtin_popcount(mj);
        }
        for (int j = 0; j < 4; j++)
            if (sig >> (16 * j) & 0xffffu)
                _mm512_storeu_ps(x + i + 16 * j, _mm512_setzero_ps());
    }
    return i;
}
#endif

#define PIECE 1024   /* channels a row is drawn in at a time */

/* The levels of one row's piece of m channels from c0 (place at in the part). */
static void draw_piece(const xc_levels *t, uint64_t sample, size_t c0, size_t m, size_t at, ties_t *d)
{
    uint32_t w[PIECE];
    if (t->nbits > 8) {
        xc_synth_words_blocks(d->seed, XC_STREAM_LEVEL, sample, (uint32_t)(c0 / 4), (m + 3) / 4, w);
        for (size_t k = 0; k < m; k++) {
            const float s = d->x ? d->x[at + k] : 0.0f;
            if (s != 0.0f)
                d->x[at + k] = 0.0f;
            d->lev[at + k] = s != 0.0f ? xc_levels_signal_exact(t, w[k], s) : xc_levels_draw(t, w[k]);
        }
        return;
    }
    xc_synth_words_blocks(d->seed, XC_STREAM_LEVEL, sample, (uint32_t)(c0 / 8), (m + 7) / 8, w);
    size_t k = 0;
#ifdef XC_LEVELS_AVX512
    if (d->out8 && (!d->x || t->zq) && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw"))
        k = draw8_vbmi(t, w, m, at, d);
#endif
    draw_halves(t, w, k, m, at, d);
}

void xc_levels_part(const xc_levels *t, uint64_t seed, uint64_t first, size_t n, int nchans, float *x, uint16_t *lev,
                    xc_bitorder order, uint8_t *out)
{
    const size_t nch = (size_t)nchans;
    const int eight = t->nbits == 8;
    ties_t d = {.t = t, .seed = seed, .first = first, .nch = nch, .x = x, .lev = eight ? NULL : lev,
                .out8 = eight ? out : NULL};
    /* every value of the part, then the ties and undecided values with signal */
    for (size_t i = 0; i < n; i++)
        for (size_t c0 = 0; c0 < nch; c0 += PIECE)
            draw_piece(t, first + i, c0, nch - c0 < PIECE ? nch - c0 : PIECE, i * nch + c0, &d);
#ifdef XC_LEVELS_AVX512
    if (d.ns)
        signal_list(t, &d);
#endif
    if (d.n)
        ties_resolve(&d);
    if (!eight)
        xc_fb_pack_u16(lev, n * nch, t->nbits, order, out);
}
