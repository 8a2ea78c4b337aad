/* test_fft.c: the PRESTO realfft layout, checked by hand on N = 8 and against
 * the .fft PRESTO wrote for the GBT_J1807-0847 .dat (datasets/sigpyproc3). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/io/xc_fft.h"
#include "core/search/xc_spectrum.h"
#include "core/io/xc_presto.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define FIXTURE "GBT_J1807-0847"

static int skip_no_fixture(char *why, size_t n)
{
    char path[512];
    xc_fx_sigpyproc_path(path, sizeof path, FIXTURE ".fft");
    return xc_fx_skip_missing(path, why, n);
}

/* x_j = j, N = 8: X_k = N/(e^{-2 pi i k/N} - 1) = -4 + 4i cot(pi k/8), X_0 = 28,
 * X_4 = sum (-1)^j j = -4.  Packed: (X_0, X_4), X_1, X_2, X_3. */
XC_TEST(test_hand_n8, "hand_n8")
{
    const float x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const double want[8] = {28.0, -4.0, -4.0, 9.65685424949238, -4.0, 4.0, -4.0, 1.65685424949238};
    for (int p = 0; p < 2; p++) {
        float out[8];
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_realfft_forward(x, 8, p ? XC_FFT_DOUBLE : XC_FFT_SINGLE, out, &err), XC_OK);
        for (int i = 0; i < 8; i++)
            XC_ASSERT_CLOSE(out[i], want[i], 4e-6);
    }
    /* In place gives the same floats. */
    float y[8];
    memcpy(y, x, sizeof y);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_realfft_forward(y, 8, XC_FFT_DOUBLE, y, &err), XC_OK);
    for (int i = 0; i < 8; i++)
        CU_ASSERT_EQUAL(y[i], (float)want[i]);
}

/* A lone cosine at bin 3 of N = 16 puts N/2 * A in re X_3 and nothing
 * elsewhere; Nyquist (-1)^j puts N in the imaginary slot of bin 0. */
XC_TEST(test_packing_nyquist, "packing_nyquist")
{
    float x[16], out[16];
    for (int j = 0; j < 16; j++)
        x[j] = (float)(2.0 * cos(2 * M_PI * 3 * j / 16.0) + ((j % 2) ? -0.5 : 0.5) + 0.25);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_realfft_forward(x, 16, XC_FFT_DOUBLE, out, &err), XC_OK);
    XC_ASSERT_CLOSE(out[0], 16 * 0.25, 1e-5);   /* DC */
    XC_ASSERT_CLOSE(out[1], 16 * 0.5, 1e-5);    /* Nyquist */
    XC_ASSERT_CLOSE(out[6], 16.0, 1e-5);        /* re X_3 = N/2 * 2 */
    XC_ASSERT_CLOSE(out[7], 0.0, 1e-5);
    for (int k = 1; k < 8; k++)
        if (k != 3) {
            XC_ASSERT_CLOSE(out[2 * k], 0.0, 1e-5);
            XC_ASSERT_CLOSE(out[2 * k + 1], 0.0, 1e-5);
        }
}

static void compare_fixture(xc_fft_precision prec)
{
    char dat[512], fft[512];
    xc_fx_sigpyproc_path(dat, sizeof dat, FIXTURE ".dat");
    xc_fx_sigpyproc_path(fft, sizeof fft, FIXTURE ".fft");
    float *x = NULL, *ref = NULL;
    size_t n = 0, nref = 0;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(dat, &x, &n, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fft_read(fft, &ref, &nref, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(n, 131072);
    CU_ASSERT_EQUAL_FATAL(nref, n);
    CU_ASSERT_EQUAL_FATAL(xc_realfft_forward(x, n, prec, x, &err), XC_OK);
    /* All floats, and bins k >= 1 alone: this series has a large mean, so
     * the DC term (5.8e10) dwarfs every other bin and would hide errors. */
    double maxref = 0, maxdiff = 0, maxref1 = 0, maxdiff1 = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)x[i] - ref[i]);
        maxref = fmax(maxref, fabs(ref[i]));
        maxdiff = fmax(maxdiff, d);
        if (i >= 2) {
            maxref1 = fmax(maxref1, fabs(ref[i]));
            maxdiff1 = fmax(maxdiff1, d);
        }
    }
    printf("\n  %s: all floats max|ours - PRESTO| = %.4g of max|X| %.6g (%.3g); bins k>=1: %.4g of "
           "%.6g (%.3g); DC %.9g vs %.9g, Nyquist %.9g vs %.9g\n",
           xc_fft_precision_name(prec), maxdiff, maxref, maxdiff / maxref, maxdiff1, maxref1,
           maxdiff1 / maxref1, x[0], ref[0], x[1], ref[1]);
    /* Float rounding: PRESTO's own float32 transform of a series with mean
     * 4.5e5 carries errors of order eps_f * ||x||_2 (about 10 here) times a
     * small multiple of log2 N.  The research note measured 9e-6 of max|X|;
     * the bound is 1e-5 of max|X|, over all floats and over k >= 1 alone. */
    CU_ASSERT(maxref > 0 && maxref1 > 0);
    CU_ASSERT(maxdiff <= 1e-5 * maxref);
    CU_ASSERT(maxdiff1 <= 1e-5 * maxref1);
    /* DC is a plain sum: equal to float rounding. */
    CU_ASSERT(fabs((double)x[0] - ref[0]) <= 1e-6 * fabs(ref[0]));
    free(x);
    free(ref);
}

XC_TEST_IF(test_fixture_single, "fixture_single", skip_no_fixture) { compare_fixture(XC_FFT_SINGLE); }
XC_TEST_IF(test_fixture_double, "fixture_double", skip_no_fixture) { compare_fixture(XC_FFT_DOUBLE); }

/* The pulsar (P = 163.7 ms) gives the strongest non-DC bin: r = 131, 6.100 Hz. */
XC_TEST_IF(test_fixture_peak, "fixture_peak_r131", skip_no_fixture)
{
    char dat[512], inf_path[512];
    xc_fx_sigpyproc_path(dat, sizeof dat, FIXTURE ".dat");
    xc_fx_sigpyproc_path(inf_path, sizeof inf_path, FIXTURE ".inf");
    float *x = NULL;
    size_t n = 0;
    xc_inf inf;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, inf_path, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(dat, &x, &n, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_realfft_forward(x, n, XC_FFT_SINGLE, x, &err), XC_OK);
    size_t best = 0, second = 0;
    double bestp = -1, secondp = -1;
    for (size_t k = 1; k < n / 2; k++) {
        double p = (double)x[2 * k] * x[2 * k] + (double)x[2 * k + 1] * x[2 * k + 1];
        if (p > bestp) {
            second = best;
            secondp = bestp;
            best = k;
            bestp = p;
        } else if (p > secondp) {
            second = k;
            secondp = p;
        }
    }
    double T = inf.n * inf.dt;
    printf("\n  strongest bin r = %zu (f = %.4f Hz, power %.4g); next r = %zu (power %.4g)\n", best,
           best / T, bestp, second, secondp);
    CU_ASSERT_EQUAL(best, 131);
    XC_ASSERT_CLOSE(best / T, 6.100, 0.0005);
    free(x);
}

/* The file step: Y.fft equals the in-memory transform, Y.inf equals X.inf
 * except for the name value. */
XC_TEST_IF(test_file_step, "file_step", skip_no_fixture)
{
    char dat[512], inf_in[512], base[512], fft[600], inf_out[600];
    xc_fx_sigpyproc_path(dat, sizeof dat, FIXTURE ".dat");
    xc_fx_sigpyproc_path(inf_in, sizeof inf_in, FIXTURE ".inf");
    xc_fx_tmp_path(base, sizeof base, "J1807_out");
    snprintf(fft, sizeof fft, "%s.fft", base);
    snprintf(inf_out, sizeof inf_out, "%s.inf", base);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_fft_file(dat, base, XC_FFT_SINGLE, &err), XC_OK);

    float *x = NULL, *y = NULL;
    size_t n = 0, ny = 0;
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(dat, &x, &n, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_realfft_forward(x, n, XC_FFT_SINGLE, x, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fft_read(fft, &y, &ny, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(ny, n);
    CU_ASSERT(memcmp(x, y, n * sizeof *x) == 0);
    free(x);
    free(y);

    static char a[8192], b[8192];
    xc_fx_read_text(inf_in, a, sizeof a);
    xc_fx_read_text(inf_out, b, sizeof b);
    /* Line 1 is the name; the rest must be byte-identical. */
    const char *ra = strchr(a, '\n'), *rb = strchr(b, '\n');
    CU_ASSERT_FATAL(ra && rb);
    CU_ASSERT_STRING_EQUAL(ra, rb);
    xc_inf inf;
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, inf_out, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(inf.name, base);
    CU_ASSERT_EQUAL(inf.n, 131072.0);
    CU_ASSERT_EQUAL(inf.dt, 0.00016384);
}

static void write_series(const char *base, size_t n, double inf_n)
{
    char dat[600], inf_path[600];
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(inf_path, sizeof inf_path, "%s.inf", base);
    float x[16] = {0};
    for (size_t i = 0; i < n && i < 16; i++)
        x[i] = (float)i;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_dat_write(dat, x, n, &err), XC_OK);
    xc_inf inf;
    xc_inf_init(&inf);
    snprintf(inf.name, sizeof inf.name, "%s", base);
    strcpy(inf.telescope, "None (Artificial Data Set)");
    inf.n = inf_n;
    inf.dt = 1e-3;
    CU_ASSERT_EQUAL_FATAL(xc_inf_write(&inf, inf_path, &err), XC_OK);
}

XC_TEST(test_odd_refused, "odd_refused")
{
    char base[512], dat[600], out[512], outf[600], outi[600];
    xc_fx_tmp_path(base, sizeof base, "odd7");
    xc_fx_tmp_path(out, sizeof out, "odd7_out");
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(outf, sizeof outf, "%s.fft", out);
    snprintf(outi, sizeof outi, "%s.inf", out);
    write_series(base, 7, 7);
    xc_error err;
    xc_error_clear(&err);
    CU_ASSERT_EQUAL(xc_fft_file(dat, out, XC_FFT_SINGLE, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, dat));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "N = 7"));
    CU_ASSERT(!xc_fx_exists(outf));
    CU_ASSERT(!xc_fx_exists(outi));

    float x[7] = {0}, y[7];
    CU_ASSERT_EQUAL(xc_realfft_forward(x, 7, XC_FFT_DOUBLE, y, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "N = 7"));
}

/* The kept transform (xc_realfft_new) gives xc_realfft_forward's bits, series
 * after series through one object (the study's workers keep one), in place
 * too; N = 37 500 = 2^2 3 5^5 factors as the Pulscan paper's 4 687 500.
 * Tolerance: none (memcmp); the same FFTW plan on the same input. */
XC_TEST(test_kept_same_bits, "kept_same_bits")
{
    enum { N = 37500 };
    float *x = malloc(N * sizeof *x), *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    CU_ASSERT_FATAL(x && a && b);
    xc_error err;
    xc_realfft *f = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_realfft_new(N, &f, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_realfft_len(f), N);
    for (int s = 0; s < 3; s++) {
        uint32_t u = 12345u + (uint32_t)s;
        for (int i = 0; i < N; i++) {
            u = u * 1664525u + 1013904223u;
            x[i] = (float)(u >> 8) / 16777216.0f - 0.5f + (s == 1 ? 0.3f * (float)cos(0.01 * i) : 0.0f);
        }
        CU_ASSERT_EQUAL_FATAL(xc_realfft_forward(x, N, XC_FFT_SINGLE, a, &err), XC_OK);
        xc_realfft_run(f, x, b);
        CU_ASSERT_EQUAL(memcmp(a, b, N * sizeof *a), 0);
        memcpy(b, x, N * sizeof *b);
        xc_realfft_run(f, b, b);
        CU_ASSERT_EQUAL(memcmp(a, b, N * sizeof *a), 0);
    }
    xc_realfft_free(f);
    CU_ASSERT_EQUAL(xc_realfft_new(7, &f, &err), XC_EINVAL);
    CU_ASSERT_PTR_NULL(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "N = 7"));
    free(x);
    free(a);
    free(b);
}

/* Index of the first float where a and b differ (their bits), n if none. */
static size_t first_diff(const float *a, const float *b, size_t n)
{
    size_t i = 0;
    while (i < n && !memcmp(a + i, b + i, sizeof *a))
        i++;
    return i;
}

/* One kept transform through lengths that shrink and grow (its buffers kept,
 * then replaced), the series written into its input: xc_realfft_exec gives
 * xc_realfft_forward's bits into an aligned spectrum two floats longer
 * (FFTW writes there directly), into one of n floats and into one off
 * FFTW's alignment (both through the kept buffer).  19 946 = 2 x 9973
 * (prime: FFTW's Rader path), 37 498 = 2 x 18 749, 37 500 = 2^2 3 5^5; and
 * into the input buffer itself.
 * Tolerance: none (bits); the same FFTW plan on the same input. */
XC_TEST(test_kept_resize_exec, "kept_resize_exec")
{
    static const size_t lens[] = {37500, 19946, 37498, 37500, 40000};
    enum { CAP = 40000 + 18 };
    float *x = malloc(CAP * sizeof *x), *want = malloc(CAP * sizeof *want), *out = NULL;
    CU_ASSERT_FATAL(x && want && !posix_memalign((void **)&out, 64, CAP * sizeof *out));
    xc_error err;
    xc_realfft *f = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_realfft_new(lens[0], &f, &err), XC_OK);
    for (size_t q = 0; q < sizeof lens / sizeof lens[0]; q++) {
        const size_t n = lens[q];
        CU_ASSERT_EQUAL_FATAL(xc_realfft_resize(f, n, &err), XC_OK);
        CU_ASSERT_EQUAL(xc_realfft_len(f), n);
        uint32_t u = 777u + (uint32_t)q;
        for (size_t i = 0; i < n; i++) {
            u = u * 1664525u + 1013904223u;
            x[i] = (float)(u >> 8) / 16777216.0f - 0.5f + 0.2f * (float)sin(0.003 * (double)i * (double)(q + 1));
        }
        CU_ASSERT_EQUAL_FATAL(xc_realfft_forward(x, n, XC_FFT_SINGLE, want, &err), XC_OK);
        /* direct (n + 2, aligned), through the buffer (n), misaligned (n + 2 at out + 1) */
        const struct { size_t off, len; } ways[] = {{0, n + 2}, {0, n}, {1, n + 2}};
        for (size_t w = 0; w < 3; w++) {
            memcpy(xc_realfft_input(f), x, n * sizeof *x);
            memset(out, 0xff, CAP * sizeof *out);
            xc_realfft_exec(f, out + ways[w].off, ways[w].len);
            size_t d = first_diff(out + ways[w].off, want, n);
            if (d < n)
                printf("\n  n %zu, way %zu: float %zu is %.9g, expected %.9g (bits)\n", n, w, d,
                       (double)out[ways[w].off + d], (double)want[d]);
            CU_ASSERT_EQUAL(d, n);
        }
    }
    /* into the input buffer itself, room for n + 2 (the buffers of 40 000
     * planned for 37 498): through the kept buffer, the same bits */
    CU_ASSERT_EQUAL_FATAL(xc_realfft_resize(f, 37498, &err), XC_OK);
    for (size_t i = 0; i < 37498; i++)
        x[i] = (float)sin(0.01 * (double)i) + (float)(i % 7) * 0.1f;
    CU_ASSERT_EQUAL_FATAL(xc_realfft_forward(x, 37498, XC_FFT_SINGLE, want, &err), XC_OK);
    float *in = xc_realfft_input(f);
    memcpy(in, x, 37498 * sizeof *x);
    xc_realfft_exec(f, in, 37500);
    size_t d = first_diff(in, want, 37498);
    if (d < 37498)
        printf("\n  in place: float %zu is %.9g, expected %.9g (bits)\n", d, (double)in[d], (double)want[d]);
    CU_ASSERT_EQUAL(d, 37498);
    CU_ASSERT_EQUAL(xc_realfft_resize(f, 9, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "N = 9"));
    CU_ASSERT_EQUAL(xc_realfft_resize(f, 8, &err), XC_OK);   /* usable again */
    CU_ASSERT_EQUAL(xc_realfft_len(f), 8);
    xc_realfft_free(f);
    free(x);
    free(want);
    free(out);
}

XC_TEST(test_inf_mismatch, "inf_mismatch")
{
    char base[512], dat[600], out[512];
    xc_fx_tmp_path(base, sizeof base, "mis8");
    xc_fx_tmp_path(out, sizeof out, "mis8_out");
    snprintf(dat, sizeof dat, "%s.dat", base);
    write_series(base, 8, 10);
    xc_error err;
    CU_ASSERT_EQUAL(xc_fft_file(dat, out, XC_FFT_SINGLE, &err), XC_EMISMATCH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "N = 8"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "N = 10"));
}

XC_TEST(test_missing_fft_named, "missing_fft_named")
{
    /* An odd-length .dat and its .inf, which fft refused: the searches'
     * reader names the missing .fft, not the .inf's odd N it would read
     * next. */
    char base[512], fft[600];
    xc_fx_tmp_path(base, sizeof base, "nofft7");
    snprintf(fft, sizeof fft, "%s.fft", base);
    write_series(base, 7, 7);
    xc_spectrum sp;
    xc_error err;
    xc_error_clear(&err);
    CU_ASSERT_EQUAL(xc_spectrum_load(&sp, fft, &err), XC_EIO);
    if (!strstr(err.msg, fft) || strstr(err.msg, ".inf"))
        printf("\n    message \"%s\": expected it to name %s and no .inf ", err.msg, fft);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, fft));
    CU_ASSERT_PTR_NULL(strstr(err.msg, ".inf"));
}

static int skip_no_bin(char *why, size_t n)
{
    if (xc_fx_exists(xc_fx_bin()))
        return skip_no_fixture(why, n);
    snprintf(why, n, "%s not built", xc_fx_bin());
    return 1;
}

static int sh(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

XC_TEST_IF(test_cli, "cli", skip_no_bin)
{
    char dat[512], out[512], cmd[2048];
    xc_fx_sigpyproc_path(dat, sizeof dat, FIXTURE ".dat");
    xc_fx_tmp_path(out, sizeof out, "cli_out");
    snprintf(cmd, sizeof cmd, "%s fft -i '%s' -o '%s' -precision double", xc_fx_bin(), dat, out);
    CU_ASSERT_EQUAL(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/cli_out.fft", xc_test_tmpdir());
    CU_ASSERT(xc_fx_exists(cmd));
    snprintf(cmd, sizeof cmd, "%s fft -i '%s' -o '%s' -precision quad 2>/dev/null", xc_fx_bin(), dat, out);
    CU_ASSERT_EQUAL(sh(cmd), 2);
    char odd[512];
    xc_fx_tmp_path(odd, sizeof odd, "odd7");
    write_series(odd, 7, 7);
    snprintf(cmd, sizeof cmd, "%s fft -i '%s.dat' -o '%s_x' 2>/dev/null", xc_fx_bin(), odd, odd);
    CU_ASSERT_EQUAL(sh(cmd), 2);
    snprintf(cmd, sizeof cmd, "%s fft -h >/dev/null", xc_fx_bin());
    CU_ASSERT_EQUAL(sh(cmd), 0);
}

XC_TEST_MAIN("fft")
