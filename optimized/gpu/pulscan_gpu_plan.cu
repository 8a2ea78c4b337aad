/* Pulscan on the GPU, the plan (xc_pulscan_gpu_plan): what does not depend
 * on the spectrum's values, made once and reused by every execute
 * (pulscan_gpu.cu): the device buffers, the thresholds and searched widths,
 * the screen's list, the exact kernel's working space. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <new>
#include <vector>

#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/pulscan_gpu.h"
#include "optimized/gpu/xc_gpu.h"

using namespace xcps;

namespace {

/* A float threshold no float sum of w values can miss: th lowered by
 * (w + 2) 2^-22 relative (the sum of w float-rounded values, added in float,
 * is within about 2 w 2^-24 of the double sum), then rounded down. */
float lowered(double th, int w)
{
    if (isinf(th))
        return INFINITY;
    double t = th * (1.0 - (w + 2) * ldexp(1.0, -22));
    float f = (float)t;
    if ((double)f > t)
        f = nextafterf(f, -INFINITY);
    return f;
}

/* The plan's stream and stage events, made once (a plan made again keeps
 * them).  The stream at the device's highest priority: a search's few
 * short kernels (0.25 ms at the paper's size) and its host thread's waits
 * for them would otherwise queue behind the blocks of whatever long kernel
 * runs beside it (FDAS's one-pass plane: 30 ms of blocks per pulsar); the
 * block scheduler starts a higher-priority stream's blocks first as SMs
 * free.  The same kernels on the same data: the same values. */
xc_status make_stream(xc_psgpu_plan *p, xc_error *err)
{
    if (!p->st.s) {
        int least = 0, greatest = 0;
        XC_GPU_CK(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
        XC_GPU_CK(cudaStreamCreateWithPriority(&p->st.s, cudaStreamNonBlocking, greatest),
                  "cudaStreamCreateWithPriority");
    }
    for (events &ev = p->ev; ev.made < S_N; ev.made++) {
        XC_GPU_CK(cudaEventCreate(&ev.b[ev.made]), "cudaEventCreate");
        if (cudaEventCreate(&ev.e[ev.made]) != cudaSuccess) {
            cudaEventDestroy(ev.b[ev.made]);
            return xc_gpu_fail(err, cudaGetLastError(), "cudaEventCreate");
        }
    }
    return XC_OK;
}

/* The exact pass's working space: shared memory (up to the device's
 * opt-in limit), or (very wide searches) a slice of global memory per
 * block, then a smaller grid. */
xc_status make_exact(xc_psgpu_plan *p, int optin, xc_error *err)
{
    const stage_set &S = p->S;
    p->xd = exact_doubles(S.wmax_all, S.nrows_all);
    const size_t xbytes = p->xd * sizeof(double);
    p->exgrid = p->sms * 16;
    p->xsmem = xbytes;
    if (xbytes > (size_t)optin) {
        p->xsmem = 0;
        p->exgrid = (int)std::max<size_t>((size_t)p->sms, std::min<size_t>((size_t)p->exgrid, (64u << 20) / xbytes));
        return p->dm.get(&p->d_x, p->xd * (size_t)p->exgrid, "exact working space", err);
    }
    if (xbytes > 48 * 1024)
        XC_GPU_CK(xc_gpu_smem_optin(k_exact), "cudaFuncSetAttribute(k_exact)");
    return XC_OK;
}

/* The plan's contents for nbins and o (thr_in: o's thresholds for nbins,
 * else computed here); its stream and events made once, its buffers from
 * p->dm (an earlier plan's where put aside and large enough). */
xc_status make_plan(xc_psgpu_plan *p, size_t nbins, const xc_psopts *o, const double *thr_in, xc_error *err)
{
    xc_status st = xc_psopts_check(o, err);
    if (st)
        return st;
    if (nbins < 2)
        return xc_error_set(err, XC_EINVAL, "the spectrum needs at least 2 complex bins (has %zu)", nbins);
    char why[256];
    if (!xc_gpu_available(why, sizeof why))
        return xc_error_set(err, XC_EDEVICE, "gpu: unavailable: %s", why);
    XC_GPU_CK_PRIOR("pulscan");
    p->nbins = nbins;
    p->o = *o;
    p->nb = xc_pulscan_nblocks(nbins, o->normwidth);
    p->nh = o->numharm;
    p->zstride = o->zmax + 2;
    int optin = 0;
    XC_GPU_CK(cudaDeviceGetAttribute(&p->sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute(SMs)");
    XC_GPU_CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
              "cudaDeviceGetAttribute(shared memory opt-in)");
    if ((st = make_stream(p, err)))
        return st;
    /* The median passes read the block's part from shared memory when the
     * largest block fits (64 KiB: 16384 values), else from separated arrays. */
    const size_t nb = p->nb, nmax = nb == 1 ? nbins - 1 : 2 * o->normwidth - 1;
    p->stage_bytes = nmax * sizeof(float);
    p->stage = p->stage_bytes <= 64 * 1024;
    devmem &dm = p->dm;
    if ((st = dm.get(&p->d_in, nbins, "the spectrum", err)) || (st = dm.get(&p->d_med, 2 * nb, "medians", err)) ||
        (st = dm.get(&p->d_mad, 2 * nb, "MADs", err)) || (st = dm.get(&p->d_med2, 2 * nb, "medians", err)) ||
        (st = dm.get(&p->d_scale, 2 * nb, "scales", err)) || (st = dm.get(&p->d_P, nbins, "powers", err)) ||
        (st = dm.get(&p->d_c, 1, "counters", err)) ||
        (!p->stage && ((st = dm.get(&p->d_re, nbins, "real parts", err)) ||
                       (st = dm.get(&p->d_im, nbins, "imaginary parts", err)))) ||
        (o->norm == XC_NORM_MOM && (st = dm.get(&p->d_scr, 2 * nbins, "median-of-medians scratch", err))))
        return st;
    if (p->stage)     /* with the kernel's static shared memory it can pass the 48 KiB default */
        XC_GPU_CK(xc_gpu_smem_optin(k_normalise), "cudaFuncSetAttribute(k_normalise)");

    /* Thresholds (host, as every searcher) and the searched widths. */
    const int nh = p->nh, zstride = p->zstride;
    std::vector<double> thv;
    if (thr_in) {
        thv.assign(thr_in, thr_in + (size_t)nh * zstride);
    } else {
        double *thr = NULL;
        if ((st = xc_pulscan_thresholds(o, nbins, &thr, err)))
            return st;
        thv.assign(thr, thr + (size_t)nh * zstride);
        free(thr);
    }
    std::vector<int> thk((size_t)nh * zstride);
    for (int h = 1; h <= nh; h++)
        for (int w = 0; w < zstride; w++)
            thk[(size_t)(h - 1) * zstride + w] =
                threshold_key(w ? lowered(thv[(size_t)(h - 1) * zstride + w], w) : INFINITY);
    for (int w = 1; w <= o->zmax + 1; w++)
        if (xc_pulscan_width_searched(o, w))
            p->W.push_back(w);
    stage_set &S = p->S;
    memset(&S, 0, sizeof S);
    for (int h = 1; h <= nh; h++) {
        size_t L = xc_pulscan_nfund(nbins, h);
        S.L[h - 1] = L;
        S.wmax[h - 1] = L >= 2 ? (int)std::min<size_t>((size_t)o->zmax + 1, L - 1) : 0;
        int r = 0;
        while (r < (int)p->W.size() && p->W[r] <= S.wmax[h - 1])
            r++;
        S.nrows[h - 1] = r;
        S.wmax_all = std::max(S.wmax_all, S.wmax[h - 1]);
        S.nrows_all = std::max(S.nrows_all, r);
        S.tile0[h - 1] = p->tiles;
        if (S.wmax[h - 1] >= 1)
            p->tiles += (unsigned)((L - 1 + PS_TILE - 1) / PS_TILE);
        if ((st = dm.get(&S.Sf[h - 1], L, "float harmonic sums", err)))
            return st;
    }
    if ((st = dm.get(&p->d_thr, thv.size(), "thresholds", err)) ||
        (st = dm.get(&p->d_thk, thk.size(), "thresholds", err)) ||
        (st = dm.get(&p->d_W, p->W.size(), "widths", err)) ||
        (st = dm.get(&p->d_rowmask, (size_t)S.wmax_all / 8 + 1, "row mask", err)))
        return st;
    /* bit k of byte b: width 8b+k+1 is one of the exact pass's rows */
    std::vector<unsigned char> rowmask((size_t)S.wmax_all / 8 + 1, 0);
    for (int r = 0; r < S.nrows_all; r++)
        rowmask[(size_t)(p->W[r] - 1) / 8] |= (unsigned char)(1u << ((p->W[r] - 1) % 8));
    XC_GPU_CK(cudaMemcpy(p->d_rowmask, rowmask.data(), rowmask.size(), cudaMemcpyHostToDevice), "cudaMemcpy(row mask)");
    XC_GPU_CK(cudaMemcpy(p->d_thr, thv.data(), thv.size() * sizeof(double), cudaMemcpyHostToDevice),
              "cudaMemcpy(thresholds)");
    XC_GPU_CK(cudaMemcpy(p->d_thk, thk.data(), thk.size() * sizeof(int), cudaMemcpyHostToDevice),
              "cudaMemcpy(thresholds)");
    if (!p->W.empty())
        XC_GPU_CK(cudaMemcpy(p->d_W, p->W.data(), p->W.size() * sizeof(int), cudaMemcpyHostToDevice),
                  "cudaMemcpy(widths)");
    /* those copies' DMA may still run on the legacy stream, which the plan's
     * own (non-blocking) stream does not wait for */
    XC_GPU_CK(cudaStreamSynchronize(0), "cudaMemcpy(the plan's tables)");
    /* Each screen thread flags at most its own group: the list cannot overflow. */
    if ((st = dm.get(&p->d_list, (size_t)p->tiles * PS_THREADS, "flagged groups", err)))
        return st;
    p->screen_smem = (PS_PHASE + 8 + (PS_THREADS + PS_PHASE / 8 + 2) * 9) * sizeof(float);

    if ((st = make_exact(p, optin, err)))
        return st;
    return dm.get(&p->d_pk, p->pcap, "peaks", err);
}
} // namespace

extern "C" xc_status xc_pulscan_gpu_plan(size_t nbins, const xc_psopts *o, xc_psgpu_plan **plan, xc_error *err)
{
    *plan = NULL;
    xc_psgpu_plan *p = new (std::nothrow) xc_psgpu_plan;
    if (!p)
        return xc_error_set(err, XC_ENOMEM, "out of memory for a GPU Pulscan plan");
    xc_status st = make_plan(p, nbins, o, NULL, err);
    if (st) {
        delete p;
        return st;
    }
    *plan = p;
    return XC_OK;
}

extern "C" xc_status xc_pulscan_gpu_replan(xc_psgpu_plan *p, size_t nbins, const xc_psopts *o, const double *thr,
                                           xc_error *err)
{
    if (!p || !o)
        return xc_error_set(err, XC_EINVAL, "no GPU Pulscan plan or options to make again");
    /* nothing queued on the plan's stream may still use its buffers */
    XC_GPU_CK(cudaStreamSynchronize(p->st.s), "cudaStreamSynchronize (before the plan is made again)");
    p->dm.recycle();
    p->nbins = p->nb = 0;
    p->nh = p->zstride = p->stage = 0;
    p->stage_bytes = 0;
    p->d_in = NULL;
    p->d_re = p->d_im = NULL;
    p->d_med = p->d_mad = p->d_med2 = p->d_scale = p->d_P = p->d_scr = NULL;
    p->d_c = NULL;
    p->tiles = 0;
    p->W.clear();
    p->d_thr = NULL;
    p->d_thk = NULL;
    p->d_W = NULL;
    p->d_rowmask = NULL;
    p->d_list = NULL;
    p->screen_smem = p->xd = p->xsmem = 0;
    p->exgrid = 0;
    p->d_x = NULL;
    p->d_pk = NULL;
    xc_status st = make_plan(p, nbins, o, thr, err);
    p->dm.drop_spare();
    return st;
}

extern "C" void xc_pulscan_gpu_destroy(xc_psgpu_plan *p)
{
    delete p;
}
