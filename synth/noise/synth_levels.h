/* synth_levels.h: quantised noise drawn from its exact discrete distribution (not installed API).
 *
 * The level of quantise(N(0,1)) (xc_synth_quantise) takes value k with
 * probability Phi(hi_k) - Phi(lo_k) over its bin (the end levels take the
 * clipped tails).  Those probabilities, rounded to units of 2^-32 summing to
 * exactly 2^32, fill a Walker alias table (Vose's construction, in integers)
 * of 2^nbits columns: one 32-bit Philox word per value chooses the column from
 * its top nbits bits and, from the other 32 - nbits, the column's level or its
 * alias.  So each value's law is the rounded one exactly. */
#ifndef XC_SYNTH_LEVELS_H
#define XC_SYNTH_LEVELS_H

#include "core/base/xc_error.h"
#include "core/io/xc_filterbank.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int nbits;         /* 1..16 */
    uint32_t *thr;     /* [2^nbits]: the column's own level when the low bits are below thr */
    uint16_t *alias;   /* [2^nbits] */
    uint32_t *packed;  /* nbits 8: (min(thr, 2^24 - 1) << 8) | alias, a full column its own alias */
} xc_levels;

xc_status xc_levels_init(xc_levels *t, int nbits, xc_error *err);
void xc_levels_free(xc_levels *t);
/* The level word w draws. */
static inline uint16_t xc_levels_draw(const xc_levels *t, uint32_t w)
{
    const int sh = 32 - t->nbits;
    const uint32_t col = w >> sh, low = w & (uint32_t)((1ull << sh) - 1);
    return low < t->thr[col] ? (uint16_t)col : t->alias[col];
}

/* One part of a file: spectra first..first+n-1 of nchans channels as packed
 * bytes (nbits 1..16).  x[n*nchans] is the signal (noise sigmas), zero where
 * there is none, or NULL for none: a value with signal is
 * xc_synth_quantise(xc_synth_noise + x), the one without is drawn from the
 * table (stream XC_STREAM_LEVEL, the channel's word of block chan/4).  x is
 * left all zero.  lev holds n*nchans levels (scratch). */
void xc_levels_part(const xc_levels *t, uint64_t seed, uint64_t first, size_t n, int nchans, float *x, uint16_t *lev,
                    xc_bitorder order, uint8_t *out);

#endif
