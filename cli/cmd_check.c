/* crosscheck check approximations: measures the Pulscan GPU version's
 * approximations (median of medians, the ln p polynomial, logarithmic z,
 * R-block peaks) and the search's noise statistics, with a table on stdout,
 * a JSON file and an HTML report (compare/xc_approx.h does the work). */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "compare/xc_approx.h"
#include "core/xc_progress.h"
#include "reports/xc_report.h"

/* Measurement k draws from seed + k * SEED_STRIDE (the false alarms from
 * consecutive seeds above theirs), so no two share a random stream. */
#define SEED_STRIDE 1000003ull
#define FA_NBINS 8192
#define KS_ALPHA 1e-3      /* family-wise false-alarm rate of the KS/GOF verdicts */
#define FA_ALPHA 1e-3      /* two-sided, per false-alarm count */

static void help(void)
{
    printf("usage: crosscheck check approximations [-seeds N] [-seed S] [-quick] [-json FILE] [-report DIR]\n"
           "                                       [-threads N] [-npsr N] [-zmax Z] [-numharm H]\n\n"
           "Measures, with numbers, what the Pulscan paper's GPU version gives up, and the search's\n"
           "statistics on noise (issue 4):\n"
           "  1. median of medians (blocks of 4096, as the GPU, and the CPU default block) against the\n"
           "     exact median and MAD on Gaussian noise: bias and spread of the location and of the\n"
           "     MAD-based sigma, against a semi-analytic prediction; their effect on the normalised\n"
           "     powers (mean, true value 2; fractions above 5..25 against chi-square with 2 dof; KS);\n"
           "  2. the appendix polynomial for ln p against the exact ln Q over dof 2..24020 and\n"
           "     chi2/dof 1..1000: largest absolute and relative errors and where they are below 1 %%\n"
           "     and 10 %%;\n"
           "  3. detections lost on synthetic accelerated pulsars (64 channels, 8 bits, 128 us, 33.55 s,\n"
           "     5 %% duty cycle, f 200..700 Hz, |z| uniform in 0..zmax, designed sigma 4..12) by\n"
           "     logarithmic z, R-block peaks, both, median of medians, the ln p polynomial and all of\n"
           "     them (the GPU), against every z, local maxima, exact statistics; detection = a\n"
           "     candidate with sigma > 6 within 1 %% of the mean apparent frequency (the paper's\n"
           "     criterion); once alone and once with a bright pulsar (fundamental power 2000) in the\n"
           "     same R-block;\n"
           "  4. noise-only spectra: KS and chi-square goodness of fit of harmonic-sum boxcars (stages\n"
           "     1-4, widths 1, 4, 16, 64: independent boxcars only) against chi-square with their\n"
           "     stated dof, and the candidates with sigma > 0, 1, 2, 3 (unsifted) against the\n"
           "     trials-corrected expectation with binomial bounds.\n"
           "Every number follows from -seed; the thread count never changes them.  Exit status 0 when\n"
           "every verdict passes, 1 when one fails, 2 on errors.\n\n"
           "  -seeds N      seeds per measurement [3; -quick 1]\n"
           "  -seed S       first seed [1]\n"
           "  -quick        fewer blocks, bins and pulsars (about 10 s)\n"
           "  -json FILE    write every number to FILE (JSON)\n"
           "  -report DIR   HTML report + summary.json in DIR [reports/runs/<UTC time>-approx]\n"
           "  -threads N    OpenMP threads [all cores]\n"
           "  -npsr N       synthetic pulsars per seed [30; -quick 12]\n"
           "  -zmax Z       zmax of the synthetic search, in bins drifted [200]\n"
           "  -numharm H    harmonic stages of the synthetic search [1]\n");
}

typedef struct {
    xc_report *rep;
    json_t *verdicts;
    size_t npass, nfail;
} ctx;

static json_t *jnum(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static void jset(json_t *o, const char *k, json_t *v)
{
    if (v)
        json_object_set_new(o, k, v);
}

static void fmtbuf(char *b, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fmtbuf(char *b, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, n, fmt, ap);
    va_end(ap);
}

static void kv(ctx *c, const char *k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void kv(ctx *c, const char *k, const char *fmt, ...)
{
    char v[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    printf("  %-44s %s\n", k, v);
    xc_error e;
    xc_report_add_kv(c->rep, k, v, &e);
}

static void verdict(ctx *c, const char *impl, const char *check, const char *measured, const char *bound, int pass)
{
    printf("  %s  %s: %s (%s)\n", pass ? "PASS" : "FAIL", check, measured, bound);
    xc_error e;
    xc_report_add_verdict(c->rep, impl, check, measured, bound, pass, &e);
    json_array_append_new(c->verdicts, json_pack("{s:s, s:s, s:s, s:s, s:b}", "impl", impl, "check", check,
                                                 "measured", measured, "bound", bound, "pass", pass));
    if (pass)
        c->npass++;
    else
        c->nfail++;
}

static void section(ctx *c, const char *title, const char *text)
{
    printf("\n%s\n", title);
    xc_error e;
    xc_report_add_section(c->rep, title, &e);
    if (text)
        xc_report_add_text(c->rep, text, &e);
}

static void plot(ctx *c, const char *title, const char *xl, const char *yl, const xc_series *s, size_t ns, int logx,
                 int logy)
{
    xc_lineplot p = {title, xl, yl, s, ns, logx, logy};
    xc_error e;
    xc_report_add_lines(c->rep, &p, &e);
}

static void num(ctx *c, const char *key, double v)
{
    xc_error e;
    xc_report_set_number(c->rep, key, v, &e);
}

static json_t *ms_json(const xc_meansd *m)
{
    return json_pack("{s:o, s:o, s:I}", "mean", jnum(m->mean), "sd", jnum(m->sd), "n", (json_int_t)m->n);
}

static double se_of(const xc_meansd *m) { return xc_meansd_se(m); }

/* ---- 1. median of medians -------------------------------------------------- */

static xc_status check_mom(ctx *c, json_t *root, uint64_t seed, int nseeds, int quick, int threads, xc_error *err)
{
    section(c, "1. Median of medians against the exact median (Gaussian noise)",
            "The GPU version normalises blocks of 4096 values by a median of medians of 4 (each group of 4 gives "
            "(a+b+c+d-min-max)/2, six levels) for the location and again for the MAD; the CPU uses the exact "
            "median.  Blocks of N(0,1) values (float32), so every number is in units of the true sigma.  The "
            "prediction propagates the density of a median of 4 level by level (xc_approx_mom_predict); SE is "
            "the standard error of a mean over the blocks.");
    size_t sizes[2] = {XC_APPROX_GPU_BLOCK, 0}, nblocks = quick ? 500 : 2000;
    xc_psopts d;
    xc_psopts_default(&d);
    sizes[1] = d.normwidth;
    json_t *arr = json_array(), *mom = json_object();
    jset(root, "median_of_medians", mom);
    jset(mom, "blocks", arr);
    xc_mom_blocks gpu;
    memset(&gpu, 0, sizeof gpu);
    char m[512], b[512], name[256];
    for (int k = 0; k < 2; k++) {
        xc_mom_blocks r;
        xc_status st = xc_approx_mom_blocks(sizes[k], nblocks, seed, nseeds, threads, &r, err);
        if (st)
            return st;
        if (k == 0) {
            gpu = r;
            num(c, "mom4096_scale_mean", r.mom_scale.mean);
            num(c, "mom4096_scale_predicted", r.pred_scale_mean);
            num(c, "mom4096_dloc_mean", r.dloc.mean);
            num(c, "mom4096_dloc_sd", r.dloc.sd);
            num(c, "mom4096_scale_ratio", r.scale_ratio.mean);
        }
        size_t n = r.dloc.n;
        printf(" block of %zu values, %zu blocks (%d seeds):\n", r.block, n, nseeds);
        fmtbuf(name, sizeof name, "block %zu: (mom - median) / sigma", r.block);
        kv(c, name, "mean %+.5f +- %.5f (SE), sd %.5f", r.dloc.mean, se_of(&r.dloc), r.dloc.sd);
        fmtbuf(name, sizeof name, "block %zu: location / sigma, sd", r.block);
        kv(c, name, "mom %.5f (predicted %.5f), exact median %.5f (asymptotic sqrt(pi/2n) %.5f)", r.mom_loc.sd,
           r.pred_loc_sd, r.med_loc.sd, sqrt(M_PI / (2.0 * (double)r.block)));
        fmtbuf(name, sizeof name, "block %zu: 1.4826 MAD / sigma, mom", r.block);
        kv(c, name, "mean %.5f +- %.5f, sd %.5f (predicted %.5f, sd %.5f)", r.mom_scale.mean, se_of(&r.mom_scale),
           r.mom_scale.sd, r.pred_scale_mean, r.pred_scale_sd);
        fmtbuf(name, sizeof name, "block %zu: 1.4826 MAD / sigma, exact", r.block);
        kv(c, name, "mean %.5f +- %.5f, sd %.5f (finite-n 1 - 0.8/n = %.5f)", r.med_scale.mean,
           se_of(&r.med_scale), r.med_scale.sd, 1 - 0.8 / (double)r.block);
        fmtbuf(name, sizeof name, "block %zu: mom scale / exact scale", r.block);
        kv(c, name, "mean %.5f +- %.5f, sd %.5f: powers scaled by %.4f", r.scale_ratio.mean, se_of(&r.scale_ratio),
           r.scale_ratio.sd, 1 / (r.scale_ratio.mean * r.scale_ratio.mean));
        json_array_append_new(arr, json_pack("{s:I, s:I, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o}}",
                                             "block", (json_int_t)r.block, "nblocks", (json_int_t)n, "nseeds",
                                             nseeds, "dloc", ms_json(&r.dloc), "median_loc", ms_json(&r.med_loc),
                                             "mom_loc", ms_json(&r.mom_loc), "median_scale", ms_json(&r.med_scale),
                                             "mom_scale", ms_json(&r.mom_scale), "scale_ratio",
                                             ms_json(&r.scale_ratio), "predicted", "loc_sd", jnum(r.pred_loc_sd),
                                             "scale_mean", jnum(r.pred_scale_mean), "scale_sd",
                                             jnum(r.pred_scale_sd)));
        fmtbuf(name, sizeof name, "block %zu", r.block);
        fmtbuf(m, sizeof m, "(mom - median)/sigma = %+.5f", r.dloc.mean);
        fmtbuf(b, sizeof b, "|mean| <= 4.5 SE = %.5f (symmetric noise: no bias)", 4.5 * se_of(&r.dloc));
        verdict(c, "median of medians", "location unbiased", m, b, fabs(r.dloc.mean) <= 4.5 * se_of(&r.dloc));
        double want = 1 - 0.8 / (double)r.block, tol = 4.5 * se_of(&r.med_scale);
        fmtbuf(m, sizeof m, "block %zu: 1.4826 MAD/sigma = %.5f", r.block, r.med_scale.mean);
        fmtbuf(b, sizeof b, "%.5f +- %.5f (4.5 SE)", want, tol);
        verdict(c, "exact median", "MAD is a consistent sigma", m, b, fabs(r.med_scale.mean - want) <= tol);
        if (isfinite(r.pred_scale_mean)) {
            tol = 4.5 * se_of(&r.mom_scale) + 4.0 / (double)r.block;
            fmtbuf(m, sizeof m, "block %zu: 1.4826 MAD/sigma = %.5f", r.block, r.mom_scale.mean);
            fmtbuf(b, sizeof b, "predicted %.5f +- %.5f (4.5 SE + 4/n for the neglected centre dependence)",
                   r.pred_scale_mean, tol);
            verdict(c, "median of medians", "scale bias as predicted", m, b,
                    fabs(r.mom_scale.mean - r.pred_scale_mean) <= tol);
        }
    }

    size_t nbins = quick ? (1u << 18) : (1u << 20);
    xc_mom_powers p;
    xc_status st = xc_approx_mom_powers(nbins, XC_APPROX_GPU_BLOCK, seed + SEED_STRIDE, nseeds, threads, &p, err);
    if (st)
        return st;
    printf(" normalised powers, %zu bins x %d seeds, blocks of %zu:\n", nbins, nseeds, p.normwidth);
    xc_report_add_text(c->rep, "Normalised powers of complex Gaussian noise (offset 0.5, sigma 3), blocks of 4096 "
                               "bins under both estimators; for noise they are chi-square with 2 dof, mean 2, "
                               "survival e^{-x/2}.  'predicted' takes each block's estimated scales alone: "
                               "mean over blocks of exp(-x / (a_re^2 + a_im^2)), a = true sigma / scale.",
                       err);
    double pe = xc_approx_mean_power_pred(&gpu, XC_NORM_EXACT), pm = xc_approx_mean_power_pred(&gpu, XC_NORM_MOM);
    num(c, "mean_power_exact", p.mean_exact);
    num(c, "mean_power_mom", p.mean_mom);
    num(c, "frac_above10_mom_over_chi2", (double)p.count_mom[1] / (double)p.n / p.expect[1]);
    kv(c, "mean power, exact median", "%.5f +- %.5f (block statistics predict %.5f)", p.mean_exact, p.mean_se, pe);
    kv(c, "mean power, median of medians", "%.5f +- %.5f (block statistics predict %.5f)", p.mean_mom, p.mean_se,
       pm);
    json_t *thr = json_array();
    for (int j = 0; j < XC_APPROX_NTHR; j++) {
        char k[128];
        double fe = (double)p.count_exact[j] / (double)p.n, fm = (double)p.count_mom[j] / (double)p.n;
        fmtbuf(k, sizeof k, "fraction of powers > %g (chi2: %.3g)", p.thr[j], p.expect[j]);
        kv(c, k, "exact %.4g (x %.3f, predicted x %.3f), mom %.4g (x %.3f, predicted x %.3f)", fe, fe / p.expect[j],
           p.pred_exact[j] / p.expect[j], fm, fm / p.expect[j], p.pred_mom[j] / p.expect[j]);
        json_array_append_new(thr, json_pack("{s:f, s:f, s:I, s:I, s:o, s:o}", "x", p.thr[j], "expected",
                                             p.expect[j], "count_exact", (json_int_t)p.count_exact[j], "count_mom",
                                             (json_int_t)p.count_mom[j], "predicted_exact", jnum(p.pred_exact[j]),
                                             "predicted_mom", jnum(p.pred_mom[j])));
    }
    kv(c, "KS distance from chi-square(2)", "exact %.5f (p %.3g), mom %.5f (p %.3g), n = %zu", p.ks_exact.stat,
       p.ks_exact.p, p.ks_mom.stat, p.ks_mom.p, p.n);
    json_t *pj = json_pack("{s:I, s:I, s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:o}", "nbins",
                           (json_int_t)nbins, "normwidth", (json_int_t)p.normwidth, "nseeds", nseeds, "n",
                           (json_int_t)p.n, "mean_exact", p.mean_exact, "mean_mom", p.mean_mom, "mean_se", p.mean_se,
                           "mean_pred_exact", pe, "mean_pred_mom", pm, "ks_exact", jnum(p.ks_exact.stat), "ks_p_exact",
                           jnum(p.ks_exact.p), "ks_mom", jnum(p.ks_mom.stat), "ks_p_mom", jnum(p.ks_mom.p));
    jset(pj, "thresholds", thr);
    jset(mom, "powers", pj);
    /* the prediction's own uncertainty: dE[P]/dE[s] = -4 */
    double tole = 4.5 * hypot(p.mean_se, 4 * se_of(&gpu.med_scale));
    double tolm = 4.5 * hypot(p.mean_se, 4 * se_of(&gpu.mom_scale));
    fmtbuf(m, sizeof m, "exact median: mean power %.5f", p.mean_exact);
    fmtbuf(b, sizeof b, "%.5f +- %.5f (4.5 SE of both)", pe, tole);
    verdict(c, "exact median", "mean power follows the block statistics", m, b, fabs(p.mean_exact - pe) <= tole);
    fmtbuf(m, sizeof m, "median of medians: mean power %.5f", p.mean_mom);
    fmtbuf(b, sizeof b, "%.5f +- %.5f (4.5 SE of both)", pm, tolm);
    verdict(c, "median of medians", "mean power follows the block statistics", m, b, fabs(p.mean_mom - pm) <= tolm);

    double one[XC_APPROX_NCURVE];
    for (int j = 0; j < XC_APPROX_NCURVE; j++)
        one[j] = 1.0;
    xc_series s[4] = {{"exact median", p.curve_x, p.curve_exact, XC_APPROX_NCURVE},
                      {"median of medians", p.curve_x, p.curve_mom, XC_APPROX_NCURVE},
                      {"mom, predicted from block scales", p.curve_x, p.curve_pred_mom, XC_APPROX_NCURVE},
                      {"chi-square(2)", p.curve_x, one, XC_APPROX_NCURVE}};
    plot(c, "Fraction of normalised noise powers above x, relative to chi-square(2)", "x (normalised power)",
         "fraction / e^{-x/2}", s, 4, 0, 0);
    return XC_OK;
}

/* ---- 2. the ln p polynomial ------------------------------------------------- */

static xc_status check_logp(ctx *c, json_t *root, xc_error *err)
{
    section(c, "2. The ln p polynomial of the paper's appendix against the exact ln Q",
            "ln p = chi2 f(x)/1500, f a 16th-order polynomial in x = 1500 dof/chi2, defined for dof < 1.05 chi2 "
            "(the GPU returns ln p = 0 elsewhere).  Relative error |poly - exact| / |exact| over dof 2..24020 "
            "(40 even values, log spaced) and chi2/dof 1..1000 (301 values).  'valid from' is the smallest "
            "chi2/dof from which every larger grid ratio, at every grid dof, is within the tolerance.");
    xc_logp_check *l = malloc(sizeof *l);
    if (!l)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    xc_status st = xc_approx_logp(l, err);
    if (st) {
        free(l);
        return st;
    }
    kv(c, "largest absolute error of ln p", "%.4g at chi2 %.6g, dof %g (exact ln p %.6g)", l->e1.max_abs,
       l->e1.max_abs_chi2, l->e1.max_abs_dof, xc_chi2_logq(l->e1.max_abs_chi2, l->e1.max_abs_dof));
    kv(c, "largest relative error of ln p", "%.4g at chi2 %.6g, dof %g", l->e1.max_rel, l->e1.max_rel_chi2,
       l->e1.max_rel_dof);
    kv(c, "within 1 % (whole grid)", "chi2/dof >= %.4g", l->e1.valid_ratio_min);
    kv(c, "within 10 % (whole grid)", "chi2/dof >= %.4g", l->e10.valid_ratio_min);
    kv(c, "grid points", "%zu in the domain, %zu outside", l->e1.npoints, l->e1.noutside);
    num(c, "logp_poly_max_abs", l->e1.max_abs);
    num(c, "logp_poly_max_rel", l->e1.max_rel);
    num(c, "logp_poly_valid_1pct_ratio", l->e1.valid_ratio_min);
    num(c, "logp_poly_valid_10pct_ratio", l->e10.valid_ratio_min);
    json_t *curves = json_array();
    xc_series s[XC_APPROX_NDOFCURVE];
    char labels[XC_APPROX_NDOFCURVE][32];
    for (int i = 0; i < XC_APPROX_NDOFCURVE; i++) {
        char k[128];
        fmtbuf(k, sizeof k, "dof %g: within 1 %% / 10 %%", l->dof[i]);
        kv(c, k, "chi2/dof >= %.4g / >= %.4g; at chi2/dof = 2: %.3g, 10: %.3g, 100: %.3g", l->valid1[i],
           l->valid10[i], l->relerr[i][24], l->relerr[i][80], l->relerr[i][160]);
        json_t *re = json_array();
        for (int j = 0; j < XC_APPROX_NRATIO; j++)
            json_array_append_new(re, jnum(l->relerr[i][j]));
        json_array_append_new(curves, json_pack("{s:f, s:o, s:o, s:o}", "dof", l->dof[i], "valid_1pct",
                                                jnum(l->valid1[i]), "valid_10pct", jnum(l->valid10[i]), "relerr",
                                                re));
        fmtbuf(labels[i], sizeof labels[i], "dof %g", l->dof[i]);
        s[i] = (xc_series){labels[i], l->ratio, l->relerr[i], XC_APPROX_NRATIO};
    }
    json_t *ratio = json_array();
    for (int j = 0; j < XC_APPROX_NRATIO; j++)
        json_array_append_new(ratio, json_real(l->ratio[j]));
    json_t *o = json_pack("{s:{s:f, s:f, s:i, s:f, s:f, s:i}, s:f, s:f, s:f, s:f, s:f, s:f, s:o, s:o, s:I, s:I}",
                          "grid", "dof_lo", l->grid.dof_lo, "dof_hi", l->grid.dof_hi, "ndof", l->grid.ndof,
                          "ratio_lo", l->grid.ratio_lo, "ratio_hi", l->grid.ratio_hi, "nratio", l->grid.nratio,
                          "max_abs", l->e1.max_abs, "max_abs_chi2", l->e1.max_abs_chi2, "max_abs_dof",
                          l->e1.max_abs_dof, "max_rel", l->e1.max_rel, "max_rel_chi2", l->e1.max_rel_chi2,
                          "max_rel_dof", l->e1.max_rel_dof, "valid_1pct", jnum(l->e1.valid_ratio_min),
                          "valid_10pct", jnum(l->e10.valid_ratio_min), "npoints", (json_int_t)l->e1.npoints,
                          "noutside", (json_int_t)l->e1.noutside);
    jset(o, "ratio", ratio);
    jset(o, "curves", curves);
    jset(root, "logp_poly", o);
    plot(c, "Relative error of the polynomial ln p", "chi2 / dof", "|poly - exact| / |exact|", s,
         XC_APPROX_NDOFCURVE, 1, 1);
    free(l);
    return XC_OK;
}

/* ---- 3. detections lost ------------------------------------------------------ */

static json_t *zloss_json(const xc_zloss_opts *o, const xc_zloss_result *r)
{
    json_t *modes = json_array(), *psrs = json_array(), *edges = json_array();
    for (int b = 0; b <= XC_APPROX_NZBIN; b++)
        json_array_append_new(edges, json_real(r->zedge[b]));
    for (int m = 0; m < XC_APPROX_NMODES; m++) {
        json_t *zf = json_array();
        for (int b = 0; b < XC_APPROX_NZBIN; b++)
            json_array_append_new(zf, jnum(r->zfrac[m][b]));
        json_array_append_new(
            modes, json_pack("{s:s, s:s, s:I, s:f, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "mode",
                             xc_approx_mode_key((xc_approx_mode)m), "desc", xc_approx_mode_desc((xc_approx_mode)m),
                             "detected", (json_int_t)r->ndet[m], "fraction", r->frac[m], "lost_vs_a",
                             (json_int_t)r->nlost[m], "gained_vs_a", (json_int_t)r->ngained[m], "harmonic_only",
                             (json_int_t)r->nharm[m], "sigma_loss", jnum(r->sigma_loss[m]), "sigma_loss_both",
                             jnum(r->sigma_loss_both[m]), "mean_abs_dr", jnum(r->mean_abs_dr[m]), "mean_abs_dz",
                             jnum(r->mean_abs_dz[m]), "zfrac", zf));
    }
    for (size_t k = 0; k < r->npsr; k++) {
        const xc_zloss_psr *q = &r->psr[k];
        json_t *sg = json_array(), *dt = json_array();
        for (int m = 0; m < XC_APPROX_NMODES; m++) {
            json_array_append_new(sg, json_real(q->sigma[m]));
            json_array_append_new(dt, json_boolean(q->det[m]));
        }
        json_array_append_new(psrs, json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:o, s:o}", "f_hz", q->spec.f_hz,
                                              "z_design", q->spec.z, "target_sigma", q->spec.target_sigma,
                                              "snrpeak", q->spec.snrpeak, "r_true", q->r_true, "z_true", q->z_true,
                                              "sigma", sg, "detected", dt));
    }
    json_t *zcount = json_array();
    for (int b = 0; b < XC_APPROX_NZBIN; b++)
        json_array_append_new(zcount, json_integer((json_int_t)r->zcount[b]));
    return json_pack("{s:f, s:f, s:i, s:i, s:I, s:f, s:f, s:o, s:o, s:o, s:o}", "sigma_det", o->sigma_det, "ftol",
                     o->ftol, "zmax", o->zmax, "numharm", o->numharm, "normwidth", (json_int_t)o->normwidth,
                     "bright_power", o->bright_power, "bright_f_hz", o->bright_power > 0 ? xc_zloss_bright_f(o) : 0.0,
                     "z_edges", edges, "z_count", zcount, "modes", modes, "pulsars", psrs);
}

static xc_status check_zloss(ctx *c, json_t *root, const xc_searcher *searcher, uint64_t seed, int nseeds, int npsr,
                             int zmax, int numharm, int threads, xc_error *err)
{
    section(c, "3. Detections lost on synthetic accelerated pulsars", NULL);
    xc_zloss_opts o;
    xc_zloss_opts_init(&o);
    o.zmax = zmax;
    o.numharm = numharm;
    o.threads = threads;
    size_t n = (size_t)npsr * (size_t)nseeds;
    xc_zloss_spec *specs = calloc(n, sizeof *specs);
    xc_status st = specs ? XC_OK : xc_error_set(err, XC_ENOMEM, "out of memory for %zu pulsars", n);
    for (int s = 0; s < nseeds && !st; s++)
        st = xc_zloss_draw(&o, seed + 2 * SEED_STRIDE + (uint64_t)s, (size_t)npsr, 200, 700, 4, 12,
                           specs + (size_t)s * (size_t)npsr, err);
    char text[2048];
    fmtbuf(text, sizeof text,
           "%zu pulsars (%d per seed): %d channels, %d bits, %.0f us, %.2f s (%zu bins), top hats of %.0f %% duty "
           "cycle, f uniform in 200..700 Hz, |z| uniform in 0..%d bins (constant acceleration, random sign), "
           "snrpeak set so that the expected stage-1 boxcar of width |z|+1 has sigma uniform in 4..12 with the "
           "search's trials.  Searched by the %s searcher, zmax %d, numharm %d, blocks of %zu for every mode, "
           "sifted.  Detection: a candidate with sigma > %g within %g %% of the mean apparent frequency r/T (the "
           "paper's criterion; the rest-frame f0 would move by z/2r).  Lost/gained: against mode a; sigma loss: "
           "mean sigma(a) - sigma(mode) over a's detections (sigma 0 when nothing is within the window).  The "
           "design ignores the scalloping and edge losses of a sweep, which weigh most at small |z|, so a's own "
           "fraction is lower there: compare the modes with each other.  'harmonic only' counts pulsars with a "
           "harmonic or subharmonic above the threshold; with the bright pulsar it also counts the bright "
           "pulsar's lines that fall within 1 %% of one.",
           n, npsr, o.nchans, o.nbits, o.tsamp * 1e6, o.tobs, (size_t)llround(o.tobs / o.tsamp) / 2, o.width_pct,
           zmax, searcher->name, zmax, numharm, o.normwidth, o.sigma_det, 100 * o.ftol);
    xc_error e2;
    xc_report_add_text(c->rep, text, &e2);
    json_t *arr = json_array();
    jset(root, "detections", arr);
    for (int sc = 0; sc < 2 && !st; sc++) {
        o.bright_power = sc ? 2000.0 : 0.0;
        xc_zloss_result r;
        double t0 = xc_now();
        if ((st = xc_zloss_run(&o, searcher, specs, n, &r, err)))
            break;
        char title[256];
        if (sc)
            fmtbuf(title, sizeof title, "with a bright pulsar (fundamental power %.0f, %.2f Hz, r = %.0f) in the "
                   "first R-block", o.bright_power, xc_zloss_bright_f(&o), xc_zloss_bright_f(&o) * o.tobs);
        else
            fmtbuf(title, sizeof title, "one pulsar per spectrum");
        printf(" %s (%.1f s):\n", title, xc_now() - t0);
        xc_report_add_text(c->rep, title, &e2);
        for (int m = 0; m < XC_APPROX_NMODES; m++) {
            char k[256];
            fmtbuf(k, sizeof k, "%s %s: %s", sc ? "bright" : "alone", xc_approx_mode_key((xc_approx_mode)m),
                   xc_approx_mode_desc((xc_approx_mode)m));
            kv(c, k, "detected %zu/%zu (%.0f %%), lost %zu, gained %zu, sigma loss %.2f (%.2f where both detect), "
               "|dr| %.2f, ||z|-|z_true|| %.1f, harmonic only %zu", r.ndet[m], r.npsr, 100 * r.frac[m], r.nlost[m],
               r.ngained[m], r.sigma_loss[m], r.sigma_loss_both[m], r.mean_abs_dr[m], r.mean_abs_dz[m], r.nharm[m]);
        }
        for (int m = 0; m < XC_APPROX_NMODES; m++) {
            char k[64];
            fmtbuf(k, sizeof k, "detected_%s_%s", sc ? "bright" : "alone", xc_approx_mode_key((xc_approx_mode)m));
            num(c, k, r.frac[m]);
            fmtbuf(k, sizeof k, "lost_%s_%s", sc ? "bright" : "alone", xc_approx_mode_key((xc_approx_mode)m));
            num(c, k, (double)r.nlost[m]);
        }
        json_t *zj = zloss_json(&o, &r);
        json_object_set_new(zj, "scenario", json_string(sc ? "bright" : "alone"));
        json_array_append_new(arr, zj);
        double zc[XC_APPROX_NZBIN];
        for (int b = 0; b < XC_APPROX_NZBIN; b++)
            zc[b] = 0.5 * (r.zedge[b] + r.zedge[b + 1]);
        xc_series s[XC_APPROX_NMODES];
        char labels[XC_APPROX_NMODES][64];
        for (int m = 0; m < XC_APPROX_NMODES; m++) {
            fmtbuf(labels[m], sizeof labels[m], "%s", xc_approx_mode_key((xc_approx_mode)m));
            s[m] = (xc_series){labels[m], zc, r.zfrac[m], XC_APPROX_NZBIN};
        }
        char pt[300];
        fmtbuf(pt, sizeof pt, "Detection fraction against true |z| (%s)", sc ? "bright pulsar in the block" : "alone");
        plot(c, pt, "true |z| (bins drifted; centre of a bin of width zmax/5)", "fraction detected (sigma > 6)", s,
             XC_APPROX_NMODES, 0, 0);
        xc_zloss_result_free(&r);
    }
    free(specs);
    return st;
}

/* ---- 4. statistics on noise ------------------------------------------------- */

static xc_status check_noise(ctx *c, json_t *root, const xc_searcher *searcher, uint64_t seed, int nseeds, int quick,
                             int threads, xc_error *err)
{
    section(c, "4. Statistics on noise-only spectra",
            "Boxcars of each stage h and width w, B = sum of w harmonic sums S_h, at starts where no bin is shared "
            "(xc_approx_noise_ks), against chi-square with 2 w h(h+1)/2 dof: Kolmogorov-Smirnov and Pearson's "
            "chi-square over 10 equiprobable cells.  Then unsifted searches (local maxima, zstep 1) of noise "
            "spectra: the spectra with a candidate of sigma > S, binomial(nspec, 1 - exp(-numharm Q(S))) if "
            "the ntrials = (bins - 1)(1 + zmax/6.95) trials per stage were independent (Q the Gaussian tail); "
            "two-sided bounds at 1e-3 for zmax 0 (independent bins), the upper one only for zmax > 0, where "
            "boxcars overlap and fewer spectra mean conservative sigmas; and the candidates themselves "
            "against nspec x numharm x Q(S) (clustered, so no binomial bound).");
    static const int harms[4] = {1, 2, 3, 4}, widths[4] = {1, 4, 16, 64};
    size_t nbins = quick ? (1u << 18) : (1u << 20);
    int ntests = 4 * 4 * nseeds;
    xc_noise_ks *ks = calloc((size_t)ntests, sizeof *ks);
    if (!ks)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    xc_status st = XC_OK;
    for (int s = 0; s < nseeds && !st; s++)
        st = xc_approx_noise_ks(nbins, seed + 3 * SEED_STRIDE + (uint64_t)s, harms, 4, widths, 4, threads,
                                ks + 16 * s, err);
    if (st) {
        free(ks);
        return st;
    }
    json_t *ka = json_array();
    double minp = 1;
    int worst = 0;
    printf(" boxcars against chi-square (%zu bins, %d seeds):\n", nbins, nseeds);
    for (int t = 0; t < ntests; t++) {
        const xc_noise_ks *k = &ks[t];
        char key[128];
        fmtbuf(key, sizeof key, "seed %d: h %d, w %d (dof %g), %zu boxcars", t / 16, k->numharm, k->width, k->dof,
               k->n);
        kv(c, key, "KS D %.5f (p %.3g), GOF %.1f (p %.3g)", k->ks.stat, k->ks.p, k->gof.stat, k->gof.p);
        json_array_append_new(ka, json_pack("{s:i, s:i, s:i, s:f, s:I, s:f, s:f, s:f, s:f}", "seed_index", t / 16,
                                            "numharm", k->numharm, "width", k->width, "dof", k->dof, "n",
                                            (json_int_t)k->n, "ks_d", k->ks.stat, "ks_p", k->ks.p, "gof",
                                            k->gof.stat, "gof_p", k->gof.p));
        double p = fmin(k->ks.p, k->gof.p);
        if (p < minp) {
            minp = p;
            worst = t;
        }
    }
    double bound = KS_ALPHA / (2.0 * ntests);
    char m[512], b[256];
    fmtbuf(m, sizeof m, "smallest p %.3g (seed %d, h %d, w %d)", minp, worst / 16, ks[worst].numharm,
           ks[worst].width);
    fmtbuf(b, sizeof b, "every p > %.2g (%g over %d KS + %d GOF tests, Bonferroni)", bound, KS_ALPHA, ntests, ntests);
    verdict(c, "cpu powers", "harmonic boxcars are chi-square with the stated dof", m, b, minp > bound);
    free(ks);

    static const int cfg[4][2] = {{0, 1}, {20, 1}, {200, 1}, {50, 4}};
    static const double S[4] = {0, 1, 2, 3};
    size_t nspec = (size_t)(quick ? 2000 : 4000) * (size_t)nseeds;
    json_t *fa = json_array();
    printf(" false alarms (%zu spectra of %d bins, unsifted):\n", nspec, FA_NBINS);
    double sx[4][4], sy[4][4], sc[4][4];
    xc_series ser[8];
    char labels[8][80];
    for (int k = 0; k < 4 && !st; k++) {
        xc_noise_fa r[4];
        if ((st = xc_approx_false_alarms(searcher, FA_NBINS, nspec, seed + (4 + (uint64_t)k) * SEED_STRIDE, cfg[k][0],
                                         cfg[k][1], S, 4, FA_ALPHA, threads, r, err)))
            break;
        for (int j = 0; j < 4; j++) {
            char key[128], check[128];
            double efam = (double)nspec * r[j].pfam;
            /* zmax 0: independent bins, so the count must match both ways; wider
             * boxcars overlap, for which Bonferroni is only an upper bound */
            int two = r[j].zmax == 0, pass = r[j].nfam <= r[j].hi && (!two || r[j].nfam >= r[j].lo);
            fmtbuf(key, sizeof key, "zmax %d, numharm %d: sigma > %g", r[j].zmax, r[j].numharm, r[j].S);
            kv(c, key, "%zu spectra with one or more (expected %.1f, x %.2f, bounds %zu..%zu); %zu candidates "
               "(independent trials: %.1f, x %.2f)", r[j].nfam, efam, r[j].nfam / efam, r[j].lo, r[j].hi, r[j].count,
               r[j].expect, r[j].count / r[j].expect);
            fmtbuf(m, sizeof m, "%zu of %zu spectra (expected %.1f, x %.2f%s)", r[j].nfam, nspec, efam,
                   r[j].nfam / efam, r[j].nfam < r[j].lo ? ": conservative" : "");
            if (two)
                fmtbuf(b, sizeof b, "%zu..%zu (binomial, p = 1 - exp(-%d Q(%g)), two-sided 1e-3)", r[j].lo, r[j].hi,
                       r[j].numharm, r[j].S);
            else
                fmtbuf(b, sizeof b, "<= %zu (binomial, p = 1 - exp(-%d Q(%g)), 5e-4: overlapping boxcars make "
                       "Bonferroni an upper bound)", r[j].hi, r[j].numharm, r[j].S);
            fmtbuf(check, sizeof check, "%s: noise spectra with sigma > %g, zmax %d, numharm %d",
                   two ? "false alarms as stated" : "false alarms not above stated", r[j].S, r[j].zmax, r[j].numharm);
            verdict(c, searcher->name, check, m, b, pass);
            json_array_append_new(fa, json_pack("{s:i, s:i, s:f, s:I, s:I, s:f, s:I, s:f, s:I, s:f, s:I, s:I}",
                                                "zmax", r[j].zmax, "numharm", r[j].numharm, "S", r[j].S, "nbins",
                                                (json_int_t)FA_NBINS, "nspec", (json_int_t)r[j].nspec, "ntrials",
                                                r[j].ntrials, "candidates", (json_int_t)r[j].count,
                                                "candidates_independent", r[j].expect, "spectra_above",
                                                (json_int_t)r[j].nfam, "p_family", r[j].pfam, "lo",
                                                (json_int_t)r[j].lo, "hi", (json_int_t)r[j].hi));
            sx[k][j] = r[j].S;
            sy[k][j] = r[j].nfam / efam;
            sc[k][j] = r[j].count / r[j].expect;
        }
        fmtbuf(labels[k], sizeof labels[k], "spectra, zmax %d, numharm %d", cfg[k][0], cfg[k][1]);
        ser[k] = (xc_series){labels[k], sx[k], sy[k], 4};
        fmtbuf(labels[4 + k], sizeof labels[4 + k], "candidates, zmax %d, numharm %d", cfg[k][0], cfg[k][1]);
        ser[4 + k] = (xc_series){labels[4 + k], sx[k], sc[k], 4};
    }
    json_t *nj = json_object();
    jset(nj, "ks", ka);
    jset(nj, "false_alarms", fa);
    jset(root, "noise", nj);
    if (!st)
        plot(c, "Noise spectra (and candidates) with sigma > S, relative to what independent trials give",
             "S (sigma)", "measured / expected", ser, 8, 0, 1);
    return st;
}

/* ---- the command ------------------------------------------------------------- */

static int approximations(int argc, char **argv)
{
    enum { O_SEEDS = 1, O_SEED, O_QUICK, O_JSON, O_REPORT, O_THREADS, O_NPSR, O_ZMAX, O_NUMHARM, O_HELP };
    static const struct option opts[] = {
        {"seeds", required_argument, 0, O_SEEDS},     {"seed", required_argument, 0, O_SEED},
        {"quick", no_argument, 0, O_QUICK},           {"json", required_argument, 0, O_JSON},
        {"report", required_argument, 0, O_REPORT},   {"threads", required_argument, 0, O_THREADS},
        {"npsr", required_argument, 0, O_NPSR},       {"zmax", required_argument, 0, O_ZMAX},
        {"numharm", required_argument, 0, O_NUMHARM}, {"h", no_argument, 0, O_HELP},
        {"help", no_argument, 0, O_HELP},             {0, 0, 0, 0}};
    const char *cmd = "check approximations", *json = NULL, *report = NULL;
    int nseeds = 0, quick = 0, threads = 0, npsr = 0, zmax = 200, numharm = 1, ch;
    unsigned long long seed = 1;
    xc_error err;
    xc_error_clear(&err);
    while ((ch = getopt_long_only(argc, argv, "", opts, NULL)) != -1) {
        xc_status st = XC_OK;
        switch (ch) {
        case O_SEEDS: st = xc_cli_int("-seeds", optarg, 1, 1000, &nseeds, &err); break;
        case O_SEED: st = xc_cli_u64("-seed", optarg, &seed, &err); break;
        case O_QUICK: quick = 1; break;
        case O_JSON: json = optarg; break;
        case O_REPORT: report = optarg; break;
        case O_THREADS: st = xc_cli_int("-threads", optarg, 1, 4096, &threads, &err); break;
        case O_NPSR: st = xc_cli_int("-npsr", optarg, 1, 100000, &npsr, &err); break;
        case O_ZMAX: st = xc_cli_int("-zmax", optarg, 1, 4000, &zmax, &err); break;
        case O_NUMHARM: st = xc_cli_int("-numharm", optarg, 1, 8, &numharm, &err); break;
        case O_HELP: help(); return 0;
        default: return xc_cli_badopt(cmd, argc, argv);
        }
        if (st)
            return xc_cli_fail(cmd, &err);
    }
    if (optind < argc)
        return xc_cli_failf(cmd, "unexpected argument '%s'", argv[optind]);
    if (!nseeds)
        nseeds = quick ? 1 : 3;
    if (!npsr)
        npsr = quick ? 12 : 30;
    /* the one place an implementation is chosen, by name */
    const xc_searcher *cpu = xc_searcher_get("cpu");
    if (!cpu)
        return xc_cli_failf(cmd, "no \"cpu\" searcher registered");
    char dir[4096];
    if (report) {
        fmtbuf(dir, sizeof dir, "%s", report);
    } else {
        if (xc_report_run_dir(dir, sizeof dir - 8, "reports/runs", time(NULL), &err))
            return xc_cli_fail(cmd, &err);
        strcat(dir, "-approx");
    }
    ctx c;
    memset(&c, 0, sizeof c);
    c.verdicts = json_array();
    json_t *root = json_object();
    if (xc_report_new(&c.rep, "crosscheck check approximations", &err))
        return xc_cli_fail(cmd, &err);
    jset(root, "command_line", json_string(xc_cli_cmdline()));
    jset(root, "seed", json_integer((json_int_t)seed));
    jset(root, "seeds", json_integer(nseeds));
    jset(root, "quick", json_boolean(quick));
    char line[4400];
    fmtbuf(line, sizeof line, "Command: %s.  Seeds %llu.. (%d per measurement)%s.", xc_cli_cmdline(), seed, nseeds,
           quick ? ", quick" : "");
    xc_report_add_text(c.rep, line, &err);
    printf("crosscheck check approximations: seed %llu, %d seeds%s\n", seed, nseeds, quick ? ", quick" : "");
    double t0 = xc_now();
    xc_status st = check_mom(&c, root, seed, nseeds, quick, threads, &err);
    if (!st)
        st = check_logp(&c, root, &err);
    if (!st)
        st = check_zloss(&c, root, cpu, seed, nseeds, npsr, zmax, numharm, threads, &err);
    if (!st)
        st = check_noise(&c, root, cpu, seed, nseeds, quick, threads, &err);
    if (st) {
        json_decref(root);
        json_decref(c.verdicts);
        xc_report_free(c.rep);
        return xc_cli_fail(cmd, &err);
    }
    jset(root, "verdicts", c.verdicts);
    xc_report_set_number(c.rep, "verdicts_failed", (double)c.nfail, &err);
    xc_report_set_json(c.rep, "results", json_incref(root), &err);
    if (json && (st = xc_cli_write_json(json, root, JSON_INDENT(1) | JSON_REAL_PRECISION(10), &err))) {
        json_decref(root);
        xc_report_free(c.rep);
        return xc_cli_fail(cmd, &err);
    }
    st = xc_report_write(c.rep, dir, &err);
    json_decref(root);
    xc_report_free(c.rep);
    if (st)
        return xc_cli_fail(cmd, &err);
    printf("\n%zu verdicts passed, %zu failed (%.1f s); report %s/index.html%s%s\n", c.npass, c.nfail,
           xc_now() - t0, dir, json ? ", JSON " : "", json ? json : "");
    return c.nfail ? 1 : 0;
}

int xc_cmd_check(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-help")) {
        printf("usage: crosscheck check approximations [options]   (crosscheck check approximations -h)\n\n"
               "  approximations   measure the Pulscan GPU version's approximations and the search's noise\n"
               "                   statistics (median of medians, ln p polynomial, logarithmic z, R-block)\n");
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "approximations"))
        return xc_cli_failf("check", "unknown check '%s' (there is: approximations)", argv[1]);
    return approximations(argc - 1, argv + 1);
}
