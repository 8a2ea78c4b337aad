/* crosscheck run: dedispersion.  Every wanted dedisperser runs the
 * observation's plan; its plane is judged against the reference's, one
 * thread against many, and for the injected pulses and the known line
 * (compare/check/xc_checks.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_ddfile.h"
#include "cli/base/cli_memory.h"
#include "core/dedisp/run/xc_ddstream.h"
#include "core/base/xc_fmt.h"
#include "cli/run/run.h"
#include "core/base/xc_fs.h"
#include "core/base/xc_nbits.h"
#include "core/base/xc_strlist.h"
#include "synth/model/xc_synth.h"

/* Same bytes at one thread as at many (integer input only: float sums may
 * legitimately be reassociated). */
static void check_threads(runctx *c, const char *obs, const char *fil, const char *out, const xc_dmplan *plan,
                          const planerun *pr)
{
    const char *name = pr->impl->impl.name;
    char out1[4400], json1[4500];
    xc_fmt(out1, sizeof out1, "%s.t1", out);
    xc_fmt(json1, sizeof json1, "%s.json", out1);
    xc_planefile one;
    memset(&one, 0, sizeof one);
    xc_error e;
    xc_ddopts o1;
    memset(&o1, 0, sizeof o1);
    o1.threads = 1;
    xc_status st = xc_cli_dedisperse_file_opts(fil, out1, pr->impl, plan, c->cv, &o1, c->stream_memory, NULL, &e);
    if (!st)
        st = xc_planefile_read(&one, json1, &e);
    if (st)
        xc_vd_fail(&c->vd, obs, name, "1 thread vs many", e.msg, "identical");
    else
        xc_vd_note(&c->vd, xc_check_threads(&c->vd.rows, obs, name, &one.plane, &pr->pf.plane, c->threads, &e), &e);
    xc_planefile_free(&one);
}

/* The memory the observation needs: every exact dedisperser's plane held at
 * once (the reference's and each one judged against it, and the one-thread
 * plane), and one stream's buffers beside them.  Said on stderr; with
 * -max_memory the streams get what the planes leave, and an observation
 * whose planes alone (with the smallest gulp) exceed it is refused: an
 * error (exit 2) naming the estimate and the bound.  Returns 0 to go on. */
static int memory_plan(runctx *c, const char *obs, const char *fil, const xc_dmplan *plan)
{
    int k = 1;   /* the one-thread plane */
    const xc_registry *reg = xc_cli_registry();
    for (size_t i = 0; i < xc_registry_count(reg, XC_FAMILY_DEDISPERSE); i++) {
        const xc_impl *im = xc_registry_at(reg, XC_FAMILY_DEDISPERSE, i);
        k += run_wanted(c, im) && !(im->caps & XC_CAP_APPROXIMATE) && xc_impl_available(im, NULL, 0);
    }
    xc_error e;
    xc_ddstream_est est;
    if (run_dd_estimate(c, fil, plan, &est))   /* the dedispersion says it again, as a row */
        return 0;
    double held = k * est.plane, need = held + est.bytes, least = held + est.fixed + est.min_gulp * est.per_sample;
    char b[32], p[32], m[32];
    xc_fmt_bytes(b, sizeof b, need);
    xc_fmt_bytes(p, sizeof p, est.plane);
    if (!c->quiet)
        fprintf(stderr, "crosscheck run: %s: about %s of memory (%d planes of %s, a gulp's buffers)\n", obs, b, k, p);
    c->stream_memory = 0;
    if (!(c->max_memory > 0) || need <= c->max_memory)
        return 0;
    if (least <= c->max_memory) {
        c->stream_memory = c->max_memory - held;
        return 0;
    }
    xc_fmt_bytes(b, sizeof b, least);
    xc_fmt_bytes(m, sizeof m, c->max_memory);
    xc_vd_note(&c->vd, xc_error_set(&e, XC_EINVAL, "%s: needs at least %s (%d planes of %s held at once), more than "
                                    "-max_memory %s", obs, b, k, p, m), &e);
    xc_vd_fail(&c->vd, obs, "-", "memory", e.msg, "within -max_memory");
    xc_vd_emit(&c->vd);
    return 1;
}

/* Runs every implementation, compares with the reference, checks thread
 * determinism.  Fills runs[] (runs[0] is the reference).  Returns the count. */
static int run_all(runctx *c, const char *obs, const char *fil, const xc_dmplan *plan, int approximate,
                   planerun *runs)
{
    int n = 0, na = 0;
    xc_error e;
    size_t i = 0;
    const xc_impl *approx[RUN_MAXIMPL];
    if (memory_plan(c, obs, fil, plan))
        return 0;
    for (const xc_impl *di; n < RUN_MAXIMPL && (di = run_next_impl(c, obs, "", XC_FAMILY_DEDISPERSE, &i));) {
        if (di->caps & XC_CAP_APPROXIMATE) {
            /* judged by their own reference and their smearing bound, not
             * against exact planes; where the spec asks (or -impl names them):
             * judging them takes tens of seconds per observation */
            if (approximate || (c->only && xc_strlist_has(c->only, di->name))) {
                if (na < RUN_MAXIMPL)
                    approx[na++] = di;
                else   /* never dropped in silence */
                    xc_vd_fail(&c->vd, obs, di->name, "approximate", "more approximate dedispersers than RUN_MAXIMPL", "-");
            }
            continue;
        }
        const xc_dedisperser *d = xc_dedisperser_of(di);
        planerun *pr = &runs[n];
        memset(pr, 0, sizeof *pr);
        pr->impl = d;
        snprintf(pr->label, sizeof pr->label, "%s", d->impl.name);
        char out[4300];
        xc_fmt(out, sizeof out, "%s/%s.%s", c->work, obs, d->impl.name);
        xc_fmt(pr->json, sizeof pr->json, "%s.json", out);
        xc_ddopts o;
        memset(&o, 0, sizeof o);
        o.threads = c->threads;
        xc_status st = xc_cli_dedisperse_file_opts(fil, out, d, plan, c->cv, &o, c->stream_memory, &pr->seconds, &e);
        if (!st)
            st = xc_planefile_read(&pr->pf, pr->json, &e);
        if (st) {
            xc_planefile_free(&pr->pf);
            xc_vd_fail(&c->vd, obs, d->impl.name, "dedisperse", e.msg, "runs without error");
            continue;
        }
        n++;
        if (n == 1 && !(di->caps & XC_CAP_REFERENCE)) {
            xc_vd_fail(&c->vd, obs, d->impl.name, "reference present", "the reference did not run", "-");
            return n;
        }
        if (n > 1) {
            xc_cmpside A = {pr->json, &pr->pf.plane, &pr->pf.meta, &pr->pf.plan};
            xc_cmpside B = {runs[0].json, &runs[0].pf.plane, &runs[0].pf.meta, &runs[0].pf.plan};
            xc_vd_note(&c->vd, xc_check_plane(&c->vd.rows, obs, d->impl.name, &A, &B, &e), &e);
        }
        if ((di->caps & XC_CAP_THREADED) && !xc_nbits_is_float(pr->pf.meta.nbits))
            check_threads(c, obs, fil, out, plan, pr);
        xc_vd_emit(&c->vd);
    }
    xc_vd_emit(&c->vd);
    run_approx(c, obs, fil, plan, approx, na);
    return n;
}

static void free_runs(planerun *runs, int n)
{
    for (int i = 0; i < n; i++)
        xc_planefile_free(&runs[i].pf);
}

void run_synthetic(runctx *c, const xc_rs_synthetic *ob)
{
    const char *obs = run_begin(c, ob->name);
    xc_error e;
    xc_synth_params sp;
    xc_synth_params_init(&sp);
    xc_status st = xc_synth_params_from_json(&sp, ob->synth, obs, &e);
    char fil[4300], truth[4400];
    xc_fmt(fil, sizeof fil, "%s/%s.fil", c->work, obs);
    xc_fmt(truth, sizeof truth, "%s/%s.truth.json", c->work, obs);
    if (!st) {
        /* The run's convention wins: every plane of the run must share it. */
        if (!sp.convention || strcmp(sp.convention->name, c->cv->name) != 0)
            sp.convention = c->cv;
        sp.nthreads = c->threads;
        st = xc_synth_write(&sp, fil, truth, xc_cli_cmdline(), &e);
    }
    if (st) {
        xc_vd_fail(&c->vd, obs, "synth", "synthesize", e.msg, "runs without error");
        xc_vd_emit(&c->vd);
        xc_synth_params_free(&sp);
        return;
    }
    xc_vd_section(&c->vd, obs);
    char line[512];
    xc_fmt(line, sizeof line, "%d channels of %d bits, tsamp %.1f us, %.2f s, fch1 %.3f MHz, foff %.4f MHz, "
            "seed %llu; plan %s; convention %s", sp.nchans, sp.nbits, sp.tsamp * 1e6, sp.tobs, sp.fch1,
            xc_synth_foff(&sp), (unsigned long long)sp.seed, ob->dmplan, c->cv->name);
    xc_vd_text(&c->vd, line);
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    if ((st = xc_dmplan_parse(&plan, ob->dmplan, "dmplan", &e))) {
        xc_vd_fail(&c->vd, obs, "-", "DM plan", e.msg, "a valid plan");
        xc_vd_emit(&c->vd);
        xc_synth_params_free(&sp);
        return;
    }
    planerun runs[RUN_MAXIMPL];
    int n = run_all(c, obs, fil, &plan, ob->approximate, runs);
    for (size_t p = 0; p < sp.npulses && n > 0; p++) {
        const xc_synth_pulse *pu = &sp.pulses[p];
        xc_pulse_truth t;
        xc_pulse_truth_init(&t, p, pu->t_s, pu->dm, pu->width_ms * 1e-3, pu->snr, sp.tsamp);
        for (int i = 0; i < n; i++)
            xc_vd_note(&c->vd, xc_check_pulse(&c->vd.rows, obs, runs[i].label, &runs[i].pf.plane, &runs[i].pf.plan,
                                       runs[i].pf.meta.tsamp, &t, &e), &e);
        xc_vd_emit(&c->vd);
        plot_snr_curves(c, obs, runs, n, &plan, &t);
    }
    if (n > 0) {
        run_singlepulse(c, obs, &runs[0], &sp);
        plot_plane(c, obs, &runs[0], 0);
    }
    free_runs(runs, n);
    xc_dmplan_free(&plan);
    xc_synth_params_free(&sp);
}

void run_real(runctx *c, const xc_rs_real *ob)
{
    const char *obs = run_begin(c, ob->name);
    xc_error e;
    char fil[4096];
    if (xc_path_under(fil, sizeof fil, c->datasets, ob->file, &e)) {
        xc_vd_fail(&c->vd, obs, "-", "the observation's file", e.msg, "a path that fits");
        xc_vd_emit(&c->vd);
        return;
    }
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    if (xc_dmplan_parse(&plan, ob->dmplan, "dmplan", &e)) {
        xc_vd_fail(&c->vd, obs, "-", "DM plan", e.msg, "a valid plan");
        xc_vd_emit(&c->vd);
        return;
    }
    xc_vd_section(&c->vd, obs);
    char line[2300];
    xc_fmt(line, sizeof line, "file %s; plan %s; convention %s", fil, ob->dmplan, c->cv->name);
    xc_vd_text(&c->vd, line);
    planerun runs[RUN_MAXIMPL];
    int n = run_all(c, obs, fil, &plan, ob->approximate, runs);
    for (int i = 0; i < n && !isnan(ob->line_dm); i++) {
        const xc_planefile *pf = &runs[i].pf;
        double *spec = NULL;
        xc_powerpeak pk;
        /* Skip the lowest 1 Hz: receiver red noise is not the pulsar. */
        xc_vd_note(&c->vd, xc_check_line(&c->vd.rows, obs, runs[i].label, &pf->plane, &pf->plan, pf->meta.tsamp, ob->line_dm,
                                  ob->line_freq_hz, 1.0, i == 0 ? &spec : NULL, &pk, &e), &e);
        xc_vd_emit(&c->vd);
        if (spec)
            plot_spectrum(c, obs, runs[i].label, ob->line_dm, ob->line_freq_hz, &pk, spec);
        free(spec);
    }
    if (n > 0) {
        run_sp_known(c, obs, &runs[0], ob->known, ob->nknown);
        plot_plane(c, obs, &runs[0], 0);
    } else {
        for (size_t j = 0; j < ob->nknown; j++)
            xc_vd_note(&c->vd, xc_check_known_burst(&c->vd.rows, obs, &ob->known[j], &e), &e);
        xc_vd_emit(&c->vd);
    }
    free_runs(runs, n);
    xc_dmplan_free(&plan);
    run_prepsubband(c, ob, fil);
}
