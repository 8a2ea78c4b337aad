/* crosscheck run: the matched-filter accel (FDAS) and jerk (FDJS) search.
 * On one spectrum (a file, or a pulsar synthesized, dedispersed and FFT'd):
 *  - every available accel implementation with preset exact; each list is
 *    judged against the reference's (the implementation's stated tolerance),
 *    and the known signal is found at its r, z (and w), within the spec's
 *    windows (default one step of each grid: 1 bin, 2, 20);
 *  - where the spec names accelsearch's own table of the same search, the
 *    first threaded host implementation with preset presto (accelsearch's
 *    normalisation windows, rounding and selection) against that table,
 *    within r 0.5 bin, z 2, w 20 and sigma 0.2.  With
 *    rlo/rhi the presto search is widened to accelsearch's block boundaries
 *    (the same blocks give the same normalisation windows) and sigma is
 *    taken with the whole spectrum's trial count, as accelsearch's was; only
 *    candidates in the searched range with sigma above 6 are compared there
 *    (accelsearch's greedy one-per-15-bins selection depends on where its
 *    scan started, so weak candidates of a sub-range differ). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/base/cli.h"
#include "cli/run/run.h"
#include "core/base/xc_fs.h"
#include "compare/xc_cmpcands.h"
#include "core/search/xc_accel.h"
#include "core/base/xc_fmt.h"
#include "core/search/stats/xc_signif.h"

static xc_accel_opts opts_of(const runctx *c, const xc_rs_accel *ob, xc_accel_preset preset)
{
    xc_accel_opts o;
    xc_accel_opts_default(&o);
    o.zmax = ob->zmax;
    o.wmax = ob->wmax;
    o.numharm = ob->numharm;
    o.sigma = ob->sigma;
    o.rlo = ob->rlo;
    o.rhi = ob->rhi;
    o.threads = c->threads;
    o.preset = preset;
    return o;
}

/* An accel list against the reference's: the same half-bin grid (equal r),
 * power and sigma within the implementation's stated tolerance. */
static void judge_accel(const xc_impl *im, const xc_candlist *ref, xc_cmpcands_opts *co)
{
    co->dr = 0.5;
    double smax = ref->n ? ref->c[0].sigma : 1;
    if (im->tol.kind == XC_TOL_RELATIVE) {
        co->rtol_power = fmax(co->rtol_power, im->tol.value);
        co->dsigma = fmax(co->dsigma, im->tol.value * smax);
    }
}

/* The first available implementation that is neither the reference nor a
 * device: the one whose preset presto is compared with accelsearch's table. */
static const xc_accel_searcher *host_searcher(runctx *c)
{
    xc_registry *reg = xc_cli_registry();
    for (size_t i = 0; i < xc_registry_count(reg, XC_FAMILY_ACCEL); i++) {
        const xc_impl *im = xc_registry_at(reg, XC_FAMILY_ACCEL, i);
        char why[256];
        if (!(im->caps & (XC_CAP_REFERENCE | XC_CAP_DEVICE)) && run_wanted(c, im) &&
            xc_impl_available(im, why, sizeof why))
            return xc_accel_searcher_of(im);
    }
    return NULL;
}

/* Preset presto against accelsearch's table (see the top). */
static void against_accelsearch(runctx *c, const char *obs, const xc_rs_accel *ob, const xc_spectrum *sp)
{
    const xc_accel_searcher *s = host_searcher(c);
    if (!s) {
        run_skip_text(c, obs, "accel vs accelsearch", "-", "no host implementation wanted here");
        return;
    }
    xc_error e;
    char table[4500];
    xc_candlist theirs, ours;
    xc_candlist_init(&theirs);
    xc_candlist_init(&ours);
    xc_accel_opts o = opts_of(c, ob, XC_ACCEL_PRESTO), whole = o;
    whole.rlo = whole.rhi = NAN;
    xc_accel_plan full;
    xc_status st = xc_path_under(table, sizeof table, c->datasets, ob->accelsearch, &e);
    if (!st)
        st = xc_cands_read_accel(&theirs, table, &e);
    if (!st)
        st = xc_accel_plan_make(&full, &whole, sp->nbins, sp->T, &e);
    if (st) {
        xc_vd_fail(&c->vd, obs, s->impl.name, "candidates vs accelsearch", e.msg, "readable");
        xc_candlist_free(&theirs);
        return;
    }
    double lo = 0, hi = INFINITY;
    size_t maxn = (size_t)-1;
    if (!isnan(ob->rlo) || !isnan(ob->rhi)) {
        long half = full.uselen / 2, r0 = full.rlo;
        long a = isnan(ob->rlo) ? r0 : (long)floor((ob->rlo - (double)r0) / (double)half) * half + r0;
        long b = isnan(ob->rhi) ? full.rhi : (long)ceil((ob->rhi - (double)a) / (double)half) * half + a + 1;
        o.rlo = (double)(a < r0 ? r0 : a);
        o.rhi = (double)b;
        lo = ob->rlo;
        hi = ob->rhi;
        /* in a sub-range the strongest candidate: the weaker ones near it
         * differ (see the top) */
        maxn = 1;
    }
    st = xc_accel_run(s, sp, &o, &ours, &e);
    if (!st && (!isnan(ob->rlo) || !isnan(ob->rhi)))
        for (size_t i = 0; i < ours.n; i++) {
            int stage = 0;
            while ((1 << stage) < ours.c[i].numharm)
                stage++;
            ours.c[i].ntrials = full.ntrials[stage];
            ours.c[i].sigma = xc_candidate_sigma(ours.c[i].power, ours.c[i].dof, full.ntrials[stage], NULL);
        }
    xc_accel_plan_free(&full);
    if (st)
        xc_vd_fail(&c->vd, obs, s->impl.name, "candidates vs accelsearch", e.msg, "runs without error");
    else
        xc_vd_note(&c->vd, xc_check_accel_vs_accelsearch(&c->vd.rows, obs, s->impl.name, &ours, &theirs, ob->accelsearch,
                                                  ob->sigma, lo, hi, maxn, &e),
                 &e);
    xc_vd_emit(&c->vd);
    xc_candlist_free(&ours);
    xc_candlist_free(&theirs);
}

void run_accel(runctx *c, const xc_rs_accel *ob)
{
    const char *obs = run_begin(c, ob->name);
    xc_error e;
    char path[4500], truthp[4500] = "";
    xc_spectrum sp;
    if (run_load_spectrum(c, obs, ob->fft, ob->synth, &sp, path, sizeof path, truthp, sizeof truthp))
        return;
    double tr = ob->truth_r, tz = ob->truth_z, tw = ob->truth_w;
    if (truthp[0]) {
        xc_truth t;
        if (xc_truth_read(&t, truthp, sp.T, &e)) {
            xc_vd_fail(&c->vd, obs, "-", "truth", e.msg, "readable");
            xc_vd_emit(&c->vd);
            xc_spectrum_free(&sp);
            return;
        }
        tr = t.r;
        tz = t.have_rz ? t.z : NAN;
        tw = t.w;
    }
    char line[4800];
    xc_fmt(line, sizeof line,
           "spectrum %s: %zu bins, T = %.3f s; accel zmax %d, wmax %d, numharm %d, sigma > %g, r %.0f..%.0f; truth r "
           "%.2f, z %.1f, w %.0f",
           run_shown_path(c, path), sp.nbins, sp.T, ob->zmax, ob->wmax, ob->numharm, ob->sigma, ob->rlo, ob->rhi, tr, tz, tw);
    xc_vd_text(&c->vd, line);
    xc_psearch_opts o = {.family = XC_FAMILY_ACCEL, .ac = opts_of(c, ob, XC_ACCEL_EXACT)};
    searchrun runs[RUN_MAXIMPL];
    int n = run_searches(c, obs, &sp, &o, judge_accel, runs);
    for (int i = 0; i < n && !isnan(tr); i++)
        xc_vd_note(&c->vd, xc_check_accel_truth(&c->vd.rows, obs, runs[i].impl->name, &runs[i].cands, tr, tz, tw, ob->dr,
                                         ob->dz, ob->dw, ob->sigma, &e),
                 &e);
    xc_vd_emit(&c->vd);
    run_known(c, obs, path, ob->known, ob->nknown, runs, n);
    if (ob->accelsearch)
        against_accelsearch(c, obs, ob, &sp);
    run_searches_free(runs, n);
    xc_spectrum_free(&sp);
}
