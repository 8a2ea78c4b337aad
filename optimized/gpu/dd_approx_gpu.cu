/* The GPU subband and tree dedispersers, host side: core's plans
 * (core/dedisp/approx/xc_subband.h, core/dedisp/approx/xc_tree.h) turned into tables (dd_approx_plan.cu)
 * and onto the device once, then
 * per job the gulp on the device and, per DM range and chunk of output time,
 * the kernels of dd_approx_kernels.cu:
 *   subband  stage 1 (each group's nsub rows at its nominal DM) for a batch
 *            of groups, then stage 2 for the batch's trials, written as
 *            (float)sum straight into the range's plane;
 *   tree     level 0 (each (subband, diagonal block) pair's M channels,
 *            shifted j u) for a batch of subbands and log2(M) butterfly
 *            steps, in one kernel through shared memory where a tree fits
 *            a block (dd_approx_tree.cu; rows of 16 bits where they fit),
 *            else one kernel a step (ping-pong), then stage 2 adding the
 *            batch's subbands to every trial (an exact accumulator when the
 *            subbands need more than one batch); with 16-bit rows the tree
 *            in registers and, where every subband is one batch, a stage 2
 *            whose groups of trials share staged rows (dd_approx_treeg.cu);
 * then the output scaling of the direct GPU kernels (dd_launch_scale; none
 * for the plain sum) and one copy of the range back.  Subband stage 2 goes
 * through shared memory where a group's nsub rows fit (staged once for all
 * its trials), else it reads L2 directly as the trees' stage 2 does.
 * Integer input whose scrunched samples fit 8 bits and whose stage-1 rows
 * fit 16 (8-bit data at ds 1, subbands of up to 257 channels) takes the
 * packed kernels of dd_approx_packed.cu instead: four samples a word in
 * stage 1 (through shared memory for runs of eight groups), rows of 16
 * bits, two outputs a word in stage 2.
 * Same semantics as the CPU versions (optimized/cpu/subband_cpu.c,
 * tree_cpu.c), the same order of additions where it matters (float input;
 * integer sums are exact in any order), so integer input gives the
 * references' planes bit for bit.
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
            ap_tgroups *g = &r->tg;
            const size_t ng = (size_t)g->ng, cells = g->ng ? r->ndm * (size_t)S->nsub : 0;
            if (g->ng && ((st = up(err, (void **)&g->d_first, g->h_first, (ng + 1) * sizeof(int32_t), nm,
                                   "stage-2 groups")) ||
                          (st = up(err, (void **)&g->d_len, g->h_len, ng * sizeof(int32_t), nm, "stage-2 lengths")) ||
                          (st = up(err, (void **)&g->d_ent, g->h_ent, (ng * (size_t)(S->nsub / 4) + 1) * sizeof(int32_t),
                                   nm, "stage-2 entries")) ||
                          (st = up(err, (void **)&g->d_row, g->h_row, (size_t)g->nent * sizeof(int32_t), nm,
                                   "stage-2 entry rows")) ||
                          (st = up(err, (void **)&g->d_lo, g->h_lo, (size_t)g->nent * sizeof(int32_t), nm,
                                   "stage-2 entry shifts")) ||
                          (st = up(err, (void **)&g->d_off, g->h_off, cells * sizeof(int32_t), nm, "stage-2 offsets"))))
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

/* A launch's error, naming the kernel.  The kernels of a range are queued
 * back to back without a wait between them (a wait per launch left the
 * device idle for each launch's host overhead); a fault while they run is
 * reported by the wait at the range's end, which names the range. */
xc_status ck(xc_error *err, const char *name, cudaError_t launched, const char *kernel)
{
    if (launched == cudaSuccess)
        return XC_OK;
    char w[96];
    snprintf(w, sizeof w, "%s: %s", name, kernel);
    return xc_gpu_fail(err, launched, w);
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

/* The packed kernels' bounds for subband range k with sample type t and
 * largest scrunched sample vmax (0: float input): k1, channels whose sum
 * fits 16 bits when samples fit 8 (Y4), else 0; cs, where every subband has
 * at most k1 channels, the channels the shared-memory stage 1 stages at a
 * time (as many as leave room for six blocks an SM, the most its 40
 * registers a thread allow: at three, Nsight Compute found its warps
 * waiting on L2 most of the time; at most 32; else 0);
 * k2, subbands whose stage-1 rows' sum fits 16 bits, else 0 (a multiple
 * of 4 where v4: nsub is one too, and stage 2 reads four shifts a load); np, output
 * pairs per thread of packed stage 2 (2 where two blocks fit an SM, else 1
 * where one does, else 0: the u32 kernels). */
struct packing {
    int k1, k2, v4, np, cs;
};

packing packing_for(const xc_gpu_apstate *S, int k, int t, unsigned long long vmax)
{
    packing pk = {0, 0, 0, 0, 0};
    if (S->kind != AK_SUBBAND || t != AP_U32_U32 || vmax == 0)
        return pk;
    pk.k1 = vmax <= 255 ? (int)(65535 / vmax) : 0;
    int widest = 1;
    for (int s = 0; s < S->nsub; s++)
        widest = S->sp.sub_first[s + 1] - S->sp.sub_first[s] > widest ? S->sp.sub_first[s + 1] - S->sp.sub_first[s]
                                                                      : widest;
    if (pk.k1 && widest <= pk.k1)
        for (pk.cs = widest < 32 ? widest : 32; pk.cs > 0; pk.cs /= 2)
            if (ap_sub1_sm_smem(S->r[k].dwin, pk.cs) <= S->smem_optin / 6)
                break;
    const unsigned long long rowmax = vmax * (unsigned long long)widest;
    const size_t span = S->r[k].span;
    if (rowmax > 65535 || span > (size_t)INT32_MAX / 2)
        return pk;
    pk.k2 = (int)(65535 / rowmax);
    if (S->nsub % 4 == 0 && pk.k2 >= 4) {   /* shifts read four at a time */
        pk.k2 -= pk.k2 % 4;
        pk.v4 = 1;
    }
    pk.np = ap_stage2_pk_smem(2, S->nsub, (int)span) <= S->smem_optin / 2 ? 2
            : ap_stage2_pk_smem(1, S->nsub, (int)span) <= S->smem_optin  ? 1
                                                                          : 0;
    return pk;
}

/* Subband range k, chunks of Tc outputs into d_out (row pitch nsamp). */
xc_status run_subband(xc_gpu_apstate *S, int k, int t, const packing &pk, const void *Y, size_t pitch, size_t nsd,
                      size_t nsamp, size_t budget, xc_error *err)
{
    const ap_range *r = &S->r[k];
    /* stage-1 rows as uint16_t where both stages are the packed ones (every
     * row value fits 16 bits): half the traffic through memory */
    const int b16 = pk.np && pk.k1;
    const size_t ab = b16 ? 2 : ap_abytes(t), ns = (size_t)S->nsub;
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
                    pk.cs ? ap_launch_sub1_sm((const uint32_t *)Y, pitch, nsd, S->d_row, S->d_subfirst, S->nsub,
                                              S->nchans, r->d_a, r->d_lo, j0, ng, t0, W, r->dwin, pk.cs, b16,
                                              S->d_buf, 0)
                    : pk.k1 ? ap_launch_sub1_q8((const uint32_t *)Y, pitch, nsd, S->d_row, S->d_subfirst, S->nsub,
                                              S->nchans, r->d_a, r->d_lo, j0, ng, t0, W, pk.k1, b16, S->d_buf, 0)
                          : ap_launch_sub1(t, Y, pitch, nsd, S->d_row, S->d_subfirst, S->nsub, S->nchans, r->d_a,
                                           r->d_lo, j0, ng, t0, W, S->d_buf, 0),
                    "stage 1");
            /* stage 2 on packed pairs, or through shared memory where the
             * group's rows fit, else straight from L2 (the kernel the trees
             * use) */
            if (!st && pk.np)
                st = ck(err, S->name,
                        ap_launch_stage2_pk(pk.np, b16, S->d_buf, W, r->d_shift, S->nsub, r->d_first,
                                            r->d_gspan, (int)r->span, j0, ng, nt, pk.k2, pk.v4, S->d_out, nsamp, t0,
                                            0),
                        "stage 2");
            else if (!st && smem_ok)
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

/* Tree range k; vmax: the largest scrunched sample (0: float input).  The
 * fused kernel (level 0 and every butterfly step in shared memory) where a
 * tree's 2 M columns of 256 sums fit a block, writing its rows as uint16_t
 * where M samples' sum fits 16 bits; else a pass through memory per step. */
xc_status run_tree(xc_gpu_apstate *S, int k, int t, unsigned long long vmax, const void *Y, size_t pitch, size_t nsd,
                   size_t nsamp, size_t budget, xc_error *err)
{
    const int fused = ap_tree_fused_smem(t, S->M) <= S->smem_optin && S->M <= 256;
    const int b16 = fused && t == AP_U32_U32 && vmax && vmax * (unsigned long long)S->M <= 65535ull;
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
    /* stage 2 through the groups' shared rows: 16-bit rows, sc subbands
     * (4, 8 or 16) whose rows' sum fits 16 bits, and the shared memory */
    int sc = 0;
    size_t s2smem = 0;
    if (b16 && r->tg.ng)
        for (sc = 16; sc >= 4; sc /= 2)
            if (S->nsub % sc == 0 && (unsigned long long)sc * vmax * M <= 65535ull &&
                (s2smem = ap_tree_s2_smem(&r->tg, S->nsub, sc)) <= S->smem_optin)
                break;
    if (sc < 4)
        sc = 0;
    xc_status st = grow(err, &S->d_buf, &S->cap_buf, (qb ? qb : 1) * M * W * ab, S->name, "tree rows");
    if (!st && !fused)
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
            if (b16 && ap_tree_rb_ok(S->M))
                st = ck(err, S->name,
                        ap_launch_tree_rb((const uint32_t *)Y, pitch, nsd, S->d_prow, S->M, r->d_qs, r->d_qj, r->d_qlo,
                                          q0, nq, t0, W, (uint16_t *)in, 0),
                        "tree (registers)");
            else if (fused)
                st = ck(err, S->name,
                        ap_launch_tree_fused(t, b16, Y, pitch, nsd, S->d_prow, S->M, r->d_qs, r->d_qj, r->d_qlo, q0, nq,
                                             t0, W, in, 0),
                        "tree (fused)");
            else
                st = ck(err, S->name,
                        ap_launch_tree0(t, Y, pitch, nsd, S->d_prow, S->M, r->d_qs, r->d_qj, r->d_qlo, q0, nq, t0, W,
                                        in, 0),
                        "tree level 0");
            for (int h = 1; !st && !fused && h < S->M; h *= 2) {
                st = ck(err, S->name, ap_launch_tree_step(t, in, out, S->M, h, nq, W, 0), "tree step");
                void *sw = in;
                in = out;
                out = sw;
            }
            const int last = sb == S->nsub;
            const int mode = first && last ? 2 : first ? 0 : 1;
            if (!st && mode == 2 && sc)
                st = ck(err, S->name,
                        ap_launch_tree_s2(&r->tg, (const uint16_t *)in, W, S->nsub, sc, s2smem, nt, S->d_out, nsamp,
                                          t0, 0),
                        "stage 2 (shared rows)");
            else if (!st)
                st = ck(err, S->name,
                        fused ? ap_launch_stage2_x4(t, b16, in, W, r->d_rowid, r->d_shift, S->nsub, sa, sb,
                                                    (int64_t)q0 * (int64_t)M, 0, r->ndm, nt, mode, S->d_acc, Tc,
                                                    S->d_out, nsamp, t0, 0)
                              : ap_launch_stage2(t, in, W, r->d_rowid, r->d_shift, S->nsub, sa, sb,
                                                 (int64_t)q0 * (int64_t)M, 0, r->ndm, nt, mode, S->d_acc, Tc, S->d_out,
                                                 nsamp, t0, 0),
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
        const unsigned long long vmax =
            xc_block_is_float(in) ? 0 : ((1ull << in->nbits) - 1ull) * (unsigned long long)r->ds;
        const packing pk = packing_for(S, k, t, vmax);
        const int ykey = t + AP_NTYPES * (pk.k1 > 0);   /* Y4 or plain */
        const size_t nsd = in->nsamp / (size_t)r->ds;
        const int turn = yds != r->ds || yt != ykey;
        if (turn) {
            pitch = (nsd + 31) / 32 * 32;
            if ((st = grow(err, &S->d_Y, &S->cap_Y, (size_t)S->nuse * pitch * ap_ybytes(t), S->name,
                           "the channel-major copy")))
                break;
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
        /* the kernels' time: from here (the buffers above are host calls) */
        XC_GPU_CK(cudaEventRecord(S->e0, 0), "cudaEventRecord");
        if (turn) {
            if ((st = ck(err, S->name,
                         pk.k1 ? ap_launch_scrunch_q8((const uint16_t *)S->d_raw, (size_t)in->nchans, S->d_chan,
                                                      S->nuse, r->ds, nsd, pitch, (uint32_t *)S->d_Y, pitch, 0)
                               : ap_launch_scrunch(t, S->d_raw, xc_block_is_float(in), (size_t)in->nchans, S->d_chan,
                                                   S->nuse, r->ds, nsd, pitch, S->d_Y, pitch, 0),
                         "corner turn")))
                break;
            yds = r->ds;
            yt = ykey;
        }
        st = S->kind == AK_SUBBAND ? run_subband(S, k, t, pk, S->d_Y, pitch, nsd, o->nsamp, budget, err)
                                   : run_tree(S, k, t, vmax, S->d_Y, pitch, nsd, o->nsamp, budget, err);
        if (st)
            break;
        dd_scale sc;
        memset(&sc, 0, sizeof sc);
        sc.kind = job->conv->scaling;
        sc.den = xc_dedisp_in_range(in->nbits) * (float)S->nchans;
        sc.factor = XC_DEDISP_SCALE;
        sc.fnch = (float)S->nchans;
        sc.fds = (float)r->ds;
        /* the plain sum (XC_SCALE_SUM) is the kernels' (float)sum already:
         * no pass over the plane */
        if (sc.kind != XC_SCALE_SUM &&
            (st = ck(err, S->name, dd_launch_scale(S->d_out, o->ndm * o->nsamp, sc, 0), "output scaling")))
            break;
        float ms = 0;
        XC_GPU_CK(cudaEventRecord(S->e1, 0), "cudaEventRecord");
        const cudaError_t e = cudaEventSynchronize(S->e1);
        if (e != cudaSuccess) {
            char w[96];
            snprintf(w, sizeof w, "%s: the kernels of DM range %d", S->name, k);
            st = xc_gpu_fail(err, e, w);
            break;
        }
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
