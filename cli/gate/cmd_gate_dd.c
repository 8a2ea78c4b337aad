/* crosscheck gate dedisperse: the tiers' cases, the user's dedisperser (a
 * registered implementation, a plugin's as a rule, or an external command)
 * on each, and the checks against the reference dedisperser's planes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/base/cli.h"
#include "cli/base/cli_ddfile.h"
#include "cli/gate/gate.h"
#include "cli/gate/gate_dd_io.h"
#include "compare/xc_compare.h"
#include "compare/conform/xc_conform.h"
#include "compare/xc_recover.h"
#include "core/base/xc_nbits.h"
#include "core/io/xc_filterbank.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_fs.h"
#include "core/io/xc_npy.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/io/xc_presto.h"
#include "synth/model/xc_synth.h"

static const ddcase cases[] = {
    {"8bit-64ch", GATE_QUICK, 64, 8, 256e-6, 1.2, 1500, -2, "0:200:2", 2, {{0.45, 60, 3, 25}, {0.8, 150, 4, 25}},
     0.10, 0, 11},
    {"4bit-42ch", GATE_QUICK, 42, 4, 128e-6, 0.8, 1200, -3.1, "0:120:1.5", 1, {{0.4, 80, 2, 20}}, 0.10, 0, 12},
    {"float32-48ch", GATE_QUICK, 48, 32, 200e-6, 0.8, 800, -1, "0:60:0.75", 1, {{0.35, 30, 2.5, 20}}, 0.10, 0, 13},
    {"impulses-64ch", GATE_QUICK, 64, 8, 256e-6, 0, 1500, -2, "0:200:4", 0, {{0}}, 0, 1, 0},
    {"16bit-203ch", GATE_STANDARD, 203, 16, 64e-6, 1.0, 1550, -1, "0:300:1", 2, {{0.3, 45, 1, 30}, {0.7, 260, 2, 30}},
     0.10, 0, 21},
    {"2bit-96ch", GATE_STANDARD, 96, 2, 128e-6, 1.5, 1400, -2, "0:400:2.5", 2, {{0.5, 120, 3, 30}, {1.0, 333, 3, 30}},
     0.25, 0, 22},
    {"1bit-128ch", GATE_STANDARD, 128, 1, 128e-6, 2.0, 1400, -1.5, "0:250:1", 1, {{0.9, 190, 4, 30}}, 0.30, 0, 23},
    {"impulses-203ch", GATE_STANDARD, 203, 16, 64e-6, 0, 1550, -1, "0:100:2", 0, {{0}}, 0, 1, 0},
    {"8bit-512ch", GATE_FULL, 512, 8, 128e-6, 3.0, 1550, -0.5, "0:1000:1", 2, {{0.8, 100, 2, 30}, {2.0, 870, 5, 30}},
     0.10, 0, 31},
};

/* ---- checks ----------------------------------------------------------------------- */

/* The class in force for one input: 0 bit for bit, else the rtol of the
 * float bound (relative to max|ref|); -1 for approx (no sample check). */
static double class_rtol(const gatectx *g, int nbits, int nkept)
{
    double N = (double)nkept * 0x1p-24;
    switch (g->cls) {
    case GATE_CLASS_EXACT: return 0;
    case GATE_CLASS_FLOAT: return N;
    case GATE_CLASS_APPROX: return -1;
    case GATE_CLASS_DEFAULT: break;
    }
    if (!g->impl)
        return N;
    switch (g->impl->tol.kind) {
    case XC_TOL_EXACT: return 0;
    case XC_TOL_ROUNDING: return xc_nbits_is_float(nbits) ? g->impl->tol.value * N : 0;
    case XC_TOL_RELATIVE: return g->impl->tol.value;
    case XC_TOL_SIGNAL_LOSS: return -1;
    }
    return 0;
}

static int approx_class(const gatectx *g)
{
    return g->cls == GATE_CLASS_APPROX ||
           (g->cls == GATE_CLASS_DEFAULT && g->impl && g->impl->tol.kind == XC_TOL_SIGNAL_LOSS);
}

static double loss_bound(const gatectx *g)
{
    double L = g->cls == GATE_CLASS_APPROX ? g->loss : g->impl ? g->impl->tol.value : 0;
    return L < g->maxloss ? L : g->maxloss;
}

static xc_status compare(const xc_cmpside *a, const xc_cmpside *b, double rtol, xc_cmpresult *res, xc_error *err)
{
    xc_cmpopts o;
    xc_cmpopts_init(&o);
    if (rtol > 0 || xc_nbits_is_float(b->meta->nbits)) {   /* bit for bit on float input: a zero bound */
        o.rtol = rtol;
        o.atol = 0;
    }
    memset(res, 0, sizeof *res);
    return xc_compare_planes(a, b, &o, res, err);
}

/* The convention preset, other than the gate's, whose reference the output
 * matches; "" when none does. */
static void other_convention(gatectx *g, const char *dir, const char *fil, const xc_dmplan *plan,
                             const xc_dedisperser *ref, const xc_cmpside *a, double rtol, char *hint, size_t n)
{
    hint[0] = 0;
    /* An output off by a convention is off in every case: once a case found
     * no preset to match, the others would not either. */
    if (g->hint_done)
        return;
    size_t np;
    const xc_convention *all = xc_convention_list(&np);
    for (size_t i = 0; i < np && !hint[0]; i++) {
        const xc_convention *cv = &all[i];
        if (cv == g->cv || !strcmp(cv->name, g->cv->name))
            continue;
        char out[4300], json[4400];
        xc_fmt(out, sizeof out, "%s/ref-%s", dir, cv->name);
        xc_fmt(json, sizeof json, "%s.json", out);
        xc_error e;
        xc_planefile pf;
        memset(&pf, 0, sizeof pf);
        if (!xc_cli_dedisperse_file(fil, out, ref, plan, cv, 0, NULL, &e) && !xc_planefile_read(&pf, json, &e)) {
            xc_cmpside b = {json, &pf.plane, &pf.meta, &pf.plan};
            xc_cmpresult res;
            if (!compare(a, &b, rtol, &res, &e) && res.agree)
                xc_fmt(hint, n, "; it matches convention preset '%s' instead (k_DM %.9g, %s, scaling %s): "
                       "use -convention %s if the tool follows it", cv->name, cv->kdm, xc_rounding_name(cv->rounding),
                       xc_scaling_name(cv->scaling), cv->name);
            xc_cmpresult_free(&res);
        }
        xc_planefile_free(&pf);
    }
    if (!hint[0])
        g->hint_done = 1;
}

static void check_plane(gatectx *g, const char *obs, const char *dir, const char *fil, const xc_dmplan *plan,
                        const xc_dedisperser *ref, const xc_cmpside *a, const xc_cmpside *b)
{
    const char *check = "plane vs reference";
    double rtol = class_rtol(g, b->meta->nbits, b->meta->nchans_used);
    xc_cmpresult res;
    xc_error e;
    xc_status st = compare(a, b, rtol, &res, &e);
    if (st == XC_ENOMEM) {
        xc_vd_note(&g->vd, st, &e);
    } else if (st) {
        xc_vd_fail(&g->vd, obs, g->label, check, e.msg, "the reference's trials and shape");
    } else {
        char bound[200];
        double bnd = res.nranges ? res.r[0].bound : 0;
        if (rtol == 0)
            xc_fmt(bound, sizeof bound, "bit for bit");
        else
            xc_fmt(bound, sizeof bound, "|diff| <= %.3g (%.3g x max|ref|)", bnd, rtol);
        if (res.agree) {
            xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, check, XC_CHECK_PASS, res.max_abs, bnd, bound, &e,
                                        "%llu samples of %zu DM trials agree, max |diff| %.3g",
                                        (unsigned long long)res.n_total, res.nranges ? res.r[0].ndm : 0, res.max_abs),
                      &e);
        } else {
            char hint[400], how[500];
            xc_cmpresult_describe(&res, a, b, how, sizeof how);
            other_convention(g, dir, fil, plan, ref, a, rtol, hint, sizeof hint);
            const xc_cmploc *f = &res.first, *w = &res.worst;
            xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, check, XC_CHECK_FAIL, res.max_abs, bnd, bound, &e,
                                        "%llu of %llu samples differ in %llu DM trials; first at DM %g (trial %zu), "
                                        "sample %zu: %.9g, reference %.9g; largest |diff| %.3g at DM %g, sample %zu%s%s",
                                        (unsigned long long)res.n_over, (unsigned long long)res.n_total,
                                        (unsigned long long)res.n_trials_diff, f->dm, f->idm, f->t, f->a, f->b,
                                        res.max_abs, w->dm, w->t, how, hint),
                      &e);
            if (hint[0] && !g->quiet)
                fprintf(stderr, "crosscheck gate: hint: %s: the output%s\n", obs, hint + 1);
        }
    }
    xc_cmpresult_free(&res);
}

static size_t argmax(const float *x, size_t lo, size_t hi)
{
    size_t m = lo;
    for (size_t t = lo; t <= hi; t++)
        if (x[t] > x[m])
            m = t;
    return m;
}

/* Shifts of a whole trial named in the impulses' failure message, in samples. */
#define IMPULSE_SHIFT 8

/* Each channel's lone impulse must land where the reference puts it. */
static void check_impulses(gatectx *g, const char *obs, const ddcase *c, int64_t S, const xc_plane *a,
                           const xc_plane *b, const xc_dmplan *plan)
{
    const char *check = "lone-channel impulses";
    const xc_planerange *ra = &a->r[0], *rb = &b->r[0];
    int64_t maxd = S - 1;
    double rtol = class_rtol(g, c->nbits, c->nchans), mx = 0;
    for (size_t s = 0; s < rb->ndm * rb->nsamp; s++)
        mx = fabs(rb->data[s]) > mx ? fabs(rb->data[s]) : mx;
    double tol = rtol * mx;
    int nbad = 0, first = -1;
    size_t fj = 0;
    char list[200] = "";
    for (int ch = 0; ch < c->nchans; ch++) {
        size_t lo = (size_t)(ch * S), hi = (size_t)(ch * S + maxd);
        int bad = 0;
        for (size_t j = 0; j < rb->ndm && !bad; j++)
            for (size_t t = lo; t <= hi && t < rb->nsamp; t++) {
                float x = ra->data[j * ra->nsamp + t], y = rb->data[j * rb->nsamp + t];
                if (tol == 0 ? memcmp(&x, &y, sizeof x) != 0 : !(fabs((double)x - y) <= tol)) {
                    bad = 1;
                    if (first < 0) {
                        first = ch;
                        fj = j;
                    }
                    break;
                }
            }
        if (bad) {
            if (nbad < 12)
                xc_fmt(list + strlen(list), sizeof list - strlen(list), "%s%d", nbad ? ", " : "", ch);
            else if (nbad == 12)
                xc_fmt(list + strlen(list), sizeof list - strlen(list), ", ...");
            nbad++;
        }
    }
    xc_error e;
    if (nbad == 0) {
        xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, check, XC_CHECK_PASS, 0, 0, "every channel", &e,
                                    "every channel's impulse (%d channels x %zu DM trials) where the reference puts it",
                                    c->nchans, rb->ndm),
                  &e);
        return;
    }
    int64_t at = maxd + first * S;   /* the impulse's input sample */
    size_t lo = (size_t)(first * S), hi = (size_t)(first * S + maxd);
    size_t pb = argmax(rb->data + fj * rb->nsamp, lo, hi), pa = argmax(ra->data + fj * ra->nsamp, lo, hi);
    /* A whole trial shifted is said so: its impulse may have left the
     * channel's window, where the output's peak would then mislead. */
    char how[500], where[600];
    xc_cmp_describe_row(ra->data + fj * ra->nsamp, rb->data + fj * rb->nsamp, rb->nsamp, tol, IMPULSE_SHIFT, how,
                        sizeof how);
    if (!strncmp(how, "the reference's series shifted", 30))
        xc_fmt(where, sizeof where, "the output's trial is %s", how);
    else
        xc_fmt(where, sizeof where, "the output's peak is at sample %zu (delay %lld)%s%s", pa,
               (long long)(at - (int64_t)pa), how[0] ? "; " : "", how);
    xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, check, XC_CHECK_FAIL, nbad, 0, "every channel", &e,
                                "%d of %d channels disagree (%s); first: channel %d (%.6g MHz) at DM %g (trial %zu): "
                                "the reference puts its impulse at sample %zu (delay %lld samples), %s",
                                nbad, c->nchans, list, first, c->fch1 + first * c->foff, plan->r[0].dms[fj], fj, pb,
                                (long long)(at - (int64_t)pb), where),
              &e);
}

/* Each injected pulse: found by the output within one DM step of where the
 * reference finds it, with its S/N within 10 % (or, approximate, at most a
 * fraction L below it). */
static void check_pulses(gatectx *g, const char *obs, const ddcase *c, const xc_plane *a, const xc_plane *b,
                         const xc_dmplan *plan)
{
    int approx = approx_class(g);
    for (int i = 0; i < c->npulses; i++) {
        const xc_synth_pulse *p = &c->pulse[i];
        xc_pulse_truth t;
        xc_pulse_truth_init(&t, (size_t)i, p->t_s, p->dm, p->width_ms * 1e-3, p->snr, c->tsamp);
        xc_error e;
        char check[200];
        xc_fmt(check, sizeof check, "pulse %d (DM %g at %.3f s)%s", i, p->dm, p->t_s, approx ? " S/N loss" : "");
        xc_pulsefind fa, fb;
        memset(&fa, 0, sizeof fa);
        memset(&fb, 0, sizeof fb);
        if (xc_recover_pulse(b, plan, c->tsamp, t.t_s, t.width_s, t.window_s, &fb, &e) || !fb.found) {
            xc_vd_fail(&g->vd, obs, g->label, check, "the reference finds no boxcar in the pulse's window", "found");
            continue;
        }
        if (xc_recover_pulse(a, plan, c->tsamp, t.t_s, t.width_s, t.window_s, &fa, &e) || !fa.found) {
            xc_vd_fail(&g->vd, obs, g->label, check, "no boxcar in the pulse's window of the output", "found");
            continue;
        }
        char bound[160];
        if (approx) {
            double loss = 1 - fa.snr / fb.snr, L = loss_bound(g);
            xc_fmt(bound, sizeof bound, "S/N loss <= %g", L);
            xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, check, loss <= L ? XC_CHECK_PASS : XC_CHECK_FAIL,
                                        loss, L, bound, &e,
                                        "S/N %.2f at DM %g against the reference's %.2f at DM %g: loss %.4f", fa.snr,
                                        fa.dm, fb.snr, fb.dm, loss),
                      &e);
            continue;
        }
        /* Against the reference's peak, not the truth's DM: on a few
         * channels the S/N-against-DM curve is wide, and noise moves its
         * peak by a step or two for every implementation alike. */
        double ddm = fabs(fa.dm - fb.dm), rel = fabs(fa.snr - fb.snr) / fb.snr;
        int pass = ddm <= fb.dm_step * (1 + 1e-9) && rel <= 0.10;
        xc_fmt(bound, sizeof bound, "DM within one step (%.3g) of the reference's peak, S/N within 10%% of its",
               fb.dm_step);
        xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, check, pass ? XC_CHECK_PASS : XC_CHECK_FAIL, fa.snr,
                                    fb.snr, bound, &e, "peak DM %g, S/N %.2f; the reference's: DM %g, S/N %.2f "
                                    "(injected: DM %g)", fa.dm, fa.snr, fb.dm, fb.snr, p->dm),
                  &e);
    }
}

/* ---- one case ---------------------------------------------------------------------- */

/* A case's files, in its own folder under the work folder. */
typedef struct {
    char dir[GATE_PATH], fil[GATE_PATH], out[GATE_PATH], json[GATE_PATH], refout[GATE_PATH], refjson[GATE_PATH],
        dmlist[GATE_PATH], dmjson[GATE_PATH], log[GATE_PATH];
} case_files;

static xc_status case_files_make(case_files *f, const char *work, const char *obs, xc_error *e)
{
    static const char *const name[] = {"in.fil",      "out",         "out.json",    "ref",
                                       "ref.json",    "dmlist.txt",  "dmlist.json", "cmd.log"};
    char *const path[] = {f->fil, f->out, f->json, f->refout, f->refjson, f->dmlist, f->dmjson, f->log};
    return gate_case_paths(f->dir, work, obs, name, path, sizeof path / sizeof path[0], e);
}

/* The case's filterbank at f->fil (synthetic pulses, or the impulses: *S
 * their spacing), and what the reference will give: *nsamp input samples,
 * *geom, *maxd the plan's largest delay. */
static xc_status case_input(const gatectx *g, const ddcase *c, const case_files *f, const xc_dmplan *plan,
                            int64_t *S, uint64_t *nsamp, xc_geometry *geom, int64_t *maxd, xc_error *e)
{
    xc_status st = XC_OK;
    /* the synthetic input from the cache (gate_cache.c) when an earlier run made it */
    static const char *const kept[] = {"in.fil", "in.truth.json"};
    char key[GATE_PATH];
    int cache = !c->impulses && gate_cache_key("dd-in", c->name, g->cv, key, sizeof key);
    if (c->impulses) {
        st = gate_dd_write_impulses(c, g->cv, plan, f->fil, S, e);
    } else if (!cache || !gate_cache_get(key, kept, 2, f->dir)) {
        xc_synth_params sp;
        gate_case_synth(g, c->nchans, c->nbits, c->tsamp, c->tobs, c->seed, &sp);
        sp.fch1 = c->fch1;
        sp.foff = c->foff;
        for (int i = 0; i < c->npulses && !st; i++)
            st = xc_synth_params_add_pulse(&sp, &c->pulse[i], e);
        if (!st)
            st = xc_synth_write(&sp, f->fil, NULL, xc_cli_cmdline(), e);
        xc_synth_params_free(&sp);
        if (!st && cache)
            gate_cache_put(key, kept, 2, f->dir);
    }
    *geom = (xc_geometry){c->nchans, c->fch1, c->foff, c->tsamp};
    xc_fbreader *fr = NULL;
    if (!st && !(st = xc_fbreader_open(&fr, f->fil, NULL, e))) {
        const xc_fbheader *h = xc_fbreader_header(fr);
        *nsamp = h->nsamp;
        *geom = (xc_geometry){h->nchans, h->fch1, h->foff, h->tsamp};
        xc_fbreader_close(fr);
        st = xc_dmplan_max_delay(g->cv, geom, plan, maxd, e);
    }
    return st;
}

/* Runs -cmd on the case; 1 with the output of nout samples per trial in
 * *cand, 0 after a failed row (or a noted error). */
static int case_command(gatectx *g, const ddcase *c, const case_files *f, const xc_dmplan *plan, uint64_t nsamp,
                        const xc_geometry *geom, size_t nout, xc_plane *cand)
{
    const xc_dmrange *r = &plan->r[0];
    char num[12][32];
    xc_fmt(num[0], sizeof num[0], "%.10g", r->dms[0]);
    xc_fmt(num[1], sizeof num[1], "%.10g", r->dms[r->ndm - 1]);
    xc_fmt(num[2], sizeof num[2], "%.10g", r->dms[r->ndm - 1] + r->step);
    xc_fmt(num[3], sizeof num[3], "%.10g", r->step);
    xc_fmt(num[4], sizeof num[4], "%zu", r->ndm);
    xc_fmt(num[5], sizeof num[5], "%d", c->nbits);
    xc_fmt(num[6], sizeof num[6], "%d", c->nchans);
    xc_fmt(num[7], sizeof num[7], "%llu", (unsigned long long)nsamp);
    xc_fmt(num[8], sizeof num[8], "%.10g", c->tsamp);
    xc_fmt(num[9], sizeof num[9], "%.10g", c->tsamp * 1e6);
    xc_fmt(num[10], sizeof num[10], "%.10g", c->fch1);
    xc_fmt(num[11], sizeof num[11], "%.10g", geom->foff);
    const gate_kv kv[] = {{"in", f->fil},      {"out", f->out},        {"dmlist", f->dmlist}, {"dmjson", f->dmjson},
                          {"dm_lo", num[0]},   {"dm_hi", num[1]},      {"dm_end", num[2]},    {"dm_step", num[3]},
                          {"ndm", num[4]},     {"nbits", num[5]},      {"nchans", num[6]},    {"nsamp", num[7]},
                          {"tsamp", num[8]},   {"tsamp_us", num[9]},   {"fch1", num[10]},     {"foff", num[11]},
                          {"case", c->name},   {"dir", f->dir}};
    return gate_cmd_output(g, c->name, kv, sizeof kv / sizeof kv[0], f->log) &&
           !gate_dd_read_output(g, c->name, f->out, plan, nout, cand);
}

/* The reference's plane of the case at f->refout (.json and one .npy per
 * range), from the cache (gate_cache.c) when an earlier run made it. */
static xc_status case_reference(const gatectx *g, const ddcase *c, const case_files *f, const xc_dmplan *plan,
                                const xc_dedisperser *ref, xc_error *e)
{
    enum { MAXR = 8 };   /* the cases' plans have one range */
    char names[MAXR + 1][32];
    const char *kept[MAXR + 1];
    int n = plan->nranges < MAXR ? plan->nranges : MAXR;
    xc_fmt(names[0], sizeof names[0], "ref.json");
    for (int k = 0; k < n; k++)
        xc_fmt(names[k + 1], sizeof names[k + 1], "ref.r%d.npy", k);
    for (int k = 0; k <= n; k++)
        kept[k] = names[k];
    char key[GATE_PATH];
    int cache = plan->nranges <= MAXR && gate_cache_key("dd-ref", c->name, g->cv, key, sizeof key);
    if (cache && gate_cache_get(key, kept, (size_t)n + 1, f->dir))
        return XC_OK;
    xc_status st = xc_cli_dedisperse_file(f->fil, f->refout, ref, plan, g->cv, 0, NULL, e);
    if (!st && cache)
        gate_cache_put(key, kept, (size_t)n + 1, f->dir);
    return st;
}

static void run_case(gatectx *g, const ddcase *c, const xc_dedisperser *ref)
{
    const char *obs = c->name;
    case_files *f = malloc(sizeof *f);
    xc_error e;
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    int64_t S = 0, maxd = 0;
    uint64_t nsamp_in = 0;
    xc_geometry geom;
    if (xc_vd_note(&g->vd, f ? case_files_make(f, g->work, obs, &e) : xc_error_set(&e, XC_ENOMEM, "out of memory"),
                   &e) ||
        xc_vd_note(&g->vd, xc_mkdirs(f->dir, &e), &e) ||
        xc_vd_note(&g->vd, xc_dmplan_parse(&plan, c->dmplan, obs, &e), &e) ||
        xc_vd_note(&g->vd, gate_dd_write_dmlists(f->dmlist, f->dmjson, &plan, &e), &e) ||
        /* crosscheck's own side: an error, not a verdict */
        xc_vd_note(&g->vd, case_input(g, c, f, &plan, &S, &nsamp_in, &geom, &maxd, &e), &e)) {
        xc_dmplan_free(&plan);
        free(f);
        return;
    }
    size_t nout = (size_t)(nsamp_in - (uint64_t)maxd);
    xc_planefile rf, cf;
    memset(&rf, 0, sizeof rf);
    memset(&cf, 0, sizeof cf);
    xc_plane cand = {0, NULL};
    const xc_plane *a = NULL;
    if (g->impl) {
        xc_ddopts o;
        memset(&o, 0, sizeof o);
        o.maxloss = g->maxloss;
        xc_status st = xc_cli_dedisperse_file_opts(f->fil, f->out, xc_dedisperser_of(g->impl), &plan, g->cv, &o, 0, NULL, &e);
        if (!st)
            st = xc_planefile_read(&cf, f->json, &e);
        if (st)
            xc_vd_fail(&g->vd, obs, g->label, "dedisperse", e.msg, "runs without error");
        else
            a = &cf.plane;
    } else if (case_command(g, c, f, &plan, nsamp_in, &geom, nout, &cand)) {
        a = &cand;
    }
    /* The reference only for an output to judge. */
    if (a && (xc_vd_note(&g->vd, case_reference(g, c, f, &plan, ref, &e), &e) ||
              xc_vd_note(&g->vd, xc_planefile_read(&rf, f->refjson, &e), &e)))
        a = NULL;
    if (a) {
        xc_planemeta am = rf.meta;
        xc_fmt(am.impl, sizeof am.impl, "%s", g->label);
        xc_cmpside A = {g->impl ? f->json : f->out, a, g->impl ? &cf.meta : &am, g->impl ? &cf.plan : &plan};
        xc_cmpside B = {f->refjson, &rf.plane, &rf.meta, &rf.plan};
        if (!approx_class(g))
            check_plane(g, obs, f->dir, f->fil, &plan, ref, &A, &B);
        if (c->impulses && !approx_class(g))
            check_impulses(g, obs, c, S, a, &rf.plane, &plan);
        check_pulses(g, obs, c, a, &rf.plane, &plan);
    }
    xc_vd_emit(&g->vd);
    xc_plane_free(&cand);
    xc_planefile_free(&cf);
    xc_planefile_free(&rf);
    xc_dmplan_free(&plan);
    free(f);
}

int gate_dedisperse(gatectx *g)
{
    const xc_registry *reg = xc_cli_registry();
    /* The reference by what it is, never by name. */
    const xc_impl *ri = xc_registry_pick(reg, XC_FAMILY_DEDISPERSE, XC_CAP_REFERENCE,
                                         XC_CAP_APPROXIMATE | XC_CAP_RUNTIME | XC_CAP_DEVICE);
    if (!ri)
        return xc_cli_failf("gate dedisperse", "no reference dedisperser is registered");
    const xc_dedisperser *ref = xc_dedisperser_of(ri);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !g->vd.fatal; i++)
        if (gate_case_due(g, cases[i].tier, "dedisperse", cases[i].name))
            run_case(g, &cases[i], ref);
    /* standard and full: the conformance suite too (compare/conform/xc_conform.h:
     * hand-worked cases, linearity, shifts, every nbits and convention
     * preset, kill masks, gulps), as the built-in implementations pass it. */
    if (g->impl && g->tier >= GATE_STANDARD && !g->vd.fatal) {
        if (!g->quiet)
            fprintf(stderr, "crosscheck gate dedisperse: the conformance suite\n");
        xc_conform_report rep;
        xc_conform_report_init(&rep);
        xc_error e;
        xc_status st = xc_conform_dedisperser(xc_dedisperser_of(g->impl), ref, NULL, &rep, &e);
        if (st == XC_ENOMEM) {
            xc_vd_note(&g->vd, st, &e);
        } else if (st) {
            xc_vd_fail(&g->vd, "conformance", g->label, "suite", e.msg, "runs");
        } else {
            const xc_conform_row *f = xc_conform_report_failed(&rep, NULL);
            char bound[64];
            xc_fmt(bound, sizeof bound, "every case (%s)", xc_tol_kind_name(g->impl->tol.kind));
            if (f)
                xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, "conformance", g->label, "suite", XC_CHECK_FAIL,
                                            (double)rep.nfail, 0, bound, &e,
                                            "%zu of %zu cases fail; first: %s: %s, expected %s (tolerance %s)",
                                            rep.nfail, rep.n, f->name, f->observed, f->expected, f->tolerance),
                          &e);
            else
                xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, "conformance", g->label, "suite", XC_CHECK_PASS, 0, 0, bound,
                                            &e, "all %zu cases pass", rep.n),
                          &e);
        }
        xc_conform_report_free(&rep);
        xc_vd_emit(&g->vd);
    }
    return 0;
}
