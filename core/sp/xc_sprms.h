/* xc_sprms.h: the exact whole-row statistics of a single-pulse search made
 * in gulps, gathered in bounded memory over passes through the file
 * (docs/SINGLEPULSE.md, "Gulps").
 *
 * Each pass shows every row's samples once, a window at a time, with the
 * samples the window owns.  XC_SP_MEAN_SD: one pass sums x and x^2 in double
 * in sample order, the reference's sums.  XC_SP_MEDIAN_MAD: the rms needs
 * the median of the n deviations d_t = |x_t - m_b(t)| (m_b from the window's
 * whole blocks, the row's medians); each needed rank (n/2, and n/2 - 1 for
 * an even n) is found by a radix selection over the deviations' IEEE bit
 * patterns (for non-negative doubles the order of the patterns is the order
 * of the values): a pass counts the patterns under the rank's interval and
 * histograms those in it into XC_SPRMS_BINS bins, the bin holding the rank
 * becomes the interval; once an interval holds one pattern the value is
 * known, and once it holds few values a pass gathers them and sorts.  So
 * the rank's value is the exact one, whatever the data (integer or not),
 * in at most ceil(63 / 9) + 1 passes, and s = 1.4826 x the median by the
 * reference's expression: the same double as the whole search's. */
#ifndef XC_SPRMS_H
#define XC_SPRMS_H

#include <stddef.h>

#include "core/base/xc_error.h"
#include "core/sp/xc_spsearch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XC_SPRMS_BINS 512     /* histogram bins per rank and pass (9 bits of the pattern) */

typedef struct xc_sprms xc_sprms;

/* Bytes the statistics of ntrials rows hold under stat. */
double xc_sprms_bytes(xc_sp_stat stat, size_t ntrials);

/* The statistics of ntrials rows, row i of n[i] samples (each >= 1). */
xc_status xc_sprms_create(xc_sprms **r, xc_sp_stat stat, const size_t *n, size_t ntrials, xc_error *err);
void xc_sprms_destroy(xc_sprms *r);

/* 1 when every row's statistics are known (no more passes). */
int xc_sprms_done(const xc_sprms *r);
/* Passes made so far. */
int xc_sprms_passes(const xc_sprms *r);

/* One pass: begin, then every sample of every row once through add (a row's
 * windows in increasing order, so the sums keep sample order), then end. */
void xc_sprms_begin(xc_sprms *r);
/* Row i's window x[0..nw-1] (whole blocks of L of the row, as a gulp's
 * window: its blocks are the row's) of which [own_lo, own_hi) are the
 * samples this window contributes.  tmp: nw doubles; m: the window's blocks. */
void xc_sprms_add(xc_sprms *r, size_t i, const float *x, size_t nw, size_t L, size_t own_lo, size_t own_hi,
                  double *m, double *tmp);
/* Closes the pass: narrows each rank's interval.  XC_ENOMEM for a gather. */
xc_status xc_sprms_end(xc_sprms *r, xc_error *err);

/* Once done: every row's s, and its mean (XC_SP_MEAN_SD; else NULL). */
const double *xc_sprms_s(const xc_sprms *r);
const double *xc_sprms_m(const xc_sprms *r);

#ifdef __cplusplus
}
#endif
#endif
