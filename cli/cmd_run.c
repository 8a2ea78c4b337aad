/* crosscheck run: the default cross-check (what `make run` calls).
 *
 * For every observation of the spec (synthetic ones made here, real ones from
 * datasets/), every available dedisperser runs the same plan; each plane is
 * compared with the reference's, injected pulses must be recovered, and the
 * tutorial pulsar's line must stand out.  A verdict table goes to stdout and a
 * report (index.html with plots, summary.json) to reports/runs/<timestamp>/. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "compare/xc_cmpcands.h"
#include "compare/xc_compare.h"
#include "core/xc_fft.h"
#include "core/xc_search.h"
#include "core/xc_ddstream.h"
#include "core/xc_progress.h"
#include "compare/xc_recover.h"
#include "reports/xc_report.h"
#include "synth/xc_synth.h"

typedef struct {
    xc_report *rep;
    json_t *rows;              /* also kept here to print the table at the end */
    int nfail;
    int quiet;
    int threads;
    char work[4096];
    char datasets[1024];
    const char *only;          /* comma-separated implementation names, or NULL */
} runctx;

static void help(void)
{
    printf("usage: crosscheck run [-spec FILE.json] [-out DIR] [-impl LIST] [-threads N] [-keep] [-quiet]\n\n"
           "The default cross-check (make run). For every observation in the spec:\n"
           "  - synthetic ones are made with `crosscheck synth` (single pulses at known DMs and times);\n"
           "  - every available dedisperser runs the observation's DM plan;\n"
           "  - each plane is compared with the reference plane (exact for integer input, the\n"
           "    float-summation bound N*2^-24*max|ref| for float input), and the cpu implementation\n"
           "    must give the same bytes at 1 and N threads;\n"
           "  - every injected pulse must be found by each implementation with its peak within one\n"
           "    DM step of the true DM and its boxcar S/N within 10%% of the expected value;\n"
           "  - on the real files (datasets/sigpyproc3: Parkes Crab 8/4/2/1-bit, SIGPROC fake tutorial)\n"
           "    every implementation must agree with the reference, and the tutorial pulsar's 4 Hz\n"
           "    line must be the strongest in its series dedispersed at DM 30.\n"
           "Prints a verdict table and writes DIR/index.html (plots) and DIR/summary.json.\n"
           "Exit code 0 only if every check passes.\n\n"
           "  -spec FILE     run specification (default datasets/default-run.json)\n"
           "  -out DIR       report directory (default reports/runs/<UTC timestamp>)\n"
           "  -impl LIST     only these implementations besides the reference (default: all)\n"
           "  -threads N     threads for the multi-threaded checks (default: all cores)\n"
           "  -keep          keep the intermediate files (DIR/work: filterbanks, planes)\n"
           "  -quiet         no progress on stderr\n");
}

static void verdict(runctx *c, const char *obs, const char *impl, const char *check, const char *measured,
                    const char *bound, int pass)
{
    char full[512];
    snprintf(full, sizeof full, "%s: %s", obs, check);
    xc_error e;
    xc_report_add_verdict(c->rep, impl, full, measured, bound, pass, &e);
    json_array_append_new(c->rows, json_pack("{s:s,s:s,s:s,s:s,s:b}", "impl", impl, "check", full,
                                             "measured", measured, "bound", bound, "pass", pass));
    if (!pass)
        c->nfail++;
    if (!c->quiet)
        fprintf(stderr, "  %-4s %-10s %s: %s\n", pass ? "ok" : "FAIL", impl, full, measured);
}

/* The reference always runs (every other one is compared with it); the
 * others unless -impl named a list without them. */
static int wanted(const runctx *c, const xc_impl *impl)
{
    if ((impl->caps & XC_CAP_REFERENCE) || !c->only)
        return 1;
    const char *name = impl->name;
    size_t n = strlen(name);
    for (const char *p = c->only; p && *p;) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p = q ? q + 1 : NULL;
    }
    return 0;
}

/* One implementation's plane of one observation. */
typedef struct {
    const xc_dedisperser *impl;
    char label[64];
    char json[4200];
    xc_planefile pf;
    int ok;
    double seconds;
} planerun;

static xc_status dedisperse_to(const char *fil, const char *out, const xc_dedisperser *impl,
                               const xc_dmplan *plan, const xc_convention *cv, int threads,
                               double *secs, xc_error *err)
{
    xc_fbreader *r;
    xc_status st = xc_fbreader_open(&r, fil, NULL, err);
    if (st)
        return st;
    xc_ddstream_args a;
    memset(&a, 0, sizeof a);
    a.impl = impl;
    a.conv = cv;
    a.plan = plan;
    a.opts.threads = threads;
    a.input_name = fil;
    a.cmdline = xc_cli_cmdline();
    st = xc_dedisperse_stream(r, out, &a, secs, err);
    xc_fbreader_close(r);
    return st;
}

static void fmt(char *buf, size_t n, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t n, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, n, f, ap);
    va_end(ap);
}

/* Runs every implementation, compares with the reference, checks thread
 * determinism.  Fills runs[] (runs[0] is the reference). Returns the count. */
static int run_all(runctx *c, const char *obs, const char *fil, const xc_dmplan *plan,
                   const xc_convention *cv, planerun *runs, int maxruns)
{
    const xc_registry *reg = xc_cli_registry();
    int n = 0;
    char measured[512], bound[256];
    xc_error e;
    for (size_t i = 0; i < xc_registry_count(reg, XC_FAMILY_DEDISPERSE) && n < maxruns; i++) {
        const xc_impl *di = xc_registry_at(reg, XC_FAMILY_DEDISPERSE, i);
        const xc_dedisperser *d = xc_dedisperser_of(di);
        if (!wanted(c, di) || (di->caps & XC_CAP_APPROXIMATE))
            continue;   /* approximate ones are judged by their smearing bound, not against exact planes */
        char why[256] = "";
        if (!xc_impl_available(di, why, sizeof why)) {
            char line[400];
            fmt(line, sizeof line, "%s: %s unavailable: %s (skipped, not counted as passed)", obs, d->impl.name, why);
            xc_report_add_text(c->rep, line, &e);
            if (!c->quiet)
                fprintf(stderr, "  skip %-10s %s\n", d->impl.name, why);
            continue;
        }
        planerun *pr = &runs[n];
        memset(pr, 0, sizeof *pr);
        pr->impl = d;
        snprintf(pr->label, sizeof pr->label, "%s", d->impl.name);
        char out[4200];
        fmt(out, sizeof out, "%s/%s.%s", c->work, obs, d->impl.name);
        fmt(pr->json, sizeof pr->json, "%s.json", out);
        xc_status st = dedisperse_to(fil, out, d, plan, cv, c->threads, &pr->seconds, &e);
        if (!st)
            st = xc_planefile_read(&pr->pf, pr->json, &e);
        if (st) {
            verdict(c, obs, d->impl.name, "dedisperse", e.msg, "runs without error", 0);
            continue;
        }
        pr->ok = 1;
        n++;
        if (n == 1 && !(di->caps & XC_CAP_REFERENCE)) {
            verdict(c, obs, d->impl.name, "reference present", "the reference did not run", "-", 0);
            return n;
        }
        if (n > 1) {
            xc_cmpside A = {pr->json, &pr->pf.plane, &pr->pf.meta, &pr->pf.plan};
            xc_cmpside B = {runs[0].json, &runs[0].pf.plane, &runs[0].pf.meta, &runs[0].pf.plan};
            xc_cmpopts o;
            xc_cmpopts_init(&o);
            xc_cmpresult res;
            memset(&res, 0, sizeof res);
            st = xc_compare_planes(&A, &B, &o, &res, &e);
            if (st) {
                verdict(c, obs, d->impl.name, "plane vs reference", e.msg, "comparable", 0);
            } else {
                fmt(measured, sizeof measured, "%llu of %llu samples differ, max |diff| %.3g, rms %.3g",
                    (unsigned long long)res.n_diff, (unsigned long long)res.n_total, res.max_abs, res.rms);
                if (res.cls == XC_CLASS_EXACT)
                    fmt(bound, sizeof bound, "exact (integer input)");
                else
                    fmt(bound, sizeof bound, "|diff| <= %.3g (N*2^-24*max|ref|, range 0)",
                        res.nranges ? res.r[0].bound : 0.0);
                verdict(c, obs, d->impl.name, "plane vs reference", measured, bound, res.agree);
            }
            xc_cmpresult_free(&res);
        }
        if ((di->caps & XC_CAP_THREADED) && pr->pf.meta.nbits != 32) {
            /* Same bytes at one thread as at many. */
            char out1[4300], json1[4400];
            fmt(out1, sizeof out1, "%s.t1", out);
            fmt(json1, sizeof json1, "%s.json", out1);
            xc_planefile one;
            memset(&one, 0, sizeof one);
            st = dedisperse_to(fil, out1, d, plan, cv, 1, NULL, &e);
            if (!st)
                st = xc_planefile_read(&one, json1, &e);
            if (st) {
                verdict(c, obs, d->impl.name, "1 thread vs many", e.msg, "identical", 0);
            } else {
                uint64_t ndiff = 0;
                for (int k = 0; k < one.plane.nranges; k++)
                    for (size_t s = 0; s < one.plane.r[k].ndm * one.plane.r[k].nsamp; s++)
                        ndiff += memcmp(&one.plane.r[k].data[s], &pr->pf.plane.r[k].data[s], sizeof(float)) != 0;
                fmt(measured, sizeof measured, "%llu samples differ between 1 and %d threads",
                    (unsigned long long)ndiff, c->threads);
                verdict(c, obs, d->impl.name, "1 thread vs many", measured, "identical bytes", ndiff == 0);
                xc_planefile_free(&one);
            }
        }
    }
    return n;
}

static void free_runs(planerun *runs, int n)
{
    for (int i = 0; i < n; i++)
        xc_planefile_free(&runs[i].pf);
}

/* Heatmap of the reference plane's range holding the most interest. */
static void plot_plane(runctx *c, const char *obs, const planerun *ref, int k)
{
    const xc_planerange *r = &ref->pf.plane.r[k];
    const xc_dmrange *dr = &ref->pf.plan.r[k];
    char title[300];
    fmt(title, sizeof title, "%s: reference DM-time plane, range %d (ds %d)", obs, k, r->ds);
    double tk = ref->pf.meta.tsamp * r->ds;
    double dstep = dr->ndm > 1 ? dr->dms[1] - dr->dms[0] : 1.0;
    xc_heatmap h = {title, r->data, r->ndm, r->nsamp, 0.0, (double)r->nsamp * tk, dr->dms[0],
                    dr->dms[dr->ndm - 1] + dstep, "time at the highest channel (s)", "DM (pc cm^-3)",
                    "dedispersed value", XC_CMAP_VIRIDIS, XC_REDUCE_MAX, 0, 0};
    xc_error e;
    xc_report_add_heatmap(c->rep, &h, &e);
}

static xc_status load_synth(const json_t *obj, const char *name, xc_synth_params *p, xc_error *err)
{
    xc_synth_params_init(p);
    return xc_synth_params_from_json(p, obj, name, err);
}

static void run_synthetic(runctx *c, const json_t *ob, const xc_convention *cv, const char *spec)
{
    const char *name = json_string_value(json_object_get(ob, "name"));
    const char *plan_s = json_string_value(json_object_get(ob, "dmplan"));
    json_t *sobj = json_object_get(ob, "synth");
    xc_error e;
    char obs[128];
    fmt(obs, sizeof obs, "%s", name ? name : "synthetic");
    if (!plan_s || !json_is_object(sobj)) {
        verdict(c, obs, "-", "spec", "needs 'name', 'dmplan' and 'synth'", spec, 0);
        return;
    }
    xc_synth_params sp;
    xc_status st = load_synth(sobj, obs, &sp, &e);
    char fil[4200], truth[4300];
    fmt(fil, sizeof fil, "%s/%s.fil", c->work, obs);
    fmt(truth, sizeof truth, "%s/%s.truth.json", c->work, obs);
    if (!st) {
        if (!sp.convention || strcmp(sp.convention->name, cv->name) != 0)
            sp.convention = cv;
        sp.nthreads = c->threads;
        st = xc_synth_write(&sp, fil, truth, xc_cli_cmdline(), &e);
    }
    if (st) {
        verdict(c, obs, "synth", "synthesize", e.msg, "runs without error", 0);
        xc_synth_params_free(&sp);
        return;
    }
    xc_report_add_section(c->rep, obs, &e);
    char line[512];
    fmt(line, sizeof line, "%d channels of %d bits, tsamp %.1f us, %.2f s, fch1 %.3f MHz, foff %.4f MHz, seed %llu; "
        "plan %s; convention %s",
        sp.nchans, sp.nbits, sp.tsamp * 1e6, sp.tobs, sp.fch1, xc_synth_foff(&sp), (unsigned long long)sp.seed,
        plan_s, cv->name);
    xc_report_add_text(c->rep, line, &e);
    xc_dmplan plan;
    if ((st = xc_dmplan_parse(&plan, plan_s, "dmplan", &e))) {
        verdict(c, obs, "-", "DM plan", e.msg, spec, 0);
        xc_synth_params_free(&sp);
        return;
    }
    planerun runs[8];
    int n = run_all(c, obs, fil, &plan, cv, runs, 8);
    char measured[512], bound[256];
    for (size_t p = 0; p < sp.npulses && n > 0; p++) {
        const xc_synth_pulse *pu = &sp.pulses[p];
        double expect = pu->snr * sqrt(pu->width_ms * 1e-3 / sp.tsamp);
        double window = pu->width_ms * 1e-3 + 0.005;
        for (int i = 0; i < n; i++) {
            xc_pulsefind f;
            char check[200];
            fmt(check, sizeof check, "pulse %zu (DM %g at %.3f s)", p, pu->dm, pu->t_s);
            st = xc_recover_pulse(&runs[i].pf.plane, &runs[i].pf.plan, runs[i].pf.meta.tsamp, pu->t_s,
                                  pu->width_ms * 1e-3, window, &f, &e);
            if (st) {
                verdict(c, obs, runs[i].label, check, e.msg, "found", 0);
                continue;
            }
            double ddm = fabs(f.dm - pu->dm), rel = fabs(f.snr - expect) / expect;
            fmt(measured, sizeof measured, "peak DM %.3f (|dDM| %.3g), S/N %.1f (%.1f%% from %.1f)", f.dm, ddm,
                f.snr, 100 * rel, expect);
            fmt(bound, sizeof bound, "|dDM| <= %.3g (one step), S/N within 10%%", f.dm_step);
            verdict(c, obs, runs[i].label, check, measured, bound, ddm <= f.dm_step * (1 + 1e-9) && rel <= 0.10);
        }
        /* S/N against DM around the pulse, every implementation. */
        int k = 0;
        for (int kk = 0; kk < plan.nranges; kk++)
            if (pu->dm >= plan.r[kk].dms[0])
                k = kk;
        const xc_dmrange *dr = &plan.r[k];
        xc_series ser[8];
        double *xs = malloc(dr->ndm * sizeof *xs);
        double *ys[8] = {0};
        int ns = 0;
        for (int i = 0; i < n && xs; i++) {
            ys[i] = malloc(dr->ndm * sizeof(double));
            if (!ys[i])
                break;
            if (xc_recover_snr_curve(&runs[i].pf.plane, &runs[i].pf.plan, k, runs[i].pf.meta.tsamp, pu->t_s,
                                     pu->width_ms * 1e-3, window, ys[i], &e))
                break;
            ser[ns] = (xc_series){runs[i].label, xs, ys[i], dr->ndm};
            ns++;
        }
        if (xs) {
            for (size_t j = 0; j < dr->ndm; j++)
                xs[j] = dr->dms[j];
            char title[200];
            fmt(title, sizeof title, "%s: boxcar S/N against DM, pulse %zu (true DM %g, expected S/N %.1f)", obs, p,
                pu->dm, expect);
            xc_lineplot lp = {title, "DM (pc cm^-3)", "S/N", ser, (size_t)ns, 0, 0};
            if (ns)
                xc_report_add_lines(c->rep, &lp, &e);
        }
        for (int i = 0; i < 8; i++)
            free(ys[i]);
        free(xs);
    }
    if (n > 0)
        plot_plane(c, obs, &runs[0], 0);
    free_runs(runs, n);
    xc_dmplan_free(&plan);
    xc_synth_params_free(&sp);
}

static void run_real(runctx *c, const json_t *ob, const xc_convention *cv, const char *spec)
{
    const char *name = json_string_value(json_object_get(ob, "name"));
    const char *file = json_string_value(json_object_get(ob, "file"));
    const char *plan_s = json_string_value(json_object_get(ob, "dmplan"));
    xc_error e;
    char obs[128];
    fmt(obs, sizeof obs, "%s", name ? name : "real");
    if (!file || !plan_s) {
        verdict(c, obs, "-", "spec", "needs 'file' and 'dmplan'", spec, 0);
        return;
    }
    char fil[2048];
    if (file[0] == '/')
        fmt(fil, sizeof fil, "%s", file);
    else
        fmt(fil, sizeof fil, "%s/%s", c->datasets, file);
    xc_dmplan plan;
    if (xc_dmplan_parse(&plan, plan_s, "dmplan", &e)) {
        verdict(c, obs, "-", "DM plan", e.msg, spec, 0);
        return;
    }
    xc_report_add_section(c->rep, obs, &e);
    char line[2300];
    fmt(line, sizeof line, "file %s; plan %s; convention %s", fil, plan_s, cv->name);
    xc_report_add_text(c->rep, line, &e);
    planerun runs[8];
    int n = run_all(c, obs, fil, &plan, cv, runs, 8);
    json_t *ln = json_object_get(ob, "line");
    if (n > 0 && json_is_object(ln)) {
        double dm = json_number_value(json_object_get(ln, "dm"));
        double f0 = json_number_value(json_object_get(ln, "freq_hz"));
        char measured[512], bound[256];
        for (int i = 0; i < n; i++) {
            const xc_planefile *pf = &runs[i].pf;
            int kk = -1;
            size_t jj = 0;
            for (int k = 0; k < pf->plan.nranges; k++)
                for (size_t j = 0; j < pf->plan.r[k].ndm; j++)
                    if (fabs(pf->plan.r[k].dms[j] - dm) < 1e-9 && kk < 0) {
                        kk = k;
                        jj = j;
                    }
            char check[128];
            fmt(check, sizeof check, "strongest line at DM %g", dm);
            if (kk < 0) {
                verdict(c, obs, runs[i].label, check, "DM not in the plan", "-", 0);
                continue;
            }
            const xc_planerange *r = &pf->plane.r[kk];
            xc_powerpeak pk;
            double *spec_p = NULL;
            /* Skip the lowest 1 Hz: receiver red noise is not the pulsar. */
            if (xc_power_peak(r->data + jj * r->nsamp, r->nsamp, pf->meta.tsamp * r->ds, 1.0, &pk,
                              i == 0 ? &spec_p : NULL, &e)) {
                verdict(c, obs, runs[i].label, check, e.msg, "-", 0);
                continue;
            }
            fmt(measured, sizeof measured, "%.4f Hz, normalised power %.0f", pk.f_hz, pk.power);
            fmt(bound, sizeof bound, "%.3f Hz +- one bin (%.4f Hz)", f0, pk.bin_hz);
            verdict(c, obs, runs[i].label, check, measured, bound, fabs(pk.f_hz - f0) <= pk.bin_hz * 1.0001);
            if (spec_p) {
                size_t nb = pk.nbins, m = 0;
                double *xs = malloc(nb * sizeof *xs), *ys = malloc(nb * sizeof *ys);
                for (size_t b = 1; xs && ys && b < nb; b++) {
                    double f = (double)b * pk.bin_hz;
                    if (f > 5 * f0)
                        break;
                    xs[m] = f;
                    ys[m++] = spec_p[b];
                }
                if (xs && ys) {
                    xc_series s = {runs[i].label, xs, ys, m};
                    char title[200];
                    fmt(title, sizeof title, "%s: power spectrum at DM %g (normalised, mean 1 for noise)", obs, dm);
                    xc_lineplot lp = {title, "frequency (Hz)", "normalised power", &s, 1, 0, 0};
                    xc_report_add_lines(c->rep, &lp, &e);
                }
                free(xs);
                free(ys);
                free(spec_p);
            }
        }
    }
    if (n > 0)
        plot_plane(c, obs, &runs[0], 0);
    free_runs(runs, n);
    xc_dmplan_free(&plan);
}

/* ---- periodicity ---------------------------------------------------------- */

typedef struct {
    const xc_searcher *impl;
    xc_candlist cands;
    int ok;
    double seconds;
} searchrun;

/* Runs every available searcher on one spectrum; the reference first.  Returns the count. */
static int search_all(runctx *c, const char *obs, const xc_spectrum *sp, const xc_psopts *po, searchrun *runs,
                      int maxruns)
{
    const xc_registry *reg = xc_cli_registry();
    int n = 0;
    xc_error e;
    char measured[512], bound[256];
    for (size_t i = 0; i < xc_registry_count(reg, XC_FAMILY_PULSCAN) && n < maxruns; i++) {
        const xc_impl *si = xc_registry_at(reg, XC_FAMILY_PULSCAN, i);
        const xc_searcher *s = xc_searcher_of(si);
        if (!wanted(c, si))
            continue;
        char why[256] = "";
        if (!xc_impl_available(si, why, sizeof why)) {
            char line[400];
            fmt(line, sizeof line, "%s: pulscan %s unavailable: %s (skipped, not counted as passed)", obs, s->impl.name, why);
            xc_report_add_text(c->rep, line, &e);
            continue;
        }
        searchrun *r = &runs[n];
        memset(r, 0, sizeof *r);
        r->impl = s;
        xc_candlist_init(&r->cands);
        xc_psopts o = *po;
        o.threads = c->threads;
        double t0 = xc_now();
        xc_status st = xc_pulscan_run(s, sp, &o, &r->cands, &e);
        r->seconds = xc_now() - t0;
        if (st) {
            verdict(c, obs, s->impl.name, "pulscan", e.msg, "runs without error", 0);
            xc_candlist_free(&r->cands);
            continue;
        }
        r->ok = 1;
        n++;
        if (n > 1) {
            xc_cmpcands_opts co;
            xc_cmpcands_opts_init(&co);
            co.sigma_min = po->sigma;
            /* float recursion against double direct sums: the searcher's own stated bound */
            if (si->tol.kind == XC_TOL_RELATIVE && si->tol.value > co.rtol_power)
                co.rtol_power = si->tol.value;
            xc_cmpcands_result res;
            memset(&res, 0, sizeof res);
            st = xc_compare_cands(&r->cands, &runs[0].cands, &co, &res, &e);
            if (st) {
                verdict(c, obs, s->impl.name, "candidates vs reference", e.msg, "comparable", 0);
            } else {
                fmt(measured, sizeof measured,
                    "%zu vs %zu candidates, %zu matched, %zu/%zu unmatched; max |dr| %.3g, max |dsigma| %.3g, "
                    "max power rel. diff %.2g", res.na, res.nb, res.npairs, res.na_only, res.nb_only, res.dr.max_abs,
                    res.dsigma.max_abs, res.dpower_rel.max_abs);
                fmt(bound, sizeof bound, "all matched (|dr| <= %g, |dz| <= %g), power rel. %.0e, sigma %.0e", co.dr,
                    co.dz, co.rtol_power, co.dsigma);
                verdict(c, obs, s->impl.name, "candidates vs reference", measured, bound, res.agree);
            }
            xc_cmpcands_result_free(&res);
        }
    }
    return n;
}

static void free_searches(searchrun *runs, int n)
{
    for (int i = 0; i < n; i++)
        xc_candlist_free(&runs[i].cands);
}

/* The sigma-versus-frequency picture of a candidate list. */
static void plot_cands(runctx *c, const char *obs, const searchrun *runs, int n)
{
    xc_series ser[8];
    double *xs[8] = {0}, *ys[8] = {0};
    int ns = 0;
    for (int i = 0; i < n && i < 8; i++) {
        const xc_candlist *l = &runs[i].cands;
        if (!l->n)
            continue;
        xs[i] = malloc(l->n * sizeof(double));
        ys[i] = malloc(l->n * sizeof(double));
        if (!xs[i] || !ys[i])
            break;
        /* sorted by frequency so the line joins neighbours */
        for (size_t k = 0; k < l->n; k++) {
            xs[i][k] = l->c[k].f_hz;
            ys[i][k] = l->c[k].sigma;
        }
        for (size_t a = 1; a < l->n; a++)
            for (size_t b = a; b > 0 && xs[i][b - 1] > xs[i][b]; b--) {
                double t = xs[i][b];
                xs[i][b] = xs[i][b - 1];
                xs[i][b - 1] = t;
                t = ys[i][b];
                ys[i][b] = ys[i][b - 1];
                ys[i][b - 1] = t;
            }
        ser[ns++] = (xc_series){runs[i].impl->impl.name, xs[i], ys[i], l->n};
    }
    if (ns) {
        char title[200];
        fmt(title, sizeof title, "%s: candidates (sigma against frequency)", obs);
        xc_lineplot lp = {title, "frequency (Hz)", "sigma (trials-corrected)", ser, (size_t)ns, 1, 0};
        xc_error e;
        xc_report_add_lines(c->rep, &lp, &e);
    }
    for (int i = 0; i < 8; i++) {
        free(xs[i]);
        free(ys[i]);
    }
}

static void psopts_from(const json_t *ob, xc_psopts *o)
{
    xc_psopts_default(o);
    json_t *v;
    if ((v = json_object_get(ob, "zmax")) && json_is_integer(v))
        o->zmax = (int)json_integer_value(v);
    if ((v = json_object_get(ob, "numharm")) && json_is_integer(v))
        o->numharm = (int)json_integer_value(v);
    if ((v = json_object_get(ob, "sigma")) && json_is_number(v))
        o->sigma = json_number_value(v);
}

/* The top candidate must be the known pulsar or one of its harmonics. */
static void check_known(runctx *c, const char *obs, const searchrun *runs, int n, double f0)
{
    char measured[512], bound[256];
    for (int i = 0; i < n; i++) {
        const xc_candlist *l = &runs[i].cands;
        if (!l->n) {
            verdict(c, obs, runs[i].impl->impl.name, "top candidate is the pulsar", "no candidate", "-", 0);
            continue;
        }
        const xc_cand *t = &l->c[0];
        double bin = 1.0 / l->T;
        int h = (int)lround(t->f_hz / f0), sub = (int)lround(f0 / t->f_hz);
        int is_harm = h >= 1 && h <= 16 && fabs(t->f_hz - h * f0) <= bin;
        int is_sub = !is_harm && sub >= 2 && sub <= 16 && fabs(t->f_hz - f0 / sub) <= bin;
        fmt(measured, sizeof measured, "%.4f Hz (r %.1f, z %.0f, %d harmonics, sigma %.1f)%s", t->f_hz, t->r, t->z,
            t->numharm, t->sigma, is_harm ? (h == 1 ? " = f0" : " = harmonic") : is_sub ? " = subharmonic" : "");
        fmt(bound, sizeof bound, "n x %.3f Hz or %.3f Hz / n, n <= 16, within one bin (%.4f Hz)", f0, f0, 1.0 / l->T);
        verdict(c, obs, runs[i].impl->impl.name, "top candidate is the pulsar", measured, bound, is_harm || is_sub);
    }
}

static void run_periodicity(runctx *c, const json_t *ob, const char *spec)
{
    const char *name = json_string_value(json_object_get(ob, "name"));
    const char *fft = json_string_value(json_object_get(ob, "fft"));
    json_t *sobj = json_object_get(ob, "synth");
    char obs[128];
    fmt(obs, sizeof obs, "%s", name ? name : "periodicity");
    xc_error e;
    xc_psopts po;
    psopts_from(ob, &po);
    char path[4300], truthp[4400] = "";
    xc_status st = XC_OK;
    if (fft) {
        if (fft[0] == '/')
            fmt(path, sizeof path, "%s", fft);
        else
            fmt(path, sizeof path, "%s/%s", c->datasets, fft);
    } else if (json_is_object(sobj)) {
        xc_synth_params sp;
        xc_synth_params_init(&sp);
        char stem[4200], dat[4300];
        fmt(stem, sizeof stem, "%s/%s", c->work, obs);
        fmt(dat, sizeof dat, "%s.dat", stem);
        fmt(truthp, sizeof truthp, "%s.truth.json", stem);
        fmt(path, sizeof path, "%s.fft", stem);
        sp.nthreads = c->threads;
        if (!(st = xc_synth_params_from_json(&sp, sobj, obs, &e)) &&
            !(st = xc_synth_write_dedispersed(&sp, stem, truthp, xc_cli_cmdline(), &e)))
            st = xc_fft_file(dat, stem, XC_FFT_SINGLE, &e);
        xc_synth_params_free(&sp);
        if (st) {
            verdict(c, obs, "synth", "synthesize and FFT", e.msg, "runs without error", 0);
            return;
        }
    } else {
        verdict(c, obs, "-", "spec", "needs 'fft' or 'synth'", spec, 0);
        return;
    }
    xc_report_add_section(c->rep, obs, &e);
    xc_spectrum sp;
    if ((st = xc_spectrum_load(&sp, path, &e))) {
        verdict(c, obs, "-", "read spectrum", e.msg, "readable", 0);
        return;
    }
    char line[4600];
    fmt(line, sizeof line, "spectrum %s: %zu bins, T = %.3f s; pulscan zmax %d, numharm %d, sigma > %g", path,
        sp.nbins, sp.T, po.zmax, po.numharm, po.sigma);
    xc_report_add_text(c->rep, line, &e);
    searchrun runs[8];
    int n = search_all(c, obs, &sp, &po, runs, 8);
    json_t *fv = json_object_get(ob, "f_hz");
    if (json_is_number(fv))
        check_known(c, obs, runs, n, json_number_value(fv));
    if (truthp[0]) {
        xc_truth t;
        if ((st = xc_truth_read(&t, truthp, sp.T, &e))) {
            verdict(c, obs, "-", "truth", e.msg, "readable", 0);
        } else {
            xc_cmpcands_opts co;
            xc_cmpcands_opts_init(&co);
            co.fundamental = 1;
            co.truth_dr = 1.0;
            co.truth_dz = 2.0;
            for (int i = 0; i < n; i++) {
                xc_truthmatch m;
                char measured[512], bound[256];
                if ((st = xc_cands_match_truth(&runs[i].cands, &t, &co, &m, &e))) {
                    verdict(c, obs, runs[i].impl->impl.name, "recovers truth r, z", e.msg, "-", 0);
                    continue;
                }
                if (m.fund.found)
                    fmt(measured, sizeof measured, "sigma %.1f at r %.2f (truth %.2f), z %.1f (truth %.1f); "
                        "%zu other candidates above %g", m.fund.sigma, m.fund.r, t.r, m.fund.z, t.z, m.nother,
                        co.truth_sigma);
                else
                    fmt(measured, sizeof measured, "fundamental not found above sigma %g", co.truth_sigma);
                fmt(bound, sizeof bound, "sigma > %g, |dr| <= %g, ||z| - |z_true|| <= %g", co.truth_sigma,
                    co.truth_dr, co.truth_dz);
                verdict(c, obs, runs[i].impl->impl.name, "recovers truth r, z", measured, bound, m.pass);
            }
        }
    }
    plot_cands(c, obs, runs, n);
    free_searches(runs, n);
    xc_spectrum_free(&sp);
}

static void rm_work(const char *dir)
{
    char cmd[4400];
    fmt(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "crosscheck run: warning: could not remove %s\n", dir);
}

int xc_cmd_run(int argc, char **argv)
{
    enum { O_SPEC = 1, O_OUT, O_IMPL, O_THREADS, O_KEEP, O_QUIET, O_HELP };
    static const struct option opts[] = {
        {"spec", required_argument, 0, O_SPEC}, {"out", required_argument, 0, O_OUT},
        {"impl", required_argument, 0, O_IMPL}, {"threads", required_argument, 0, O_THREADS},
        {"keep", no_argument, 0, O_KEEP}, {"quiet", no_argument, 0, O_QUIET},
        {"h", no_argument, 0, O_HELP}, {"help", no_argument, 0, O_HELP}, {0, 0, 0, 0}};
    const char *spec = "datasets/default-run.json", *outdir = NULL;
    runctx c;
    memset(&c, 0, sizeof c);
    int keep = 0, ch;
    xc_error e;
    xc_error_clear(&e);
    while ((ch = getopt_long_only(argc, argv, "", opts, NULL)) != -1) {
        xc_status st = XC_OK;
        switch (ch) {
        case O_SPEC: spec = optarg; break;
        case O_OUT: outdir = optarg; break;
        case O_IMPL: c.only = optarg; break;
        case O_THREADS: st = xc_cli_int("-threads", optarg, 1, 4096, &c.threads, &e); break;
        case O_KEEP: keep = 1; break;
        case O_QUIET: c.quiet = 1; break;
        case O_HELP: help(); return 0;
        default: return xc_cli_badopt("run", argc, argv);
        }
        if (st)
            return xc_cli_fail("run", &e);
    }
    if (optind < argc)
        return xc_cli_failf("run", "unexpected argument '%s'", argv[optind]);
    if (c.threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        c.threads = n > 0 ? (int)n : 1;
    }
    json_error_t je;
    json_t *root = json_load_file(spec, 0, &je);
    if (!root)
        return xc_cli_failf("run", "%s: line %d column %d: %s", spec, je.line, je.column, je.text);
    const char *slash = strrchr(spec, '/');
    fmt(c.datasets, sizeof c.datasets, "%.*s", slash ? (int)(slash - spec) : 1, slash ? spec : ".");
    const char *conv_name = json_string_value(json_object_get(root, "convention"));
    const xc_convention *cv = xc_convention_get(conv_name ? conv_name : "crosscheck");
    if (!cv) {
        json_decref(root);
        return xc_cli_failf("run", "%s: convention: '%s' is not a known preset", spec, conv_name);
    }
    char dir[4096];
    if (outdir)
        fmt(dir, sizeof dir, "%s", outdir);
    else if (xc_report_run_dir(dir, sizeof dir, "reports/runs", time(NULL), &e)) {
        json_decref(root);
        return xc_cli_fail("run", &e);
    }
    fmt(c.work, sizeof c.work, "%s/work", dir);
    char mk[8300];
    fmt(mk, sizeof mk, "mkdir -p '%s'", c.work);
    if (system(mk) != 0) {
        json_decref(root);
        return xc_cli_failf("run", "%s: cannot create the work directory", c.work);
    }
    if (xc_report_new(&c.rep, "crosscheck: dedispersion cross-check", &e)) {
        json_decref(root);
        return xc_cli_fail("run", &e);
    }
    c.rows = json_array();
    double t0 = xc_now();
    char line[512];
    fmt(line, sizeof line, "spec %s; convention %s (k_DM %.9g s MHz^2 cm^3/pc, %s, highest channel as reference, "
        "output scaling %s); %d threads", spec, cv->name, cv->kdm, xc_rounding_name(cv->rounding),
        xc_scaling_name(cv->scaling), c.threads);
    xc_report_add_text(c.rep, line, &e);
    json_t *syn = json_object_get(root, "synthetic"), *real = json_object_get(root, "real");
    size_t i;
    json_t *ob;
    json_array_foreach(syn, i, ob) {
        if (!c.quiet)
            fprintf(stderr, "crosscheck run: %s\n", json_string_value(json_object_get(ob, "name")));
        run_synthetic(&c, ob, cv, spec);
    }
    json_array_foreach(real, i, ob) {
        if (!c.quiet)
            fprintf(stderr, "crosscheck run: %s\n", json_string_value(json_object_get(ob, "name")));
        run_real(&c, ob, cv, spec);
    }
    json_t *per = json_object_get(root, "periodicity");
    json_array_foreach(per, i, ob) {
        if (!c.quiet)
            fprintf(stderr, "crosscheck run: %s\n", json_string_value(json_object_get(ob, "name")));
        run_periodicity(&c, ob, spec);
    }
    double secs = xc_now() - t0;
    size_t nrows = json_array_size(c.rows);
    xc_report_set_number(c.rep, "seconds", secs, &e);
    xc_report_set_number(c.rep, "checks", (double)nrows, &e);
    xc_report_set_number(c.rep, "failed", (double)c.nfail, &e);
    xc_report_set_json(c.rep, "spec", json_string(spec), &e);
    xc_report_set_json(c.rep, "command_line", json_string(xc_cli_cmdline()), &e);
    /* The verdict table. */
    printf("%-10s %-62s %-58s %-44s %s\n", "impl", "check", "measured", "bound", "verdict");
    json_t *row;
    json_array_foreach(c.rows, i, row) {
        printf("%-10s %-62s %-58s %-44s %s\n", json_string_value(json_object_get(row, "impl")),
               json_string_value(json_object_get(row, "check")),
               json_string_value(json_object_get(row, "measured")),
               json_string_value(json_object_get(row, "bound")),
               json_is_true(json_object_get(row, "pass")) ? "PASS" : "FAIL");
    }
    xc_status st = xc_report_write(c.rep, dir, &e);
    printf("\n%zu checks, %d failed, %.1f s; report: %s/index.html\n", nrows, c.nfail, secs, dir);
    if (st)
        fprintf(stderr, "crosscheck run: %s\n", e.msg);
    if (!keep)
        rm_work(c.work);
    xc_report_free(c.rep);
    json_decref(c.rows);
    json_decref(root);
    if (st)
        return 2;
    return c.nfail == 0 && nrows > 0 ? 0 : 1;
}
