/* xc_approx_norm.h: the median of medians, the GPU version's normaliser,
 * against the exact median and MAD on Gaussian noise (measurement 1 of
 * xc_approx.h): bias and spread of the location and of the MAD-based sigma,
 * with a semi-analytic prediction for blocks of 4^k values, and the effect on
 * the normalised powers (mean, tail fractions, KS against chi-square with 2 dof). */
#ifndef XC_APPROX_NORM_H
#define XC_APPROX_NORM_H

#include <stddef.h>
#include <stdint.h>

#include "compare/xc_stats.h"
#include "core/base/xc_error.h"
#include "core/search/xc_search.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU version's normalisation block: 1024 threads x 4 values. */
#define XC_APPROX_GPU_BLOCK 4096

/* Location and Gaussian-equivalent scale (XC_MAD_TO_SIGMA * MAD) of x[0..n-1]
 * as the normalisation computes them: mode XC_NORM_EXACT the exact median (mean
 * of the two middle values for even n) and the median of |x - med|, XC_NORM_MOM
 * xc_median_of_medians of x and of |x - mom|.  work holds n doubles; x is not
 * changed.  n >= 1. */
void xc_approx_block_stats(const double *x, size_t n, xc_norm_mode mode, double *work, double *loc, double *scale);

typedef struct {
    size_t block;              /* values per block */
    int nseeds;
    xc_meansd dloc;            /* (mom - median) / sigma */
    xc_meansd med_loc;         /* median / sigma (true value 0) */
    xc_meansd mom_loc;         /* mom / sigma (true value 0) */
    xc_meansd med_scale;       /* 1.4826 MAD / sigma, exact (true value 1) */
    xc_meansd mom_scale;       /* 1.4826 MAD / sigma, median of medians */
    xc_meansd scale_ratio;     /* mom scale / exact scale, block by block */
    /* xc_approx_mom_predict for block = 4^k; NAN otherwise */
    double pred_loc_sd, pred_scale_mean, pred_scale_sd;
} xc_mom_blocks;

/* nblocks blocks of `block` N(0,1) values (rounded to float32, as spectra
 * hold them) for each seed seed0 .. seed0 + nseeds - 1.  XC_EINVAL for block
 * < 4, nblocks < 2 or nseeds < 1; XC_ENOMEM. */
xc_status xc_approx_mom_blocks(size_t block, size_t nblocks, uint64_t seed0, int nseeds, int threads,
                               xc_mom_blocks *out, xc_error *err);

typedef struct {
    int levels;                /* block = 4^levels */
    double loc_sd;             /* sd of the median of medians of N(0,1) values */
    double scale_mean;         /* mean of XC_MAD_TO_SIGMA * median of medians of |x - mom| */
    double scale_sd;
} xc_mom_prediction;

/* The median of medians of 4^levels independent N(0,1) values, by
 * propagating densities: one level of (a+b+c+d-min-max)/2 over 4 independent
 * values of density f maps f to g(m) = 48 int_{u<m} F(u) f(u) f(2m-u)
 * (1 - F(2m-u)) du (the joint density of the 2nd and 3rd of 4 order
 * statistics), evaluated on a 4001-point grid spanning +-10 sd, re-gridded
 * after each level.  The MAD's deviations |x - c| are taken as independent
 * folded normals about the estimated centre c, averaged over c by 3-point
 * Gauss-Hermite with the predicted location sd: this neglects the O(1/n)
 * dependence between c and the deviations (the exact MAD's own finite-n bias
 * is 0.8/n, Croux & Rousseeuw 1992).  levels 1..8; XC_EINVAL, XC_ENOMEM. */
xc_status xc_approx_mom_predict(int levels, xc_mom_prediction *out, xc_error *err);

#define XC_APPROX_NTHR 5      /* tail thresholds of the power table */
#define XC_APPROX_NCURVE 60   /* survival curve points, x = 0.5, 1, ..., 30 */

typedef struct {
    size_t nbins, normwidth;
    int nseeds;
    size_t n;                  /* powers measured (bins 1..nbins-1 of every seed) */
    double mean_exact, mean_mom, mean_se;   /* mean power (true value 2), 2/sqrt(n) */
    double thr[XC_APPROX_NTHR];             /* x */
    double expect[XC_APPROX_NTHR];          /* e^{-x/2}: chi-square(2) survival */
    size_t count_exact[XC_APPROX_NTHR], count_mom[XC_APPROX_NTHR];  /* powers > x */
    /* The survival predicted from the blocks' estimated scales alone:
     * mean over blocks of exp(-x / (a_re^2 + a_im^2)), a = true sigma / estimated scale. */
    double pred_exact[XC_APPROX_NTHR], pred_mom[XC_APPROX_NTHR];
    xc_gof ks_exact, ks_mom;                /* KS against chi-square(2), all powers */
    double curve_x[XC_APPROX_NCURVE];
    double curve_exact[XC_APPROX_NCURVE], curve_mom[XC_APPROX_NCURVE];  /* measured / e^{-x/2} */
    double curve_pred_mom[XC_APPROX_NCURVE];                              /* predicted / e^{-x/2} */
} xc_mom_powers;

/* The mean normalised power the block statistics predict, from
 * P = (re - m)^2/s^2 + ..: E[P] = 2 (1 + var(m)) E[1/s^2] with
 * E[1/s^2] = 1 - 2 (E s - 1) + 3 E[(s - 1)^2] (second order), m and s the
 * location and scale of the estimator `mode` measured in b. */
double xc_approx_mean_power_pred(const xc_mom_blocks *b, xc_norm_mode mode);

/* Spectra of nbins bins of complex Gaussian noise (xc_approx_noise_spectrum),
 * one per seed, normalised by searcher's powers stage with blocks of normwidth
 * under both estimators.  XC_EINVAL for nseeds < 1, normwidth < 16 or
 * nbins <= normwidth; XC_ENOMEM. */
xc_status xc_approx_mom_powers(const xc_searcher *searcher, size_t nbins, size_t normwidth, uint64_t seed0, int nseeds, int threads,
                               xc_mom_powers *out, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
