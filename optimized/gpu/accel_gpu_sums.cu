/* The CUDA accel searcher's own search (the searcher's optional `search`,
 * core/search/xc_accel.h): harmonic sums and thresholds on the device, so that the
 * plane never crosses the bus; only the points above each stage's
 * threshold come back.
 *
 * Semantics: core's preset exact (core/search/accel/xc_accel_pipeline.c): the top plane
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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/xc_accel.h"
#include "optimized/gpu/accel_gpu.h"
#include "optimized/gpu/accel_gpu_state.h"
#include "optimized/gpu/gpu_append.h"
#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/gpu_hostcopy.h"

namespace xc_accel_gpu_impl {

/* Blocks over (half-bin j, template t): x along a row, y over templates
 * (both grid-strided), so that no thread divides to find its point; at
 * most about 2^16 blocks in all, each thread looping along its row: a
 * block per 256 points (22 M blocks for the paper's plane) spent more time
 * being scheduled than reading memory. */
static dim3 grid2(long n, int rows)
{
    int gy = rows < 1 ? 1 : rows > 65535 ? 65535 : rows;
    long gx = (n + 255) / 256, most = 65536 / gy;
    gx = gx > most ? most : gx;
    return dim3((unsigned)(gx < 1 ? 1 : gx), (unsigned)gy);
}

/* Half-bin index (long)(i h/H + 0.5) of the sub-harmonic h/H (H = 2^sh),
 * core's rounding (core/search/accel/xc_accel_pipeline.c), in integers: i h/H is exact
 * and i >= 0, so adding 1/2 and truncating is (i h + H/2) >> sh. */
__device__ __forceinline__ long sub_index(long i, int h, int sh)
{
    return (long)(((unsigned long long)i * (unsigned)h + (1ull << sh >> 1)) >> sh);
}

__device__ __forceinline__ void put_hit(long long i, int t, int stage, float v, hit *__restrict__ hits,
                                        unsigned long long cap, unsigned long long *__restrict__ nhit)
{
    xc_gpu_append(hits, cap, nhit, hit{i, t, stage, v});
}

/* sum[t][j] += sub[tsub[t]][sub_index(i0 + j, h, sh) - lo] */
__global__ void k_addsub(float *__restrict__ sum, const float *__restrict__ sub, const int *__restrict__ tsub,
                         int ntempl, long nr, long i0, int h, int sh, long lo, long subnr)
{
    for (int t = blockIdx.y; t < ntempl; t += gridDim.y) {
        float *row = sum + (size_t)t * (size_t)nr;
        const float *srow = sub + (size_t)tsub[t] * (size_t)subnr - lo;
        for (long j = blockIdx.x * (long)blockDim.x + threadIdx.x; j < nr; j += (long)gridDim.x * blockDim.x)
            row[j] += srow[sub_index(i0 + j, h, sh)];
    }
}

/* Every sum[t][j] > thr: a hit (i0 + j, t, stage). */
__global__ void k_thresh(const float *__restrict__ sum, int ntempl, long nr, long i0, double thr, int stage,
                         hit *__restrict__ hits, unsigned long long cap, unsigned long long *__restrict__ nhit)
{
    for (int t = blockIdx.y; t < ntempl; t += gridDim.y) {
        const float *row = sum + (size_t)t * (size_t)nr;
        for (long j = blockIdx.x * (long)blockDim.x + threadIdx.x; j < nr; j += (long)gridDim.x * blockDim.x) {
            float v = row[j];
            if ((double)v > thr)
                put_hit(i0 + j, t, stage, v, hits, cap, nhit);
        }
    }
}

/* Every stage's thresholds of the whole top range [ilo, iend) at once, from
 * a plane that holds every template's row over [base, iend), ld floats
 * apart (base: the lowest half-bin a sub-harmonic reaches): the top value,
 * then stage by stage its sub-harmonics added in core's order (1/2; 1/4,
 * 3/4; 1/8, ...), each stage's sum tested against its threshold.  The same
 * float additions in the same order as k_addsub's passes, without writing
 * a sum back or reading it again.  NS stages at compile time, each
 * sub-harmonic's row found once per template: with the entries' indices
 * worked out per point, the kernel was bound by its integer arithmetic
 * (71 % of the SMs' issue rate, 22 % of DRAM bandwidth on an H100). */
struct stage_thr {
    float thr[8];   /* f: (double)v > thr exactly when v > f (float_below) */
};

template <int NS>
__global__ void k_sums(const float *__restrict__ P, size_t ld, long base, int ntempl, long ilo, long iend,
                       stage_thr th, const int *__restrict__ tsub, hit *__restrict__ hits, unsigned long long cap,
                       unsigned long long *__restrict__ nhit)
{
    constexpr int NE = (1 << (NS - 1)) - 1 > 0 ? (1 << (NS - 1)) - 1 : 1;
    /* U points a thread, a grid stride apart, loaded before any is summed:
     * U times the loads in flight (one point at a time held the kernel at
     * 55 % of DRAM bandwidth on the H200).  Each point's additions are the
     * same, in the same order. */
    constexpr int U = 4;
    const long stride = (long)gridDim.x * blockDim.x;
    for (int t = blockIdx.y; t < ntempl; t += gridDim.y) {
        const float *row = P + (size_t)t * ld - base;
        const float *sr[NE];
#pragma unroll
        for (int e = 0; e < NE; e++)
            sr[e] = NS > 1 ? P + (size_t)tsub[(size_t)e * (size_t)ntempl + (size_t)t] * ld - base : row;
        for (long i0 = ilo + blockIdx.x * (long)blockDim.x + threadIdx.x; i0 < iend; i0 += U * stride) {
            float v[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const long i = i0 + u * stride;
                v[u] = i < iend ? row[i] : 0.f;
            }
            /* Up to 4 harmonics (PF): every sub-harmonic value of the U
             * points loaded before the first sum too (U (1 + NE) loads in
             * flight, not U a stage: a hit's append between stages kept the
             * next stage's loads behind it).  More harmonics load each
             * stage's values as it is summed (the registers would spill).
             * Either way the additions and tests are the same, in the same
             * order. */
            constexpr bool PF = NS <= 3;
            float sv[PF ? NE : 1][U];
            if constexpr (PF) {
#pragma unroll
                for (int sg = 1; sg < NS; sg++)
#pragma unroll
                    for (int h = 1; h < (1 << sg); h += 2)
#pragma unroll
                        for (int u = 0; u < U; u++) {
                            const long i = i0 + u * stride;
                            const int e = (1 << (sg - 1)) - 1 + h / 2;
                            sv[e][u] = i < iend ? sr[e][sub_index(i, h, sg)] : 0.f;
                        }
            }
#pragma unroll
            for (int u = 0; u < U; u++)
                if (i0 + u * stride < iend && v[u] > th.thr[0])
                    put_hit(i0 + u * stride, t, 0, v[u], hits, cap, nhit);
#pragma unroll
            for (int sg = 1; sg < NS; sg++) {
#pragma unroll
                for (int h = 1; h < (1 << sg); h += 2)
#pragma unroll
                    for (int u = 0; u < U; u++) {
                        const long i = i0 + u * stride;
                        const int e = (1 << (sg - 1)) - 1 + h / 2;
                        if (i < iend) {
                            if constexpr (PF)
                                v[u] += sv[e][u];
                            else
                                v[u] += sr[e][sub_index(i, h, sg)];
                        }
                    }
#pragma unroll
                for (int u = 0; u < U; u++)
                    if (i0 + u * stride < iend && v[u] > th.thr[sg])
                        put_hit(i0 + u * stride, t, sg, v[u], hits, cap, nhit);
            }
        }
    }
}

/* The largest float f <= x: for a float v, (double)v > x exactly when
 * v > f (the next float above f is above x). */
static float float_below(double x)
{
    float f = (float)x;
    if ((double)f > x)
        f = nextafterf(f, -INFINITY);
    return f;
}

static cudaError_t launch_sums(int ns, dim3 g, cudaStream_t st, const float *P, size_t ld, long base, int ntempl,
                               long ilo, long iend, const stage_thr &th, const int *tsub, hit *hits,
                               unsigned long long cap, unsigned long long *nhit)
{
    switch (ns) {
#define NS_CASE(N)                                                                                 \
    case N:                                                                                        \
        k_sums<N><<<g, 256, 0, st>>>(P, ld, base, ntempl, ilo, iend, th, tsub, hits, cap, nhit);    \
        break;
        NS_CASE(1) NS_CASE(2) NS_CASE(3) NS_CASE(4) NS_CASE(5) NS_CASE(6)
#undef NS_CASE
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

/* The n hits on the device to the host's staging (waiting for them). */
static xc_status fetch_hits(state *s, size_t n, xc_error *err)
{
    if (!n)
        return XC_OK;
    TRY(grow_host(&s->hhits, &s->hhitcap, n, "the points above threshold (staging)", err));
    XC_GPU_CK(cudaMemcpyAsync(s->hhits, s->hits, n * sizeof(hit), cudaMemcpyDeviceToHost, s->stream),
              "accel cudaMemcpyAsync (points above threshold to the host)");
    WAIT("cudaMemcpyAsync (points above threshold)");
    return XC_OK;
}

/* The n fetched hits on to emit, in one call (core scores them on the
 * search's threads: xc_accel_hits.c). */
static xc_status give_hits(state *s, size_t n, xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    if (!n)
        return XC_OK;
    xc_accel_hit *buf = (xc_accel_hit *)malloc(n * sizeof *buf);
    if (!buf)
        return xc_error_set(err, XC_ENOMEM, "accel gpu: out of memory (%zu points above threshold)", n);
    for (size_t k = 0; k < n; k++) {
        buf[k].i = (long)s->hhits[k].i;
        buf[k].t = s->hhits[k].t;
        buf[k].stage = s->hhits[k].stage;
        buf[k].P = s->hhits[k].P;
    }
    xc_status st = emit(ctx, buf, n, err);
    free(buf);
    return st;
}

static xc_status emit_hits(state *s, size_t n, xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    TRY(fetch_hits(s, n, err));
    return give_hits(s, n, emit, ctx, err);
}

/* The count of hits the pass just queued; *again when they overflowed the
 * buffer, which has grown for the pass to run again. */
static xc_status hit_count(state *s, const char *what, size_t *n, int *again, xc_error *err)
{
    unsigned long long c = 0;
    XC_GPU_CK(cudaMemcpyAsync(&c, s->nhit, sizeof c, cudaMemcpyDeviceToHost, s->stream),
              "accel cudaMemcpyAsync (hit count to the host)");
    TRY(sync(s, what, err));
    *n = (size_t)c;
    *again = c > s->hitcap;
    if (*again)
        TRY(grow(&s->hits, &s->hitcap, (size_t)c, "the points above threshold", err));
    return XC_OK;
}

/* The hits of one stage of a block: threshold, count, grow and again if
 * they overflowed, then to the host and emit. */
static xc_status stage_hits(state *s, const xc_accel_plan *p, long i0, long nr, int stage, xc_accel_emit_fn emit,
                            void *ctx, xc_error *err)
{
    for (;;) {
        XC_GPU_CK(cudaMemsetAsync(s->nhit, 0, sizeof *s->nhit, s->stream), "accel cudaMemsetAsync (hit count)");
        k_thresh<<<grid2(nr, p->ntempl), 256, 0, s->stream>>>(s->sum, p->ntempl, nr, i0, p->thr[stage], stage, s->hits,
                                                             (unsigned long long)s->hitcap, s->nhit);
        LAUNCHED("k_thresh");
        size_t n;
        int again;
        TRY(hit_count(s, "accel k_thresh", &n, &again, err));
        if (!again)
            return emit_hits(s, n, emit, ctx, err);
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

static void plane_release(void *m) { cudaFree(m); }

/* Room for the whole plane (bytes): the slot's kept memory where there is a
 * slot and it is large enough; else the slot's released and a plane a
 * sixty-fourth larger allocated into it (the next pulsar's spectrum is a
 * few thousand bins longer or shorter); without a slot the search's own.
 * *P NULL (no error) when the device has no room: the block path. */
static xc_status plane_room(xc_devslot *slot, double bytes, float **P, xc_error *err)
{
    *P = NULL;
    if (slot && slot->mem && (double)slot->bytes >= bytes) {
        *P = (float *)slot->mem;
        return XC_OK;
    }
    if (slot && slot->mem) {
        slot->release(slot->mem);
        slot->mem = NULL;
        slot->bytes = 0;
    }
    size_t freeb = 0, totb = 0;
    XC_GPU_CK(cudaMemGetInfo(&freeb, &totb), "accel cudaMemGetInfo");
    if (bytes + (double)(1u << 30) > (double)freeb)
        return XC_OK;
    size_t want = (size_t)bytes;
    if (slot && bytes + bytes / 64 + (double)(1u << 30) <= (double)freeb)
        want += want / 64;
    if (cudaMalloc((void **)P, want) != cudaSuccess) {
        (void)cudaGetLastError();     /* another user took the room: the block path */
        *P = NULL;
        return XC_OK;
    }
    if (slot) {
        slot->mem = *P;
        slot->bytes = want;
        slot->release = plane_release;
    }
    return XC_OK;
}

/* The whole plane at once, when the device has room for it: every
 * template's row over [base, iend), base the lowest half-bin a sub-harmonic
 * of the top range reaches.  Every sub-harmonic value is then a point of
 * that plane, so the sub-harmonic planes the block path makes again (at the
 * paper's zmax 1200 and 4 harmonics 0.88 times the top plane's points:
 * 601/1201 x 1/2 + 301/1201 x 1/4 + 901/1201 x 3/4) are
 * not made, and k_sums tests every stage in one pass.  The values are the
 * same convolution; a point's float rounding can differ in the last bits
 * from the block path's, whose sub-harmonic segments start elsewhere.  The
 * plane lives in the caller's slot (p->gate: kept there for the next
 * search that takes it), else is allocated for the search and freed after
 * it, so that workers' kept sessions do not each hold one.  The *n points
 * above threshold are left in the host's staging (s->hhits); *done = 0
 * (and the block path runs) when the plane does not fit. */
static xc_status search_whole(state *s, const xc_accel_plan *p, size_t nbins, long ilo, long iend,
                              xc_devslot *slot, size_t *n, int *done, xc_error *err)
{
    *done = 0;
    *n = 0;
    if (p->o.devblock || p->nstages > 6)
        return XC_OK;        /* a caller's block size asks for the block path */
    const int top = p->nstages - 1;
    const long base = (long)(((unsigned long long)ilo + (1ull << top >> 1)) >> top);
    const size_t nr = (size_t)(iend - base);
    const double bytes = (double)s->ntempl * (double)nr * sizeof(float);
    float *P = NULL;
    TRY(plane_room(slot, bytes, &P, err));
    if (!P)
        return XC_OK;
    stage_thr th;
    for (int k = 0; k < 8; k++)
        th.thr[k] = k < p->nstages ? float_below(p->thr[k]) : 0;
    xc_status st = plane_dev(s, s->spec, 0, (long)nbins, base, nr, s->tl, s->ntempl, P, nr, err);
    for (int again = 1; !st && again;) {
        cudaError_t e = cudaMemsetAsync(s->nhit, 0, sizeof *s->nhit, s->stream);
        if (e != cudaSuccess) {
            st = xc_gpu_fail(err, e, "accel cudaMemsetAsync (hit count)");
            break;
        }
        e = launch_sums(p->nstages, grid2(iend - ilo, s->ntempl), s->stream, P, nr, base, s->ntempl, ilo, iend, th,
                        s->tsub, s->hits, (unsigned long long)s->hitcap, s->nhit);
        if (e != cudaSuccess)
            st = xc_gpu_fail(err, e, "accel k_sums (launch)");
        if (!st)
            st = hit_count(s, "accel k_sums", n, &again, err);
    }
    if (!st)
        st = fetch_hits(s, *n, err);
    if (!slot) {
        cudaError_t e = cudaFree(P);
        if (!st && e != cudaSuccess)
            st = xc_gpu_fail(err, e, "accel cudaFree (the whole plane)");
    }
    *done = !st;
    return st;
}

/* Blocks of whole segments, at most 1 GiB of plane, and at most a quarter
 * of the device's free memory (other callers' searches may hold most of
 * it: this is what runs when the whole plane did not fit). */
static xc_status search_blocks(state *s, const xc_accel_plan *p, size_t nbins, long ilo, long iend,
                               xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    size_t cap = p->o.devblock ? p->o.devblock : (size_t)1 << 30;
    if (!p->o.devblock) {
        size_t freeb = 0, totb = 0;
        XC_GPU_CK(cudaMemGetInfo(&freeb, &totb), "accel cudaMemGetInfo");
        if (freeb / 4 < cap)
            cap = freeb / 4;
    }
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
        TRY(plane_dev(s, s->spec, 0, (long)nbins, i0, (size_t)nr, s->tl, s->ntempl, s->sum, (size_t)nr, err));
        TRY(stage_hits(s, p, i0, nr, 0, emit, ctx, err));
        for (int sg = 1; sg < p->nstages; sg++) {
            int H = 1 << sg;
            for (int hh = 1; hh < H; hh += 2) {
                int e = H / 2 - 1 + hh / 2;
                double frac = (double)hh / H;
                long lo = (long)((double)i0 * frac + 0.5), hi = (long)((double)(i0 + nr - 1) * frac + 0.5);
                long subnr = hi - lo + 1;
                TRY(plane_dev(s, s->spec, 0, (long)nbins, lo, (size_t)subnr, s->subtl + (size_t)e * s->ntempl,
                              s->subn[e], s->sub, (size_t)subnr, err));
                k_addsub<<<grid2(nr, s->ntempl), 256, 0, s->stream>>>(s->sum, s->sub, s->tsub + (size_t)e * s->ntempl,
                                                                     s->ntempl, nr, i0, hh, sg, lo, subnr);
                LAUNCHED("k_addsub");
            }
            TRY(stage_hits(s, p, i0, nr, sg, emit, ctx, err));
        }
    }
    return XC_OK;
}

/* The search of the amplitudes staged in s->hamp (2 nbins floats): up
 * once, the tables, then the whole plane or blocks.  A slot of p->gate is
 * held from before the plane's memory is taken until the device work is
 * done (the whole plane's points fetched; the block path's last block):
 * the normalisation before and the scoring after hold none. */
static xc_status search_staged(state *s, const xc_accel_plan *p, size_t nbins, long ilo, long iend,
                               xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    XC_GPU_CK(cudaMemcpyAsync(s->spec, s->hamp, nbins * sizeof(float2), cudaMemcpyHostToDevice, s->stream),
              "accel cudaMemcpyAsync (spectrum to the device)");
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
    xc_devslot *slot = p->gate.take ? p->gate.take(p->gate.ctx) : NULL;
    int done = 0;
    size_t n = 0;
    xc_status st = search_whole(s, p, nbins, ilo, iend, slot, &n, &done, err);
    if (!st && !done)
        st = search_blocks(s, p, nbins, ilo, iend, emit, ctx, err);
    if (slot)
        p->gate.give(p->gate.ctx, slot);
    if (!st && done)
        st = give_hits(s, n, emit, ctx, err);
    return st;
}

/* The state's pinned staging, kept from search to search (a session's next
 * spectrum reuses it: 18.75 MB of cudaMallocHost per search at the paper's
 * 2.34 M bins otherwise); nothing queued may still read it. */
static xc_status staging(state *s, size_t nbins, xc_error *err)
{
    TRY(grow(&s->spec, &s->speccap, nbins, "the spectrum's amplitudes", err));
    TRY(sync(s, "accel cudaStreamSynchronize (before the spectrum's staging)", err));
    return grow_host(&s->hamp, &s->hampcap, 2 * nbins, "the spectrum's amplitudes (staging)", err);
}

xc_status search(state *s, const xc_accel_plan *p, const double *amp, size_t nbins, long ilo, long iend,
                 xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    XC_GPU_CK_PRIOR("accel gpu search");
    if (iend <= ilo)
        return XC_OK;
    if (!amp || nbins < 1 || nbins > (size_t)LONG_MAX / 4)
        return xc_error_set(err, XC_EINVAL, "accel gpu: a search without amplitudes");
    TRY(staging(s, nbins, err));
    xc_gpu_to_float(s->hamp, amp, 2 * nbins, p->o.threads);
    return search_staged(s, p, nbins, ilo, iend, emit, ctx, err);
}

/* The same from the spectrum and its blocks' scales: each amplitude
 * rounded to float straight from X s (xc_accel_amps_get), the values the
 * double amplitudes' rounding gives, without an array of them. */
static xc_status search_amps(state *s, const xc_accel_plan *p, const xc_accel_amps *a, long ilo, long iend,
                             xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    XC_GPU_CK_PRIOR("accel gpu search");
    if (iend <= ilo)
        return XC_OK;
    if (!a || !a->X || !a->bscale || a->nbins < 1 || a->nbins > (size_t)LONG_MAX / 4)
        return xc_error_set(err, XC_EINVAL, "accel gpu: a search without amplitudes");
    TRY(staging(s, a->nbins, err));
    xc_accel_gpu_amps(a, s->hamp, p->o.threads);
    return search_staged(s, p, a->nbins, ilo, iend, emit, ctx, err);
}

// What both entry points refuse: no state, plan or receiver, or a plan other than the state's.
static xc_status check_call(const state *s, const xc_accel_plan *p, xc_accel_emit_fn emit, xc_error *err)
{
    if (!s || !p || !emit)
        return xc_error_set(err, XC_EINVAL, "accel gpu: no state, plan or receiver of the points");
    if (p->ntempl != s->ntempl || p->hwmax != s->hwmax)
        return xc_error_set(err, XC_EINVAL, "accel gpu: the plan differs from the one the state was made for");
    return XC_OK;
}

} // namespace xc_accel_gpu_impl

extern "C" xc_status xc_accel_gpu_search(const xc_accel_searcher *self, void *st, const xc_accel_plan *p,
                                         const double *amp, size_t nbins, long ilo, long iend, xc_accel_emit_fn emit,
                                         void *ctx, xc_error *err)
{
    (void)self;
    xc_accel_gpu_impl::state *s = (xc_accel_gpu_impl::state *)st;
    xc_status stc = xc_accel_gpu_impl::check_call(s, p, emit, err);
    if (stc != XC_OK)
        return stc;
    return xc_accel_gpu_impl::search(s, p, amp, nbins, ilo, iend, emit, ctx, err);
}

extern "C" xc_status xc_accel_gpu_search_amps(const xc_accel_searcher *self, void *st, const xc_accel_plan *p,
                                              const xc_accel_amps *a, long ilo, long iend, xc_accel_emit_fn emit,
                                              void *ctx, xc_error *err)
{
    (void)self;
    xc_accel_gpu_impl::state *s = (xc_accel_gpu_impl::state *)st;
    xc_status stc = xc_accel_gpu_impl::check_call(s, p, emit, err);
    if (stc != XC_OK)
        return stc;
    return xc_accel_gpu_impl::search_amps(s, p, a, ilo, iend, emit, ctx, err);
}

/* The state depends on the templates alone (their FFTs, the segment
 * length, buffers grown as searches need them), not on the spectrum's
 * length or T: a session keeps it from one pulsar's length to the next. */
extern "C" int xc_accel_gpu_keeps(const xc_accel_searcher *self, void *st, const xc_accel_plan *p)
{
    (void)self;
    const xc_accel_gpu_impl::state *s = (const xc_accel_gpu_impl::state *)st;
    return s && p && p->ntempl == s->ntempl && p->hwmax == s->hwmax;
}
