/* xc_signif.h: significance of summed powers, computed in log space so that
 * the extreme tails of bright pulsars (ln p = -171 in the Pulscan paper's
 * Table 3, far below what a double p can hold) never underflow. */
#ifndef XC_SIGNIF_H
#define XC_SIGNIF_H

#include <stddef.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ln Q(chi2 | dof): the chi-square survival function.  For even dof the finite
 * sum Q = e^{-x/2} sum_{k<dof/2} (x/2)^k / k! is exact and is summed in log
 * space; odd dof use GSL where it is finite and, beyond, the equally exact
 * half-integer form Q = erfc(sqrt(x/2)) + e^{-x/2} sum_{j<(dof-1)/2}
 * (x/2)^{j+1/2} / Gamma(j+3/2) (no asymptotic series is needed).  Below the
 * mean the complementary series is summed, so ln Q near 0 keeps its relative
 * precision.  Returns 0 for chi2 <= 0, -inf for chi2 = +inf, NAN unless dof
 * is an integer in 1..1e9. */
double xc_chi2_logq(double chi2, double dof);
/* The Gaussian-equivalent sigma s with ln Q_gauss(s) = logp (one-sided), for
 * any logp <= 0, inverted in log space (accurate to 1e-10 relative down to
 * logp = -1e6).  logp >= ln 0.5 gives 0 (never negative). */
double xc_sigma_from_logp(double logp);
/* The Pulscan paper's appendix polynomial for ln p (the GPU approximation),
 * for comparison only; returns NAN outside the domain where the paper fits it:
 * chi2 > 0 and 0 < dof < 1.05 chi2 (the paper's Algorithm 3 returns 0 below
 * that cut instead of evaluating the polynomial: see xc_logp_poly_gpu). */
double xc_logp_poly(double chi2, double dof);
/* PRESTO-style candidate sigma with an explicit Bonferroni trials factor:
 * logp1 = xc_chi2_logq(power, dof) (single trial), logp = min(0, logp1 + ln ntrials),
 * returns xc_sigma_from_logp(logp); *logp_single gets logp1 if not NULL. */
double xc_candidate_sigma(double power, double dof, double ntrials, double *logp_single);
/* A power below which sigma <= `sigma` for sure at this dof and trials
 * (1e-6 below the exact crossing of xc_candidate_sigma): what a search's
 * peaks must exceed to be kept (the Pulscan and accel searches' thresholds). */
double xc_power_threshold(double sigma, double dof, double ntrials);

/* The GPU's own use of the polynomial (pulscan_gpu power_to_logp): ln p = 0
 * where dof >= 1.05 chi2 (the paper's Algorithm 3 cut), the polynomial
 * elsewhere; NAN only for chi2 <= 0, dof <= 0 or non-finite input. */
double xc_logp_poly_gpu(double chi2, double dof);

/* The grid for xc_logp_poly_error: dof = the even numbers nearest ndof
 * log-spaced points in [dof_lo, dof_hi]; chi2 = ratio * dof for nratio
 * log-spaced ratios in [ratio_lo, ratio_hi]. */
typedef struct {
    double dof_lo, dof_hi;
    int ndof;
    double ratio_lo, ratio_hi;
    int nratio;
    double rel_tol;       /* for valid_ratio_min */
} xc_logp_poly_grid;

typedef struct {
    double max_abs, max_abs_chi2, max_abs_dof;   /* largest |poly - exact ln p| and where */
    double max_rel, max_rel_chi2, max_rel_dof;   /* largest |poly - exact| / |exact| and where */
    double valid_ratio_min;   /* smallest grid chi2/dof from which every larger grid ratio, at
                                 every grid dof, has relative error <= rel_tol; NAN if none */
    size_t npoints;           /* grid points inside the polynomial's domain */
    size_t noutside;          /* grid points where xc_logp_poly is NAN (dof >= 1.05 chi2) */
} xc_logp_poly_err;

/* Measures xc_logp_poly against the exact xc_chi2_logq over the grid (for
 * `check approximations`).  XC_EINVAL for an invalid grid. */
xc_status xc_logp_poly_error(const xc_logp_poly_grid *g, xc_logp_poly_err *out, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
