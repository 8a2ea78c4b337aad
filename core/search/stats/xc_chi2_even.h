/* xc_chi2_even.h: the exact chi-square tail for even dof and the Pulscan
 * paper's polynomial, as inline functions that compile for the host (C) and
 * for a CUDA device (the GPU searcher's log p stage), so both run the same
 * code.  reference/signif.c builds xc_chi2_logq on these; see there for the
 * method (Loader's saddle-point terms summed outward from the largest).
 *
 * The device's log, exp and lgamma differ from glibc's by an ulp or so (and
 * the device multiplies by 1/y where the host divides by y), so the two agree
 * to about 1e-14 relative, not bit for bit. */
#ifndef XC_CHI2_EVEN_H
#define XC_CHI2_EVEN_H

#include <math.h>

#include "core/base/xc_hd.h"

#define XC_LN_SQRT_2PI 0.91893853320467274178032973640562

/* ln Gamma(n+1) - (n + 1/2) ln n + n - ln sqrt(2 pi), the error of Stirling's
 * formula.  Series coefficients 1/12, 1/360, 1/1260, 1/1680, 1/1188 (the
 * Bernoulli terms, as in Loader 2000 and R's stirlerr); below 15 lgamma is
 * exact enough, the cancellation costing at most 1e-14 absolute. */
XC_HD static inline double xc_stirlerr(double n)
{
    const double S0 = 1.0 / 12, S1 = 1.0 / 360, S2 = 1.0 / 1260, S3 = 1.0 / 1680, S4 = 1.0 / 1188;
    if (n <= 15.0)
        return lgamma(n + 1.0) - (n + 0.5) * log(n) + n - XC_LN_SQRT_2PI;
    double nn = n * n;
    if (n > 500)
        return (S0 - S1 / nn) / n;
    if (n > 80)
        return (S0 - (S1 - S2 / nn) / nn) / n;
    if (n > 35)
        return (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n;
    return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n;
}

/* x ln(x/np) + np - x without the cancellation when x is close to np. */
XC_HD static inline double xc_bd0(double x, double np)
{
    if (fabs(x - np) < 0.1 * (x + np)) {
        double v = (x - np) / (x + np);
        double s = (x - np) * v;
        double ej = 2 * x * v;
        double v2 = v * v;
        for (int j = 1; j < 1000; j++) {
            ej *= v2;
            double s1 = s + ej / (2 * j + 1);
            if (s1 == s)
                return s1;
            s = s1;
        }
        return s;
    }
    return x * log(x / np) + np - x;
}

/* ln p(x; y) = x ln y - y - ln Gamma(x+1), for x >= 0, y > 0. */
XC_HD static inline double xc_log_pois(double x, double y)
{
    if (x == 0)
        return -y;
    return -xc_stirlerr(x) - xc_bd0(x, y) - XC_LN_SQRT_2PI - 0.5 * log(x);
}

/* ln P(a, y) for y < a: the terms p(a + j; y) fall from j = 0 on. */
XC_HD static inline double xc_log_lower(double a, double y)
{
    double s = 1, t = 1;
    for (double j = 1; j < 1e9; j++) {
        t *= y / (a + j);
        s += t;
        if (t < s * 1e-17)
            break;
    }
    return xc_log_pois(a, y) + log(s);
}

/* ln sum_{i=0}^{m-1} p(x0 + i; y) for y >= x0 + m - 1: the terms rise with i,
 * so the sum runs down from the last one. */
XC_HD static inline double xc_log_upper_sum(double x0, long m, double y)
{
    double s = 1, t = 1;
#ifdef __CUDA_ARCH__
    /* A division per term is the device's slowest step and each term waits
     * for the last; multiplying by 1/y instead costs an ulp per term, ~1e-14
     * relative over the few hundred terms that matter.  A GPU does not run
     * ahead of a branch, so a convergence test per term made each term wait
     * for the test (about 80 cycles a term on an H200); the terms are taken
     * eight at a time, tested once, which adds at most seven terms below
     * 1e-17 of the sum (bench gpu-pulscan on an H200, log p stage: 0.017
     * -> 0.009 ms).  The host keeps the one-term loop. */
    const double iy = 1.0 / y;
    double xi = x0 + (double)(m - 1);
    long i = m - 1;
    int done = 0;
    for (; i >= 8 && !done; i -= 8) {
        double s8 = 0;
        for (int k = 0; k < 8; k++) {
            t *= xi * iy;
            xi -= 1.0;
            s8 += t;
        }
        s += s8;
        done = t < s * 1e-17;
    }
    for (; i >= 1 && !done; i--) {
        t *= xi * iy;
        xi -= 1.0;
        s += t;
        done = t < s * 1e-17;
    }
#else
    for (long i = m - 1; i >= 1; i--) {
        t *= (x0 + i) / y;
        s += t;
        if (t < s * 1e-17)
            break;
    }
#endif
    return xc_log_pois(x0 + (double)(m - 1), y) + log(s);
}

/* ln Q(chi2 | dof = 2m) for m >= 1, chi2 > 0 finite (y = chi2/2): exact. */
XC_HD static inline double xc_chi2_logq_even(long m, double y)
{
    if (y < (double)m)
        return log1p(-exp(xc_log_lower((double)m, y)));
    return xc_log_upper_sum(0.0, m, y);
}

/* The Pulscan paper's appendix (Algorithm 3), coefficients as printed there,
 * highest power first: f(x) = sum c_i x^(16-i), x = 1500 dof / chi2,
 * ln p = chi2 f(x) / 1500.  The table is the function's own, so device code
 * can use it. */
XC_HD static inline double xc_logp_poly_eval(double chi2, double dof)
{
    const double c[17] = {
        -4.4604059e-46, 9.4927863e-42, -9.1470451e-38, 5.2810851e-34, -2.0376166e-30, 5.5480334e-27,
        -1.0973877e-23, 1.5991804e-20, -1.7231488e-17, 1.3660070e-14, -7.8617952e-12, 3.2136336e-09,
        -9.0466418e-07, 0.00016945948, -0.021494231, 2.9515954, -755.24091};
    double x = 1500.0 * dof / chi2, f = c[0];
    for (int i = 1; i < 17; i++)
        f = f * x + c[i];
    return chi2 * f / 1500.0;
}

/* The GPU's use of the polynomial: ln p = 0 where dof >= 1.05 chi2 (the
 * paper's Algorithm 3 cut); NAN for chi2 <= 0, dof <= 0 or non-finite input. */
XC_HD static inline double xc_logp_poly_gpu_eval(double chi2, double dof)
{
    if (!isfinite(chi2) || !isfinite(dof) || !(chi2 > 0) || !(dof > 0))
        return NAN;
    if (dof >= 1.05 * chi2)
        return 0.0;
    return xc_logp_poly_eval(chi2, dof);
}

#endif
