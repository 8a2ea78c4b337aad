/* The fused GPU pipeline (optimized/gpu/xc_gpu.h): a block dedispersed by
 * the GPU dedisperser into a plane in device memory, and that plane searched
 * where it lies by the GPU single-pulse searcher.  The float plane never
 * crosses PCIe: the block goes in, the candidates come back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_progress.h"
#include "optimized/gpu/xc_gpu.h"

int xc_sp_gpu_fusable(const xc_dedisperser *dd, const xc_spsearcher *s)
{
    return dd && s && (dd == &xc_dd_gpu || dd == &xc_dd_gpu_direct) && s == &xc_sp_gpu;
}

/* Ranges start 256 bytes apart (the device's widest aligned access). */
static size_t range_floats(size_t ndm, size_t nsamp)
{
    return (ndm * nsamp + 63) / 64 * 64;
}

/* The plane of plan for a gulp of nout output samples, in one device
 * allocation (*dev). */
static xc_status device_plane(const xc_dmplan *plan, size_t nout, xc_plane *pl, void **dev, size_t *bytes,
                              xc_error *err)
{
    size_t n = 0;
    for (int k = 0; k < plan->nranges; k++)
        n += range_floats(plan->r[k].ndm, nout / (size_t)plan->r[k].ds);
    pl->nranges = plan->nranges;
    pl->r = calloc((size_t)(plan->nranges ? plan->nranges : 1), sizeof *pl->r);
    if (!pl->r)
        return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for a plane's %d ranges", plan->nranges);
    *bytes = n * sizeof(float);
    xc_status st = xc_gpu_upload(dev, NULL, *bytes, err);
    if (st) {
        char msg[sizeof err->msg];
        memcpy(msg, err->msg, sizeof msg);
        return xc_error_set(err, st, "%s (a plane of %zu bytes on the device)", msg, *bytes);
    }
    float *at = *dev;
    for (int k = 0; k < plan->nranges; k++) {
        xc_planerange *r = &pl->r[k];
        r->ds = plan->r[k].ds;
        r->ndm = plan->r[k].ndm;
        r->nsamp = nout / (size_t)r->ds;
        r->data = at;
        at += range_floats(r->ndm, r->nsamp);
    }
    return XC_OK;
}

xc_status xc_sp_gpu_fused(xc_ddplan *p, const xc_dmplan *plan, const xc_block *in, double tsamp,
                          const xc_spsearcher *s, const xc_spopts *o, xc_spcandlist *out, xc_spfused_info *info,
                          xc_error *err)
{
    if (!xc_sp_gpu_fusable(xc_ddplan_impl(p), s))
        return xc_error_set(err, XC_EINVAL, "gpu: fused search: the dedisperser (%s) and the searcher (%s) are not "
                                            "the GPU ones",
                            xc_ddplan_impl(p)->impl.name, s ? s->impl.name : "none");
    const int64_t md = xc_ddplan_max_delay(p);
    if ((int64_t)in->nsamp <= md)
        return xc_error_set(err, XC_EINVAL, "gpu: fused search: %zu spectra are not more than the plan's largest "
                                            "delay, %lld samples",
                            in->nsamp, (long long)md);
    xc_spfused_info z;
    memset(&z, 0, sizeof z);
    xc_plane pl = {0, NULL};
    void *dev = NULL;
    size_t ndms = xc_dmplan_ndm(plan);
    double *dms = malloc((ndms ? ndms : 1) * sizeof *dms);
    xc_spplane *v = calloc((size_t)(plan->nranges ? plan->nranges : 1), sizeof *v);
    xc_status st = dms && v ? XC_OK : xc_error_set(err, XC_ENOMEM, "out of memory for %zu DM trials", ndms);
    double t0 = xc_now();
    if (!st)
        st = device_plane(plan, in->nsamp - (size_t)md, &pl, &dev, &z.plane_bytes, err);
    if (!st)
        st = xc_ddplan_execute(p, in, &pl, err);
    double t1 = xc_now();
    if (!st) {
        xc_spplane_views(plan, &pl, tsamp, v, dms);
        for (int k = 0; k < plan->nranges; k++)
            v[k].device = 1;
        st = xc_sp_search(s, o, v, plan->nranges, tsamp, dms, ndms, out, err);
    }
    z.dedisperse_s = t1 - t0;
    z.search_s = xc_now() - t1;
    if (info)
        *info = z;
    xc_gpu_free(dev);
    free(pl.r);
    free(dms);
    free(v);
    return st;
}
