/* xc_approx_noise.h: the search's statistics on noise-only spectra
 * (measurement 4 of xc_approx.h): harmonic-sum boxcars against chi-square with
 * their stated dof, and false alarms against the trials-corrected expectation.
 * The noise spectrum is also the input of the median-of-medians power
 * measurement (xc_approx_norm.h). */
#ifndef XC_APPROX_NOISE_H
#define XC_APPROX_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "compare/xc_stats.h"
#include "core/base/xc_error.h"
#include "core/search/xc_search.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Offset and standard deviation of each part of a noise spectrum's bins. */
#define XC_APPROX_NOISE_OFF 0.5
#define XC_APPROX_NOISE_SIGMA 3.0

/* A spectrum of nbins complex Gaussian bins, real and imaginary parts
 * XC_APPROX_NOISE_OFF + XC_APPROX_NOISE_SIGMA N(0,1) rounded to float32, drawn
 * from GSL's MT19937 seeded with `seed` (re, im of bin 0, then bin 1, ...);
 * T = 1 s.  sp owns its data (xc_spectrum_free).  XC_ENOMEM. */
xc_status xc_approx_noise_spectrum(xc_spectrum *sp, size_t nbins, uint64_t seed, xc_error *err);
/* The same with every part's mean `off` instead of XC_APPROX_NOISE_OFF. */
xc_status xc_approx_noise_spectrum_off(xc_spectrum *sp, size_t nbins, uint64_t seed, double off, xc_error *err);

typedef struct {
    int numharm, width;
    double dof;               /* 2 w h(h+1)/2 */
    size_t n;                 /* independent boxcars tested */
    xc_gof ks;                /* KS against chi-square(dof) */
    xc_gof gof;               /* Pearson over 10 equiprobable cells */
} xc_noise_ks;

/* One noise spectrum of nbins bins from `seed`, normalised
 * (searcher's powers stage, exact, default block), and for each stage h and
 * width w the boxcars B = sum_{m<w} S_h[i+m] (xc_pulscan_prefix) at starts
 * i = i0, i0 + w, ... with i0 = ceil((h-1) L / h), L = floor(nbins/h): there
 * the bins k i + j of harmonic k lie in [k i0, k L), disjoint for different k,
 * so no bin is in two boxcars and the sample is independent.
 * out[a*nw + b] for harms[a], widths[b].  XC_EINVAL for nbins < 1024, a stage
 * outside 1..8, or a width leaving fewer than 100 boxcars; XC_ENOMEM. */
xc_status xc_approx_noise_ks(const xc_searcher *searcher, size_t nbins, uint64_t seed, const int *harms, int nh, const int *widths, int nw,
                             int threads, xc_noise_ks *out, xc_error *err);

typedef struct {
    int zmax, numharm;
    double S;                 /* threshold: sigma > S */
    size_t nspec;
    double ntrials;           /* of stage 1 per spectrum (xc_pulscan_ntrials) */
    /* Candidates above S over all spectra, against nspec * numharm * Q(S),
     * Q the Gaussian tail: what independent trials would give.  Local
     * maxima of one excursion cluster in (start, width), so this count is
     * over-dispersed and has no binomial bound. */
    size_t count;
    double expect;
    /* Spectra with at least one candidate above S: independent, so
     * binomial(nspec, p) exactly, p the family-wise rate; for ntrials
     * independent trials per stage, p = 1 - exp(-numharm Q(S)) (correlated
     * trials give less: the trials-corrected sigma is then conservative). */
    size_t nfam;
    double pfam;
    double alpha;             /* of the bounds: two-sided */
    size_t lo, hi;            /* xc_binom_bounds(nspec, pfam, alpha) */
} xc_noise_fa;

/* nspec noise spectra (nbins, seeds seed0, seed0+1, ...) searched by
 * `searcher` with zmax, numharm, zstep 1, local maxima, no sifting (each
 * stage is its own Bonferroni family), sigma > 0; for each S[k] the counts
 * above.  `threads` spectra are searched at once, one thread each, so the
 * searcher must be safe to run concurrently.  XC_EINVAL for no searcher,
 * bad sizes or thresholds; the searcher's errors, from the first spectrum
 * that failed. */
xc_status xc_approx_false_alarms(const xc_searcher *searcher, size_t nbins, size_t nspec, uint64_t seed0, int zmax,
                                 int numharm, const double *S, int nS, double alpha, int threads, xc_noise_fa *out,
                                 xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
