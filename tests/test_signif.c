/* test_signif.c: chi-square tails and Gaussian sigmas in log space, checked
 * against closed forms, GSL where it is representable, 50-digit values
 * (mpmath 1.3, gammainc / erfc at mp.dps = 50) where it is not, and the sigmas
 * PRESTO and Pulscan printed for the research note's test file. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_erf.h>

#include "core/search/stats/xc_signif.h"
#include "tests/xc_test.h"

static double rel(double a, double b)
{
    if (a == b)
        return 0;
    return fabs(a - b) / fmax(fabs(b), DBL_MIN);
}

/* dof 2: Q = e^{-x/2} exactly. */
XC_TEST(test_dof2, "dof2_exact")
{
    const double xs[] = {1e-9, 1e-3, 0.5, 1.9, 2, 2.1, 10, 100, 1e3, 1e5, 1e8, 1e300};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        CU_ASSERT(rel(xc_chi2_logq(xs[i], 2), -0.5 * xs[i]) <= 1e-14);
}

/* dof 4: Q = (1 + x/2) e^{-x/2}. */
XC_TEST(test_dof4, "dof4_exact")
{
    /* From 0.1 up: below that the reference itself, log1p(x/2) - x/2, cancels. */
    const double xs[] = {0.1, 1, 3.9, 4, 4.1, 10, 77.7, 1e3, 1e6};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double x = xs[i];
        CU_ASSERT(rel(xc_chi2_logq(x, 4), log1p(0.5 * x) - 0.5 * x) <= 1e-13);
    }
}

/* GSL across a grid where its Q is representable: ln Q relative for Q < 0.5
 * (where ln Q is not small), Q relative above.  Near the median at large dof
 * GSL's own error reaches 2.6e-12 in Q (chi2 5520.696, dof 5626, where ours
 * matches the 50-digit value to 6e-16: see extreme_tails), so that region
 * gets 1e-11. */
XC_TEST(test_vs_gsl, "vs_gsl_grid")
{
    gsl_set_error_handler_off();   /* test code: GSL may underflow on this grid */
    double worst_ln = 0, worst_q = 0;
    int n = 0;
    for (int dof = 1; dof <= 6000; dof = dof < 40 ? dof + 1 : (int)(dof * 1.15)) {
        for (double r = 0.01; r < 60; r *= 1.05) {
            double chi2 = r * dof;
            double q = gsl_cdf_chisq_Q(chi2, dof);
            if (!(q > 1e-300) || !(q < 1))
                continue;
            double l = xc_chi2_logq(chi2, dof);
            if (q < 0.5)
                worst_ln = fmax(worst_ln, rel(l, log(q)));
            else
                worst_q = fmax(worst_q, rel(exp(l), q));
            n++;
        }
    }
    printf("\n  %d points: max rel error ln Q %.3g (Q < 0.5), Q %.3g (Q >= 0.5)\n", n, worst_ln, worst_q);
    CU_ASSERT(n > 5000);
    CU_ASSERT(worst_ln < 1e-12);
    CU_ASSERT(worst_q < 1e-11);
}

/* Far beyond double range (GSL underflows to 0 there) and at the edges of the
 * odd-dof GSL branch (|ln Q| near 650): 50-digit references. */
XC_TEST(test_extreme_tails, "extreme_tails")
{
    static const struct {
        double chi2, dof, lnq;
    } ref[] = {
        {1e5, 2000, -45096.241735199988126},
        {6000, 2000, -906.4545069900744686},
        {6000, 2001, -905.90482618851015249},
        {1e6, 4, -499986.87763462259767},
        {1296, 3, -644.64150170032787708},
        {1310, 3, -651.63613765792255214},
        {1350, 101, -498.96494200691479349},
        {101, 3, -48.408473121173787771},
        {1e-8, 3, -2.6596151946977259368e-13},
        {2990, 3000, -0.60146259388225208269},
        {50, 100, -6.9533294219550933353e-6},
        {900, 1001, -0.010140862491857667827},
        {1048.0505, 186, -274.95630386238246074},
        {5520.6960922450471, 5626, -0.17486487604377222161},
    };
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        double l = xc_chi2_logq(ref[i].chi2, ref[i].dof);
        if (rel(l, ref[i].lnq) > 1e-13)
            printf("\n  chi2 %g dof %g: %.17g vs %.17g\n", ref[i].chi2, ref[i].dof, l, ref[i].lnq);
        CU_ASSERT(isfinite(l));
        CU_ASSERT(rel(l, ref[i].lnq) <= 1e-13);
    }
    CU_ASSERT(xc_chi2_logq(INFINITY, 2) == -INFINITY);
    CU_ASSERT(xc_chi2_logq(0, 10) == 0);
    CU_ASSERT(xc_chi2_logq(-1, 10) == 0);
    CU_ASSERT(isnan(xc_chi2_logq(10, 0)));
    CU_ASSERT(isnan(xc_chi2_logq(10, 2.5)));
    CU_ASSERT(isnan(xc_chi2_logq(NAN, 2)));
    CU_ASSERT(isnan(xc_chi2_logq(10, 2e9)));
    /* 1e8 dof at the mean: ln Q -> ln 1/2 + (2/3)/sqrt(2 pi dof)/... ~ -0.6931 */
    XC_ASSERT_CLOSE(xc_chi2_logq(1e8, 1e8), -M_LN2, 1e-4);
}

/* Non-increasing in chi2 for each dof, across the branch switch at chi2 = dof. */
XC_TEST(test_monotonic, "monotonic_chi2")
{
    const double dofs[] = {1, 2, 3, 26, 186, 2000, 2001, 24020};
    for (size_t i = 0; i < sizeof dofs / sizeof dofs[0]; i++) {
        double d = dofs[i], prev = 0;
        int bad = 0;
        for (double c = 1e-3 * d; c < 40 * d; c *= 1.0 + 1e-3) {
            double l = xc_chi2_logq(c, d);
            if (!(l <= prev))
                bad++;
            prev = l;
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
    /* Either side of the switch between the P and Q series (chi2 = dof),
     * against 50-digit values at chi2 = dof (1 -+ 1e-6). */
    static const struct {
        double dof, lo, hi;
    } sw[] = {
        {1, -1.1478737018815895867, -1.1478752270168657478},
        {2, -0.999999, -1.000001},
        {3, -0.93744889852742918296, -0.93745126068909516897},
        {26, -0.76979892868524940308, -0.76980510101491857583},
        {186, -0.72110729190763396527, -0.72112310324974442583},
        {2000, -0.70156779374438812133, -0.70161868016947072186},
        {2001, -0.70156566775490901945, -0.70161656679423790804},
        {24020, -0.6954893571299502635, -0.69566466192982655437},
    };
    for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++) {
        CU_ASSERT(rel(xc_chi2_logq(sw[i].dof * 0.999999, sw[i].dof), sw[i].lo) < 1e-12);
        CU_ASSERT(rel(xc_chi2_logq(sw[i].dof * 1.000001, sw[i].dof), sw[i].hi) < 1e-12);
    }
}

static double log_qgauss(double s) { return gsl_sf_log_erfc(s * M_SQRT1_2) - M_LN2; }

/* ln Q_gauss(s) for large s from the asymptotic series of erfc, independent
 * of GSL: -s^2/2 - ln(s sqrt(2 pi)) + ln(1 - 1/s^2 + 3/s^4 - 15/s^6 + 105/s^8). */
static double log_qgauss_asym(double s)
{
    double u = 1 / (s * s);
    return -0.5 * s * s - log(s * sqrt(2 * M_PI)) + log1p(u * (-1 + u * (3 + u * (-15 + u * 105))));
}

XC_TEST(test_sigma_vs_gsl, "sigma_vs_gsl")
{
    double worst = 0;
    for (double L = -0.7; L > -700; L *= 1.05) {
        double s = xc_sigma_from_logp(L), g = gsl_cdf_ugaussian_Qinv(exp(L));
        worst = fmax(worst, fabs(s - g) / fmax(1, g));
    }
    printf("\n  max |sigma - gsl Qinv| / max(1, sigma) for ln p in [-700, -0.7]: %.3g\n", worst);
    CU_ASSERT(worst < 1e-12);
}

XC_TEST(test_sigma_far, "sigma_far_tail")
{
    /* 50-digit roots of ln(erfc(s/sqrt 2)/2) = L. */
    static const struct {
        double L, s;
    } ref[] = {
        {-171.341, 18.3036606983565}, {-171, 18.2850762838421}, {-600, 34.5119954997335},
        {-1e3, 44.6157477319694},     {-1e4, 141.379839873127}, {-1e5, 447.197893678525},
        {-1e6, 1414.20778299102},
    };
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        double s = xc_sigma_from_logp(ref[i].L);
        CU_ASSERT(rel(s, ref[i].s) < 1e-13);
        /* independent of GSL: the asymptotic series, whose truncation error
         * 945/s^10 is below 1e-13 absolute from s = 30 on */
        CU_ASSERT(s <= 30 || rel(log_qgauss_asym(s), ref[i].L) < 1e-13);
        /* PRESTO/Pulscan's A&S 26.2.23 below ln p = -600 is within its stated 4.5e-4 */
        double t = sqrt(-2 * ref[i].L);
        double as = t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                            (1 + t * (1.432788 + t * (0.189269 + t * 0.001308)));
        CU_ASSERT(fabs(as - s) < 4.5e-4);
    }
    printf("\n  sigma(-171.341) = %.10f, sigma(-1e4) = %.10f, sigma(-1e6) = %.10f\n",
           xc_sigma_from_logp(-171.341), xc_sigma_from_logp(-1e4), xc_sigma_from_logp(-1e6));
}

/* ln Q_gauss(sigma(l)) == l within 1e-10 relative from -0.7 to -1e5, and sigma
 * never decreases as l falls. */
XC_TEST(test_sigma_roundtrip, "sigma_roundtrip")
{
    double worst = 0, prev = 0;
    int bad = 0;
    for (double L = -0.7; L >= -1e5; L *= 1.01) {
        double s = xc_sigma_from_logp(L);
        worst = fmax(worst, rel(log_qgauss(s), L));
        if (!(s >= prev))
            bad++;
        prev = s;
    }
    printf("\n  round trip max rel error %.3g\n", worst);
    CU_ASSERT(worst <= 1e-10);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(xc_sigma_from_logp(0) == 0);
    CU_ASSERT(xc_sigma_from_logp(-M_LN2) == 0);
    CU_ASSERT(xc_sigma_from_logp(-M_LN2 - 1e-9) > 0);
    CU_ASSERT(xc_sigma_from_logp(-INFINITY) == INFINITY);
    CU_ASSERT(isnan(xc_sigma_from_logp(NAN)));
    /* the closed form beyond ln p = -1e15 joins the Newton inversion */
    double Lj = -0.999999999e15;
    CU_ASSERT(rel(xc_sigma_from_logp(Lj), sqrt(-2 * Lj - log(-4 * M_PI * Lj))) < 1e-14);
    CU_ASSERT(isfinite(xc_sigma_from_logp(-1e300)));
}

/* The sigmas the tools printed for the research note's test file (section 6.3):
 * PRESTO power 383.66 and 235.00 (mean-1 units, numharm 1, 60945347 trials)
 * printed 26.89 and 20.65; Pulscan power 1048.0505 (chi2 units) over 93 bins,
 * trials 200 * 1048575 / 6.95, printed 22.525464. */
XC_TEST(test_candidate_sigma, "candidate_sigma")
{
    double l1;
    double s = xc_candidate_sigma(2 * 383.66, 2, 60945347, &l1);
    XC_ASSERT_CLOSE(l1, -383.66, 1e-12);
    XC_ASSERT_CLOSE(s, 26.89, 0.005);
    XC_ASSERT_CLOSE(xc_candidate_sigma(2 * 235.00, 2, 60945347, NULL), 20.65, 0.005);
    s = xc_candidate_sigma(1048.0505, 2 * 93, 200.0 * 1048575 / 6.95, &l1);
    XC_ASSERT_CLOSE(s, 22.525464, 2e-6);
    CU_ASSERT(rel(l1, -274.95630386238246074) < 1e-13);
    /* the Bonferroni step and the clamp at ln p = 0 */
    CU_ASSERT(rel(xc_candidate_sigma(60, 2, 1, NULL), xc_sigma_from_logp(-30)) < 1e-15);
    CU_ASSERT(xc_candidate_sigma(2, 2, 1e6, NULL) == 0);
    CU_ASSERT(isnan(xc_candidate_sigma(60, 2, 0.5, NULL)));
    CU_ASSERT(isnan(xc_candidate_sigma(60, 0, 10, NULL)));
}

/* The paper's polynomial, transcribed, evaluated against a 50-digit sum of the
 * same printed coefficients; its domain; and the GPU's zero below the cut.
 * The sum is ill-conditioned near the cut: at x = 1400 its terms reach 2.5e8
 * and cancel to -59.5, so double evaluation carries ~1e-9 relative noise. */
XC_TEST(test_poly_values, "poly_values")
{
    static const struct {
        double x, f;
    } ref[] = {{1, -752.31064027297839455}, {100, -570.54743716907700533},
               {500, -229.76286356430053711}, {1400, -59.48805343290585147}};
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        double chi2 = 3000, dof = ref[i].x * chi2 / 1500;
        CU_ASSERT(rel(xc_logp_poly(chi2, dof), chi2 * ref[i].f / 1500) < 1e-8);
        CU_ASSERT(rel(xc_logp_poly_gpu(chi2, dof), chi2 * ref[i].f / 1500) < 1e-8);
    }
    /* chi2 1.5e6, dof 1: x = 1e-3, f = -755.24091 + 2.9515954e-3 - 2.1494231e-8 + 1.7e-13 */
    CU_ASSERT(rel(xc_logp_poly(1.5e6, 1), 1e3 * (-755.24091 + 2.9515954e-3 - 2.1494231e-8)) < 1e-12);
    CU_ASSERT(isnan(xc_logp_poly(100, 105)));     /* dof >= 1.05 chi2 */
    CU_ASSERT(!isnan(xc_logp_poly(100, 104.9)));
    CU_ASSERT(isnan(xc_logp_poly(0, 2)));
    CU_ASSERT(isnan(xc_logp_poly(10, 0)));
    CU_ASSERT(xc_logp_poly_gpu(100, 105) == 0);
    CU_ASSERT(isnan(xc_logp_poly_gpu(-1, 2)));
}

/* The measurement for `check approximations`: the numbers the report quotes
 * (grid dof 2..24020, chi2/dof 1..1000) and the error at the grid's corners,
 * recomputed directly. */
XC_TEST(test_poly_error, "poly_error")
{
    xc_logp_poly_grid g = {2, 24020, 60, 1.0, 1000, 400, 0.01};
    xc_logp_poly_err r;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_logp_poly_error(&g, &r, &err), XC_OK);
    printf("\n  poly: %zu points; max abs error %.4g (chi2 %.6g, dof %g); max rel %.4g (chi2 %.6g, dof "
           "%g); within 1%% from chi2/dof >= %.4g\n",
           r.npoints, r.max_abs, r.max_abs_chi2, r.max_abs_dof, r.max_rel, r.max_rel_chi2,
           r.max_rel_dof, r.valid_ratio_min);
    CU_ASSERT_EQUAL(r.npoints, 60 * 400);
    CU_ASSERT_EQUAL(r.noutside, 0);
    /* the worst relative error is at the cut (chi2/dof = 1, ln p ~ -0.7, poly ~ -1600) */
    double e = xc_chi2_logq(24020, 24020), p = xc_logp_poly(24020, 24020);
    CU_ASSERT(rel(r.max_rel, fabs(p - e) / fabs(e)) < 1e-12);
    CU_ASSERT(r.max_rel > 100);
    /* the largest absolute error at the largest power: there the polynomial's
     * slope -755.24091/1500 = -0.50349 misses the exact -1/2 by 0.7 % */
    CU_ASSERT(r.max_abs_chi2 == 24020.0 * 1000);
    double ea = xc_chi2_logq(2.402e7, 24020), pa = xc_logp_poly(2.402e7, 24020);
    CU_ASSERT(rel(r.max_abs, fabs(pa - ea)) < 1e-9);
    CU_ASSERT(fabs(pa - ea) / fabs(ea) > 0.005 && fabs(pa - ea) / fabs(ea) < 0.012);
    CU_ASSERT(r.valid_ratio_min > 100 && r.valid_ratio_min < 1000);

    g.nratio = 0;
    CU_ASSERT_EQUAL(xc_logp_poly_error(&g, &r, &err), XC_EINVAL);
}

XC_TEST_MAIN("signif")
