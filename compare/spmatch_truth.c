/* spmatch_truth.c: a single-pulse list against a truth's pulses (xc_spmatch.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/xc_spmatch.h"

xc_status xc_spmatch_truth(const xc_spcandlist *l, const char *name, const xc_truth *t, const xc_spmatch_opts *o,
                           xc_sptruth_result *r, xc_error *err)
{
    memset(r, 0, sizeof *r);
    xc_spsteps steps;
    xc_status st = xc_spsteps_init_(&steps, l, err);
    if (st)
        return st;
    if (!(o->tol_dm > 0) && steps.n < 2 && l->n) {
        xc_spsteps_free_(&steps);
        return xc_error_set(err, XC_EINVAL, "%s: candidates at one DM trial only, so it does not tell its DM step: "
                            "give the DM tolerance (-tol_dm)", name);
    }
    r->n = t->npulses;
    r->bursts = calloc(r->n ? r->n : 1, sizeof *r->bursts);
    unsigned char *near = calloc(l->n ? l->n : 1, 1);
    if (!r->bursts || !near) {
        free(near);
        xc_spsteps_free_(&steps);
        xc_sptruth_result_free(r);
        return xc_error_set(err, XC_ENOMEM, "single-pulse truth: out of memory for %zu pulses", t->npulses);
    }
    r->pass = 1;
    for (size_t k = 0; k < t->npulses; k++) {
        const xc_truth_pulse *p = &t->pulses[k];
        xc_spburst *b = &r->bursts[k];
        b->truth_snr = isfinite(p->expected_boxcar_snr) ? p->expected_boxcar_snr : p->snr;
        b->tol_dm = o->tol_dm > 0 ? o->tol_dm : xc_spsteps_at_(&steps, p->dm);
        for (size_t i = 0; i < l->n; i++) {
            const xc_spcand *c = &l->c[i];
            double tol_s = o->tol_s > 0 ? o->tol_s : fmax(xc_spcand_width_s(l, c), p->width_ms * 1e-3);
            double dt = xc_spcand_centre_s(l, c) - p->t_s, ddm = c->dm - p->dm;
            if (fabs(dt) > tol_s || fabs(ddm) > b->tol_dm)
                continue;
            near[i] = 1;
            b->count++;
            if (!b->found || c->snr > l->c[b->index].snr) {
                b->found = 1;
                b->index = i;
                b->snr = c->snr;
                b->dt_s = dt;
                b->ddm = ddm;
                b->tol_s = tol_s;
            }
        }
        b->ratio = b->found && isfinite(b->truth_snr) && b->truth_snr != 0 ? b->snr / b->truth_snr : NAN;
        b->snr_ok = b->found && (!(o->truth_rtol_snr > 0) || fabs(b->ratio - 1) <= o->truth_rtol_snr);
        r->nfound += b->found;
        if (b->found && isfinite(b->ratio))
            xc_spstat_add_(&r->ratio, b->ratio, 1);
        r->pass = r->pass && b->snr_ok;
    }
    xc_spstat_end_(&r->ratio);
    for (size_t i = 0; i < l->n; i++)
        r->nother += !near[i];
    free(near);
    xc_spsteps_free_(&steps);
    return XC_OK;
}

void xc_sptruth_result_free(xc_sptruth_result *r)
{
    free(r->bursts);
    memset(r, 0, sizeof *r);
}
