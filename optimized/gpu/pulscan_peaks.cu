/* GPU Pulscan, the peaks: the boxcar stage's exact double pass over the
 * groups the screen flagged (local maxima, or every boxcar above threshold in
 * R-block mode), and the log p stage (ln p and the fill test of R-block
 * peaks).  Both use one fill test, dev_filled.  Exactness as pulscan_gpu.h
 * states. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "optimized/gpu/gpu_append.h"
#include "optimized/gpu/pulscan_gpu.h"
#include "core/search/stats/xc_chi2_even.h"

namespace xcps {

/* ---- boxcar: the exact pass over flagged groups ------------------------- */

/* 1 if the boxcar (start i, width w) of stage h exists: it lies inside
 * S_h[1..L-1] and its harmonics' bins do not overlap (i >= (h-1) w). */
__device__ inline bool exists(size_t i, int w, int h, size_t L)
{
    return i >= 1 && i >= (size_t)(h - 1) * (size_t)w && i + (size_t)w - 1 <= L - 1;
}

/* xc_pulscan_filled with the quarter sums from Q: differences of pre, the
 * running sum of S_h from the window's first bin (a few hundred bins, so far
 * less cancellation than the CPU's prefix sums over the spectrum), for the
 * local maxima; summed directly from P for R-block peaks anywhere. */
struct quarter_pre {
    const double *pre;
    size_t base;
    __device__ double operator()(size_t a, size_t b) const { return pre[b - base] - pre[a - base]; }
};

struct quarter_direct {
    const double *P;
    int h;
    __device__ double operator()(size_t a, size_t b) const
    {
        double qs = 0;
        for (size_t x = a; x < b; x++)
            qs += xc_pulscan_sh(P, h, x);
        return qs;
    }
};

template <typename Q> __device__ int dev_filled(const Q &quarter, size_t i, int width, int h, double power)
{
    if (power == -INFINITY)
        return 0;
    if (width < 4)
        return 1;
    double per = (double)h * (h + 1) / 2;
    double excess = __dsub_rn(power, __dmul_rn(2.0 * width, per));
    if (!(excess > 0))
        return 0;
    for (int q = 0; q < 4; q++) {
        size_t a = i + (size_t)(q * width / 4), b = i + (size_t)((q + 1) * width / 4);
        if (__dsub_rn(quarter(a, b), __dmul_rn(2.0 * (double)(b - a), per)) < excess / 16)
            return 0;
    }
    return 1;
}

__device__ inline double dev_score(double power, double dof) { return xc_pulscan_score_inline(power, dof); }

__device__ inline void push(dpeak *out, unsigned cap, unsigned *count, size_t i, int w, int h, double v)
{
    xc_gpu_append(out, cap, count, dpeak{i, w, h, v, NAN, -1, 0});
}

/* One block per flagged group at a time (grid-stride).  The group's window
 * of S_h (starts i0-1 .. i0+8 plus the widest boxcar) is built from P in
 * shared memory (or the block's slice of global scratch when it does not
 * fit); threads 0..9 build the rows of the ten starts at the searched widths
 * by the CPU's recursion (the same additions in the same order, so the same
 * bits), while thread 32 builds the window's running sum for the fill test;
 * then every entry's score is tabulated, and the entries of starts
 * i0..i0+7 are judged against their neighbours.  Local-maximum mode pushes
 * peaks; R-block mode pushes every entry above its threshold for the host's
 * per-block maximum. */
/* Column threadIdx.x (start j of the window) of the boxcar table: the sum
 * of widths 1.. in win[j..], written to tab[r * EX_J + j] for each row r
 * (a searched width, rowmask's bit).  The recursion is one long chain of
 * dependent additions: eight bins are loaded ahead of their adds, and which
 * widths are rows comes from a bit mask, so nothing but the adds waits. */
__device__ inline void boxcar_column(const double *win, const int *Ws, int nrows, const unsigned char *rowmask, double *tab)
{
    const double *src = win + threadIdx.x;
    const int wlast = nrows ? Ws[nrows - 1] : 0;
    double acc = 0;
    int r = 0;
    for (int w0 = 0; w0 < wlast; w0 += 8) {
        double v[8];
#pragma unroll
        for (int k = 0; k < 8; k++)
            v[k] = w0 + k < wlast ? src[w0 + k] : 0.0;
        const unsigned m = rowmask[w0 / 8];
#pragma unroll
        for (int k = 0; k < 8; k++)
            if (w0 + k < wlast) {
                acc += v[k];
                if (m >> k & 1u)
                    tab[r++ * EX_J + threadIdx.x] = acc;
            }
    }
}

/* pre[q] = the sum of the window's finite values before q (q = 0..nwin),
 * one thread, four at a time. */
__device__ inline void window_prefix(const double *win, int nwin, double *pre)
{
    double c = 0;
    pre[0] = 0;
    int q = 0;
    for (; q + 4 <= nwin; q += 4) {
        double a = win[q], b = win[q + 1], d = win[q + 2], e2 = win[q + 3];
        c += isinf(a) ? 0.0 : a;
        pre[q + 1] = c;
        c += isinf(b) ? 0.0 : b;
        pre[q + 2] = c;
        c += isinf(d) ? 0.0 : d;
        pre[q + 3] = c;
        c += isinf(e2) ? 0.0 : e2;
        pre[q + 4] = c;
    }
    for (; q < nwin; q++) {
        c += isinf(win[q]) ? 0.0 : win[q];
        pre[q + 1] = c;
    }
}

__global__ void k_exact(const double *P, stage_set S, const unsigned long long *list, const unsigned *d_nlist,
                        const double *thr, int zstride, const int *W, const unsigned char *rowmask_g, int rblock,
                        double *scratch, size_t xdoubles, dpeak *out, unsigned cap, unsigned *count)
{
    const unsigned nlist = *d_nlist;
    if (blockIdx.x >= nlist)
        return;     /* the grid is sized before the count is known */
    extern __shared__ double xsm[];
    const int nw = S.wmax_all, nr = S.nrows_all;
    double *base = scratch ? scratch + blockIdx.x * xdoubles : xsm;
    double *win = base, *pre = win + (EX_J + nw), *tab = pre + (EX_J + nw + 1), *sc = tab + (size_t)nr * EX_J;
    double *throws = sc + (size_t)nr * EX_J;     /* threshold of each row, this group's stage */
    int *Ws = (int *)(throws + nr);              /* the searched widths */
    unsigned short *rb = (unsigned short *)(Ws + nr + (nr & 1));   /* bit j: start j of row r beats its threshold */
    unsigned char *rowmask = (unsigned char *)(rb + nr + (4 - nr % 4) % 4);   /* bit k of byte b: width 8b+k+1 is a row */
    for (int r = threadIdx.x; r < nr; r += blockDim.x)
        Ws[r] = W[r];
    for (int b = threadIdx.x; b < nw / 8 + 1; b += blockDim.x)
        rowmask[b] = rowmask_g[b];
    for (unsigned e = blockIdx.x; e < nlist; e += gridDim.x) {
        unsigned long long key = list[e];
        const int h = (int)(key & 15) + 1;
        const size_t g = (size_t)(key >> 4), i0 = 1 + 8 * g, b0 = i0 - 1, L = S.L[h - 1];
        const int wmax = S.wmax[h - 1], nrows = S.nrows[h - 1], nwin = EX_J - 1 + wmax;
        __syncthreads();
        for (int q = threadIdx.x; q < nwin; q += blockDim.x) {
            size_t x = b0 + (size_t)q;
            win[q] = x == 0 || x >= L ? -INFINITY : sh(P, h, x);
        }
        for (int r = threadIdx.x; r < nrows; r += blockDim.x)
            throws[r] = thr[(size_t)(h - 1) * zstride + Ws[r]];
        __syncthreads();
        if (threadIdx.x < EX_J)
            boxcar_column(win, Ws, nrows, rowmask, tab);
        else if (threadIdx.x == 32)
            window_prefix(win, nwin, pre);
        __syncthreads();
        for (int r = threadIdx.x; r < nrows; r += blockDim.x) {
            const double t = throws[r];
            unsigned m = 0;
#pragma unroll
            for (int j = 0; j < EX_J; j++)
                m |= (unsigned)(tab[r * EX_J + j] > t) << j;
            rb[r] = (unsigned short)m;
        }
        __syncthreads();
        /* Scores only where the local-maximum test will read them: within one
         * start (of starts 1..8) and one row of an entry above its threshold. */
        for (int it = threadIdx.x; it < EX_J * nrows; it += blockDim.x) {
            int j = it % EX_J, r = it / EX_J, w = Ws[r];
            size_t start = b0 + (size_t)j;
            const int lo = max(j - 1, 1), hi = min(j + 1, 8);
            const unsigned near = (unsigned)rb[r] | (r > 0 ? (unsigned)rb[r - 1] : 0u) |
                                  (r + 1 < nrows ? (unsigned)rb[r + 1] : 0u);
            const bool need = (near & ((2u << hi) - (1u << lo))) != 0;
            double v = tab[it];
            sc[it] = need && !rblock && exists(start, w, h, L) && dev_filled(quarter_pre{pre, b0}, start, w, h, v)
                         ? dev_score(v, (double)w * h * (h + 1))
                         : -INFINITY;
        }
        __syncthreads();
        for (int it = threadIdx.x; it < 8 * nrows; it += blockDim.x) {
            int j = 1 + it % 8, r = it / 8, w = Ws[r];
            size_t start = b0 + (size_t)j;
            double v = tab[r * EX_J + j];
            if (!(v > throws[r]) || !exists(start, w, h, L))
                continue;
            if (rblock) {
                push(out, cap, count, start, w, h, v);
                continue;
            }
            const double *row = sc + (size_t)r * EX_J;
            double s0 = row[j];
            if (s0 == -INFINITY || !(s0 > row[j - 1] && s0 >= row[j + 1]))
                continue;
            if (r > 0 && !(s0 > fmax(row[j - 1 - EX_J], fmax(row[j - EX_J], row[j + 1 - EX_J]))))
                continue;
            if (r + 1 < nrows && !(s0 >= fmax(row[j - 1 + EX_J], fmax(row[j + EX_J], row[j + 1 + EX_J]))))
                continue;
            push(out, cap, count, start, w, h, v);
        }
    }
}

/* ---- log p ------------------------------------------------------------ */

__global__ void k_logp(dpeak *pk, const unsigned *d_n, unsigned cap, const double *P, int poly, int fill)
{
    const unsigned n = *d_n < cap ? *d_n : cap;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        dpeak p = pk[k];
        double dof = (double)p.width * p.h * (p.h + 1);
        if (poly)
            p.logp = xc_logp_poly_gpu_eval(p.power, dof);
        else if (!(p.power > 0))
            p.logp = 0.0;
        else if (p.power == INFINITY)
            p.logp = -INFINITY;
        else
            p.logp = xc_chi2_logq_even((long)(dof / 2), 0.5 * p.power);
        if (fill)
            p.filled = dev_filled(quarter_direct{P, p.h}, p.i, p.width, p.h, p.power);
        pk[k] = p;
    }
}

} // namespace xcps
