/* test_realfft_gpu_hd.c: the device transform of a study's series
 * (optimized/gpu/realfft_gpu_hd.h: Bluestein's chirp z-transform in double,
 * then the real split into PRESTO's packed layout), its host build with
 * FFTW's double complex FFTs in place of cuFFT's, against FFTW's double real
 * transform of the same float series.  Lengths: the Pulscan paper's kind
 * (2 x 5 x a large prime), a power of 2, odd and tiny M.  No device needed.
 *
 * Tolerance: every value is the double result rounded to float once, so
 * each is within 2^-24 of its own magnitude plus the convolution's double
 * rounding (about 1e-16 of the output's rms times log2 L); a wrong index,
 * sign or twiddle gives errors of order the output's rms.  Bound per value:
 * 1.2e-7 |ref| + 1e-12 rms. */
#include <fftw3.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "optimized/gpu/realfft_gpu_hd.h"
#include "tests/xc_assert.h"
#include "tests/xc_test.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double gauss(void)   /* xorshift64 and Box-Muller */
{
    double u[2];
    for (int k = 0; k < 2; k++) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        u[k] = ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* The host build: x (n floats) into out (n floats, packed). */
static void host_build(const float *x, size_t n, float *out)
{
    const uint64_t M = n / 2, L = xc_rf_len(M);
    fftw_complex *a = fftw_malloc(L * sizeof *a), *b = fftw_malloc(L * sizeof *b);
    CU_ASSERT_FATAL(a && b);
    fftw_plan pa = fftw_plan_dft_1d((int)L, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan pb = fftw_plan_dft_1d((int)L, b, b, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan pi = fftw_plan_dft_1d((int)L, a, a, FFTW_BACKWARD, FFTW_ESTIMATE);
    for (uint64_t j = 0; j < L; j++) {
        xc_rf_c v = xc_rf_pre(x, j, M), w = xc_rf_kernel(j, M, L);
        a[j][0] = v.re, a[j][1] = v.im;
        b[j][0] = w.re, b[j][1] = w.im;
    }
    fftw_execute(pa);
    fftw_execute(pb);
    for (uint64_t j = 0; j < L; j++) {
        xc_rf_c p = xc_rf_mul((xc_rf_c){a[j][0], a[j][1]}, (xc_rf_c){b[j][0], b[j][1]});
        a[j][0] = p.re, a[j][1] = p.im;
    }
    fftw_execute(pi);
    for (uint64_t k = 0; k < M; k++)
        xc_rf_post((const xc_rf_c *)a, k, M, L, out);
    fftw_destroy_plan(pa);
    fftw_destroy_plan(pb);
    fftw_destroy_plan(pi);
    fftw_free(a);
    fftw_free(b);
}

/* The worst |out - ref| over the bound, and the count of values past it. */
static size_t check_len(size_t n, double *worst)
{
    float *x = malloc(n * sizeof *x), *out = malloc(n * sizeof *out);
    double *xd = fftw_malloc(n * sizeof *xd);
    fftw_complex *ref = fftw_malloc((n / 2 + 1) * sizeof *ref);
    CU_ASSERT_FATAL(x && out && xd && ref);
    for (size_t j = 0; j < n; j++) {
        x[j] = (float)(40.0 + 3.0 * gauss() + 2.0 * sin(0.0123 * (double)j));
        xd[j] = x[j];
    }
    fftw_plan p = fftw_plan_dft_r2c_1d((int)n, xd, ref, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
    host_build(x, n, out);
    double r2 = 0;
    for (size_t k = 0; k <= n / 2; k++)
        r2 += ref[k][0] * ref[k][0] + ref[k][1] * ref[k][1];
    const double rms = sqrt(r2 / (double)(n / 2 + 1));
    size_t bad = 0;
    *worst = 0;
    for (size_t q = 0; q < n; q++) {
        size_t k = q / 2;
        double want = q == 0 ? ref[0][0] : q == 1 ? ref[n / 2][0] : ref[k][q % 2];
        double e = fabs((double)out[q] - want), bound = 1.2e-7 * fabs(want) + 1e-12 * rms;
        *worst = fmax(*worst, e / bound);
        if (e > bound && bad++ < 3)
            printf("\nn %zu: value %zu observed %.9g, expected %.9g, tolerance %.3g\n", n, q, (double)out[q], want,
                   bound);
    }
    free(x);
    free(out);
    fftw_free(xd);
    fftw_free(ref);
    return bad;
}

XC_TEST(test_realfft_hd_vs_double, "realfft_hd_vs_double")
{
    const size_t lens[] = {2, 4, 6, 1024, 30002, 100070, 4686530 / 8 * 2};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        double worst = 0;
        size_t bad = check_len(lens[i], &worst);
        CU_ASSERT_EQUAL(bad, 0);
        XC_ASSERT_BELOW(worst, 1.0);
    }
}

XC_TEST_MAIN("realfft_gpu_hd")
