/* crosscheck check approximations: measures the Pulscan GPU version's
 * approximations (median of medians, the ln p polynomial, logarithmic z,
 * R-block peaks) and the search's noise statistics, with a table on stdout,
 * a JSON file and an HTML report.  approx/xc_approx.h measures,
 * approx/xc_approx_table.h turns the results into rows and verdicts (on
 * compare/xc_stats.h's tests) and approx/xc_approx_json.h into JSON; this
 * file parses the options, calls them, prints and fills the report (section
 * 5, the accel search, in cmd_check_accel.c). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "core/base/xc_fmt.h"
#include "approx/xc_approx.h"
#include "approx/xc_approx_json.h"
#include "approx/xc_approx_table.h"
#include "compare/check/xc_checks.h"
#include "compare/check/xc_junit.h"
#include "cli/base/plugin/cli_plugin.h"
#include "core/base/xc_progress.h"
#include "reports/xc_report.h"
#include "cli/check/check.h"


/* ---- 1. median of medians -------------------------------------------------- */

static void mom_block_report(ctx *c, const xc_mom_blocks *r)
{
    printf(" block of %zu values, %zu blocks (%d seeds):\n", r->block, r->dloc.n, r->nseeds);
    xc_row t[5];
    ck_rows(c, t, xc_mom_blocks_rows(r, t));
    xc_verdict v[3];
    ck_verdicts(c, v, xc_mom_blocks_verdicts(r, v));
}

static void mom_powers_report(ctx *c, const xc_mom_powers *p, const xc_mom_blocks *gpu, json_t *mom)
{
    printf(" normalised powers, %zu bins x %d seeds, blocks of %zu:\n", p->nbins, p->nseeds, p->normwidth);
    xc_vd_text(&c->vd, "Normalised powers of complex Gaussian noise (offset 0.5, sigma 3), blocks of 4096 bins under both "
            "estimators; for noise they are chi-square with 2 dof, mean 2, survival e^{-x/2}.  'predicted' takes "
            "each block's estimated scales alone: mean over blocks of exp(-x / (a_re^2 + a_im^2)), a = true sigma "
            "/ scale.");
    xc_vd_number(&c->vd, "mean_power_exact", p->mean_exact);
    xc_vd_number(&c->vd, "mean_power_mom", p->mean_mom);
    xc_vd_number(&c->vd, "frac_above10_mom_over_chi2", (double)p->count_mom[1] / (double)p->n / p->expect[1]);
    xc_row t[3 + XC_APPROX_NTHR];
    ck_rows(c, t, xc_mom_powers_rows(p, gpu, t));
    ck_jset(mom, "powers", xc_mom_powers_json(p, xc_approx_mean_power_pred(gpu, XC_NORM_EXACT),
                                           xc_approx_mean_power_pred(gpu, XC_NORM_MOM)));
    xc_verdict v[2];
    xc_mom_powers_verdicts(p, gpu, v);
    ck_verdicts(c, v, 2);
    double one[XC_APPROX_NCURVE];
    for (int j = 0; j < XC_APPROX_NCURVE; j++)
        one[j] = 1.0;
    xc_series s[4] = {{"exact median", p->curve_x, p->curve_exact, XC_APPROX_NCURVE},
                      {"median of medians", p->curve_x, p->curve_mom, XC_APPROX_NCURVE},
                      {"mom, predicted from block scales", p->curve_x, p->curve_pred_mom, XC_APPROX_NCURVE},
                      {"chi-square(2)", p->curve_x, one, XC_APPROX_NCURVE}};
    ck_plot(c, "Fraction of normalised noise powers above x, relative to chi-square(2)", "x (normalised power)",
         "fraction / e^{-x/2}", s, 4, 0, 0);
}

static xc_status check_mom(ctx *c, xc_error *err)
{
    ck_section(c, "1. Median of medians against the exact median (Gaussian noise)",
            "The GPU version normalises blocks of 4096 values by a median of medians of 4 (each group of 4 gives "
            "(a+b+c+d-min-max)/2, six levels) for the location and again for the MAD; the CPU uses the exact "
            "median.  Blocks of N(0,1) values (float32), so every number is in units of the true sigma.  The "
            "prediction propagates the density of a median of 4 level by level (xc_approx_mom_predict); SE is "
            "the standard error of a mean over the blocks.");
    xc_psopts d;
    xc_psopts_default(&d);
    size_t sizes[2] = {XC_APPROX_GPU_BLOCK, d.normwidth}, nblocks = c->quick ? 500 : 2000;
    json_t *arr = json_array(), *mom = ck_jpart(c->root, "median_of_medians");
    ck_jset(mom, "blocks", arr);
    xc_mom_blocks gpu;
    for (int k = 0; k < 2; k++) {
        xc_mom_blocks r;
        xc_status st = xc_approx_mom_blocks(sizes[k], nblocks, c->seed, c->nseeds, c->threads, &r, err);
        if (st)
            return st;
        if (k == 0) {
            gpu = r;
            xc_vd_number(&c->vd, "mom4096_scale_mean", r.mom_scale.mean);
            xc_vd_number(&c->vd, "mom4096_scale_predicted", r.pred_scale_mean);
            xc_vd_number(&c->vd, "mom4096_dloc_mean", r.dloc.mean);
            xc_vd_number(&c->vd, "mom4096_dloc_sd", r.dloc.sd);
            xc_vd_number(&c->vd, "mom4096_scale_ratio", r.scale_ratio.mean);
        }
        json_array_append_new(arr, xc_mom_blocks_json(&r));
        mom_block_report(c, &r);
    }
    size_t nbins = c->quick ? (1u << 18) : (1u << 20);
    xc_mom_powers p;
    xc_status st = xc_approx_mom_powers(c->searcher, nbins, XC_APPROX_GPU_BLOCK, c->seed + SEED_STRIDE, c->nseeds, c->threads,
                                        &p, err);
    if (!st)
        mom_powers_report(c, &p, &gpu, mom);
    return st;
}

/* ---- 2. the ln p polynomial ------------------------------------------------- */

static xc_status check_logp(ctx *c, xc_error *err)
{
    ck_section(c, "2. The ln p polynomial of the paper's appendix against the exact ln Q",
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
    xc_row t[5 + XC_APPROX_NDOFCURVE];
    ck_rows(c, t, xc_logp_rows(l, t));
    xc_vd_number(&c->vd, "logp_poly_max_abs", l->e1.max_abs);
    xc_vd_number(&c->vd, "logp_poly_max_rel", l->e1.max_rel);
    xc_vd_number(&c->vd, "logp_poly_valid_1pct_ratio", l->e1.valid_ratio_min);
    xc_vd_number(&c->vd, "logp_poly_valid_10pct_ratio", l->e10.valid_ratio_min);
    xc_series s[XC_APPROX_NDOFCURVE];
    char labels[XC_APPROX_NDOFCURVE][32];
    for (int i = 0; i < XC_APPROX_NDOFCURVE; i++) {
        xc_fmt(labels[i], sizeof labels[i], "dof %g", l->dof[i]);
        s[i] = (xc_series){labels[i], l->ratio, l->relerr[i], XC_APPROX_NRATIO};
    }
    ck_jset(c->root, "logp_poly", xc_logp_check_json(l));
    ck_plot(c, "Relative error of the polynomial ln p", "chi2 / dof", "|poly - exact| / |exact|", s,
         XC_APPROX_NDOFCURVE, 1, 1);
    free(l);
    return XC_OK;
}

/* ---- 3. detections lost ------------------------------------------------------ */

static void zloss_report(ctx *c, const xc_zloss_opts *o, const xc_zloss_result *r, int bright, double secs)
{
    const char *sc = bright ? "bright" : "alone";
    char title[256];
    if (bright)
        xc_fmt(title, sizeof title, "with a bright pulsar (fundamental power %.0f, %.2f Hz, r = %.0f) in the "
               "first R-block", o->bright_power, xc_zloss_bright_f(o), xc_zloss_bright_f(o) * o->tobs);
    else
        xc_fmt(title, sizeof title, "one pulsar per spectrum");
    printf(" %s (%.1f s):\n", title, secs);
    xc_vd_text(&c->vd, title);
    xc_row t[XC_APPROX_NMODES];
    xc_zloss_rows(r, sc, t);
    ck_rows(c, t, XC_APPROX_NMODES);
    for (int m = 0; m < XC_APPROX_NMODES; m++) {
        char k[64];
        xc_fmt(k, sizeof k, "detected_%s_%s", sc, xc_approx_mode_key((xc_approx_mode)m));
        xc_vd_number(&c->vd, k, r->frac[m]);
        xc_fmt(k, sizeof k, "lost_%s_%s", sc, xc_approx_mode_key((xc_approx_mode)m));
        xc_vd_number(&c->vd, k, (double)r->nlost[m]);
    }
    double zc[XC_APPROX_NZBIN];
    for (int b = 0; b < XC_APPROX_NZBIN; b++)
        zc[b] = 0.5 * (r->zedge[b] + r->zedge[b + 1]);
    xc_series s[XC_APPROX_NMODES];
    for (int m = 0; m < XC_APPROX_NMODES; m++)
        s[m] = (xc_series){xc_approx_mode_key((xc_approx_mode)m), zc, r->zfrac[m], XC_APPROX_NZBIN};
    xc_fmt(title, sizeof title, "Detection fraction against true |z| (%s)", bright ? "bright pulsar in the block"
                                                                                    : "alone");
    ck_plot(c, title, "true |z| (bins drifted; centre of a bin of width zmax/5)", "fraction detected (sigma > 6)", s,
         XC_APPROX_NMODES, 0, 0);
}

static xc_status check_zloss(ctx *c, xc_error *err)
{
    ck_section(c, "3. Detections lost on synthetic accelerated pulsars", NULL);
    xc_zloss_opts o;
    xc_zloss_opts_init(&o);
    o.zmax = c->zmax;
    o.numharm = c->numharm;
    o.threads = c->threads;
    static const double f[2] = {200, 700}, sig[2] = {4, 12};   /* Hz, and the design sigma of mode a */
    size_t n = (size_t)c->npsr * (size_t)c->nseeds;
    xc_zloss_spec *specs = calloc(n, sizeof *specs);
    xc_status st = specs ? XC_OK : xc_error_set(err, XC_ENOMEM, "out of memory for %zu pulsars", n);
    for (int s = 0; s < c->nseeds && !st; s++)
        st = xc_zloss_draw(&o, c->seed + 2 * SEED_STRIDE + (uint64_t)s, (size_t)c->npsr, f[0], f[1], sig[0], sig[1],
                           specs + (size_t)s * (size_t)c->npsr, err);
    char t[2048];
    xc_zloss_describe(&o, n, c->npsr, f[0], f[1], sig[0], sig[1], c->searcher->impl.name, t, sizeof t);
    xc_vd_text(&c->vd, t);
    json_t *arr = json_array();
    ck_jset(c->root, "detections", arr);
    for (int sc = 0; sc < 2 && !st; sc++) {
        o.bright_power = sc ? 2000.0 : 0.0;
        xc_zloss_result r;
        double t0 = xc_now();
        if ((st = xc_zloss_run(&o, c->searcher, specs, n, &r, err)))
            break;
        zloss_report(c, &o, &r, sc, xc_now() - t0);
        json_t *zj = xc_zloss_json(&o, &r);
        json_object_set_new(zj, "scenario", json_string(sc ? "bright" : "alone"));
        json_array_append_new(arr, zj);
        xc_zloss_result_free(&r);
    }
    free(specs);
    return st;
}

/* ---- 4. statistics on noise ------------------------------------------------- */

static xc_status noise_ks(ctx *c, json_t *nj, xc_error *err)
{
    static const int harms[4] = {1, 2, 3, 4}, widths[4] = {1, 4, 16, 64};
    size_t nbins = c->quick ? (1u << 18) : (1u << 20);
    int ntests = 4 * 4 * c->nseeds;
    xc_noise_ks *ks = calloc((size_t)ntests, sizeof *ks);
    if (!ks)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    xc_status st = XC_OK;
    for (int s = 0; s < c->nseeds && !st; s++)
        st = xc_approx_noise_ks(c->searcher, nbins, c->seed + 3 * SEED_STRIDE + (uint64_t)s, harms, 4, widths, 4, c->threads,
                                ks + 16 * s, err);
    if (st) {
        free(ks);
        return st;
    }
    json_t *ka = json_array();
    ck_jset(nj, "ks", ka);
    printf(" boxcars against chi-square (%zu bins, %d seeds):\n", nbins, c->nseeds);
    for (int t = 0; t < ntests; t++) {
        xc_row r;
        xc_noise_ks_row(&ks[t], t / 16, &r);
        ck_rows(c, &r, 1);
        json_array_append_new(ka, xc_noise_ks_json(&ks[t], t / 16));
    }
    xc_verdict v;
    xc_noise_ks_verdict(ks, ntests, 16, KS_ALPHA, &v);
    ck_verdicts(c, &v, 1);
    free(ks);
    return XC_OK;
}

static xc_status false_alarms(ctx *c, json_t *nj, xc_error *err)
{
    static const int cfg[4][2] = {{0, 1}, {20, 1}, {200, 1}, {50, 4}};
    static const double S[4] = {0, 1, 2, 3};
    size_t nspec = (size_t)(c->quick ? 2000 : 4000) * (size_t)c->nseeds;
    json_t *fa = json_array();
    ck_jset(nj, "false_alarms", fa);
    printf(" false alarms (%zu spectra of %d bins, unsifted):\n", nspec, FA_NBINS);
    double sy[4][4], sc[4][4];
    xc_series ser[8];
    char labels[8][80];
    for (int k = 0; k < 4; k++) {
        xc_noise_fa r[4];
        xc_status st = xc_approx_false_alarms(c->searcher, FA_NBINS, nspec, c->seed + (4 + (uint64_t)k) * SEED_STRIDE,
                                              cfg[k][0], cfg[k][1], S, 4, FA_ALPHA, c->threads, r, err);
        if (st)
            return st;
        for (int j = 0; j < 4; j++) {
            xc_row row;
            xc_verdict v;
            xc_noise_fa_row(&r[j], &row);
            xc_noise_fa_verdict(&r[j], c->searcher->impl.name, &v);
            ck_rows(c, &row, 1);
            ck_verdicts(c, &v, 1);
            sy[k][j] = r[j].nfam / ((double)r[j].nspec * r[j].pfam);
            sc[k][j] = r[j].count / r[j].expect;
            json_array_append_new(fa, xc_noise_fa_json(&r[j], FA_NBINS));
        }
        xc_fmt(labels[k], sizeof labels[k], "spectra, zmax %d, numharm %d", cfg[k][0], cfg[k][1]);
        ser[k] = (xc_series){labels[k], S, sy[k], 4};
        xc_fmt(labels[4 + k], sizeof labels[4 + k], "candidates, zmax %d, numharm %d", cfg[k][0], cfg[k][1]);
        ser[4 + k] = (xc_series){labels[4 + k], S, sc[k], 4};
    }
    ck_plot(c, "Noise spectra (and candidates) with sigma > S, relative to what independent trials give", "S (sigma)",
         "measured / expected", ser, 8, 0, 1);
    return XC_OK;
}

static xc_status check_noise(ctx *c, xc_error *err)
{
    ck_section(c, "4. Statistics on noise-only spectra",
            "Boxcars of each stage h and width w, B = sum of w harmonic sums S_h, at starts where no bin is shared "
            "(xc_approx_noise_ks), against chi-square with 2 w h(h+1)/2 dof: Kolmogorov-Smirnov and Pearson's "
            "chi-square over 10 equiprobable cells.  Then unsifted searches (local maxima, zstep 1) of noise "
            "spectra: the spectra with a candidate of sigma > S, binomial(nspec, 1 - exp(-numharm Q(S))) if "
            "the ntrials = (bins - 1)(1 + zmax/6.95) trials per stage were independent (Q the Gaussian tail); "
            "two-sided bounds at 1e-3 for zmax 0 (independent bins), the upper one only for zmax > 0, where "
            "boxcars overlap and fewer spectra mean conservative sigmas; and the candidates themselves "
            "against nspec x numharm x Q(S) (clustered, so no binomial bound).");
    json_t *nj = ck_jpart(c->root, "noise");
    xc_status st = noise_ks(c, nj, err);
    return st ? st : false_alarms(c, nj, err);
}

/* ---- the command ------------------------------------------------------------- */

/* Parses the options into c; returns -1 to go on, or the exit code. */
static int parse(const xc_cmd *self, ctx *c, int argc, char **argv, const char **json, const char **report, const char **junit)
{
    unsigned long long seed = 1;
    c->zmax = 200;
    c->numharm = 1;
    const xc_opt opts[] = {
        XC_OPT_INT("seeds", &c->nseeds, 1, 1000, .arg = "N", .help = "seeds per measurement", .def = "3; -quick 1"),
        XC_OPT_U64("seed", &seed, .arg = "S", .help = "first seed", .def = "1"),
        XC_OPT_FLAG("quick", &c->quick, .help = "fewer blocks, bins and pulsars (about 10 s)"),
        XC_OPT_STR("json", json, .arg = "FILE", .help = "write every number to FILE (JSON)"),
        XC_OPT_STR("junit", junit, .arg = "FILE", .help = "the verdicts as JUnit XML, one test case each (CI; docs/ci.md)"),
        XC_OPT_STR("report", report, .arg = "DIR", .help = "HTML report + summary.json in DIR",
                   .def = "runs/<UTC time>-approx"),
        XC_OPT_INT("threads", &c->threads, 1, 4096, .arg = "N", .help = "OpenMP threads", .def = "all cores"),
        XC_OPT_INT("npsr", &c->npsr, 1, 100000, .arg = "N", .help = "synthetic pulsars per seed", .def = "30; -quick 12"),
        XC_OPT_INT("zmax", &c->zmax, 1, 4000, .arg = "Z", .help = "zmax of the synthetic search, in bins drifted",
                   .def = "200"),
        XC_OPT_INT("numharm", &c->numharm, 1, 8, .arg = "H", .help = "harmonic stages of the synthetic search",
                   .def = "1"),
        XC_OPT_END,
    };
    const xc_optspec spec = XC_CMD_SPEC(self);
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    c->seed = seed;
    if (!c->nseeds)
        c->nseeds = c->quick ? 1 : 3;
    if (!c->npsr)
        c->npsr = c->quick ? 12 : 30;
    return -1;
}

/* The four measurements, then the JSON and the report. */
static xc_status run_all(ctx *c, const char *json, const char *dir, xc_error *err)
{
    xc_status st = check_mom(c, err);
    if (!st)
        st = check_logp(c, err);
    if (!st)
        st = check_zloss(c, err);
    if (!st)
        st = check_noise(c, err);
    if (!st)
        st = ck_check_accel(c, err);
    if (!st && c->vd.fatal)
        st = xc_error_set(err, c->vd.fatal, "report %s/index.html: %s", dir, c->vd.fatal_err.msg);
    if (st)
        return st;
    ck_jset(c->root, "verdicts", json_incref(c->vd.json));
    if ((st = xc_report_set_number(c->vd.rep, "verdicts_failed", (double)c->vd.rows.nfail, err)) ||
        (st = xc_report_set_json(c->vd.rep, "results", json_incref(c->root), err)))
        return st;
    if (json && (st = xc_cli_write_json(json, c->root, JSON_INDENT(1) | JSON_REAL_PRECISION(10), err)))
        return st;
    return xc_report_write(c->vd.rep, dir, err);
}

static int approximations(const xc_cmd *self, int argc, char **argv)
{
    const char *cmd = "check approximations", *json = NULL, *report = NULL, *junit = NULL;
    ctx c;
    memset(&c, 0, sizeof c);
    xc_vd_init(&c.vd);
    int rc = parse(self, &c, argc, argv, &json, &report, &junit);
    if (rc >= 0)
        return rc;
    if ((junit && (rc = xc_cli_writable(cmd, "-junit", junit))) || (json && (rc = xc_cli_writable(cmd, "-json", json))))
        return rc;
    /* The searcher the measurements run through: the default one (the
     * threaded CPU implementation), chosen by capability. */
    if (!(c.searcher = xc_searcher_of(xc_cli_impl(cmd, XC_FAMILY_PULSCAN, NULL))) ||
        !(c.accel = xc_accel_searcher_of(xc_cli_impl(cmd, XC_FAMILY_ACCEL, NULL))))
        return 2;
    /* the accel shortcuts are measured against the reference, by capability */
    if (!(c.accel_ref = xc_accel_searcher_of(xc_registry_pick(xc_cli_registry(), XC_FAMILY_ACCEL, XC_CAP_REFERENCE, 0))))
        return xc_cli_failf(cmd, "no accel reference searcher in the registry");
    xc_error err;
    xc_error_clear(&err);
    char dir[4096];
    if (report) {
        xc_fmt(dir, sizeof dir, "%s", report);
    } else {
        if (xc_report_run_dir(dir, sizeof dir - 8, "runs", time(NULL), &err))
            return xc_cli_fail(cmd, &err);
        strcat(dir, "-approx");
    }
    if (xc_report_new(&c.vd.rep, "crosscheck check approximations", &err))
        return xc_cli_fail(cmd, &err);
    c.vd.json = json_array();
    c.vd.lines = stdout;
    c.vd.style = XC_VD_LINE_BOUND;
    c.root = json_object();
    ck_jset(c.root, "command_line", json_string(xc_cli_cmdline()));
    ck_jset(c.root, "seed", json_integer((json_int_t)c.seed));
    ck_jset(c.root, "seeds", json_integer(c.nseeds));
    ck_jset(c.root, "quick", json_boolean(c.quick));
    char line[4400];
    xc_fmt(line, sizeof line, "Command: %s.  Seeds %llu.. (%d per measurement)%s.", xc_cli_cmdline(),
           (unsigned long long)c.seed, c.nseeds, c.quick ? ", quick" : "");
    xc_vd_text(&c.vd, line);
    printf("crosscheck check approximations: seed %llu, %d seeds%s\n", (unsigned long long)c.seed, c.nseeds,
           c.quick ? ", quick" : "");
    double t0 = xc_now();
    xc_status st = run_all(&c, json, dir, &err);
    if (!st && junit)   /* one test case per verdict, for CI */
        st = xc_checks_write_junit(&c.vd.rows, "crosscheck.check.approximations", xc_now() - t0, junit, &err);
    json_decref(c.root);
    json_decref(c.vd.json);
    xc_report_free(c.vd.rep);
    size_t npass = c.vd.rows.npass, nfail = c.vd.rows.nfail;
    xc_vd_free(&c.vd);
    if (st)
        return xc_cli_fail(cmd, &err);
    printf("\n%zu verdicts passed, %zu failed (%.1f s); report %s/index.html%s%s\n", npass, nfail,
           xc_now() - t0, dir, json ? ", JSON " : "", json ? json : "");
    return nfail ? 1 : 0;
}

/* The checks, by the name that follows `check`. */
static const xc_cmd checks[] = {
    {"check approximations", approximations, "measure the Pulscan GPU version's approximations and the search's noise\n"
     "statistics (median of medians, ln p polynomial, logarithmic z, R-block), and\n"
     "the accel search's (noise, half-bin grid, half-widths, float, trials)",
     "[-seeds N] [-seed S] [-quick] [-json FILE] [-report DIR]\n"
     "                                       [-threads N] [-npsr N] [-zmax Z] [-numharm H]",
     "Measures, with numbers, what the Pulscan paper's GPU version gives up, and the search's\n"
     "statistics on noise:\n"
     "  1. median of medians (blocks of 4096, as the GPU, and the CPU default block) against the\n"
     "     exact median and MAD on Gaussian noise: bias and spread of the location and of the\n"
     "     MAD-based sigma, against a semi-analytic prediction; their effect on the normalised\n"
     "     powers (mean, true value 2; fractions above 5..25 against chi-square with 2 dof; KS);\n"
     "  2. the appendix polynomial for ln p against the exact ln Q over dof 2..24020 and\n"
     "     chi2/dof 1..1000: largest absolute and relative errors and where they are below 1 %\n"
     "     and 10 %;\n"
     "  3. detections lost on synthetic accelerated pulsars (64 channels, 8 bits, 128 us, 33.55 s,\n"
     "     5 % duty cycle, f 200..700 Hz, |z| uniform in 0..zmax, designed sigma 4..12) by\n"
     "     logarithmic z, R-block peaks, both, median of medians, the ln p polynomial and all of\n"
     "     them (the GPU), against every z, local maxima, exact statistics; detection = a\n"
     "     candidate with sigma > 6 within 1 % of the mean apparent frequency (the paper's\n"
     "     criterion); once alone and once with a bright pulsar (fundamental power 2000) in the\n"
     "     same R-block;\n"
     "  4. noise-only spectra: KS and chi-square goodness of fit of harmonic-sum boxcars (stages\n"
     "     1-4, widths 1, 4, 16, 64: independent boxcars only) against chi-square with their\n"
     "     stated dof, and the candidates with sigma > 0, 1, 2, 3 (unsifted) against the\n"
     "     trials-corrected expectation with binomial bounds;\n"
     "  5. the matched-filter accel search (accelsearch's): noise plane powers at zmax 0 and 50 and\n"
     "     harmonic sums of 2 and 4 against chi-square with 2H dof (KS, GOF, mean, single-trial\n"
     "     false alarms against binomial bounds), and accelsearch's shortcuts measured against the\n"
     "     reference: the half-bin grid against a full-bin one, LOWACC/HIGHACC half-widths against a\n"
     "     long template, the float plane against the double one, and its effective trial count\n"
     "     against every grid point (sigma) and against noise planes' largest powers.\n"
     "Every number follows from -seed; the thread count never changes them.  Exit status 0 when\n"
     "every verdict passes, 1 when one fails, 2 on errors.\n"},
    {"check smearing", xc_cmd_check_smearing, "approximate dedispersers' S/N loss against their smearing bound",
     "[-i FILE.fil] [-json FILE] [-impl LIST] [-nsub LIST] [-widths LIST]\n"
     "                                 [-dmplan PLAN] [-dmsub D] [-subalign A] [-subsplit S] [-nchans N] [-every N]\n"
     "                                 [-report DIR] [-progress | -quiet]",
     "Injects boxcar pulses (noise free, one per trial measured, lined up exactly by direct\n"
     "dedispersion at that trial) into a band of 1250-1550 MHz at 64 us, dedisperses them with\n"
     "every approximate implementation and with the direct cpu one, and compares the best\n"
     "matched-boxcar S/N of each trial: the loss must stay within the bound derived for the trial,\n"
     "1 - sqrt(W / (W + S)), S = floor(S_cont) + 3 + clamps samples for subband, floor(S_cont +\n"
     "T_M + 3) + clamps for tree (docs/SUBBAND.md).  The tree entries take -nsub as their number\n"
     "of subbands (a power of two; tree-padded has one).  Prints\n"
     "one line per implementation, nsub and width; exit 0 if every pulse is within its bound, 1 if\n"
     "one is not, 2 on errors.  With -i the band, channels and sample time are the file's (the\n"
     "pulses are still injected, noise free), and without -nsub each implementation runs with the\n"
     "nsub it chooses for that geometry and plan (printed with its declared loss).\n"},
};

XC_SUBCMD_MAIN(xc_cmd_check, "check", checks)
