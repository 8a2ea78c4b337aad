/* accel_gpu_fft_hd.h: internal to optimized/gpu: the one-pass plane's
 * complex FFT of L = 2^m points (m = 11..14), one thread block per
 * transform, written once for nvcc and the host C compiler (core/base/xc_hd.h)
 * so that a host test can run a block's phases over its thread indices in a
 * plain loop (xc_fft1_block_host) and compare them with a double FFT.
 *
 * The algorithm: Stockham autosort passes (Govindaraju et al., "High
 * performance discrete Fourier transforms on graphics processors", SC 2008,
 * whose FftIteration this follows): T = L/16 threads each hold 16 points in
 * registers; m/4 radix-16 passes, then, when m is not a multiple of 4, one
 * pass of radix 2^(m mod 4) in which each thread does 16/radix butterflies.
 * Pass p (stride Ns = 16^p) reads x[j + r L/R], multiplies point r by
 * w^(r (j mod Ns)), w = exp(sgn 2 pi i / (Ns R)), transforms the R points and
 * writes them to (j / Ns) Ns R + (j mod Ns) + r Ns.  Between passes the
 * points go through shared memory (padded: index i at i + i/16, so that the
 * first pass's writes, 16 points apart, fall in different banks); the first
 * pass reads its inputs straight from the caller (xc_fft1_load forms the
 * product of segment and template there) and the last one leaves point
 * t + s T in thread t's register s (xc_fft1_power writes |.|^2 from there).
 *
 * Twiddles come from a table made once in double and rounded to float
 * (xc_fft1_twiddles: pass p's (r - 1) Ns + k entry is w^(r k)), so each is
 * the float nearest the exact value, except in a last pass of radix 2, 4 or
 * 8, whose w^2.. are products of its w (a few roundings: the table stays
 * small enough for L1); the radix-16/8/4 butterflies use the
 * constants cos and sin of pi/8 and pi/4 rounded to float.  The result is
 * not cuFFT's bit for bit (its algorithm is not documented); its accuracy is
 * that of a float FFT (tests/test_accel_gpu_fft.c states the bound). */
#ifndef XC_ACCEL_GPU_FFT_HD_H
#define XC_ACCEL_GPU_FFT_HD_H

#include <math.h>
#include <stddef.h>

#include "core/base/xc_hd.h"

#ifdef __CUDACC__
#include <cuda_runtime.h>
typedef float2 xc_f2;
#else
typedef struct {
    float x, y;
} xc_f2;
#endif
#ifdef __CUDA_ARCH__
#define XC_FFT1_UNROLL _Pragma("unroll")
#define XC_FFT1_LDG(p) __ldg(p)   /* read-only data path: the twiddles stay in L1 */
#define XC_FFT1_LDCG(p) __ldcg(p) /* L2 only: the streamed inputs do not evict them */
#else
#define XC_FFT1_UNROLL
#define XC_FFT1_LDG(p) (*(p))
#define XC_FFT1_LDCG(p) (*(p))
#endif

enum { XC_FFT1_MINLOG = 11, XC_FFT1_MAXLOG = 14 };

/* float2 (device) or its host twin, so that loads stay 8-byte vectors */
static inline XC_HD xc_f2 xc_f2_make(float x, float y)
{
    xc_f2 r = {x, y};
    return r;
}

static inline XC_HD xc_f2 xc_f2_mul(xc_f2 a, xc_f2 b)
{
    return xc_f2_make(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* ---- geometry ------------------------------------------------------------- */

static inline XC_HD int xc_fft1_npass(int m) { return m / 4 + (m % 4 != 0); }
static inline XC_HD int xc_fft1_radix(int m, int p) { return p < m / 4 ? 16 : 1 << (m % 4); }
/* Twiddle rows of pass p: R - 1 (w^r, r = 1..R-1) for a radix-16 pass;
 * the last pass of radix 2, 4 or 8 keeps w alone (its powers are products). */
static inline XC_HD int xc_fft1_twrows(int m, int p) { return p < m / 4 ? 15 : 1; }
/* Where pass p's twiddles start in the table (p >= 1); at p = npass, its length. */
static inline XC_HD int xc_fft1_twoff(int m, int p)
{
    int o = 0;
    for (int q = 1; q < p; q++)
        o += xc_fft1_twrows(m, q) << (4 * q);
    return o;
}
static inline int xc_fft1_twlen(int m) { return xc_fft1_twoff(m, xc_fft1_npass(m)); }
/* Shared memory of one block: L points padded by one every 16. */
static inline size_t xc_fft1_smem(int m) { return ((size_t)1 << m) / 16 * 17 * sizeof(xc_f2); }
static inline XC_HD int xc_fft1_pad(int i) { return i + (i >> 4); }

/* The twiddle table of direction sgn (+1: exp(+2 pi i ...), cuFFT's
 * inverse): pass p >= 1 of radix R, stride Ns: entry twoff + (r - 1) Ns + k
 * = exp(sgn 2 pi i r k / (Ns R)), r = 1..twrows, k < Ns, from the exact
 * fraction (r k mod Ns R) / (Ns R) in double.  At L = 16384: 15 x 16 +
 * 15 x 256 + 4096 entries, 62 KiB, which L1 holds beside the block's
 * shared memory. */
static inline void xc_fft1_twiddles(int m, int sgn, xc_f2 *tw)
{
    const double twopi = 6.283185307179586476925286766559;
    for (int p = 1; p < xc_fft1_npass(m); p++) {
        const int R = xc_fft1_radix(m, p), Ns = 1 << (4 * p);
        xc_f2 *w = tw + xc_fft1_twoff(m, p);
        for (int r = 1; r <= xc_fft1_twrows(m, p); r++)
            for (int k = 0; k < Ns; k++) {
                double a = twopi * (double)(((long)r * k) % ((long)Ns * R)) / ((double)Ns * R);
                w[(r - 1) * Ns + k] = xc_f2_make((float)cos(a), (float)(sgn * sin(a)));
            }
    }
}

/* ---- butterflies on registers ------------------------------------------------ */

/* a x exp(sgn 2 pi i k / 16) for the k a radix-16 or radix-8 butterfly meets. */
static inline XC_HD xc_f2 xc_fft1_w16(xc_f2 a, int k, int sgn)
{
    const float C = 0.92387953251128675613f, S = 0.38268343236508977173f, H = 0.70710678118654752440f;
    float c, s;
    switch (k) {
    case 0: return a;
    case 4: return xc_f2_make(-(float)sgn * a.y, (float)sgn * a.x);
    case 1: c = C, s = S; break;
    case 2: c = H, s = H; break;
    case 3: c = S, s = C; break;
    case 6: c = -H, s = H; break;
    default: c = -C, s = -S; break;    /* 9 */
    }
    s *= (float)sgn;
    return xc_f2_make(a.x * c - a.y * s, a.x * s + a.y * c);
}

/* The 4-point DFT of a[i0], a[i0 + d], a[i0 + 2d], a[i0 + 3d], in place. */
static inline XC_HD void xc_fft1_dft4(xc_f2 *a, int i0, int d, int sgn)
{
    const float g = (float)sgn;
    xc_f2 a0 = a[i0], a1 = a[i0 + d], a2 = a[i0 + 2 * d], a3 = a[i0 + 3 * d];
    xc_f2 s02 = xc_f2_make(a0.x + a2.x, a0.y + a2.y), d02 = xc_f2_make(a0.x - a2.x, a0.y - a2.y);
    xc_f2 s13 = xc_f2_make(a1.x + a3.x, a1.y + a3.y), d13 = xc_f2_make(a1.x - a3.x, a1.y - a3.y);
    a[i0] = xc_f2_make(s02.x + s13.x, s02.y + s13.y);
    a[i0 + 2 * d] = xc_f2_make(s02.x - s13.x, s02.y - s13.y);
    a[i0 + d] = xc_f2_make(d02.x - g * d13.y, d02.y + g * d13.x);
    a[i0 + 3 * d] = xc_f2_make(d02.x + g * d13.y, d02.y - g * d13.x);
}

/* The R-point DFT (R = 2, 4, 8, 16) of v[q + r st], r < R, in place:
 * R = P Q with Q = 4 (R = 2: one butterfly): inner DFTs of P points
 * n = Q n1 + n2 over n1, twiddles w_R^(n2 m1), outer DFTs of Q points over n2;
 * X[m1 + P m2] then lies at slot Q m1 + m2 and is put back in order. */
static inline XC_HD void xc_fft1_dft(xc_f2 *v, int R, int q, int st, int sgn)
{
    xc_f2 a[16];
    XC_FFT1_UNROLL
    for (int r = 0; r < R; r++)
        a[r] = v[q + r * st];
    if (R == 2) {
        v[q] = xc_f2_make(a[0].x + a[1].x, a[0].y + a[1].y);
        v[q + st] = xc_f2_make(a[0].x - a[1].x, a[0].y - a[1].y);
        return;
    }
    const int P = R / 4;
    XC_FFT1_UNROLL
    for (int n2 = 0; n2 < 4; n2++) {
        if (P == 4)
            xc_fft1_dft4(a, n2, 4, sgn);
        else if (P == 2) {
            xc_f2 x = a[n2], y = a[4 + n2];
            a[n2] = xc_f2_make(x.x + y.x, x.y + y.y);
            a[4 + n2] = xc_f2_make(x.x - y.x, x.y - y.y);
        }
        XC_FFT1_UNROLL
        for (int m1 = 1; m1 < P; m1++)
            a[4 * m1 + n2] = xc_fft1_w16(a[4 * m1 + n2], n2 * m1 * (16 / R), sgn);
    }
    XC_FFT1_UNROLL
    for (int m1 = 0; m1 < P; m1++)
        xc_fft1_dft4(a, 4 * m1, 1, sgn);
    XC_FFT1_UNROLL
    for (int m = 0; m < R; m++)
        v[q + m * st] = a[4 * (m % P) + m / P];
}

/* ---- one thread's phases --------------------------------------------------- */

/* The first pass's input: v[s] = seg[i] x kern[i], i = t + s T (k_mul's product). */
static inline XC_HD void xc_fft1_load(xc_f2 *v, int t, int m, const xc_f2 *seg, const xc_f2 *kern)
{
    const int T = 1 << (m - 4);
    XC_FFT1_UNROLL
    for (int s = 0; s < 16; s++)
        v[s] = xc_f2_mul(XC_FFT1_LDCG(seg + t + s * T), XC_FFT1_LDCG(kern + t + s * T));
}

/* Pass p's twiddles and butterflies on thread t's registers (v[s] = x[t + s T]). */
static inline XC_HD void xc_fft1_pass(xc_f2 *v, int t, int m, int p, const xc_f2 *tw, int sgn)
{
    const int T = 1 << (m - 4), R = xc_fft1_radix(m, p), Ns = 1 << (4 * p), nb = 16 / R;
    const xc_f2 *w = tw + xc_fft1_twoff(m, p);
    XC_FFT1_UNROLL
    for (int q = 0; q < nb; q++) {
        const int k = (t + q * T) & (Ns - 1);
        if (p > 0 && R == 16) {
            XC_FFT1_UNROLL
            for (int r = 1; r < R; r++)
                v[q + r * nb] = xc_f2_mul(v[q + r * nb], XC_FFT1_LDG(w + (r - 1) * Ns + k));
        } else if (p > 0) {
            /* w^r from w: squares and one product each (at most 4 roundings deep) */
            xc_f2 wr[8];
            wr[1] = XC_FFT1_LDG(w + k);
            XC_FFT1_UNROLL
            for (int r = 2; r < R; r++)
                wr[r] = r % 2 ? xc_f2_mul(wr[r - 1], wr[1]) : xc_f2_mul(wr[r / 2], wr[r / 2]);
            XC_FFT1_UNROLL
            for (int r = 1; r < R; r++)
                v[q + r * nb] = xc_f2_mul(v[q + r * nb], wr[r]);
        }
        xc_fft1_dft(v, R, q, nb, sgn);
    }
}

/* A radix-16 pass's outputs to shared memory: r at (t / Ns) 16 Ns + t mod Ns + r Ns. */
static inline XC_HD void xc_fft1_scatter(const xc_f2 *v, int t, int p, xc_f2 *sm)
{
    const int Ns = 1 << (4 * p), k = t & (Ns - 1), base = (t - k) * 16 + k;
    XC_FFT1_UNROLL
    for (int r = 0; r < 16; r++)
        sm[xc_fft1_pad(base + r * Ns)] = v[r];
}

/* The next pass's inputs: v[s] = x[t + s T]. */
static inline XC_HD void xc_fft1_gather(xc_f2 *v, int t, int m, const xc_f2 *sm)
{
    const int T = 1 << (m - 4);
    XC_FFT1_UNROLL
    for (int s = 0; s < 16; s++)
        v[s] = sm[xc_fft1_pad(t + s * T)];
}

/* After the last pass: |X[o]|^2, o = t + s T, into row[o - off] for
 * 0 <= o - off < n (k_power's valid points). */
static inline XC_HD void xc_fft1_power(const xc_f2 *v, int t, int m, int off, long n, float *row)
{
    const int T = 1 << (m - 4);
    XC_FFT1_UNROLL
    for (int s = 0; s < 16; s++) {
        long j = (long)(t + s * T) - off;
        if (j >= 0 && j < n)
            row[j] = v[s].x * v[s].x + v[s].y * v[s].y;
    }
}

#ifndef __CUDACC__
/* One block's transform on the host, the device's phases in its order with
 * the threads in a loop between barriers: regs holds T x 16 points (thread
 * t's v at regs + 16 t; on return X[t + s T] at regs[16 t + s]), sm
 * xc_fft1_smem(m) bytes. */
static inline void xc_fft1_block_host(xc_f2 *regs, xc_f2 *sm, int m, const xc_f2 *tw, int sgn)
{
    const int T = 1 << (m - 4), np = xc_fft1_npass(m);
    for (int p = 0; p < np; p++) {
        for (int t = 0; p > 0 && t < T; t++)
            xc_fft1_gather(regs + 16 * t, t, m, sm);
        for (int t = 0; t < T; t++)
            xc_fft1_pass(regs + 16 * t, t, m, p, tw, sgn);
        for (int t = 0; p < np - 1 && t < T; t++)
            xc_fft1_scatter(regs + 16 * t, t, p, sm);
    }
}
#endif

#endif
