/* realfft_gpu_hd.h: the device transform's arithmetic per point
 * (optimized/gpu/realfft_gpu.cu), plain C so that its host build can be held
 * to FFTW without a device (tests/test_realfft_gpu_hd.c).
 *
 * N real samples x (N even, M = N/2) as M complex z_j = x_2j + i x_2j+1;
 * their M-point DFT Z by Bluestein's chirp z-transform (Bluestein 1970;
 * Rabiner, Schafer & Rader 1969): with w_n = exp(-i pi n^2 / M),
 *   Z_k = w_k sum_j (z_j w_j) conj(w_(k-j)),
 * a circular convolution of length L (a power of 2, >= 2M - 1) made by
 * forward FFTs of a_j = z_j w_j and of b (conj(w_n) at n and L - n), their
 * product and an inverse FFT, all in double; then the real transform's
 * split (PRESTO's realfft, Numerical Recipes' realft):
 *   E_k = (Z_k + conj Z_(M-k)) / 2,  O_k = -i (Z_k - conj Z_(M-k)) / 2,
 *   X_k = E_k + exp(-2 pi i k / N) O_k,
 * rounded to float once, bin 0 holding (X_0, X_(N/2)) = (Re Z_0 + Im Z_0,
 * Re Z_0 - Im Z_0).  Why not cuFFT's own R2C of length N: a study's every
 * pulsar has its own length (nsamp less the DM's sweep), a cuFFT plan per
 * length allocates and frees device memory, and each allocation and free
 * waits for the whole device (every other worker's queued kernels); one
 * power-of-2 plan serves every length below it.  The chirp's phase is
 * reduced exactly (n^2 mod 2M in integers) before the double sine, so it
 * stays accurate at any n. */
#ifndef XC_REALFFT_GPU_HD_H
#define XC_REALFFT_GPU_HD_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define XC_RF_HD __host__ __device__
#else
#define XC_RF_HD
#endif

typedef struct {
    double re, im;
} xc_rf_c;

static inline XC_RF_HD xc_rf_c xc_rf_mul(xc_rf_c a, xc_rf_c b)
{
    xc_rf_c r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return r;
}

/* exp(-i pi t) for t in [0, 2). */
static inline XC_RF_HD xc_rf_c xc_rf_expm(double t)
{
    double s, c;
#ifdef __CUDA_ARCH__
    sincospi(t, &s, &c);
#else
    s = sin(M_PI * t);
    c = cos(M_PI * t);
#endif
    xc_rf_c r = {c, -s};
    return r;
}

/* w_n = exp(-i pi n^2 / M), n < M <= 2^31. */
static inline XC_RF_HD xc_rf_c xc_rf_chirp(uint64_t n, uint64_t M)
{
    return xc_rf_expm((double)((n * n) % (2 * M)) / (double)M);
}

/* The smallest power of 2 >= 2M - 1. */
static inline XC_RF_HD uint64_t xc_rf_len(uint64_t M)
{
    uint64_t L = 1;
    while (L < 2 * M - 1)
        L *= 2;
    return L;
}

/* a_j of the series x (M pairs), j < L. */
static inline XC_RF_HD xc_rf_c xc_rf_pre(const float *x, uint64_t j, uint64_t M)
{
    xc_rf_c z = {0, 0};
    if (j >= M)
        return z;
    z.re = x[2 * j];
    z.im = x[2 * j + 1];
    return xc_rf_mul(z, xc_rf_chirp(j, M));
}

/* b_j: conj(w_n) at j = n and j = L - n, 0 between, j < L. */
static inline XC_RF_HD xc_rf_c xc_rf_kernel(uint64_t j, uint64_t M, uint64_t L)
{
    xc_rf_c b = {0, 0};
    uint64_t n = j < M ? j : j > L - M ? L - j : L;
    if (n < M) {
        b = xc_rf_chirp(n, M);
        b.im = -b.im;
    }
    return b;
}

/* Pair k < M of the packed output from c (the inverse FFT of the product,
 * unnormalised: Z_k = w_k c_k / L). */
static inline XC_RF_HD void xc_rf_post(const xc_rf_c *c, uint64_t k, uint64_t M, uint64_t L, float *out)
{
    const double s = 1.0 / (double)L;
    xc_rf_c zk = xc_rf_mul(xc_rf_chirp(k, M), c[k]);
    zk.re *= s;
    zk.im *= s;
    if (k == 0) {
        out[0] = (float)(zk.re + zk.im);
        out[1] = (float)(zk.re - zk.im);
        return;
    }
    xc_rf_c zm = xc_rf_mul(xc_rf_chirp(M - k, M), c[M - k]);
    zm.re *= s;
    zm.im *= s;
    xc_rf_c e = {(zk.re + zm.re) / 2, (zk.im - zm.im) / 2};
    xc_rf_c o = {(zk.im + zm.im) / 2, -(zk.re - zm.re) / 2};
    xc_rf_c x = xc_rf_mul(xc_rf_expm((double)k / (double)M), o);
    out[2 * k] = (float)(e.re + x.re);
    out[2 * k + 1] = (float)(e.im + x.im);
}

#endif
