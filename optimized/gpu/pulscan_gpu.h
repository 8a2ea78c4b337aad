/* pulscan_gpu.h: what the GPU Pulscan files share: the host side
 * (pulscan_gpu_plan.cu, the plan; pulscan_gpu.cu, its execution) and the
 * device stages, one family of kernels per file:
 *   pulscan_power.cu      separate, power, decimate (element-wise stages)
 *   pulscan_normalise.cu  median and MAD per block, borrowing
 *   pulscan_screen.cu     the boxcar stage's float screen
 *   pulscan_peaks.cu      the boxcar stage's exact pass, log p and the fill test
 * The kernels have external linkage and are launched from the host files
 * (a launch needs only the kernel's host stub, which its own file defines);
 * device functions are never called across files (no -rdc), so what two
 * files' kernels both use is inline here.
 *
 * Every value that decides a peak is computed with the CPU's double
 * operations in the CPU's order, so powers and boxcar sums are the CPU's bit
 * for bit: products and sums written with __dmul_rn/__dadd_rn where nvcc
 * would otherwise fuse them into an FMA (the host compiler, without -mfma,
 * never does).  Only the bulk screen runs in float, with thresholds lowered by
 * more than a float sum can err, so it never drops a boxcar the double sum
 * would keep; the double pass then decides. */
#ifndef XC_PULSCAN_GPU_H
#define XC_PULSCAN_GPU_H

#include <cuda_runtime.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <vector>

#include "core/search/xc_search.h"

namespace xcps {

const int PS_THREADS = 256;                /* screen: threads per block */
const int PS_TILE = 8 * PS_THREADS;        /* screen: starts per block (8 per thread) */
const int PS_PHASE = 1024;                 /* screen: widths per shared-memory window */
const int EX_J = 10;                       /* exact: starts per row (a group of 8 and one either side) */
const int EX_THREADS = 128;
const int MAX_STAGES = 8;

/* A raw peak on the device (xc_pspeak plus the log p stage's results). */
struct dpeak {
    size_t i;
    int width, h;
    double power, logp;
    int filled, pad;
};

/* The harmonic stages: S_h as float (Sf), length L, widths up to wmax,
 * rows = searched widths <= wmax, tile0 = first screen block of the stage;
 * the largest wmax and nrows over the stages. */
struct stage_set {
    float *Sf[MAX_STAGES];
    size_t L[MAX_STAGES];
    int wmax[MAX_STAGES];
    int nrows[MAX_STAGES];
    unsigned tile0[MAX_STAGES];
    int wmax_all, nrows_all;
};

__global__ void k_separate(const float2 *in, float *re, float *im, size_t n);
__global__ void k_normalise(const float2 *in, const float *re, const float *im, size_t nbins, size_t normwidth,
                            size_t nb, int mom, int stage, double *scratch, double *med, double *mad);
__global__ void k_borrow(const double *med, const double *mad, size_t nb, double *med_out, double *scale_out,
                         unsigned *fail);
__global__ void k_power(const float2 *in, size_t nbins, size_t normwidth, size_t nb, const double *med,
                        const double *scale, double *P, float *Sf1, unsigned long long *bad);
__global__ void k_decimate(const double *P, stage_set S, int nh);
/* Launches the screen (a kernel template, so launched from its own file):
 * step 2 for zstep 2, 1 for zstep 1, 0 any other set of widths; the
 * launch's error. */
cudaError_t launch_screen(int step, unsigned grid, size_t smem, cudaStream_t st, stage_set S, int nh, const int *thk,
                          int zstride, unsigned long long *list, unsigned cap, unsigned *count);
/* nlist: the screen's count on the device (the list holds every group the
 * screen can flag, so it never overflows). */
__global__ void k_exact(const double *P, stage_set S, const unsigned long long *list, const unsigned *nlist,
                        const double *thr, int zstride, const int *W, const unsigned char *rowmask, int rblock,
                        double *scratch, size_t xdoubles, dpeak *out, unsigned cap, unsigned *count);
/* n: the peak count on the device; entries past cap are not there. */
__global__ void k_logp(dpeak *pk, const unsigned *n, unsigned cap, const double *P, int poly, int fill);

/* The screen's thresholds as int keys that compare with a non-negative
 * float sum's bits as the floats compare (sum > t exactly when bits(sum) -
 * key > 0): a positive t's own bits; 0 for +-0 (only sums > 0 pass); -1 for a
 * negative t (every sum >= 0 passes, -inf padding does not); NO_WIDTH, the
 * bits of +inf, for a width not searched: no sum passes it, and bits(sum) -
 * NO_WIDTH cannot overflow, so it may be tested like any other key. */
const int NO_WIDTH = 0x7f800000;
inline int threshold_key(float t)
{
    if (isinf(t) && t > 0)
        return NO_WIDTH;
    if (t > 0) {
        int k;
        memcpy(&k, &t, sizeof k);
        return k;
    }
    return t == 0 ? 0 : -1;
}

/* S_h[x] of harmonic stage h, the host's inline source (decimate and the exact pass). */
__device__ inline double sh(const double *P, int h, size_t x) { return xc_pulscan_sh(P, h, x); }

/* Doubles of k_exact's working space per block: the window of S_h, its
 * running sum, the rows and their scores, the rows' thresholds and widths
 * (ints, padded to a double), each row's above-threshold starts (16-bit,
 * padded to a double), and a bit per width saying whether it is a row. */
inline size_t exact_doubles(int wmax_all, int nrows_all)
{
    return 2 * ((size_t)EX_J + (size_t)wmax_all) + 1 + 2 * (size_t)nrows_all * EX_J + (size_t)nrows_all +
           ((size_t)nrows_all + 1) / 2 + ((size_t)nrows_all + 3) / 4 + (size_t)wmax_all / 64 + 1;
}

/* The host side's shared pieces (pulscan_gpu_plan.cu makes a plan,
 * pulscan_gpu.cu runs it): the plan's device memory, its stage events and
 * the counters the kernels write.  Each buffer is made a sixty-fourth
 * larger than asked; a plan made again (xc_pulscan_gpu_replan) first puts
 * its buffers aside (recycle), takes for each one it asks for the smallest
 * put-aside one large enough, and frees only those left over (drop_spare):
 * a study's next pulsar, a few thousand bins longer or shorter, frees and
 * allocates nothing (a cudaFree waits for the whole device). */
struct devmem {
    std::vector<void *> p, spare;
    std::vector<size_t> cap, sparecap;   /* bytes of each */
    size_t bytes = 0;
    ~devmem()
    {
        for (void *q : p)
            cudaFree(q);
        drop_spare();
    }
    template <typename T> xc_status get(T **out, size_t n, const char *what, xc_error *err)
    {
        size_t b = (n ? n : 1) * sizeof(T), best = spare.size();
        for (size_t k = 0; k < spare.size(); k++)
            if (sparecap[k] >= b && (best == spare.size() || sparecap[k] < sparecap[best]))
                best = k;
        void *q = NULL;
        size_t have = b + b / 64;
        if (best < spare.size()) {
            q = spare[best];
            have = sparecap[best];
            spare.erase(spare.begin() + (long)best);
            sparecap.erase(sparecap.begin() + (long)best);
        } else {
            cudaError_t e = cudaMalloc(&q, have);
            if (e != cudaSuccess) {
                (void)cudaGetLastError();
                return xc_error_set(err, XC_EDEVICE, "gpu: cudaMalloc(%zu bytes for %s): %s", have, what,
                                    cudaGetErrorString(e));
            }
        }
        p.push_back(q);
        cap.push_back(have);
        bytes += have;
        *out = (T *)q;
        return XC_OK;
    }
    void release(void *q, size_t b)
    {
        (void)b;
        for (size_t k = 0; k < p.size(); k++)
            if (p[k] == q) {
                cudaFree(q);
                bytes -= cap[k];
                p.erase(p.begin() + (long)k);
                cap.erase(cap.begin() + (long)k);
                return;
            }
    }
    void recycle()
    {
        spare.insert(spare.end(), p.begin(), p.end());
        sparecap.insert(sparecap.end(), cap.begin(), cap.end());
        p.clear();
        cap.clear();
        bytes = 0;
    }
    void drop_spare()
    {
        for (void *q : spare)
            cudaFree(q);
        spare.clear();
        sparecap.clear();
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

/* A plan's own stream (non-blocking): plans used by several threads at once
 * (a study's workers) neither queue behind each other on the legacy default
 * stream nor wait for each other's copies. */
struct pstream {
    cudaStream_t s = 0;
    ~pstream()
    {
        if (s)
            cudaStreamDestroy(s);
    }
};

/* The device's counters, one allocation: cnt[0] the parts that could not
 * borrow (bit 0 real, 1 imaginary), cnt[1] flagged groups, cnt[2] peaks;
 * bad: the first non-finite input value's float index (~0: none). */
struct counters {
    unsigned cnt[4];
    unsigned long long bad;
};

} // namespace xcps

/* The plan: what does not depend on the spectrum's values. */
struct xc_psgpu_plan {
    size_t nbins = 0, nb = 0;
    xc_psopts o;
    int nh = 0, zstride = 0, sms = 0, stage = 0;
    size_t stage_bytes = 0;
    xcps::pstream st;     /* destroyed after the buffers (members go in reverse order) */
    xcps::devmem dm;
    xcps::events ev;
    float2 *d_in = NULL;
    float *d_re = NULL, *d_im = NULL;
    double *d_med = NULL, *d_mad = NULL, *d_med2 = NULL, *d_scale = NULL, *d_P = NULL, *d_scr = NULL;
    xcps::counters *d_c = NULL;
    xcps::stage_set S;
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
    xcps::dpeak *d_pk = NULL;
    unsigned pcap = 1u << 14;
};

#endif
