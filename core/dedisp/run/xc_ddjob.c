#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_nbits.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_grow.h"
#include "core/base/xc_mem.h"

xc_status xc_ddjob_prepare(xc_ddjob *job, int nchans, int nbits, const xc_dmplan *plan, const xc_convention *conv,
                           const xc_geometry *g, const uint8_t *killmask, xc_error *err)
{
    memset(job, 0, sizeof *job);
    if (!plan || !conv || !g)
        return xc_error_set(err, XC_EINVAL, "dedisperse: missing plan, convention or geometry");
    if (nchans < 1 || nchans != g->nchans)
        return xc_error_set(err, XC_EINVAL, "dedisperse: nchans: block has %d, geometry %d", nchans, g->nchans);
    if (!xc_nbits_valid(nbits))
        return xc_error_set(err, XC_EINVAL, "dedisperse: nbits: %d is not supported (1, 2, 4, 8, 16, 32)", nbits);
    if (plan->nranges < 1)
        return xc_error_set(err, XC_EINVAL, "dedisperse: the DM plan is empty");
    job->plan = plan;
    job->conv = conv;
    job->geom = *g;
    job->nbits = nbits;
    job->killmask = killmask;
    xc_status st = xc_dmplan_max_delay(conv, g, plan, &job->max_delay, err);
    if (st)
        return st;
    /* the delay tables, checked before they are made */
    double tab = (double)xc_dmplan_ndm(plan) * (double)g->nchans * sizeof(int32_t);
    char what[160];
    snprintf(what, sizeof what, "the delay tables (%zu DM trials x %d channels)", xc_dmplan_ndm(plan), g->nchans);
    if ((st = xc_mem_check(tab, "dedisperse", what, "use fewer trials (a coarser -dmplan step)", err)))
        return st;
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

xc_status xc_ddjob_bind(xc_ddjob *job, const xc_block *in, xc_error *err)
{
    if (!in)
        return xc_error_set(err, XC_EINVAL, "dedisperse: missing input");
    if (in->nchans != job->geom.nchans)
        return xc_error_set(err, XC_EINVAL, "dedisperse: nchans: block has %d, geometry %d", in->nchans,
                            job->geom.nchans);
    if (in->nbits != job->nbits)
        return xc_error_set(err, XC_EINVAL, "dedisperse: nbits: block has %d, the plan was made for %d", in->nbits,
                            job->nbits);
    if (xc_block_is_float(in) ? !in->f32 : !in->u16)
        return xc_error_set(err, XC_EINVAL, "dedisperse: the %d-bit block has no data", in->nbits);
    const xc_dmrange *last = &job->plan->r[job->plan->nranges - 1];
    if ((uint64_t)job->max_delay >= in->nsamp)
        return xc_error_set(err, XC_EINVAL,
                            "dedisperse: the plan's largest delay (%lld samples, DM %g) is not smaller than the data (%zu samples)",
                            (long long)job->max_delay, last->dms[last->ndm - 1], in->nsamp);
    job->in = in;
    job->nout = in->nsamp - (size_t)job->max_delay;
    return XC_OK;
}

xc_status xc_ddjob_init(xc_ddjob *job, const xc_block *in, const xc_dmplan *plan,
                        const xc_convention *conv, const xc_geometry *g,
                        const uint8_t *killmask, xc_error *err)
{
    if (!in) {
        memset(job, 0, sizeof *job);
        return xc_error_set(err, XC_EINVAL, "dedisperse: missing input");
    }
    xc_status st = xc_ddjob_prepare(job, in->nchans, in->nbits, plan, conv, g, killmask, err);
    if (!st && (st = xc_ddjob_bind(job, in, err)))
        xc_ddjob_free(job);
    return st;
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
    XC_GROW_FREE(pl->r, pl->nranges);
}
