/* xc_stats.h: the general statistics the measurements use: sample mean and
 * spread, the exact median, the one-sample Kolmogorov-Smirnov test, Pearson's
 * chi-square goodness of fit over equiprobable cells, and two-sided binomial
 * bounds.  Nothing here knows about spectra or searches; every function is
 * deterministic (no random numbers) and prints nothing.
 *
 * References: Kolmogorov's limiting distribution and the finite-n argument
 * (sqrt(n) + 0.12 + 0.11/sqrt(n)) D are from Stephens (1970), JRSS B 32, 115,
 * and Press et al., Numerical Recipes, sec. 14.3; Pearson's statistic over
 * equiprobable cells is Numerical Recipes sec. 14.3 / Cochran (1952), Ann.
 * Math. Stat. 23, 315.  The CDFs and tails come from GSL (gsl_cdf). */
#ifndef XC_STATS_H
#define XC_STATS_H

#include <stddef.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- samples -------------------------------------------------------------- */

/* Mean, standard deviation (n - 1 denominator) and size of a sample. */
typedef struct {
    double mean, sd;
    size_t n;
} xc_meansd;

/* Of v[0..n-1], summed in index order.  mean is NAN for n = 0, sd NAN for n < 2. */
xc_meansd xc_meansd_of(const double *v, size_t n);
/* Standard error of the mean, sd / sqrt(n) (NAN for n < 2). */
double xc_meansd_se(const xc_meansd *m);
/* 1 if |mean - mu| <= k SE + slack, the test every "unbiased" verdict makes;
 * 0 otherwise, and 0 when the mean or SE is not a number. */
int xc_meansd_within(const xc_meansd *m, double mu, double k, double slack);

/* The exact median of a[0..n-1] (the mean of the two middle values for even
 * n) by quickselect with a median-of-three pivot; a is reordered.  NAN for
 * n = 0. */
double xc_median_exact(double *a, size_t n);

/* ---- goodness of fit --------------------------------------------------------- */

/* A distribution function F(x), ctx passed through. */
typedef double (*xc_cdf_fn)(double x, const void *ctx);

/* A test statistic, its p-value (the probability of a value at least as
 * extreme under the hypothesis) and the sample size it was computed on. */
typedef struct {
    double stat, p;
    size_t n;
} xc_gof;

/* Kolmogorov's survival function Q_KS(lambda) = 2 sum_{k>=1} (-1)^(k-1)
 * e^(-2 k^2 lambda^2), clipped to [0, 1]; 1 for lambda <= 0.2 (where Q is 1
 * to 1e-9 and the series converges slowly) and for NAN. */
double xc_kolmogorov_q(double lambda);

/* One-sample KS test of x[0..n-1] against F: stat = D = sup |F_n - F| over
 * the sorted sample (x is sorted in place), p = Q_KS((sqrt(n) + 0.12 +
 * 0.11/sqrt(n)) D).  XC_EINVAL for n = 0, no cdf, or a NAN value (named). */
xc_status xc_ks_test(double *x, size_t n, xc_cdf_fn cdf, const void *ctx, xc_gof *out, xc_error *err);
/* The same against chi-square with `dof` degrees of freedom (dof > 0). */
xc_status xc_ks_chi2(double *x, size_t n, double dof, xc_gof *out, xc_error *err);

/* Pearson's chi-square of x[0..n-1] over `ncells` cells of equal probability
 * under F (value x falls in cell floor(F(x) ncells)): stat = sum (O - E)^2 / E
 * with E = n / ncells, p its chi-square tail with ncells - 1 dof.
 * XC_EINVAL for n = 0, no cdf, ncells outside 2..1000, or a value whose F is
 * not a number (named). */
xc_status xc_pearson_test(const double *x, size_t n, xc_cdf_fn cdf, const void *ctx, int ncells, xc_gof *out,
                          xc_error *err);
/* The same against chi-square with `dof` degrees of freedom (dof > 0). */
xc_status xc_pearson_chi2(const double *x, size_t n, double dof, int ncells, xc_gof *out, xc_error *err);

/* ---- counts ------------------------------------------------------------------- */

/* Two-sided bounds [lo, hi] that hold a binomial(n, p) count with
 * probability >= 1 - alpha: lo the largest k with P(X < k) <= alpha/2, hi the
 * smallest with P(X > hi) <= alpha/2 (p = 0 gives 0..0, p = 1 gives n..n).
 * XC_EINVAL for p outside [0, 1], alpha outside (0, 1), or n above UINT_MAX
 * (GSL's binomial CDF takes unsigned counts). */
xc_status xc_binom_bounds(size_t n, double p, double alpha, size_t *lo, size_t *hi, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
