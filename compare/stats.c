/* General statistics (xc_stats.h). */
#include "compare/xc_stats.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

/* ---- samples -------------------------------------------------------------- */

xc_meansd xc_meansd_of(const double *v, size_t n)
{
    xc_meansd m = {NAN, NAN, n};
    if (!n)
        return m;
    double s = 0;
    for (size_t k = 0; k < n; k++)
        s += v[k];
    m.mean = s / (double)n;
    if (n > 1) {
        double q = 0;
        for (size_t k = 0; k < n; k++)
            q += (v[k] - m.mean) * (v[k] - m.mean);
        m.sd = sqrt(q / (double)(n - 1));
    }
    return m;
}

double xc_meansd_se(const xc_meansd *m) { return m->n > 1 ? m->sd / sqrt((double)m->n) : NAN; }

int xc_meansd_within(const xc_meansd *m, double mu, double k, double slack)
{
    return fabs(m->mean - mu) <= k * xc_meansd_se(m) + slack;
}

/* a[k] becomes the k-th smallest of a[0..n-1] with a[0..k-1] <= a[k] <= a[k+1..n-1]. */
static void select_k(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        /* median of three as the pivot, moved to hi */
        if (a[mid] < a[lo]) { double t = a[mid]; a[mid] = a[lo]; a[lo] = t; }
        if (a[hi] < a[lo]) { double t = a[hi]; a[hi] = a[lo]; a[lo] = t; }
        if (a[mid] < a[hi]) { double t = a[mid]; a[mid] = a[hi]; a[hi] = t; }
        double piv = a[hi];
        size_t st = lo;
        for (size_t i = lo; i < hi; i++)
            if (a[i] < piv) {
                double t = a[i]; a[i] = a[st]; a[st] = t;
                st++;
            }
        double t = a[st]; a[st] = a[hi]; a[hi] = t;
        if (st == k)
            return;
        if (st < k)
            lo = st + 1;
        else
            hi = st - 1;
    }
}

double xc_median_exact(double *a, size_t n)
{
    if (!n)
        return NAN;
    size_t k = (n - 1) / 2;
    select_k(a, n, k);
    if (n % 2)
        return a[k];
    double up = a[k + 1];
    for (size_t i = k + 2; i < n; i++)
        up = a[i] < up ? a[i] : up;
    return 0.5 * (a[k] + up);
}

/* ---- goodness of fit --------------------------------------------------------- */

double xc_kolmogorov_q(double lambda)
{
    if (!(lambda > 0.2))
        return 1.0;
    double s = 0;
    for (int k = 1; k <= 100; k++) {
        double t = exp(-2.0 * k * k * lambda * lambda);
        s += (k % 2 ? 2.0 : -2.0) * t;
        if (t < 1e-17)
            break;
    }
    return s < 0 ? 0 : s > 1 ? 1 : s;
}

static int dcmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double chi2_cdf(double x, const void *ctx) { return gsl_cdf_chisq_P(x, *(const double *)ctx); }

xc_status xc_ks_test(double *x, size_t n, xc_cdf_fn cdf, const void *ctx, xc_gof *out, xc_error *err)
{
    if (!n || !cdf)
        return xc_error_set(err, XC_EINVAL, "KS test: %zu values%s (need at least one and a distribution)", n,
                            cdf ? "" : ", no distribution");
    for (size_t k = 0; k < n; k++)
        if (isnan(x[k]))
            return xc_error_set(err, XC_EINVAL, "KS test: value %zu of %zu is not a number", k, n);
    qsort(x, n, sizeof *x, dcmp);
    double D = 0;
    for (size_t k = 0; k < n; k++) {
        double F = cdf(x[k], ctx);
        D = fmax(D, fmax(F - (double)k / (double)n, (double)(k + 1) / (double)n - F));
    }
    double sn = sqrt((double)n);
    out->stat = D;
    out->p = xc_kolmogorov_q((sn + 0.12 + 0.11 / sn) * D);
    out->n = n;
    return XC_OK;
}

xc_status xc_ks_chi2(double *x, size_t n, double dof, xc_gof *out, xc_error *err)
{
    if (!(dof > 0))
        return xc_error_set(err, XC_EINVAL, "KS test against chi-square: %g dof (need > 0)", dof);
    return xc_ks_test(x, n, chi2_cdf, &dof, out, err);
}

#define PEARSON_MAXCELLS 1000

xc_status xc_pearson_test(const double *x, size_t n, xc_cdf_fn cdf, const void *ctx, int ncells, xc_gof *out,
                          xc_error *err)
{
    if (!n || !cdf || ncells < 2 || ncells > PEARSON_MAXCELLS)
        return xc_error_set(err, XC_EINVAL, "chi-square test: %zu values, %d cells%s (need at least one value, "
                            "2..%d cells and a distribution)", n, ncells, cdf ? "" : ", no distribution",
                            PEARSON_MAXCELLS);
    size_t cnt[PEARSON_MAXCELLS] = {0};
    for (size_t k = 0; k < n; k++) {
        double F = cdf(x[k], ctx);
        if (isnan(F))
            return xc_error_set(err, XC_EINVAL, "chi-square test: value %zu of %zu (%g) has no probability", k, n,
                                x[k]);
        int c = (int)(F * ncells);
        cnt[c < 0 ? 0 : c >= ncells ? ncells - 1 : c]++;
    }
    double e = (double)n / ncells, s = 0;
    for (int c = 0; c < ncells; c++)
        s += ((double)cnt[c] - e) * ((double)cnt[c] - e) / e;
    out->stat = s;
    out->p = gsl_cdf_chisq_Q(s, ncells - 1);
    out->n = n;
    return XC_OK;
}

xc_status xc_pearson_chi2(const double *x, size_t n, double dof, int ncells, xc_gof *out, xc_error *err)
{
    if (!(dof > 0))
        return xc_error_set(err, XC_EINVAL, "chi-square test against chi-square: %g dof (need > 0)", dof);
    return xc_pearson_test(x, n, chi2_cdf, &dof, ncells, out, err);
}

/* ---- counts ------------------------------------------------------------------- */

/* Smallest k with P(X <= k) >= q, X binomial(n, p). */
static size_t binom_quantile(size_t n, double p, double q)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gsl_cdf_binomial_P((unsigned)mid, p, (unsigned)n) >= q)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

xc_status xc_binom_bounds(size_t n, double p, double alpha, size_t *lo, size_t *hi, xc_error *err)
{
    if (!(p >= 0 && p <= 1) || !(alpha > 0 && alpha < 1) || n > UINT_MAX)
        return xc_error_set(err, XC_EINVAL, "binomial bounds: n %zu, p %g, alpha %g (need p in [0, 1], alpha in "
                            "(0, 1), n <= %u)", n, p, alpha, UINT_MAX);
    if (p == 0 || !n) {
        *lo = *hi = 0;
        return XC_OK;
    }
    if (p == 1) {
        *lo = *hi = n;
        return XC_OK;
    }
    /* the quantile q has P(X <= q - 1) < alpha/2 <= P(X <= q), so lo = q, or
     * q + 1 when P(X <= q) is alpha/2 exactly (P(X = q + 1) > 0 for 0 < p < 1) */
    size_t q = binom_quantile(n, p, 0.5 * alpha);
    *lo = q + (q < n && gsl_cdf_binomial_P((unsigned)q, p, (unsigned)n) <= 0.5 * alpha);
    *hi = binom_quantile(n, p, 1 - 0.5 * alpha);
    return XC_OK;
}
