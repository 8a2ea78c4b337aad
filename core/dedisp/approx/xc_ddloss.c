/* The declared S/N loss of approximate plans and the defaults chosen from
 * it (core/dedisp/approx/xc_ddloss.h). */
#include "core/dedisp/approx/xc_ddloss.h"

#include <math.h>
#include <stdio.h>


double xc_ddloss_max(const xc_ddopts *o)
{
    return o && o->maxloss > 0 ? o->maxloss : XC_DDLOSS_MAX;
}

double xc_ddloss_width(const xc_ddopts *o)
{
    return o && o->losswidth > 0 ? o->losswidth : XC_DDLOSS_WIDTH;
}

void xc_ddloss_init(xc_ddloss *w, const xc_ddopts *o)
{
    *w = (xc_ddloss){0, -1, 0, 0, 0, 0, xc_ddloss_width(o), xc_ddloss_max(o)};
}

void xc_ddloss_add(xc_ddloss *w, int k, size_t i, double dm, int32_t bound, double smear)
{
    double l = xc_subband_loss_bound(w->width, bound);
    if (w->range < 0 || l > w->loss)
        *w = (xc_ddloss){l, k, i, dm, smear, bound, w->width, w->maxloss};
}

xc_status xc_ddloss_choose(const xc_ddjob *job, const int *cand, int n, xc_ddloss_eval eval, void *ctx, int *nsub,
                           xc_error *err)
{
    int best = -1, within = 0;
    double best_cost = 0, best_loss = 0;
    for (int i = 0; i < n; i++) {
        xc_ddjob j = *job;
        j.opts.nsub = cand[i];
        xc_ddloss l;
        double cost = 0;
        xc_status st = eval(&j, ctx, &l, &cost, err);
        if (st)
            return st;
        int ok = l.loss <= l.maxloss;
        /* within the limit beats outside it; then the cheaper; then the smaller loss */
        int better = best < 0 || (ok && !within) ||
                     (ok == within && (ok ? cost < best_cost || (cost == best_cost && l.loss < best_loss)
                                          : l.loss < best_loss));
        if (better) {
            best = i;
            within = ok;
            best_cost = cost;
            best_loss = l.loss;
        }
    }
    if (best < 0)
        return xc_error_set(err, XC_EINVAL, "no candidate nsub to choose from");
    *nsub = cand[best];
    return XC_OK;
}

xc_status xc_ddloss_of(const xc_dedisperser *self, const xc_ddjob *job, xc_ddloss *out, xc_ddbound ***keep,
                       xc_error *err)
{
    if (!self->bound)
        return xc_error_set(err, XC_EINVAL, "%s declares no smearing bound", self->impl.name);
    xc_ddbound **b = NULL;
    xc_status st = self->bound(self, job, &b, err);
    if (st)
        return st;
    xc_ddloss_init(out, &job->opts);
    for (int k = 0; k < job->plan->nranges; k++)
        for (size_t i = 0; i < job->plan->r[k].ndm; i++)
            xc_ddloss_add(out, k, i, job->plan->r[k].dms[i], b[k][i].bound, b[k][i].smear);
    if (keep)
        *keep = b;
    else
        xc_ddbound_free(b, job->plan->nranges);
    return XC_OK;
}

xc_status xc_ddloss_check(const char *name, const char *setup, const char *remedy, const xc_ddloss *l, xc_error *err)
{
    if (l->loss <= l->maxloss)
        return XC_OK;
    /* the largest S within the limit at this width: W/(W+S) >= (1-L)^2 */
    double keep = pow(1 - l->maxloss, 2), smax = floor(l->width / keep - l->width + 1e-9);
    return xc_error_set(err, XC_EINVAL,
                        "%s: the declared S/N-loss bound is %.1f %% for a pulse of %g samples, above -maxloss %g "
                        "(%s; at DM %g, trial %zu of range %d, the spread bound S is %d samples, %.2f of them the "
                        "approximation's smear: loss <= 1 - sqrt(W/(W+S))); the limit needs S <= %.0f there: use %s, "
                        "a wider -width if the pulses sought are wider, or a larger -maxloss",
                        name, 100 * l->loss, l->width, l->maxloss, setup && *setup ? setup : "its parameters", l->dm,
                        l->trial, l->range, (int)l->bound, l->smear, smax,
                        remedy && *remedy ? remedy : "parameters that smear less");
}
