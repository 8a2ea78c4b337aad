/* The Pulscan boxcar search: the reference against a hand-worked spectrum,
 * the noise statistics of its outputs, injected tones, the J1807-0847
 * fixture, and the CPU implementation against the reference (identical
 * candidates at 1 and 2 threads on awkward sizes). */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "reference/xc_reference.h"
#include "optimized/cpu/xc_cpu.h"
#include "core/io/xc_presto.h"
#include "core/search/xc_search.h"
#include "tests/xc_fixture.h"
#include "core/search/stats/xc_signif.h"
#include "tests/xc_test.h"

/* ---- helpers ------------------------------------------------------------- */

/* A spectrum owning its data; T chosen so that f = r/T is easy to read. */
static xc_spectrum spec_new(size_t nbins, double T)
{
    xc_spectrum sp;
    memset(&sp, 0, sizeof sp);
    sp.data = calloc(2 * nbins, sizeof(float));
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp.data);
    sp.nbins = nbins;
    sp.T = T;
    sp.dt = T / (2.0 * (double)nbins);
    sp.owned = 1;
    return sp;
}

/* White complex Gaussian noise: per part an offset and a scale (the
 * normalisation must remove both), per bin N(off, scale^2). */
static void spec_noise(xc_spectrum *sp, unsigned long seed, double off, double scale)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    for (size_t k = 0; k < 2 * sp->nbins; k++)
        sp->data[k] = (float)(off + scale * gsl_ran_gaussian_ziggurat(r, 1.0));
    gsl_rng_free(r);
}

/* The PRESTO .fft of n samples of unit Gaussian noise plus a chirp of
 * amplitude amp whose frequency runs linearly from r0 to r0 + z0 bins over
 * the observation (mean r0 + z0/2). */
static xc_spectrum spec_chirp(size_t n, unsigned long seed, double amp, double r0, double z0)
{
    xc_spectrum sp = spec_new(n / 2, 100.0);
    double *x = malloc(n * sizeof *x);
    CU_ASSERT_FATAL(x != NULL);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    for (size_t t = 0; t < n; t++) {
        double u = (double)t / (double)n;
        /* phase r0 u + z0 u^2 / 2 cycles: frequency r0 + z0 u cycles per observation */
        x[t] = gsl_ran_gaussian_ziggurat(r, 1.0) + amp * cos(2 * M_PI * (r0 * u + 0.5 * z0 * u * u));
    }
    gsl_rng_free(r);
    xc_fx_real_fft(x, n, sp.data);
    free(x);
    return sp;
}

/* ---- the hand-worked case -------------------------------------------------- */

/* 25 bins (24 data bins, one normalisation block), no two boxcar sums of a
 * block equal unless they add the same numbers (so ties are exact).
 *   real parts: +1 at odd bins except 11, -1 at even bins and 11, except
 *     +6 at 5, -5 at 6, +7 at 10, -8 at 20 (12 of each sign);
 *   imaginary parts: +1 where k % 4 < 2, else -1, except -3 at 7, +2 at 9,
 *     -3 at 11, +2 at 21, -3 at 22 (12 of each sign).
 * Sorted, each part's two middle values are -1 and +1: median 0; |x| has at
 * least 13 ones: MAD 1; so x' = x / 1.482602218505602 and, in units of
 * q = 1/1.482602218505602^2, P[k] = re^2 + im^2:
 *   2 everywhere except P5 = 37, P6 = 26, P7 = 10, P9 = 5, P10 = 50,
 *   P11 = 10, P20 = 65, P21 = 5, P22 = 10;  P0 = 0 (DC is never used). */
static double hand_units(int k)
{
    switch (k) {
    case 0: return 0;
    case 5: return 37;
    case 6: return 26;
    case 7: return 10;
    case 9: return 5;
    case 10: return 50;
    case 11: return 10;
    case 20: return 65;
    case 21: return 5;
    case 22: return 10;
    default: return 2;
    }
}

static xc_spectrum hand_spectrum(void)
{
    xc_spectrum sp = spec_new(25, 25.0);
    int neg_re = 0, neg_im = 0;
    for (int k = 1; k < 25; k++) {
        float re = (k % 2 && k != 11) ? 1.0f : -1.0f;
        float im = (k % 4 < 2) ? 1.0f : -1.0f;
        switch (k) {
        case 5: re = 6; break;
        case 6: re = -5; break;
        case 10: re = 7; break;
        case 20: re = -8; break;
        case 7: im = -3; break;
        case 9: im = 2; break;
        case 11: im = -3; break;
        case 21: im = 2; break;
        case 22: im = -3; break;
        default: break;
        }
        sp.data[2 * k] = re;
        sp.data[2 * k + 1] = im;
        neg_re += re < 0;
        neg_im += im < 0;
    }
    sp.data[0] = 1000.0f;     /* DC and Nyquist: must be ignored */
    sp.data[1] = -1000.0f;
    CU_ASSERT_EQUAL(neg_re, 12);
    CU_ASSERT_EQUAL(neg_im, 12);
    return sp;
}

XC_TEST(test_hand_powers, "hand_powers")
{
    xc_spectrum sp = hand_spectrum();
    xc_psopts o;
    xc_psopts_default(&o);
    o.normwidth = 32;
    double q = 1.0 / (XC_MAD_TO_SIGMA * XC_MAD_TO_SIGMA), P[25], Pc[25];
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_reference, &sp, &o, P, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_cpu, &sp, &o, Pc, &err), XC_OK);
    CU_ASSERT_EQUAL(P[0], 0.0);
    for (int k = 1; k < 25; k++) {
        XC_ASSERT_CLOSE(P[k], hand_units(k) * q, 1e-12);
        CU_ASSERT_EQUAL(P[k], Pc[k]);
    }
    /* Harmonic stage 2 written out, S_2[i] = P[i] + P[2i] + P[2i+1]: */
    XC_ASSERT_CLOSE(xc_pulscan_sh(P, 2, 5), 97 * q, 1e-12);    /* P5 + P10 + P11 = 37 + 50 + 10 */
    XC_ASSERT_CLOSE(xc_pulscan_sh(P, 2, 3), 38 * q, 1e-12);    /* P3 + P6 + P7 = 2 + 26 + 10 */
    XC_ASSERT_CLOSE(xc_pulscan_sh(P, 2, 10), 120 * q, 1e-12);  /* P10 + P20 + P21 = 50 + 65 + 5 */
    /* stage 3 adds P[3i..3i+2]: S_3[2] = P2 + P4 + P5 + P6 + P7 + P8 = 2 + 2 + 37 + 26 + 10 + 2 */
    XC_ASSERT_CLOSE(xc_pulscan_sh(P, 3, 2), 79 * q, 1e-12);
    xc_spectrum_free(&sp);
}

/* Every peak wanted: zstep 1, sigma 0, no sifting, zmax, numharm stages,
 * normalised over normwidth bins, in chunks of chunkwidth. */
static xc_psopts all_peaks_opts(int zmax, int numharm, size_t normwidth, size_t chunkwidth)
{
    const xc_fx_pscfg c = {.zmax = zmax, .numharm = numharm, .zstep = 1, .nosift = 1, .chunk = chunkwidth,
                           .normw = normwidth, .norm = XC_NORM_EXACT, .logp = XC_LOGP_EXACT, .sigma = 0};
    xc_psopts o = xc_fx_ps_opts(&c);
    o.flo = 0;             /* no low-frequency cut: the hand spectra's bins are all below 1 Hz */
    return o;
}

/* Pulscan's R-block search on the hand spectrum: zmax 2, zstep 1, stages 1
 * and 2, R-blocks of 8 starts, every block maximum above the sigma-0
 * threshold, worked out from the powers above (first start on ties). */
XC_TEST(test_hand_rblock_peaks, "hand_rblock_peaks")
{
    xc_spectrum sp = hand_spectrum();
    xc_psopts o = all_peaks_opts(2, 2, 32, 8);
    o.rblock = 1;
    double q = 1.0 / (XC_MAD_TO_SIGMA * XC_MAD_TO_SIGMA);
    static const struct {
        size_t i;
        int w, h;
        double units;     /* power / q */
    } want[] = {
        /* stage 1, blocks of starts 1..7, 8..15, 16..23, 24 (the last holds only
         * P24 = 2, below the threshold of about 18q):
         * w = 1: P5, P10, P20 */
        {5, 1, 1, 37}, {10, 1, 1, 50}, {20, 1, 1, 65},
        /* w = 2: P5+P6 = 63; P10+P11 = 60; P20+P21 = 70 */
        {5, 2, 1, 63}, {10, 2, 1, 60}, {20, 2, 1, 70},
        /* w = 3: P5+P6+P7 = 73; P9+P10+P11 = 65; P20+P21+P22 = 80 */
        {5, 3, 1, 73}, {9, 3, 1, 65}, {20, 3, 1, 80},
        /* stage 2, S_2[1..11] = 6 41 38 9 97 30 14 6 9 120 22, blocks 1..7, 8..11:
         * w = 1: S5, S10 */
        {5, 1, 2, 97}, {10, 1, 2, 120},
        /* w = 2: S5+S6 = 127; S10+S11 = 142 */
        {5, 2, 2, 127}, {10, 2, 2, 142},
        /* w = 3: S3+S4+S5 = 144 (S5+S6+S7 = 141); S9+S10+S11 = 151 */
        {3, 3, 2, 144}, {9, 3, 2, 151},
    };
    size_t nwant = sizeof want / sizeof want[0];
    const char *impls[] = {"reference", "cpu"};
    for (int m = 0; m < 2; m++) {
        xc_pspeaks pk;
        xc_pspeaks_init(&pk);
        xc_error err;
        xc_status st = m ? xc_pulscan_peaks(&xc_ps_cpu, &sp, &o, &pk, &err) : xc_pulscan_peaks(&xc_ps_reference, &sp, &o, &pk, &err);
        CU_ASSERT_EQUAL_FATAL(st, XC_OK);
        qsort(pk.p, pk.n, sizeof *pk.p, xc_pspeak_cmp);
        CU_ASSERT_EQUAL(pk.n, nwant);
        if (pk.n != nwant)
            printf("\n%s: %zu peaks\n", impls[m], pk.n);
        for (size_t k = 0; k < pk.n && k < nwant; k++) {
            CU_ASSERT_EQUAL(pk.p[k].i, want[k].i);
            CU_ASSERT_EQUAL(pk.p[k].width, want[k].w);
            CU_ASSERT_EQUAL(pk.p[k].numharm, want[k].h);
            XC_ASSERT_CLOSE(pk.p[k].power, want[k].units * q, 1e-11);
        }
        xc_pspeaks_free(&pk);
    }
    /* The same peaks as candidates: r is the boxcar centre, z = width - 1,
     * dof = 2 * width * h(h+1)/2, and the sigma is xc_candidate_sigma's. */
    xc_candlist l;
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_reference, &sp, &o, &l), XC_OK);
    CU_ASSERT_EQUAL(l.n, nwant);
    int seen = 0;
    for (size_t k = 0; k < l.n; k++)
        if (l.c[k].numharm == 2 && l.c[k].width == 3) {
            if (l.c[k].r == 4.0) {    /* start 3, width 3 */
                seen++;
                CU_ASSERT_EQUAL(l.c[k].z, 2.0);
                CU_ASSERT_EQUAL(l.c[k].dof, 18.0);
                double ntr = xc_pulscan_ntrials(25, 2, 2), lp;
                XC_ASSERT_NEAR(ntr, 11 * (1 + 2 / 6.95), 1e-12);
                XC_ASSERT_CLOSE(l.c[k].sigma, xc_candidate_sigma(144 * q, 18, ntr, &lp), 1e-9);
                XC_ASSERT_CLOSE(l.c[k].logp, lp, 1e-9);
                XC_ASSERT_CLOSE(l.c[k].f_hz, 4.0 / 25.0, 1e-12);
            }
        }
    CU_ASSERT_EQUAL(seen, 1);
    xc_candlist_free(&l);
    xc_spectrum_free(&sp);
}

/* ---- boxcars whose harmonics would overlap ----------------------------------- */

/* A stage-h boxcar (start i, width w) adds harmonic k's bins k*i .. k*(i+w)-1;
 * below i = (h-1)*w harmonics h-1 and h share bins, so such a boxcar does not
 * exist (xc_search.h, step 4).  25 bins, the hand spectrum's +-1 pattern
 * (median 0, MAD 1) except real part -9 at bin 2: every P is 2q except
 * P2 = 82q.  S_2[i] = P[i] + P[2i] + P[2i+1] is 86q at i = 1 and 2 (both
 * hold P2) and 6q beyond.  Stage-2 boxcar (1, 2) would add P2 twice, 172q at
 * 12 dof (score 6.6, the stage's best, were it counted);
 * it does not exist, so stage 2's only peak is (1, 1), 86q, score 4.7, which
 * beats (2, 1) on the tie and (2, 2) = 92q at 12 dof (score 3.9).  Stage 1
 * (no overlap possible) keeps P2 at (2, 1).  With R-blocks of 8 starts the
 * first block's stage-2 maxima would be (1, 2) = 172q and (1, 3) = 178q with
 * the overlap; without it width 2 starts at 2, (2, 2) = S2 + S3 = 92q, and width 3 at 3, where
 * (3, 3) = 18q is below its threshold (66q): no peak. */
static xc_spectrum overlap_spectrum(void)
{
    xc_spectrum sp = spec_new(25, 25.0);
    for (int k = 1; k < 25; k++) {
        sp.data[2 * k] = k == 2 ? -9.0f : (k % 2 ? 1.0f : -1.0f);
        sp.data[2 * k + 1] = (k % 4 < 2) ? 1.0f : -1.0f;
    }
    sp.data[0] = 1000.0f;
    sp.data[1] = -1000.0f;
    return sp;
}

XC_TEST(test_overlap_hand, "overlap_hand")
{
    xc_spectrum sp = overlap_spectrum();
    xc_psopts o = all_peaks_opts(2, 2, 32, 8);
    double q = 1.0 / (XC_MAD_TO_SIGMA * XC_MAD_TO_SIGMA), P[25];
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_reference, &sp, &o, P, &err), XC_OK);
    for (int k = 1; k < 25; k++)
        XC_ASSERT_CLOSE(P[k], (k == 2 ? 82 : 2) * q, 1e-12);
    XC_ASSERT_CLOSE(xc_pulscan_sh(P, 2, 1), 86 * q, 1e-12);
    XC_ASSERT_CLOSE(xc_pulscan_sh(P, 2, 2), 86 * q, 1e-12);
    XC_ASSERT_CLOSE(xc_pulscan_sh(P, 2, 3), 6 * q, 1e-12);
    /* The overlapping boxcar really is the stage's best by score. */
    CU_ASSERT(xc_pulscan_score(172 * q, 12) > xc_pulscan_score(86 * q, 6));
    CU_ASSERT(xc_pulscan_score(86 * q, 6) > xc_pulscan_score(92 * q, 12));
    static const struct {
        size_t i;
        int w, h;
        double units;
    } local[] = {{2, 1, 1, 82}, {1, 1, 2, 86}},
      rblock[] = {{2, 1, 1, 82}, {1, 2, 1, 84}, {1, 3, 1, 86}, {1, 1, 2, 86}, {2, 2, 2, 92}};
    const char *impls[] = {"reference", "cpu"};
    for (int rb = 0; rb < 2; rb++) {
        o.rblock = rb;
        size_t nwant = rb ? sizeof rblock / sizeof *rblock : sizeof local / sizeof *local;
        for (int m = 0; m < 2; m++) {
            xc_pspeaks pk;
            xc_pspeaks_init(&pk);
            xc_status st = m ? xc_pulscan_peaks(&xc_ps_cpu, &sp, &o, &pk, &err) : xc_pulscan_peaks(&xc_ps_reference, &sp, &o, &pk, &err);
            CU_ASSERT_EQUAL_FATAL(st, XC_OK);
            qsort(pk.p, pk.n, sizeof *pk.p, xc_pspeak_cmp);
            CU_ASSERT_EQUAL(pk.n, nwant);
            if (pk.n != nwant)
                printf("\n%s, rblock %d: %zu peaks\n", impls[m], rb, pk.n);
            for (size_t k = 0; k < pk.n && k < nwant; k++) {
                size_t i = rb ? rblock[k].i : local[k].i;
                int w = rb ? rblock[k].w : local[k].w, h = rb ? rblock[k].h : local[k].h;
                double u = rb ? rblock[k].units : local[k].units;
                CU_ASSERT_EQUAL(pk.p[k].i, i);
                CU_ASSERT_EQUAL(pk.p[k].width, w);
                CU_ASSERT_EQUAL(pk.p[k].numharm, h);
                XC_ASSERT_CLOSE(pk.p[k].power, u * q, 1e-11);
                CU_ASSERT(pk.p[k].i >= (size_t)(pk.p[k].numharm - 1) * (size_t)pk.p[k].width);
            }
            xc_pspeaks_free(&pk);
        }
    }
    xc_spectrum_free(&sp);
}

/* The reference's peaks into a, the cpu's into b; either failing ends the case. */
static void peaks_ref_cpu(const xc_spectrum *sp, const xc_psopts *o, xc_pspeaks *a, xc_pspeaks *b)
{
    xc_error err;
    xc_pspeaks_init(a);
    xc_pspeaks_init(b);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_peaks(&xc_ps_reference, sp, o, a, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_peaks(&xc_ps_cpu, sp, o, b, &err), XC_OK);
}

/* Every peak's start is at least max(1, (h-1)*w). */
static int starts_exist(const xc_pspeaks *pk, size_t *perh, size_t *near, int wmax)
{
    int ok = 1;
    for (size_t k = 0; k < pk->n; k++) {
        const xc_pspeak *p = &pk->p[k];
        size_t lim = (size_t)(p->numharm - 1) * (size_t)p->width;
        if (p->i < 1 || p->i < lim) {
            printf("\npeak at start %zu, width %d, stage %d: below %zu\n", p->i, p->width, p->numharm, lim);
            ok = 0;
        }
        perh[p->numharm - 1]++;
        *near += p->numharm > 1 && p->i < (size_t)(p->numharm - 1) * (size_t)wmax;
    }
    return ok;
}

/* On noise no peak or candidate of any stage starts below (h-1)*w, in either
 * peak mode, from either implementation, and the two agree.  R-blocks of 64
 * starts and tiles of 100 put the region below (h-1)*wmax (up to 93 starts at
 * stage 4) across two R-blocks and the cpu's masked tile runs; at sigma 0
 * every stage has peaks, some of them in that region (measured over 200
 * spectra: 99 of 909 peaks of stages 2-4).  Then low-frequency
 * tones (overlapping boxcars there would be the strongest) at 1 and 2
 * threads and tiles of 16 and 1024: the same peaks from both. */
XC_TEST(test_overlap_noise, "overlap_noise")
{
    xc_psopts o = all_peaks_opts(30, 4, 512, 64);
    o.tile = 100;
    o.threads = 2;
    int wmax = o.zmax + 1;
    size_t perh[4] = {0}, near = 0, ncand = 0;
    for (int pass = 0; pass < 2; pass++)
        for (unsigned long seed = 21; seed < (pass ? 33u : 81u); seed++) {
            xc_spectrum sp = spec_new(2048, 10.0);
            spec_noise(&sp, seed, 0.2, 3.0);
            if (pass) {     /* tones at bins 20, 41 and 62 */
                sp.data[2 * 20] += 30.0f;
                sp.data[2 * 41 + 1] -= 25.0f;
                sp.data[2 * 62] += 20.0f;
            }
            for (int rb = 0; rb < 2; rb++) {
                o.rblock = rb;
                o.threads = pass && seed % 2 ? 1 : 2;
                o.tile = pass ? (seed % 3 ? 16 : 1024) : 100;
                xc_pspeaks a, b;
                peaks_ref_cpu(&sp, &o, &a, &b);
                size_t dummy[4] = {0}, dnear = 0;
                CU_ASSERT(starts_exist(&a, pass ? dummy : perh, pass ? &dnear : &near, wmax));
                CU_ASSERT(starts_exist(&b, dummy, &dnear, wmax));
                if (a.n)     /* qsort's pointer must not be NULL, even for 0 items */
                    qsort(a.p, a.n, sizeof *a.p, xc_pspeak_cmp);
                if (b.n)
                    qsort(b.p, b.n, sizeof *b.p, xc_pspeak_cmp);
                CU_ASSERT_EQUAL(a.n, b.n);
                int same = a.n == b.n;
                for (size_t k = 0; k < a.n && k < b.n; k++)
                    same &= !xc_pspeak_cmp(&a.p[k], &b.p[k]) && a.p[k].power == b.p[k].power;
                CU_ASSERT(same);
                if (!same)
                    printf("\nseed %lu, rblock %d, pass %d: reference and cpu peaks differ\n", seed, rb, pass);
                xc_pspeaks_free(&a);
                xc_pspeaks_free(&b);
                /* The candidates: start = r - (w-1)/2. */
                xc_candlist l;
                CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, &sp, &o, &l), XC_OK);
                for (size_t k = 0; k < l.n; k++) {
                    double start = l.c[k].r - (l.c[k].width - 1) / 2.0;
                    CU_ASSERT(start >= 1 && start >= (double)(l.c[k].numharm - 1) * l.c[k].width);
                }
                ncand += l.n;
                xc_candlist_free(&l);
            }
            xc_spectrum_free(&sp);
        }
    for (int h = 0; h < 4; h++)
        CU_ASSERT(perh[h] > 0);
    CU_ASSERT(near > 0);
    CU_ASSERT(ncand > 0);
    printf("\n  noise peaks per stage %zu %zu %zu %zu, %zu below (h-1)*wmax; %zu candidates\n", perh[0], perh[1],
           perh[2], perh[3], near, ncand);
}

/* ---- statistics on noise --------------------------------------------------- */

static int dcmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Kolmogorov-Smirnov distance of x[0..n-1] (sorted in place) from chi-square(dof). */
static double ks_chi2(double *x, size_t n, double dof)
{
    double d = 0;
    qsort(x, n, sizeof *x, dcmp);
    for (size_t k = 0; k < n; k++) {
        double F = gsl_cdf_chisq_P(x[k], dof);
        d = fmax(d, fmax(fabs(F - (double)k / n), fabs((double)(k + 1) / n - F)));
    }
    return d;
}

/* Normalised powers of white noise (any offset and scale) are chi-square with
 * 2 dof: mean 2, KS distance below the 0.1% critical value 1.95/sqrt(n), and a
 * 10-cell chi-square goodness of fit below its 0.1% point; non-overlapping
 * boxcars of 4 stage-2 values are chi-square with 2*4*3 = 24 dof.  Five seeds
 * at 0.1% each: a false alarm in one run in about 70 for each of the three
 * checks (the MAD's own scatter, about 1.5% per block of 16384 bins, uses part
 * of the margin). */
XC_TEST(test_noise_chi2, "noise_chi2")
{
    size_t nbins = 65537;
    xc_psopts o;
    xc_psopts_default(&o);
    o.normwidth = 16384;
    double *P = malloc(nbins * sizeof *P), *x = malloc(nbins * sizeof *x);
    CU_ASSERT_FATAL(P && x);
    for (unsigned long seed = 1; seed <= 5; seed++) {
        xc_spectrum sp = spec_new(nbins, 1.0);
        spec_noise(&sp, seed, 3.0 * seed, 40.0 + seed);
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_cpu, &sp, &o, P, &err), XC_OK);
        size_t n = nbins - 1;
        double mean = 0;
        for (size_t k = 1; k < nbins; k++)
            mean += P[k];
        mean /= (double)n;
        /* The mean of n exponentials of mean 2 has sd 2/sqrt(n) = 0.0078; the
         * MAD scale error adds about 0.02 at most. */
        XC_ASSERT_CLOSE(mean, 2.0, 0.05);
        memcpy(x, P + 1, n * sizeof *x);
        double d = ks_chi2(x, n, 2);
        CU_ASSERT(d < 1.95 / sqrt((double)n));
        /* Pearson chi-square over 10 equiprobable cells of chi-square(2). */
        size_t cnt[10] = {0};
        for (size_t k = 1; k < nbins; k++) {
            int c = (int)(gsl_cdf_chisq_P(P[k], 2) * 10);
            cnt[c > 9 ? 9 : c]++;
        }
        double chi = 0, e = (double)n / 10;
        for (int c = 0; c < 10; c++)
            chi += (cnt[c] - e) * (cnt[c] - e) / e;
        CU_ASSERT(chi < gsl_cdf_chisq_Qinv(0.001, 9));
        /* Stage-2 boxcars of width 4, disjoint. */
        size_t m = 0;
        for (size_t i = 1; i + 4 <= nbins / 2; i += 4) {
            double s = 0;
            for (size_t j = 0; j < 4; j++)
                s += xc_pulscan_sh(P, 2, i + j);
            x[m++] = s;
        }
        double d2 = ks_chi2(x, m, 24);
        CU_ASSERT(d2 < 1.95 / sqrt((double)m));
        if (d >= 1.95 / sqrt((double)n) || d2 >= 1.95 / sqrt((double)m))
            printf("\nseed %lu: KS %.5f (n %zu), stage-2 KS %.5f (n %zu), GOF %.1f\n", seed, d, n, d2, m, chi);
        xc_spectrum_free(&sp);
    }
    free(P);
    free(x);
}

/* Exceedances of the normalised power: the count of bins with P > x is
 * binomial(n, e^{-x/2}); asserted within 4.5 sd (false alarm 7e-6 per seed,
 * three seeds).  Then the search's own false alarms: with zmax 0 the trials
 * are exactly the bins, so the expected number of noise candidates with
 * sigma > S is Q_gauss(S) per spectrum; over 60 spectra at S = 0 (0.5 each)
 * the total must lie within 4.5 sd of 30 (binomial; local maxima are rarer
 * than independent exceedances, so the bound is conservative). */
XC_TEST(test_noise_false_alarms, "noise_false_alarms")
{
    size_t nbins = 32768;
    xc_psopts o;
    xc_psopts_default(&o);
    o.normwidth = 8192;
    double *P = malloc(nbins * sizeof *P);
    CU_ASSERT_FATAL(P != NULL);
    for (unsigned long seed = 11; seed <= 13; seed++) {
        xc_spectrum sp = spec_new(nbins, 1.0);
        spec_noise(&sp, seed, -1.0, 7.0);
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_reference, &sp, &o, P, &err), XC_OK);
        double x = 12.0, p = exp(-x / 2), n = (double)(nbins - 1);
        size_t cnt = 0;
        for (size_t k = 1; k < nbins; k++)
            cnt += P[k] > x;
        double mu = n * p, sd = sqrt(n * p * (1 - p));
        CU_ASSERT(fabs((double)cnt - mu) < 4.5 * sd);
        xc_spectrum_free(&sp);
    }
    free(P);

    o.zmax = 0;
    o.sigma = 0;
    o.nosift = 1;
    size_t total = 0, nspec = 60;
    for (unsigned long seed = 100; seed < 100 + nspec; seed++) {
        xc_spectrum sp = spec_new(4096, 1.0);
        spec_noise(&sp, seed, 0.5, 2.0);
        xc_candlist l;
        CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, &sp, &o, &l), XC_OK);
        total += l.n;
        for (size_t k = 0; k < l.n; k++)
            CU_ASSERT(l.c[k].sigma > 0);
        xc_candlist_free(&l);
        xc_spectrum_free(&sp);
    }
    double mu = 0.5 * nspec, sd = sqrt(mu);
    if (fabs((double)total - mu) >= 4.5 * sd)
        printf("\nnoise candidates over %zu spectra: %zu (expected %.1f)\n", nspec, total, mu);
    CU_ASSERT(fabs((double)total - mu) < 4.5 * sd);
}

/* The threshold sits just below the power where sigma crosses S. */
XC_TEST(test_threshold, "threshold")
{
    static const double dofs[] = {2, 6, 40, 402, 2412, 24020};
    static const double sig[] = {0, 2, 6, 30};
    for (size_t a = 0; a < sizeof dofs / sizeof *dofs; a++)
        for (size_t b = 0; b < sizeof sig / sizeof *sig; b++) {
            double ntr = 1e6, t = xc_power_threshold(sig[b], dofs[a], ntr);
            CU_ASSERT(t > dofs[a] * 0.5);
            CU_ASSERT(xc_candidate_sigma(t, dofs[a], ntr, NULL) <= sig[b]);
            CU_ASSERT(xc_candidate_sigma(t * (1 + 1e-5), dofs[a], ntr, NULL) > sig[b]);
        }
}

/* Which widths are searched: z = w - 1 on the -zstep grid, or {0, 1, 2, 4, ...}
 * with -zlog, never beyond zmax; and the trials count does not follow them. */
XC_TEST(test_z_sampling, "z_sampling")
{
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = 20;
    o.zstep = 3;
    int got[32], n = 0;
    for (int w = 0; w <= 30; w++)
        if (xc_pulscan_width_searched(&o, w))
            got[n++] = w;
    static const int step3[] = {1, 4, 7, 10, 13, 16, 19};
    CU_ASSERT_EQUAL_FATAL(n, 7);
    for (int k = 0; k < n; k++)
        CU_ASSERT_EQUAL(got[k], step3[k]);
    o.zlog = 1;
    n = 0;
    for (int w = 0; w <= 30; w++)
        if (xc_pulscan_width_searched(&o, w))
            got[n++] = w;
    static const int logz[] = {1, 2, 3, 5, 9, 17};
    CU_ASSERT_EQUAL_FATAL(n, 6);
    for (int k = 0; k < n; k++)
        CU_ASSERT_EQUAL(got[k], logz[k]);
    XC_ASSERT_CLOSE(xc_pulscan_ntrials(1001, 1, 0), 1000.0, 1e-9);
    XC_ASSERT_CLOSE(xc_pulscan_ntrials(1001, 3, 200), 332 * (1 + 200 / 6.95), 1e-9);
}

/* ---- signals ---------------------------------------------------------------- */

/* A chirp from r0 to r0 + z0 (noise 1 per sample, 2^17 samples) must come
 * out as the top candidate at the mean r = r0 + z0/2 within 1 bin and
 * z = z0 within 2, from both implementations (measured: z0 = 12, 24, 40, 56
 * give z = 12, 24, 42, 58; z0 = 0 gives width 2 at r0 + 0.5, as a noise
 * power of 11 sits beside it). */
XC_TEST(test_injected_chirp, "injected_chirp")
{
    static const struct {
        double r0, z0, amp;
    } cases[] = {{20000.0, 0.0, 0.05},
                 {30000.0, 12.0, 0.08},
                 {41000.5, 24.0, 0.1},
                 {50000.0, 40.0, 0.12},
                 {25000.0, 56.0, 0.15}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        xc_spectrum sp = spec_chirp(1 << 17, 7 + c, cases[c].amp, cases[c].r0, cases[c].z0);
        xc_psopts o;
        xc_psopts_default(&o);
        o.zmax = 60;
        o.zstep = 1;
        o.numharm = 2;
        for (int m = 0; m < 2; m++) {
            xc_candlist l;
            CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, m ? &xc_ps_cpu : &xc_ps_reference, &sp, &o, &l), XC_OK);
            CU_ASSERT_FATAL(l.n >= 1);
            double rmean = cases[c].r0 + cases[c].z0 / 2;
            if (fabs(l.c[0].r - rmean) > 1 || fabs(l.c[0].z - cases[c].z0) > 2)
                printf("\nchirp r0 %.1f z0 %.0f: top r %.1f z %.0f h %d sigma %.2f\n", cases[c].r0, cases[c].z0,
                       l.c[0].r, l.c[0].z, l.c[0].numharm, l.c[0].sigma);
            CU_ASSERT(fabs(l.c[0].r - rmean) <= 1);
            CU_ASSERT(fabs(l.c[0].z - cases[c].z0) <= 2);
            CU_ASSERT(l.c[0].sigma > 8);
            XC_ASSERT_CLOSE(l.c[0].f_hz, l.c[0].r / sp.T, 1e-12);
            xc_candlist_free(&l);
        }
        xc_spectrum_free(&sp);
    }
}

/* ---- reference against CPU ---------------------------------------------------- */

/* Noise plus a few tones (drifting and not) so that every stage and width
 * has peaks; sizes that are multiples of nothing, odd zmax, short last
 * normalisation blocks, every z sampling, both peak modes, both
 * normalisations and both logp forms, at 1 and 2 threads. */
XC_TEST(test_cpu_matches_reference, "cpu_matches_reference")
{
    const xc_fx_pscfg *cfg = xc_fx_ps_configs;
    const xc_searcher *cpu = &xc_ps_cpu;
    for (size_t c = 0; c < XC_FX_PS_SMALL; c++) {
        xc_spectrum sp = spec_new(cfg[c].nbins, 50.0);
        spec_noise(&sp, 1000 + c, 0.3, 5.0);
        /* tones: a narrow one, a drifting one (a ramp of bins), a harmonic pair */
        size_t n = cfg[c].nbins;
        sp.data[2 * (n / 3)] += 60.0f;
        for (size_t k = n / 2; k < n / 2 + 15; k++)
            sp.data[2 * k + 1] += 22.0f;
        sp.data[2 * (n / 7)] += 40.0f;
        sp.data[2 * (2 * (n / 7))] -= 35.0f;
        sp.data[2 * (size_t)(0.23 * n) + 1] += 45.0f;
        sp.data[2 * (size_t)(0.61 * n)] += 30.0f;
        sp.data[2 * (size_t)(0.87 * n) + 1] -= 50.0f;
        xc_psopts o = xc_fx_ps_opts(&cfg[c]);
        o.threads = 1;
        xc_candlist ref, got;
        CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_reference, &sp, &o, &ref), XC_OK);
        CU_ASSERT(ref.n >= 3);
        for (int th = 1; th <= 2; th++) {
            o.threads = th;
            o.tile = th == 2 ? 100 : 0;     /* tiles that do not divide the R-blocks */
            CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, &sp, &o, &got), XC_OK);
            int same = xc_fx_same_cands(&ref, &got, cpu->impl.tol.value, "reference vs cpu");
            CU_ASSERT(same);
            if (!same)
                printf("config %zu, %d threads\n", c, th);
            xc_candlist_free(&got);
        }
        /* The raw peaks agree too, before any significance or sifting. */
        xc_pspeaks a, b;
        peaks_ref_cpu(&sp, &o, &a, &b);
        qsort(a.p, a.n, sizeof *a.p, xc_pspeak_cmp);
        qsort(b.p, b.n, sizeof *b.p, xc_pspeak_cmp);
        CU_ASSERT_EQUAL(a.n, b.n);
        for (size_t k = 0; k < a.n && k < b.n; k++)
            CU_ASSERT(!xc_pspeak_cmp(&a.p[k], &b.p[k]) && a.p[k].power == b.p[k].power);
        xc_pspeaks_free(&a);
        xc_pspeaks_free(&b);
        xc_candlist_free(&ref);
        xc_spectrum_free(&sp);
    }
}

/* ---- real data ------------------------------------------------------------ */

static xc_spectrum load_j1807(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/sigpyproc3/GBT_J1807-0847.fft", xc_test_datasets());
    xc_spectrum sp;
    xc_error err;
    xc_status st = xc_spectrum_load(&sp, path, &err);
    if (st)
        printf("\n%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    return sp;
}

/* PSR J1807-0847 spins at 6.100 Hz (r = 131 in this 21.47 s spectrum); its
 * harmonics are at r = 262, 394, 525, 656, 787, 918. */
static int j1807_harmonic(double r)
{
    static const double h[] = {131, 262, 394, 525, 656, 787, 918};
    for (size_t k = 0; k < sizeof h / sizeof *h; k++)
        if (fabs(r - h[k]) <= 1.0)
            return (int)k + 1;
    return 0;
}

XC_TEST(test_j1807, "j1807")
{
    xc_spectrum sp = load_j1807();
    CU_ASSERT_EQUAL(sp.nbins, 65536);
    XC_ASSERT_CLOSE(sp.T, 131072 * 0.00016384, 1e-9);
    xc_psopts o;
    xc_psopts_default(&o);
    xc_candlist l, m;
    /* Defaults (zmax 200, one harmonic), both peak modes. */
    for (int rb = 0; rb < 2; rb++) {
        o.rblock = rb;
        CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, &sp, &o, &l), XC_OK);
        CU_ASSERT_FATAL(l.n >= 1);
        CU_ASSERT_EQUAL(j1807_harmonic(l.c[0].r), 1);
        XC_ASSERT_CLOSE(l.c[0].f_hz, 6.100, 0.002);
        CU_ASSERT(l.c[0].sigma > 50);
        xc_candlist_free(&l);
    }
    /* A harmonic search with both implementations: identical, pulsar on top. */
    o.rblock = 0;
    o.zmax = 40;
    o.numharm = 3;
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_reference, &sp, &o, &l), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, &sp, &o, &m), XC_OK);
    CU_ASSERT(xc_fx_same_cands(&l, &m, xc_ps_cpu.impl.tol.value, "J1807 reference vs cpu"));
    CU_ASSERT_FATAL(l.n >= 1);
    CU_ASSERT(j1807_harmonic(l.c[0].r) >= 1);
    if (!j1807_harmonic(l.c[0].r))
        printf("\nJ1807 top: r %.1f z %.0f h %d sigma %.2f\n", l.c[0].r, l.c[0].z, l.c[0].numharm, l.c[0].sigma);
    /* Sifting leaves no harmonic of the pulsar as a separate candidate. */
    for (size_t k = 1; k < l.n; k++)
        CU_ASSERT(j1807_harmonic(l.c[k].r) == 0);
    xc_candlist_free(&l);
    xc_candlist_free(&m);
    xc_spectrum_free(&sp);
}

/* ---- normalisation edge cases ---------------------------------------------- */

/* A block with MAD 0 (all zero, or more than half of its values equal)
 * borrows the median and MAD of the nearest block with a non-zero MAD
 * instead of staying raw; a spectrum constant throughout is refused.  A short remainder joins the
 * last block, so Pulscan's 1-bin last block (measured: a 773-sigma false
 * candidate) cannot happen. */
XC_TEST(test_mad_zero, "mad_zero")
{
    size_t W = 1000, nbins = 4 * W + 1;
    xc_spectrum sp = spec_new(nbins, 10.0);
    spec_noise(&sp, 42, 0.0, 3.0);
    for (size_t k = 2 * W + 1; k < 3 * W + 1; k++)
        sp.data[2 * k] = sp.data[2 * k + 1] = 0.0f;      /* block 2: all zero */
    for (size_t k = 3 * W + 1; k < 3 * W + 1 + 600; k++)
        sp.data[2 * k + 1] = 1.25f;                       /* block 3: 60% equal imaginary parts */
    xc_psopts o;
    xc_psopts_default(&o);
    o.normwidth = W;
    double *P = malloc(nbins * sizeof *P), *Pc = malloc(nbins * sizeof *Pc);
    CU_ASSERT_FATAL(P && Pc);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_reference, &sp, &o, P, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_cpu, &sp, &o, Pc, &err), XC_OK);
    double maxz = 0, max3 = 0;
    for (size_t k = 1; k < nbins; k++) {
        CU_ASSERT(isfinite(P[k]) && P[k] == Pc[k]);
        if (k > 2 * W && k <= 3 * W)
            maxz = fmax(maxz, P[k]);
        if (k > 3 * W)
            max3 = fmax(max3, P[k]);
    }
    /* Both borrow block 1's statistics (median about 0, scale 3): zeros give
     * powers near 0, block 3's noise ordinary powers (below 40 in 1000 bins
     * but once in 4e5), never raw values or infinities. */
    CU_ASSERT(maxz < 0.05);
    CU_ASSERT(max3 < 40);
    o.zmax = 20;
    xc_candlist l, m;
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_reference, &sp, &o, &l), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, &sp, &o, &m), XC_OK);
    CU_ASSERT(xc_fx_same_cands(&l, &m, 0, "MAD 0 reference vs cpu"));
    for (size_t k = 0; k < l.n; k++)
        CU_ASSERT(l.c[k].sigma < 6);
    xc_candlist_free(&l);
    xc_candlist_free(&m);

    /* Constant throughout: refused, naming the part. */
    for (size_t k = 0; k < 2 * nbins; k++)
        sp.data[k] = 5.0f;
    CU_ASSERT_EQUAL(xc_pulscan_powers(&xc_ps_reference, &sp, &o, P, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "median absolute deviation of 0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "real parts"));
    CU_ASSERT_EQUAL(xc_pulscan_powers(&xc_ps_cpu, &sp, &o, P, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "real parts"));
    free(P);
    free(Pc);
    xc_spectrum_free(&sp);

    /* Pulscan's case: 3 blocks and 1 bin left over. */
    CU_ASSERT_EQUAL(xc_pulscan_nblocks(3 * W + 2, W), 3);
    size_t lo, hi;
    xc_pulscan_block(3 * W + 2, W, 2, &lo, &hi);
    CU_ASSERT_EQUAL(lo, 2 * W + 1);
    CU_ASSERT_EQUAL(hi, 3 * W + 2);
    xc_pulscan_block(3 * W + 2, W, 0, &lo, &hi);
    CU_ASSERT_EQUAL(lo, 1);     /* bin 0 (DC, Nyquist) is never in a block */
    CU_ASSERT_EQUAL(xc_pulscan_nblocks(500, W), 1);
    sp = spec_new(3 * W + 2, 10.0);
    spec_noise(&sp, 43, 100.0, 0.5);
    o.zmax = 10;
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, &sp, &o, &l), XC_OK);
    for (size_t k = 0; k < l.n; k++)
        CU_ASSERT(l.c[k].sigma < 6);
    xc_candlist_free(&l);
    xc_spectrum_free(&sp);
}

/* Non-finite input is refused with the bin and byte offset. */
XC_TEST(test_bad_input, "bad_input")
{
    xc_spectrum sp = spec_new(1000, 1.0);
    spec_noise(&sp, 5, 0, 1);
    sp.data[2 * 77 + 1] = NAN;
    xc_psopts o;
    xc_psopts_default(&o);
    xc_candlist l;
    xc_error err;
    CU_ASSERT_EQUAL(xc_pulscan_run(&xc_ps_cpu, &sp, &o, &l, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bin 77"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "byte offset 620"));
    CU_ASSERT_EQUAL(xc_pulscan_run(&xc_ps_reference, &sp, &o, &l, &err), XC_EFORMAT);
    xc_spectrum_free(&sp);

    static const struct {
        const char *what;
        int field;
        double v;
    } bad[] = {{"-zmax", 0, -1}, {"-numharm", 1, 9}, {"-sigma", 2, -0.5}, {"-zstep", 3, 0},
               {"-normalizechunkwidth", 4, 8}, {"-chunkwidth", 5, 0}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        xc_psopts_default(&o);
        switch (bad[k].field) {
        case 0: o.zmax = (int)bad[k].v; break;
        case 1: o.numharm = (int)bad[k].v; break;
        case 2: o.sigma = bad[k].v; break;
        case 3: o.zstep = (int)bad[k].v; break;
        case 4: o.normwidth = (size_t)bad[k].v; break;
        default: o.chunkwidth = (size_t)bad[k].v; break;
        }
        CU_ASSERT_EQUAL(xc_psopts_check(&o, &err), XC_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[k].what));
    }
}

/* The .fft + .inf reader: sizes must agree, the name must end in .fft. */
XC_TEST(test_spectrum_load, "spectrum_load")
{
    char fft[1024], inf[1024];
    snprintf(fft, sizeof fft, "%s/t.fft", xc_test_tmpdir());
    snprintf(inf, sizeof inf, "%s/t.inf", xc_test_tmpdir());
    float data[16];
    for (int k = 0; k < 16; k++)
        data[k] = (float)k;
    FILE *fp = fopen(fft, "wb");
    CU_ASSERT_FATAL(fp != NULL);
    fwrite(data, sizeof(float), 16, fp);
    fclose(fp);
    xc_inf in;
    xc_inf_init(&in);
    snprintf(in.name, sizeof in.name, "t");
    snprintf(in.telescope, sizeof in.telescope, "None (Artificial Data Set)");
    in.n = 16;
    in.dt = 0.5;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_inf_write(&in, inf, &err), XC_OK);
    xc_spectrum sp;
    CU_ASSERT_EQUAL_FATAL(xc_spectrum_load(&sp, fft, &err), XC_OK);
    CU_ASSERT_EQUAL(sp.nbins, 8);
    XC_ASSERT_CLOSE(sp.T, 8.0, 1e-12);
    CU_ASSERT_EQUAL(sp.data[5], 5.0f);
    xc_spectrum_free(&sp);
    in.n = 18;
    CU_ASSERT_EQUAL_FATAL(xc_inf_write(&in, inf, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_spectrum_load(&sp, fft, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "64 bytes"));
    CU_ASSERT_EQUAL(xc_spectrum_load(&sp, inf, &err), XC_EINVAL);
    remove(inf);
    CU_ASSERT_EQUAL(xc_spectrum_load(&sp, fft, &err), XC_EIO);
}

/* ---- sifting, approximations ------------------------------------------------ */

static xc_cand mk(double r, int w, int h, double sigma)
{
    return (xc_cand){.r = r, .width = w, .z = w - 1, .numharm = h, .sigma = sigma};
}

XC_TEST(test_sift, "sift")
{
    xc_candlist l;
    xc_candlist_init(&l);
    xc_error err;
    const xc_cand in[] = {
        mk(1000.0, 1, 1, 10),   /* kept: the strongest */
        mk(1001.5, 4, 1, 8),    /* |dr| 1.5 <= max(2, (1+4)/2): same cluster */
        mk(1000.0, 1, 2, 9),    /* same place at stage 2: same cluster */
        mk(1010.0, 1, 1, 7),    /* 10 bins away: kept */
        mk(1040.0, 41, 1, 6.5), /* 40 bins away but its boxcar reaches 1020: kept (|dr| 30 > 21) */
        mk(2000.5, 1, 1, 6),    /* 2 x 1000 within 1.1 (1 + 2): its 2nd harmonic */
        mk(333.0, 1, 3, 5),     /* stage 3: its 3rd harmonic (999) on 1000 (|333 - 1000/3| <= 1.1 (1 + 1/3)) */
        mk(1501.0, 1, 2, 4),    /* stage 2: its 2nd harmonic (3002) on 1000's 3rd: q = 3/2 */
        mk(1111.1, 1, 1, 3),    /* ratios 1.111, 1.100, 1.068: no integer n <= 16: kept */
        mk(1190.0, 1, 1, 2),    /* 8/7 x 1040 = 1188.6: a stage-1 candidate sums no harmonic that could
                                   hold 1040's power, and the wide one's width widens nothing: kept */
        mk(500.3, 1, 1, 1.9),   /* 1000 / 2, stage 1: its one harmonic, 500, holds nothing of 1000: kept */
        mk(251.0, 1, 1, 1.8),   /* 1000 / 4 off by 1: a stage-1 sub-harmonic is never related: kept */
    };
    for (size_t k = 0; k < sizeof in / sizeof *in; k++)
        CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&l, &in[k], &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_sift(&l, &err), XC_OK);
    static const double kept[] = {1000.0, 1010.0, 1040.0, 1111.1, 1190.0, 500.3, 251.0};
    CU_ASSERT_EQUAL_FATAL(l.n, sizeof kept / sizeof *kept);
    for (size_t k = 0; k < l.n; k++)
        CU_ASSERT_EQUAL(l.c[k].r, kept[k]);
    CU_ASSERT_EQUAL(l.c[0].numharm, 1);
    xc_candlist_free(&l);
}

/* The GPU version's approximations, measurable on the CPU: the median of
 * medians and the appendix polynomial change the numbers by plausible
 * amounts (a few per cent in scale; ln p within 25% where the polynomial
 * is defined) and still find the pulsar. */
XC_TEST(test_mom_and_poly, "mom_and_poly")
{
    xc_spectrum sp = spec_chirp(1 << 16, 99, 0.12, 12000.0, 20.0);
    xc_psopts o;
    xc_psopts_default(&o);
    o.normwidth = 4096;
    double *Pe = malloc(sp.nbins * sizeof *Pe), *Pm = malloc(sp.nbins * sizeof *Pm);
    CU_ASSERT_FATAL(Pe && Pm);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_cpu, &sp, &o, Pe, &err), XC_OK);
    o.norm = XC_NORM_MOM;
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_cpu, &sp, &o, Pm, &err), XC_OK);
    double se = 0, sm = 0, maxrel = 0;
    for (size_t k = 1; k < sp.nbins; k++) {
        se += Pe[k];
        sm += Pm[k];
        maxrel = fmax(maxrel, fabs(Pm[k] / Pe[k] - 1));
    }
    double ratio = sm / se;
    CU_ASSERT(ratio > 0.8 && ratio < 1.25);
    CU_ASSERT(maxrel > 1e-4);      /* it is an approximation, not the exact median */
    double *Pr = malloc(sp.nbins * sizeof *Pr);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_reference, &sp, &o, Pr, &err), XC_OK);
    CU_ASSERT(memcmp(Pr, Pm, sp.nbins * sizeof *Pr) == 0);
    free(Pr);

    o.zmax = 30;
    xc_candlist e, m, p;
    o.norm = XC_NORM_EXACT;
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, &sp, &o, &e), XC_OK);
    o.norm = XC_NORM_MOM;
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, &sp, &o, &m), XC_OK);
    o.norm = XC_NORM_EXACT;
    o.logp = XC_LOGP_POLY;
    CU_ASSERT_EQUAL_FATAL(xc_fx_search(NULL, &xc_ps_cpu, &sp, &o, &p), XC_OK);
    CU_ASSERT_FATAL(e.n >= 1 && m.n >= 1 && p.n >= 1);
    CU_ASSERT(fabs(e.c[0].r - 12010) <= 1 && fabs(m.c[0].r - 12010) <= 1 && fabs(p.c[0].r - 12010) <= 1);
    CU_ASSERT(e.c[0].power != m.c[0].power);
    CU_ASSERT(fabs(m.c[0].power / e.c[0].power - 1) < 0.2);
    CU_ASSERT_EQUAL(p.c[0].power, e.c[0].power);
    CU_ASSERT(p.c[0].logp != e.c[0].logp);
    CU_ASSERT(fabs(p.c[0].logp / e.c[0].logp - 1) < 0.25);
    printf("\n  top candidate: exact power %.2f logp %.3f sigma %.3f | mom power %.2f sigma %.3f | "
           "poly logp %.3f sigma %.3f\n",
           e.c[0].power, e.c[0].logp, e.c[0].sigma, m.c[0].power, m.c[0].sigma, p.c[0].logp, p.c[0].sigma);
    xc_candlist_free(&e);
    xc_candlist_free(&m);
    xc_candlist_free(&p);
    free(Pe);
    free(Pm);
    xc_spectrum_free(&sp);
}

/* ---- the command line ------------------------------------------------------ */



XC_TEST_IF(test_cli, "cli", xc_fx_skip_no_bin)
{
    char args[2048], out[1024], line[256];
    snprintf(out, sizeof out, "%s/j.csv", xc_test_tmpdir());
    snprintf(args, sizeof args, "pulscan -i %s/sigpyproc3/GBT_J1807-0847.fft -impl cpu -zmax 20 -numharm 2 -o %s",
             xc_test_datasets(), out);
    CU_ASSERT_EQUAL(xc_fx_run_cli(args), 0);
    FILE *fp = fopen(out, "r");
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, fp));
    CU_ASSERT_EQUAL(strncmp(line, "r,f_hz,z,width,numharm,power,dof,logp,sigma", 43), 0);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, fp));
    CU_ASSERT_EQUAL(strncmp(line, "131,", 4), 0);
    fclose(fp);
    CU_ASSERT_EQUAL(xc_fx_run_cli("pulscan -h"), 0);
    CU_ASSERT_EQUAL(xc_fx_run_cli("pulscan -i nothere.fft"), 2);
    CU_ASSERT_EQUAL(xc_fx_run_cli("pulscan -zmax -3 -i x.fft"), 2);
    snprintf(args, sizeof args, "pulscan -i %s/sigpyproc3/GBT_J1807-0847.fft -impl bogus -o %s", xc_test_datasets(), out);
    CU_ASSERT_EQUAL(xc_fx_run_cli(args), 2);
}

/* xc_pulscan_finish with peaks a searcher scored itself (the GPU's log p
 * stage): the peak's own logp is used, sigma follows from it and the trials,
 * and an R-block peak's own fill result decides (no powers needed). */
XC_TEST(test_finish_prescored, "finish_prescored")
{
    const xc_spectrum sp = {.nbins = 1001, .T = 10.0};   /* no bins: the peaks carry their own scores */
    xc_pspeaks pk;
    xc_pspeaks_init(&pk);
    xc_error err;
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = 10;
    o.rblock = 1;
    o.sigma = 0;
    CU_ASSERT_EQUAL_FATAL(xc_pspeaks_push(&pk, 100, 5, 1, 80.0, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_pspeaks_push(&pk, 700, 9, 1, 90.0, &err), XC_OK);
    CU_ASSERT(isnan(pk.p[0].logp) && pk.p[0].filled == -1);
    pk.p[0].logp = -30.0;     /* not what the power gives: it must be taken as it is */
    pk.p[0].filled = 1;
    pk.p[1].logp = -35.0;
    pk.p[1].filled = 0;       /* fails its fill test: dropped by sifting */
    xc_candlist l;
    xc_candlist_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_finish(&o, &sp, NULL, &pk, &l, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(l.n, 1);
    CU_ASSERT_EQUAL(l.c[0].r, 102.0);
    CU_ASSERT_EQUAL(l.c[0].logp, -30.0);
    double ntr = xc_pulscan_ntrials(sp.nbins, 1, o.zmax);
    CU_ASSERT_EQUAL(l.c[0].sigma, xc_sigma_from_logp(-30.0 + log(ntr)));
    /* An R-block peak without its fill result needs the powers. */
    pk.n = 0;
    CU_ASSERT_EQUAL_FATAL(xc_pspeaks_push(&pk, 100, 5, 1, 80.0, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_pulscan_finish(&o, &sp, NULL, &pk, &l, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "need the powers"));
    xc_candlist_free(&l);
    xc_pspeaks_free(&pk);
}

XC_TEST_MAIN("pulscan")
