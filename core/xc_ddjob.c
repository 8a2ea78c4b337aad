#include <stdlib.h>
#include <string.h>

#include "core/xc_dedisperse.h"

xc_status xc_ddjob_init(xc_ddjob *job, const xc_block *in, const xc_dmplan *plan,
                        const xc_convention *conv, const xc_geometry *g,
                        const uint8_t *killmask, xc_error *err)
{
    memset(job, 0, sizeof *job);
    if (!in || !plan || !conv || !g)
        return xc_error_set(err, XC_EINVAL, "dedisperse: missing input, plan, convention or geometry");
    if (in->nchans < 1 || in->nchans != g->nchans)
        return xc_error_set(err, XC_EINVAL, "dedisperse: nchans: block has %d, geometry %d", in->nchans, g->nchans);
    if (in->nbits == 32 ? !in->f32
        : !(in->nbits == 1 || in->nbits == 2 || in->nbits == 4 || in->nbits == 8 || in->nbits == 16) || !in->u16)
        return xc_error_set(err, XC_EINVAL, "dedisperse: nbits: %d is not supported (1, 2, 4, 8, 16, 32)", in->nbits);
    if (plan->nranges < 1)
        return xc_error_set(err, XC_EINVAL, "dedisperse: the DM plan is empty");
    job->in = in;
    job->plan = plan;
    job->conv = conv;
    job->geom = *g;
    job->killmask = killmask;
    xc_status st = xc_dmplan_max_delay(conv, g, plan, &job->max_delay, err);
    if (st)
        return st;
    if ((uint64_t)job->max_delay >= in->nsamp)
        return xc_error_set(err, XC_EINVAL,
                            "dedisperse: the plan's largest delay (%lld samples, DM %g) is not smaller than the data (%zu samples)",
                            (long long)job->max_delay, plan->r[plan->nranges - 1].dms[plan->r[plan->nranges - 1].ndm - 1],
                            in->nsamp);
    job->nout = in->nsamp - (size_t)job->max_delay;
    job->delays = calloc((size_t)plan->nranges, sizeof *job->delays);
    if (!job->delays)
        return xc_error_set(err, XC_ENOMEM, "dedisperse: out of memory");
    for (int k = 0; k < plan->nranges; k++) {
        job->delays[k] = malloc(plan->r[k].ndm * (size_t)g->nchans * sizeof(int32_t));
        if (!job->delays[k]) {
            xc_ddjob_free(job);
            return xc_error_set(err, XC_ENOMEM, "dedisperse: out of memory for delays");
        }
        st = xc_delays_compute(conv, g, &plan->r[k], job->delays[k], err);
        if (st) {
            xc_ddjob_free(job);
            return st;
        }
    }
    return XC_OK;
}

void xc_ddjob_free(xc_ddjob *job)
{
    if (job->delays && job->plan)
        for (int k = 0; k < job->plan->nranges; k++)
            free(job->delays[k]);
    free(job->delays);
    job->delays = NULL;
}

xc_status xc_plane_alloc(xc_plane *pl, const xc_ddjob *job, xc_error *err)
{
    memset(pl, 0, sizeof *pl);
    pl->r = calloc((size_t)job->plan->nranges, sizeof *pl->r);
    if (!pl->r)
        return xc_error_set(err, XC_ENOMEM, "plane: out of memory");
    pl->nranges = job->plan->nranges;
    for (int k = 0; k < pl->nranges; k++) {
        xc_planerange *r = &pl->r[k];
        r->ds = job->plan->r[k].ds;
        r->ndm = job->plan->r[k].ndm;
        r->nsamp = job->nout / (size_t)r->ds;
        size_t n = r->ndm * r->nsamp;
        r->data = calloc(n ? n : 1, sizeof(float));
        if (!r->data) {
            xc_plane_free(pl);
            return xc_error_set(err, XC_ENOMEM, "plane: out of memory for %zu x %zu samples", r->ndm, r->nsamp);
        }
    }
    return XC_OK;
}

void xc_plane_free(xc_plane *pl)
{
    if (!pl)
        return;
    for (int k = 0; k < pl->nranges; k++)
        free(pl->r[k].data);
    free(pl->r);
    pl->r = NULL;
    pl->nranges = 0;
}
