/* GPU dedisperser, host side: AstroAccelerate's shared-memory algorithm
 * (Novotny et al. 2023, section 4.1, Algorithm 3) with exact integer sums.
 *
 * Plan and execute: a state (xc_gpu_ddstate) is bound to the first job's plan,
 * delays, convention, geometry, kill mask and options, and keeps what does
 * not change from one gulp of data to the next.  Setup, on the first job with
 * something to add: the delays of the unmasked channels (job->delays, exact)
 * go to the device; for every candidate setting a kernel measures the largest
 * spread of delays inside one block's trials, which decides whether the tile
 * fits in shared memory and how long a staged row is (dd_state.cu).  Per job:
 * the time-chunk length is the longest whose buffers fit the budget (free
 * memory or gpu_max_bytes), and the buffers grow if it needs larger ones
 * (dd_memplan.cu); a range's setting is chosen (autotuned) on its first chunk
 * and kept for every later chunk and job (dd_autotune.cu).
 * Per time chunk: the raw block (u16 or f32, channel fastest) is copied to the
 * device once, with the largest delay (plus ds - 1) of overlap; per DM range a
 * kernel turns it into channel-major, scrunched, lane-packed words (gpu_dd.h),
 * a kernel finds each DM tile's smallest delay per channel (the block part of
 * the shift; the thread part is the rest of the exact delay, so no float delay
 * formula is involved), and the shared-memory kernel (or, when a tile's shifts
 * span more than shared memory holds, the direct kernel) writes the plane,
 * which is copied back into the caller's plane at the chunk's offset
 * (dd_launch.cu).
 *
 * Word formats by the largest scrunched value vmax = (2^nbits - 1) * ds:
 *   q4  (vmax <= 127: 1/2/4-bit) 4 samples per word, 8-bit lane sums;
 *   q8  (vmax <= 255: 8-bit)     4 samples per word, two u32 sums per word
 *                                (w & 0x00FF00FF and w >> 8) unpicked every 256;
 *   p16 (vmax <= 32767)          2 samples per word, 16-bit lane sums;
 *   s16 (vmax <= 65535: 16-bit)  2 samples per word, two u32 sums per word;
 *   w32 (vmax < 2^32)            1 sample per word, u32 sums;
 *   f32 (float)                  float sums per stage, double across stages;
 *   u64 (vmax >= 2^32)           direct kernel, u64 sums.
 * "wide" instances add u64 sums when nuse * vmax may pass 2^32 - 1.
 *
 * Tunables (xc_ddtune, 0 = default; values are rounded to what exists and the
 * effective ones reported in xc_gpu_ddinfo):
 *   gpu_samps_per_thread  R*L: R words per thread (1,2,4,8; 16 for p16/s16/w32/f32)
 *   gpu_samps_per_block   32*WX*R*L: WX warps along time (1..16)
 *   gpu_dms_per_block     dy, with 32*WX*dy <= 512 threads
 *   gpu_chans_per_stage   channels staged in shared memory per __syncthreads
 * Defaults (dd_host.h): 32 samples per thread, WX = 1, dy = 8, 32 channels
 * per stage (`crosscheck bench gpu -autotune` times the others). */
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
    const xc_ddtune *o = &job->tune;
    static const char *const names[] = {"gpu_samps_per_thread", "gpu_dms_per_block", "gpu_samps_per_block",
                                        "gpu_chans_per_stage"};
    const int vals[] = {o->gpu_samps_per_thread, o->gpu_dms_per_block, o->gpu_samps_per_block,
                        o->gpu_chans_per_stage};
    for (int i = 0; i < 4; i++)
        if (vals[i] < 0)
            return xc_error_set(err, XC_EINVAL, "gpu: tune.%s = %d must be >= 0 (0: default)", names[i], vals[i]);
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

/* Where the caller's plane lies: *dev 1 when every range's data is device
 * (or managed) memory, 0 when none is; a plane partly on the device is
 * XC_EINVAL. */
xc_status plane_where(const xc_plane *out, int *dev, xc_error *err)
{
    int ndev = 0, nhost = 0;
    for (int k = 0; k < out->nranges; k++) {
        if (!out->r[k].data)
            continue;
        cudaPointerAttributes a;
        if (cudaPointerGetAttributes(&a, out->r[k].data) != cudaSuccess) {
            (void)cudaGetLastError();
            a.type = cudaMemoryTypeUnregistered;
        }
        const int d = a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
        ndev += d;
        nhost += !d;
    }
    if (ndev && nhost)
        return xc_error_set(err, XC_EINVAL, "gpu: the plane has %d ranges in device memory and %d in host memory", ndev,
                            nhost);
    *dev = ndev > 0;
    return XC_OK;
}

/* Every output the scaled empty sum (nothing to add), on the host or the device. */
xc_status fill_empty(const xc_ddjob *job, xc_plane *out, int dev, xc_error *err)
{
    for (int k = 0; k < out->nranges; k++) {
        const xc_planerange *o = &out->r[k];
        const float z = xc_scale_int(job->conv, 0, job->in->nchans, o->ds, job->in->nbits);
        if (!dev) {
            for (size_t i = 0; i < o->ndm * o->nsamp; i++)
                o->data[i] = z;
            continue;
        }
        if (!o->ndm || !o->nsamp)
            continue;
        float *row = (float *)malloc(o->nsamp * sizeof *row);
        if (!row)
            return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for a row of %zu samples", o->nsamp);
        for (size_t i = 0; i < o->nsamp; i++)
            row[i] = z;
        cudaError_t e = cudaSuccess;
        for (size_t d = 0; d < o->ndm && e == cudaSuccess; d++)
            e = cudaMemcpy(o->data + d * o->nsamp, row, o->nsamp * sizeof *row, cudaMemcpyHostToDevice);
        free(row);
        if (e != cudaSuccess)
            return xc_gpu_fail(err, e, "cudaMemcpy(empty plane)");
    }
    return XC_OK;
}

/* The test hooks of xc_gpu_ddinfo, bound like the options. */
struct hooks {
    int force_direct, test_wide, test_period, test_fault;
};

void bind(xc_gpu_ddstate *s, const xc_ddjob *job, const hooks &h)
{
    s->bound = 1;
    s->plan = job->plan;
    s->delays = job->delays;
    s->killmask = job->killmask;
    s->conv = job->conv;
    s->geom = job->geom;
    s->nbits = job->in->nbits;
    s->nc = job->in->nchans;
    s->max_delay = job->max_delay;
    s->tune = job->tune;
    s->force_direct = h.force_direct;
    s->test_wide = h.test_wide;
    s->test_period = h.test_period;
    s->test_fault = h.test_fault;
    s->nr = job->plan->nranges;
    s->nuse = 0;
    for (int ch = 0; ch < s->nc; ch++)
        s->nuse += !job->killmask || job->killmask[ch];
}

/* XC_EINVAL naming the first thing the job does not share with the job that
 * bound the state. */
xc_status check_binding(const xc_gpu_ddstate *s, const xc_ddjob *job, const hooks &h, xc_error *err)
{
    const char *what = job->plan != s->plan         ? "plan"
                       : job->delays != s->delays   ? "delays"
                       : job->killmask != s->killmask ? "killmask"
                       : job->conv != s->conv       ? "conv"
                                                    : NULL;
    if (what)
        return xc_error_set(err, XC_EINVAL,
                            "gpu: state: the job's %s is not the state's (a state runs the jobs of one plan, one "
                            "delay table, one convention and one kill mask, compared by address)",
                            what);
    const xc_geometry *g = &job->geom, *b = &s->geom;
    if (g->nchans != b->nchans || g->fch1 != b->fch1 || g->foff != b->foff || g->tsamp != b->tsamp)
        return xc_error_set(err, XC_EINVAL,
                            "gpu: state: the job's geometry (%d channels, fch1 %.17g MHz, foff %.17g MHz, tsamp "
                            "%.17g s) is not the state's (%d, %.17g, %.17g, %.17g)",
                            g->nchans, g->fch1, g->foff, g->tsamp, b->nchans, b->fch1, b->foff, b->tsamp);
    const xc_ddtune *o = &job->tune, *p = &s->tune;
    const struct {
        const char *name;
        long long job, state;
    } f[] = {
        {"in->nchans", job->in->nchans, s->nc},
        {"in->nbits", job->in->nbits, s->nbits},
        {"max_delay", (long long)job->max_delay, (long long)s->max_delay},
        {"tune.gpu_max_bytes", (long long)o->gpu_max_bytes, (long long)p->gpu_max_bytes},
        {"tune.gpu_samps_per_thread", o->gpu_samps_per_thread, p->gpu_samps_per_thread},
        {"tune.gpu_dms_per_block", o->gpu_dms_per_block, p->gpu_dms_per_block},
        {"tune.gpu_samps_per_block", o->gpu_samps_per_block, p->gpu_samps_per_block},
        {"tune.gpu_chans_per_stage", o->gpu_chans_per_stage, p->gpu_chans_per_stage},
        {"tune.gpu_autotune", o->gpu_autotune, p->gpu_autotune},
        {"tune.gpu_serial", o->gpu_serial, p->gpu_serial},
        {"tune.gpu_register", o->gpu_register, p->gpu_register},
        {"info->force_direct", h.force_direct, s->force_direct},
        {"info->test_wide", h.test_wide, s->test_wide},
        {"info->test_period", h.test_period, s->test_period},
        {"info->test_fault", h.test_fault, s->test_fault},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].job != f[i].state)
            return xc_error_set(err, XC_EINVAL, "gpu: state: the job's %s = %lld is not the state's %lld", f[i].name,
                                f[i].job, f[i].state);
    return XC_OK;
}

/* Setup if the state needs it, the job's chunk plan and buffers, then every
 * chunk. */
xc_status run_job(ctx &c)
{
    xc_error *err = c.err;
    xc_gpu_ddstate *s = c.s;
    const xc_ddjob *job = c.job;
    const double t0 = now_ms();
    c.pipe = !job->tune.gpu_serial;
    c.in_pinned = c.pipe && host_pinned(xc_block_is_float(job->in) ? (const void *)job->in->f32 : (const void *)job->in->u16);
    /* input and host plane page-locked (by the caller, or registered and
     * kept by the state from this job on): no host copy, a third slot and
     * the tail ramp (dd_pipeline.cu, dd_memplan.cu) */
    c.locked_io = c.in_pinned && !c.plane_dev;
    for (int k = 0; k < c.out->nranges && c.locked_io; k++)
        c.locked_io = !c.out->r[k].ndm || !c.out->r[k].nsamp || host_pinned(c.out->r[k].data);
    c.locked_io = c.locked_io || (c.pipe && !c.plane_dev && job->tune.gpu_register == 2);
    c.nslot = c.locked_io ? MAX_SLOTS : 2;
    xc_status st = s->ready ? XC_OK : state_setup(c);
    size_t need[BUF_N];
    for (int k = 0; !st && k < s->nr; k++)
        s->rp[k].nout = job->nout / (size_t)s->rp[k].ds;
    if (!st && !(st = plan_chunks(c, need)))
        st = state_buffers(c, need);
    c.setup_ms += now_ms() - t0;
    if (st)
        return st;
    if (c.pipe)
        return run_pipelined(c);
    for (c.chunk = 0; c.chunk < c.nchunks; c.chunk++) {
        c.T0 = chunk_start(c, c.chunk);
        const size_t Tend = chunk_end(c, c.T0);
        size_t w = Tend - c.T0 + (size_t)job->max_delay + (size_t)s->maxds - 1;
        if (w > job->in->nsamp - c.T0)
            w = job->in->nsamp - c.T0;
        c.W = w;
        const void *src = xc_block_is_float(job->in) ? (const void *)(job->in->f32 + c.T0 * (size_t)s->nc)
                                                : (const void *)(job->in->u16 + c.T0 * (size_t)s->nc);
        if ((st = ev_begin(c)))
            return st;
        XC_GPU_CK(cudaMemcpy(s->d_raw, src, w * (size_t)s->nc * s->esize, cudaMemcpyHostToDevice),
                  "cudaMemcpy(input chunk)");
        if ((st = ev_end(c, cudaSuccess, "cudaMemcpy(input chunk)", &c.h2d_ms)))
            return st;
        for (int k = 0; k < s->nr; k++)
            if ((st = do_range(c, k)))
                return st;
    }
    return XC_OK;
}

void fill_info(const ctx &c, double total_ms, xc_gpu_ddinfo *info)
{
    const xc_gpu_ddinfo in = *info;
    memset(info, 0, sizeof *info);
    info->force_direct = in.force_direct;
    info->test_wide = in.test_wide;
    info->test_period = in.test_period;
    info->test_ramp = in.test_ramp;
    info->test_bands = in.test_bands;
    info->nranges = c.s->nr < XC_GPU_MAX_RANGES ? c.s->nr : XC_GPU_MAX_RANGES;
    for (int k = 0; k < info->nranges; k++) {
        xc_gpu_ddrange *o = &info->range[k];
        const range_plan *r = c.s->rp ? &c.s->rp[k] : NULL;
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
    info->ramp_chunks = c.nramp;
    info->tail_chunks = c.ntail;
    info->bands = c.nbands;
    info->head_pieces = c.npieces;
    info->pipelined = c.pipe;
    info->narrowed = c.narrow;
    info->pinned_bytes = c.s->sl[0].cap_in + c.s->sl[0].cap_out + c.s->sl[1].cap_in + c.s->sl[1].cap_out;
    info->chunk_samples = c.Lc;
    info->device_bytes = c.s->allocated;
    info->budget_bytes = c.budget;
    info->kernel_ms = c.kernel_ms;
    info->prep_ms = c.prep_ms;
    info->autotune_ms = c.tune_ms;
    info->h2d_ms = c.h2d_ms;
    info->d2h_ms = c.d2h_ms;
    info->setup_ms = c.setup_ms;
    info->exec_ms = total_ms > c.setup_ms ? total_ms - c.setup_ms : 0.0;
}

} // namespace

extern "C" xc_status xc_gpu_ddstate_create(xc_gpu_ddstate **st, xc_error *err)
{
    if (!st)
        return xc_error_set(err, XC_EINVAL, "gpu: xc_gpu_ddstate_create: no place for the state (st is NULL)");
    *st = NULL;
    xc_gpu_ddstate *s = (xc_gpu_ddstate *)calloc(1, sizeof *s);
    if (!s)
        return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for a dedispersion state");
    s->tmin_range = -1;
    *st = s;
    return XC_OK;
}

extern "C" void xc_gpu_ddstate_destroy(xc_gpu_ddstate *st)
{
    if (!st)
        return;
    state_release(st);
    free(st);
}

extern "C" xc_status xc_dedisperse_gpu_exec(xc_gpu_ddstate *st, const xc_ddjob *job, xc_plane *out,
                                            xc_gpu_ddinfo *info, xc_error *err)
{
    XC_GPU_CK_PRIOR("dedisperse");
    if (!st || !job)
        return xc_error_set(err, XC_EINVAL, "gpu: xc_dedisperse_gpu_exec: %s is NULL", st ? "job" : "the state");
    xc_status rc = check_job(job, out, err);
    if (rc)
        return rc;
    const double t0 = now_ms();
    const hooks h = {info ? info->force_direct : 0, info ? info->test_wide : 0, info ? info->test_period : 0,
                     info ? info->test_fault : 0};
    if (st->bound) {
        if ((rc = check_binding(st, job, h, err)))
            return rc;
    } else {
        bind(st, job, h);
    }
    /* if the job that sets the state up fails, the state is left unbound and empty */
    const int was_ready = st->ready;
    ctx c;
    memset(&c, 0, sizeof c);
    c.s = st;
    c.job = job;
    c.out = out;
    c.err = err;
    c.y_chunk = -1;
    c.test_bands = info ? info->test_bands : 0;
    for (int k = 0; st->rp && k < st->nr; k++)
        st->rp[k].kernel_ms = 0;
    if (info && info->test_ramp > 0) {
        st->stage_ns = st->dma_ns = 1;
        st->kernel_ns = st->kern_ns = info->test_ramp;
    }
    rc = plane_where(out, &c.plane_dev, err);
    if (!rc && (job->nout == 0 || st->nuse == 0))
        rc = fill_empty(job, out, c.plane_dev, err);   /* nothing to add */
    else if (!rc)
        rc = run_job(c);
    for (int k = 0; st->rp && k < st->nr; k++)
        c.kernel_ms += st->rp[k].kernel_ms;
    if (info)
        fill_info(c, now_ms() - t0, info);
    if (rc && !was_ready)
        state_release(st);
    return rc;
}

extern "C" xc_status xc_dedisperse_gpu_info(const xc_ddjob *job, xc_plane *out, xc_gpu_ddinfo *info, xc_error *err)
{
    xc_gpu_ddstate *st = NULL;
    xc_status rc = xc_gpu_ddstate_create(&st, err);
    if (rc)
        return rc;
    rc = xc_dedisperse_gpu_exec(st, job, out, info, err);
    xc_gpu_ddstate_destroy(st);
    return rc;
}

extern "C" xc_status xc_dedisperse_gpu(const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    return xc_dedisperse_gpu_info(job, out, NULL, err);
}
