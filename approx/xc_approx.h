/* xc_approx.h: measurements of the approximations the GPU version of Pulscan
 * (White et al. 2024) makes, and of the search's statistics on noise
 * (`crosscheck check approximations`; docs/REFERENCE.md, "What the suite
 * checks": the papers' shortcuts).  Every function returns numbers in a struct; nothing
 * prints, nothing is written to disk: the data are made, transformed and
 * searched in memory.  Every random number comes from GSL's MT19937 seeded
 * with the caller's seed (or xc_synth's Philox for synthetic pulsars), and
 * every reduction runs in a fixed order, so the numbers depend on the seed
 * only, never on the thread count.  A measurement that searches takes the
 * searcher as an argument: the library never picks one by name.
 *
 *  1. Median of medians against the exact median and MAD (xc_approx_norm.h).
 *  2. The appendix polynomial for ln p against the exact ln Q (xc_approx_logp.h).
 *  3. Detections lost on a synthetic set of accelerated pulsars under logarithmic
 *     z, R-block peaks, the median of medians and the polynomial (xc_approx_zloss.h).
 *  4. Noise-only spectra: harmonic-sum boxcars against chi-square, false alarms
 *     against the trials-corrected expectation (xc_approx_noise.h).
 * What `crosscheck check approximations` prints of them (rows of numbers and
 * the verdicts): xc_approx_table.h; the results as JSON: xc_approx_json.h.
 * The general statistics they use (KS, Pearson, binomial bounds): xc_stats.h. */
#ifndef XC_APPROX_H
#define XC_APPROX_H

#include "approx/pulscan/xc_approx_logp.h"
#include "approx/pulscan/xc_approx_noise.h"
#include "approx/pulscan/xc_approx_norm.h"
#include "approx/pulscan/xc_approx_zloss.h"

#endif
