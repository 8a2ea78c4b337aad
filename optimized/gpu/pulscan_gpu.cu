/* Pulscan on the GPU, host side: the stages of the Pulscan paper's GPU
 * pipeline (White et al. 2024, section 2.6 and Table 4) run in order on one
 * stream, each timed with CUDA events:
 *
 *   h2d        the spectrum (interleaved complex float32) to the device
 *   separate   real and imaginary parts into two arrays
 *   normalise  per block and part: exact median and MAD by radix select, or
 *              the paper's median of medians of 4 (-norm mom); blocks with
 *              MAD 0 borrow their nearest neighbour's statistics
 *   power      P = ((re - med)/s)^2 + ((im - med)/s)^2, s = 1.4826 MAD
 *   decimate   S_h for h = 1..numharm, in double and as float copies
 *   boxcar     a float screen of every (start, width) against its width's
 *              threshold (lowered by more than a float sum of that width can
 *              err), a maximum per group of 8 starts (the paper's per-block
 *              maximum reduction); then, for the groups that pass, the exact
 *              double boxcars and the local-maximum test, or in R-block mode
 *              every exact boxcar above threshold, reduced per block and width
 *              on the host
 *   logp       ln p of each peak: the exact even-dof chi-square tail or the
 *              paper's polynomial (xc_chi2_even.h, the same source as the
 *              host's), and the fill test of R-block peaks
 *   d2h        the peaks back
 *
 * Significance, sifting and sorting are xc_pulscan_finish's, as for every
 * searcher, so identical peaks give identical lists. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/pulscan_gpu.h"
#include "optimized/gpu/xc_gpu.h"

using namespace xcps;

namespace {

struct devmem {
    std::vector<void *> p;
    size_t bytes = 0;
    ~devmem()
    {
        for (void *q : p)
            cudaFree(q);
    }
    template <typename T> xc_status get(T **out, size_t n, const char *what, xc_error *err)
    {
        void *q = NULL;
        size_t b = (n ? n : 1) * sizeof(T);
        cudaError_t e = cudaMalloc(&q, b);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return xc_error_set(err, XC_EDEVICE, "gpu: cudaMalloc(%zu bytes for %s): %s", b, what,
                                cudaGetErrorString(e));
        }
        p.push_back(q);
        bytes += b;
        *out = (T *)q;
        return XC_OK;
    }
    void release(void *q)
    {
        for (size_t k = 0; k < p.size(); k++)
            if (p[k] == q) {
                cudaFree(q);
                p.erase(p.begin() + (long)k);
                return;
            }
    }
};

/* Stages timed by a pair of events recorded just around their work, so the
 * host's checks between stages are not counted. */
enum { S_H2D, S_SEP, S_NORM, S_POW, S_DEC, S_SCREEN, S_EXACT, S_LOGP, S_D2H, S_N };

struct events {
    cudaEvent_t b[S_N], e[S_N];
    double ms[S_N] = {0};
    int made = 0;
    ~events()
    {
        for (int k = 0; k < made; k++) {
            cudaEventDestroy(b[k]);
            cudaEventDestroy(e[k]);
        }
    }
};

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

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

int grid_for(size_t n, int threads)
{
    size_t b = (n + (size_t)threads - 1) / (size_t)threads;
    return (int)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

bool rblock_less(const dpeak &a, const dpeak &b, size_t cw)
{
    if (a.h != b.h)
        return a.h < b.h;
    if (a.i / cw != b.i / cw)
        return a.i / cw < b.i / cw;
    if (a.width != b.width)
        return a.width < b.width;
    if (a.power != b.power)
        return a.power > b.power;
    return a.i < b.i;
}

#define CK_LAUNCH(name) XC_GPU_CK(cudaGetLastError(), name " (launch)")
#define BEGIN(k) XC_GPU_CK(cudaEventRecord(ev.b[k], 0), "cudaEventRecord")
#define END(k) XC_GPU_CK(cudaEventRecord(ev.e[k], 0), "cudaEventRecord")
/* Waits for stage k (an asynchronous error is blamed on what), adds its time. */
#define DONE(k, what)                                                                              \
    do {                                                                                           \
        XC_GPU_CK(cudaEventSynchronize(ev.e[k]), what);                                            \
        float f_ = 0;                                                                              \
        XC_GPU_CK(cudaEventElapsedTime(&f_, ev.b[k], ev.e[k]), "cudaEventElapsedTime");            \
        ev.ms[k] += f_;                                                                            \
    } while (0)

/* Stage k of a kernel that appends to a device list: gets the list (*cap
 * entries, for what), zeroes the counter d_count, runs launch (which enqueues
 * the kernel, writing to *d_list, at most *cap entries, and counting every
 * entry it would write in d_count) and reads the count into *n; when the
 * count overflowed *cap, the list is made that large and the stage rerun. */
template <typename T, typename F>
xc_status run_listing(devmem &dm, events &ev, int k, const char *kname, T **d_list, unsigned *cap, unsigned *d_count,
                      unsigned *n, const char *what, F launch, xc_error *err)
{
    xc_status st = dm.get(d_list, *cap, what, err);
    if (st)
        return st;
    for (;;) {
        XC_GPU_CK(cudaMemset(d_count, 0, sizeof(unsigned)), "cudaMemset(counters)");
        BEGIN(k);
        if ((st = launch()))
            return st;
        END(k);
        DONE(k, kname);
        XC_GPU_CK(cudaMemcpy(n, d_count, sizeof *n, cudaMemcpyDeviceToHost), kname);
        if (*n <= *cap)
            return XC_OK;
        dm.release(*d_list);
        *cap = *n;
        if ((st = dm.get(d_list, *cap, what, err)))
            return st;
    }
}

/* The pipeline up to the powers (P_out != NULL: copied back, then stop) or
 * through the peaks. */
xc_status pipeline(const xc_spectrum *sp, const xc_psopts *o, double *P_out, xc_pspeaks *pk, xc_gpu_psinfo *info,
                   xc_error *err)
{
    xc_status st = xc_pulscan_check_input(sp, o, err);
    if (st)
        return st;
    char why[256];
    if (!xc_gpu_available(why, sizeof why))
        return xc_error_set(err, XC_EDEVICE, "gpu: unavailable: %s", why);
    XC_GPU_CK_PRIOR("pulscan");

    const size_t nbins = sp->nbins, nb = xc_pulscan_nblocks(nbins, o->normwidth);
    const int nh = o->numharm, zstride = o->zmax + 2;
    int sms = 0, optin = 0;
    XC_GPU_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute(SMs)");
    XC_GPU_CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
              "cudaDeviceGetAttribute(shared memory opt-in)");

    devmem dm;
    events ev;
    for (; ev.made < S_N; ev.made++) {
        XC_GPU_CK(cudaEventCreate(&ev.b[ev.made]), "cudaEventCreate");
        if (cudaEventCreate(&ev.e[ev.made]) != cudaSuccess) {
            cudaEventDestroy(ev.b[ev.made]);
            return xc_gpu_fail(err, cudaGetLastError(), "cudaEventCreate");
        }
    }

    float2 *d_in = NULL;
    float *d_re = NULL, *d_im = NULL;
    double *d_med = NULL, *d_mad = NULL, *d_med2 = NULL, *d_scale = NULL, *d_P = NULL, *d_scr = NULL;
    unsigned *d_cnt = NULL;
    if ((st = dm.get(&d_in, nbins, "the spectrum", err)) || (st = dm.get(&d_re, nbins, "real parts", err)) ||
        (st = dm.get(&d_im, nbins, "imaginary parts", err)) || (st = dm.get(&d_med, 2 * nb, "medians", err)) ||
        (st = dm.get(&d_mad, 2 * nb, "MADs", err)) || (st = dm.get(&d_med2, 2 * nb, "medians", err)) ||
        (st = dm.get(&d_scale, 2 * nb, "scales", err)) || (st = dm.get(&d_P, nbins, "powers", err)) ||
        (st = dm.get(&d_cnt, 4, "counters", err)) ||
        (o->norm == XC_NORM_MOM && (st = dm.get(&d_scr, 2 * nbins, "median-of-medians scratch", err))))
        return st;
    XC_GPU_CK(cudaMemset(d_cnt, 0, 4 * sizeof(unsigned)), "cudaMemset(counters)");

    double t0 = now_ms();
    BEGIN(S_H2D);
    XC_GPU_CK(cudaMemcpy(d_in, sp->data, nbins * sizeof(float2), cudaMemcpyHostToDevice), "cudaMemcpy(spectrum)");
    END(S_H2D);
    DONE(S_H2D, "cudaMemcpy(spectrum)");
    BEGIN(S_SEP);
    k_separate<<<grid_for(nbins, 256), 256>>>(d_in, d_re, d_im, nbins);
    CK_LAUNCH("k_separate");
    END(S_SEP);
    DONE(S_SEP, "k_separate");
    BEGIN(S_NORM);
    /* The exact median's passes read the block's values from shared memory
     * when the largest block fits (64 KiB: 16384 values), else from global. */
    size_t nmax = nb == 1 ? nbins - 1 : 2 * o->normwidth - 1, stage_bytes = nmax * sizeof(float);
    int stage = o->norm == XC_NORM_EXACT && stage_bytes <= 64 * 1024;
    if (stage)     /* with the kernel's static shared memory it can pass the 48 KiB default */
        XC_GPU_CK(cudaFuncSetAttribute(k_normalise, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)stage_bytes),
                  "cudaFuncSetAttribute(k_normalise)");
    k_normalise<<<(unsigned)(2 * nb), 512, stage ? stage_bytes : 0>>>(d_re, d_im, nbins, o->normwidth, nb,
                                                                     o->norm == XC_NORM_MOM, stage, d_scr, d_med, d_mad);
    CK_LAUNCH("k_normalise");
    k_borrow<<<grid_for(2 * nb, 256), 256>>>(d_med, d_mad, nb, d_med2, d_scale, d_cnt);
    CK_LAUNCH("k_borrow");
    END(S_NORM);
    DONE(S_NORM, "k_normalise/k_borrow");
    unsigned fail = 0;
    XC_GPU_CK(cudaMemcpy(&fail, d_cnt, sizeof fail, cudaMemcpyDeviceToHost), "cudaMemcpy(borrow flags)");
    if (fail)
        return xc_error_set(err, XC_EINVAL,
                            "the %s parts of bins 1..%zu have a median absolute deviation of 0 in "
                            "every normalisation block (constant data): cannot normalise",
                            fail & 1 ? "real" : "imaginary", nbins - 1);
    BEGIN(S_POW);
    k_power<<<grid_for(nbins, 256), 256>>>(d_re, d_im, nbins, o->normwidth, nb, d_med2, d_scale, d_P);
    CK_LAUNCH("k_power");
    END(S_POW);
    DONE(S_POW, "k_power");
    if (P_out) {
        XC_GPU_CK(cudaMemcpy(P_out, d_P, nbins * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy(powers)");
        return XC_OK;
    }
    /* The inputs are no longer needed; the stages are. */
    dm.release(d_in);
    dm.release(d_scr);

    /* Thresholds (host, as every searcher) and the searched widths. */
    double *thr = NULL;
    if ((st = xc_pulscan_thresholds(o, nbins, &thr, err)))
        return st;
    std::vector<double> thv(thr, thr + (size_t)nh * zstride);
    free(thr);
    std::vector<float> thf((size_t)nh * zstride);
    for (int h = 1; h <= nh; h++)
        for (int w = 0; w < zstride; w++)
            thf[(size_t)(h - 1) * zstride + w] = w ? lowered(thv[(size_t)(h - 1) * zstride + w], w) : INFINITY;
    std::vector<int> W;
    for (int w = 1; w <= o->zmax + 1; w++)
        if (xc_pulscan_width_searched(o, w))
            W.push_back(w);
    stage_set S;
    memset(&S, 0, sizeof S);
    unsigned tiles = 0;
    for (int h = 1; h <= nh; h++) {
        size_t L = xc_pulscan_nfund(nbins, h);
        S.L[h - 1] = L;
        S.wmax[h - 1] = L >= 2 ? (int)std::min<size_t>((size_t)o->zmax + 1, L - 1) : 0;
        int r = 0;
        while (r < (int)W.size() && W[r] <= S.wmax[h - 1])
            r++;
        S.nrows[h - 1] = r;
        S.wmax_all = std::max(S.wmax_all, S.wmax[h - 1]);
        S.nrows_all = std::max(S.nrows_all, r);
        S.tile0[h - 1] = tiles;
        if (S.wmax[h - 1] >= 1)
            tiles += (unsigned)((L - 1 + PS_TILE - 1) / PS_TILE);
        if ((st = dm.get(&S.Sf[h - 1], L, "float harmonic sums", err)))
            return st;
    }
    double *d_thr = NULL;
    float *d_thf = NULL;
    int *d_W = NULL;
    if ((st = dm.get(&d_thr, thv.size(), "thresholds", err)) || (st = dm.get(&d_thf, thf.size(), "thresholds", err)) ||
        (st = dm.get(&d_W, W.size(), "widths", err)))
        return st;
    XC_GPU_CK(cudaMemcpy(d_thr, thv.data(), thv.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy(thresholds)");
    XC_GPU_CK(cudaMemcpy(d_thf, thf.data(), thf.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy(thresholds)");
    if (!W.empty())
        XC_GPU_CK(cudaMemcpy(d_W, W.data(), W.size() * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy(widths)");

    BEGIN(S_DEC);
    k_decimate<<<grid_for(S.L[0], 256), 256>>>(d_P, S, nh);
    CK_LAUNCH("k_decimate");
    END(S_DEC);
    DONE(S_DEC, "k_decimate");

    /* Screen; a list that overflowed is made large enough and the screen rerun. */
    unsigned cap = 1u << 16, nflag = 0;
    unsigned long long *d_list = NULL;
    const size_t screen_smem = (PS_PHASE + 8 + (PS_THREADS + PS_PHASE / 8 + 2) * 9) * sizeof(float);
    auto screen = [&]() -> xc_status {
        if (tiles) {
            k_screen<<<tiles, PS_THREADS, screen_smem>>>(S, nh, d_thf, zstride, d_list, cap, d_cnt + 1);
            CK_LAUNCH("k_screen");
        }
        return XC_OK;
    };
    if ((st = run_listing(dm, ev, S_SCREEN, "k_screen", &d_list, &cap, d_cnt + 1, &nflag, "flagged groups", screen, err)))
        return st;

    /* Exact pass over the flagged groups: working space in shared memory,
     * or (very wide searches) in global memory. */
    size_t xd = exact_doubles(S.wmax_all, S.nrows_all), xbytes = xd * sizeof(double), smem = xbytes;
    int exgrid = (int)std::min<size_t>(nflag ? nflag : 1, (size_t)sms * 16);
    double *d_x = NULL;
    if (xbytes > (size_t)optin) {
        smem = 0;
        if ((st = dm.get(&d_x, xd * (size_t)exgrid, "exact working space", err)))
            return st;
    } else if (xbytes > 48 * 1024) {
        XC_GPU_CK(cudaFuncSetAttribute(k_exact, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)xbytes),
                  "cudaFuncSetAttribute(k_exact)");
    }
    unsigned pcap = 1u << 14, npk = 0;
    dpeak *d_pk = NULL;
    auto exact = [&]() -> xc_status {
        if (nflag) {
            k_exact<<<exgrid, EX_THREADS, smem>>>(d_P, S, d_list, nflag, d_thr, zstride, d_W, o->rblock, d_x, xd,
                                                  d_pk, pcap, d_cnt + 2);
            CK_LAUNCH("k_exact");
        }
        return XC_OK;
    };
    if ((st = run_listing(dm, ev, S_EXACT, "k_exact", &d_pk, &pcap, d_cnt + 2, &npk, "peaks", exact, err)))
        return st;
    if (o->rblock && npk) {
        /* Pulscan's search: per stage, R-block and width, the largest boxcar
         * (the first start on ties).  Every boxcar above its threshold is in
         * the list, so the maxima that beat the threshold are all here. */
        std::vector<dpeak> e(npk);
        XC_GPU_CK(cudaMemcpy(e.data(), d_pk, npk * sizeof(dpeak), cudaMemcpyDeviceToHost), "cudaMemcpy(R-block entries)");
        size_t cw = o->chunkwidth;
        std::sort(e.begin(), e.end(), [cw](const dpeak &a, const dpeak &b) { return rblock_less(a, b, cw); });
        std::vector<dpeak> best;
        for (size_t k = 0; k < e.size(); k++)
            if (!k || e[k].h != e[k - 1].h || e[k].i / cw != e[k - 1].i / cw || e[k].width != e[k - 1].width)
                best.push_back(e[k]);
        npk = (unsigned)best.size();
        XC_GPU_CK(cudaMemcpy(d_pk, best.data(), npk * sizeof(dpeak), cudaMemcpyHostToDevice), "cudaMemcpy(R-block peaks)");
    }
    BEGIN(S_LOGP);
    if (npk) {
        k_logp<<<grid_for(npk, 128), 128>>>(d_pk, npk, d_P, o->logp == XC_LOGP_POLY, o->rblock && !o->nosift);
        CK_LAUNCH("k_logp");
    }
    END(S_LOGP);
    DONE(S_LOGP, "k_logp");
    std::vector<dpeak> hp(npk);
    BEGIN(S_D2H);
    if (npk)
        XC_GPU_CK(cudaMemcpy(hp.data(), d_pk, npk * sizeof(dpeak), cudaMemcpyDeviceToHost), "cudaMemcpy(peaks)");
    END(S_D2H);
    DONE(S_D2H, "cudaMemcpy(peaks)");
    double t1 = now_ms();

    for (unsigned k = 0; k < npk && !st; k++) {
        st = xc_pspeaks_push(pk, hp[k].i, hp[k].width, hp[k].h, hp[k].power, err);
        if (!st) {
            pk->p[pk->n - 1].logp = hp[k].logp;
            pk->p[pk->n - 1].filled = hp[k].filled;
        }
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->h2d_ms = ev.ms[S_H2D];
        info->separate_ms = ev.ms[S_SEP];
        info->normalise_ms = ev.ms[S_NORM];
        info->power_ms = ev.ms[S_POW];
        info->decimate_ms = ev.ms[S_DEC];
        info->screen_ms = ev.ms[S_SCREEN];
        info->exact_ms = ev.ms[S_EXACT];
        info->boxcar_ms = info->screen_ms + info->exact_ms;
        info->logp_ms = ev.ms[S_LOGP];
        info->d2h_ms = ev.ms[S_D2H];
        info->kernels_ms = info->separate_ms + info->normalise_ms + info->power_ms + info->decimate_ms +
                           info->boxcar_ms + info->logp_ms;
        info->wall_ms = t1 - t0;
        info->flagged_groups = nflag;
        info->peaks = npk;
        info->device_bytes = dm.bytes;
    }
    return st;
}

} // namespace

extern "C" xc_status xc_pulscan_powers_gpu(const xc_spectrum *sp, const xc_psopts *o, double *P, xc_error *err)
{
    return pipeline(sp, o, P, NULL, NULL, err);
}

extern "C" xc_status xc_pulscan_peaks_gpu(const xc_spectrum *sp, const xc_psopts *o, xc_pspeaks *pk, xc_error *err)
{
    return pipeline(sp, o, NULL, pk, NULL, err);
}

extern "C" xc_status xc_pulscan_gpu_info(const xc_spectrum *sp, const xc_psopts *o, xc_candlist *out,
                                         xc_gpu_psinfo *info, xc_error *err)
{
    xc_pspeaks pk;
    xc_pspeaks_init(&pk);
    xc_status st = pipeline(sp, o, NULL, &pk, info, err);
    if (!st)
        st = xc_pulscan_finish(o, sp, NULL, &pk, out, err);
    xc_pspeaks_free(&pk);
    return st;
}

extern "C" xc_status xc_pulscan_gpu(const xc_spectrum *sp, const xc_psopts *o, xc_candlist *out, xc_error *err)
{
    return xc_pulscan_gpu_info(sp, o, out, NULL, err);
}
