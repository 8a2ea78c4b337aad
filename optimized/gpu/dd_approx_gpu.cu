/* The GPU subband and tree dedispersers, host side: core's plans
 * (core/dedisp/approx/xc_subband.h, core/dedisp/approx/xc_tree.h) turned into tables (dd_approx_plan.cu)
 * and onto the device once, then
 * per job the gulp on the device and, per DM range and chunk of output time,
 * the kernels of dd_approx_kernels.cu:
 *   subband  stage 1 (each group's nsub rows at its nominal DM) for a batch
 *            of groups, then stage 2 for the batch's trials, written as
 *            (float)sum straight into the range's plane;
 *   tree     level 0 (each (subband, diagonal block) pair's M channels,
 *            shifted j u) for a batch of subbands, log2(M) butterfly steps
 *            (ping-pong), then stage 2 adding the batch's subbands to every
 *            trial (an exact accumulator when the subbands need more than
 *            one batch);
 * then the output scaling of the direct GPU kernels (dd_launch_scale) and one
 * copy of the range back.  Subband stage 2 goes through shared memory where
 * a group's nsub rows fit (staged once for all its trials), else it reads L2
 * directly as the trees' stage 2 does.  Stage 1 reads L2 directly: a
 * shared-memory version staging each channel once for up to 16 consecutive
 * groups was measured no faster (H200, Table 2 plan: 0.30-1.00x the L2
 * version at 1024 channels; at 4096 a subband is too large to stage) and
 * was not kept.
 * Same semantics, same order of additions as the
 * CPU versions (optimized/cpu/subband_cpu.c, tree_cpu.c), so integer input
 * gives the references' planes bit for bit.
 *
 * Memory: the gulp (raw), its scrunched channel-major copy (Y) and one
 * range's plane stay on the device; the stage-1 rows are made for chunks of
 * output time and batches of groups (subband) or subbands (tree) so that
 * they fit a budget: a quarter of the free device memory (at least
 * AP_SCRATCH where that much is free), or a quarter of tune.gpu_max_bytes
 * when that is set.  The plane of a gulp is bounded by the caller's gulp choice
 * (core/base/xc_mem.h keeps a default gulp's plane within 1 GiB). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/approx/xc_ddapprox.h"
#include "core/dedisp/approx/xc_subband.h"
#include "core/dedisp/approx/xc_tree.h"
#include "optimized/gpu/dd_approx.h"
#include "optimized/gpu/dd_approx_state.h"
#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/gpu_dd.h"
#include "optimized/gpu/xc_gpu.h"

using namespace xc_ap;

namespace {

/* ---- device side ------------------------------------------------------------- */

xc_status up(xc_error *err, void **d, const void *h, size_t bytes, const char *name, const char *what)
{
    cudaError_t e = cudaMalloc(d, bytes ? bytes : 1);
    if (e == cudaSuccess && bytes)
        e = cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        char w[96];
        snprintf(w, sizeof w, "%s: upload of %s (%zu bytes)", name, what, bytes);
        return xc_gpu_fail(err, e, w);
    }
    return XC_OK;
}

/* Grows *p to at least bytes (contents not kept). */
xc_status grow(xc_error *err, void **p, size_t *cap, size_t bytes, const char *name, const char *what)
{
    if (bytes <= *cap && *p)
        return XC_OK;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        *p = NULL;
        char w[128];
        snprintf(w, sizeof w, "%s: cudaMalloc(%s, %zu bytes)", name, what, bytes);
        return xc_gpu_fail(err, e, w);
    }
    *cap = bytes;
    return XC_OK;
}

xc_status setup(xc_gpu_apstate *S, xc_error *err)
{
    xc_status st;
    const char *nm = S->name;
    if ((st = up(err, (void **)&S->d_chan, S->h_chan, (size_t)S->nuse * sizeof(int), nm, "channel list")) ||
        (st = up(err, (void **)&S->d_row, S->h_row, (size_t)S->nchans * sizeof(int), nm, "channel rows")) ||
        (st = up(err, (void **)&S->d_prow, S->h_prow, (size_t)S->npos * sizeof(int), nm, "tree positions")))
        return st;
    if (S->kind == AK_SUBBAND &&
        (st = up(err, (void **)&S->d_subfirst, S->sp.sub_first, ((size_t)S->nsub + 1) * sizeof(int), nm,
                 "subband edges")))
        return st;
    for (int k = 0; k < S->nranges; k++) {
        ap_range *r = &S->r[k];
        const size_t nt = r->ndm * (size_t)S->nsub * sizeof(int32_t);
        if ((st = up(err, (void **)&r->d_rowid, r->h_rowid, nt, nm, "stage-2 rows")) ||
            (st = up(err, (void **)&r->d_shift, r->h_shift, nt, nm, "stage-2 shifts")))
            return st;
        if (S->kind == AK_SUBBAND) {
            if ((st = up(err, (void **)&r->d_a, S->sp.r[k].a,
                         (size_t)r->ngroups * (size_t)S->nchans * sizeof(int32_t), nm, "stage-1 delays")) ||
                (st = up(err, (void **)&r->d_lo, r->h_lo, (size_t)r->ngroups * (size_t)S->nsub * sizeof(int64_t),
                         nm, "stage-1 offsets")) ||
                (st = up(err, (void **)&r->d_first, r->h_first, ((size_t)r->ngroups + 1) * sizeof(unsigned long long),
                         nm, "group trials")) ||
                (st = up(err, (void **)&r->d_gspan, r->h_gspan, (size_t)r->ngroups * sizeof(int32_t), nm,
                         "group spans")))
                return st;
        } else {
            if ((st = up(err, (void **)&r->d_qs, r->h_qs, (size_t)r->nq * sizeof(int), nm, "tree pairs")) ||
                (st = up(err, (void **)&r->d_qj, r->h_qj, (size_t)r->nq * sizeof(int), nm, "tree blocks")) ||
                (st = up(err, (void **)&r->d_qlo, r->h_qlo, (size_t)r->nq * sizeof(int64_t), nm, "tree offsets")))
                return st;
        }
    }
    int dev = 0, optin = 0;
    XC_GPU_CK(cudaGetDevice(&dev), "cudaGetDevice");
    XC_GPU_CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "cudaDeviceGetAttribute");
    S->smem_optin = (size_t)optin;
    XC_GPU_CK(cudaEventCreate(&S->e0), "cudaEventCreate");
    const cudaError_t e = cudaEventCreate(&S->e1);
    if (e != cudaSuccess) {
        cudaEventDestroy(S->e0);
        return xc_gpu_fail(err, e, "cudaEventCreate");
    }
    S->have_ev = 1;
    S->ready = 1;
    return XC_OK;
}

/* A launch, then a wait that names the kernel when it faulted. */
xc_status ck(xc_error *err, const char *name, cudaError_t launched, const char *kernel)
{
    char w[96];
    snprintf(w, sizeof w, "%s: %s", name, kernel);
    if (launched != cudaSuccess)
        return xc_gpu_fail(err, launched, w);
    cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? XC_OK : xc_gpu_fail(err, e, w);
}

int types_for(const xc_block *in, int ds, int nuse)
{
    if (xc_block_is_float(in))
        return AP_F64;
    const unsigned long long vs = ((1ull << in->nbits) - 1ull) * (unsigned long long)ds;
    if (vs > UINT32_MAX)
        return AP_U64_U64;
    return vs * (unsigned long long)(nuse ? nuse : 1) <= UINT32_MAX ? AP_U32_U32 : AP_U32_U64;
}

/* Subband range k, chunks of Tc outputs into d_out (row pitch nsamp). */
xc_status run_subband(xc_gpu_apstate *S, int k, int t, const void *Y, size_t pitch, size_t nsd, size_t nsamp,
                      size_t budget, xc_error *err)
{
    const ap_range *r = &S->r[k];
    const size_t ab = ap_abytes(t), ns = (size_t)S->nsub;
    size_t Tc = nsamp;
    while (Tc > AP_MIN_TC && ns * (Tc + r->span) * ab > budget)
        Tc = (Tc + 1) / 2;
    const size_t W = Tc + r->span;
    size_t per = budget / (ns * W * ab);
    int gb = per < 1 ? 1 : per > (size_t)r->ngroups ? r->ngroups : (int)per;
    const int smem_ok = r->span <= (size_t)INT32_MAX &&
                        ap_stage2_groups_smem(t, S->nsub, (int)r->span) <= S->smem_optin;
    xc_status st = grow(err, &S->d_buf, &S->cap_buf, (size_t)gb * ns * W * ab, S->name, "stage-1 rows");
    for (size_t t0 = 0; !st && t0 < nsamp; t0 += Tc) {
        const size_t nt = nsamp - t0 < Tc ? nsamp - t0 : Tc;
        for (int j0 = 0; !st && j0 < r->ngroups; j0 += gb) {
            const int ng = r->ngroups - j0 < gb ? r->ngroups - j0 : gb;
            st = ck(err, S->name,
                    ap_launch_sub1(t, Y, pitch, nsd, S->d_row, S->d_subfirst, S->nsub, S->nchans, r->d_a, r->d_lo, j0,
                                   ng, t0, W, S->d_buf, 0),
                    "stage 1");
            /* stage 2 through shared memory where the group's rows fit, else
             * straight from L2 (the kernel the trees use) */
            if (!st && smem_ok)
                st = ck(err, S->name,
                        ap_launch_stage2_groups(t, S->d_buf, W, r->d_shift, S->nsub, r->d_first, r->d_gspan,
                                                (int)r->span, j0, ng, nt, S->d_out, nsamp, t0, 0),
                        "stage 2");
            else if (!st)
                st = ck(err, S->name,
                        ap_launch_stage2(t, S->d_buf, W, r->d_rowid, r->d_shift, S->nsub, 0, S->nsub,
                                         (int64_t)j0 * (int64_t)ns, r->first[j0], r->first[j0 + ng] - r->first[j0], nt,
                                         2, NULL, 0, S->d_out, nsamp, t0, 0),
                        "stage 2");
        }
    }
    return st;
}

/* Tree range k. */
xc_status run_tree(xc_gpu_apstate *S, int k, int t, const void *Y, size_t pitch, size_t nsd, size_t nsamp,
                   size_t budget, xc_error *err)
{
    const ap_range *r = &S->r[k];
    const size_t ab = ap_abytes(t), M = (size_t)S->M;
    int qmax = 0;   /* most pairs of one subband */
    for (int s = 0; s < S->nsub; s++)
        qmax = r->qfirst[s + 1] - r->qfirst[s] > qmax ? r->qfirst[s + 1] - r->qfirst[s] : qmax;
    const size_t tot = (size_t)r->nq;
    size_t Tc = nsamp;
    for (;;) {
        const size_t W = Tc + r->span + M - 1, unit = 2 * M * W * ab;
        const int one = tot * unit <= budget;
        if (Tc <= AP_MIN_TC || ((size_t)qmax * unit <= budget && (one || r->ndm * Tc * ab <= budget)))
            break;
        Tc = (Tc + 1) / 2;
    }
    const size_t W = Tc + r->span + M - 1, unit = 2 * M * W * ab;
    const int one = tot * unit <= budget;
    size_t qb = budget / unit;
    if (qb < (size_t)qmax)
        qb = (size_t)qmax;
    if (qb > tot)
        qb = tot;
    xc_status st = grow(err, &S->d_buf, &S->cap_buf, (qb ? qb : 1) * M * W * ab, S->name, "tree rows");
    if (!st)
        st = grow(err, &S->d_buf2, &S->cap_buf2, (qb ? qb : 1) * M * W * ab, S->name, "tree rows");
    if (!st && !one)
        st = grow(err, &S->d_acc, &S->cap_acc, r->ndm * Tc * ab, S->name, "trial sums");
    for (size_t t0 = 0; !st && t0 < nsamp; t0 += Tc) {
        const size_t nt = nsamp - t0 < Tc ? nsamp - t0 : Tc;
        int sa = 0, first = 1;
        while (!st && sa < S->nsub) {
            int sb = sa + 1;   /* subbands [sa, sb): as many as fit qb pairs */
            while (sb < S->nsub && (size_t)(r->qfirst[sb + 1] - r->qfirst[sa]) <= qb)
                sb++;
            const int q0 = r->qfirst[sa], nq = r->qfirst[sb] - q0;
            void *in = S->d_buf, *out = S->d_buf2;
            st = ck(err, S->name,
                    ap_launch_tree0(t, Y, pitch, nsd, S->d_prow, S->M, r->d_qs, r->d_qj, r->d_qlo, q0, nq, t0, W, in,
                                    0),
                    "tree level 0");
            for (int h = 1; !st && h < S->M; h *= 2) {
                st = ck(err, S->name, ap_launch_tree_step(t, in, out, S->M, h, nq, W, 0), "tree step");
                void *sw = in;
                in = out;
                out = sw;
            }
            const int last = sb == S->nsub;
            const int mode = first && last ? 2 : first ? 0 : 1;
            if (!st)
                st = ck(err, S->name,
                        ap_launch_stage2(t, in, W, r->d_rowid, r->d_shift, S->nsub, sa, sb, (int64_t)q0 * (int64_t)M, 0,
                                         r->ndm, nt, mode, S->d_acc, Tc, S->d_out, nsamp, t0, 0),
                        "stage 2");
            if (!st && last && !first)
                st = ck(err, S->name, ap_launch_finish(t, S->d_acc, Tc, r->ndm, nt, S->d_out, nsamp, t0, 0),
                        "sums to float");
            first = 0;
            sa = sb;
        }
    }
    return st;
}

xc_status execute(xc_gpu_apstate *S, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    XC_GPU_CK_PRIOR(S->name);
    const xc_block *in = job->in;
    if (!out || out->nranges != S->nranges)
        return xc_error_set(err, XC_EINVAL, "%s: the plane has %d ranges, the plan %d", S->name,
                            out ? out->nranges : 0, S->nranges);
    for (int k = 0; k < S->nranges; k++)
        if (out->r[k].ndm != S->r[k].ndm || out->r[k].nsamp != job->nout / (size_t)S->r[k].ds)
            return xc_error_set(err, XC_EINVAL, "%s: plane range %d has the wrong shape", S->name, k);
    if (in->nchans != S->nchans)
        return xc_error_set(err, XC_EINVAL, "%s: the block has %d channels, the plan %d", S->name, in->nchans,
                            S->nchans);
    xc_status st = S->ready ? XC_OK : setup(S, err);
    if (st)
        return st;
    const size_t esize = xc_block_is_float(in) ? 4 : 2, rawb = in->nsamp * (size_t)in->nchans * esize;
    if ((st = grow(err, &S->d_raw, &S->cap_raw, rawb, S->name, "the gulp")))
        return st;
    XC_GPU_CK(cudaMemcpy(S->d_raw, xc_block_is_float(in) ? (const void *)in->f32 : (const void *)in->u16, rawb,
                         cudaMemcpyHostToDevice),
              "cudaMemcpy(gulp to the device)");
    float kms_total = 0;
    int yds = -1, yt = -1;
    size_t pitch = 0;
    for (int k = 0; !st && k < S->nranges; k++) {
        const ap_range *r = &S->r[k];
        xc_planerange *o = &out->r[k];
        if (!o->nsamp || !o->ndm)
            continue;
        const int t = types_for(in, r->ds, S->nuse);
        const size_t nsd = in->nsamp / (size_t)r->ds;
        XC_GPU_CK(cudaEventRecord(S->e0, 0), "cudaEventRecord");
        if (yds != r->ds || yt != t) {
            pitch = (nsd + 31) / 32 * 32;
            if ((st = grow(err, &S->d_Y, &S->cap_Y, (size_t)S->nuse * pitch * ap_ybytes(t), S->name,
                           "the channel-major copy")))
                break;
            if ((st = ck(err, S->name,
                         ap_launch_scrunch(t, S->d_raw, xc_block_is_float(in), (size_t)in->nchans, S->d_chan, S->nuse, r->ds,
                                           nsd, pitch, S->d_Y, pitch, 0),
                         "corner turn")))
                break;
            yds = r->ds;
            yt = t;
        }
        if ((st = grow(err, (void **)&S->d_out, &S->cap_out, o->ndm * o->nsamp * sizeof(float), S->name, "the plane")))
            break;
        /* stage-1 scratch: a quarter of tune.gpu_max_bytes, or of what is free
         * (the scratch already held counted as free), at least AP_SCRATCH where
         * that much is free: long chunks keep the tree's M - 1 samples of
         * overlap and the groups' spans small beside the chunk */
        size_t budget = job->tune.gpu_max_bytes / 4;
        if (!job->tune.gpu_max_bytes) {
            size_t fr = 0, tot = 0;
            XC_GPU_CK(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
            fr += S->cap_buf + S->cap_buf2 + S->cap_acc;
            budget = fr / 4 > AP_SCRATCH ? fr / 4 : fr / 2 < AP_SCRATCH ? fr / 2 : AP_SCRATCH;
        }
        if (budget < 1)
            budget = 1;
        st = S->kind == AK_SUBBAND ? run_subband(S, k, t, S->d_Y, pitch, nsd, o->nsamp, budget, err)
                                   : run_tree(S, k, t, S->d_Y, pitch, nsd, o->nsamp, budget, err);
        if (st)
            break;
        dd_scale sc;
        memset(&sc, 0, sizeof sc);
        sc.kind = job->conv->scaling;
        sc.den = xc_dedisp_in_range(in->nbits) * (float)S->nchans;
        sc.factor = XC_DEDISP_SCALE;
        sc.fnch = (float)S->nchans;
        sc.fds = (float)r->ds;
        if ((st = ck(err, S->name, dd_launch_scale(S->d_out, o->ndm * o->nsamp, sc, 0), "output scaling")))
            break;
        float ms = 0;
        XC_GPU_CK(cudaEventRecord(S->e1, 0), "cudaEventRecord");
        XC_GPU_CK(cudaEventSynchronize(S->e1), "cudaEventSynchronize");
        XC_GPU_CK(cudaEventElapsedTime(&ms, S->e0, S->e1), "cudaEventElapsedTime");
        kms_total += ms;
        XC_GPU_CK(cudaMemcpy(o->data, S->d_out, o->ndm * o->nsamp * sizeof(float), cudaMemcpyDeviceToHost),
                  "cudaMemcpy(plane to the host)");
    }
    if (!st)
        S->kernel_ms = kms_total;
    return st;
}

} // namespace

extern "C" xc_status xc_gpu_approx_plan(const xc_dedisperser *self, const xc_ddjob *proto, void **state,
                                        xc_error *err)
{
    if (!state)
        return xc_error_set(err, XC_EINVAL, "gpu: xc_gpu_approx_plan: no place for the state");
    *state = NULL;
    const xc_ddapprox *a = xc_ddapprox_of(self);
    if (!a)
        return xc_error_set(err, XC_EINVAL, "gpu: xc_gpu_approx_plan: %s names no approximate algorithm",
                            self ? self->impl.name : "(no descriptor)");
    return plan_kind(proto, state, (int)a->algo, err);
}

extern "C" xc_status xc_gpu_approx_execute(const xc_dedisperser *self, void *state, const xc_ddjob *job, xc_plane *out,
                                           xc_error *err)
{
    (void)self;
    if (!state || !job || !job->in)
        return xc_error_set(err, XC_EINVAL, "gpu: xc_gpu_approx_execute: %s is NULL",
                            !state ? "the state" : !job ? "the job" : "the job's block");
    return execute((xc_gpu_apstate *)state, job, out, err);
}

extern "C" void xc_gpu_approx_stats(const xc_dedisperser *self, const void *state, xc_ddstats *out)
{
    (void)self;
    out->kernel_ms = ((const xc_gpu_apstate *)state)->kernel_ms;
}

extern "C" void xc_gpu_approx_destroy(const xc_dedisperser *self, void *state)
{
    (void)self;
    state_free((xc_gpu_apstate *)state);
}
