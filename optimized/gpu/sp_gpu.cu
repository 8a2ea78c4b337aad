/* GPU single-pulse search, the host side (optimized/gpu/xc_gpu.h,
 * sp_gpu.h): a plan's device buffers, and per batch of DM trials the copy of
 * a host plane (a device view is read where it lies), the statistics (or
 * the view's given rms and mean), the boxes, and the detections back, in the
 * reference's order.
 *
 * A plan's work goes on a stream of its own, which does not wait for other
 * streams' work (cudaStreamNonBlocking) and is waited for alone: so a fused
 * pipeline can search one block's plane while another host thread
 * dedisperses the next block on the dedisperser's streams (sp_fused.c).
 * An execute first orders its stream after the work queued so far on the
 * legacy default stream (a caller's cudaMemcpy filling a device view), as
 * the default stream used to order it.
 *
 * A batch's kernels, the detections' count and the first SP_HEAD
 * detections go on the stream back to back and the host waits once: on
 * noise that one wait (a blocking-sync event's wake-up) is all a DM range
 * costs the host beyond its launches, where a wait after the filter, after
 * the exact boxes, after the count and after the detections left the device
 * idle four times a range.  A failure in any of a batch's kernels shows at
 * that wait, named for the last. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include "core/base/xc_progress.h"
#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/sp_gpu.h"
#include "optimized/gpu/xc_gpu.h"

using namespace xcsp;

namespace {

const size_t P_BUDGET = (size_t)1 << 30;   /* bytes of prefix sums per batch, at most (boxes wider than SP_WTILE) */
const size_t X_BUDGET = (size_t)1 << 29;   /* bytes of a host plane's batch on the device, at most */
const size_t MAX_ROWS = 4096;              /* rows per batch of k_sp_boxes (grid.z <= 65535) */
const size_t SP_HEAD = 256;                /* detections copied back with their count, before it is known */

/* Pinned host memory the count and the first detections of a batch are
 * copied into (asynchronous copies need it), one wait for both. */
struct sp_head {
    unsigned long long count;
    xc_spdet det[SP_HEAD];
};

struct sp_state {
    size_t nsamp;              /* planned samples per row */
    float *x;                  /* a host plane's batch */
    double *P, *m, *s;         /* prefix sums of rows (boxes wider than SP_WTILE only), baselines, rms */
    size_t x_have, P_have, m_have, s_have;
    int32_t *w;
    xc_spdet *det;
    size_t det_cap;
    unsigned long long *count;
    uint2 *list;               /* k_sp_flag's tiles, a slot per tile of a batch */
    size_t list_have, nlist_have;
    unsigned *nlist;
    int *introw;               /* k_sp_medians's rows not all integers (their MAD by selection) */
    size_t introw_have;
    cudaStream_t st;           /* the plan's work, waited for alone */
    cudaEvent_t legacy;        /* the legacy stream's work so far, which an execute waits for */
    cudaEvent_t done;          /* the plan's work so far, waited for without spinning (wait_plan) */
    cudaEvent_t k[4];          /* the kernels' device time: statistics and filter, then the exact boxes */
    double kernel_ms;          /* their time since the last xc_sp_gpu_take_kernel_ms */
    sp_head *head;             /* pinned */
    int32_t hw[XC_SP_MAXW];    /* the widths in S->w (nw of them; -1: none yet), so a range copies them once */
    int nw;
    xc_sp_gpu_trace trace;     /* host clock since the last xc_sp_gpu_take_trace */
    bool have_st, have_ev, have_done, have_k;
};

void release(sp_state *S)
{
    if (!S)
        return;
    cudaFree(S->x);
    cudaFree(S->P);
    cudaFree(S->m);
    cudaFree(S->s);
    cudaFree(S->w);
    cudaFree(S->det);
    cudaFree(S->count);
    cudaFree(S->list);
    cudaFree(S->nlist);
    cudaFree(S->introw);
    cudaFreeHost(S->head);
    if (S->have_st)
        cudaStreamDestroy(S->st);
    if (S->have_ev)
        cudaEventDestroy(S->legacy);
    if (S->have_done)
        cudaEventDestroy(S->done);
    for (int i = 0; S->have_k && i < 4; i++)
        cudaEventDestroy(S->k[i]);
    delete S;
}

/* *p holds at least want elements of elem bytes (*have: how many it holds). */
xc_status grow(void **p, size_t *have, size_t want, size_t elem, const char *what, xc_error *err)
{
    if (*p && want <= *have)
        return XC_OK;
    cudaFree(*p);
    *p = NULL;
    *have = 0;
    XC_GPU_CK(cudaMalloc(p, (want ? want : 1) * elem), what);
    *have = want;
    return XC_OK;
}

/* The plan's stream's work so far, waited for on a blocking-sync event: a
 * spinning wait holds a host core for the whole search, and in a stream of
 * gulps the search runs beside the dedisperser's host copies, which use every
 * core (CUDA Runtime API, cudaEventBlockingSync). */
cudaError_t wait_plan(sp_state *S)
{
    const double t0 = xc_now();
    cudaError_t e = cudaEventRecord(S->done, S->st);
    e = e == cudaSuccess ? cudaEventSynchronize(S->done) : e;
    S->trace.wait_s += xc_now() - t0;
    S->trace.waits++;
    return e;
}

/* The device time between two of the plan's events, both complete (their
 * stream waited for), added to the plan's kernel time. */
xc_status add_kernel_ms(sp_state *S, int a, int b, xc_error *err)
{
    float ms = 0.0f;
    XC_GPU_CK(cudaEventElapsedTime(&ms, S->k[a], S->k[b]), "sp cudaEventElapsedTime");
    S->kernel_ms += ms;
    return XC_OK;
}

int cmp_det(const void *a, const void *b)
{
    const xc_spdet *x = (const xc_spdet *)a, *y = (const xc_spdet *)b;
    if (x->dm_index != y->dm_index)
        return x->dm_index < y->dm_index ? -1 : 1;
    if (x->windex != y->windex)
        return x->windex < y->windex ? -1 : 1;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

/* The n detections h, sorted, appended to out in row, width, time order;
 * pieces of one run (a piece beginning where the one before, same row and
 * width, ended) joined: the earlier best box kept on ties, as the walk of
 * the whole run keeps it. */
xc_status append_sorted(xc_spdet *h, size_t n, xc_spdets *out, xc_error *err)
{
    qsort(h, n, sizeof *h, cmp_det);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        xc_spdet *a = &h[k];
        const xc_spdet *b = &h[i];
        if (b->dm_index == a->dm_index && b->windex == a->windex && a->end - a->width + 1 == b->begin) {
            if (b->snr > a->snr) {
                a->snr = b->snr;
                a->sample = b->sample;
            }
            a->end = b->end;
        } else
            h[++k] = *b;
    }
    xc_status st = XC_OK;
    for (size_t i = 0; !st && n && i <= k; i++)
        st = xc_spdets_add(out, &h[i], err);
    return st;
}

/* The detections of one launch (launch(cap) appends at most cap to S->det
 * and counts all in S->count) appended to out; the launch runs again with
 * room for all where the first count passes the buffer.  The count and the
 * first SP_HEAD slots come back in one wait; more detections than that, in
 * a second. */
template <typename LAUNCH> xc_status detections(sp_state *S, LAUNCH launch, const char *what, xc_spdets *out,
                                                xc_error *err)
{
    unsigned long long count = 0;
    for (int pass = 0; pass < 2; pass++) {
        XC_GPU_CK(cudaMemsetAsync(S->count, 0, sizeof *S->count, S->st), "sp cudaMemset (count)");
        launch((unsigned long long)S->det_cap);
        XC_GPU_CK(cudaGetLastError(), what);
        XC_GPU_CK(cudaMemcpyAsync(&S->head->count, S->count, sizeof S->head->count, cudaMemcpyDeviceToHost, S->st),
                  "sp cudaMemcpy (count)");
        const size_t nh = S->det_cap < SP_HEAD ? S->det_cap : SP_HEAD;
        XC_GPU_CK(cudaMemcpyAsync(S->head->det, S->det, nh * sizeof *S->det, cudaMemcpyDeviceToHost, S->st),
                  "sp cudaMemcpy (detections)");
        XC_GPU_CK(wait_plan(S), what);
        count = S->head->count;
        if (count <= S->det_cap)
            break;
        xc_status st = grow((void **)&S->det, &S->det_cap, (size_t)count, sizeof *S->det, "sp cudaMalloc (detections)",
                            err);
        if (st)
            return st;
    }
    if (!count)
        return XC_OK;
    xc_spdet *h = (xc_spdet *)malloc((size_t)count * sizeof *h);
    if (!h)
        return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for %llu detections", count);
    const size_t nh = count < SP_HEAD ? (size_t)count : SP_HEAD;
    xc_status st = XC_OK;
    if (count > nh) {
        cudaError_t e = cudaMemcpyAsync(h + nh, S->det + nh, ((size_t)count - nh) * sizeof *h, cudaMemcpyDeviceToHost,
                                        S->st);
        if (e == cudaSuccess)
            e = wait_plan(S);
        if (e != cudaSuccess)
            st = xc_gpu_fail(err, e, "sp cudaMemcpy (detections)");
    }
    const double t0 = xc_now();
    memcpy(h, S->head->det, nh * sizeof *h);
    if (!st)
        st = append_sorted(h, (size_t)count, out, err);
    free(h);
    S->trace.sort_s += xc_now() - t0;
    return st;
}

/* The widest width of c that fits a row of n samples (0: none). */
size_t widest(const xc_spconf *c, size_t n)
{
    size_t W = 0;
    for (int k = 0; k < c->nwidths; k++)
        if ((size_t)c->widths[k] <= n)
            W = (size_t)c->widths[k];
    return W;
}

/* The view's given row statistics (xc_spplane.row_s, row_m: the whole rows'
 * of a gulp's window, core/sp/xc_sprms.h) of rows r0 .. r0 + R - 1 over
 * the device's: s[r] and, for the mean and sd, m[r * nb], as
 * xc_sp_given_stats replaces them on the host. */
xc_status given_stats(sp_state *S, const xc_spconf *c, const xc_spplane *pl, size_t r0, size_t R, size_t nb,
                      xc_error *err)
{
    XC_GPU_CK(cudaMemcpyAsync(S->s, pl->row_s + r0, R * sizeof *S->s, cudaMemcpyHostToDevice, S->st),
              "sp cudaMemcpy (rms)");
    if (pl->row_m && c->stat == XC_SP_MEAN_SD)
        XC_GPU_CK(cudaMemcpy2DAsync(S->m, nb * sizeof *S->m, pl->row_m + r0, sizeof *S->m, sizeof *S->m, R,
                                    cudaMemcpyHostToDevice, S->st),
                  "sp cudaMemcpy2D (means)");
    return XC_OK;
}

/* Rows r0 .. r0 + R - 1 of the plane; W the widest box that fits. */
xc_status batch(sp_state *S, const xc_spconf *c, const xc_spplane *pl, size_t r0, size_t R, size_t W,
                xc_spdets *out, xc_error *err)
{
    const size_t n = pl->nsamp, nb = xc_sp_nblocks(n, c->block);
    const int tiles = W <= SP_WTILE, meansd = c->stat == XC_SP_MEAN_SD;
    const float *x = pl->data + r0 * pl->stride;
    size_t xs = pl->stride;
    xc_status st;
    if ((st = grow((void **)&S->m, &S->m_have, R * nb, sizeof(double), "sp cudaMalloc (baselines)", err)) ||
        (st = grow((void **)&S->s, &S->s_have, R, sizeof(double), "sp cudaMalloc (rms)", err)) ||
        (!tiles && (st = grow((void **)&S->P, &S->P_have, R * (n + 1), sizeof(double), "sp cudaMalloc (prefix sums)",
                              err))))
        return st;
    if (!pl->device) {
        XC_GPU_CK(cudaMemcpy2DAsync(S->x, n * sizeof *S->x, x, pl->stride * sizeof *x, n * sizeof *x, R,
                                    cudaMemcpyHostToDevice, S->st),
                  "sp cudaMemcpy2D (plane)");
        x = S->x;
        xs = n;
    }
    /* given statistics replace the rms (and the mean): their kernels run only where
     * something else needs them (the prefix sums of rows; the block medians) */
    const int given = pl->row_s != NULL;
    XC_GPU_CK(cudaEventRecord(S->k[0], S->st), "sp cudaEventRecord");
    if ((meansd && !given) || !tiles) {
        k_sp_prefix<<<(unsigned)R, SP_THREADS, 0, S->st>>>(x, xs, n, tiles ? NULL : S->P, n + 1, meansd, S->m, nb, S->s);
        XC_GPU_CK(cudaGetLastError(), "sp k_sp_prefix");
    }
    if (!meansd) {
        dim3 g((unsigned)R, (unsigned)(nb < 65535 ? nb : 65535));
        /* the longest block: the last, which takes the remainder */
        const unsigned cap = sp_medians_cache(nb > 1 ? n - (nb - 1) * c->block : n);
        if ((st = grow((void **)&S->introw, &S->introw_have, R, sizeof(int), "sp cudaMalloc (row flags)", err)))
            return st;
        XC_GPU_CK(cudaMemsetAsync(S->introw, 0, R * sizeof(int), S->st), "sp cudaMemset (row flags)");
        k_sp_medians<<<g, SP_THREADS, sp_medians_shared(cap), S->st>>>(x, xs, n, c->block, nb, S->m, nb, cap,
                                                                       S->introw);
        XC_GPU_CK(cudaGetLastError(), "sp k_sp_medians");
        if (!given) {
            k_sp_mad<<<(unsigned)R, SP_THREADS, 0, S->st>>>(x, xs, n, c->block, nb, S->m, nb, S->s, S->introw);
            XC_GPU_CK(cudaGetLastError(), "sp k_sp_mad");
        }
    }
    if (given && (st = given_stats(S, c, pl, r0, R, nb, err)))
        return st;
    const int32_t row0 = (int32_t)r0;
    if (tiles) {
        /* the float filter lists the tiles that may hold a detection, the
         * exact kernel judges those only (on noise, almost none) */
        const size_t ntiles = (n + SP_TILE - 1) / SP_TILE, shm = (SP_TILE + W) * sizeof(double);
        if ((st = grow((void **)&S->list, &S->list_have, R * ntiles, sizeof(uint2), "sp cudaMalloc (tiles)", err)) ||
            (st = grow((void **)&S->nlist, &S->nlist_have, 1, sizeof(unsigned), "sp cudaMalloc (tile count)", err)))
            return st;
        /* set every batch: the limit is the kernel's, not the plan's, and
         * another plan may have set a smaller one */
        XC_GPU_CK(cudaFuncSetAttribute(k_sp_flag, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sp_flag_shared(W)),
                  "sp k_sp_flag (shared memory)");
        XC_GPU_CK(cudaFuncSetAttribute(k_sp_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm),
                  "sp k_sp_tiles (shared memory)");
        XC_GPU_CK(cudaMemsetAsync(S->nlist, 0, sizeof *S->nlist, S->st), "sp cudaMemset (tile count)");
        const size_t nftiles = (n + SP_FTILE - 1) / SP_FTILE;
        dim3 g((unsigned)R, (unsigned)(nftiles < 65535 ? nftiles : 65535));
        k_sp_flag<<<g, SP_FTHREADS, sp_flag_shared(W), S->st>>>(x, xs, n, S->m, nb, c->block, nb, S->s, S->w,
                                                                    c->nwidths, W, c->threshold, S->list, S->nlist);
        XC_GPU_CK(cudaGetLastError(), "sp k_sp_flag");
        XC_GPU_CK(cudaEventRecord(S->k[1], S->st), "sp cudaEventRecord");
        /* no wait: the exact boxes read the list's count on the device */
        const unsigned g2 = (unsigned)(R * ntiles < 4096 ? R * ntiles : 4096);
        st = detections(S, [&](unsigned long long cap) {
            (void)cudaEventRecord(S->k[2], S->st);   /* a failure shows in the elapsed time */
            k_sp_tiles<<<g2, SP_THREADS, shm, S->st>>>(x, xs, n, S->m, nb, c->block, nb, S->s, S->w, c->nwidths, W,
                                                c->threshold, S->list, S->nlist, row0, S->det, S->count, cap);
            (void)cudaEventRecord(S->k[3], S->st);
        }, "sp k_sp_tiles", out, err);
        return st ? st : (st = add_kernel_ms(S, 0, 1, err)) ? st : add_kernel_ms(S, 2, 3, err);
    }
    dim3 g((unsigned)((n + SP_THREADS - 1) / SP_THREADS), (unsigned)c->nwidths, (unsigned)R);
    st = detections(S, [&](unsigned long long cap) {
        k_sp_boxes<<<g, SP_THREADS, 0, S->st>>>(S->P, n + 1, n, S->m, nb, c->block, nb, S->s, S->w, c->threshold, row0, S->det,
                                      S->count, cap);
        (void)cudaEventRecord(S->k[2], S->st);   /* a failure shows in the elapsed time */
    }, "sp k_sp_boxes", out, err);
    return st ? st : add_kernel_ms(S, 0, 2, err);
}

} // namespace

extern "C" xc_status xc_sp_gpu_plan(const xc_spsearcher *self, const xc_spconf *c, size_t nsamp, void **state,
                                    xc_error *err)
{
    (void)self;
    (void)c;
    *state = NULL;
    char why[256];
    if (!xc_gpu_available(why, sizeof why))
        return xc_error_set(err, XC_EDEVICE, "gpu: unavailable: %s", why);
    XC_GPU_CK_PRIOR("sp plan");
    sp_state *S = new (std::nothrow) sp_state();
    if (!S)
        return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for a plan");
    S->nsamp = nsamp;
    size_t have = 0;
    xc_status st = XC_OK;
    cudaError_t e = cudaStreamCreateWithFlags(&S->st, cudaStreamNonBlocking);
    S->have_st = e == cudaSuccess;
    if (e == cudaSuccess) {
        e = cudaEventCreateWithFlags(&S->legacy, cudaEventDisableTiming);
        S->have_ev = e == cudaSuccess;
    }
    if (e == cudaSuccess) {
        e = cudaEventCreateWithFlags(&S->done, cudaEventDisableTiming | cudaEventBlockingSync);
        S->have_done = e == cudaSuccess;
    }
    for (int i = 0; e == cudaSuccess && i < 4; i++) {
        e = cudaEventCreate(&S->k[i]);
        if (e != cudaSuccess)   /* none kept: the ones made are destroyed here */
            for (int j = 0; j < i; j++)
                cudaEventDestroy(S->k[j]);
        S->have_k = e == cudaSuccess;
    }
    if (e != cudaSuccess)
        st = xc_gpu_fail(err, e, "sp plan (stream)");
    S->nw = -1;
    if (!st && (e = cudaMallocHost((void **)&S->head, sizeof *S->head)) != cudaSuccess)
        st = xc_gpu_fail(err, e, "sp cudaMallocHost (detections)");
    if (st ||(st = grow((void **)&S->w, &have, XC_SP_MAXW, sizeof(int32_t), "sp cudaMalloc (widths)", err)) ||
        (st = grow((void **)&S->det, &S->det_cap, 4096, sizeof(xc_spdet), "sp cudaMalloc (detections)", err)) ||
        (st = grow((void **)&S->count, &have, 1, sizeof(unsigned long long), "sp cudaMalloc (count)", err))) {
        release(S);
        return st;
    }
    *state = S;
    return XC_OK;
}

/* A device view must name device (or managed) memory: a kernel reading a
 * host pointer would fault and lose the context. */
static xc_status check_view(const xc_spplane *pl, const sp_state *S, xc_error *err)
{
    if (pl->nsamp > S->nsamp)
        return xc_error_set(err, XC_EINVAL, "gpu: a plane of %zu samples, planned for at most %zu", pl->nsamp,
                            S->nsamp);
    if (pl->stride < pl->nsamp)
        return xc_error_set(err, XC_EINVAL, "gpu: stride %zu below the %zu samples of a row", pl->stride, pl->nsamp);
    if (!pl->device)
        return XC_OK;
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, pl->data) != cudaSuccess ||
        (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)) {
        (void)cudaGetLastError();
        return xc_error_set(err, XC_EINVAL, "gpu: the plane's view is marked device but its data is not device memory");
    }
    return XC_OK;
}

static xc_status execute(sp_state *S, const xc_spconf *c, const xc_spplane *pl, xc_spdets *out, xc_error *err)
{
    XC_GPU_CK_PRIOR("sp execute");
    const size_t n = pl->nsamp;
    xc_status st = check_view(pl, S, err);
    if (st || !n || !pl->nrows)
        return st;
    const size_t W = widest(c, n);
    if (!W)
        return XC_OK;   /* no box fits a row */
    /* rows per batch: all of a device plane; a host plane's within X_BUDGET; with
     * boxes wider than SP_WTILE, the rows' prefix sums within P_BUDGET */
    size_t rows = pl->nrows;
    if (!pl->device)
        rows = X_BUDGET / (n * sizeof(float)) < rows ? X_BUDGET / (n * sizeof(float)) : rows;
    if (W > SP_WTILE) {
        size_t pr = P_BUDGET / ((n + 1) * sizeof(double));
        rows = pr < rows ? pr : rows;
        rows = rows > MAX_ROWS ? MAX_ROWS : rows;
    }
    rows = rows < 1 ? 1 : rows;
    if (!pl->device && (st = grow((void **)&S->x, &S->x_have, rows * n, sizeof(float), "sp cudaMalloc (plane)", err)))
        return st;
    /* after the legacy stream's work so far (a caller's copy into a device
     * view), without waiting for other streams */
    XC_GPU_CK(cudaEventRecord(S->legacy, cudaStreamLegacy), "sp cudaEventRecord");
    XC_GPU_CK(cudaStreamWaitEvent(S->st, S->legacy, 0), "sp cudaStreamWaitEvent");
    if (S->nw != c->nwidths || memcmp(S->hw, c->widths, (size_t)c->nwidths * sizeof *c->widths)) {
        XC_GPU_CK(cudaMemcpyAsync(S->w, c->widths, (size_t)c->nwidths * sizeof *c->widths, cudaMemcpyHostToDevice,
                                  S->st),
                  "sp cudaMemcpy (widths)");
        memcpy(S->hw, c->widths, (size_t)c->nwidths * sizeof *c->widths);
        S->nw = c->nwidths;
    }
    for (size_t r0 = 0; !st && r0 < pl->nrows; r0 += rows)
        st = batch(S, c, pl, r0, pl->nrows - r0 < rows ? pl->nrows - r0 : rows, W, out, err);
    return st;
}

extern "C" xc_status xc_sp_gpu_execute(const xc_spsearcher *self, void *state, const xc_spconf *c,
                                       const xc_spplane *pl, xc_spdets *out, xc_error *err)
{
    (void)self;
    sp_state *S = (sp_state *)state;
    if (!S)
        return xc_error_set(err, XC_EINVAL, "gpu: execute without a plan");
    const double t0 = xc_now();
    const xc_status st = execute(S, c, pl, out, err);
    S->trace.total_s += xc_now() - t0;
    S->trace.calls++;
    return st;
}

extern "C" double xc_sp_gpu_take_kernel_ms(void *state)
{
    sp_state *S = (sp_state *)state;
    if (!S)
        return 0.0;
    const double ms = S->kernel_ms;
    S->kernel_ms = 0.0;
    return ms;
}

extern "C" void xc_sp_gpu_take_trace(void *state, xc_sp_gpu_trace *t)
{
    sp_state *S = (sp_state *)state;
    memset(t, 0, sizeof *t);
    if (!S)
        return;
    *t = S->trace;
    memset(&S->trace, 0, sizeof S->trace);
}

extern "C" void xc_sp_gpu_destroy(const xc_spsearcher *self, void *state)
{
    (void)self;
    release((sp_state *)state);
}
