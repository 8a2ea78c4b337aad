/* test_gpu_accel.c: the CUDA matched-filter accel/jerk searcher
 * (optimized/gpu/accel_gpu.cu, core/search/xc_accel.h's plane stage): a single
 * nonzero bin's plane against |R|^2, its candidate lists against the CPU
 * searcher's on noisy spectra with tones (zmax 0/20, wmax 0/40, 1 and 2
 * harmonics, sizes of no convenient factors), the sub-harmonic blocks'
 * `want` rows, J1807-0847's pulsar at r = 131, repeated runs identical, a
 * zmax x numharm sweep as one search against separate ones, and
 * an error for a plane that cannot fit.  Every case is skipped (not passed)
 * without a usable CUDA device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare/conform/xc_conform_accel.h"
#include "core/search/xc_accel.h"
#include "optimized/cpu/xc_accel_cpu.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"
#ifdef XC_HAVE_CUDA
#include "optimized/gpu/accel_gpu.h"
#include "optimized/gpu/xc_gpu.h"
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The searcher; a stand-in that fails in a build without CUDA (whose cases
 * are all skipped), so that every case compiles in both builds. */
#ifdef XC_HAVE_CUDA
static const xc_accel_searcher *gpu(void) { return &xc_accel_gpu; }
#else
static xc_status no_create(const xc_accel_searcher *self, const xc_accel_plan *p, void **state, xc_error *err)
{
    (void)self, (void)p, (void)state;
    return xc_error_set(err, XC_EDEVICE, "built without CUDA");
}
static xc_status no_plane(const xc_accel_searcher *self, void *state, const xc_accel_plan *p, const xc_accel_block *b,
                         xc_error *err)
{
    (void)self, (void)state, (void)p, (void)b;
    return xc_error_set(err, XC_EDEVICE, "built without CUDA");
}
static void no_destroy(const xc_accel_searcher *self, void *state) { (void)self, (void)state; }
static const xc_accel_searcher no_gpu = {
    .impl = {.family = XC_FAMILY_ACCEL, .name = "gpu", .tol = {XC_TOL_RELATIVE, 2e-3}, .caps = XC_CAP_DEVICE,
             .desc = "built without CUDA"},
    .create = no_create, .plane = no_plane, .destroy = no_destroy};
static const xc_accel_searcher *gpu(void) { return &no_gpu; }
#endif

/* Same r, z, w, numharm, in the same order; power and sigma within rtol. */
static int lists_agree(const xc_candlist *a, const xc_candlist *b, double rtol, double *worst)
{
    int ok = a->n == b->n;
    if (!ok)
        printf("\n  %zu against %zu candidates", a->n, b->n);
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        int same = a->c[i].r == b->c[i].r && a->c[i].z == b->c[i].z && a->c[i].w == b->c[i].w &&
                   a->c[i].numharm == b->c[i].numharm;
        double dp = fabs(a->c[i].power - b->c[i].power) / b->c[i].power;
        double ds = fabs(a->c[i].sigma - b->c[i].sigma) / fmax(b->c[i].sigma, 1);
        if (!same || dp > rtol || ds > rtol) {
            if (ok)
                printf("\n  #%zu: gpu r %.1f z %g w %g h %d P %.6g sigma %.4f / cpu r %.1f z %g w %g h %d P %.6g "
                       "sigma %.4f",
                       i, a->c[i].r, a->c[i].z, a->c[i].w, a->c[i].numharm, a->c[i].power, a->c[i].sigma, b->c[i].r,
                       b->c[i].z, b->c[i].w, b->c[i].numharm, b->c[i].power, b->c[i].sigma);
            ok = 0;
        }
        *worst = fmax(*worst, fmax(dp, ds));
    }
    return ok;
}

/* ---- the plane of one nonzero bin ---------------------------------------- */

/* A_k0 = 1: P(r, z) = |R(k0 - r; z)|^2 within the template's half-width, 0
 * beyond; a block longer than one segment (several segments and a partial
 * last one), z up to 20.  Then the same block with only some rows wanted:
 * those rows the same, the others untouched. */
XC_TEST_IF(test_gpu_accel_plane_delta, "gpu_accel_plane_delta", xc_fx_skip_gpu)
{
    xc_accel_opts o = xc_fx_accel_opts(20, 0, 1, 2);
    xc_accel_plan p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&p, &o, 16384, 100, &err), XC_OK);
    void *state = NULL;
    CU_ASSERT_EQUAL_FATAL(gpu()->create(gpu(), &p, &state, &err), XC_OK);
    long k0 = 3000, lo = 1000;
    size_t n = 4001, nr = 5003;   /* half-bins 2 k0 - 2501 .. 2 k0 + 2501 */
    double *amp = calloc(2 * n, sizeof *amp);
    float *out = calloc((size_t)p.ntempl * nr, sizeof *out), *out2 = calloc((size_t)p.ntempl * nr, sizeof *out2);
    unsigned char *want = calloc((size_t)p.ntempl, 1);
    CU_ASSERT_FATAL(amp && out && out2 && want);
    amp[2 * (k0 - lo)] = 1;
    xc_accel_block b = {lo, n, amp, 2 * k0 - 2501, nr, out, NULL};
    xc_status st = gpu()->plane(gpu(), state, &p, &b, &err);
    if (st)
        printf("\n  %s", err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    double worst = xc_fx_plane_delta_worst(&p, &b, k0);
    int t0 = p.numz / 2;   /* z = 0: r = k0 exactly 1, r = k0 + 1/2 4/pi^2 */
    XC_ASSERT_NEAR(out[(size_t)t0 * nr + 2501], 1, 3e-6);
    XC_ASSERT_NEAR(out[(size_t)t0 * nr + 2502], 4 / (M_PI * M_PI), 3e-6);
    printf("\n  largest |P - |R|^2| %.2e over %d templates x %zu half-bins", worst, p.ntempl, nr);
    /* the CPU searcher's bound (2e-6, test_accel) with room for cuFFT's
     * float rounding, ~1e-7 log2 L of the segment's power (here 1) */
    XC_ASSERT_BELOW(worst, 3e-6);
    /* rows 0, 3, 4, 5 and the last wanted: the same values; the others kept */
    for (size_t k = 0; k < (size_t)p.ntempl * nr; k++)
        out2[k] = -1.0f;
    want[0] = want[3] = want[4] = want[5] = want[p.ntempl - 1] = 1;
    xc_accel_block b2 = {lo, n, amp, 2 * k0 - 2501, nr, out2, want};
    CU_ASSERT_EQUAL_FATAL(gpu()->plane(gpu(), state, &p, &b2, &err), XC_OK);
    int bad = 0;
    for (int t = 0; t < p.ntempl; t++)
        for (size_t j = 0; j < nr; j++) {
            float v = out2[(size_t)t * nr + j];
            /* wanted rows: the same values up to the rounding of cuFFT's
             * kernels for another batch size */
            bad += want[t] ? fabsf(v - out[(size_t)t * nr + j]) > 1e-6f : v != -1.0f;
        }
    CU_ASSERT_EQUAL(bad, 0);
    gpu()->destroy(gpu(), state);
    xc_accel_plan_free(&p);
    free(amp);
    free(out);
    free(out2);
    free(want);
}

/* ---- the one-pass plane against cuFFT's ------------------------------------- */

/* The plane of a block of three and a bit segments from noise with strong
 * bins, zmax 20, 100, 300 and 1200 (segments of 2^11..2^14 points: every
 * length the one-pass kernel takes; at 1200 every 16th template wanted, so
 * the template list is exercised), made in one pass and by the cuFFT path
 * (the state's choice, xc_accel_gpu_onepass): every point within 1e-5 of
 * the plane's largest power, rms difference within 2e-6 of its rms.  Both
 * are float FFTs of the same products, each within ~1e-6 of the segment's
 * rms amplitude at a point (tests/test_accel_gpu_fft.c bounds ours), and
 * |dP| ~ 2 |X| |dX|: an index or twiddle wrong would differ by O(1). */
XC_TEST_IF(test_gpu_accel_onepass, "gpu_accel_onepass", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    static const int zmaxes[] = {20, 100, 300, 1200};
    const size_t nbins = 1 << 17;
    double *amp = malloc(2 * nbins * sizeof *amp);
    CU_ASSERT_FATAL(amp != NULL);
    uint64_t x = 12345;
    for (size_t k = 0; k < 2 * nbins; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        amp[k] = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * (k % 4099 == 7 ? 300 : 1);
    }
    for (int c = 0; c < 4; c++) {
        xc_accel_opts o = xc_fx_accel_opts(zmaxes[c], 0, 1, 2);
        xc_accel_plan p;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&p, &o, nbins, 100, &err), XC_OK);
        void *state = NULL;
        CU_ASSERT_EQUAL_FATAL(gpu()->create(gpu(), &p, &state, &err), XC_OK);
        int L = 2048;
        while (L < 16 * p.hwmax)
            L *= 2;
        const size_t nr = (size_t)(3 * (L - 4 * p.hwmax) + 777), tot = (size_t)p.ntempl * nr;
        float *one = calloc(tot, sizeof *one), *ref = calloc(tot, sizeof *ref);
        unsigned char *want = calloc((size_t)p.ntempl, 1);
        CU_ASSERT_FATAL(one && ref && want);
        for (int t = 0; t < p.ntempl; t++)
            want[t] = zmaxes[c] < 1200 || t % 16 == 3;
        xc_accel_block b = {0, nbins, amp, 4001, nr, one, want};
        CU_ASSERT_EQUAL(xc_accel_gpu_onepass(state, 1), 1);
        xc_status st = gpu()->plane(gpu(), state, &p, &b, &err);
        CU_ASSERT_EQUAL(xc_accel_gpu_onepass(state, 0), 0);
        b.out = ref;
        if (!st)
            st = gpu()->plane(gpu(), state, &p, &b, &err);
        if (st)
            printf("\n  %s", err.msg);
        CU_ASSERT_EQUAL_FATAL(st, XC_OK);
        double pmax = 0, d2 = 0, p2 = 0, dmax = 0;
        for (size_t k = 0; k < tot; k++) {
            double d = fabs((double)one[k] - ref[k]);
            pmax = fmax(pmax, ref[k]);
            dmax = fmax(dmax, d);
            d2 += d * d;
            p2 += (double)ref[k] * ref[k];
        }
        printf("\n  zmax %d, L %d, %d templates x %zu half-bins: one pass vs cuFFT largest difference %.3g, rms %.3g "
               "(of the largest power, of the rms)",
               zmaxes[c], L, p.ntempl, nr, dmax / pmax, sqrt(d2 / p2));
        XC_ASSERT_BELOW(dmax / pmax, 1e-5);
        XC_ASSERT_BELOW(sqrt(d2 / p2), 2e-6);
        CU_ASSERT(pmax > 0);
        gpu()->destroy(gpu(), state);
        xc_accel_plan_free(&p);
        free(one);
        free(ref);
        free(want);
    }
    free(amp);
#endif
}

/* ---- gpu against cpu --------------------------------------------------------- */

/* Tones of awkward sizes (amplitudes 20..60, r off the grid, z odd and even)
 * on spectra of prime-ish lengths; both presets; every configuration of
 * zmax 0/20 x wmax 0/40 x numharm 1/2 (wmax 40 with zmax 20), and numharm
 * 4 and 8; with preset exact every other configuration's device search
 * runs in blocks of one segment (opts devblock), so block edges are
 * crossed.  The lists must agree within the gpu's declared tolerance, the
 * tones be found. */
XC_TEST_IF(test_gpu_accel_vs_cpu, "gpu_accel_vs_cpu", xc_fx_skip_gpu)
{
    static const double tones[][3] = {{701.3, 6, 60}, {1511.65, -13, 45}, {2333.0, 0, 25}, {3997.4, 17, 20}};
    static const size_t sizes[] = {4099, 5003, 6007};
    static const int cfg[][3] = {{0, 0, 1}, {0, 0, 2}, {20, 0, 1}, {20, 0, 2}, {20, 40, 1}, {20, 40, 2},
                                 {20, 0, 4}, {0, 0, 8}, {20, 40, 4}};
    double worst = 0, rtol = gpu()->impl.tol.value;
    int failed = 0;
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
        xc_spectrum sp;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(
            xc_conform_tone_spectrum(&sp, sizes[c % 3], 101 + (uint64_t)c, tones, 4, &err), XC_OK);
        for (int preset = 0; preset < 2; preset++) {
            xc_accel_opts o = xc_fx_accel_opts(cfg[c][0], cfg[c][1], cfg[c][2], 2);
            o.rlo = 20;
            o.sigma = 3;
            o.normwidth = 500;
            o.preset = preset ? XC_ACCEL_PRESTO : XC_ACCEL_EXACT;
            o.devblock = c % 2 ? 1 : 0;
            xc_candlist g, cl;
            xc_fx_accel_or_fail(gpu(), &sp, &o, &g);
            xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &cl);
            int ok = lists_agree(&g, &cl, rtol, &worst);
            if (!ok) {
                printf("\n  differ: nbins %zu zmax %d wmax %d numharm %d preset %s", sp.nbins, o.zmax, o.wmax,
                       o.numharm, preset ? "presto" : "exact");
                failed++;
            }
            CU_ASSERT(cl.n >= 3);
            /* the strongest tone is among the top candidates (or a harmonic
             * sum with it): r within one bin of its mean r, or, where the
             * z grid does not reach the tone's drift, anywhere on the
             * r_mean +- z/2 it sweeps (plus half a bin); z within one step
             * where the grid reaches it */
            const double z0 = fabs(tones[0][1]), dr = z0 > o.zmax ? z0 / 2 + 0.5 : 1.0;
            int found = 0;
            for (size_t i = 0; i < g.n && i < 4; i++)
                for (int h = 1; h <= g.c[i].numharm; h++)
                    found |= fabs(g.c[i].r * h - tones[0][0]) <= dr * h &&
                             (z0 > o.zmax || fabs(g.c[i].z * h - tones[0][1]) <= 2.0 * h);
            CU_ASSERT(found);
            if (!found)
                for (size_t i = 0; i < g.n && i < 4; i++)
                    printf("\n  tone at r %.2f z %.0f not found: nbins %zu zmax %d wmax %d numharm %d preset %s; "
                           "candidate %zu r %.2f z %.1f numharm %d sigma %.1f", tones[0][0], tones[0][1], sp.nbins,
                           o.zmax, o.wmax, o.numharm, preset ? "presto" : "exact", i, g.c[i].r, g.c[i].z,
                           g.c[i].numharm, g.c[i].sigma);
            xc_candlist_free(&g);
            xc_candlist_free(&cl);
        }
        xc_spectrum_free(&sp);
    }
    printf("\n  gpu vs cpu: largest relative power/sigma difference %.2e (tolerance %.0e)", worst, rtol);
    CU_ASSERT_EQUAL(failed, 0);
}

/* Repeated runs identical (and identical with another thread count: the
 * host's threads only make templates and sum harmonics). */
XC_TEST_IF(test_gpu_accel_repeat, "gpu_accel_repeat", xc_fx_skip_gpu)
{
    static const double tones[][3] = {{901.7, -9, 40}, {1777.2, 4, 30}};
    xc_spectrum sp;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 7919, 5, tones, 2, &err), XC_OK);
    xc_accel_opts o = xc_fx_accel_opts(20, 40, 2, 2);
    o.sigma = 3;
    xc_candlist a, b, c;
    xc_fx_accel_or_fail(gpu(), &sp, &o, &a);
    xc_fx_accel_or_fail(gpu(), &sp, &o, &b);
    o.threads = 1;
    xc_fx_accel_or_fail(gpu(), &sp, &o, &c);
    CU_ASSERT(a.n > 0);
    CU_ASSERT_EQUAL(a.n, b.n);
    CU_ASSERT(a.n == b.n && !memcmp(a.c, b.c, a.n * sizeof *a.c));
    CU_ASSERT_EQUAL(a.n, c.n);
    CU_ASSERT(a.n == c.n && !memcmp(a.c, c.c, a.n * sizeof *a.c));
    xc_candlist_free(&a);
    xc_candlist_free(&b);
    xc_candlist_free(&c);
    xc_spectrum_free(&sp);
}

/* A study's zmax x numharm sweep as one search (xc_accel_run_sweep) against
 * the separate searches: same r, z, w, numharm; power and sigma within
 * 1e-5 relative (a smaller zmax's segments are shorter, so its float planes
 * round differently, ~1e-7; the device sums in float). */
XC_TEST_IF(test_gpu_accel_sweep, "gpu_accel_sweep", xc_fx_skip_gpu)
{
    static const double tones[][3] = {{701.3, 4, 40}, {1402.6, 8, 40}, {2103.9, 12, 40}, {1511.65, -13, 45},
                                      {2333.0, 0, 25}, {1803.4, 18, 30}};
    static const int zh[][2] = {{0, 1}, {20, 4}, {6, 2}, {6, 1}, {20, 1}, {0, 4}};
    enum { N = sizeof zh / sizeof *zh };
    const double rtol = 1e-5;
    xc_spectrum sp;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 4099, 5, tones, 6, &err), XC_OK);
    xc_accel_opts o[N];
    xc_candlist sw[N];
    for (int c = 0; c < N; c++) {
        o[c] = xc_fx_accel_opts(zh[c][0], 0, zh[c][1], 2);
        o[c].rlo = 20;
        o[c].sigma = 3;
        o[c].normwidth = 500;
        xc_candlist_init(&sw[c]);
    }
    xc_status st = xc_accel_run_sweep(gpu(), &sp, o, N, sw, &err);
    if (st)
        printf("\n  sweep: %s", err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    double worst = 0;
    int failed = 0, total = 0;
    for (int c = 0; c < N; c++) {
        xc_candlist one;
        xc_fx_accel_or_fail(gpu(), &sp, &o[c], &one);
        int ok = sw[c].n == one.n && one.n >= 2;
        if (!ok)
            printf("\n  zmax %d numharm %d: %zu candidates, expected %zu", zh[c][0], zh[c][1], sw[c].n, one.n);
        for (size_t i = 0; i < sw[c].n && i < one.n; i++) {
            const xc_cand *x = &sw[c].c[i], *y = &one.c[i];
            double dp = fabs(x->power - y->power) / y->power, ds = fabs(x->sigma - y->sigma) / fmax(y->sigma, 1);
            worst = fmax(worst, fmax(dp, ds));
            if (x->r != y->r || x->z != y->z || x->w != y->w || x->numharm != y->numharm || dp > rtol || ds > rtol) {
                if (ok)
                    printf("\n  zmax %d numharm %d #%zu: observed r %.1f z %g h %d P %.7g, expected r %.1f z %g h %d "
                           "P %.7g (tolerance %.0e)",
                           zh[c][0], zh[c][1], i, x->r, x->z, x->numharm, x->power, y->r, y->z, y->numharm, y->power,
                           rtol);
                ok = 0;
            }
        }
        failed += !ok;
        total += (int)one.n;
        xc_candlist_free(&one);
        xc_candlist_free(&sw[c]);
    }
    printf("\n  gpu sweep vs separate: 6 searches, %d candidates, largest relative power/sigma difference %.2e "
           "(tolerance %.0e)",
           total, worst, rtol);
    CU_ASSERT_EQUAL(failed, 0);
    /* a session keeps the device state from spectrum to spectrum: its lists
     * are a fresh sweep's, bit for bit, for two spectra in turn */
    xc_spectrum sp2;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp2, 4099, 6, tones, 3, &err), XC_OK);
    xc_accel_session *ss = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_accel_session_open(gpu(), sp.nbins, sp.T, o, N, &ss, &err), XC_OK);
    int differ = 0;
    for (int rep = 0; rep < 4; rep++) {
        const xc_spectrum *x = rep % 2 ? &sp2 : &sp;
        xc_candlist a[N], b[N];
        for (int c = 0; c < N; c++) {
            xc_candlist_init(&a[c]);
            xc_candlist_init(&b[c]);
        }
        CU_ASSERT_EQUAL_FATAL(xc_accel_session_run(ss, x, a, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_accel_run_sweep(gpu(), x, o, N, b, &err), XC_OK);
        for (int c = 0; c < N; c++) {
            int same = a[c].n == b[c].n && !memcmp(a[c].c, b[c].c, a[c].n * sizeof *a[c].c);
            if (!same && !differ)
                printf("\n  session, run %d, search %d: %zu candidates, a fresh sweep %zu (or values differ; "
                       "tolerance: bit for bit)",
                       rep, c, a[c].n, b[c].n);
            differ += !same;
            xc_candlist_free(&a[c]);
            xc_candlist_free(&b[c]);
        }
    }
    xc_accel_session_close(ss);
    printf("\n  gpu session: 4 runs over 2 spectra, %d lists differ from a fresh sweep's (expected 0)", differ);
    CU_ASSERT_EQUAL(differ, 0);
    xc_spectrum_free(&sp2);
    xc_spectrum_free(&sp);
}

/* ---- J1807-0847 ---------------------------------------------------------------- */

static int skip_j1807(char *why, size_t n)
{
    if (xc_fx_skip_gpu(why, n))
        return 1;
    char p[512];
    struct stat sb;
    snprintf(p, sizeof p, "%s/sigpyproc3/GBT_J1807-0847.fft", xc_test_datasets());
    if (stat(p, &sb)) {
        snprintf(why, n, "%s not found", p);
        return 1;
    }
    return 0;
}

/* The pulsar at r = 131 is the top candidate (zmax 0, 1 harmonic, preset
 * exact) and the pulsar of accelsearch's zmax 50 search with 4 harmonics
 * (preset presto: PRESTO's candidate 2, after red noise); the gpu's lists
 * are the cpu's within the tolerance. */
XC_TEST_IF(test_gpu_accel_j1807, "gpu_accel_j1807", skip_j1807)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sigpyproc3/GBT_J1807-0847.fft", xc_test_datasets());
    xc_spectrum sp;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_spectrum_load(&sp, path, &err), XC_OK);
    double worst = 0, rtol = gpu()->impl.tol.value;
    xc_accel_opts o = xc_fx_accel_opts(0, 0, 1, 2);
    xc_candlist g, cl;
    xc_fx_accel_or_fail(gpu(), &sp, &o, &g);
    xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &cl);
    CU_ASSERT_FATAL(g.n > 0);
    XC_ASSERT_NEAR(g.c[0].r, 131, 0.5);
    CU_ASSERT(lists_agree(&g, &cl, rtol, &worst));
    xc_candlist_free(&g);
    xc_candlist_free(&cl);
    o = xc_fx_accel_opts(50, 0, 4, 2);
    o.preset = XC_ACCEL_PRESTO;
    xc_fx_accel_or_fail(gpu(), &sp, &o, &g);
    xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &cl);
    CU_ASSERT_FATAL(g.n > 1);
    XC_ASSERT_NEAR(g.c[1].r, 131.13, 0.5);
    CU_ASSERT(lists_agree(&g, &cl, rtol, &worst));
    printf("\n  J1807: %zu candidates, top r %.2f sigma %.2f; gpu vs cpu largest relative difference %.2e", g.n,
           g.c[1].r, g.c[1].sigma, worst);
    xc_candlist_free(&g);
    xc_candlist_free(&cl);
    xc_spectrum_free(&sp);
}

/* ---- errors -------------------------------------------------------------------- */

/* A plan whose templates' FFTs cannot fit on any device: zmax 1200, wmax
 * 4000 (1201 x 401 templates, 126 GB at its own half-width: that alone
 * would fit an H200) with the largest half-width raised to 2^16 (segments of
 * 2^20 points, petabytes): create returns XC_EDEVICE with a message before
 * making any template, and nothing stays behind for the next run, which
 * works. */
XC_TEST_IF(test_gpu_accel_too_large, "gpu_accel_too_large", xc_fx_skip_gpu)
{
    xc_accel_opts o = xc_fx_accel_opts(1200, 4000, 1, 2);
    xc_accel_plan p;
    xc_error err;
    xc_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&p, &o, 1 << 22, 1000, &err), XC_OK);
    int hw = p.hwmax;
    p.hwmax = 1 << 16;
    void *state = NULL;
    xc_status st = gpu()->create(gpu(), &p, &state, &err);
    printf("\n  %d templates, hwmax %d: %s", p.ntempl, p.hwmax, err.msg);
    p.hwmax = hw;
    CU_ASSERT_EQUAL(st, XC_EDEVICE);
    CU_ASSERT_PTR_NULL(state);
    CU_ASSERT(strstr(err.msg, "gpu: accel") != NULL);
    if (!st)
        gpu()->destroy(gpu(), state);
    xc_accel_plan_free(&p);
    /* a block the state was not made for is refused */
    xc_accel_opts o2 = xc_fx_accel_opts(4, 0, 1, 2);
    CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&p, &o2, 4096, 100, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(gpu()->create(gpu(), &p, &state, &err), XC_OK);
    xc_accel_plan q;
    xc_accel_opts o3 = xc_fx_accel_opts(40, 0, 1, 2);
    CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&q, &o3, 4096, 100, &err), XC_OK);
    double amp[20] = {0};
    float out[64];
    xc_accel_block b = {100, 10, amp, 200, 1, out, NULL};
    CU_ASSERT_EQUAL(gpu()->plane(gpu(), state, &q, &b, &err), XC_EINVAL);
    gpu()->destroy(gpu(), state);
    xc_accel_plan_free(&q);
    xc_accel_plan_free(&p);
    /* the device still works */
    static const double tones[][3] = {{501.5, 2, 40}};
    xc_spectrum sp;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 3001, 9, tones, 1, &err), XC_OK);
    xc_accel_opts o4 = xc_fx_accel_opts(4, 0, 1, 2);
    xc_candlist l;
    xc_fx_accel_or_fail(gpu(), &sp, &o4, &l);
    CU_ASSERT(l.n > 0 && fabs(l.c[0].r - 501.5) <= 0.5);
    xc_candlist_free(&l);
    xc_spectrum_free(&sp);
}

XC_TEST_MAIN("gpu_accel")
