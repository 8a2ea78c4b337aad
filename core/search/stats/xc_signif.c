/* signif.c: chi-square tail probabilities and Gaussian-equivalent sigmas in
 * log space, exact where the series are finite, and the Pulscan paper's GPU
 * polynomial for comparison.
 *
 * The chi-square survival function with dof = 2a is the regularised upper
 * incomplete gamma Q(a, y), y = chi2/2.  With the generalised Poisson term
 * p(x; y) = y^x e^{-y} / Gamma(x+1):
 *   integer a = m (even dof):       Q = sum_{k=0}^{m-1} p(k; y)            (finite, exact)
 *   half-integer a = m + 1/2 (odd): Q = erfc(sqrt y) + sum_{j=0}^{m-1} p(j + 1/2; y)
 *   any a:                          P = 1 - Q = sum_{j>=0} p(a + j; y)
 * Each p is formed in log space with Loader's saddle-point split
 * (ln p = -stirlerr(x) - bd0(x, y) - ln sqrt(2 pi x)), which keeps full
 * relative precision where y^x e^{-y} and Gamma(x+1) would each overflow or
 * cancel.  The sums run outward from their largest term, so none underflows.
 * Below the mean (y < a) Q is close to 1 and ln Q = log1p(-P) from the P
 * series keeps relative precision in ln Q that 1 - P would lose. */
#include "core/search/stats/xc_signif.h"
#include "core/search/stats/xc_chi2_even.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_gamma.h>

#define LN_SQRT_2PI XC_LN_SQRT_2PI
#define LN_2 0.69314718055994530941723212145818

static double log_add(double a, double b)
{
    if (a < b) {
        double t = a;
        a = b;
        b = t;
    }
    if (b == -INFINITY)
        return a;
    return a + log1p(exp(b - a));
}

/* ln Q(a, y) for a = m (half = 0) or a = m + 1/2 (half = 1), exact. */
static double log_q_exact(long m, int half, double y)
{
    double a = (double)m + (half ? 0.5 : 0.0);
    if (!half)
        return xc_chi2_logq_even(m, y);
    if (y < a)
        return log1p(-exp(xc_log_lower(a, y)));
    double le = gsl_sf_log_erfc(sqrt(y));
    return m ? log_add(le, xc_log_upper_sum(0.5, m, y)) : le;
}

/* Odd dof also go through GSL where its result is comfortably representable
 * (ln Q or ln P above -650, well inside double range) and its iterations are
 * known to converge (a <= 5e5).  GSL's default error handler aborts on
 * underflow, so the exact value decides beforehand whether GSL may be called. */
static double log_q_odd(long m, double y)
{
    double a = (double)m + 0.5;
    double exact = log_q_exact(m, 1, y);
    if (a > 5e5)
        return exact;
    if (y < a) {
        double lp = xc_log_lower(a, y);
        if (lp < -650)
            return exact;
        return log1p(-gsl_sf_gamma_inc_P(a, y));
    }
    if (exact < -650)
        return exact;
    return log(gsl_sf_gamma_inc_Q(a, y));
}

double xc_chi2_logq(double chi2, double dof)
{
    /* Above 1e9 dof the series would need more than ~3e5 terms near the mean. */
    if (isnan(chi2) || isnan(dof) || !(dof > 0) || dof > 1e9 || dof != floor(dof))
        return NAN;
    if (chi2 <= 0)
        return 0.0;
    if (chi2 == INFINITY)
        return -INFINITY;
    double y = 0.5 * chi2;
    long d = (long)dof;
    if (d % 2 == 0)
        return log_q_exact(d / 2, 0, y);
    return log_q_odd(d / 2, y);
}

/* ln Q_gauss(s) = ln(erfc(s / sqrt 2) / 2), s >= 0. */
static double log_qgauss(double s)
{
    return gsl_sf_log_erfc(s * M_SQRT1_2) - LN_2;
}

double xc_sigma_from_logp(double logp)
{
    if (isnan(logp))
        return NAN;
    if (logp >= -LN_2)
        return 0.0;
    if (logp == -INFINITY)
        return INFINITY;
    /* Beyond ln p = -1e15, s^2 = -2 ln p - ln(-4 pi ln p) to double precision
     * (the next term is ln(s)/s^2 relative), and s^2 would lose the Newton
     * step's precision anyway. */
    if (logp < -1e15)
        return sqrt(-2.0 * logp - log(-4.0 * M_PI * logp));
    /* A&S 26.2.23 (|error| < 4.5e-4 for p < 0.5) starts Newton on
     * g(s) = ln Q(s) - logp, g'(s) = -phi(s)/Q(s); ln Q is concave, so the
     * iteration converges quadratically from there. */
    double t = sqrt(-2.0 * logp);
    double s = t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                       (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)));
    if (s < 0)
        s = 0;
    for (int it = 0; it < 100; it++) {
        double lq = log_qgauss(s);
        double dlog = -0.5 * s * s - LN_SQRT_2PI - lq;   /* ln(phi/Q) */
        double step = (lq - logp) / exp(dlog);
        double next = s + step;
        if (next < 0)
            next = 0.5 * s;
        if (fabs(next - s) <= 4 * DBL_EPSILON * fmax(next, 1e-300)) {
            s = next;
            break;
        }
        s = next;
    }
    return s;
}

double xc_logp_poly(double chi2, double dof)
{
    if (!isfinite(chi2) || !isfinite(dof) || !(chi2 > 0) || !(dof > 0) || dof >= 1.05 * chi2)
        return NAN;
    return xc_logp_poly_eval(chi2, dof);
}

double xc_logp_poly_gpu(double chi2, double dof) { return xc_logp_poly_gpu_eval(chi2, dof); }

double xc_candidate_sigma(double power, double dof, double ntrials, double *logp_single)
{
    double l1 = xc_chi2_logq(power, dof);
    if (logp_single)
        *logp_single = l1;
    if (isnan(l1) || isnan(ntrials) || !(ntrials >= 1) || ntrials == INFINITY)
        return NAN;
    return xc_sigma_from_logp(fmin(0.0, l1 + log(ntrials)));
}

xc_status xc_logp_poly_error(const xc_logp_poly_grid *g, xc_logp_poly_err *out, xc_error *err)
{
    if (!g || !out)
        return xc_error_set(err, XC_EINVAL, "logp poly error: grid and result must be given");
    if (!(g->dof_lo >= 2) || !(g->dof_hi >= g->dof_lo) || !isfinite(g->dof_hi) || g->ndof < 1 ||
        !(g->ratio_lo > 0) || !(g->ratio_hi >= g->ratio_lo) || !isfinite(g->ratio_hi) ||
        g->nratio < 1 || !(g->rel_tol > 0))
        return xc_error_set(err, XC_EINVAL,
                            "logp poly error: bad grid: dof %g..%g (%d), chi2/dof %g..%g (%d), "
                            "rel_tol %g (need 2 <= dof_lo <= dof_hi, 0 < ratio_lo <= ratio_hi, "
                            "counts >= 1, rel_tol > 0)",
                            g->dof_lo, g->dof_hi, g->ndof, g->ratio_lo, g->ratio_hi, g->nratio,
                            g->rel_tol);
    xc_logp_poly_err r = {0};
    r.max_abs_chi2 = r.max_abs_dof = r.max_rel_chi2 = r.max_rel_dof = NAN;
    r.valid_ratio_min = NAN;
    /* worst relative error at each ratio over all dof, to find where the
     * polynomial stays within rel_tol */
    double *worst = calloc((size_t)g->nratio, sizeof *worst);
    if (!worst)
        return xc_error_set(err, XC_ENOMEM, "logp poly error: out of memory");
    for (int i = 0; i < g->ndof; i++) {
        double u = g->ndof > 1 ? (double)i / (g->ndof - 1) : 0;
        double dof = 2.0 * round(0.5 * g->dof_lo * pow(g->dof_hi / g->dof_lo, u));
        for (int j = 0; j < g->nratio; j++) {
            double v = g->nratio > 1 ? (double)j / (g->nratio - 1) : 0;
            double chi2 = dof * g->ratio_lo * pow(g->ratio_hi / g->ratio_lo, v);
            double p = xc_logp_poly(chi2, dof);
            if (isnan(p)) {
                r.noutside++;
                worst[j] = INFINITY;
                continue;
            }
            double e = xc_chi2_logq(chi2, dof);
            double ae = fabs(p - e), re = e != 0 ? ae / fabs(e) : (ae == 0 ? 0 : INFINITY);
            r.npoints++;
            if (ae > r.max_abs || isnan(r.max_abs_chi2)) {
                r.max_abs = ae;
                r.max_abs_chi2 = chi2;
                r.max_abs_dof = dof;
            }
            if (re > r.max_rel || isnan(r.max_rel_chi2)) {
                r.max_rel = re;
                r.max_rel_chi2 = chi2;
                r.max_rel_dof = dof;
            }
            if (re > worst[j])
                worst[j] = re;
        }
    }
    /* The smallest grid ratio from which every larger ratio stays within tol. */
    for (int j = g->nratio - 1; j >= 0 && worst[j] <= g->rel_tol; j--) {
        double v = g->nratio > 1 ? (double)j / (g->nratio - 1) : 0;
        r.valid_ratio_min = g->ratio_lo * pow(g->ratio_hi / g->ratio_lo, v);
    }
    free(worst);
    *out = r;
    return XC_OK;
}

/* ---- thresholds ------------------------------------------------------------ */

/* ln Q(a, x), the regularised upper incomplete gamma, for the threshold search
 * only (the reported significance always comes from xc_candidate_sigma): the
 * series for P below x = a + 1, Lentz's continued fraction for Q above, both
 * in log space so nothing underflows. */
static double lnq_gamma(double a, double x)
{
    if (x <= 0)
        return 0;
    int sg;
    double lpre = a * log(x) - x - lgamma_r(a, &sg);
    if (x < a + 1) {
        double ap = a, sum = 1.0 / a, del = sum;
        for (int n = 0; n < 100000; n++) {
            ap += 1;
            del *= x / ap;
            sum += del;
            if (fabs(del) < fabs(sum) * 1e-17)
                break;
        }
        double P = exp(lpre + log(sum));
        return P < 1 ? log1p(-P) : -INFINITY;
    }
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return lpre + log(h);
}

double xc_power_threshold(double sigma, double dof, double ntrials)
{
    /* sigma > S  <=>  ln p_single + ln ntrials < ln Q_gauss(S). */
    double target = gsl_sf_log_erfc(sigma / M_SQRT2) - M_LN2 - log(ntrials > 1 ? ntrials : 1);
    double a = 0.5 * dof;
    double hi = dof > 1 ? dof : 1;
    while (lnq_gamma(a, 0.5 * hi) > target)
        hi *= 2;
    /* ln Q is concave for dof >= 2, so Newton from the right of the root
     * decreases monotonically onto it without overshooting. */
    double x = hi;
    int sg;
    double lg = lgamma_r(a, &sg);
    for (int it = 0; it < 200; it++) {
        double f = lnq_gamma(a, 0.5 * x) - target;
        double lpdf = (a - 1) * log(0.5 * x) - 0.5 * x - lg - M_LN2;
        double slope = -exp(lpdf - lnq_gamma(a, 0.5 * x));
        if (!(slope < 0) || !isfinite(f))
            break;
        double nx = x - f / slope;
        if (!(nx < x) || !(nx > 0))
            break;
        int done = x - nx < 1e-14 * x;
        x = nx;
        if (done)
            break;
    }
    return x * (1 - 1e-6);
}
