/* The general statistics (compare/xc_stats.h): each function against values
 * worked by hand (or Smirnov's published table of Kolmogorov's distribution),
 * and against planted failures: data that must fail the test (a biased mean,
 * a scaled chi-square sample, a count far outside its binomial bounds) or
 * input it must refuse. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/xc_stats.h"
#include "tests/xc_assert.h"
#include "tests/xc_test.h"

/* ---- mean and spread ------------------------------------------------------ */

/* {2, 4, 4, 4, 5, 5, 7, 9}: sum 40, mean 5; squared deviations 9 1 1 1 0 0 4 16,
 * sum 32, sd sqrt(32/7) = 2.1380899353, SE sd/sqrt(8) = 0.7559289460. */
XC_TEST(test_meansd_hand, "meansd_hand")
{
    static const double v[8] = {2, 4, 4, 4, 5, 5, 7, 9};
    xc_meansd m = xc_meansd_of(v, 8);
    CU_ASSERT_EQUAL(m.n, 8);
    XC_ASSERT_NEAR(m.mean, 5.0, 1e-15);
    XC_ASSERT_NEAR(m.sd, 2.1380899352993950, 1e-15);
    XC_ASSERT_NEAR(xc_meansd_se(&m), 0.75592894601845440, 1e-15);
    /* |5 - mu| <= k SE + slack: 4.5 SE = 3.4016802571 */
    CU_ASSERT_TRUE(xc_meansd_within(&m, 5.0, 4.5, 0));
    CU_ASSERT_TRUE(xc_meansd_within(&m, 5.0 + 3.40, 4.5, 0));
    CU_ASSERT_FALSE(xc_meansd_within(&m, 5.0 + 3.41, 4.5, 0));
    CU_ASSERT_FALSE(xc_meansd_within(&m, 5.0 - 3.41, 4.5, 0));
    /* mu = 6: |5 - 6| = 1 against 1 SE (0.7559) + 0.25 = 1.0059, or + 0.2 = 0.9559 */
    CU_ASSERT_TRUE(xc_meansd_within(&m, 6.0, 1.0, 0.25));
    CU_ASSERT_FALSE(xc_meansd_within(&m, 6.0, 1.0, 0.2));
}

/* Planted failures: a sample whose mean is 0.1 away from the hypothesis
 * (10 SE for 10000 N(0.1, 1) values) fails, while the same draws shifted to
 * mean 0 pass; a sample of one value has no spread, so nothing can pass. */
XC_TEST(test_meansd_planted, "meansd_planted")
{
    enum { N = 10000 };
    double *x = malloc(N * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    for (int k = 0; k < N; k++)
        x[k] = 0.1 + gsl_ran_gaussian(r, 1.0);
    gsl_rng_free(r);
    xc_meansd biased = xc_meansd_of(x, N);
    XC_ASSERT_NEAR(xc_meansd_se(&biased), 0.01, 0.001);
    CU_ASSERT_FALSE(xc_meansd_within(&biased, 0.0, 4.5, 0));
    for (int k = 0; k < N; k++)
        x[k] -= 0.1;
    xc_meansd fair = xc_meansd_of(x, N);
    CU_ASSERT_TRUE(xc_meansd_within(&fair, 0.0, 4.5, 0));
    free(x);

    xc_meansd one = xc_meansd_of((const double[]){3.0}, 1);
    XC_ASSERT_NEAR(one.mean, 3.0, 0);
    CU_ASSERT(isnan(one.sd));
    CU_ASSERT(isnan(xc_meansd_se(&one)));
    CU_ASSERT_FALSE(xc_meansd_within(&one, 3.0, 4.5, 1.0));
    xc_meansd none = xc_meansd_of(NULL, 0);
    CU_ASSERT(isnan(none.mean) && none.n == 0);
}

/* ---- median ---------------------------------------------------------------- */

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Hand values, then the quickselect against a full sort on arrays of every
 * size 1..40 (odd and even, with ties from a coarse grid); an empty array has
 * no median (NAN). */
XC_TEST(test_median_exact, "median_exact")
{
    double a[] = {3, 1, 2};
    XC_ASSERT_NEAR(xc_median_exact(a, 3), 2.0, 0);
    double b[] = {4, 1, 3, 2};
    XC_ASSERT_NEAR(xc_median_exact(b, 4), 2.5, 0);
    double c[] = {1, 1, 2, 1};
    XC_ASSERT_NEAR(xc_median_exact(c, 4), 1.0, 0);
    double d[] = {1e9, 2, -7, 3, 1};   /* an outlier moves the mean, not the median */
    XC_ASSERT_NEAR(xc_median_exact(d, 5), 2.0, 0);
    CU_ASSERT(isnan(xc_median_exact(a, 0)));

    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    double x[40], s[40];
    for (size_t n = 1; n <= 40; n++) {
        for (size_t k = 0; k < n; k++)
            x[k] = s[k] = (double)gsl_rng_uniform_int(r, 8);
        qsort(s, n, sizeof *s, dcmp);
        double want = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
        XC_ASSERT_NEAR(xc_median_exact(x, n), want, 0);
    }
    gsl_rng_free(r);
}

/* ---- Kolmogorov-Smirnov ------------------------------------------------------- */

/* Q(0.5) = 2 (e^-0.5 - e^-2 + e^-4.5 - e^-8 + e^-12.5 - ..)
 *        = 2 (0.6065307 - 0.1353353 + 0.0111090 - 0.0003355 + 0.0000037) = 0.9639452;
 * Q(1) = 2 (e^-2 - e^-8 + e^-18) = 0.2699997; and Smirnov's table (1948, Ann.
 * Math. Stat. 19, 279): Q = 0.10, 0.05, 0.01, 0.001 at 1.2238, 1.3581,
 * 1.6276, 1.9495 (the table's 4 decimals of lambda give Q to 3e-5). */
XC_TEST(test_kolmogorov_q, "kolmogorov_q")
{
    XC_ASSERT_NEAR(xc_kolmogorov_q(0.5), 0.9639452, 1e-7);
    XC_ASSERT_NEAR(xc_kolmogorov_q(1.0), 0.2699997, 1e-7);
    XC_ASSERT_NEAR(xc_kolmogorov_q(1.2238), 0.10, 5e-5);
    XC_ASSERT_NEAR(xc_kolmogorov_q(1.3581), 0.05, 5e-5);
    XC_ASSERT_NEAR(xc_kolmogorov_q(1.6276), 0.01, 5e-5);
    XC_ASSERT_NEAR(xc_kolmogorov_q(1.9495), 0.001, 5e-5);
    XC_ASSERT_NEAR(xc_kolmogorov_q(0.1), 1.0, 0);
    XC_ASSERT_NEAR(xc_kolmogorov_q(NAN), 1.0, 0);
    XC_ASSERT_BELOW(xc_kolmogorov_q(10.0), 1e-80);
}

static double uniform_cdf(double x, const void *ctx)
{
    (void)ctx;
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* n chi-square(dof) draws from seed, times `scale`. */
static double *chi2_draws(size_t n, double dof, double scale, unsigned long seed)
{
    double *x = malloc(n * sizeof *x);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (x && r) {
        gsl_rng_set(r, seed);
        for (size_t k = 0; k < n; k++)
            x[k] = scale * gsl_ran_chisq(r, dof);
    }
    if (r)
        gsl_rng_free(r);
    return x;
}

/* Against U(0,1), x = {0.9, 0.2, 0.4} sorts to 0.2 0.4 0.9; at the k-th
 * (k = 0, 1, 2) F - k/3 and (k+1)/3 - F are 0.2, 0.1333; 0.0667, 0.2667;
 * 0.2333, 0.1, so D = 2/3 - 0.4 = 4/15; lambda = (sqrt 3 + 0.12 +
 * 0.11/sqrt 3) 4/15 = 0.5108158 and Q = 2 (0.5934124 - 0.1240014 + 0.0091245
 * - 0.0002364 + 0.0000022) = 0.9566025.  The same quantiles of chi-square(2),
 * x = -2 ln(1 - u), give the same D and p against 2 dof. */
XC_TEST(test_ks_hand, "ks_hand")
{
    xc_gof g;
    xc_error err;
    double x[3] = {0.9, 0.2, 0.4};
    CU_ASSERT_EQUAL_FATAL(xc_ks_test(x, 3, uniform_cdf, NULL, &g, &err), XC_OK);
    CU_ASSERT_EQUAL(g.n, 3);
    XC_ASSERT_NEAR(g.stat, 4.0 / 15, 1e-15);
    XC_ASSERT_NEAR(g.p, 0.9566025, 1e-7);
    CU_ASSERT(x[0] == 0.2 && x[1] == 0.4 && x[2] == 0.9);   /* sorted in place */
    double y[3] = {-2 * log(0.1), -2 * log(0.8), -2 * log(0.6)};
    CU_ASSERT_EQUAL_FATAL(xc_ks_chi2(y, 3, 2, &g, &err), XC_OK);
    XC_ASSERT_NEAR(g.stat, 4.0 / 15, 1e-12);
    XC_ASSERT_NEAR(g.p, 0.9566025, 1e-7);
}

/* Planted failures: 20000 chi-square(2) draws pass against 2 dof and fail
 * once scaled by 1.05 (a 5 % scale error, as a biased normalisation makes);
 * chi-square(6) draws fail against 7 dof.  Empty samples, NAN values and
 * dof <= 0 are refused. */
XC_TEST(test_ks_planted, "ks_planted")
{
    size_t n = 20000;
    double *x = chi2_draws(n, 2, 1.0, 5), *b = chi2_draws(n, 2, 1.05, 5), *s6 = chi2_draws(n, 6, 1.0, 6);
    CU_ASSERT_FATAL(x && b && s6);
    xc_gof g;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_ks_chi2(x, n, 2, &g, &err), XC_OK);
    XC_ASSERT_ABOVE(g.p, 1e-3);
    XC_ASSERT_BELOW(g.stat, 1.95 / sqrt((double)n));   /* the 0.1 % critical value */
    CU_ASSERT_EQUAL_FATAL(xc_ks_chi2(b, n, 2, &g, &err), XC_OK);
    XC_ASSERT_BELOW(g.p, 1e-6);
    CU_ASSERT_EQUAL_FATAL(xc_ks_chi2(s6, n, 7, &g, &err), XC_OK);
    XC_ASSERT_BELOW(g.p, 1e-6);
    CU_ASSERT_EQUAL(xc_ks_chi2(x, 0, 2, &g, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_ks_chi2(x, n, 0, &g, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_ks_test(x, n, NULL, NULL, &g, &err), XC_EINVAL);
    x[7] = NAN;
    CU_ASSERT_EQUAL(xc_ks_chi2(x, n, 2, &g, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a number"));
    free(x);
    free(b);
    free(s6);
}

/* ---- Pearson ------------------------------------------------------------------ */

/* Against U(0,1) in 4 cells, x = 0.1 0.1 0.3 0.6 0.6 0.6 0.8 0.9 fall 2, 1, 3, 2
 * to a cell, E = 2: X^2 = (0 + 1 + 1 + 0) / 2 = 1 with 3 dof, whose tail is
 * erfc(1/sqrt 2) + sqrt(2/pi) e^-1/2 = 0.3173105 + 0.4839414 = 0.8012520.
 * The same quantiles of chi-square(2) give the same against 2 dof. */
XC_TEST(test_pearson_hand, "pearson_hand")
{
    static const double u[8] = {0.1, 0.1, 0.3, 0.6, 0.6, 0.6, 0.8, 0.9};
    double y[8];
    for (int k = 0; k < 8; k++)
        y[k] = -2 * log(1 - u[k]);
    xc_gof g;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_pearson_test(u, 8, uniform_cdf, NULL, 4, &g, &err), XC_OK);
    CU_ASSERT_EQUAL(g.n, 8);
    XC_ASSERT_NEAR(g.stat, 1.0, 1e-15);
    XC_ASSERT_NEAR(g.p, 0.8012520, 1e-7);
    CU_ASSERT_EQUAL_FATAL(xc_pearson_chi2(y, 8, 2, 4, &g, &err), XC_OK);
    XC_ASSERT_NEAR(g.stat, 1.0, 1e-15);
    XC_ASSERT_NEAR(g.p, 0.8012520, 1e-7);
}

/* Planted failures: 100 values all in the first of 10 cells give
 * X^2 = 90^2/10 + 9 x 10^2/10 = 900 (p below 1e-100); chi-square(2) draws
 * pass against 2 dof and fail scaled by 1.05, chi-square(6) draws fail
 * against 7 dof.  1 or 1001 cells, an empty sample and values without a
 * probability are refused. */
XC_TEST(test_pearson_planted, "pearson_planted")
{
    double same[100];
    for (int k = 0; k < 100; k++)
        same[k] = 0.05;
    xc_gof g;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_pearson_test(same, 100, uniform_cdf, NULL, 10, &g, &err), XC_OK);
    XC_ASSERT_NEAR(g.stat, 900.0, 1e-9);
    XC_ASSERT_BELOW(g.p, 1e-100);
    size_t n = 20000;
    double *x = chi2_draws(n, 2, 1.0, 8), *b = chi2_draws(n, 2, 1.05, 8), *s6 = chi2_draws(n, 6, 1.0, 9);
    CU_ASSERT_FATAL(x && b && s6);
    CU_ASSERT_EQUAL_FATAL(xc_pearson_chi2(x, n, 2, 10, &g, &err), XC_OK);
    XC_ASSERT_ABOVE(g.p, 1e-3);
    CU_ASSERT_EQUAL_FATAL(xc_pearson_chi2(b, n, 2, 10, &g, &err), XC_OK);
    XC_ASSERT_BELOW(g.p, 1e-6);
    CU_ASSERT_EQUAL_FATAL(xc_pearson_chi2(s6, n, 7, 10, &g, &err), XC_OK);
    XC_ASSERT_BELOW(g.p, 1e-6);
    CU_ASSERT_EQUAL(xc_pearson_chi2(x, n, 2, 1, &g, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_pearson_chi2(x, n, 2, 1001, &g, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_pearson_chi2(x, 0, 2, 10, &g, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_pearson_chi2(x, n, -1, 10, &g, &err), XC_EINVAL);
    x[3] = NAN;
    CU_ASSERT_EQUAL(xc_pearson_chi2(x, n, 2, 10, &g, &err), XC_EINVAL);
    free(x);
    free(b);
    free(s6);
}

/* ---- binomial bounds ------------------------------------------------------------ */

/* binomial(10, 1/2), alpha 0.05: P(X <= 1) = 11/1024 <= 0.025 < P(X <= 2) =
 * 56/1024, so lo = 2; P(X > 8) = 11/1024 <= 0.025 < P(X > 7), so hi = 8.
 * binomial(4, 1/2), alpha 0.25: P(X < 1) = 1/16 <= 0.125 < P(X < 2) = 5/16,
 * lo = 1; P(X > 3) = 1/16 <= 0.125 < P(X > 2), hi = 3.  At alpha 0.125 the
 * tails hit alpha/2 exactly: P(X < 1) = 1/16 <= 1/16 < P(X < 2), so lo is
 * still 1, and P(X > 3) = 1/16, hi = 3.  p = 0 and p = 1 pin the count. */
XC_TEST(test_binom_hand, "binom_hand")
{
    size_t lo, hi;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_binom_bounds(10, 0.5, 0.05, &lo, &hi, &err), XC_OK);
    CU_ASSERT(lo == 2 && hi == 8);
    CU_ASSERT_EQUAL_FATAL(xc_binom_bounds(4, 0.5, 0.25, &lo, &hi, &err), XC_OK);
    CU_ASSERT(lo == 1 && hi == 3);
    CU_ASSERT_EQUAL_FATAL(xc_binom_bounds(4, 0.5, 0.125, &lo, &hi, &err), XC_OK);
    CU_ASSERT_EQUAL(lo, 1);
    CU_ASSERT_EQUAL(hi, 3);
    CU_ASSERT_EQUAL_FATAL(xc_binom_bounds(100, 0, 0.05, &lo, &hi, &err), XC_OK);
    CU_ASSERT(lo == 0 && hi == 0);
    CU_ASSERT_EQUAL_FATAL(xc_binom_bounds(100, 1, 0.05, &lo, &hi, &err), XC_OK);
    CU_ASSERT(lo == 100 && hi == 100);
}

/* The bounds are the tightest the definition allows (for n = 40, p = 0.3,
 * alpha 0.1: P(X < lo) <= 0.05 < P(X < lo + 1), P(X > hi) <= 0.05 <
 * P(X > hi - 1)).  Planted failure: 600 successes in 1000 trials is far
 * outside the bounds of p = 1/2 at alpha 1e-3 (about 500 +- 52) while 500 is
 * inside.  p outside [0, 1] or NAN and alpha outside (0, 1) are refused. */
XC_TEST(test_binom_planted, "binom_planted")
{
    size_t lo, hi;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_binom_bounds(40, 0.3, 0.1, &lo, &hi, &err), XC_OK);
    XC_ASSERT_BELOW(gsl_cdf_binomial_P((unsigned)lo - 1, 0.3, 40), 0.05 + 1e-15);
    XC_ASSERT_ABOVE(gsl_cdf_binomial_P((unsigned)lo, 0.3, 40), 0.05);
    XC_ASSERT_BELOW(gsl_cdf_binomial_Q((unsigned)hi, 0.3, 40), 0.05 + 1e-15);
    XC_ASSERT_ABOVE(gsl_cdf_binomial_Q((unsigned)hi - 1, 0.3, 40), 0.05);
    CU_ASSERT_EQUAL_FATAL(xc_binom_bounds(1000, 0.5, 1e-3, &lo, &hi, &err), XC_OK);
    CU_ASSERT(lo <= 500 && 500 <= hi);
    CU_ASSERT(600 > hi && 400 < lo);
    XC_ASSERT_NEAR((double)hi - 500, 52, 2);
    CU_ASSERT_EQUAL(xc_binom_bounds(10, 1.5, 0.05, &lo, &hi, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_binom_bounds(10, NAN, 0.05, &lo, &hi, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_binom_bounds(10, 0.5, 0, &lo, &hi, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_binom_bounds(10, 0.5, 1, &lo, &hi, &err), XC_EINVAL);
}

XC_TEST_MAIN("stats")
