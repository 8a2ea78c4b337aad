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

typedef struct {
    int nbits;        /* 1..16 */
    uint32_t *thr;    /* [2^nbits]: the column's own level when the low bits are below thr */
    uint16_t *alias;  /* [2^nbits] */
    uint8_t *thr8;    /* nbits 8: thr >> 16 as bytes (the vector lookup) */
    uint8_t *alias8;  /* nbits 8: alias as bytes */
    void *scratch;    /* nbits 8: the working memory of the thread drawing with the table */
} xc_levels;

xc_status xc_levels_init(xc_levels *t, int nbits, xc_error *err);
void xc_levels_free(xc_levels *t);
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
 * there is none, or NULL for none: a value with signal is
 * xc_synth_quantise(xc_synth_noise + x), the one without is drawn from the
 * table (stream XC_STREAM_LEVEL, counter (sample, chan / 8) up to 8 bits,
 * (sample, chan / 4) wider; a tie's 16 bits are word 0's low half of counter
 * (sample, chan) of stream XC_STREAM_TIE).  x is
 * left all zero.  lev holds n*nchans levels (scratch). */
void xc_levels_part(const xc_levels *t, uint64_t seed, uint64_t first, size_t n, int nchans, float *x, uint16_t *lev,
                    xc_bitorder order, uint8_t *out);

#endif
