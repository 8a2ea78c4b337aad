/* crosscheck run: periodicity.  Every wanted Pulscan searcher runs on the
 * same spectrum; each list is judged against the reference's, the strongest
 * candidate against the known pulsar, and a synthetic pulsar's truth
 * (compare/check/xc_checks.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/base/cli.h"
#include "core/base/xc_fmt.h"
#include "cli/run/run.h"
#include "synth/model/xc_synth.h"

/* A Pulscan list against the reference's: float recursion against double
 * direct sums, within the searcher's own stated bound. */
static void judge_pulscan(const xc_impl *im, const xc_candlist *ref, xc_cmpcands_opts *co)
{
    (void)ref;
    if (im->tol.kind == XC_TOL_RELATIVE && im->tol.value > co->rtol_power)
        co->rtol_power = im->tol.value;
}

/* The truth of a synthetic pulsar: the fundamental within one bin in r and
 * two in |z| (a boxcar cannot tell the sign of z). */
static void check_truth(runctx *c, const char *obs, const char *truthp, double T, const searchrun *runs, int n)
{
    xc_truth t;
    xc_error e;
    if (xc_truth_read(&t, truthp, T, &e)) {
        xc_vd_fail(&c->vd, obs, "-", "truth", e.msg, "readable");
        return;
    }
    xc_cmpcands_opts co;
    xc_cmpcands_opts_init(&co);
    co.fundamental = 1;
    co.truth_dr = 1.0;
    co.truth_dz = 2.0;
    for (int i = 0; i < n; i++)
        xc_vd_note(&c->vd, xc_check_truth(&c->vd.rows, obs, runs[i].impl->name, &runs[i].cands, &t, &co, &e), &e);
}

void run_periodicity(runctx *c, const xc_rs_periodicity *ob)
{
    const char *obs = run_begin(c, ob->name);
    xc_error e;
    xc_psearch_opts po;
    xc_psearch_opts_default(&po, XC_FAMILY_PULSCAN);
    xc_psearch_opts_set(&po, ob->zmax, ob->numharm, ob->sigma);
    char path[4500], truthp[4500] = "";
    xc_spectrum sp;
    if (run_load_spectrum(c, obs, ob->fft, ob->synth, &sp, path, sizeof path, truthp, sizeof truthp))
        return;
    char line[4700];
    xc_fmt(line, sizeof line, "spectrum %s: %zu bins, T = %.3f s; pulscan zmax %d, numharm %d, sigma > %g",
            run_shown_path(c, path),
            sp.nbins, sp.T, po.ps.zmax, po.ps.numharm, po.ps.sigma);
    xc_vd_text(&c->vd, line);
    searchrun runs[RUN_MAXIMPL];
    int n = run_searches(c, obs, &sp, &po, judge_pulscan, runs);
    /* Harmonics and subharmonics up to 16, as xc_cmpcands_opts' maxharm. */
    for (int i = 0; i < n && !isnan(ob->f_hz); i++)
        xc_vd_note(&c->vd, xc_check_top_cand(&c->vd.rows, obs, runs[i].impl->name, &runs[i].cands, ob->f_hz, 16, &e),
                 &e);
    if (truthp[0])
        check_truth(c, obs, truthp, sp.T, runs, n);
    xc_vd_emit(&c->vd);
    run_known(c, obs, path, ob->known, ob->nknown, runs, n);
    plot_cands(c, obs, runs, n);
    run_searches_free(runs, n);
    xc_spectrum_free(&sp);
}
