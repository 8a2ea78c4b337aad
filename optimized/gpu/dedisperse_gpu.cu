/* GPU dedisperser, host side: AstroAccelerate's shared-memory algorithm
 * (Novotny et al. 2023, section 4.1, Algorithm 3) with exact integer sums.
 *
 * Setup: the delays of the unmasked channels (job->delays, exact) go to the
 * device; for every candidate setting a kernel measures the largest spread of
 * delays inside one block's trials, which decides whether the tile fits in
 * shared memory and how long a staged row is; then the time-chunk length is
 * the longest whose buffers fit the budget (free memory or gpu_max_bytes).
 * Per time chunk: the raw block (u16 or f32, channel fastest) is copied to the
 * device once, with the largest delay (plus ds - 1) of overlap; per DM range a
 * kernel turns it into channel-major, scrunched, lane-packed words (gpu_dd.h),
 * a kernel finds each DM tile's smallest delay per channel (the block part of
 * the shift; the thread part is the rest of the exact delay, so no float delay
 * formula is involved), and the shared-memory kernel (or, when a tile's shifts
 * span more than shared memory holds, the direct kernel) writes the plane,
 * which is copied back into the caller's plane at the chunk's offset.
 *
 * Word formats by the largest scrunched value vmax = (2^nbits - 1) * ds:
 *   q4  (vmax <= 127: 1/2/4-bit) 4 samples per word, 8-bit lane sums;
 *   q8  (vmax <= 255: 8-bit)     4 samples per word, 16-bit lane sums;
 *   p16 (vmax <= 32767)          2 samples per word, 16-bit lane sums;
 *   w32 (vmax < 2^32: 16-bit)    1 sample per word, u32 sums;
 *   f32 (float)                  float sums per stage, double across stages;
 *   u64 (vmax >= 2^32)           direct kernel, u64 sums.
 * "wide" instances add u64 sums when nuse * vmax may pass 2^32 - 1.
 *
 * Tunables (xc_ddopts, 0 = default; values are rounded to what exists and the
 * effective ones reported in xc_gpu_ddinfo):
 *   gpu_samps_per_thread  R*L: R words per thread (1,2,4,8; 16 for p16/w32/f32)
 *   gpu_samps_per_block   32*WX*R*L: WX warps along time (1..16)
 *   gpu_dms_per_block     dy, with 32*WX*dy <= 512 threads
 *   gpu_chans_per_stage   channels staged in shared memory per __syncthreads
 * Defaults: R = 8, WX = 1, dy = 8, 16 channels per stage (to be revisited with
 * the device's own numbers: `crosscheck bench gpu -autotune`). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/dd_host.h"
#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/gpu_dd.h"
#include "optimized/gpu/xc_gpu.h"

using namespace xcdd;

namespace {

xc_status check_job(const xc_ddjob *job, const xc_plane *out, xc_error *err)
{
    const xc_ddopts *o = &job->opts;
    static const char *const names[] = {"gpu_samps_per_thread", "gpu_dms_per_block", "gpu_samps_per_block",
                                        "gpu_chans_per_stage"};
    const int vals[] = {o->gpu_samps_per_thread, o->gpu_dms_per_block, o->gpu_samps_per_block,
                        o->gpu_chans_per_stage};
    for (int i = 0; i < 4; i++)
        if (vals[i] < 0)
            return xc_error_set(err, XC_EINVAL, "gpu: opts.%s = %d must be >= 0 (0: default)", names[i], vals[i]);
    if (!out || out->nranges != job->plan->nranges)
        return xc_error_set(err, XC_EINVAL, "gpu: the plane has %d ranges, the plan %d", out ? out->nranges : 0,
                            job->plan->nranges);
    for (int k = 0; k < job->plan->nranges; k++) {
        const xc_dmrange *r = &job->plan->r[k];
        const xc_planerange *o2 = &out->r[k];
        if (o2->ndm != r->ndm || o2->nsamp != job->nout / (size_t)r->ds || (!o2->data && o2->ndm * o2->nsamp != 0))
            return xc_error_set(err, XC_EINVAL, "gpu: plane range %d has the wrong shape (%zu x %zu, want %zu x %zu)", k,
                                o2->ndm, o2->nsamp, r->ndm, job->nout / (size_t)r->ds);
        if (r->ndm > (size_t)INT_MAX - 1024)
            return xc_error_set(err, XC_EINVAL, "gpu: range %d: %zu DM trials is more than the kernels index", k,
                                r->ndm);
    }
    return XC_OK;
}

/* Delays of the unmasked channels, exactly as the job computed them, to the
 * device; then each candidate's spread and fit, and the range's kernel. */
xc_status upload_delays(ctx &c)
{
    xc_error *err = c.err;
    const xc_ddjob *job = c.job;
    xc_status st = XC_OK;
    int32_t *tmp = NULL;
    for (int k = 0; k < c.nr && !st; k++) {
        range_plan &r = c.rp[k];
        const size_t n = r.ndm * (size_t)c.nuse;
        if ((st = dev_alloc(c, (void **)&r.d_del, n * sizeof(int32_t), "delays")))
            break;
        const int32_t *src = job->delays[k];
        if (c.h_chan) {
            int32_t *t2 = (int32_t *)realloc(tmp, (n ? n : 1) * sizeof(int32_t));
            if (!t2) {
                st = xc_error_set(err, XC_ENOMEM, "gpu: out of memory for %zu delays", n);
                break;
            }
            tmp = t2;
            for (size_t d = 0; d < r.ndm; d++)
                for (int i = 0; i < c.nuse; i++)
                    tmp[d * (size_t)c.nuse + (size_t)i] = job->delays[k][d * (size_t)c.nc + (size_t)c.h_chan[i]];
            src = tmp;
        }
        cudaError_t e = cudaMemcpy(r.d_del, src, n * sizeof(int32_t), cudaMemcpyHostToDevice);
        if (e != cudaSuccess)
            st = xc_gpu_fail(err, e, "cudaMemcpy(delays)");
    }
    free(tmp);
    return st;
}

xc_status setup(ctx &c)
{
    xc_error *err = c.err;
    const xc_ddjob *job = c.job;
    c.nc = job->in->nchans;
    c.esize = job->in->nbits == 32 ? sizeof(float) : sizeof(uint16_t);
    if (c.nuse < c.nc) {
        c.h_chan = (int *)malloc((size_t)c.nuse * sizeof(int));
        if (!c.h_chan)
            return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for the channel list");
        for (int ch = 0, i = 0; ch < c.nc; ch++)
            if (job->killmask[ch])
                c.h_chan[i++] = ch;
    }
    c.rp = (range_plan *)calloc((size_t)c.nr, sizeof *c.rp);
    if (!c.rp)
        return xc_error_set(err, XC_ENOMEM, "gpu: out of memory");
    c.maxds = 1;
    for (int k = 0; k < c.nr; k++) {
        range_plan &r = c.rp[k];
        r.ds = job->plan->r[k].ds;
        r.ndm = job->plan->r[k].ndm;
        r.nout = job->nout / (size_t)r.ds;
        if (r.ds > c.maxds)
            c.maxds = r.ds;
        choose_format(&r, job->in->nbits, c.nuse, c.test_wide, c.test_period);
        build_candidates(&r, &job->opts, c.nuse);
    }
    int optin = 0, dev = 0;
    XC_GPU_CK(cudaGetDevice(&dev), "cudaGetDevice");
    XC_GPU_CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
              "cudaDeviceGetAttribute(shared memory per block)");
    c.smem_optin = (size_t)optin;
    XC_GPU_CK(cudaEventCreate(&c.ev0), "cudaEventCreate");
    XC_GPU_CK(cudaEventCreate(&c.ev1), "cudaEventCreate");
    c.have_ev = 1;
    /* the delay tables come first: refuse a cap they alone exceed before allocating them */
    size_t fixed = 4 * sizeof(int);
    for (int k = 0; k < c.nr; k++)
        fixed += c.rp[k].ndm * (size_t)c.nuse * sizeof(int32_t);
    if (job->opts.gpu_max_bytes && fixed > job->opts.gpu_max_bytes)
        return xc_error_set(err, XC_EINVAL,
                            "gpu: gpu_max_bytes = %zu is below the %zu bytes of the delay tables alone (%d channels)",
                            job->opts.gpu_max_bytes, fixed, c.nuse);
    xc_status st;
    if ((st = dev_alloc(c, (void **)&c.d_stats, 4 * sizeof(int), "delay statistics")) || (st = upload_delays(c)) ||
        (st = measure_ranges(c)))
        return st;

    /* the chunk plan: the longest chunk whose buffers fit the budget */
    size_t budget = job->opts.gpu_max_bytes;
    if (!budget) {
        size_t fr = 0, tot = 0;
        XC_GPU_CK(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
        budget = c.allocated + fr / 10 * 9;
    }
    c.budget = budget;
    const size_t need1 = plan_bytes(c, 1, NULL, NULL, NULL);
    if (need1 > budget) {
        if (job->opts.gpu_max_bytes)
            return xc_error_set(err, XC_EINVAL,
                                "gpu: gpu_max_bytes = %zu is below the %zu bytes the smallest time chunk needs "
                                "(%d channels, largest delay %lld samples)",
                                budget, need1, c.nc, (long long)job->max_delay);
        return xc_error_set(err, XC_EDEVICE,
                            "gpu: device memory: %zu bytes usable, the smallest time chunk needs %zu", budget, need1);
    }
    size_t lo = 1, hi = job->nout;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo + 1) / 2;
        if (plan_bytes(c, mid, NULL, NULL, NULL) <= budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    c.Lc = lo;
    c.nchunks = (long)ceil_div(job->nout, c.Lc);
    size_t out_b = 0, tmin_b = 0;
    plan_bytes(c, c.Lc, &c.y_cap, &out_b, &tmin_b);
    if ((st = dev_alloc(c, &c.d_raw, raw_samples(c, c.Lc) * (size_t)c.nc * c.esize, "input chunk")) ||
        (st = dev_alloc(c, &c.d_Y, c.y_cap, "channel-major words")) ||
        (st = dev_alloc(c, (void **)&c.d_out, out_b, "plane chunk")) ||
        (st = dev_alloc(c, (void **)&c.d_tmin, tmin_b, "tile delays")))
        return st;
    if (c.h_chan) {
        if ((st = dev_alloc(c, (void **)&c.d_chan, (size_t)c.nuse * sizeof(int), "channel list")))
            return st;
        XC_GPU_CK(cudaMemcpy(c.d_chan, c.h_chan, (size_t)c.nuse * sizeof(int), cudaMemcpyHostToDevice),
                  "cudaMemcpy(channel list)");
    }
    return XC_OK;
}

xc_status run_all(ctx &c)
{
    xc_error *err = c.err;
    const xc_ddjob *job = c.job;
    c.y_chunk = -1;
    c.tmin_range = -1;
    xc_status st = setup(c);
    if (st)
        return st;
    for (c.chunk = 0; c.chunk < c.nchunks; c.chunk++) {
        c.T0 = (size_t)c.chunk * c.Lc;
        const size_t Tend = c.T0 + c.Lc < job->nout ? c.T0 + c.Lc : job->nout;
        size_t w = Tend - c.T0 + (size_t)job->max_delay + (size_t)c.maxds - 1;
        if (w > job->in->nsamp - c.T0)
            w = job->in->nsamp - c.T0;
        c.W = w;
        const void *src = job->in->nbits == 32 ? (const void *)(job->in->f32 + c.T0 * (size_t)c.nc)
                                                : (const void *)(job->in->u16 + c.T0 * (size_t)c.nc);
        if ((st = ev_begin(c)))
            return st;
        XC_GPU_CK(cudaMemcpy(c.d_raw, src, w * (size_t)c.nc * c.esize, cudaMemcpyHostToDevice), "cudaMemcpy(input chunk)");
        if ((st = ev_end(c, cudaSuccess, "cudaMemcpy(input chunk)", &c.h2d_ms)))
            return st;
        for (int k = 0; k < c.nr; k++)
            if ((st = do_range(c, k)))
                return st;
    }
    return XC_OK;
}

void ctx_free(ctx &c)
{
    /* errors are ignored here: after a fault the context may refuse even frees */
    cudaFree(c.d_raw);
    cudaFree(c.d_Y);
    cudaFree(c.d_out);
    cudaFree(c.d_tmin);
    cudaFree(c.d_stats);
    cudaFree(c.d_chan);
    if (c.rp)
        for (int k = 0; k < c.nr; k++)
            cudaFree(c.rp[k].d_del);
    if (c.have_ev) {
        cudaEventDestroy(c.ev0);
        cudaEventDestroy(c.ev1);
    }
    free(c.rp);
    free(c.h_chan);
}

void fill_info(const ctx &c, xc_gpu_ddinfo *info)
{
    const xc_gpu_ddinfo in = *info;
    memset(info, 0, sizeof *info);
    info->force_direct = in.force_direct;
    info->test_wide = in.test_wide;
    info->test_period = in.test_period;
    info->nranges = c.nr < XC_GPU_MAX_RANGES ? c.nr : XC_GPU_MAX_RANGES;
    for (int k = 0; k < info->nranges; k++) {
        xc_gpu_ddrange *o = &info->range[k];
        const range_plan *r = c.rp ? &c.rp[k] : NULL;
        if (!r || !r->decided) {
            snprintf(o->kernel, sizeof o->kernel, "none");
        } else if (r->direct) {
            snprintf(o->kernel, sizeof o->kernel, "direct");
            o->samps_per_thread = DD_DIRECT_SAMPS;
            o->dms_per_block = 1;
            o->samps_per_block = DD_DIRECT_THREADS * DD_DIRECT_SAMPS;
        } else {
            const cfg &g = r->cand[r->use];
            const int L = dd_lanes(r->fmt);
            snprintf(o->kernel, sizeof o->kernel, "smem-%s%s", fmt_name(r->fmt), r->wide ? "-wide" : "");
            o->samps_per_thread = g.R * L;
            o->dms_per_block = g.dy;
            o->samps_per_block = 32 * g.wx * g.R * L;
            o->chans_per_stage = g.cs;
            o->shift_span = r->spread[r->use];
            o->smem_bytes = r->smem[r->use];
        }
        if (r) {
            o->autotuned = r->tuned;
            o->candidates = r->ntimed;
            o->kernel_ms = r->kernel_ms;
        }
    }
    info->nchunks = (int)c.nchunks;
    info->chunk_samples = c.Lc;
    info->device_bytes = c.allocated;
    info->budget_bytes = c.budget;
    info->kernel_ms = c.kernel_ms;
    info->prep_ms = c.prep_ms;
    info->autotune_ms = c.tune_ms;
    info->h2d_ms = c.h2d_ms;
    info->d2h_ms = c.d2h_ms;
}

} // namespace

extern "C" xc_status xc_dedisperse_gpu_info(const xc_ddjob *job, xc_plane *out, xc_gpu_ddinfo *info, xc_error *err)
{
    XC_GPU_CK_PRIOR("dedisperse");
    xc_status st = check_job(job, out, err);
    if (st)
        return st;
    ctx c;
    memset(&c, 0, sizeof c);
    c.job = job;
    c.out = out;
    c.err = err;
    c.nr = job->plan->nranges;
    c.force_direct = info ? info->force_direct : 0;
    c.test_wide = info ? info->test_wide : 0;
    c.test_period = info ? info->test_period : 0;
    for (int ch = 0; ch < job->in->nchans; ch++)
        c.nuse += !job->killmask || job->killmask[ch];
    if (job->nout == 0 || c.nuse == 0) {
        /* nothing to add: every output is the scaled empty sum */
        for (int k = 0; k < out->nranges; k++) {
            const float z = xc_scale_int(job->conv, 0, job->in->nchans, out->r[k].ds, job->in->nbits);
            for (size_t i = 0; i < out->r[k].ndm * out->r[k].nsamp; i++)
                out->r[k].data[i] = z;
        }
        st = XC_OK;
    } else {
        st = run_all(c);
    }
    for (int k = 0; c.rp && k < c.nr; k++)
        c.kernel_ms += c.rp[k].kernel_ms;
    if (info)
        fill_info(c, info);
    if (!st && job->opts.gpu_kernel_ms)
        *job->opts.gpu_kernel_ms = c.kernel_ms;
    ctx_free(c);
    return st;
}

extern "C" xc_status xc_dedisperse_gpu(const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    return xc_dedisperse_gpu_info(job, out, NULL, err);
}
