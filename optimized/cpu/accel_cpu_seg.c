/* The CPU accel searcher's per-segment steps (optimized/cpu/accel_cpu.c's
 * plane stage and optimized/cpu/accel_cpu_sums.c's own sums use them): a
 * segment's data spread on the half-bin grid and FFT'd, and one template's
 * product, inverse FFT and powers on it. */
#include <complex.h>

#include <fftw3.h>

#include "optimized/cpu/accel_cpu_internal.h"

/* The element-wise loops of a (template, segment) pair, compiled for
 * AVX-512, AVX2 and the baseline and picked by the loader (target_clones, as
 * optimized/cpu/cpu_kernels.c): baseline SSE spent more time shuffling
 * interleaved complex values than the inverse FFT took (perf, 8 harmonics
 * at 2^20 bins).  Each element is independent and contraction into FMA is
 * off for them (GCC 12 fuses a*b + c*d at -O3 even with -std=c11, changing
 * the last bits), so every clone gives the baseline's.  The complex product
 * has no AVX-512 clone: GCC 12's vectoriser turns it into vfmaddsub (a
 * complex-multiply pattern that ignores fp-contract) wherever FMA exists,
 * and AVX2 alone (no FMA) gives vaddsubps, the scalar loop's roundings. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES)
#define XC_ACCEL_CLONES                                                                                          \
    __attribute__((target_clones("arch=x86-64-v4", "avx2", "default"), optimize("fp-contract=off")))
#define XC_ACCEL_CLONES_NOFMA __attribute__((target_clones("avx2", "default"), optimize("fp-contract=off")))
#elif defined(__GNUC__) && !defined(__clang__)
#define XC_ACCEL_CLONES __attribute__((optimize("fp-contract=off")))
#define XC_ACCEL_CLONES_NOFMA XC_ACCEL_CLONES
#else
#define XC_ACCEL_CLONES
#define XC_ACCEL_CLONES_NOFMA
#endif

/* t = d x k over L complex points, in real arithmetic: C's complex multiply
 * checks for NaN/infinity parts (Annex G) and does not vectorise; the values
 * are finite here. */
XC_ACCEL_CLONES_NOFMA static void cpu_mul(float *restrict t, const float *restrict d, const float *restrict k, size_t L)
{
#pragma omp simd
    for (size_t q = 0; q < L; q++) {
        float dr = d[2 * q], di = d[2 * q + 1], kr = k[2 * q], ki = k[2 * q + 1];
        t[2 * q] = dr * kr - di * ki;
        t[2 * q + 1] = dr * ki + di * kr;
    }
}

/* out[j] = |o[j]|^2 for n complex points; 1 if any exceeds thr. */
XC_ACCEL_CLONES static int cpu_power(float *restrict out, const float *restrict o, size_t n, float thr)
{
    int any = 0;
#pragma omp simd reduction(| : any)
    for (size_t j = 0; j < n; j++) {
        out[j] = o[2 * j] * o[2 * j] + o[2 * j + 1] * o[2 * j + 1];
        any |= out[j] > thr;
    }
    return any;
}

size_t xc_accel_cpu_window(const cpu_state *s, long i0, long *k0)
{
    const long q0 = i0 - 2L * s->hwmax;   /* half-bin position of d[0] */
    long a = q0 <= 0 ? 0 : (q0 + 1) / 2, b = (q0 + s->L - 1) >= 0 ? (q0 + s->L - 1) / 2 + 1 : 0;
    *k0 = a;
    return b > a ? (size_t)(b - a) : 0;
}

void xc_accel_cpu_segment(const cpu_state *s, long i0, long lo, size_t n, const float *af, fftwf_complex *d)
{
    long q0 = i0 - 2L * s->hwmax;   /* half-bin position of d[0] */
    for (size_t q = 0; q < (size_t)s->L; q++) {
        long h = q0 + (long)q;
        d[q] = 0;
        if (h >= 0 && h % 2 == 0) {
            long k = h / 2 - lo;
            if (k >= 0 && (size_t)k < n)
                d[q] = af[2 * k] + I * af[2 * k + 1];
        }
    }
    fftwf_execute_dft(s->fwd, d, d);
}

void xc_accel_cpu_block_segment(const cpu_state *s, const xc_accel_block *b, size_t g, float *af, fftwf_complex *d)
{
    const long i0 = b->i0 + (long)(g * (size_t)s->V);
    long k0, lo = b->lo, hi = b->lo + (long)b->n;
    const size_t nk = xc_accel_cpu_window(s, i0, &k0);
    const long k1 = k0 + (long)nk;
    lo = lo > k0 ? lo : k0;
    hi = hi < k1 ? hi : k1;
    for (long k = lo; k < hi; k++) {
        af[2 * (k - lo)] = (float)b->amp[2 * (k - b->lo)];
        af[2 * (k - lo) + 1] = (float)b->amp[2 * (k - b->lo) + 1];
    }
    xc_accel_cpu_segment(s, i0, lo, hi > lo ? (size_t)(hi - lo) : 0, af, d);
}

int xc_accel_cpu_pair(const cpu_state *s, const fftwf_complex *d, int t, size_t g, size_t nr, float *row,
                      fftwf_complex *tmp, float thr)
{
    size_t L = (size_t)s->L, V = (size_t)s->V;
    cpu_mul((float *)tmp, (const float *)d, (const float *)(s->kern + (size_t)t * L), L);
    fftwf_execute_dft(s->inv, tmp, tmp + L);
    size_t j0 = g * V, nv = nr - j0 < V ? nr - j0 : V;
    return cpu_power(row + j0, (const float *)(tmp + L + 2 * s->hwmax), nv, thr);
}
