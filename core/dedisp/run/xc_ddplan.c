/* Dedispersion plans: create once (delays, the implementation's state),
 * execute per gulp, destroy; the shape of FFTW's and dedisp's plans.  Before
 * plans, every gulp rebuilt its delay table (about 45 ms a gulp at 1024
 * channels) and the GPU allocated device memory per call. */
#include "core/dedisp/xc_dedisperse.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/xc_progress.h"
#include "core/dedisp/approx/xc_ddapprox.h"

struct xc_ddplan {
    const xc_dedisperser *impl;
    xc_ddjob job;       /* delays made once; in and nout set per gulp on a copy */
    uint8_t *mask;      /* the plan's own copy of the kill mask */
    void *state;        /* the implementation's (device buffers, tuning) */
    double seconds;
    long executes;      /* that succeeded */
};

const xc_dedisperser *xc_dedisperser_of(const xc_impl *impl)
{
    /* The head is the first member, so the descriptor starts where it does. */
    return impl && impl->family == XC_FAMILY_DEDISPERSE ? (const xc_dedisperser *)impl : NULL;
}

xc_status xc_ddplan_create(xc_ddplan **out, const xc_dedisperser *impl, const xc_geometry *g, int nbits,
                           const xc_dmplan *plan, const xc_convention *conv, const uint8_t *killmask,
                           const xc_ddopts *opts, xc_error *err)
{
    return xc_ddplan_create_tuned(out, impl, g, nbits, plan, conv, killmask, opts, NULL, err);
}

xc_status xc_ddplan_create_tuned(xc_ddplan **out, const xc_dedisperser *impl, const xc_geometry *g, int nbits,
                                 const xc_dmplan *plan, const xc_convention *conv, const uint8_t *killmask,
                                 const xc_ddopts *opts, const xc_ddtune *tune, xc_error *err)
{
    *out = NULL;
    if (!impl || !(impl->execute || impl->run))
        return xc_error_set(err, XC_EINVAL, "dedisperse: no implementation to plan for");
    double t0 = xc_now();
    xc_ddplan *p = calloc(1, sizeof *p);
    if (!p)
        return xc_error_set(err, XC_ENOMEM, "dedisperse: out of memory for a plan");
    p->impl = impl;
    if (killmask && g && g->nchans > 0) {
        if (!(p->mask = malloc((size_t)g->nchans))) {
            free(p);
            return xc_error_set(err, XC_ENOMEM, "dedisperse: out of memory for the kill mask");
        }
        memcpy(p->mask, killmask, (size_t)g->nchans);
    }
    xc_status st = xc_ddjob_prepare(&p->job, g ? g->nchans : 0, nbits, plan, conv, g, p->mask, err);
    if (!st && opts)
        p->job.opts = *opts;
    if (!st && tune)
        p->job.tune = *tune;
    if (!st && impl->plan)
        st = impl->plan(impl, &p->job, &p->state, err);
    if (st) {
        xc_ddplan_destroy(p);
        return st;
    }
    p->seconds = xc_now() - t0;
    *out = p;
    return XC_OK;
}

void xc_ddplan_destroy(xc_ddplan *p)
{
    if (!p)
        return;
    if (p->state && p->impl->destroy)
        p->impl->destroy(p->impl, p->state);
    xc_ddjob_free(&p->job);
    free(p->mask);
    free(p);
}

int64_t xc_ddplan_max_delay(const xc_ddplan *p) { return p->job.max_delay; }

const xc_dedisperser *xc_ddplan_impl(const xc_ddplan *p) { return p->impl; }

double xc_ddplan_seconds(const xc_ddplan *p) { return p->seconds; }

xc_status xc_ddplan_stats(const xc_ddplan *p, xc_ddstats *out)
{
    /* an approximate entry's path is its algorithm, unless it says more */
    const xc_ddapprox *a = xc_ddapprox_of(p->impl);
    *out = (xc_ddstats){.path = a ? a->path : "", .kernel_ms = -1, .setup_ms = -1, .exec_ms = -1,
                        .chunks = p->executes ? 1 : 0, .plan_seconds = p->seconds};
    if (p->impl->stats && p->executes)
        p->impl->stats(p->impl, p->state, out);
    return XC_OK;
}

xc_status xc_ddplan_plane_alloc(const xc_ddplan *p, size_t nsamp, xc_plane *pl, xc_error *err)
{
    memset(pl, 0, sizeof *pl);
    if ((uint64_t)p->job.max_delay >= nsamp)
        return xc_error_set(err, XC_EINVAL,
                            "dedisperse: the plan's largest delay (%lld samples) is not smaller than the data (%zu samples)",
                            (long long)p->job.max_delay, nsamp);
    xc_ddjob j = p->job;
    j.nout = nsamp - (size_t)p->job.max_delay;
    return xc_plane_alloc(pl, &j, err);
}

xc_status xc_ddplan_execute(xc_ddplan *p, const xc_block *in, xc_plane *out, xc_error *err)
{
    xc_ddjob j = p->job;
    xc_status st = xc_ddjob_bind(&j, in, err);
    if (st)
        return st;
    if (!out || out->nranges != j.plan->nranges)
        return xc_error_set(err, XC_EINVAL, "dedisperse: the plane has %d ranges, the plan %d",
                            out ? out->nranges : 0, j.plan->nranges);
    for (int k = 0; k < out->nranges; k++) {
        const xc_planerange *r = &out->r[k];
        size_t ns = j.nout / (size_t)j.plan->r[k].ds;
        if (r->ds != j.plan->r[k].ds || r->ndm != j.plan->r[k].ndm || r->nsamp != ns || !r->data)
            return xc_error_set(err, XC_EINVAL,
                                "dedisperse: range %d of the plane is %zu x %zu (ds %d), the gulp needs %zu x %zu (ds %d)",
                                k, r->ndm, r->nsamp, r->ds, j.plan->r[k].ndm, ns, j.plan->r[k].ds);
    }
    st = p->impl->execute ? p->impl->execute(p->impl, p->state, &j, out, err) : p->impl->run(p->impl, &j, out, err);
    p->executes += !st;
    return st;
}
