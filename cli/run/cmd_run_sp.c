/* crosscheck run: the single-pulse search of a synthetic observation's
 * reference plane by every single-pulse searcher; each injected pulse must be
 * found (compare/check_sp.c) and each list must equal the reference
 * searcher's. */
#include <stdlib.h>

#include "cli/run/run.h"
#include "compare/xc_checks.h"
#include "core/sp/xc_spsearch.h"

/* S/N of a searcher against the reference's: the same formula over double
 * prefix sums of at most a few million float samples, so a relative 1e-9 is
 * thousands of times the rounding bound (docs/SINGLEPULSE.md). */
#define RUN_SP_RTOL 1e-9

void run_singlepulse(runctx *c, const char *obs, const planerun *ref, const xc_synth_params *sp)
{
    const xc_planefile *pf = &ref->pf;
    const double tsamp = pf->meta.tsamp;
    size_t ndms = xc_dmplan_ndm(&pf->plan);
    double *dms = malloc((ndms ? ndms : 1) * sizeof *dms);
    xc_spplane *v = calloc((size_t)(pf->plane.nranges ? pf->plane.nranges : 1), sizeof *v);
    if (!dms || !v) {
        xc_vd_fail(&c->vd, obs, "-", "single-pulse search", "out of memory for the DM trials", "runs without error");
        goto done;
    }
    xc_spplane_views(&pf->plan, &pf->plane, tsamp, v, dms);
    xc_spopts o;
    xc_spopts_default(&o, XC_SP_HEIMDALL);
    /* The widest box twice the widest pulse: Heimdall's friends of friends
     * joins boxes within three widths, so the default 4096-sample box would
     * join pulses a second apart into one cluster (docs/SINGLEPULSE.md). */
    double wmax = 4 * tsamp;
    for (size_t p = 0; p < sp->npulses; p++)
        if (2e-3 * sp->pulses[p].width_ms > wmax)
            wmax = 2e-3 * sp->pulses[p].width_ms;
    o.wmax_s = wmax;
    o.threads = c->threads;
    xc_spcandlist want;
    xc_spcandlist_init(&want);
    int have_ref = 0;
    size_t i = 0;
    const xc_impl *im;
    while ((im = run_next_impl(c, obs, "single-pulse search", XC_FAMILY_SINGLEPULSE, &i))) {
        xc_spcandlist l;
        xc_spcandlist_init(&l);
        xc_error e;
        xc_error_clear(&e);
        if (xc_sp_search(xc_spsearcher_of(im), &o, v, pf->plane.nranges, tsamp, dms, ndms, &l, &e)) {
            xc_vd_fail(&c->vd, obs, im->name, "single-pulse search", e.msg, "runs without error");
            xc_vd_emit(&c->vd);
            continue;
        }
        l.tsamp = tsamp;
        if (!have_ref && (im->caps & XC_CAP_REFERENCE))
            have_ref = 1;
        else if (have_ref)
            xc_vd_note(&c->vd, xc_check_sp_same(&c->vd.rows, obs, im->name, &l, &want, RUN_SP_RTOL, &e), &e);
        for (size_t p = 0; p < sp->npulses; p++) {
            const xc_synth_pulse *pu = &sp->pulses[p];
            xc_pulse_truth t;
            xc_pulse_truth_init(&t, p, pu->t_s, pu->dm, pu->width_ms * 1e-3, pu->snr, tsamp);
            xc_vd_note(&c->vd, xc_check_sp_pulse(&c->vd.rows, obs, im->name, &l, &pf->plan, &t, &e), &e);
        }
        xc_vd_emit(&c->vd);
        if (have_ref && !want.c && (im->caps & XC_CAP_REFERENCE))
            want = l;
        else
            xc_spcandlist_free(&l);
    }
    xc_spcandlist_free(&want);
done:
    free(dms);
    free(v);
}
