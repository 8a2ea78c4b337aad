/* synth_levels.h: quantised noise drawn from its exact discrete distribution (not installed API).
 *
 * The level of quantise(N(0,1)) (xc_synth_quantise) takes value k with
 * probability Phi(hi_k) - Phi(lo_k) over its bin (the end levels take the
 * clipped tails).  Those probabilities, rounded to units of 2^-32 summing to
 * exactly 2^32, fill a Walker alias table (Vose's construction, in integers)
 * of 2^nbits columns of 2^(32 - nbits) units, the column's own level below its
 * threshold thr, its alias above.
 *
 * Up to 8 bits a value takes 16 bits h of a Philox word (two values a word,
 * eight a block): its top nbits bits choose the column, the other 16 - nbits
 * bits r are compared with thr's top bits (thr >> 16): below, the own level;
 * above, the alias; equal (one value in 2^(16 - nbits)), 16 more bits f of its
 * own counter decide, own if f < thr's low 16 bits.  Wider values take a whole
 * word: its top nbits bits the column, the rest compared with thr.  Either way
 * each level's probability is the rounded one exactly. */
#ifndef XC_SYNTH_LEVELS_H
#define XC_SYNTH_LEVELS_H

#include "core/base/xc_error.h"
#include "core/io/xc_filterbank.h"

#include <stddef.h>
#include <stdint.h>

#define XC_LEVELS_ZC_SHIFT 3   /* zc's cells: h's top 13 bits, 32 KB */

typedef struct {
    int nbits;        /* 1..16 */
    uint32_t *thr;    /* [2^nbits]: the column's own level when the low bits are below thr */
    uint16_t *alias;  /* [2^nbits] */
    uint8_t *thr8;    /* nbits 8: thr >> 16 as bytes (the vector lookup) */
    uint8_t *alias8;  /* nbits 8: alias as bytes */
    float *zq;        /* [2^16 + 1]: Phi^-1(h / 2^16) (xc_levels_signal_init), or NULL */
    float *zc;        /* [2^(16 - XC_LEVELS_ZC_SHIFT) + 1]: zq's every 2^XC_LEVELS_ZC_SHIFT-th (h's top bits' cells) */
    float za, zb;     /* the level of x is floor(x za + zb) clipped to [0, top] */
    float eps, ftop;  /* the margin covering the floats' roundings there; top */
} xc_levels;

xc_status xc_levels_init(xc_levels *t, int nbits, xc_error *err);
/* The quantile table the values with signal need (synth_levels_signal.c); once a table. */
xc_status xc_levels_signal_init(xc_levels *t, xc_error *err);
void xc_levels_free(xc_levels *t);

/* The levels lo..hi between which a value with signal s lies when its Z lies
 * in [q[j], q[j + 1]] (shifted by s, with the margin eps); lo == hi decides it. */
static inline void xc_levels_span_in(const xc_levels *t, const float *q, uint32_t j, float s, int *lo, int *hi)
{
    float a = (q[j] + s) * t->za + t->zb - t->eps, b = (q[j + 1] + s) * t->za + t->zb + t->eps;
    a = a > 0.0f ? a : 0.0f;
    b = b > 0.0f ? b : 0.0f;
    *lo = (int)(a < t->ftop ? a : t->ftop);
    *hi = (int)(b < t->ftop ? b : t->ftop);
}

/* The span of a value with signal s and 16 top bits h: its uniform's cell
 * (Z in [zq[h], zq[h + 1]]).  Without the table, 0..top. */
static inline void xc_levels_signal_span(const xc_levels *t, uint32_t h, float s, int *lo, int *hi)
{
    if (!t->zq) {
        *lo = 0, *hi = (1 << t->nbits) - 1;
        return;
    }
    xc_levels_span_in(t, t->zq, h, s, lo, hi);
}

/* The level of a value with signal s drawn by the 32 bits u: the number of
 * boundaries b_k with Phi(b_k - s) <= (u + 1/2) / 2^32 (synth_levels_signal.c). */
uint16_t xc_levels_signal_exact(const xc_levels *t, uint32_t u, float s);
/* nbits 9..16: the level word w draws. */
static inline uint16_t xc_levels_draw(const xc_levels *t, uint32_t w)
{
    const int sh = 32 - t->nbits;
    const uint32_t col = w >> sh, low = w & (uint32_t)((1ull << sh) - 1);
    return low < t->thr[col] ? (uint16_t)col : t->alias[col];
}

/* nbits 1..8: the level the 16 bits h draw, *tie set where 16 more bits must
 * decide (xc_levels_refine); then the value returned is the alias. */
static inline uint16_t xc_levels_draw16(const xc_levels *t, uint32_t h, int *tie)
{
    const int sh = 16 - t->nbits;
    const uint32_t col = h >> sh, r = h & ((1u << sh) - 1), hi = t->thr[col] >> 16;
    *tie = r == hi;
    return r < hi ? (uint16_t)col : t->alias[col];
}

/* nbits 1..8: the level of a tie of h (xc_levels_draw16) given its 16 further bits f. */
static inline uint16_t xc_levels_refine(const xc_levels *t, uint32_t h, uint32_t f)
{
    const uint32_t col = h >> (16 - t->nbits);
    return (f & 0xffffu) < (t->thr[col] & 0xffffu) ? (uint16_t)col : t->alias[col];
}

/* The 16 bits of value chan (nbits 1..8) in the words of its block: word
 * (chan & 7) / 2, the low half for an even channel. */
static inline uint32_t xc_levels_half(const uint32_t w[4], int chan)
{
    return (w[(chan & 7) >> 1] >> (16 * (chan & 1))) & 0xffffu;
}

/* One part of a file: spectra first..first+n-1 of nchans channels as packed
 * bytes (nbits 1..16).  x[n*nchans] is the signal (noise sigmas), zero where
 * there is none, or NULL for none.  Each value takes its bits from stream
 * XC_STREAM_LEVEL, counter (sample, chan / 8) up to 8 bits (16 bits h a
 * value), (sample, chan / 4) wider (a word); 16 more bits, where needed, are
 * word 0's low half of counter (sample, chan) of stream XC_STREAM_TIE.  A
 * value without signal is drawn from the table (a tie refined by the 16 more
 * bits); one with signal s is xc_levels_signal_exact of u = h 2^16 + the 16
 * more bits (wider: the word), which mostly h alone decides.  x is left all
 * zero; with x, xc_levels_signal_init must have been called (else every value
 * with signal takes the slow comparison).  lev holds n*nchans levels (scratch). */
void xc_levels_part(const xc_levels *t, uint64_t seed, uint64_t first, size_t n, int nchans, float *x, uint16_t *lev,
                    xc_bitorder order, uint8_t *out);

#endif
