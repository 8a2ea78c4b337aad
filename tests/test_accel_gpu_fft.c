/* test_accel_gpu_fft.c: the one-pass FDAS plane's FFT
 * (optimized/gpu/accel_gpu_fft_hd.h), its host build: a block's phases run
 * over the thread indices in a loop, in the device's order, against FFTW's
 * double transform of the same float input, for every length the device
 * kernel takes (2^11..2^14) and both directions; then the plane stage's own
 * arithmetic (product of a segment's FFT and a real template's, the inverse
 * transform, |.|^2 of the valid points) against the same in double, with the
 * templates of zmax 20 and 1200 (the study's L = 16384).  No device needed.
 *
 * Tolerances: a float FFT with correctly rounded twiddles has an rms error of
 * about eps sqrt(log2 L) relative to the output's rms (eps = 6e-8; here 14
 * levels of butterflies, ~2.5e-7 expected); 1e-6 rms and 1e-5 for the worst
 * point (relative to the output's rms) leave a factor 4 and 40, while a wrong
 * twiddle or index gives errors of order 1. */
#include <fftw3.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/search/xc_accel.h"
#include "optimized/gpu/accel_gpu_fft_hd.h"
#include "tests/xc_assert.h"
#include "tests/xc_test.h"

#define RMS_TOL 1e-6
#define MAX_TOL 1e-5

static uint64_t rng = 88172645463325252ull;
static double uni(void)   /* xorshift64: uniform in [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

/* The host build's transform of x (L = 2^m, direction sgn) into y, through
 * the threads' registers as the device holds them. */
static void fft1(const xc_f2 *x, xc_f2 *y, int m, int sgn)
{
    const int L = 1 << m, T = L / 16;
    xc_f2 *regs = malloc((size_t)L * sizeof *regs), *sm = malloc(xc_fft1_smem(m));
    xc_f2 *tw = malloc((size_t)xc_fft1_twlen(m) * sizeof *tw + sizeof *tw);
    CU_ASSERT_FATAL(regs && sm && tw);
    xc_fft1_twiddles(m, sgn, tw);
    for (int t = 0; t < T; t++)
        for (int s = 0; s < 16; s++)
            regs[16 * t + s] = x[t + s * T];
    xc_fft1_block_host(regs, sm, m, tw, sgn);
    for (int t = 0; t < T; t++)
        for (int s = 0; s < 16; s++)
            y[t + s * T] = regs[16 * t + s];
    free(regs);
    free(sm);
    free(tw);
}

/* FFTW's double transform of the float input x. */
static void ref_fft(const xc_f2 *x, fftw_complex *out, int L, int sgn)
{
    fftw_complex *in = fftw_malloc((size_t)L * sizeof *in);
    CU_ASSERT_FATAL(in != NULL);
    fftw_plan pl = fftw_plan_dft_1d(L, in, out, sgn > 0 ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
    for (int i = 0; i < L; i++)
        in[i][0] = x[i].x, in[i][1] = x[i].y;
    fftw_execute(pl);
    fftw_destroy_plan(pl);
    fftw_free(in);
}

/* rms and largest |y - ref|, relative to ref's rms. */
static void errors(const xc_f2 *y, const fftw_complex *ref, int L, double *rms, double *mx)
{
    double e2 = 0, r2 = 0, emax = 0;
    for (int i = 0; i < L; i++) {
        double dx = y[i].x - ref[i][0], dy = y[i].y - ref[i][1], e = dx * dx + dy * dy;
        e2 += e;
        r2 += ref[i][0] * ref[i][0] + ref[i][1] * ref[i][1];
        emax = fmax(emax, e);
    }
    *rms = sqrt(e2 / r2);
    *mx = sqrt(emax / (r2 / L));
}

/* Impulses (at 0, 1, 17, L/2 + 3, L - 1: each a pure tone out) and random
 * complex input, L = 2^11..2^14, both directions. */
XC_TEST(test_fft1_vs_double, "fft1_vs_double")
{
    double worst_rms = 0, worst_max = 0;
    int failed = 0;
    for (int m = XC_FFT1_MINLOG; m <= XC_FFT1_MAXLOG; m++) {
        const int L = 1 << m;
        xc_f2 *x = malloc((size_t)L * sizeof *x), *y = malloc((size_t)L * sizeof *y);
        fftw_complex *ref = fftw_malloc((size_t)L * sizeof *ref);
        CU_ASSERT_FATAL(x && y && ref);
        const int imp[] = {0, 1, 17, L / 2 + 3, L - 1, -1};
        for (int c = 0; c < 6; c++)
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                for (int i = 0; i < L; i++)
                    x[i] = imp[c] >= 0 ? xc_f2_make(i == imp[c] ? 1.0f : 0.0f, 0.0f)
                                       : xc_f2_make((float)uni(), (float)uni());
                fft1(x, y, m, sgn);
                ref_fft(x, ref, L, sgn);
                double rms, mx;
                errors(y, ref, L, &rms, &mx);
                worst_rms = fmax(worst_rms, rms);
                worst_max = fmax(worst_max, mx);
                if (rms >= RMS_TOL || mx >= MAX_TOL) {
                    printf("\n  L %d sgn %+d %s: rms error %.3g (tolerance %.0e), largest %.3g (tolerance %.0e)", L,
                           sgn, imp[c] >= 0 ? "impulse" : "random", rms, RMS_TOL, mx, MAX_TOL);
                    failed++;
                }
            }
        free(x);
        free(y);
        fftw_free(ref);
    }
    printf("\n  L 2^11..2^14, impulses and random, both signs: rms error %.3g, largest %.3g (of the output's rms)",
           worst_rms, worst_max);
    CU_ASSERT_EQUAL(failed, 0);
    XC_ASSERT_BELOW(worst_rms, RMS_TOL);
    XC_ASSERT_BELOW(worst_max, MAX_TOL);
}

/* One (template, segment) pair of the plane as the device kernel makes it:
 * the product on load, the inverse transform, |.|^2 of the V valid points
 * from 2 hwmax on; against the same product inverse-transformed by FFTW in
 * double.  Templates of zmax 20 (L 2048) and 1200 (L 16384) at z = -zmax,
 * 0, 3 and zmax, exact double responses rounded to float and transformed
 * (conjugated, scaled by 1/L) in double, as on the device up to its float
 * FFT; segments of noise with one bin 100 times stronger.  The transform
 * within the first case's bounds; the power of the valid points within
 * twice the amplitude's largest error of the largest power (|dP| ~ 2 |X| |dX|):
 * an index off by one would be off by O(1) there. */
XC_TEST(test_fft1_plane_pair, "fft1_plane_pair")
{
    static const int zmaxes[] = {20, 1200};
    double worst_rms = 0, worst_max = 0, worst_pow = 0;
    for (int c = 0; c < 2; c++) {
        const int zmax = zmaxes[c], hwmax = xc_accel_z_halfwidth(zmax, XC_ACCEL_LOWACC);
        int m = 11;
        while ((1 << m) < 16 * hwmax)
            m++;
        CU_ASSERT_FATAL(m <= XC_FFT1_MAXLOG);
        const int L = 1 << m, T = L / 16, off = 2 * hwmax, V = L - 4 * hwmax;
        xc_f2 *seg = malloc((size_t)L * sizeof *seg), *kern = malloc((size_t)L * sizeof *kern);
        xc_f2 *regs = malloc((size_t)L * sizeof *regs), *sm = malloc(xc_fft1_smem(m));
        xc_f2 *tw = malloc((size_t)xc_fft1_twlen(m) * sizeof *tw);
        float *row = malloc((size_t)V * sizeof *row);
        fftw_complex *a = fftw_malloc((size_t)L * sizeof *a), *b = fftw_malloc((size_t)L * sizeof *b);
        double *resp = malloc((size_t)(8 * hwmax + 2) * sizeof *resp);
        CU_ASSERT_FATAL(seg && kern && regs && sm && tw && row && a && b && resp);
        xc_fft1_twiddles(m, 1, tw);
        fftw_plan fw = fftw_plan_dft_1d(L, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
        fftw_plan bw = fftw_plan_dft_1d(L, a, b, FFTW_BACKWARD, FFTW_ESTIMATE);
        /* the segment: amplitudes on the even half-bins, one bin 100 x stronger */
        for (int i = 0; i < L; i++) {
            double s = i == L / 2 ? 100 : 1;
            a[i][0] = i % 2 ? 0 : (float)(s * uni());
            a[i][1] = i % 2 ? 0 : (float)(s * uni());
        }
        fftw_execute(fw);
        for (int i = 0; i < L; i++)
            seg[i] = xc_f2_make((float)b[i][0], (float)b[i][1]);
        const int zs[] = {-zmax, 0, 3, zmax};
        for (int k = 0; k < 4; k++) {
            const int hw = xc_accel_z_halfwidth(zs[k], XC_ACCEL_LOWACC);
            xc_error err;
            CU_ASSERT_EQUAL_FATAL(xc_accel_template(zs[k], 0, hw, resp, &err), XC_OK);
            for (int i = 0; i < L; i++)
                a[i][0] = a[i][1] = 0;
            for (int j = -2 * hw; j <= 2 * hw; j++) {
                a[(j + L) % L][0] = (float)resp[2 * (j + 2 * hw)];
                a[(j + L) % L][1] = (float)resp[2 * (j + 2 * hw) + 1];
            }
            fftw_execute(fw);
            for (int i = 0; i < L; i++)
                kern[i] = xc_f2_make((float)(b[i][0] / L), (float)(-b[i][1] / L));
            /* the device's phases, threads in a loop */
            for (int t = 0; t < T; t++)
                xc_fft1_load(regs + 16 * t, t, m, seg, kern);
            xc_fft1_block_host(regs, sm, m, tw, 1);
            for (int t = 0; t < T; t++)
                xc_fft1_power(regs + 16 * t, t, m, off, V, row);
            /* the reference: the same float product, in double */
            for (int i = 0; i < L; i++) {
                xc_f2 pr = xc_f2_mul(seg[i], kern[i]);
                a[i][0] = pr.x, a[i][1] = pr.y;
            }
            fftw_execute(bw);
            /* the transform: as the first case; the valid points' power:
             * |dP| ~ 2 |X| |dX|, at most twice the amplitude's bound of the
             * largest power */
            xc_f2 *y = malloc((size_t)L * sizeof *y);
            CU_ASSERT_FATAL(y != NULL);
            for (int t = 0; t < T; t++)
                for (int s = 0; s < 16; s++)
                    y[t + s * T] = regs[16 * t + s];
            double rms, mx, pmax = 0, emax = 0;
            errors(y, (const fftw_complex *)b, L, &rms, &mx);
            free(y);
            for (int j = 0; j < V; j++) {
                double P = b[off + j][0] * b[off + j][0] + b[off + j][1] * b[off + j][1];
                pmax = fmax(pmax, P);
                emax = fmax(emax, fabs(row[j] - P));
            }
            worst_rms = fmax(worst_rms, rms);
            worst_max = fmax(worst_max, mx);
            worst_pow = fmax(worst_pow, emax / pmax);
            if (rms >= RMS_TOL || mx >= MAX_TOL || emax >= 2 * MAX_TOL * pmax)
                printf("\n  L %d z %d: rms error %.3g (tolerance %.0e), largest %.3g (tolerance %.0e), power's "
                       "largest %.3g of the largest power (tolerance %.0e)",
                       L, zs[k], rms, RMS_TOL, mx, MAX_TOL, emax / pmax, 2 * MAX_TOL);
        }
        fftw_destroy_plan(fw);
        fftw_destroy_plan(bw);
        free(seg);
        free(kern);
        free(regs);
        free(sm);
        free(tw);
        free(row);
        free(resp);
        fftw_free(a);
        fftw_free(b);
    }
    printf("\n  plane pairs, zmax 20 and 1200: rms error %.3g, largest %.3g (of the output's rms), power's largest "
           "%.3g (of the largest power)",
           worst_rms, worst_max, worst_pow);
    XC_ASSERT_BELOW(worst_rms, RMS_TOL);
    XC_ASSERT_BELOW(worst_max, MAX_TOL);
    XC_ASSERT_BELOW(worst_pow, 2 * MAX_TOL);
}

XC_TEST_MAIN("accel_gpu_fft")
