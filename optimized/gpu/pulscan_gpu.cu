/* Pulscan on the GPU, host side: the stages of the Pulscan paper's GPU
 * pipeline (White et al. 2024, section 2.6 and Table 4) queued in order on one
 * stream, each bracketed by CUDA events when stage times are asked for:
 *
 *   h2d        the spectrum (interleaved complex float32) to the device;
 *              asynchronous when it lies in page-locked memory
 *   separate   real and imaginary parts into two arrays, only when a
 *              normalisation block is too large for shared memory (else
 *              normalise reads its part of the interleaved input directly)
 *   normalise  per block and part: exact median and MAD by radix select, or
 *              the paper's median of medians of 4 (-norm mom); blocks with
 *              MAD 0 borrow their nearest neighbour's statistics
 *   power      P = ((re - med)/s)^2 + ((im - med)/s)^2, s = 1.4826 MAD, with
 *              stage 1's float copy and the input's finiteness check
 *   decimate   float copies of S_h for h = 2..numharm
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
 * A plan (xc_pulscan_gpu_plan) holds what does not depend on the spectrum's
 * values: the device buffers, the thresholds and searched widths, the
 * screen's list (as long as the screen can make it: one entry per thread),
 * the exact kernel's working space.  Execute queues every stage without
 * waiting; the host waits once, for the counters (the input's first
 * non-finite value, blocks that could not borrow, the peak count), and again
 * only when the peak list overflowed (the exact pass reruns into a larger
 * one) or in R-block mode (the host's per-block maximum).
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
#include <new>
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
    void release(void *q, size_t b)
    {
        for (size_t k = 0; k < p.size(); k++)
            if (p[k] == q) {
                cudaFree(q);
                p.erase(p.begin() + (long)k);
                bytes -= b;
                return;
            }
    }
};

/* Stages timed by a pair of events recorded just around their work. */
enum { S_H2D, S_SEP, S_NORM, S_POW, S_DEC, S_SCREEN, S_EXACT, S_LOGP, S_D2H, S_N };

struct events {
    cudaEvent_t b[S_N], e[S_N];
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

/* The device's counters, one allocation: cnt[0] the parts that could not
 * borrow (bit 0 real, 1 imaginary), cnt[1] flagged groups, cnt[2] peaks;
 * bad: the first non-finite input value's float index (~0: none). */
struct counters {
    unsigned cnt[4];
    unsigned long long bad;
};

/* What the kernels write into the last counters read back. */
const char *const KERNELS = "the Pulscan kernels (normalise, power, decimate, screen, exact, logp)";

} // namespace

struct xc_psgpu_plan {
    size_t nbins = 0, nb = 0;
    xc_psopts o;
    int nh = 0, zstride = 0, sms = 0, stage = 0;
    size_t stage_bytes = 0;
    devmem dm;
    events ev;
    float2 *d_in = NULL;
    float *d_re = NULL, *d_im = NULL;
    double *d_med = NULL, *d_mad = NULL, *d_med2 = NULL, *d_scale = NULL, *d_P = NULL, *d_scr = NULL;
    counters *d_c = NULL;
    stage_set S;
    unsigned tiles = 0;
    std::vector<int> W;
    double *d_thr = NULL;
    int *d_thk = NULL;
    int *d_W = NULL;
    unsigned char *d_rowmask = NULL;
    unsigned long long *d_list = NULL;
    size_t screen_smem = 0, xd = 0, xsmem = 0;
    int exgrid = 0;
    double *d_x = NULL;
    dpeak *d_pk = NULL;
    unsigned pcap = 1u << 14;
};

namespace {

xc_status make_plan(xc_psgpu_plan *p, size_t nbins, const xc_psopts *o, xc_error *err)
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
    for (events &ev = p->ev; ev.made < S_N; ev.made++) {
        XC_GPU_CK(cudaEventCreate(&ev.b[ev.made]), "cudaEventCreate");
        if (cudaEventCreate(&ev.e[ev.made]) != cudaSuccess) {
            cudaEventDestroy(ev.b[ev.made]);
            return xc_gpu_fail(err, cudaGetLastError(), "cudaEventCreate");
        }
    }
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
    double *thr = NULL;
    if ((st = xc_pulscan_thresholds(o, nbins, &thr, err)))
        return st;
    std::vector<double> thv(thr, thr + (size_t)nh * zstride);
    free(thr);
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
    /* Each screen thread flags at most its own group: the list cannot overflow. */
    if ((st = dm.get(&p->d_list, (size_t)p->tiles * PS_THREADS, "flagged groups", err)))
        return st;
    p->screen_smem = (PS_PHASE + 8 + (PS_THREADS + PS_PHASE / 8 + 2) * 9) * sizeof(float);

    /* The exact pass's working space: shared memory, or (very wide searches)
     * a slice of global memory per block, then a smaller grid. */
    p->xd = exact_doubles(S.wmax_all, S.nrows_all);
    const size_t xbytes = p->xd * sizeof(double);
    p->exgrid = p->sms * 16;
    p->xsmem = xbytes;
    if (xbytes > (size_t)optin) {
        p->xsmem = 0;
        p->exgrid = (int)std::max<size_t>((size_t)p->sms, std::min<size_t>((size_t)p->exgrid, (64u << 20) / xbytes));
        if ((st = dm.get(&p->d_x, p->xd * (size_t)p->exgrid, "exact working space", err)))
            return st;
    } else if (xbytes > 48 * 1024) {
        XC_GPU_CK(xc_gpu_smem_optin(k_exact), "cudaFuncSetAttribute(k_exact)");
    }
    return dm.get(&p->d_pk, p->pcap, "peaks", err);
}

#define CK_LAUNCH(name) XC_GPU_CK(cudaGetLastError(), name " (launch)")
#define BEGIN(k)                                                                                   \
    do {                                                                                           \
        if (timed)                                                                                 \
            XC_GPU_CK(cudaEventRecord(p->ev.b[k], 0), "cudaEventRecord");                          \
    } while (0)
#define END(k)                                                                                     \
    do {                                                                                           \
        if (timed)                                                                                 \
            XC_GPU_CK(cudaEventRecord(p->ev.e[k], 0), "cudaEventRecord");                          \
    } while (0)

/* Adds the (completed) stage k's time to ms[k]. */
xc_status add_time(const xc_psgpu_plan *p, int k, double *ms, xc_error *err)
{
    float f = 0;
    XC_GPU_CK(cudaEventElapsedTime(&f, p->ev.b[k], p->ev.e[k]), "cudaEventElapsedTime");
    ms[k] += f;
    return XC_OK;
}

/* Reads the counters (waiting for the queued work, whose faults are named)
 * and reports a non-finite input value or a part that could not borrow, as
 * xc_pulscan_check_input and xc_pulscan_borrow word them. */
xc_status read_counters(const xc_psgpu_plan *p, const xc_spectrum *sp, counters *c, xc_error *err)
{
    XC_GPU_CK(cudaMemcpy(c, p->d_c, sizeof *c, cudaMemcpyDeviceToHost), KERNELS);
    if (c->bad != ~0ull) {
        size_t k = (size_t)c->bad;
        return xc_error_set(err, XC_EFORMAT, "bin %zu (%s part, byte offset %zu) is %g: not finite", k / 2,
                            k % 2 ? "imaginary" : "real", k * sizeof(float), (double)sp->data[k]);
    }
    if (c->cnt[0])
        return xc_error_set(err, XC_EINVAL,
                            "the %s parts of bins 1..%zu have a median absolute deviation of 0 in "
                            "every normalisation block (constant data): cannot normalise",
                            c->cnt[0] & 1 ? "real" : "imaginary", p->nbins - 1);
    return XC_OK;
}

/* Queues the stages up to the powers: the counters reset, the spectrum's
 * upload, separation, normalisation and the powers (into the first stage's
 * sums unless P_out is wanted). */
xc_status queue_powers(xc_psgpu_plan *p, const xc_spectrum *sp, bool want_P, bool timed, xc_error *err)
{
    const xc_psopts *o = &p->o;
    const size_t nbins = p->nbins, nb = p->nb;
    const stage_set &S = p->S;
    counters c0;
    memset(&c0, 0, sizeof c0);
    c0.bad = ~0ull;
    XC_GPU_CK(cudaMemcpyAsync(p->d_c, &c0, sizeof c0, cudaMemcpyHostToDevice, 0), "cudaMemcpy(counters)");
    BEGIN(S_H2D);
    XC_GPU_CK(cudaMemcpyAsync(p->d_in, sp->data, nbins * sizeof(float2), cudaMemcpyHostToDevice, 0),
              "cudaMemcpy(spectrum)");
    END(S_H2D);
    BEGIN(S_SEP);
    if (!p->stage) {
        k_separate<<<grid_for(nbins, 256), 256>>>(p->d_in, p->d_re, p->d_im, nbins);
        CK_LAUNCH("k_separate");
    }
    END(S_SEP);
    BEGIN(S_NORM);
    k_normalise<<<(unsigned)(2 * nb), 512, p->stage ? p->stage_bytes : 0>>>(
        p->d_in, p->d_re, p->d_im, nbins, o->normwidth, nb, o->norm == XC_NORM_MOM, p->stage, p->d_scr, p->d_med,
        p->d_mad);
    CK_LAUNCH("k_normalise");
    k_borrow<<<grid_for(2 * nb, 256), 256>>>(p->d_med, p->d_mad, nb, p->d_med2, p->d_scale, &p->d_c->cnt[0]);
    CK_LAUNCH("k_borrow");
    END(S_NORM);
    BEGIN(S_POW);
    /* normwidth capped at nbins (same blocks) so that the kernel's 32-bit division holds it */
    k_power<<<grid_for(nbins, 256), 256>>>(p->d_in, nbins, std::min(o->normwidth, nbins), nb, p->d_med2, p->d_scale, p->d_P,
                                            want_P ? NULL : S.Sf[0], &p->d_c->bad);
    CK_LAUNCH("k_power");
    END(S_POW);
    return XC_OK;
}

/* Pulscan's search (o->rblock): per stage, R-block and width, the largest
 * boxcar (the first start on ties) of the *npk entries in the peak list,
 * which become the list.  Every boxcar above its threshold is in the list, so
 * the maxima that beat the threshold are all here.  A list that overflowed
 * (*npk > pcap) is left for the caller to grow. */
xc_status rblock_maxima(xc_psgpu_plan *p, const xc_spectrum *sp, counters *c, unsigned *npk, xc_error *err)
{
    xc_status st;
    if ((st = read_counters(p, sp, c, err)))
        return st;
    *npk = c->cnt[2];
    if (*npk > p->pcap)
        return XC_OK;
    std::vector<dpeak> e(*npk);
    if (*npk)
        XC_GPU_CK(cudaMemcpy(e.data(), p->d_pk, *npk * sizeof(dpeak), cudaMemcpyDeviceToHost),
                  "cudaMemcpy(R-block entries)");
    size_t cw = p->o.chunkwidth;
    std::sort(e.begin(), e.end(), [cw](const dpeak &a, const dpeak &b) { return rblock_less(a, b, cw); });
    std::vector<dpeak> best;
    for (size_t k = 0; k < e.size(); k++)
        if (!k || e[k].h != e[k - 1].h || e[k].i / cw != e[k - 1].i / cw || e[k].width != e[k - 1].width)
            best.push_back(e[k]);
    *npk = (unsigned)best.size();
    if (*npk)
        XC_GPU_CK(cudaMemcpy(p->d_pk, best.data(), *npk * sizeof(dpeak), cudaMemcpyHostToDevice),
                  "cudaMemcpy(R-block peaks)");
    XC_GPU_CK(cudaMemcpyAsync(&p->d_c->cnt[2], npk, sizeof *npk, cudaMemcpyHostToDevice, 0), "cudaMemcpy(counters)");
    return XC_OK;
}

/* The stage times and counts of one search into info. */
void fill_info(xc_gpu_psinfo *info, const double *ms, double wall_ms, const counters &c, unsigned npk,
               const xc_psgpu_plan *p, const xc_spectrum *sp)
{
    memset(info, 0, sizeof *info);
    info->h2d_ms = ms[S_H2D];
    info->separate_ms = ms[S_SEP];
    info->normalise_ms = ms[S_NORM];
    info->power_ms = ms[S_POW];
    info->decimate_ms = ms[S_DEC];
    info->screen_ms = ms[S_SCREEN];
    info->exact_ms = ms[S_EXACT];
    info->boxcar_ms = info->screen_ms + info->exact_ms;
    info->logp_ms = ms[S_LOGP];
    info->d2h_ms = ms[S_D2H];
    info->kernels_ms = info->separate_ms + info->normalise_ms + info->power_ms + info->decimate_ms + info->boxcar_ms +
                       info->logp_ms;
    info->wall_ms = wall_ms;
    info->flagged_groups = c.cnt[1];
    info->peaks = npk;
    info->device_bytes = p->dm.bytes;
    info->input_pinned = xc_gpu_is_pinned(sp->data);
}

/* The search (P_out != NULL: the powers copied back, then stop). */
xc_status execute(xc_psgpu_plan *p, const xc_spectrum *sp, double *P_out, xc_pspeaks *pk, xc_gpu_psinfo *info,
                  xc_error *err)
{
    const xc_psopts *o = &p->o;
    if (!sp || !sp->data || sp->nbins != p->nbins)
        return xc_error_set(err, XC_EINVAL, "the spectrum has %zu bins; the GPU Pulscan plan was made for %zu",
                            sp && sp->data ? sp->nbins : 0, p->nbins);
    if (!(sp->T > 0))
        return xc_error_set(err, XC_EINVAL, "observation length T = %g s is not > 0", sp->T);
    XC_GPU_CK_PRIOR("pulscan");
    const bool timed = info != NULL;
    double ms[S_N] = {0};
    const stage_set &S = p->S;
    double t0 = now_ms();
    counters c;
    xc_status st;
    if ((st = queue_powers(p, sp, P_out != NULL, timed, err)))
        return st;
    if (P_out) {
        if ((st = read_counters(p, sp, &c, err)))
            return st;
        XC_GPU_CK(cudaMemcpy(P_out, p->d_P, p->nbins * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy(powers)");
        return XC_OK;
    }
    BEGIN(S_DEC);
    if (p->nh >= 2) {
        k_decimate<<<grid_for(S.L[1], 256), 256>>>(p->d_P, S, p->nh);
        CK_LAUNCH("k_decimate");
    }
    END(S_DEC);
    BEGIN(S_SCREEN);
    if (p->tiles) {
        const int step = o->zlog ? 0 : o->zstep == 2 ? 2 : o->zstep == 1 ? 1 : 0;
        XC_GPU_CK(launch_screen(step, p->tiles, p->screen_smem, S, p->nh, p->d_thk, p->zstride, p->d_list,
                                p->tiles * (unsigned)PS_THREADS, &p->d_c->cnt[1]),
                  "k_screen (launch)");
    }
    END(S_SCREEN);
    int first = 1;
    unsigned npk = 0;
    for (;;) {
        /* Exact pass and log p into the peak list; a list that overflowed
         * is made large enough and the two rerun. */
        XC_GPU_CK(cudaMemsetAsync(&p->d_c->cnt[2], 0, sizeof(unsigned), 0), "cudaMemset(counters)");
        BEGIN(S_EXACT);
        k_exact<<<p->exgrid, EX_THREADS, p->xsmem>>>(p->d_P, S, p->d_list, &p->d_c->cnt[1], p->d_thr, p->zstride,
                                                     p->d_W, p->d_rowmask, o->rblock, p->d_x, p->xd, p->d_pk, p->pcap,
                                                     &p->d_c->cnt[2]);
        CK_LAUNCH("k_exact");
        END(S_EXACT);
        if (o->rblock && (st = rblock_maxima(p, sp, &c, &npk, err)))
            return st;
        BEGIN(S_LOGP);
        k_logp<<<p->sms * 4, 128>>>(p->d_pk, &p->d_c->cnt[2], p->pcap, p->d_P, o->logp == XC_LOGP_POLY,
                                    o->rblock && !o->nosift);
        CK_LAUNCH("k_logp");
        END(S_LOGP);
        if ((st = read_counters(p, sp, &c, err)))
            return st;
        if (timed) {
            for (int k = first ? S_H2D : S_EXACT; k <= S_LOGP; k++)
                if ((st = add_time(p, k, ms, err)))
                    return st;
        }
        first = 0;
        npk = c.cnt[2];
        if (npk <= p->pcap)
            break;
        p->dm.release(p->d_pk, (size_t)p->pcap * sizeof(dpeak));
        p->d_pk = NULL;
        p->pcap = npk;
        if ((st = p->dm.get(&p->d_pk, p->pcap, "peaks", err)))
            return st;
    }
    std::vector<dpeak> hp(npk);
    BEGIN(S_D2H);
    if (npk)
        XC_GPU_CK(cudaMemcpyAsync(hp.data(), p->d_pk, npk * sizeof(dpeak), cudaMemcpyDeviceToHost, 0),
                  "cudaMemcpy(peaks)");
    END(S_D2H);
    XC_GPU_CK(cudaStreamSynchronize(0), "cudaMemcpy(peaks)");
    double t1 = now_ms();
    if (timed && (st = add_time(p, S_D2H, ms, err)))
        return st;

    st = XC_OK;
    for (unsigned k = 0; k < npk && !st; k++) {
        st = xc_pspeaks_push(pk, hp[k].i, hp[k].width, hp[k].h, hp[k].power, err);
        if (!st) {
            pk->p[pk->n - 1].logp = hp[k].logp;
            pk->p[pk->n - 1].filled = hp[k].filled;
        }
    }
    if (info)
        fill_info(info, ms, t1 - t0, c, npk, p, sp);
    return st;
}

/* One search through a plan of its own. */
xc_status once(const xc_spectrum *sp, const xc_psopts *o, double *P_out, xc_pspeaks *pk, xc_gpu_psinfo *info,
               xc_error *err)
{
    xc_status st = xc_pulscan_check_input(sp, o, err);
    if (st)
        return st;
    xc_psgpu_plan *p = NULL;
    if ((st = xc_pulscan_gpu_plan(sp->nbins, o, &p, err)))
        return st;
    st = execute(p, sp, P_out, pk, info, err);
    xc_pulscan_gpu_destroy(p);
    return st;
}

} // namespace

extern "C" xc_status xc_pulscan_gpu_plan(size_t nbins, const xc_psopts *o, xc_psgpu_plan **plan, xc_error *err)
{
    *plan = NULL;
    xc_psgpu_plan *p = new (std::nothrow) xc_psgpu_plan;
    if (!p)
        return xc_error_set(err, XC_ENOMEM, "out of memory for a GPU Pulscan plan");
    xc_status st = make_plan(p, nbins, o, err);
    if (st) {
        delete p;
        return st;
    }
    *plan = p;
    return XC_OK;
}

extern "C" xc_status xc_pulscan_gpu_execute(xc_psgpu_plan *p, const xc_spectrum *sp, xc_candlist *out,
                                            xc_gpu_psinfo *info, xc_error *err)
{
    xc_pspeaks pk;
    xc_pspeaks_init(&pk);
    xc_status st = execute(p, sp, NULL, &pk, info, err);
    if (!st)
        st = xc_pulscan_finish(&p->o, sp, NULL, &pk, out, err);
    xc_pspeaks_free(&pk);
    return st;
}

extern "C" xc_status xc_pulscan_gpu_peaks_planned(xc_psgpu_plan *p, const xc_spectrum *sp, xc_pspeaks *pk,
                                                  xc_error *err)
{
    if (!p)
        return xc_error_set(err, XC_EINVAL, "gpu pulscan: no plan");
    return execute(p, sp, NULL, pk, NULL, err);
}

extern "C" void xc_pulscan_gpu_destroy(xc_psgpu_plan *p)
{
    delete p;
}

extern "C" xc_status xc_pulscan_powers_gpu(const xc_spectrum *sp, const xc_psopts *o, double *P, xc_error *err)
{
    return once(sp, o, P, NULL, NULL, err);
}

extern "C" xc_status xc_pulscan_peaks_gpu(const xc_spectrum *sp, const xc_psopts *o, xc_pspeaks *pk, xc_error *err)
{
    return once(sp, o, NULL, pk, NULL, err);
}

extern "C" xc_status xc_pulscan_gpu_info(const xc_spectrum *sp, const xc_psopts *o, xc_candlist *out,
                                         xc_gpu_psinfo *info, xc_error *err)
{
    xc_pspeaks pk;
    xc_pspeaks_init(&pk);
    xc_status st = once(sp, o, NULL, &pk, info, err);
    if (!st)
        st = xc_pulscan_finish(o, sp, NULL, &pk, out, err);
    xc_pspeaks_free(&pk);
    return st;
}

extern "C" xc_status xc_pulscan_gpu(const xc_spectrum *sp, const xc_psopts *o, xc_candlist *out, xc_error *err)
{
    return xc_pulscan_gpu_info(sp, o, out, NULL, err);
}
