/* crosscheck gate dedisperse: the tiers' cases, the user's dedisperser (a
 * registered implementation, a plugin's as a rule, or an external command)
 * on each, and the checks against the reference dedisperser's planes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/cmd_run.h"
#include "cli/cmd_gate.h"
#include "cli/gate_dd.h"
#include "compare/xc_compare.h"
#include "compare/xc_conform.h"
#include "compare/xc_recover.h"
#include "core/base/xc_nbits.h"
#include "core/io/xc_filterbank.h"
#include "core/base/xc_fmt.h"
#include "core/io/xc_npy.h"
#include "core/dedisp/xc_planefile.h"
#include "core/io/xc_presto.h"
#include "synth/xc_synth.h"

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
    return g->cls == GATE_CLASS_APPROX ? g->loss : g->impl ? g->impl->tol.value : 0;
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
        if (!run_dedisperse_to(fil, out, ref, plan, cv, 0, NULL, &e) && !xc_planefile_read(&pf, json, &e)) {
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
        gate_note(g, st, &e);
    } else if (st) {
        gate_fail(g, obs, check, e.msg, "the reference's trials and shape");
    } else {
        char bound[200];
        double bnd = res.nranges ? res.r[0].bound : 0;
        if (rtol == 0)
            xc_fmt(bound, sizeof bound, "bit for bit");
        else
            xc_fmt(bound, sizeof bound, "|diff| <= %.3g (%.3g x max|ref|)", bnd, rtol);
        if (res.agree) {
            gate_note(g, xc_checks_addf(&g->rows, obs, g->label, check, XC_CHECK_PASS, res.max_abs, bnd, bound, &e,
                                        "%llu samples of %zu DM trials agree, max |diff| %.3g",
                                        (unsigned long long)res.n_total, res.nranges ? res.r[0].ndm : 0, res.max_abs),
                      &e);
        } else {
            char hint[400];
            other_convention(g, dir, fil, plan, ref, a, rtol, hint, sizeof hint);
            const xc_cmploc *f = &res.first, *w = &res.worst;
            gate_note(g, xc_checks_addf(&g->rows, obs, g->label, check, XC_CHECK_FAIL, res.max_abs, bnd, bound, &e,
                                        "%llu of %llu samples differ in %llu DM trials; first at DM %g (trial %zu), "
                                        "sample %zu: %.9g, reference %.9g; largest |diff| %.3g at DM %g, sample %zu%s",
                                        (unsigned long long)res.n_over, (unsigned long long)res.n_total,
                                        (unsigned long long)res.n_trials_diff, f->dm, f->idm, f->t, f->a, f->b,
                                        res.max_abs, w->dm, w->t, hint),
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
        gate_note(g, xc_checks_addf(&g->rows, obs, g->label, check, XC_CHECK_PASS, 0, 0, "every channel", &e,
                                    "every channel's impulse (%d channels x %zu DM trials) where the reference puts it",
                                    c->nchans, rb->ndm),
                  &e);
        return;
    }
    int64_t at = maxd + first * S;   /* the impulse's input sample */
    size_t lo = (size_t)(first * S), hi = (size_t)(first * S + maxd);
    size_t pb = argmax(rb->data + fj * rb->nsamp, lo, hi), pa = argmax(ra->data + fj * ra->nsamp, lo, hi);
    gate_note(g, xc_checks_addf(&g->rows, obs, g->label, check, XC_CHECK_FAIL, nbad, 0, "every channel", &e,
                                "%d of %d channels disagree (%s); first: channel %d (%.6g MHz) at DM %g (trial %zu): "
                                "the reference puts its impulse at sample %zu (delay %lld samples), the output's "
                                "peak is at sample %zu (delay %lld)",
                                nbad, c->nchans, list, first, c->fch1 + first * c->foff, plan->r[0].dms[fj], fj, pb,
                                (long long)(at - (int64_t)pb), pa, (long long)(at - (int64_t)pa)),
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
            gate_fail(g, obs, check, "the reference finds no boxcar in the pulse's window", "found");
            continue;
        }
        if (xc_recover_pulse(a, plan, c->tsamp, t.t_s, t.width_s, t.window_s, &fa, &e) || !fa.found) {
            gate_fail(g, obs, check, "no boxcar in the pulse's window of the output", "found");
            continue;
        }
        char bound[160];
        if (approx) {
            double loss = 1 - fa.snr / fb.snr, L = loss_bound(g);
            xc_fmt(bound, sizeof bound, "S/N loss <= %g", L);
            gate_note(g, xc_checks_addf(&g->rows, obs, g->label, check, loss <= L ? XC_CHECK_PASS : XC_CHECK_FAIL,
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
        gate_note(g, xc_checks_addf(&g->rows, obs, g->label, check, pass ? XC_CHECK_PASS : XC_CHECK_FAIL, fa.snr,
                                    fb.snr, bound, &e, "peak DM %g, S/N %.2f; the reference's: DM %g, S/N %.2f "
                                    "(injected: DM %g)", fa.dm, fa.snr, fb.dm, fb.snr, p->dm),
                  &e);
    }
}

/* ---- one case ---------------------------------------------------------------------- */

static void run_case(gatectx *g, const ddcase *c, const xc_dedisperser *ref)
{
    const char *obs = c->name;
    char dir[4200], fil[4300], out[4300], json[4400], refout[4300], refjson[4400];
    xc_fmt(dir, sizeof dir, "%s/%s", g->work, obs);
    xc_fmt(fil, sizeof fil, "%s/in.fil", dir);
    xc_fmt(out, sizeof out, "%s/out", dir);
    xc_fmt(json, sizeof json, "%s.json", out);
    xc_fmt(refout, sizeof refout, "%s/ref", dir);
    xc_fmt(refjson, sizeof refjson, "%s.json", refout);
    xc_error e;
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    if (gate_note(g, gate_mkdirs(dir, &e), &e) || gate_note(g, xc_dmplan_parse(&plan, c->dmplan, obs, &e), &e) ||
        gate_note(g, gate_dd_write_dmlists(dir, &plan, &e), &e)) {
        xc_dmplan_free(&plan);
        return;
    }
    int64_t S = 0;
    xc_status st;
    if (c->impulses) {
        st = gate_dd_write_impulses(c, g->cv, &plan, fil, &S, &e);
    } else {
        xc_synth_params sp;
        xc_synth_params_init(&sp);
        sp.nchans = c->nchans;
        sp.nbits = c->nbits;
        sp.tsamp = c->tsamp;
        sp.tobs = c->tobs;
        sp.fch1 = c->fch1;
        sp.foff = c->foff;
        sp.seed = c->seed;
        sp.convention = g->cv;
        st = XC_OK;
        for (int i = 0; i < c->npulses && !st; i++)
            st = xc_synth_params_add_pulse(&sp, &c->pulse[i], &e);
        if (!st)
            st = xc_synth_write(&sp, fil, NULL, xc_cli_cmdline(), &e);
        xc_synth_params_free(&sp);
    }
    xc_planefile rf, cf;
    memset(&rf, 0, sizeof rf);
    memset(&cf, 0, sizeof cf);
    /* The output's length: what the reference will give, nsamp - max delay. */
    xc_geometry geom = {c->nchans, c->fch1, c->foff, c->tsamp};
    int64_t maxd = 0;
    uint64_t nsamp_in = 0;
    xc_fbreader *fr = NULL;
    if (!st && !(st = xc_fbreader_open(&fr, fil, NULL, &e))) {
        const xc_fbheader *h = xc_fbreader_header(fr);
        nsamp_in = h->nsamp;
        geom = (xc_geometry){h->nchans, h->fch1, h->foff, h->tsamp};
        xc_fbreader_close(fr);
        st = xc_dmplan_max_delay(g->cv, &geom, &plan, &maxd, &e);
    }
    if (st) {   /* crosscheck's own side: an error, not a verdict */
        gate_note(g, st, &e);
        xc_dmplan_free(&plan);
        return;
    }
    size_t nout = (size_t)(nsamp_in - (uint64_t)maxd);
    xc_plane cand = {0, NULL};
    const xc_plane *a = NULL;
    if (g->impl) {
        st = run_dedisperse_to(fil, out, xc_dedisperser_of(g->impl), &plan, g->cv, 0, NULL, &e);
        if (!st)
            st = xc_planefile_read(&cf, json, &e);
        if (st)
            gate_fail(g, obs, "dedisperse", e.msg, "runs without error");
        else
            a = &cf.plane;
    } else {
        const xc_dmrange *r = &plan.r[0];
        gate_kv kv[] = {{"in", ""}, {"out", ""}, {"dmlist", ""}, {"dmjson", ""}, {"dm_lo", ""}, {"dm_hi", ""},
                        {"dm_end", ""}, {"dm_step", ""}, {"ndm", ""}, {"nbits", ""}, {"nchans", ""}, {"nsamp", ""},
                        {"tsamp", ""}, {"tsamp_us", ""}, {"fch1", ""}, {"foff", ""}, {"case", ""}, {"dir", ""}};
        uint64_t nsamp = nsamp_in;
        double foff = geom.foff;
        xc_fmt(kv[0].val, sizeof kv[0].val, "%s", fil);
        xc_fmt(kv[1].val, sizeof kv[1].val, "%s", out);
        xc_fmt(kv[2].val, sizeof kv[2].val, "%s/dmlist.txt", dir);
        xc_fmt(kv[3].val, sizeof kv[3].val, "%s/dmlist.json", dir);
        xc_fmt(kv[4].val, sizeof kv[4].val, "%.10g", r->dms[0]);
        xc_fmt(kv[5].val, sizeof kv[5].val, "%.10g", r->dms[r->ndm - 1]);
        xc_fmt(kv[6].val, sizeof kv[6].val, "%.10g", r->dms[r->ndm - 1] + r->step);
        xc_fmt(kv[7].val, sizeof kv[7].val, "%.10g", r->step);
        xc_fmt(kv[8].val, sizeof kv[8].val, "%zu", r->ndm);
        xc_fmt(kv[9].val, sizeof kv[9].val, "%d", c->nbits);
        xc_fmt(kv[10].val, sizeof kv[10].val, "%d", c->nchans);
        xc_fmt(kv[11].val, sizeof kv[11].val, "%llu", (unsigned long long)nsamp);
        xc_fmt(kv[12].val, sizeof kv[12].val, "%.10g", c->tsamp);
        xc_fmt(kv[13].val, sizeof kv[13].val, "%.10g", c->tsamp * 1e6);
        xc_fmt(kv[14].val, sizeof kv[14].val, "%.10g", c->fch1);
        xc_fmt(kv[15].val, sizeof kv[15].val, "%.10g", foff);
        xc_fmt(kv[16].val, sizeof kv[16].val, "%s", obs);
        xc_fmt(kv[17].val, sizeof kv[17].val, "%s", dir);
        char cmd[16384], log[4400], tail[512];
        xc_fmt(log, sizeof log, "%s/cmd.log", dir);
        int code = 0;
        if (gate_expand(g->cmd, kv, sizeof kv / sizeof kv[0], cmd, sizeof cmd, &e) ||
            gate_spawn(g, cmd, log, &code, tail, sizeof tail, &e)) {
            gate_note(g, XC_EINVAL, &e);
        } else if (!gate_cmd_failed(g, obs, cmd, log, code, tail) &&
                   !gate_dd_read_output(g, obs, out, &plan, nout, &cand)) {
            a = &cand;
        }
    }
    /* The reference only for an output to judge. */
    if (a && (gate_note(g, run_dedisperse_to(fil, refout, ref, &plan, g->cv, 0, NULL, &e), &e) ||
              gate_note(g, xc_planefile_read(&rf, refjson, &e), &e)))
        a = NULL;
    if (a) {
        xc_planemeta am = rf.meta;
        xc_fmt(am.impl, sizeof am.impl, "%s", g->label);
        xc_cmpside A = {g->impl ? json : out, a, g->impl ? &cf.meta : &am, g->impl ? &cf.plan : &plan};
        xc_cmpside B = {refjson, &rf.plane, &rf.meta, &rf.plan};
        if (!approx_class(g))
            check_plane(g, obs, dir, fil, &plan, ref, &A, &B);
        if (c->impulses && !approx_class(g))
            check_impulses(g, obs, c, S, a, &rf.plane, &plan);
        check_pulses(g, obs, c, a, &rf.plane, &plan);
    }
    gate_emit(g);
    xc_plane_free(&cand);
    xc_planefile_free(&cf);
    xc_planefile_free(&rf);
    xc_dmplan_free(&plan);
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
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !g->fatal; i++) {
        if (cases[i].tier > g->tier)
            continue;
        if (!g->quiet)
            fprintf(stderr, "crosscheck gate dedisperse: %s\n", cases[i].name);
        run_case(g, &cases[i], ref);
    }
    /* standard and full: the conformance suite too (compare/xc_conform.h:
     * hand-worked cases, linearity, shifts, every nbits and convention
     * preset, kill masks, gulps), as the built-in implementations pass it. */
    if (g->impl && g->tier >= GATE_STANDARD && !g->fatal) {
        if (!g->quiet)
            fprintf(stderr, "crosscheck gate dedisperse: the conformance suite\n");
        xc_conform_report rep;
        xc_conform_report_init(&rep);
        xc_error e;
        xc_status st = xc_conform_dedisperser(xc_dedisperser_of(g->impl), ref, NULL, &rep, &e);
        if (st == XC_ENOMEM) {
            gate_note(g, st, &e);
        } else if (st) {
            gate_fail(g, "conformance", "suite", e.msg, "runs");
        } else {
            const xc_conform_row *f = xc_conform_report_failed(&rep, NULL);
            char bound[64];
            xc_fmt(bound, sizeof bound, "every case (%s)", xc_tol_kind_name(g->impl->tol.kind));
            if (f)
                gate_note(g, xc_checks_addf(&g->rows, "conformance", g->label, "suite", XC_CHECK_FAIL,
                                            (double)rep.nfail, 0, bound, &e,
                                            "%zu of %zu cases fail; first: %s: %s, expected %s (tolerance %s)",
                                            rep.nfail, rep.n, f->name, f->observed, f->expected, f->tolerance),
                          &e);
            else
                gate_note(g, xc_checks_addf(&g->rows, "conformance", g->label, "suite", XC_CHECK_PASS, 0, 0, bound,
                                            &e, "all %zu cases pass", rep.n),
                          &e);
        }
        xc_conform_report_free(&rep);
        gate_emit(g);
    }
    return 0;
}
