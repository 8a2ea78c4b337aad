/* test_accel.c: the matched-filter accel/jerk search (core/search/xc_accel.h):
 * templates against closed forms and quadrature, accelsearch's grid
 * constants, hand-computed planes, the reference against the cpu searcher,
 * and accelsearch's own outputs on J1807-0847 and a synthetic accelerated and
 * jerked pulsar (datasets/presto, datasets/sigpyproc3). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "compare/conform/xc_conform_accel.h"
#include "core/search/xc_accel.h"
#include "core/search/stats/xc_signif.h"
#include "optimized/cpu/xc_accel_cpu.h"
#include "reference/xc_accel_ref.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static void data_path(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s/%s", xc_test_datasets(), dir, name);
}

static int skip_no_data(char *why, size_t n)
{
    char p[512];
    struct stat sb;
    data_path(p, sizeof p, "presto", "synth_accel_jerk.fft");
    if (stat(p, &sb)) {
        snprintf(why, n, "%s not found", p);
        return 1;
    }
    data_path(p, sizeof p, "sigpyproc3", "GBT_J1807-0847.fft");
    if (stat(p, &sb)) {
        snprintf(why, n, "%s not found", p);
        return 1;
    }
    return 0;
}

/* ---- templates ---------------------------------------------------------- */

XC_TEST(test_fresnel_values, "fresnel_values")
{
    /* Abramowitz & Stegun Table 7.7 / DLMF 7.3: C and S at 1, 1.5, 2, 3 */
    static const double x[] = {1, 1.5, 2, 3, -2};
    static const double C[] = {0.7798934003768228, 0.4452611760398215, 0.4882534060753408, 0.6057207892976856,
                               -0.4882534060753408};
    static const double S[] = {0.4382591473903548, 0.6975049600820930, 0.3434156783636982, 0.4963129989673750,
                               -0.3434156783636982};
    for (int i = 0; i < 5; i++) {
        double c, s;
        xc_fresnel(x[i], &c, &s);
        XC_ASSERT_NEAR(c, C[i], 1e-14);
        XC_ASSERT_NEAR(s, S[i], 1e-14);
    }
    double c, s;
    xc_fresnel(40, &c, &s);   /* C, S -> 1/2 with 1/(pi x) wiggles */
    XC_ASSERT_NEAR(c, 0.5, 1.0 / (M_PI * 40) + 1e-15);
    XC_ASSERT_NEAR(s, 0.5, 1.0 / (M_PI * 40) + 1e-15);
}

XC_TEST(test_z0_is_fourier_kernel, "z0_is_fourier_kernel")
{
    /* z = 0: R(d) = e^{-i pi d} sin(pi d)/(pi d), the Fourier interpolation
     * kernel; R(0) = 1, R(1/2) = -2i/pi, R(integer != 0) = 0. */
    double R[2];
    xc_accel_resp_z(0, 0, R);
    XC_ASSERT_NEAR(R[0], 1, 0);
    XC_ASSERT_NEAR(R[1], 0, 0);
    xc_accel_resp_z(0.5, 0, R);
    XC_ASSERT_NEAR(R[0], 0, 1e-16);
    XC_ASSERT_NEAR(R[1], -2 / M_PI, 1e-16);
    int hw = 16;
    double *t = malloc((size_t)(4 * hw + 1) * 2 * sizeof *t);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_accel_template(0, 0, hw, t, &err), XC_OK);
    for (int j = -2 * hw; j <= 2 * hw; j++) {
        double d = 0.5 * j;
        double complex want = j == 0 ? 1 : cexp(-I * M_PI * d) * sin(M_PI * d) / (M_PI * d);
        XC_ASSERT_NEAR(t[2 * (j + 2 * hw)], creal(want), 1e-15);
        XC_ASSERT_NEAR(t[2 * (j + 2 * hw) + 1], cimag(want), 1e-15);
    }
    free(t);
}

XC_TEST(test_z_hand_value, "z_hand_value")
{
    /* z = 2, d = -1: a = -d - z/2 = 0, so R = int_0^1 e^{2 pi i u^2} du
     * = (C(2) + i S(2))/2 (substitute t = 2u). */
    double R[2];
    xc_accel_resp_z(-1, 2, R);
    XC_ASSERT_NEAR(R[0], 0.4882534060753408 / 2, 1e-14);
    XC_ASSERT_NEAR(R[1], 0.3434156783636982 / 2, 1e-14);
    /* z < 0 is the mirror: R(d; -z) = conj(R(-d; z)) */
    double Q[2];
    xc_accel_resp_z(1, -2, Q);
    XC_ASSERT_NEAR(Q[0], R[0], 1e-14);
    XC_ASSERT_NEAR(Q[1], -R[1], 1e-14);
}

/* Fresnel (w = 0) and the Euler-Maclaurin FFT (w != 0) against Gauss-Legendre
 * quadrature of the defining integral. */
XC_TEST(test_templates_vs_quadrature, "templates_vs_quadrature")
{
    static const double zw[][2] = {{2, 0}, {-40, 0}, {200, 0}, {0, 20}, {10, -60}, {-100, 300}, {140, 200}};
    double worst_z = 0, worst_w = 0;
    for (size_t k = 0; k < sizeof zw / sizeof *zw; k++) {
        int hw = xc_accel_w_halfwidth(zw[k][0], zw[k][1], XC_ACCEL_LOWACC);
        double *t = malloc((size_t)(4 * hw + 1) * 2 * sizeof *t);
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_accel_template(zw[k][0], zw[k][1], hw, t, &err), XC_OK);
        for (int j = -2 * hw; j <= 2 * hw; j += 3) {
            double q[2];
            xc_accel_resp_quad(0.5 * j, zw[k][0], zw[k][1], q);
            double e = hypot(t[2 * (j + 2 * hw)] - q[0], t[2 * (j + 2 * hw) + 1] - q[1]);
            if (zw[k][1] == 0)
                worst_z = fmax(worst_z, e);
            else
                worst_w = fmax(worst_w, e);
        }
        free(t);
    }
    XC_ASSERT_BELOW(worst_z, 1e-12);
    XC_ASSERT_BELOW(worst_w, 1e-10);
    printf("\n  templates vs quadrature: Fresnel %.2e, jerk %.2e (max |difference|)", worst_z, worst_w);
}

/* Parseval: sum over all integer d of |R(d)|^2 = int_0^1 |e^{i phi}|^2 = 1;
 * the tail beyond K falls as 1/(pi^2 (K - spread)). */
XC_TEST(test_energy, "energy")
{
    static const double zw[][2] = {{0, 0}, {30, 0}, {-80, 0}, {20, 100}};
    for (size_t k = 0; k < sizeof zw / sizeof *zw; k++) {
        int K = 1000;
        double *t = malloc((size_t)(4 * K + 1) * 2 * sizeof *t);
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_accel_template(zw[k][0], zw[k][1], K, t, &err), XC_OK);
        double e = 0;
        for (int j = -2 * K; j <= 2 * K; j += 2)
            e += t[2 * (j + 2 * K)] * t[2 * (j + 2 * K)] + t[2 * (j + 2 * K) + 1] * t[2 * (j + 2 * K) + 1];
        double spread = fabs(zw[k][0]) / 2 + fabs(zw[k][1]) / 4;
        XC_ASSERT_NEAR(e, 1, 2 / (M_PI * M_PI * (K - spread)));
        free(t);
    }
}

/* ---- grid constants (accelsearch's) ------------------------------------- */

XC_TEST(test_grid_constants, "grid_constants")
{
    CU_ASSERT_EQUAL(xc_accel_z_halfwidth(0, XC_ACCEL_LOWACC), 16);
    CU_ASSERT_EQUAL(xc_accel_z_halfwidth(200, XC_ACCEL_LOWACC), 126);   /* (int)(110) + 16 */
    CU_ASSERT_EQUAL(xc_accel_z_halfwidth(-200, XC_ACCEL_HIGHACC), 158);
    CU_ASSERT_EQUAL(xc_accel_w_halfwidth(200, 0, XC_ACCEL_LOWACC), 126);
    /* z = 0, w = 60: ends at +-5, extremum at u = 1/2: r = -2.5; 1.1*5 + 16 */
    CU_ASSERT_EQUAL(xc_accel_w_halfwidth(0, 60, XC_ACCEL_LOWACC), 21);
    CU_ASSERT_EQUAL(xc_accel_required_z(0.5, 50), 26);   /* NEAREST_INT(12.5) * 2 */
    CU_ASSERT_EQUAL(xc_accel_required_z(0.5, -50), -26);
    CU_ASSERT_EQUAL(xc_accel_required_w(0.25, 300), 80);  /* NEAREST_INT(3.75) * 20 */
    xc_accel_opts o;
    xc_accel_opts_default(&o);
    o.zmax = 199;   /* rounded up to 200 */
    o.numharm = 4;
    xc_accel_plan p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&p, &o, 1048576, 134.217728, &err), XC_OK);
    CU_ASSERT_EQUAL(p.zmax, 200);
    CU_ASSERT_EQUAL(p.numz, 201);
    CU_ASSERT_EQUAL(p.fftlen, 2048);   /* "201 kernels, -200 < z < 200 (2048 pt FFTs)" */
    CU_ASSERT_EQUAL(p.uselen, 1544);
    CU_ASSERT_EQUAL(p.rlo, 134);
    CU_ASSERT_EQUAL(p.rhi, 1048575);
    xc_accel_plan_free(&p);
    /* accelsearch's printed trials for that run (research notes, measured) */
    XC_ASSERT_NEAR(floor(xc_accel_ntrials(134, 1048575, 201, 1, 1)), 60945347, 0);
    XC_ASSERT_NEAR(floor(xc_accel_ntrials(134, 1048575, 201, 1, 2)), 30472673, 0);
    XC_ASSERT_NEAR(floor(xc_accel_ntrials(134, 1048575, 201, 1, 4)), 15236336, 0);
    o.zmax = 1300;
    CU_ASSERT_EQUAL(xc_accel_opts_check(&o, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-zmax"));
    o.zmax = 10;
    o.numharm = 3;
    CU_ASSERT_EQUAL(xc_accel_opts_check(&o, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-numharm"));
}

/* Default options but these, on 2 threads. */
static xc_accel_opts accel_opts(int zmax, int wmax, int numharm, int preset)
{
    xc_accel_opts o = xc_fx_accel_opts(zmax, wmax, numharm, 2);
    o.preset = preset;
    return o;
}

/* ---- hand-computed planes ----------------------------------------------- */

/* One nonzero bin A_k0 = 1: P(r, z) = |R(k0 - r; z)|^2 exactly, for every
 * searcher's plane stage. */
static void plane_delta(const xc_accel_searcher *s, double tol)
{
    xc_accel_opts o = accel_opts(4, 0, 1, XC_ACCEL_EXACT);
    xc_accel_plan p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&p, &o, 4096, 100, &err), XC_OK);
    void *state = NULL;
    CU_ASSERT_EQUAL_FATAL(s->create(s, &p, &state, &err), XC_OK);
    long k0 = 500, lo = 400;
    size_t n = 200, nr = 120;
    double *amp = calloc(2 * n, sizeof *amp);
    float *out = malloc((size_t)p.ntempl * nr * sizeof *out);
    amp[2 * (k0 - lo)] = 1;
    xc_accel_block b = {lo, n, amp, 2 * k0 - 60, nr, out, NULL};
    CU_ASSERT_EQUAL_FATAL(s->plane(s, state, &p, &b, &err), XC_OK);
    double worst = xc_fx_plane_delta_worst(&p, &b, k0);
    /* r = k0, z = 0: exactly 1; r = k0 + 1/2: 4/pi^2 */
    int t0 = p.numz / 2;
    XC_ASSERT_NEAR(out[(size_t)t0 * nr + 60], 1, tol);
    XC_ASSERT_NEAR(out[(size_t)t0 * nr + 61], 4 / (M_PI * M_PI), tol);
    XC_ASSERT_BELOW(worst, tol);
    s->destroy(s, state);
    xc_accel_plan_free(&p);
    free(amp);
    free(out);
}

XC_TEST(test_plane_delta_reference, "plane_delta_reference") { plane_delta(&xc_accel_reference, 1e-7); }
XC_TEST(test_plane_delta_cpu, "plane_delta_cpu") { plane_delta(&xc_accel_cpu, 2e-6); }

/* ---- reference vs cpu ----------------------------------------------------- */

/* Gaussian noise plus tones at given (r, z, amplitude): the conformance
 * suite's spectrum (compare/conform/xc_conform_accel.h). */
static void make_spectrum(xc_spectrum *sp, size_t nbins, unsigned long seed, const double (*tones)[3], int ntones)
{
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(sp, nbins, seed, tones, ntones, &err), XC_OK);
}

static void compare_lists(const xc_candlist *a, const xc_candlist *b, double rtol, double *worst)
{
    CU_ASSERT_EQUAL(a->n, b->n);
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        XC_ASSERT_NEAR(a->c[i].r, b->c[i].r, 0);
        XC_ASSERT_NEAR(a->c[i].z, b->c[i].z, 0);
        XC_ASSERT_NEAR(a->c[i].w, b->c[i].w, 0);
        CU_ASSERT_EQUAL(a->c[i].numharm, b->c[i].numharm);
        double dp = fabs(a->c[i].power - b->c[i].power) / b->c[i].power;
        double ds = fabs(a->c[i].sigma - b->c[i].sigma) / fmax(b->c[i].sigma, 1);
        XC_ASSERT_BELOW(dp, rtol);
        XC_ASSERT_BELOW(ds, rtol);
        *worst = fmax(*worst, fmax(dp, ds));
    }
}

XC_TEST(test_reference_vs_cpu, "reference_vs_cpu")
{
    static const double tones[][3] = {{700.3, 6, 60}, {1501.6, -14, 45}, {2333.0, 0, 25}};
    static const size_t sizes[] = {3001, 4099};
    static const int cfg[][3] = {{20, 0, 2}, {8, 40, 1}};   /* zmax, wmax, numharm */
    double worst = 0, rtol = xc_accel_cpu.impl.tol.value;
    for (int c = 0; c < 2; c++) {
        xc_spectrum sp;
        make_spectrum(&sp, sizes[c], 11 + (unsigned long)c, tones, 3);
        for (int preset = 0; preset < 2; preset++) {
            xc_accel_opts o;
            xc_accel_opts_default(&o);
            o.zmax = cfg[c][0];
            o.wmax = cfg[c][1];
            o.numharm = cfg[c][2];
            o.rlo = 20;
            o.sigma = 3;
            o.normwidth = 500;
            o.preset = preset ? XC_ACCEL_PRESTO : XC_ACCEL_EXACT;
            o.threads = 2;
            xc_candlist ref, cpu, cpu1;
            xc_fx_accel_or_fail(&xc_accel_reference, &sp, &o, &ref);
            xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &cpu);
            o.threads = 1;
            xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &cpu1);
            CU_ASSERT(ref.n >= 3);
            compare_lists(&cpu, &ref, rtol, &worst);
            /* preset exact: keeping the whole plane gives the same list */
            if (!preset && o.numharm > 1) {
                xc_candlist ooc;
                o.outofcore = -1;
                xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &ooc);
                o.outofcore = 0;
                /* the same values up to the cpu's float rounding (its overlap-save
                 * segments fall elsewhere in the sub-harmonic blocks) */
                double w2 = 0;
                compare_lists(&ooc, &cpu, 1e-5, &w2);
                xc_candlist_free(&ooc);
            }
            /* identical at 1 and 2 threads */
            CU_ASSERT_EQUAL(cpu.n, cpu1.n);
            CU_ASSERT(cpu.n == cpu1.n && !memcmp(cpu.c, cpu1.c, cpu.n * sizeof *cpu.c));
            /* the three tones are the top candidates, at their r and z */
            /* (with 2 harmonics a tone may stand as the second harmonic of
             * r/2, whose sum outranks it: accelsearch's eliminate_harmonics
             * then drops the fundamental) */
            for (int t = 0; t < 3; t++) {
                int found = fabs(tones[t][1]) > o.zmax;   /* outside the z range searched */
                for (size_t i = 0; i < ref.n && i < 3; i++)
                    for (int h = 1; h <= ref.c[i].numharm; h *= 2)
                        found |= fabs(ref.c[i].r * h - tones[t][0]) <= 0.5 * h &&
                                 fabs(ref.c[i].z * h - tones[t][1]) <= 2.0 * h;
                if (!found)
                    for (size_t i = 0; i < ref.n && i < 5; i++)
                        printf("\n  tone %g not in the top 3: #%zu r %.2f z %.1f h %d sigma %.2f", tones[t][0], i + 1,
                               ref.c[i].r, ref.c[i].z, ref.c[i].numharm, ref.c[i].sigma);
                CU_ASSERT(found);
            }
            xc_candlist_free(&ref);
            xc_candlist_free(&cpu);
            xc_candlist_free(&cpu1);
        }
        xc_spectrum_free(&sp);
    }
    printf("\n  cpu vs reference: largest relative power/sigma difference %.2e (tolerance %.0e)", worst, rtol);
}

/* preset presto in memory: the sub-harmonics read from a few of the plane's
 * blocks made again for them (the default) give the very candidates the
 * whole plane kept (outofcore -1) gives, bit for bit: 8 harmonics (every
 * window of the block grid, the blocks below the search included), eight
 * tones and a low sigma for more candidates. */
XC_TEST(test_presto_blocks_vs_plane, "presto_blocks_vs_plane")
{
    static const double tones[][3] = {{2345.25, 12, 9}, {7001.5, -30, 6}, {15003.75, 0, 5}, {4100.5, 20, 4},
                                      {9876.25, -8, 4}, {12001, 28, 3}, {17777.5, -22, 3}, {19000.25, 4, 3}};
    xc_spectrum sp;
    make_spectrum(&sp, 20011, 7, tones, 8);
    xc_accel_opts o;
    xc_accel_opts_default(&o);
    o.zmax = 30;
    o.numharm = 8;
    o.rlo = 20;
    o.sigma = 1;
    o.preset = XC_ACCEL_PRESTO;
    o.threads = 2;
    xc_candlist blocks, plane;
    xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &blocks);
    o.outofcore = -1;
    xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &plane);
    printf("\n  %zu and %zu candidates (tolerance: none, bit for bit)", blocks.n, plane.n);
    CU_ASSERT(plane.n >= 5);
    CU_ASSERT_EQUAL(blocks.n, plane.n);
    CU_ASSERT(blocks.n == plane.n && !memcmp(blocks.c, plane.c, plane.n * sizeof *plane.c));
    xc_candlist_free(&blocks);
    xc_candlist_free(&plane);
    xc_spectrum_free(&sp);
}

/* ---- noise statistics ------------------------------------------------------ */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Kolmogorov-Smirnov distance of x[0..n-1] (sorted in place) from Exp(1). */
static double ks_exp(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_d);
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        double F = 1 - exp(-x[i]);
        d = fmax(d, fmax(fabs(F - (double)i / n), fabs((double)(i + 1) / n - F)));
    }
    return d;
}

/* Pure Gaussian noise, normalised (preset exact's median/ln 2 blocks): the
 * plane's P at any (r, z) is |a complex Gaussian|^2, exponential with mean
 * sum |R(k - r)|^2 over the template (1 at integer r for z = 0, where R is a
 * delta).  KS on independent points (z = 0: every integer r; z = 20, w = 0
 * and z = 0, w = 60: one r every 2 hw + 2 bins, disjoint templates) against
 * Exp(1) after dividing by that mean, at the 0.1 % level
 * (sqrt(n) D < 1.949), for both searchers. */
static void noise_stats(const xc_accel_searcher *s)
{
    xc_spectrum sp;
    make_spectrum(&sp, 1 << 17, 4242, NULL, 0);
    double *sc = malloc(sp.nbins * sizeof *sc), *amp = malloc(2 * sp.nbins * sizeof *amp);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_accel_norm_scales(sp.data, sp.nbins, 8192, sc, &err), XC_OK);
    for (size_t k = 0; k < sp.nbins; k++) {
        amp[2 * k] = sp.data[2 * k] * sc[k];
        amp[2 * k + 1] = sp.data[2 * k + 1] * sc[k];
    }
    static const int zw[][2] = {{0, 0}, {20, 0}, {0, 60}};
    for (int c = 0; c < 3; c++) {
        xc_accel_opts o = xc_fx_accel_opts(zw[c][0], zw[c][1], 1, 2);
        xc_accel_plan p;
        CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&p, &o, sp.nbins, sp.T, &err), XC_OK);
        int t = p.ntempl - 1;   /* z = +zmax, w = +wmax */
        int hw = p.hw[t];
        void *state = NULL;
        CU_ASSERT_EQUAL_FATAL(s->create(s, &p, &state, &err), XC_OK);
        long i0 = 2 * (hw + 2);
        size_t nr = 2 * (sp.nbins - 2 * (size_t)hw - 8);
        float *out = malloc((size_t)p.ntempl * nr * sizeof *out);
        xc_accel_block b = {0, sp.nbins, amp, i0, nr, out, NULL};
        CU_ASSERT_EQUAL_FATAL(s->plane(s, state, &p, &b, &err), XC_OK);
        double *R = malloc((size_t)(4 * hw + 1) * 2 * sizeof *R), mean = 0;
        CU_ASSERT_EQUAL_FATAL(xc_accel_template(zw[c][0], zw[c][1], hw, R, &err), XC_OK);
        for (int j = -2 * hw; j <= 2 * hw; j += 2)   /* integer r: integer offsets d */
            mean += R[2 * (j + 2 * hw)] * R[2 * (j + 2 * hw)] + R[2 * (j + 2 * hw) + 1] * R[2 * (j + 2 * hw) + 1];
        size_t step = c == 0 ? 2 : (size_t)(4 * hw + 4), n = 0;
        double *x = malloc((nr / step + 1) * sizeof *x);
        for (size_t j = 0; j < nr; j += step)   /* j even: integer r */
            x[n++] = out[(size_t)t * nr + j] / mean;
        double xm = 0;
        for (size_t k = 0; k < n; k++)
            xm += x[k] / (double)n;
        double D = ks_exp(x, n), lam = sqrt((double)n) * D;
        printf("\n  %s z %d w %d: %zu points, mean P/sum|R|^2 %.4f (sum|R|^2 = %.4f), KS sqrt(n) D %.3f", s->impl.name,
               zw[c][0], zw[c][1], n, xm, mean, lam);
        XC_ASSERT_BELOW(lam, 1.949);
        s->destroy(s, state);
        xc_accel_plan_free(&p);
        free(out);
        free(R);
        free(x);
    }
    free(sc);
    free(amp);
    xc_spectrum_free(&sp);
}

XC_TEST(test_noise_statistics_cpu, "noise_statistics_cpu") { noise_stats(&xc_accel_cpu); }
XC_TEST(test_noise_statistics_reference, "noise_statistics_reference") { noise_stats(&xc_accel_reference); }

/* ---- accelsearch's outputs ------------------------------------------------ */

/* Every candidate of PRESTO's list with sigma > smin is in ours with r
 * within 0.5 bin, z within 2, w within 20 and sigma within 0.2 (and the
 * reverse for ours). */
static void against_presto(const xc_candlist *ours, const char *fixture, double smin, size_t maxn, double rmin)
{
    char p[512];
    data_path(p, sizeof p, "presto", fixture);
    xc_candlist pr;
    xc_candlist_init(&pr);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_cands_read_accel(&pr, p, &err), XC_OK);
    size_t bad = 0, checked = 0;
    double wr = 0, ws = 0;
    for (int dir = 0; dir < 2; dir++) {
        const xc_candlist *a = dir ? ours : &pr, *b = dir ? &pr : ours;
        for (size_t i = 0; i < a->n && i < maxn; i++) {
            if (!(a->c[i].sigma > smin) || a->c[i].r < rmin)
                continue;
            checked++;
            int ok = 0;
            for (size_t j = 0; j < b->n && !ok; j++)
                if (fabs(a->c[i].r - b->c[j].r) <= 0.5 && fabs(a->c[i].z - b->c[j].z) <= 2 &&
                    fabs(a->c[i].w - b->c[j].w) <= 20 && a->c[i].numharm == b->c[j].numharm) {
                    /* accelsearch prints sigma as %.2f cut to 5 characters: from 1000 up
                     * the decimals are lost ("10076" for 10076.49) */
                    ok = fabs(a->c[i].sigma - b->c[j].sigma) <= 0.2 + (fmax(a->c[i].sigma, b->c[j].sigma) >= 1000);
                    wr = fmax(wr, fabs(a->c[i].r - b->c[j].r));
                    ws = fmax(ws, fabs(a->c[i].sigma - b->c[j].sigma));
                }
            if (!ok) {
                bad++;
                printf("\n  %s: %s candidate r %.2f z %.1f w %.0f sigma %.2f has no match", fixture,
                       dir ? "our" : "PRESTO's", a->c[i].r, a->c[i].z, a->c[i].w, a->c[i].sigma);
            }
        }
    }
    printf("\n  %s: %zu candidates checked, worst |dr| %.2f, |dsigma| %.3f", fixture, checked, wr, ws);
    CU_ASSERT(checked > 0);
    CU_ASSERT_EQUAL(bad, 0);
    xc_candlist_free(&pr);
}

static void load(xc_spectrum *sp, const char *dir, const char *name)
{
    char p[512];
    data_path(p, sizeof p, dir, name);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_spectrum_load(sp, p, &err), XC_OK);
}


/* Searches sp with accelsearch's settings (preset presto); asserts candidate k at r (0.5 bin) with sigma
 * (0.2; NAN: not checked) and the list against accelsearch's fixture (from
 * r >= rmin); the list stays in l. */
static void presto_case(const xc_spectrum *sp, int zmax, int wmax, int numharm, size_t k, double r, double sigma,
                        const char *fixture, double rmin, xc_candlist *l)
{
    xc_accel_opts o = accel_opts(zmax, wmax, numharm, XC_ACCEL_PRESTO);
    xc_fx_accel_or_fail(&xc_accel_cpu, sp, &o, l);
    CU_ASSERT_FATAL(l->n > k);
    XC_ASSERT_NEAR(l->c[k].r, r, 0.5);
    if (!isnan(sigma))
        XC_ASSERT_NEAR(l->c[k].sigma, sigma, 0.2);
    against_presto(l, fixture, 2.0, 1000, rmin);
}

XC_TEST_IF(test_j1807, "j1807", skip_no_data)
{
    xc_spectrum sp;
    load(&sp, "sigpyproc3", "GBT_J1807-0847.fft");
    xc_accel_opts o = xc_fx_accel_opts(0, 0, 1, 2);
    xc_candlist l;
    xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &l);   /* preset exact: our normalisation */
    CU_ASSERT_FATAL(l.n > 0);
    XC_ASSERT_NEAR(l.c[0].r, 131, 0.5);
    xc_candlist_free(&l);
    presto_case(&sp, 0, 0, 1, 0, 131, 53.29, "GBT_J1807-0847_ACCEL_0", 0, &l);
    XC_ASSERT_NEAR(0.5 * l.c[0].power, 1435.8, 1.5);
    xc_candlist_free(&l);
    /* zmax 50, 4 harmonics: the pulsar is PRESTO's candidate 2 (1 is red noise) */
    presto_case(&sp, 50, 0, 4, 1, 131.13, 104.1, "GBT_J1807-0847_ACCEL_50", 0, &l);
    xc_candlist_free(&l);
    /* jerk search, 2 harmonics: accelsearch's out-of-core path (each
     * sub-harmonic block normalised on its own window).  Its candidate 1 is
     * red noise at fundamental r = 10.5 whose top harmonic sits on the
     * -flo edge (r = 21), where the sub-harmonic windows reach below bin 0:
     * 2264 sigma here, 2296 there; left out (r < 21). */
    presto_case(&sp, 20, 60, 2, 1, 131.25, 72.30, "GBT_J1807-0847_ACCEL_20_JERK_60", 21, &l);
    xc_candlist_free(&l);
    xc_spectrum_free(&sp);
}

XC_TEST_IF(test_synth_accel, "synth_accel", skip_no_data)
{
    xc_spectrum sp;
    load(&sp, "presto", "synth_accel_jerk.fft");
    xc_candlist l;
    /* truth A (make_synthetic.py): mean r = 20000 + 80/2 = 20040, z = 80 */
    presto_case(&sp, 200, 0, 1, 0, 20040, NAN, "synth_accel_jerk_ACCEL_200", 0, &l);
    XC_ASSERT_NEAR(l.c[0].z, 80, 2);
    xc_candlist_free(&l);
    xc_spectrum_free(&sp);
}

/* The jerked pulsar B (truth: mean r = 50000 + 40/2 + 200/6 = 50053.33,
 * z = 40 + 200/2 = 140, w = 200), searched in a few of accelsearch's blocks
 * around it (the same blocks, so the same normalisation windows; the
 * template bank is the full one), sigma taken to the full range's trials. */
XC_TEST_IF(test_synth_jerk, "synth_jerk", skip_no_data)
{
    xc_spectrum sp;
    load(&sp, "presto", "synth_accel_jerk.fft");
    xc_accel_opts o = accel_opts(200, 300, 1, XC_ACCEL_PRESTO);
    xc_accel_plan p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&p, &o, sp.nbins, sp.T, &err), XC_OK);
    long half = p.uselen / 2, rlo0 = p.rlo;
    double ntr_full = p.ntrials[0];
    long k = (50053 - 200 - rlo0) / half;
    o.rlo = (double)(rlo0 + k * half);
    o.rhi = o.rlo + 3.0 * (double)half + 1;
    xc_accel_plan_free(&p);
    xc_candlist l;
    xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &l);
    CU_ASSERT_FATAL(l.n > 0);
    for (size_t i = 0; i < l.n; i++)
        l.c[i].sigma = xc_candidate_sigma(l.c[i].power, l.c[i].dof, ntr_full, NULL);
    XC_ASSERT_NEAR(l.c[0].r, 50053.33, 0.5);
    XC_ASSERT_NEAR(l.c[0].z, 140, 2);
    XC_ASSERT_NEAR(l.c[0].w, 200, 20);
    /* PRESTO's candidate 1 of the zmax 200, wmax 300 run: r 50053.50, z 140,
     * w 200, sigma 17.91 */
    XC_ASSERT_NEAR(l.c[0].sigma, 17.91, 0.2);
    char path[512];
    data_path(path, sizeof path, "presto", "synth_accel_jerk_ACCEL_200_JERK_300");
    xc_candlist pr;
    xc_candlist_init(&pr);
    CU_ASSERT_EQUAL_FATAL(xc_cands_read_accel(&pr, path, &err), XC_OK);
    CU_ASSERT_FATAL(pr.n > 0);
    XC_ASSERT_NEAR(l.c[0].r, pr.c[0].r, 0.5);
    XC_ASSERT_NEAR(l.c[0].z, pr.c[0].z, 2);
    XC_ASSERT_NEAR(l.c[0].w, pr.c[0].w, 20);
    XC_ASSERT_NEAR(l.c[0].sigma, pr.c[0].sigma, 0.2);
    xc_candlist_free(&pr);
    xc_candlist_free(&l);
    xc_spectrum_free(&sp);
}

/* Files: the CSV with w and the _ACCEL_ table read back. */
XC_TEST_IF(test_outputs_read_back, "outputs_read_back", skip_no_data)
{
    xc_candlist l;
    xc_candlist_init(&l);
    xc_cand c;
    memset(&c, 0, sizeof c);
    c.r = 50053.5;
    c.z = 140;
    c.w = 200;
    c.numharm = 1;
    c.power = 365.6;
    c.dof = 2;
    c.sigma = 17.9;
    c.ntrials = 1e9;
    xc_cand_derive(&c, 16.777216);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&l, &c, &err), XC_OK);
    l.T = 16.777216;
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/x_ACCEL_200_JERK_300.csv", xc_test_tmpdir());
    snprintf(p2, sizeof p2, "%s/x_ACCEL_200_JERK_300", xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(xc_cands_write_csv_w(&l, p1, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_accel_write_presto(&l, 1, NULL, p2, &err), XC_OK);
    for (int k = 0; k < 2; k++) {
        xc_candlist b;
        xc_candlist_init(&b);
        CU_ASSERT_EQUAL_FATAL(xc_cands_read(&b, k ? p2 : p1, 16.777216, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(b.n, 1);
        XC_ASSERT_NEAR(b.c[0].r, 50053.5, 1e-9);
        XC_ASSERT_NEAR(b.c[0].z, 140, 1e-9);
        XC_ASSERT_NEAR(b.c[0].w, 200, 1e-9);
        XC_ASSERT_NEAR(b.c[0].sigma, 17.9, 1e-9);
        XC_ASSERT_NEAR(b.c[0].power, 365.6, k ? 0.01 : 1e-12);
        xc_candlist_free(&b);
    }
    /* PRESTO's own jerk table, its truncated "0.0(2.0)x1" w field included */
    char p3[512];
    data_path(p3, sizeof p3, "presto", "synth_accel_jerk_ACCEL_200_JERK_300");
    xc_candlist pr;
    xc_candlist_init(&pr);
    CU_ASSERT_EQUAL_FATAL(xc_cands_read(&pr, p3, 0, &err), XC_OK);
    CU_ASSERT_EQUAL(pr.n, 8);
    XC_ASSERT_NEAR(pr.c[0].w, 200, 0);
    XC_ASSERT_NEAR(pr.c[1].w, 0, 0);
    XC_ASSERT_NEAR(pr.c[4].w, -160, 0);
    xc_candlist_free(&pr);
    xc_candlist_free(&l);
}

/* ---- the command ------------------------------------------------------------ */

/* Runs `crosscheck ARGS`, stderr into errbuf; returns the exit code. */
static int cli(const char *args, char *errbuf, size_t n) { return xc_fx_run_cli_err(args, errbuf, n); }

XC_TEST_IF(test_command, "command", skip_no_data)
{
    char e[2048], args[2048], fft[512], out[600];
    data_path(fft, sizeof fft, "sigpyproc3", "GBT_J1807-0847.fft");
    const char *tmp = xc_test_tmpdir();
    /* CSV: header with w, the pulsar first */
    snprintf(out, sizeof out, "%s/j.csv", tmp);
    snprintf(args, sizeof args, "accel -i '%s' -impl cpu -zmax 0 -numharm 1 -o '%s' -quiet", fft, out);
    CU_ASSERT_EQUAL(cli(args, e, sizeof e), 0);
    FILE *fp = fopen(out, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char line[512] = "";
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, fp));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "r,f_hz,z,w,width,numharm,power,dof,logp,sigma"));
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, fp));
    XC_ASSERT_NEAR(atof(line), 131, 0.5);
    fclose(fp);
    /* -format accel -o ROOT: ROOT_ACCEL_0 (and _JERK_ with -wmax), PRESTO's table */
    snprintf(out, sizeof out, "%s/jr", tmp);
    snprintf(args, sizeof args, "accel -i '%s' -zmax 1 -numharm 1 -format accel -o '%s' -quiet -preset presto", fft,
             out);
    CU_ASSERT_EQUAL(cli(args, e, sizeof e), 0);
    snprintf(out, sizeof out, "%s/jr_ACCEL_2", tmp);   /* zmax rounded up to even, as accelsearch */
    xc_candlist l;
    xc_candlist_init(&l);
    xc_error err;
    CU_ASSERT_EQUAL(xc_cands_read(&l, out, 0, &err), XC_OK);
    CU_ASSERT(l.n > 0 && fabs(l.c[0].r - 131) <= 0.5);
    XC_ASSERT_NEAR(l.T, 21.474836, 1e-5);   /* from the .inf appended, as accelsearch does */
    xc_candlist_free(&l);
    /* bad input: exit 2, a message naming the file or option and value, nothing written */
    snprintf(out, sizeof out, "%s/none.csv", tmp);
    snprintf(args, sizeof args, "accel -i '%s/missing.fft' -zmax 0 -numharm 1 -o '%s'", tmp, out);
    CU_ASSERT_EQUAL(cli(args, e, sizeof e), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "missing.fft"));
    snprintf(args, sizeof args, "accel -i '%s' -zmax 0 -numharm 3 -o '%s'", fft, out);
    CU_ASSERT_EQUAL(cli(args, e, sizeof e), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "-numharm: 3"));
    snprintf(args, sizeof args, "accel -i '%s' -zmax 0 -numharm 1 -sigma x -o '%s'", fft, out);
    CU_ASSERT_EQUAL(cli(args, e, sizeof e), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(e, "'x'"));
    snprintf(args, sizeof args, "accel -i '%s' -zmax 0 -numharm 1 -flo 20000 -o '%s'", fft, out);
    CU_ASSERT_EQUAL(cli(args, e, sizeof e), 2);
    struct stat sb;
    CU_ASSERT_NOT_EQUAL(stat(out, &sb), 0);
    CU_ASSERT_EQUAL(cli("accel -h", e, sizeof e), 0);
}

/* accelsearch's normalisation (PRESTO src/accel_utils.c: norm = 1 /
 * sqrt(median(power) / ln 2), so that noise powers, exponential with
 * median ln 2 times their mean, come out of mean 1) against its closed
 * form: a spectrum whose every bin of block b has power 6.25 (b + 1)^2 has
 * block medians 6.25 (b + 1)^2, and every normalised power is ln 2 (to
 * 1e-12 relative; a constant off by 0.45 %, as 0.69 for ln 2, fails by
 * 4500 times that).  The same for the window accelsearch takes around a
 * candidate. */
XC_TEST(test_norm_closed_form, "norm_closed_form")
{
    const size_t nbins = 3001, normwidth = 500;
    float *X = malloc(2 * nbins * sizeof *X);
    double *s = malloc(nbins * sizeof *s), buf[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(X);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    for (size_t k = 0; k < nbins; k++) {
        size_t b = k ? (k - 1) / normwidth : 0;
        if (b >= 6)
            b = 5;   /* the remainder joins the last block */
        X[2 * k] = 1.5f * (float)(b + 1);
        X[2 * k + 1] = -2.0f * (float)(b + 1);
    }
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_accel_norm_scales(X, nbins, normwidth, s, &err), XC_OK);
    double worst = 0;
    for (size_t k = 1; k < nbins; k++) {
        double p = ((double)X[2 * k] * X[2 * k] + (double)X[2 * k + 1] * X[2 * k + 1]) * s[k] * s[k];
        worst = fmax(worst, fabs(p / M_LN2 - 1));
    }
    printf("\n  normalised powers vs ln 2: largest relative difference %.3g (tolerance 1e-12)", worst);
    CU_ASSERT(worst <= 1e-12);
    double w = xc_accel_norm_window(X, nbins, 10, 40, buf);
    XC_ASSERT_CLOSE(6.25 * w * w, M_LN2, 1e-12);
    free(X);
    free(s);
}

XC_TEST_MAIN("accel")
