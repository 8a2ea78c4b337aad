/* GPU single-pulse search, the host side (optimized/gpu/xc_gpu.h,
 * sp_gpu.h): a plan's device buffers, and per batch of DM trials the copy of
 * a host plane (a device view is read where it lies), the statistics, the
 * boxes, and the detections back, in the reference's order. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/sp_gpu.h"
#include "optimized/gpu/xc_gpu.h"

using namespace xcsp;

namespace {

const size_t P_BUDGET = (size_t)1 << 30;   /* bytes of prefix sums per batch, at most */
const size_t MAX_ROWS = 4096;              /* rows per batch (grid.z of the boxes' launch <= 65535) */

struct sp_state {
    size_t nsamp, rows;        /* planned samples per row, rows per batch */
    float *x;                  /* a host plane's batch, rows x nsamp (made on the first host plane) */
    double *P, *m, *s;         /* rows x (nsamp + 1), m_have, rows */
    size_t m_have;
    int32_t *w;
    xc_spdet *det;
    size_t det_cap;
    unsigned long long *count;
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

/* A kernel's launch and its run, each failure named. */
xc_status launched(const char *what, xc_error *err)
{
    XC_GPU_CK(cudaGetLastError(), what);
    XC_GPU_CK(cudaDeviceSynchronize(), what);
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

/* The boxes of the batch's R rows, their detections appended to out in row,
 * width, time order (the device appends them in any order). */
xc_status boxes(sp_state *S, const xc_spconf *c, size_t n, size_t nb, size_t R, int32_t row0, xc_spdets *out,
                xc_error *err)
{
    dim3 grid((unsigned)((n + SP_THREADS - 1) / SP_THREADS), (unsigned)c->nwidths, (unsigned)R);
    unsigned long long count = 0;
    for (int pass = 0; pass < 2; pass++) {
        XC_GPU_CK(cudaMemset(S->count, 0, sizeof *S->count), "sp cudaMemset (count)");
        k_sp_boxes<<<grid, SP_THREADS>>>(S->P, S->nsamp + 1, n, S->m, nb, c->block, nb, S->s, S->w, c->threshold,
                                        row0, S->det, S->count, S->det_cap);
        xc_status st = launched("sp k_sp_boxes", err);
        if (st)
            return st;
        XC_GPU_CK(cudaMemcpy(&count, S->count, sizeof count, cudaMemcpyDeviceToHost), "sp cudaMemcpy (count)");
        if (count <= S->det_cap)
            break;
        /* more runs than slots: room for all of them, and the same launch again */
        if ((st = grow((void **)&S->det, &S->det_cap, (size_t)count, sizeof *S->det, "sp cudaMalloc (detections)",
                       err)))
            return st;
    }
    if (!count)
        return XC_OK;
    xc_spdet *h = (xc_spdet *)malloc((size_t)count * sizeof *h);
    if (!h)
        return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for %llu detections", count);
    xc_status st = XC_OK;
    cudaError_t e = cudaMemcpy(h, S->det, (size_t)count * sizeof *h, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        st = xc_gpu_fail(err, e, "sp cudaMemcpy (detections)");
    if (!st)
        qsort(h, (size_t)count, sizeof *h, cmp_det);
    for (size_t i = 0; !st && i < (size_t)count; i++)
        st = xc_spdets_add(out, &h[i], err);
    free(h);
    return st;
}

/* Rows r0 .. r0 + R - 1 of the plane. */
xc_status batch(sp_state *S, const xc_spconf *c, const xc_spplane *pl, size_t r0, size_t R, xc_spdets *out,
                xc_error *err)
{
    const size_t n = pl->nsamp, nb = xc_sp_nblocks(n, c->block);
    const float *x = pl->data + r0 * pl->stride;
    size_t xs = pl->stride;
    if (!pl->device) {
        XC_GPU_CK(cudaMemcpy2D(S->x, n * sizeof *S->x, x, pl->stride * sizeof *x, n * sizeof *x, R,
                               cudaMemcpyHostToDevice),
                  "sp cudaMemcpy2D (plane)");
        x = S->x;
        xs = n;
    }
    const int meansd = c->stat == XC_SP_MEAN_SD;
    k_sp_prefix<<<(unsigned)R, SP_THREADS>>>(x, xs, n, S->P, S->nsamp + 1, meansd, S->m, nb, S->s);
    xc_status st = launched("sp k_sp_prefix", err);
    if (!st && !meansd) {
        k_sp_median_mad<<<(unsigned)R, SP_THREADS>>>(x, xs, n, c->block, nb, S->m, nb, S->s);
        st = launched("sp k_sp_median_mad", err);
    }
    return st ? st : boxes(S, c, n, nb, R, (int32_t)r0, out, err);
}

} // namespace

extern "C" xc_status xc_sp_gpu_plan(const xc_spsearcher *self, const xc_spconf *c, size_t nsamp, void **state,
                                    xc_error *err)
{
    (void)self;
    *state = NULL;
    char why[256];
    if (!xc_gpu_available(why, sizeof why))
        return xc_error_set(err, XC_EDEVICE, "gpu: unavailable: %s", why);
    XC_GPU_CK_PRIOR("sp plan");
    sp_state *S = new (std::nothrow) sp_state();
    if (!S)
        return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for a plan");
    size_t freeb = 0, total = 0, have = 0;
    if (cudaMemGetInfo(&freeb, &total) != cudaSuccess) {
        release(S);
        return xc_gpu_fail(err, cudaGetLastError(), "sp cudaMemGetInfo");
    }
    size_t budget = freeb / 4 < P_BUDGET ? freeb / 4 : P_BUDGET, row_bytes = (nsamp + 1) * sizeof(double);
    S->nsamp = nsamp;
    S->rows = budget / row_bytes;
    S->rows = S->rows < 1 ? 1 : S->rows > MAX_ROWS ? MAX_ROWS : S->rows;
    size_t nb = xc_sp_nblocks(nsamp ? nsamp : 1, c->block);
    xc_status st;
    if ((st = grow((void **)&S->P, &have, S->rows * (nsamp + 1), sizeof(double), "sp cudaMalloc (prefix sums)",
                   err)) ||
        (st = grow((void **)&S->m, &S->m_have, S->rows * nb, sizeof(double), "sp cudaMalloc (baselines)", err)) ||
        (st = grow((void **)&S->s, &have, S->rows, sizeof(double), "sp cudaMalloc (rms)", err)) ||
        (st = grow((void **)&S->w, &have, XC_SP_MAXW, sizeof(int32_t), "sp cudaMalloc (widths)", err)) ||
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

extern "C" xc_status xc_sp_gpu_execute(const xc_spsearcher *self, void *state, const xc_spconf *c,
                                       const xc_spplane *pl, xc_spdets *out, xc_error *err)
{
    (void)self;
    sp_state *S = (sp_state *)state;
    if (!S)
        return xc_error_set(err, XC_EINVAL, "gpu: execute without a plan");
    XC_GPU_CK_PRIOR("sp execute");
    const size_t n = pl->nsamp;
    xc_status st = check_view(pl, S, err);
    if (st || !n || !pl->nrows)
        return st;
    size_t have = 0, nb = xc_sp_nblocks(n, c->block);
    if ((st = grow((void **)&S->m, &S->m_have, S->rows * nb, sizeof(double), "sp cudaMalloc (baselines)", err)) ||
        (!pl->device && !S->x &&
         (st = grow((void **)&S->x, &have, S->rows * S->nsamp, sizeof(float), "sp cudaMalloc (plane)", err))))
        return st;
    XC_GPU_CK(cudaMemcpy(S->w, c->widths, (size_t)c->nwidths * sizeof *c->widths, cudaMemcpyHostToDevice),
              "sp cudaMemcpy (widths)");
    for (size_t r0 = 0; !st && r0 < pl->nrows; r0 += S->rows)
        st = batch(S, c, pl, r0, pl->nrows - r0 < S->rows ? pl->nrows - r0 : S->rows, out, err);
    return st;
}

extern "C" void xc_sp_gpu_destroy(const xc_spsearcher *self, void *state)
{
    (void)self;
    release((sp_state *)state);
}
