/* What the periodicity searches keep: harmonic sifting that leaves unrelated
 * signals alone and keeps a line at its true frequency, the low-frequency
 * cut, and PRESTO's red-noise removal (core/search/spectrum/xc_rednoise.h) for both
 * searches.  Small spectra: the whole program runs in seconds. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/xc_psearch.h"
#include "core/search/spectrum/xc_rednoise.h"
#include "core/search/xc_search.h"
#include "optimized/cpu/xc_accel_cpu.h"
#include "optimized/cpu/xc_cpu.h"
#include "reference/xc_accel_ref.h"
#include "reference/xc_reference.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- spectra ------------------------------------------------------------- */

typedef struct {
    double amp, r0, z0;    /* cos(2 pi (r0 u + z0 u^2/2)), u = t/T: mean frequency r0 + z0/2 bins */
} tone;

/* The PRESTO .fft of n samples (T = 100 s) of unit Gaussian noise, plus a
 * random walk of step red (red noise: power ~ 1/f^2), plus the tones. */
static xc_spectrum series(size_t n, unsigned long seed, double red, const tone *t, size_t nt)
{
    xc_spectrum sp = {0};
    sp.nbins = n / 2;
    sp.T = 100.0;
    sp.dt = sp.T / (double)n;
    sp.owned = 1;
    sp.data = calloc(n, sizeof(float));
    double *x = malloc(n * sizeof *x);
    CU_ASSERT_FATAL(sp.data && x);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    double walk = 0;
    for (size_t i = 0; i < n; i++) {
        double u = (double)i / (double)n;
        walk += red * gsl_ran_gaussian_ziggurat(r, 1.0);
        x[i] = gsl_ran_gaussian_ziggurat(r, 1.0) + walk;
        for (size_t k = 0; k < nt; k++)
            x[i] += t[k].amp * cos(2 * M_PI * (t[k].r0 * u + 0.5 * t[k].z0 * u * u));
    }
    gsl_rng_free(r);
    xc_fx_real_fft(x, n, sp.data);
    free(x);
    return sp;
}

/* The index of the first candidate within tol bins of r, or l->n. */
static size_t find_r(const xc_candlist *l, double r, double tol)
{
    for (size_t k = 0; k < l->n; k++)
        if (fabs(l->c[k].r - r) <= tol)
            return k;
    return l->n;
}

static void show(const xc_candlist *l, const char *what)
{
    printf("\n%s: %zu candidates\n", what, l->n);
    for (size_t k = 0; k < l->n && k < 8; k++)
        printf("  r %.1f z %.0f h %d sigma %.2f\n", l->c[k].r, l->c[k].z, l->c[k].numharm, l->c[k].sigma);
}

/* Pulscan by reference and cpu: identical lists (the cpu's stated
 * tolerance: bit for bit), the reference's kept in *l. */
static void pulscan_both(const xc_spectrum *sp, const xc_psopts *o, xc_candlist *l, const char *what)
{
    xc_candlist m;
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_reference, sp, o, l), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, sp, o, &m), XC_OK);
    CU_ASSERT(xc_fx_same_cands(l, &m, xc_ps_cpu.impl.tol.value, what));
    xc_candlist_free(&m);
}

/* ---- sifting on lists ------------------------------------------------------ */

static xc_cand mk(double r, int h, double sigma)
{
    return (xc_cand){.r = r, .width = 1, .numharm = h, .sigma = sigma};
}

/* A stronger stage-2 candidate at r/2 that sums the line at r as its 2nd
 * harmonic is the line's echo: the line takes its place.  When stage 1
 * finds something where the stage-2 one is too, it is a pulsar whose 2nd
 * harmonic is the line: the harmonic goes (and the stage-1 candidate joins
 * the pulsar's cluster). */
XC_TEST(test_sift_echo, "sift_echo")
{
    for (int real = 0; real < 2; real++) {
        xc_candlist l;
        xc_candlist_init(&l);
        xc_error err;
        const xc_cand in[] = {
            mk(1500.0, 2, 12),
            mk(3000.4, 1, 11),
            mk(1501.5, 1, 6),
        };
        for (size_t k = 0; k < 2u + (size_t)real; k++)
            CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&l, &in[k], &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_sift(&l, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(l.n, 1);
        CU_ASSERT_EQUAL(l.c[0].r, real ? 1500.0 : 3000.4);
        xc_candlist_free(&l);
    }
}

/* PRESTO's harmonic tolerance at its edge (sifting.py: r_err = 1.1 bins per
 * candidate): a weaker candidate near the n/m multiple of a stronger one's r
 * is its harmonic when |r - (n/m) r_a| <= 1.1 (1 + n/m) bins.  At 0.02 bins
 * inside that edge it goes, at 0.02 bins outside it stays (the list keeps
 * both), on either side of the multiple; 0.02 bins is far above the rounding
 * of r (~1e-12) and far below any other rule's step. */
XC_TEST(test_sift_harmonic_edge, "sift_harmonic_edge")
{
    static const struct {
        int n, m;          /* the ratio n/m; the weak candidate sums m harmonics */
    } q[] = {{2, 1}, {3, 1}, {3, 2}, {5, 3}};
    const double ra = 1000.0, eps = 0.02;
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        for (int side = -1; side <= 1; side += 2)
            for (int out = 0; out < 2; out++) {
                double ratio = (double)q[i].n / q[i].m, tol = 1.1 * (1 + ratio);
                double off = side * (tol + (out ? eps : -eps));
                xc_candlist l;
                xc_candlist_init(&l);
                xc_error err;
                const xc_cand in[] = {mk(ra, 1, 20), mk(ratio * ra + off, q[i].m, 10)};
                for (size_t k = 0; k < 2; k++)
                    CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&l, &in[k], &err), XC_OK);
                CU_ASSERT_EQUAL_FATAL(xc_pulscan_sift(&l, &err), XC_OK);
                size_t want = out ? 2 : 1;
                CU_ASSERT_EQUAL(l.n, want);
                CU_ASSERT(find_r(&l, ra, 0) < l.n);
                if (l.n != want)
                    printf("\n    %d/%d harmonic %+.3f bins from %g (tolerance %.3f): %zu kept, expected %zu ", q[i].n,
                           q[i].m, off, ratio * ra, tol, l.n, want);
                xc_candlist_free(&l);
            }
}

/* ---- searches ------------------------------------------------------------- */

/* Unrelated strong signals, all kept at every numharm: a drifting tone A
 * (mean r 20050, z 100) and steady tones at 7/4 of A's r plus 60 bins (the
 * old rule's wide tolerance removed such a tone as A's "7/4 harmonic"), at
 * 2 r_A + 40 (near, but not at, A's 2nd harmonic), and at 8/3 r_A + 61.
 * Each must lead its own place in the list within 1 bin of its mean r (A:
 * within 4, the boxcar's centre for a drift of 100). */
XC_TEST(test_unrelated_kept, "unrelated_kept")
{
    const double rA = 20050;
    const tone t[] = {
        {0.15, 20000, 100},
        {0.05, 1.75 * rA + 60, 0},
        {0.05, 2 * rA + 40, 0},
        {0.05, 8.0 / 3 * rA + 61, 0},
    };
    xc_spectrum sp = series(1 << 18, 7, 0, t, 4);
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = 120;
    for (int h = 1; h <= 8; h *= 2) {
        o.numharm = h;
        xc_candlist l;
        char what[64];
        snprintf(what, sizeof what, "four signals, numharm %d", h);
        pulscan_both(&sp, &o, &l, what);
        int ok = 1;
        for (size_t k = 0; k < 4; k++) {
            double r = t[k].r0 + 0.5 * t[k].z0;
            size_t at = find_r(&l, r, k ? 1.0 : 4.0);
            CU_ASSERT(at < l.n);
            ok &= at < l.n && l.c[at].sigma > 8;
        }
        CU_ASSERT(ok);
        if (!ok)
            show(&l, what);
        xc_candlist_free(&l);
    }
    xc_spectrum_free(&sp);
}

/* A strong steady line, on a bin and between two, searched with 2..8
 * harmonics: the top candidate is the line at its own frequency (within 1
 * bin), never a sub-harmonic r/k that sums it as its k-th harmonic. */
XC_TEST(test_line_numharm, "line_numharm")
{
    const double rl[] = {30000.0, 30001.5};
    for (size_t i = 0; i < 2; i++) {
        const tone t = {0.1, rl[i], 0};
        xc_spectrum sp = series(1 << 17, 11 + i, 0, &t, 1);
        xc_psopts o;
        xc_psopts_default(&o);
        o.zmax = 20;
        for (int h = 2; h <= 8; h++) {
            o.numharm = h;
            xc_candlist l;
            char what[64];
            snprintf(what, sizeof what, "line at %.1f, numharm %d", rl[i], h);
            pulscan_both(&sp, &o, &l, what);
            CU_ASSERT_FATAL(l.n >= 1);
            int ok = fabs(l.c[0].r - rl[i]) <= 1.0 && l.c[0].sigma > 10;
            for (int k = 2; k <= h; k++)     /* no echo left anywhere */
                ok &= find_r(&l, rl[i] / k, 1.0) == l.n;
            CU_ASSERT(ok);
            if (!ok)
                show(&l, what);
            xc_candlist_free(&l);
        }
        xc_spectrum_free(&sp);
    }
}

/* ---- red noise -------------------------------------------------------------- */

/* The median of v[0..n), sorting v in place. */
static double median(double *v, size_t n)
{
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* Dereddening flattens a 1/f^2 spectrum: after it the median power of each
 * decade of bins is ln 2 (mean-1 exponential powers) within 15% (a median
 * of >= 90 exponential values has a relative spread of about 1/sqrt(90),
 * and the level's linear interpolation lags a steep slope a little),
 * while before it the lowest decade's is hundreds of times the highest's. */
XC_TEST(test_deredden_flat, "deredden_flat")
{
    xc_spectrum sp = series(1 << 14, 3, 1.0, NULL, 0);
    xc_spectrum red;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_spectrum_deredden(&sp, &red, &err), XC_OK);
    const size_t edge[] = {10, 100, 1000, 8192};
    double before[3], after[3];
    for (int d = 0; d < 3; d++) {
        size_t lo = edge[d], n = edge[d + 1] - lo;
        double *b = malloc(n * sizeof *b), *a = malloc(n * sizeof *a);
        CU_ASSERT_FATAL(a && b);
        for (size_t k = 0; k < n; k++) {
            const float *x = sp.data + 2 * (lo + k), *y = red.data + 2 * (lo + k);
            b[k] = (double)x[0] * x[0] + (double)x[1] * x[1];
            a[k] = (double)y[0] * y[0] + (double)y[1] * y[1];
        }
        before[d] = median(b, n);
        after[d] = median(a, n);
        XC_ASSERT_NEAR(after[d], M_LN2, 0.15 * M_LN2);
        free(a);
        free(b);
    }
    CU_ASSERT(before[0] > 100 * before[2]);
    CU_ASSERT_EQUAL(red.data[0], sp.data[0]);   /* bin 0 left as it is */
    /* A spectrum too short for one block, and a block of zeros, are refused. */
    CU_ASSERT_EQUAL(xc_deredden(sp.data, 5, 6, 200, 10, 1, &err), XC_EINVAL);
    memset(red.data, 0, 40 * sizeof(float));
    CU_ASSERT_EQUAL(xc_deredden(red.data, red.nbins, 6, 200, 10, 100, &err), XC_EINVAL);
    xc_spectrum_free(&red);
    xc_spectrum_free(&sp);
}

/* Red noise above the 1 Hz cut outranks a line at 40 Hz under Pulscan's
 * block normalisation (one block here; the accel search's 1024-bin blocks
 * follow the red noise in part); with rednoise the line leads both searches
 * (Pulscan by reference and cpu, identical; accel by reference and cpu,
 * within the cpu's stated tolerance). */
XC_TEST(test_rednoise_line_leads, "rednoise_line_leads")
{
    const tone t = {0.25, 4000.0, 0};
    xc_spectrum sp = series(1 << 14, 5, 1.0, &t, 1);
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = 10;
    xc_accel_opts a = xc_fx_accel_opts(10, 0, 2, 1);
    for (int rn = 0; rn < 2; rn++) {
        o.rednoise = a.rednoise = rn;
        xc_candlist l, m, n;
        pulscan_both(&sp, &o, &l, rn ? "pulscan, rednoise" : "pulscan");
        xc_fx_accel_or_fail(&xc_accel_reference, &sp, &a, &m);
        xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &a, &n);
        CU_ASSERT(xc_fx_same_cands(&m, &n, xc_accel_cpu.impl.tol.value, "accel reference vs cpu"));
        CU_ASSERT_FATAL(l.n >= 1 && m.n >= 1);
        int pl = fabs(l.c[0].r - 4000) <= 1, al = fabs(m.c[0].r - 4000) <= 1;
        CU_ASSERT_EQUAL(pl, rn);
        if (rn)
            CU_ASSERT(al);
        if (pl != rn || (rn && !al)) {
            show(&l, rn ? "pulscan, rednoise" : "pulscan");
            show(&m, rn ? "accel, rednoise" : "accel");
        }
        /* Every candidate above the cut, in both searches. */
        for (size_t k = 0; k < l.n; k++)
            CU_ASSERT(l.c[k].r - 0.5 * (l.c[k].width - 1) >= 100);
        xc_candlist_free(&l);
        xc_candlist_free(&m);
        xc_candlist_free(&n);
    }
    xc_spectrum_free(&sp);
}

XC_TEST_MAIN("psift")
