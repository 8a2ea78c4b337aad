/* GPU dedisperser, host side: what a state holds on the device.  The first
 * job with something to add sets it up (the channel list, each range's word
 * format and candidate settings, the delays of the unmasked channels uploaded
 * once, and each candidate's delay bounds and fit in shared memory); every
 * job then gets chunk buffers at least as large as its plan needs, grown
 * from the last job's; destroying the state frees it all. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/base/xc_nbits.h"
#include "optimized/gpu/dd_host.h"
#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/gpu_dd.h"

namespace xcdd {

xc_status dev_alloc(ctx &c, void **p, size_t bytes, const char *what)
{
    xc_error *err = c.err;
    char msg[96];
    snprintf(msg, sizeof msg, "cudaMalloc(%s, %zu bytes)", what, bytes);
    XC_GPU_CK(cudaMalloc(p, bytes ? bytes : 1), msg);
    c.s->allocated += bytes;
    return XC_OK;
}

/* Delays of the unmasked channels, exactly as the job computed them, to the
 * device. */
static xc_status upload_delays(ctx &c)
{
    xc_error *err = c.err;
    xc_gpu_ddstate *s = c.s;
    const xc_ddjob *job = c.job;
    xc_status st = XC_OK;
    int32_t *tmp = NULL;
    for (int k = 0; k < s->nr && !st; k++) {
        range_plan &r = s->rp[k];
        const size_t n = r.ndm * (size_t)s->nuse;
        if ((st = dev_alloc(c, (void **)&r.d_del, n * sizeof(int32_t), "delays")))
            break;
        const int32_t *src = job->delays[k];
        if (s->h_chan) {
            int32_t *t2 = (int32_t *)realloc(tmp, (n ? n : 1) * sizeof(int32_t));
            if (!t2) {
                st = xc_error_set(err, XC_ENOMEM, "gpu: out of memory for %zu delays", n);
                break;
            }
            tmp = t2;
            for (size_t d = 0; d < r.ndm; d++)
                for (int i = 0; i < s->nuse; i++)
                    tmp[d * (size_t)s->nuse + (size_t)i] = job->delays[k][d * (size_t)s->nc + (size_t)s->h_chan[i]];
            src = tmp;
        }
        cudaError_t e = cudaMemcpy(r.d_del, src, n * sizeof(int32_t), cudaMemcpyHostToDevice);
        if (e != cudaSuccess)
            st = xc_gpu_fail(err, e, "cudaMemcpy(delays)");
    }
    free(tmp);
    return st;
}

/* Everything of state_setup's making: device memory, events, host arrays. */
static void release_device(xc_gpu_ddstate *s)
{
    /* errors are ignored here: after a fault the context may refuse even frees */
    void *const dev[] = {s->d_raw, s->d_Y,  s->d_out,  s->d_tmin, s->d_raw1, s->d_Y1,
                         s->d_out1, s->d_raw2, s->d_Y2, s->d_out2, s->d_stats, s->d_chan};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++)
        cudaFree(dev[k]);
    if (s->rp)
        for (int k = 0; k < s->nr; k++) {
            cudaFree(s->rp[k].d_del);
            cudaFree(s->rp[k].d_tmin);
        }
    pipeline_release(s);
    if (s->have_ev) {
        cudaEventDestroy(s->ev0);
        cudaEventDestroy(s->ev1);
    }
    free(s->rp);
    free(s->h_chan);
    s->d_raw = s->d_Y = s->d_raw1 = s->d_Y1 = s->d_raw2 = s->d_Y2 = NULL;
    s->d_out = s->d_out1 = s->d_out2 = NULL;
    s->d_tmin = NULL;
    s->d_stats = s->d_chan = s->h_chan = NULL;
    s->rp = NULL;
    s->have_ev = 0;
    for (int b = 0; b < BUF_N; b++)
        s->cap[b] = 0;
    s->allocated = 0;
    s->tmin_range = -1;
    s->ready = 0;
}

xc_status state_setup(ctx &c)
{
    xc_error *err = c.err;
    xc_gpu_ddstate *s = c.s;
    const xc_ddjob *job = c.job;
    s->tmin_range = -1;
    s->esize = xc_nbits_is_float(s->nbits) ? sizeof(float) : sizeof(uint16_t);
    if (s->nuse < s->nc) {
        s->h_chan = (int *)malloc((size_t)s->nuse * sizeof(int));
        if (!s->h_chan)
            return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for the channel list");
        for (int ch = 0, i = 0; ch < s->nc; ch++)
            if (job->killmask[ch])
                s->h_chan[i++] = ch;
    }
    s->rp = (range_plan *)calloc((size_t)s->nr, sizeof *s->rp);
    if (!s->rp)
        return xc_error_set(err, XC_ENOMEM, "gpu: out of memory");
    s->maxds = 1;
    for (int k = 0; k < s->nr; k++) {
        range_plan &r = s->rp[k];
        r.ds = job->plan->r[k].ds;
        r.ndm = job->plan->r[k].ndm;
        r.nout = job->nout / (size_t)r.ds;
        if (r.ds > s->maxds)
            s->maxds = r.ds;
        choose_format(&r, s->nbits, s->nuse, s->test_wide, s->test_period);
        build_candidates(&r, &s->tune, s->nuse);
    }
    int optin = 0, dev = 0;
    XC_GPU_CK(cudaGetDevice(&dev), "cudaGetDevice");
    XC_GPU_CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
              "cudaDeviceGetAttribute(shared memory per block)");
    s->smem_optin = (size_t)optin;
    int smsm = 0;
    XC_GPU_CK(cudaDeviceGetAttribute(&smsm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev),
              "cudaDeviceGetAttribute(shared memory per SM)");
    s->smem_sm = (size_t)smsm;
    XC_GPU_CK(cudaEventCreate(&s->ev0), "cudaEventCreate");
    cudaError_t e = cudaEventCreate(&s->ev1);
    if (e != cudaSuccess) {
        cudaEventDestroy(s->ev0);
        return xc_gpu_fail(err, e, "cudaEventCreate");
    }
    s->have_ev = 1;
    /* the delay tables come first: refuse a cap they alone exceed before allocating them */
    size_t fixed = 4 * sizeof(int);
    for (int k = 0; k < s->nr; k++)
        fixed += s->rp[k].ndm * (size_t)s->nuse * sizeof(int32_t);
    if (s->tune.gpu_max_bytes && fixed > s->tune.gpu_max_bytes)
        return xc_error_set(err, XC_EINVAL,
                            "gpu: gpu_max_bytes = %zu is below the %zu bytes of the delay tables alone (%d channels)",
                            s->tune.gpu_max_bytes, fixed, s->nuse);
    xc_status st;
    if ((st = dev_alloc(c, (void **)&s->d_stats, 4 * sizeof(int), "delay statistics")) || (st = upload_delays(c)) ||
        (st = measure_ranges(c)))
        return st;
    if (s->h_chan) {
        if ((st = dev_alloc(c, (void **)&s->d_chan, (size_t)s->nuse * sizeof(int), "channel list")))
            return st;
        XC_GPU_CK(cudaMemcpy(s->d_chan, s->h_chan, (size_t)s->nuse * sizeof(int), cudaMemcpyHostToDevice),
                  "cudaMemcpy(channel list)");
    }
    s->ready = 1;
    return XC_OK;
}

xc_status state_buffers(ctx &c, const size_t need[BUF_N])
{
    static const char *const what[BUF_N] = {"input chunk",   "channel-major words",   "plane chunk",  "tile delays",
                                            "input chunk 2", "channel-major words 2", "plane chunk 2",
                                            "input chunk 3", "channel-major words 3", "plane chunk 3"};
    xc_gpu_ddstate *s = c.s;
    void **p[BUF_N] = {&s->d_raw, &s->d_Y,  (void **)&s->d_out,  (void **)&s->d_tmin,
                       &s->d_raw1, &s->d_Y1, (void **)&s->d_out1, &s->d_raw2, &s->d_Y2, (void **)&s->d_out2};
    /* keep every buffer at least as large as it was, unless that would pass
     * the budget the job's chunks were planned for: then exactly need[] */
    size_t keep = s->allocated;
    for (int b = 0; b < BUF_N; b++)
        keep += need[b] > s->cap[b] ? need[b] - s->cap[b] : 0;
    const int exact = keep > c.budget;
    int renew[BUF_N];
    for (int b = 0; b < BUF_N; b++) {
        renew[b] = !*p[b] || (exact ? need[b] != s->cap[b] : need[b] > s->cap[b]);
        if (renew[b] && *p[b]) {
            /* freed before any allocation, so the peak stays within the budget */
            cudaError_t e = cudaFree(*p[b]);
            *p[b] = NULL;
            s->allocated -= s->cap[b];
            s->cap[b] = 0;
            if (e != cudaSuccess)
                return xc_gpu_fail(c.err, e, "cudaFree(chunk buffer)");
        }
    }
    if (renew[BUF_TMIN])
        s->tmin_range = -1;
    for (int b = 0; b < BUF_N; b++)
        if (renew[b]) {
            xc_status st = dev_alloc(c, p[b], need[b], what[b]);
            if (st)
                return st;
            s->cap[b] = need[b];
        }
    return XC_OK;
}

void state_release(xc_gpu_ddstate *s)
{
    release_device(s);
    s->bound = 0;
}

} // namespace xcdd
