/* A subband plan chosen from a smearing budget: DDplan.py's plan for each
 * candidate nsub, its additions per sample and its S/N-loss bound (the one
 * core/dedisp/approx/xc_subband.h derives), and the cheapest within the budget.  See
 * core/dedisp/plan/xc_ddplan_presto.h. */
#include "core/dedisp/plan/xc_ddplan_presto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/approx/xc_subband.h"

/* The loss bound of one row: S = floor(dsubDM/2 * spread per DM) + 3 samples. */
static void row_loss(const xc_subplan *sp, const xc_geometry *g, const xc_convention *cv, const xc_ddp_obs *o,
                     const xc_ddp_row *r, const double *widths_us, int nw, double *loss, double *width_us,
                     double *spread)
{
    double dt = o->dt * r->downsamp;
    double s = floor(xc_subband_spread(sp, g, cv, 0.0, r->dsubdm / 2, dt)) + 3;
    *loss = 0;
    *spread = s;
    *width_us = nw ? widths_us[0] : 0;
    for (int w = 0; w < nw; w++) {
        double wsamp = fmax(1.0, widths_us[w] * 1e-6 / dt);
        double l = xc_subband_loss_bound(wsamp, s);
        if (l > *loss) {
            *loss = l;
            *width_us = widths_us[w];
        }
    }
}

static xc_status judge(const xc_ddp_obs *base, int nsub, const double *widths_us, int nw, const xc_convention *cv,
                       xc_ddp_alt *a, xc_error *err)
{
    xc_ddp_obs o = *base;
    o.nsub = nsub;
    xc_ddp_plan p;
    xc_status st = xc_ddp_make(&p, &o, err);
    if (st)
        return st;
    memset(a, 0, sizeof *a);
    a->nsub = nsub;
    a->nrows = p.nrows;
    a->worst_row = -1;
    xc_subplan sp;
    memset(&sp, 0, sizeof sp);
    int *first = NULL;
    if (nsub) {
        first = malloc(sizeof *first * (size_t)(nsub + 1));
        if (!first) {
            xc_ddp_free(&p);
            return xc_error_set(err, XC_ENOMEM, "out of memory");
        }
        for (int s = 0; s <= nsub; s++)
            first[s] = (int)((long long)s * o.nchans / nsub);
        sp.nchans = o.nchans;
        sp.nsub = nsub;
        sp.sub_first = first;
        sp.align = XC_SUBALIGN_HIGHEST;
    }
    /* channel 0 the highest, as a SIGPROC file: fctr is the band's centre */
    double cw = o.bw / o.nchans;
    xc_geometry g = {o.nchans, o.fctr + o.bw / 2 - cw / 2, -cw, o.dt};
    for (int k = 0; k < p.nrows; k++) {
        const xc_ddp_row *r = &p.rows[k];
        double direct = (double)r->numdms * o.nchans / r->downsamp;
        a->adds_direct += direct;
        a->ndm += r->numdms;
        if (!nsub) {
            a->adds += direct;
            continue;
        }
        a->adds += ((double)r->calls * o.nchans + (double)r->numdms * nsub) / r->downsamp;
        double l, w, s;
        row_loss(&sp, &g, cv, &o, r, widths_us, nw, &l, &w, &s);
        if (a->worst_row < 0 || l > a->loss_bound) {
            a->loss_bound = l;
            a->worst_row = k;
            a->worst_width_us = w;
            a->worst_spread = s;
        }
    }
    a->speedup = a->adds > 0 ? a->adds_direct / a->adds : 0;
    free(first);
    xc_ddp_free(&p);
    return XC_OK;
}

xc_status xc_ddp_choose(const xc_ddp_obs *o, const int *nsubs, int n, const double *widths_us, int nw,
                        double maxloss, const xc_convention *cv, xc_ddp_alt *alts, int *choice, xc_error *err)
{
    *choice = -1;
    if (n < 1 || nw < 1 || !(maxloss >= 0))
        return xc_error_set(err, XC_EINVAL, "ddplan budget: need candidates, widths and a loss >= 0");
    if (!cv)
        cv = xc_convention_get("presto");
    if (!cv)
        return xc_error_set(err, XC_EINVAL, "ddplan budget: no convention");
    for (int w = 0; w < nw; w++)
        if (!(widths_us[w] > 0 && isfinite(widths_us[w])))
            return xc_error_set(err, XC_EINVAL, "ddplan budget: width %g us must be > 0", widths_us[w]);
    for (int i = 0; i < n; i++) {
        if (nsubs[i] < 0 || nsubs[i] > o->nchans)
            return xc_error_set(err, XC_EINVAL, "ddplan budget: nsub %d outside 0..%d", nsubs[i], o->nchans);
        xc_status st = judge(o, nsubs[i], widths_us, nw, cv, &alts[i], err);
        if (st)
            return st;
        alts[i].within = alts[i].loss_bound <= maxloss;
        if (alts[i].within && (*choice < 0 || alts[i].adds < alts[*choice].adds))
            *choice = i;
    }
    return XC_OK;
}
