/* Pulscan on the GPU, host side: the stages of the Pulscan paper's GPU
 * pipeline (White et al. 2024, section 2.6 and Table 4) queued in order on the
 * plan's own stream, each bracketed by CUDA events when stage times are asked for:
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
 * A plan (xc_pulscan_gpu_plan, made in pulscan_gpu_plan.cu) holds what
 * does not depend on the spectrum's values: the device buffers, the thresholds and searched widths, the
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

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
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

/* What the kernels write into the last counters read back. */
const char *const KERNELS = "the Pulscan kernels (normalise, power, decimate, screen, exact, logp)";

#define CK_LAUNCH(name) XC_GPU_CK(cudaGetLastError(), name " (launch)")
#define BEGIN(k)                                                                                   \
    do {                                                                                           \
        if (timed)                                                                                 \
            XC_GPU_CK(cudaEventRecord(p->ev.b[k], p->st.s), "cudaEventRecord");                          \
    } while (0)
#define END(k)                                                                                     \
    do {                                                                                           \
        if (timed)                                                                                 \
            XC_GPU_CK(cudaEventRecord(p->ev.e[k], p->st.s), "cudaEventRecord");                          \
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
    XC_GPU_CK(cudaMemcpyAsync(c, p->d_c, sizeof *c, cudaMemcpyDeviceToHost, p->st.s), KERNELS);
    XC_GPU_CK(cudaStreamSynchronize(p->st.s), KERNELS);
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

/* The powers a spectrum's searches share (xc_spectrum.share): P and stage
 * 1's float sums, made by the first search of a normalisation (normwidth
 * and norm: nothing else of the options enters them) of the share's
 * generation of the device spectrum dev, and read by the later ones, whose
 * own plans' P and Sf[0] then stay unused.  valid only once the search that
 * made them found the input finite and every block normalised. */
struct shared_pow {
    const float *dev = NULL;
    unsigned long long gen = 0;
    size_t nbins = 0, normwidth = 0, cap = 0;
    int norm = -1;
    bool valid = false;
    double *P = NULL;
    float *Sf1 = NULL;
    ~shared_pow()
    {
        cudaFree(P);
        cudaFree(Sf1);
    }
};

void shared_free(void *s)
{
    delete (shared_pow *)s;
}

/* sp's shared powers for p's normalisation, room for them made: NULL (no
 * error) where sp shares nothing, or its share holds another searcher's
 * state; *reuse when they hold this spectrum's powers already. */
xc_status shared_for(const xc_psgpu_plan *p, const xc_spectrum *sp, shared_pow **out, bool *reuse, xc_error *err)
{
    *out = NULL;
    *reuse = false;
    xc_devshare *d = sp->share;
    if (!d || !sp->dev)
        return XC_OK;
    if (!d->state) {
        shared_pow *s = new (std::nothrow) shared_pow;
        if (!s)
            return xc_error_set(err, XC_ENOMEM, "out of memory for the shared powers");
        d->state = s;
        d->state_free = shared_free;
    }
    if (d->state_free != shared_free)
        return XC_OK;
    shared_pow *s = (shared_pow *)d->state;
    *out = s;
    *reuse = s->valid && s->dev == sp->dev && s->gen == d->gen && s->nbins == p->nbins &&
             s->normwidth == p->o.normwidth && s->norm == (int)p->o.norm;
    if (*reuse)
        return XC_OK;
    s->valid = false;
    if (s->cap < p->nbins) {
        cudaFree(s->P);
        cudaFree(s->Sf1);
        s->P = NULL;
        s->Sf1 = NULL;
        s->cap = 0;
        const size_t n = p->nbins + p->nbins / 64;   /* the next pulsar a little longer */
        XC_GPU_CK(cudaMalloc(&s->P, n * sizeof(double)), "cudaMalloc(shared powers)");
        XC_GPU_CK(cudaMalloc(&s->Sf1, n * sizeof(float)), "cudaMalloc(shared powers)");
        s->cap = n;
    }
    s->dev = sp->dev;
    s->gen = d->gen;
    s->nbins = p->nbins;
    s->normwidth = p->o.normwidth;
    s->norm = (int)p->o.norm;
    return XC_OK;
}

/* Queues the stages up to the powers: the counters reset, the spectrum's
 * upload, separation, normalisation and the powers into P (and Sf1, stage
 * 1's float sums, unless NULL); with made, only the counters' reset (the
 * stages' events still recorded, empty). */
xc_status queue_powers(xc_psgpu_plan *p, const xc_spectrum *sp, double *P, float *Sf1, bool made, bool timed,
                       xc_error *err)
{
    const xc_psopts *o = &p->o;
    const size_t nbins = p->nbins, nb = p->nb;
    counters c0;
    memset(&c0, 0, sizeof c0);
    c0.bad = ~0ull;
    XC_GPU_CK(cudaMemcpyAsync(p->d_c, &c0, sizeof c0, cudaMemcpyHostToDevice, p->st.s), "cudaMemcpy(counters)");
    /* a spectrum already on the device (xc_spectrum.dev: a study's device
     * transform, shared by every configuration) is read there */
    const float2 *in = sp->dev ? (const float2 *)sp->dev : p->d_in;
    BEGIN(S_H2D);
    if (!sp->dev && !made)
        XC_GPU_CK(cudaMemcpyAsync(p->d_in, sp->data, nbins * sizeof(float2), cudaMemcpyHostToDevice, p->st.s),
                  "cudaMemcpy(spectrum)");
    END(S_H2D);
    if (made) {
        for (int k = S_SEP; k <= S_POW; k++) {
            BEGIN(k);
            END(k);
        }
        return XC_OK;
    }
    BEGIN(S_SEP);
    if (!p->stage) {
        k_separate<<<grid_for(nbins, 256), 256, 0, p->st.s>>>(in, p->d_re, p->d_im, nbins);
        CK_LAUNCH("k_separate");
    }
    END(S_SEP);
    BEGIN(S_NORM);
    k_normalise<<<(unsigned)(2 * nb), 512, p->stage ? p->stage_bytes : 0, p->st.s>>>(
        in, p->d_re, p->d_im, nbins, o->normwidth, nb, o->norm == XC_NORM_MOM, p->stage, p->d_scr, p->d_med,
        p->d_mad);
    CK_LAUNCH("k_normalise");
    k_borrow<<<grid_for(2 * nb, 256), 256, 0, p->st.s>>>(p->d_med, p->d_mad, nb, p->d_med2, p->d_scale,
                                                         &p->d_c->cnt[0]);
    CK_LAUNCH("k_borrow");
    END(S_NORM);
    BEGIN(S_POW);
    /* normwidth capped at nbins (same blocks) so that the kernel's 32-bit division holds it */
    k_power<<<grid_for(nbins, 256), 256, 0, p->st.s>>>(in, nbins, std::min(o->normwidth, nbins), nb, p->d_med2,
                                                        p->d_scale, P, Sf1, &p->d_c->bad);
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
    if (*npk) {
        XC_GPU_CK(cudaMemcpyAsync(e.data(), p->d_pk, *npk * sizeof(dpeak), cudaMemcpyDeviceToHost, p->st.s),
                  "cudaMemcpy(R-block entries)");
        XC_GPU_CK(cudaStreamSynchronize(p->st.s), "cudaMemcpy(R-block entries)");
    }
    size_t cw = p->o.chunkwidth;
    std::sort(e.begin(), e.end(), [cw](const dpeak &a, const dpeak &b) { return rblock_less(a, b, cw); });
    std::vector<dpeak> best;
    for (size_t k = 0; k < e.size(); k++)
        if (!k || e[k].h != e[k - 1].h || e[k].i / cw != e[k - 1].i / cw || e[k].width != e[k - 1].width)
            best.push_back(e[k]);
    *npk = (unsigned)best.size();
    if (*npk)
        XC_GPU_CK(cudaMemcpyAsync(p->d_pk, best.data(), *npk * sizeof(dpeak), cudaMemcpyHostToDevice, p->st.s),
                  "cudaMemcpy(R-block peaks)");
    XC_GPU_CK(cudaMemcpyAsync(&p->d_c->cnt[2], npk, sizeof *npk, cudaMemcpyHostToDevice, p->st.s),
              "cudaMemcpy(counters)");
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
    double t0 = now_ms();
    counters c;
    xc_status st;
    /* P and stage 1's sums: the plan's own, or those the spectrum's
     * searches share (made here unless an earlier search made them) */
    shared_pow *sh = NULL;
    bool made = false;
    if (!P_out && (st = shared_for(p, sp, &sh, &made, err)))
        return st;
    stage_set S = p->S;
    double *P = sh ? sh->P : p->d_P;
    if (sh)
        S.Sf[0] = sh->Sf1;
    if ((st = queue_powers(p, sp, P, P_out ? NULL : S.Sf[0], made, timed, err)))
        return st;
    if (P_out) {
        if ((st = read_counters(p, sp, &c, err)))
            return st;
        XC_GPU_CK(cudaMemcpyAsync(P_out, P, p->nbins * sizeof(double), cudaMemcpyDeviceToHost, p->st.s),
                  "cudaMemcpy(powers)");
        XC_GPU_CK(cudaStreamSynchronize(p->st.s), "cudaMemcpy(powers)");
        return XC_OK;
    }
    BEGIN(S_DEC);
    if (p->nh >= 2) {
        k_decimate<<<grid_for(S.L[1], 256), 256, 0, p->st.s>>>(P, S, p->nh);
        CK_LAUNCH("k_decimate");
    }
    END(S_DEC);
    BEGIN(S_SCREEN);
    if (p->tiles) {
        const int step = o->zlog ? 0 : o->zstep == 2 ? 2 : o->zstep == 1 ? 1 : 0;
        XC_GPU_CK(launch_screen(step, p->tiles, p->screen_smem, p->st.s, S, p->nh, p->d_thk, p->zstride, p->d_list,
                                p->tiles * (unsigned)PS_THREADS, &p->d_c->cnt[1]),
                  "k_screen (launch)");
    }
    END(S_SCREEN);
    int first = 1;
    unsigned npk = 0;
    for (;;) {
        /* Exact pass and log p into the peak list; a list that overflowed
         * is made large enough and the two rerun. */
        XC_GPU_CK(cudaMemsetAsync(&p->d_c->cnt[2], 0, sizeof(unsigned), p->st.s), "cudaMemset(counters)");
        BEGIN(S_EXACT);
        k_exact<<<p->exgrid, EX_THREADS, p->xsmem, p->st.s>>>(P, S, p->d_list, &p->d_c->cnt[1], p->d_thr,
                                                               p->zstride, p->d_W, p->d_rowmask, o->rblock, p->d_x,
                                                               p->xd, p->d_pk, p->pcap, &p->d_c->cnt[2]);
        CK_LAUNCH("k_exact");
        END(S_EXACT);
        if (o->rblock && (st = rblock_maxima(p, sp, &c, &npk, err)))
            return st;
        BEGIN(S_LOGP);
        k_logp<<<p->sms * 4, 128, 0, p->st.s>>>(p->d_pk, &p->d_c->cnt[2], p->pcap, P, o->logp == XC_LOGP_POLY,
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
        XC_GPU_CK(cudaMemcpyAsync(hp.data(), p->d_pk, npk * sizeof(dpeak), cudaMemcpyDeviceToHost, p->st.s),
                  "cudaMemcpy(peaks)");
    END(S_D2H);
    XC_GPU_CK(cudaStreamSynchronize(p->st.s), "cudaMemcpy(peaks)");
    if (sh)   /* the input was finite and every block normalised: the later searches may read them */
        sh->valid = true;
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
