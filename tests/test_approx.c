/* The approximation measurements (approx/xc_approx.h): the estimators on
 * hand-worked arrays, the median of medians' bias on Gaussian noise against
 * its semi-analytic prediction, the ln p polynomial's error at known grid
 * points, the in-memory observation against the synthesizer's files and the
 * reference dedisperser, detection counting on a tiny synthetic set, the
 * noise statistics, and the verdicts on planted failures.  The statistics
 * themselves are tested in test_stats.c. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "approx/xc_approx.h"
#include "optimized/cpu/xc_cpu.h"
#include "reference/xc_reference.h"
#include "approx/xc_approx_table.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/io/xc_fft.h"
#include "core/io/xc_filterbank.h"
#include "core/io/xc_presto.h"
#include "core/search/stats/xc_signif.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- estimators on hand-worked arrays ----------------------------------- */

/* 16 values: the median of medians takes groups {t, t+4, t+8, t+12}:
 *   {1, 5, 2, 9} -> (2+5)/2 = 3.5    {0, 4, -3, 8} -> (0+4)/2 = 2
 *   {7, 6, 10, -1} -> (6+7)/2 = 6.5  {3, -2, 11, 4} -> (3+4)/2 = 3.5
 * then {3.5, 2, 6.5, 3.5} -> (3.5+3.5)/2 = 3.5.  |x - 3.5| in the same
 * groups: {2.5, 1.5, 1.5, 5.5} -> 2, {3.5, 0.5, 6.5, 4.5} -> 4,
 * {3.5, 2.5, 6.5, 4.5} -> 4, {0.5, 5.5, 7.5, 0.5} -> 3; then {2, 4, 4, 3} -> 3.5.
 * Exact: sorted -3 -2 -1 0 1 2 3 4 4 5 6 7 8 9 10 11, median 4; |x - 4| sorted
 * 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7, MAD 3.5. */
XC_TEST(test_hand_estimators, "hand_estimators")
{
    static const double x[16] = {1, 0, 7, 3, 5, 4, 6, -2, 2, -3, 10, 11, 9, 8, -1, 4};
    double w[16], loc, scale;
    xc_approx_block_stats(x, 16, XC_NORM_MOM, w, &loc, &scale);
    CU_ASSERT_EQUAL(loc, 3.5);
    XC_ASSERT_NEAR(scale, 3.5 * XC_MAD_TO_SIGMA, 1e-15);
    xc_approx_block_stats(x, 16, XC_NORM_EXACT, w, &loc, &scale);
    CU_ASSERT_EQUAL(loc, 4.0);
    XC_ASSERT_NEAR(scale, 3.5 * XC_MAD_TO_SIGMA, 1e-15);
    memcpy(w, x, sizeof x);
    CU_ASSERT_EQUAL(xc_median_of_medians(w, 16), 3.5);
    /* 7 values: s = 1, one group {5, 1, 4, 2} -> 3 and the exact median of the
     * 3 left over {9, 7, 8} -> 8; then 2 values -> their mean 5.5 (exact: 5) */
    static const double y[7] = {5, 1, 4, 2, 9, 7, 8};
    xc_approx_block_stats(y, 7, XC_NORM_MOM, w, &loc, &scale);
    CU_ASSERT_EQUAL(loc, 5.5);
    xc_approx_block_stats(y, 7, XC_NORM_EXACT, w, &loc, &scale);
    CU_ASSERT_EQUAL(loc, 5.0);
    /* |y - 5| = 0 4 1 3 4 2 3: median 3 */
    XC_ASSERT_NEAR(scale, 3.0 * XC_MAD_TO_SIGMA, 1e-15);
}

/* ---- the median of medians on Gaussian noise --------------------------- */

static double se(const xc_meansd *m) { return xc_meansd_se(m); }
/* Standard error of a sample sd (Gaussian approximation). */
static double se_sd(const xc_meansd *m) { return m->sd / sqrt(2.0 * (double)(m->n - 1)); }

/* Blocks of 4 values: the median of medians is the exact median (the mean of
 * the middle two), and the density propagation's one level must give the
 * spread that 200000 blocks show. */
XC_TEST(test_mom_one_level, "mom_one_level")
{
    xc_mom_blocks b;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_approx_mom_blocks(4, 200000, 7, 1, 2, &b, &err), XC_OK);
    CU_ASSERT_EQUAL(b.dloc.mean, 0.0);
    CU_ASSERT_EQUAL(b.dloc.sd, 0.0);
    CU_ASSERT_EQUAL(b.mom_loc.sd, b.med_loc.sd);
    CU_ASSERT(isfinite(b.pred_loc_sd));
    XC_ASSERT_NEAR(b.mom_loc.sd, b.pred_loc_sd, 4.5 * se_sd(&b.mom_loc));
    /* the median of 4 normals is less efficient than their mean (variance 1/4) */
    CU_ASSERT(b.pred_loc_sd * b.pred_loc_sd > 0.25 && b.pred_loc_sd * b.pred_loc_sd < 0.32);
}

/* Blocks of 4096 (the GPU's): measured, over 3 seeds x 2000 blocks, mom
 * scale 1.0433 +- 0.0003 against the prediction 1.04377, location unbiased,
 * exact MAD 0.9998.  Asserted: the location bias within 4.5 SE of 0 (noise is
 * symmetric), the mom scale within 4.5 SE + 4/n of the semi-analytic
 * prediction (4/n for the centre dependence it neglects) and more than 10 SE
 * from 1 (a real bias, not noise), the exact MAD within 4.5 SE of the
 * finite-n 1 - 0.8/n, the spreads within 4.5 standard errors of the
 * predictions; and the same numbers at 1 and 2 threads. */
XC_TEST(test_mom_bias_4096, "mom_bias_4096")
{
    xc_mom_blocks b, b1;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_approx_mom_blocks(4096, 600, 11, 1, 2, &b, &err), XC_OK);
    CU_ASSERT_EQUAL(b.dloc.n, 600);
    XC_ASSERT_NEAR(b.dloc.mean, 0.0, 4.5 * se(&b.dloc));
    CU_ASSERT(isfinite(b.pred_scale_mean));
    XC_ASSERT_NEAR(b.mom_scale.mean, b.pred_scale_mean, 4.5 * se(&b.mom_scale) + 4.0 / 4096);
    CU_ASSERT(b.mom_scale.mean - 1 > 10 * se(&b.mom_scale));
    XC_ASSERT_NEAR(b.med_scale.mean, 1 - 0.8 / 4096, 4.5 * se(&b.med_scale));
    XC_ASSERT_NEAR(b.mom_loc.sd, b.pred_loc_sd, 4.5 * se_sd(&b.mom_loc));
    XC_ASSERT_NEAR(b.mom_scale.sd, b.pred_scale_sd, 4.5 * se_sd(&b.mom_scale));
    /* the exact median's spread, sqrt(pi / 2n) asymptotically */
    XC_ASSERT_NEAR(b.med_loc.sd, sqrt(M_PI / 8192), 4.5 * se_sd(&b.med_loc));
    printf("\n  mom 4096: dloc %+.5f, scale %.5f +- %.5f (predicted %.5f), exact scale %.5f\n", b.dloc.mean,
           b.mom_scale.mean, se(&b.mom_scale), b.pred_scale_mean, b.med_scale.mean);
    CU_ASSERT_EQUAL_FATAL(xc_approx_mom_blocks(4096, 600, 11, 1, 1, &b1, &err), XC_OK);
    CU_ASSERT(memcmp(&b, &b1, sizeof b) == 0);
    /* not a power of 4: no prediction */
    CU_ASSERT_EQUAL_FATAL(xc_approx_mom_blocks(100, 10, 1, 1, 1, &b, &err), XC_OK);
    CU_ASSERT(isnan(b.pred_scale_mean));
    CU_ASSERT_EQUAL(xc_approx_mom_blocks(3, 10, 1, 1, 1, &b, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "block 3"));
}

/* The mean normalised power follows from the block statistics: 0.92 x 2
 * under the median of medians (its 4.3 % high scale), 2 under the exact
 * median, within 4.5 SE of the powers and of the prediction. */
XC_TEST(test_mom_powers, "mom_powers")
{
    xc_mom_blocks b;
    xc_mom_powers p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_approx_mom_blocks(4096, 600, 21, 1, 2, &b, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_approx_mom_powers(&xc_ps_cpu, 1u << 18, 4096, 22, 1, 2, &p, &err), XC_OK);
    CU_ASSERT_EQUAL(p.n, (1u << 18) - 1);
    double pe = xc_approx_mean_power_pred(&b, XC_NORM_EXACT), pm = xc_approx_mean_power_pred(&b, XC_NORM_MOM);
    XC_ASSERT_NEAR(p.mean_exact, pe, 4.5 * hypot(p.mean_se, 4 * se(&b.med_scale)));
    XC_ASSERT_NEAR(p.mean_mom, pm, 4.5 * hypot(p.mean_se, 4 * se(&b.mom_scale)));
    XC_ASSERT_NEAR(p.mean_exact, 2.0, 4.5 * hypot(p.mean_se, 4 * se(&b.med_scale)) + 0.01);
    /* tails: the median of medians' deficit is what its scales predict */
    for (int j = 0; j < 2; j++) {
        double n = (double)p.n, fm = p.count_mom[j] / n, sdm = sqrt(p.pred_mom[j] * (1 - p.pred_mom[j]) / n);
        XC_ASSERT_NEAR(fm, p.pred_mom[j], 4.5 * sdm + 0.02 * p.pred_mom[j]);
        CU_ASSERT(fm < 0.85 * p.expect[j]);
    }
    XC_ASSERT_BELOW(p.ks_mom.p, 1e-10);
    XC_ASSERT_ABOVE(p.ks_exact.p, 1e-4);
    CU_ASSERT_EQUAL(xc_approx_mom_powers(&xc_ps_cpu, 100, 4096, 1, 1, 1, &p, &err), XC_EINVAL);
}

/* ---- the ln p polynomial ----------------------------------------------- */

static double rel_direct(double chi2, double dof)
{
    double e = xc_chi2_logq(chi2, dof);
    return fabs(xc_logp_poly(chi2, dof) - e) / fabs(e);
}

/* ln Q(2; 2 dof) = -1 exactly, so a one-point grid there must report
 * |poly(2, 2) + 1| as both errors.  On the whole grid the polynomial is worst
 * where it is furthest from its fit: relative error at chi2/dof = 1 and the
 * largest dof (24020), absolute at chi2/dof = 1000 and the largest dof;
 * both maxima equal the direct evaluation there and no curve point exceeds
 * them. */
XC_TEST(test_logp_poly, "logp_poly")
{
    xc_logp_poly_grid g = {2, 2, 1, 1.0, 1.0, 1, 0.01};
    xc_logp_poly_err e;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_logp_poly_error(&g, &e, &err), XC_OK);
    double d = fabs(xc_logp_poly(2, 2) + 1);
    CU_ASSERT_EQUAL(e.npoints, 1);
    XC_ASSERT_NEAR(e.max_abs, d, 1e-12);
    XC_ASSERT_NEAR(e.max_rel, d, 1e-12);
    CU_ASSERT_EQUAL(e.max_abs_chi2, 2.0);
    CU_ASSERT_EQUAL(e.max_rel_dof, 2.0);

    xc_logp_check *l = malloc(sizeof *l);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_EQUAL_FATAL(xc_approx_logp(l, &err), XC_OK);
    CU_ASSERT_EQUAL(l->e1.npoints, 40 * 301);
    CU_ASSERT_EQUAL(l->e1.noutside, 0);
    CU_ASSERT_EQUAL(l->e1.max_rel_dof, 24020.0);
    XC_ASSERT_NEAR(l->e1.max_rel_chi2, 24020.0, 1e-6);
    XC_ASSERT_NEAR(l->e1.max_rel, rel_direct(l->e1.max_rel_chi2, l->e1.max_rel_dof), 1e-12 * l->e1.max_rel);
    CU_ASSERT_EQUAL(l->e1.max_abs_dof, 24020.0);
    XC_ASSERT_NEAR(l->e1.max_abs_chi2, 24020.0 * 1000, 1e-3);
    double ad = fabs(xc_logp_poly(l->e1.max_abs_chi2, 24020) - xc_chi2_logq(l->e1.max_abs_chi2, 24020));
    XC_ASSERT_NEAR(l->e1.max_abs, ad, 1e-9 * ad);
    /* the curves: direct values, bounded by the grid maxima, at dof 2 the (2, 2) point above */
    XC_ASSERT_NEAR(l->relerr[0][0], d, 1e-12);
    for (int i = 0; i < XC_APPROX_NDOFCURVE; i++)
        for (int j = 0; j < XC_APPROX_NRATIO; j += 30) {
            XC_ASSERT_NEAR(l->relerr[i][j], rel_direct(l->dof[i] * l->ratio[j], l->dof[i]),
                            1e-12 * l->relerr[i][j]);
            CU_ASSERT(l->relerr[i][j] <= l->e1.max_rel * (1 + 1e-12));
        }
    /* the 10 % region starts no later than the 1 % region */
    CU_ASSERT(l->e10.valid_ratio_min <= l->e1.valid_ratio_min);
    for (int i = 0; i < XC_APPROX_NDOFCURVE; i++)
        CU_ASSERT(l->valid10[i] <= l->valid1[i]);
    /* the 1 % region is where every curve point from it on is within 1 % */
    for (int i = 0; i < XC_APPROX_NDOFCURVE; i++)
        for (int j = 0; j < XC_APPROX_NRATIO; j++)
            if (l->ratio[j] >= l->valid1[i])
                CU_ASSERT(l->relerr[i][j] <= 0.01);
    free(l);
}

/* ---- the in-memory observation ------------------------------------------- */

/* A small observation of the detection measurement's kind: 16 channels,
 * 2^14 samples of 128 us, a 300 Hz pulsar at DM 0 drifting 20 bins. */
static void small_obs(xc_synth_params *p, int nbits, int noise)
{
    xc_fx_synth_obs(p, 16, nbits, 128e-6, 16384 * 128e-6, 1500.0, -4.0);
    p->seed = 42;
    p->noise = noise;
    p->nthreads = 1;
    p->psr.accn = -20.0 * XC_SYNTH_C / (300.0 * p->tobs * p->tobs);
    xc_fx_synth_psr(p, 1e3 / 300.0, 0, 5.0, noise ? 3.0 : 30.0);
}

static int collect(void *ctx, const uint8_t *b, size_t n)
{
    uint8_t **at = ctx;
    memcpy(*at, b, n);
    *at += n;
    return 0;
}

/* The DM-0 series is what the reference dedisperser gives for the filterbank
 * xc_synth_stream makes (8-bit integer sums: bit for bit). */
XC_TEST(test_synth_dm0_dedisperses, "synth_dm0_dedisperses")
{
    xc_synth_params p;
    small_obs(&p, 8, 1);
    xc_error err;
    float *x = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(xc_approx_synth_dm0(&p, &x, &n, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(n, 16384);
    uint8_t *fb = malloc(16384 * 16), *at = fb;
    uint16_t *lev = malloc(16384 * 16 * sizeof *lev);
    CU_ASSERT_FATAL(fb && lev);
    CU_ASSERT_EQUAL_FATAL(xc_synth_stream(&p, collect, &at, &err), XC_OK);
    xc_fb_unpack_u16(fb, 16384 * 16, 8, p.bitorder, lev);
    xc_block in = {16, 16384, 8, lev, NULL};
    xc_geometry g = {16, p.fch1, xc_synth_foff(&p), p.tsamp};
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    xc_ddjob job;
    xc_plane pl;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&plan, "0:1:1:1", "test", &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_ddjob_init(&job, &in, &plan, p.convention, &g, NULL, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(&pl, &job, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_dedisperse_reference(&job, &pl, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(pl.r[0].nsamp, n);
    CU_ASSERT(memcmp(pl.r[0].data, x, n * sizeof *x) == 0);
    xc_plane_free(&pl);
    xc_ddjob_free(&job);
    xc_dmplan_free(&plan);
    free(fb);
    free(lev);
    free(x);
    /* dispersion would need delays: refused */
    p.psr.dm = 10;
    CU_ASSERT_EQUAL(xc_approx_synth_dm0(&p, &x, &n, &err), XC_EINVAL);
    CU_ASSERT_PTR_NULL(x);
    xc_synth_params_free(&p);
}

/* Noiseless float32 data: the series equals the synthesizer's dedispersed fast
 * path (xc_synth_write_dedispersed, which writes the same series to files)
 * to float rounding, its truth equals the truth file, and its spectrum equals
 * `crosscheck fft` of that file. */
XC_TEST(test_synth_matches_files, "synth_matches_files")
{
    xc_synth_params p;
    small_obs(&p, 32, 0);
    xc_error err;
    char stem[600], dat[620], truth[620], fft[620];
    snprintf(stem, sizeof stem, "%s/obs", xc_test_tmpdir());
    snprintf(dat, sizeof dat, "%s.dat", stem);
    snprintf(truth, sizeof truth, "%s.truth.json", stem);
    snprintf(fft, sizeof fft, "%s-spec.fft", stem);
    float *x = NULL, *y = NULL;
    size_t n = 0, ny = 0;
    CU_ASSERT_EQUAL_FATAL(xc_approx_synth_dm0(&p, &x, &n, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_synth_write_dedispersed(&p, stem, NULL, NULL, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(dat, &y, &ny, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(ny, n);
    double peak = 0, diff = 0;
    for (size_t k = 0; k < n; k++) {
        peak = fmax(peak, fabs(y[k]));
        diff = fmax(diff, fabs(x[k] - y[k]));
    }
    XC_ASSERT_ABOVE(peak, 10.0);
    XC_ASSERT_NEAR(diff, 0.0, 1e-5 * peak);
    xc_truth a, b;
    CU_ASSERT_EQUAL_FATAL(xc_approx_synth_truth(&p, &a, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_truth_read(&b, truth, 0, &err), XC_OK);
    XC_ASSERT_NEAR(a.r, b.r, 0);
    XC_ASSERT_NEAR(a.z, b.z, 0);
    XC_ASSERT_NEAR(a.f0_hz, b.f0_hz, 0);
    XC_ASSERT_NEAR(a.T, b.T, 1e-12 * b.T);
    /* the design drift: a = -z c / (f T^2), whose Doppler shift over this short
     * observation (a T / c = 3 %) makes the phase model's z 3 % larger */
    XC_ASSERT_NEAR(a.z, 20.0, 1.0);
    xc_spectrum s1, s2;
    snprintf(stem, sizeof stem, "%s/obs-spec", xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(xc_approx_spectrum(y, n, p.tsamp, &s1, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fft_file(dat, stem, XC_FFT_SINGLE, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_spectrum_load(&s2, fft, &err), XC_OK);
    CU_ASSERT_EQUAL(s1.nbins, s2.nbins);
    XC_ASSERT_NEAR(s1.T, s2.T, 1e-12 * s2.T);
    CU_ASSERT(memcmp(s1.data, s2.data, 2 * s1.nbins * sizeof(float)) == 0);
    xc_spectrum_free(&s1);
    xc_spectrum_free(&s2);
    CU_ASSERT_EQUAL(xc_approx_spectrum(y, n - 1, p.tsamp, &s1, &err), XC_EINVAL);
    free(x);
    free(y);
    p.psr.period_ms = 0;
    CU_ASSERT_EQUAL(xc_approx_synth_truth(&p, &a, &err), XC_EINVAL);
    xc_synth_params_free(&p);
}

/* ---- verdicts --------------------------------------------------------------- */

/* Planted failures: a median of medians whose location is biased by 10 SE,
 * an exact MAD 10 SE off 1 - 0.8/n and a scale 10 SE off its prediction all
 * fail; a mean power off its prediction fails; a boxcar p-value below the
 * Bonferroni bound fails; false alarms outside their bounds fail (both ways
 * for zmax 0, only above for zmax > 0). */
XC_TEST(test_verdicts_planted, "verdicts_planted")
{
    xc_mom_blocks b;
    memset(&b, 0, sizeof b);
    b.block = 4096;
    xc_meansd unit = {0, 0.01, 10000};   /* SE 1e-4 */
    b.dloc = b.med_loc = b.mom_loc = b.med_scale = b.mom_scale = b.scale_ratio = unit;
    b.med_scale.mean = 1 - 0.8 / 4096;
    b.mom_scale.mean = b.pred_scale_mean = 1.0433;
    xc_verdict v[3];
    CU_ASSERT_EQUAL_FATAL(xc_mom_blocks_verdicts(&b, v), 3);
    CU_ASSERT(v[0].pass && v[1].pass && v[2].pass);
    b.dloc.mean = 10e-4;
    b.med_scale.mean += 10e-4;
    b.mom_scale.mean += 10e-4 + 4.0 / 4096;
    CU_ASSERT_EQUAL_FATAL(xc_mom_blocks_verdicts(&b, v), 3);
    CU_ASSERT(!v[0].pass && !v[1].pass && !v[2].pass);
    CU_ASSERT_PTR_NOT_NULL(strstr(v[0].measured, "+0.00100"));
    b.pred_scale_mean = NAN;
    CU_ASSERT_EQUAL(xc_mom_blocks_verdicts(&b, v), 2);

    b.med_scale.mean = 1.0;
    b.mom_scale.mean = 1.0;
    xc_mom_powers p;
    memset(&p, 0, sizeof p);
    p.mean_se = 1e-3;
    p.mean_exact = p.mean_mom = xc_approx_mean_power_pred(&b, XC_NORM_EXACT);
    xc_mom_powers_verdicts(&p, &b, v);
    CU_ASSERT(v[0].pass && v[1].pass);
    p.mean_mom += 0.01;   /* 10 SE */
    xc_mom_powers_verdicts(&p, &b, v);
    CU_ASSERT(v[0].pass && !v[1].pass);

    xc_noise_ks ks[2];
    memset(ks, 0, sizeof ks);
    ks[0].ks.p = ks[0].gof.p = ks[1].ks.p = 0.5;
    ks[1].gof.p = 1e-4;   /* the bound: 1e-3 / (2 x 2 tests) = 2.5e-4 */
    xc_noise_ks_verdict(ks, 2, 2, 1e-3, v);
    CU_ASSERT_FALSE(v[0].pass);
    ks[1].gof.p = 3e-4;
    xc_noise_ks_verdict(ks, 2, 2, 1e-3, v);
    CU_ASSERT_TRUE(v[0].pass);

    xc_noise_fa f = {.zmax = 0, .numharm = 1, .S = 2, .nspec = 1000, .nfam = 10, .pfam = 0.01, .alpha = 1e-3,
                     .lo = 3, .hi = 20};
    /* with zmax 20 (overlapping boxcars) fewer is conservative, more still fails */
    static const struct {
        int zmax, nfam, pass;
        const char *bound;
    } fa[] = {{0, 10, 1, "two-sided 1e-3"}, {0, 2, 0, NULL}, {20, 2, 1, "5e-4"}, {20, 21, 0, NULL}};
    for (size_t k = 0; k < XC_NCASES(fa); k++) {
        f.zmax = fa[k].zmax;
        f.nfam = fa[k].nfam;
        xc_noise_fa_verdict(&f, "cpu", v);
        CU_ASSERT_EQUAL(!!v[0].pass, fa[k].pass);
        if (fa[k].bound)
            CU_ASSERT_PTR_NOT_NULL(strstr(v[0].bound, fa[k].bound));
    }
}

/* ---- detection counting -------------------------------------------------- */

/* Three pulsars designed at sigma 25 (z = 0, 80, 160) and one far below
 * any detection (the snrpeak of a sigma-4 design / 20): every
 * mode finds the bright ones (their sigma is far above 6 even after the
 * median of medians' 8 % power loss and the coarsest z grid) and none the
 * faint one; logarithmic z never does better than every z (its widths are a
 * subset, the trials the same).  With a bright pulsar (power 20000) in the
 * same R-block, the R-block modes lose all three, the others none. */
XC_TEST(test_detection_counting, "detection_counting")
{
    xc_zloss_opts o;
    xc_zloss_opts_init(&o);
    o.threads = 2;
    const xc_searcher *cpu = &xc_ps_cpu;
    CU_ASSERT_PTR_NOT_NULL_FATAL(cpu);
    static const double f[4] = {250, 400, 550, 320}, z[4] = {0, 80, -160, 40}, tgt[4] = {25, 25, 25, 4};
    xc_zloss_spec sp[4];
    for (int k = 0; k < 4; k++) {
        sp[k].f_hz = f[k];
        sp[k].z = z[k];
        sp[k].target_sigma = tgt[k];
        sp[k].snrpeak = xc_zloss_snrpeak(&o, z[k], tgt[k]);
        sp[k].seed = 100 + (uint64_t)k;
        CU_ASSERT(sp[k].snrpeak > 0);
    }
    /* the design snrpeak grows with the target sigma; the fourth pulsar is
     * made 20 times fainter still (fundamental power about 1 in a 2-dof bin) */
    CU_ASSERT(sp[3].snrpeak < sp[0].snrpeak);
    sp[3].snrpeak /= 20;
    xc_zloss_result r;
    xc_error err;
    xc_status st = xc_zloss_run(&o, cpu, sp, 4, &r, &err);
    if (st)
        printf("\n%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    CU_ASSERT_EQUAL(r.npsr, 4);
    for (int m = 0; m < XC_APPROX_NMODES; m++) {
        CU_ASSERT_EQUAL(r.ndet[m], 3);
        CU_ASSERT_EQUAL(r.nlost[m], 0);
        CU_ASSERT_EQUAL(r.ngained[m], 0);
        CU_ASSERT_EQUAL(r.psr[3].det[m], 0);
        if (r.ndet[m] != 3)
            printf("\nmode %s: %zu detected\n", xc_approx_mode_key((xc_approx_mode)m), r.ndet[m]);
    }
    for (int k = 0; k < 3; k++) {
        const xc_zloss_psr *q = &r.psr[k];
        XC_ASSERT_NEAR(q->z_true, z[k], 0.05 * fabs(z[k]) + 1);
        /* the period is fake's apparent period at mid-observation: r = f T to 1e-4 */
        XC_ASSERT_NEAR(q->r_true, f[k] * o.tobs, 1e-4 * f[k] * o.tobs);
        CU_ASSERT(q->sigma[XC_APPROX_EXACT] > 15);
        CU_ASSERT(q->sigma[XC_APPROX_ZLOG] <= q->sigma[XC_APPROX_EXACT] + 1e-9);
        CU_ASSERT(q->sigma[XC_APPROX_MOM] < q->sigma[XC_APPROX_EXACT]);
        /* the exact search puts a bright pulsar at its r and z; a boxcar's edges
         * sit on the sweep's weakest bins, so noise moves a wide one by a few
         * (measured: 2.9 bins at z = 80 for a sigma-25 pulsar) */
        XC_ASSERT_NEAR(q->r[XC_APPROX_EXACT], q->r_true, 2 + 0.05 * fabs(q->z_true));
        XC_ASSERT_NEAR(q->z[XC_APPROX_EXACT], fabs(q->z_true), 3 + 0.1 * fabs(q->z_true));
        printf("\n  f %.0f z %+.0f: r %.1f (true %.2f), z %.0f (true %.2f), sigma a %.2f b %.2f e %.2f f %.2f",
               f[k], z[k], q->r[0], q->r_true, q->z[0], q->z_true, q->sigma[0], q->sigma[1], q->sigma[4],
               q->sigma[5]);
    }
    printf("\n");
    CU_ASSERT_EQUAL(r.zcount[0] + r.zcount[1] + r.zcount[2] + r.zcount[3] + r.zcount[4], 4);
    XC_ASSERT_NEAR(r.frac[XC_APPROX_EXACT], 0.75, 1e-12);
    xc_zloss_result_free(&r);

    o.bright_power = 20000;
    CU_ASSERT_EQUAL_FATAL(xc_zloss_run(&o, cpu, sp, 4, &r, &err), XC_OK);
    CU_ASSERT_EQUAL(r.ndet[XC_APPROX_EXACT], 3);
    CU_ASSERT_EQUAL(r.ndet[XC_APPROX_ZLOG], 3);
    CU_ASSERT_EQUAL(r.ndet[XC_APPROX_RBLOCK], 0);
    CU_ASSERT_EQUAL(r.ndet[XC_APPROX_ZLOG_RBLOCK], 0);
    CU_ASSERT_EQUAL(r.ndet[XC_APPROX_GPU], 0);
    CU_ASSERT_EQUAL(r.nlost[XC_APPROX_RBLOCK], 3);
    xc_zloss_result_free(&r);

    /* an odd sample count cannot be transformed */
    o.tobs = 1001 * o.tsamp;
    CU_ASSERT_EQUAL(xc_zloss_run(&o, cpu, sp, 4, &r, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "1001 samples"));
    /* the library never picks a searcher itself */
    CU_ASSERT_EQUAL(xc_zloss_run(&o, NULL, sp, 4, &r, &err), XC_EINVAL);
}

/* ---- noise statistics ------------------------------------------------------ */

/* Independent boxcars: stage 1 takes every start from 1, stage 2 the starts
 * from ceil(L/2) (L = 32768: 2048 boxcars of 8); their distributions pass KS
 * and GOF against the stated dof (p > 1e-4 each, 8 tests). */
XC_TEST(test_noise_ks, "noise_ks")
{
    static const int h[2] = {1, 2}, w[2] = {1, 8};
    xc_noise_ks k[4];
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_approx_noise_ks(&xc_ps_cpu, 1u << 16, 3, h, 2, w, 2, 2, k, &err), XC_OK);
    CU_ASSERT_EQUAL(k[0].n, 65535);
    CU_ASSERT_EQUAL(k[1].n, 65535 / 8);
    CU_ASSERT_EQUAL(k[2].n, 16384);
    CU_ASSERT_EQUAL(k[3].n, 2048);
    CU_ASSERT_EQUAL(k[0].dof, 2.0);
    CU_ASSERT_EQUAL(k[3].dof, 48.0);
    for (int t = 0; t < 4; t++) {
        XC_ASSERT_ABOVE(k[t].ks.p, 1e-4);
        XC_ASSERT_ABOVE(k[t].gof.p, 1e-4);
        CU_ASSERT_EQUAL(k[t].ks.n, k[t].n);
    }
    static const int wide[1] = {256};
    CU_ASSERT_EQUAL(xc_approx_noise_ks(&xc_ps_cpu, 1u << 16, 3, h + 1, 1, wide, 1, 1, k, &err), XC_EINVAL);
}

/* zmax 0: every bin one independent trial, so the spectra with a candidate of
 * sigma > S are binomial(n, 1 - exp(-Q(S))); the counts are the same at any
 * thread count. */
XC_TEST(test_false_alarms, "false_alarms")
{
    static const double S[2] = {0, 1};
    xc_noise_fa a[2], b[2];
    xc_error err;
    const xc_searcher *cpu = &xc_ps_cpu;
    CU_ASSERT_PTR_NOT_NULL_FATAL(cpu);
    CU_ASSERT_EQUAL_FATAL(xc_approx_false_alarms(cpu, 4096, 400, 77, 0, 1, S, 2, 1e-3, 2, a, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_approx_false_alarms(cpu, 4096, 400, 77, 0, 1, S, 2, 1e-3, 1, b, &err), XC_OK);
    for (int k = 0; k < 2; k++) {
        XC_ASSERT_NEAR(a[k].pfam, -expm1(-0.5 * erfc(S[k] / sqrt(2.0))), 1e-12);
        CU_ASSERT(a[k].nfam >= a[k].lo && a[k].nfam <= a[k].hi);
        CU_ASSERT(a[k].count >= a[k].nfam);
        CU_ASSERT_EQUAL(a[k].count, b[k].count);
        CU_ASSERT_EQUAL(a[k].nfam, b[k].nfam);
    }
    CU_ASSERT(a[1].nfam <= a[0].nfam);
    CU_ASSERT_EQUAL(xc_approx_false_alarms(cpu, 4096, 0, 77, 0, 1, S, 2, 1e-3, 1, a, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_approx_false_alarms(NULL, 4096, 400, 77, 0, 1, S, 2, 1e-3, 1, a, &err), XC_EINVAL);
}

/* ---- the command line ------------------------------------------------------- */



XC_TEST_IF(test_cli, "cli", xc_fx_skip_no_bin)
{
    CU_ASSERT_EQUAL(xc_fx_run_cli("check approximations -h"), 0);
    CU_ASSERT_EQUAL(xc_fx_run_cli("check -h"), 0);
    CU_ASSERT_EQUAL(xc_fx_run_cli("check approximations -seeds 0"), 2);
    CU_ASSERT_EQUAL(xc_fx_run_cli("check approximations -bogus"), 2);
    CU_ASSERT_EQUAL(xc_fx_run_cli("check nothing"), 2);
}

XC_TEST_MAIN("approx")
