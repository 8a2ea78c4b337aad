/* The CUDA accel searcher's own search (the searcher's optional `search`,
 * core/xc_accel.h): harmonic sums and thresholds on the device, so that the
 * plane never crosses the bus; only the points above each stage's
 * threshold come back.
 *
 * Semantics: core's preset exact (core/xc_accel_pipeline.c): the top plane
 * at half-bin index i and template t, then for each stage H = 2, 4, ... the
 * odd harmonics h/H added, each from the plane at index (long)(i h/H + 0.5)
 * and template (required_w, required_z of t's w and z, h/H); after each
 * stage, every point whose sum exceeds p->thr[s] is a hit.  The sums are
 * float here (core's host sums are double): a relative difference of a few
 * 1e-7, inside the searcher's stated 2e-3.
 *
 * Blocks: the top range is cut into blocks of whole segments (the plane
 * stage's V half-bins each) holding at most 1 GiB of plane (opts devblock;
 * at least one segment), so a plane of any size is searched in blocks, never refused.
 * A block's top plane is made into `sum`; each sub-harmonic's block (only
 * the templates some top template maps to) into `sub` and added.  The hits
 * of a stage are appended through one atomic counter; if they overflow the
 * buffer, the buffer grows and the stage's threshold pass runs again (the
 * sums are unchanged by it).  The hits' order varies from run to run, but
 * core's selection does not depend on it, and their values do not.
 * Every call is checked; errors name the call ("gpu: accel <what>: ..."). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/xc_accel.h"
#include "optimized/gpu/accel_gpu_state.h"
#include "optimized/gpu/gpu_check.h"

namespace xc_accel_gpu_impl {

/* sum[t][j] += sub[tsub[t]][(long)((i0 + j) frac + 0.5) - lo] */
__global__ void k_addsub(float *__restrict__ sum, const float *__restrict__ sub, const int *__restrict__ tsub,
                         int ntempl, long nr, long i0, double frac, long lo, long subnr)
{
    size_t tot = (size_t)ntempl * (size_t)nr;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < tot; k += (size_t)gridDim.x * blockDim.x) {
        int t = (int)(k / (size_t)nr);
        long j = (long)(k % (size_t)nr);
        /* i frac is exact in double (frac = h/H, H a power of 2), so a
         * fused multiply-add rounds as the host's product and sum do */
        long isub = (long)((double)(i0 + j) * frac + 0.5) - lo;
        sum[k] += sub[(size_t)tsub[t] * (size_t)subnr + (size_t)isub];
    }
}

/* Every sum[t][j] > thr: a hit (i0 + j, t, stage). */
__global__ void k_thresh(const float *__restrict__ sum, int ntempl, long nr, long i0, double thr, int stage,
                         hit *__restrict__ hits, unsigned long long cap, unsigned long long *__restrict__ nhit)
{
    size_t tot = (size_t)ntempl * (size_t)nr;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < tot; k += (size_t)gridDim.x * blockDim.x) {
        float v = sum[k];
        if (!((double)v > thr))
            continue;
        unsigned long long at = atomicAdd(nhit, 1ULL);
        if (at < cap) {
            hit h;
            h.i = i0 + (long long)(k % (size_t)nr);
            h.t = (int)(k / (size_t)nr);
            h.stage = stage;
            h.P = v;
            hits[at] = h;
        }
    }
}

/* The hits of one stage of a block: threshold, count, grow and again if
 * they overflowed, then to the host and emit. */
static xc_status stage_hits(state *s, const xc_accel_plan *p, long i0, long nr, int stage, xc_accel_emit_fn emit,
                            void *ctx, xc_error *err)
{
    for (;;) {
        XC_GPU_CK(cudaMemsetAsync(s->nhit, 0, sizeof *s->nhit, s->stream), "accel cudaMemsetAsync (hit count)");
        k_thresh<<<grid_for((size_t)p->ntempl * (size_t)nr), 256, 0, s->stream>>>(
            s->sum, p->ntempl, nr, i0, p->thr[stage], stage, s->hits, (unsigned long long)s->hitcap, s->nhit);
        LAUNCHED("k_thresh");
        unsigned long long n = 0;
        XC_GPU_CK(cudaMemcpyAsync(&n, s->nhit, sizeof n, cudaMemcpyDeviceToHost, s->stream),
                  "accel cudaMemcpyAsync (hit count to the host)");
        WAIT("k_thresh");
        if (n > s->hitcap) {
            TRY(grow(&s->hits, &s->hitcap, (size_t)n, "the points above threshold", err));
            continue;
        }
        if (!n)
            return XC_OK;
        TRY(grow_host(&s->hhits, &s->hhitcap, (size_t)n, "the points above threshold (staging)", err));
        XC_GPU_CK(cudaMemcpyAsync(s->hhits, s->hits, (size_t)n * sizeof(hit), cudaMemcpyDeviceToHost, s->stream),
                  "accel cudaMemcpyAsync (points above threshold to the host)");
        WAIT("cudaMemcpyAsync (points above threshold)");
        xc_accel_hit buf[256];
        for (size_t k = 0; k < (size_t)n;) {
            size_t m = 0;
            for (; m < 256 && k < (size_t)n; m++, k++) {
                buf[m].i = (long)s->hhits[k].i;
                buf[m].t = s->hhits[k].t;
                buf[m].stage = s->hhits[k].stage;
                buf[m].P = s->hhits[k].P;
            }
            TRY(emit(ctx, buf, m, err));
        }
        return XC_OK;
    }
}

/* The sub-harmonic entries' template maps and lists, on the device. */
static xc_status sub_tables(state *s, const xc_accel_plan *p, xc_error *err)
{
    int nt = p->ntempl, ne = p->numharm > 1 ? p->numharm - 1 : 0;
    if (!ne)
        return XC_OK;
    size_t n = (size_t)ne * (size_t)nt;
    int *map = (int *)malloc(n * sizeof *map), *lst = (int *)malloc(n * sizeof *lst);
    unsigned char *want = (unsigned char *)calloc((size_t)nt, 1);
    xc_status st = XC_OK;
    if (!map || !lst || !want)
        st = xc_error_set(err, XC_ENOMEM, "accel gpu: out of memory (sub-harmonic tables)");
    for (int H = 2; !st && H <= p->numharm; H *= 2)
        for (int h = 1; h < H; h += 2) {
            int e = H / 2 - 1 + h / 2;   /* core's entry order: 1/2, 1/4, 3/4, 1/8, ... */
            double frac = (double)h / H;
            memset(want, 0, (size_t)nt);
            for (int t = 0; t < nt; t++) {
                int sw = xc_accel_required_w(frac, xc_accel_w_of(p, t / p->numz));
                int sz = xc_accel_required_z(frac, xc_accel_z_of(p, t % p->numz));
                int ts = (sw + p->wmax) / XC_ACCEL_DW * p->numz + (sz + p->zmax) / XC_ACCEL_DZ;
                map[(size_t)e * nt + t] = ts;
                want[ts] = 1;
            }
            long m = 0;
            for (int t = 0; t < nt; t++)
                if (want[t])
                    lst[(size_t)e * nt + (size_t)m++] = t;
            s->subn[e] = m;
        }
    if (!st)
        st = grow(&s->tsub, &s->tsubcap, n, "the sub-harmonic template maps", err);
    if (!st)
        st = grow(&s->subtl, &s->subtlcap, n, "the sub-harmonic template lists", err);
    cudaError_t e = cudaSuccess;
    if (!st && ((e = cudaMemcpy(s->tsub, map, n * sizeof *map, cudaMemcpyHostToDevice)) != cudaSuccess ||
                (e = cudaMemcpy(s->subtl, lst, n * sizeof *lst, cudaMemcpyHostToDevice)) != cudaSuccess))
        st = xc_gpu_fail(err, e, "accel cudaMemcpy (sub-harmonic tables to the device)");
    free(map);
    free(lst);
    free(want);
    return st;
}

xc_status search(state *s, const xc_accel_plan *p, const double *amp, size_t nbins, long ilo, long iend,
                 xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    XC_GPU_CK_PRIOR("accel gpu search");
    if (iend <= ilo)
        return XC_OK;
    if (!amp || nbins < 1 || nbins > (size_t)LONG_MAX / 4)
        return xc_error_set(err, XC_EINVAL, "accel gpu: a search without amplitudes");
    /* the whole spectrum up once, as float */
    TRY(grow(&s->spec, &s->speccap, nbins, "the spectrum's amplitudes", err));
    float *h = NULL;
    size_t hc = 0;
    xc_status st = grow_host(&h, &hc, 2 * nbins, "the spectrum's amplitudes (staging)", err);
    if (!st) {
        for (size_t k = 0; k < 2 * nbins; k++)
            h[k] = (float)amp[k];
        cudaError_t e = cudaMemcpy(s->spec, h, nbins * sizeof(float2), cudaMemcpyHostToDevice);
        if (e != cudaSuccess)
            st = xc_gpu_fail(err, e, "accel cudaMemcpy (spectrum to the device)");
    }
    cudaFreeHost(h);
    if (st)
        return st;
    TRY(sub_tables(s, p, err));
    TRY(grow(&s->tl, &s->tlcap, (size_t)s->ntempl, "the template list", err));
    {
        int *all = (int *)malloc((size_t)s->ntempl * sizeof *all);
        if (!all)
            return xc_error_set(err, XC_ENOMEM, "accel gpu: out of memory (template list)");
        for (int t = 0; t < s->ntempl; t++)
            all[t] = t;
        cudaError_t e = cudaMemcpy(s->tl, all, (size_t)s->ntempl * sizeof *all, cudaMemcpyHostToDevice);
        free(all);
        XC_GPU_CK(e, "accel cudaMemcpy (template list to the device)");
    }
    if (!s->hitcap)
        TRY(grow(&s->hits, &s->hitcap, (size_t)1 << 16, "the points above threshold", err));
    TRY(grow(&s->nhit, &s->nhitcap, 1, "the hit count", err));
    /* blocks of whole segments, at most 1 GiB of plane */
    size_t cap = p->o.devblock ? p->o.devblock : (size_t)1 << 30;
    long V = s->V, nseg = (long)(cap / sizeof(float) / (size_t)s->ntempl / (size_t)V);
    if (nseg < 1)
        nseg = 1;
    long B = nseg * V;
    if (B > iend - ilo)
        B = iend - ilo;
    TRY(grow(&s->sum, &s->sumcap, (size_t)s->ntempl * (size_t)B, "the block's plane and sums", err));
    if (p->numharm > 1)
        TRY(grow(&s->sub, &s->subcap, (size_t)s->ntempl * (size_t)(B + 2), "a sub-harmonic's block", err));
    for (long i0 = ilo; i0 < iend; i0 += B) {
        long nr = iend - i0 < B ? iend - i0 : B;
        TRY(plane_dev(s, s->spec, 0, (long)nbins, i0, (size_t)nr, s->tl, s->ntempl, s->sum, err));
        TRY(stage_hits(s, p, i0, nr, 0, emit, ctx, err));
        for (int sg = 1; sg < p->nstages; sg++) {
            int H = 1 << sg;
            for (int hh = 1; hh < H; hh += 2) {
                int e = H / 2 - 1 + hh / 2;
                double frac = (double)hh / H;
                long lo = (long)((double)i0 * frac + 0.5), hi = (long)((double)(i0 + nr - 1) * frac + 0.5);
                long subnr = hi - lo + 1;
                TRY(plane_dev(s, s->spec, 0, (long)nbins, lo, (size_t)subnr, s->subtl + (size_t)e * s->ntempl,
                              s->subn[e], s->sub, err));
                k_addsub<<<grid_for((size_t)s->ntempl * (size_t)nr), 256, 0, s->stream>>>(
                    s->sum, s->sub, s->tsub + (size_t)e * s->ntempl, s->ntempl, nr, i0, frac, lo, subnr);
                LAUNCHED("k_addsub");
            }
            TRY(stage_hits(s, p, i0, nr, sg, emit, ctx, err));
        }
    }
    return XC_OK;
}

} // namespace xc_accel_gpu_impl

extern "C" xc_status xc_accel_gpu_search(void *st, const xc_accel_plan *p, const double *amp, size_t nbins, long ilo,
                                         long iend, xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    xc_accel_gpu_impl::state *s = (xc_accel_gpu_impl::state *)st;
    if (!s || !p || !emit)
        return xc_error_set(err, XC_EINVAL, "accel gpu: no state, plan or receiver of the points");
    if (p->ntempl != s->ntempl || p->hwmax != s->hwmax)
        return xc_error_set(err, XC_EINVAL, "accel gpu: the plan differs from the one the state was made for");
    return xc_accel_gpu_impl::search(s, p, amp, nbins, ilo, iend, emit, ctx, err);
}
