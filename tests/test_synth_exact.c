/* Tests of the exact quantised-noise generator (synth -noise exact): its
 * level probabilities against the normal CDF, chi-square goodness of fit of
 * the written levels at 1, 2, 4, 8 and 16 bits, independence of neighbouring
 * values, and every written value against its definition (drawn from the
 * table where there is no signal, the Gaussian path's where there is), and
 * the law of values with a constant signal.
 *
 * The chi-square tests use a p-value threshold of 1e-3 (false-alarm rate
 * 1e-3) and the correlations 5-sigma bounds; the seeds are fixed, so a run
 * always passes or always fails.  Each test prints what it measured. */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_filterbank.h"
#include "synth/model/xc_synth.h"
#include "synth/noise/synth_levels.h"
#include "synth/noise/synth_noise.h"
#include "tests/xc_test.h"

/* A sink keeping every byte. */
typedef struct {
    uint8_t *b;
    size_t n, cap;
} mem_sink;

static int keep(void *ctx, const uint8_t *b, size_t n)
{
    mem_sink *m = ctx;
    if (m->n + n > m->cap) {
        size_t cap = 2 * (m->n + n);
        uint8_t *nb = realloc(m->b, cap);
        if (!nb)
            return 1;
        m->b = nb;
        m->cap = cap;
    }
    memcpy(m->b + m->n, b, n);
    m->n += n;
    return 0;
}

/* The levels (or floats, nbits 32: into *f) p writes, as n values. */
static uint16_t *stream_levels(const xc_synth_params *p, size_t *n, float **f)
{
    mem_sink m = {NULL, 0, 0};
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_synth_stream(p, keep, &m, &err), XC_OK);
    *n = (size_t)xc_synth_nsamp(p) * (size_t)p->nchans;
    CU_ASSERT_EQUAL_FATAL(m.n, *n * (size_t)p->nbits / 8);
    if (p->nbits == 32) {
        *f = (float *)m.b;
        return NULL;
    }
    uint16_t *v = malloc(*n * sizeof *v);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    xc_fb_unpack_u16(m.b, *n, p->nbits, p->bitorder, v);
    free(m.b);
    return v;
}

static void exact_params(xc_synth_params *p, int nbits, int nchans, double tobs)
{
    xc_synth_params_init(p);
    p->nchans = nchans;
    p->nbits = nbits;
    p->tsamp = 100e-6;
    p->tobs = tobs;
    p->seed = 11;
    p->noise_gen = XC_NOISE_EXACT;
}

/* Boundary k (1..2^nbits - 1) of the levels: level k starts at it (1 bit: 0). */
static double level_boundary(int nbits, int k)
{
    const int nl = 1 << nbits;
    return nbits == 1 ? 0.0 : XC_SYNTH_QMIN + (k - 0.5) * (XC_SYNTH_QMAX - XC_SYNTH_QMIN) / (nl - 1);
}

/* The normal law of quantise(sd Z + mu) per level, from GSL (not the library's erfc). */
static void gsl_level_probs(int nbits, double sd, double mu, double *pr)
{
    const int nl = 1 << nbits;
    for (int k = 0; k < nl; k++) {
        double lo = k == 0 ? -INFINITY : (level_boundary(nbits, k) - mu) / sd;
        double hi = k == nl - 1 ? INFINITY : (level_boundary(nbits, k + 1) - mu) / sd;
        pr[k] = hi <= 0 ? gsl_cdf_ugaussian_P(hi) - gsl_cdf_ugaussian_P(lo)
                        : gsl_cdf_ugaussian_Q(lo) - gsl_cdf_ugaussian_Q(hi);
    }
}

/* Chi-square of the level histogram against pr, neighbouring levels pooled
 * until each bin expects >= 5 counts; its p-value, the statistic and the dof. */
static double gof(const uint16_t *v, size_t n, int nbits, const double *pr, double *chi2, int *dof)
{
    const int nl = 1 << nbits;
    double *obs = calloc((size_t)nl, sizeof *obs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
    for (size_t i = 0; i < n; i++)
        obs[v[i]]++;
    /* pool in place: bins[b] gathers levels until it expects 5 (the last takes the rest) */
    double *exp_ = calloc((size_t)nl, sizeof *exp_), *got = calloc((size_t)nl, sizeof *got);
    CU_ASSERT_PTR_NOT_NULL_FATAL(exp_);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    int bins = 0;
    for (int k = 0; k < nl; k++) {
        exp_[bins] += pr[k] * (double)n;
        got[bins] += obs[k];
        bins += exp_[bins] >= 5 && k < nl - 1;
    }
    bins += exp_[bins] > 0;
    *chi2 = 0;
    for (int b = 0; b < bins; b++)
        *chi2 += (got[b] - exp_[b]) * (got[b] - exp_[b]) / exp_[b];
    free(exp_);
    free(got);
    free(obs);
    CU_ASSERT_FATAL(bins > 1);
    *dof = bins - 1;
    return gsl_cdf_chisq_Q(*chi2, *dof);
}

XC_TEST(test_exact_level_probs, "exact_level_probs")
{
    /* The library's probabilities (erfc from the nearer tail) against GSL's
     * normal CDF: within 1e-13 each (both near double precision; the alias
     * table rounds them to 2^-32 = 2.3e-10), summing to 1 within 1e-12. */
    static const int nbits[5] = {1, 2, 4, 8, 16};
    double *a = malloc(65536 * sizeof *a), *b = malloc(65536 * sizeof *b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    for (int t = 0; t < 5; t++) {
        const int nl = 1 << nbits[t];
        xc_synth_level_probs(nbits[t], a);
        gsl_level_probs(nbits[t], 1.0, 0.0, b);
        double sum = 0, worst = 0;
        for (int k = 0; k < nl; k++) {
            sum += a[k];
            worst = fmax(worst, fabs(a[k] - b[k]));
        }
        if (worst > 1e-13 || fabs(sum - 1) > 1e-12)
            printf("\n  %d bits: worst |p - gsl| %.3g (tolerance 1e-13), sum - 1 = %.3g (tolerance 1e-12)\n",
                   nbits[t], worst, sum - 1);
        CU_ASSERT(worst <= 1e-13);
        CU_ASSERT(fabs(sum - 1) <= 1e-12);
    }
    free(a);
    free(b);
}

XC_TEST(test_exact_noise_chisq, "exact_noise_chisq")
{
    /* Noise-only files from the exact generator: the level histogram fits the
     * quantised N(0,1) (p > 1e-3) at every width, and fails the law of a
     * 1.02-sigma Gaussian at 8 bits (p < 1e-3: the test has power). */
    static const int nbits[5] = {1, 2, 4, 8, 16};
    static const double tobs[5] = {0.2, 0.2, 0.2, 2.0, 4.0};
    double *pr = malloc(65536 * sizeof *pr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pr);
    for (int t = 0; t < 5; t++) {
        xc_synth_params p;
        exact_params(&p, nbits[t], 64, tobs[t]);
        size_t n;
        float *f;
        uint16_t *v = stream_levels(&p, &n, &f);
        gsl_level_probs(nbits[t], 1.0, 0.0, pr);
        double chi2;
        int dof;
        double pv = gof(v, n, nbits[t], pr, &chi2, &dof);
        printf("\n  exact %2d-bit, %zu values: chi2 %.1f, dof %d, p %.3f (must be > 1e-3)", nbits[t], n, chi2, dof,
               pv);
        CU_ASSERT(pv > 1e-3);
        if (nbits[t] == 8) {
            gsl_level_probs(8, 1.02, 0.0, pr);
            double pw = gof(v, n, 8, pr, &chi2, &dof);
            printf("\n  the same against a 1.02-sigma law: chi2 %.1f, dof %d, p %.3g (must be < 1e-3)", chi2, dof, pw);
            CU_ASSERT(pw < 1e-3);
        }
        free(v);
        xc_synth_params_free(&p);
    }
    printf("\n");
    free(pr);
}

XC_TEST(test_exact_noise_independent, "exact_noise_independent")
{
    /* Neighbouring channels (the four of one Philox block, and across blocks)
     * and neighbouring samples are uncorrelated: each lag-1 correlation within
     * 5/sqrt(n) of 0. */
    xc_synth_params p;
    exact_params(&p, 8, 64, 2.0);
    size_t n;
    float *f;
    uint16_t *v = stream_levels(&p, &n, &f);
    const size_t nch = 64, ns = n / nch;
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += v[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        var += (v[i] - mean) * (v[i] - mean);
    var /= (double)n;
    double cc = 0, ct = 0;
    for (size_t s = 0; s < ns; s++)
        for (size_t c = 0; c < nch; c++) {
            const double a = v[s * nch + c] - mean;
            if (c + 1 < nch)
                cc += a * (v[s * nch + c + 1] - mean);
            if (s + 1 < ns)
                ct += a * (v[(s + 1) * nch + c] - mean);
        }
    cc /= (double)(ns * (nch - 1)) * var;
    ct /= (double)((ns - 1) * nch) * var;
    const double tol = 5 / sqrt((double)n);
    printf("\n  lag-1 correlation: channels %.2e, samples %.2e (tolerance %.2e)\n", cc, ct, tol);
    CU_ASSERT(fabs(cc) < tol);
    CU_ASSERT(fabs(ct) < tol);
    free(v);
    xc_synth_params_free(&p);
}

XC_TEST(test_exact_values_defined, "exact_values_defined")
{
    /* Every value of a file with a bright pulsar against its definition: where
     * the noiseless signal s (a 32-bit -nonoise file of the same parameters)
     * is nonzero, xc_synth_quantise(xc_synth_noise + s); elsewhere the table's
     * level of the value's 16 bits, a tie's refined by its own word
     * (xc_synth_level_exact and the definition written out here).  Exact, at
     * 8 bits (the vector paths) and 4 bits (packed). */
    static const int nbits[3] = {8, 4, 8}, nchans[3] = {36, 36, 37};   /* partial vectors; 37: a partial quad */
    for (int t = 0; t < 3; t++) {
        xc_synth_params p, q;
        exact_params(&p, nbits[t], nchans[t], 0.2);
        p.fch1 = 1500;
        p.foff = -4;
        p.psr.period_ms = 3;
        p.psr.dm = 60;
        p.psr.snrpeak = 30;
        p.psr.width_pct = 10;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_synth_params_copy(&q, &p, &err), XC_OK);
        q.nbits = 32;
        q.noise = 0;
        size_t n, nq;
        float *s, *unused;
        uint16_t *v = stream_levels(&p, &n, &unused);
        stream_levels(&q, &nq, &s);
        CU_ASSERT_EQUAL_FATAL(n, nq);
        xc_levels tab;
        CU_ASSERT_EQUAL_FATAL(xc_levels_init(&tab, nbits[t], &err), XC_OK);
        size_t bad = 0, with = 0, ties = 0;
        for (size_t i = 0; i < n; i++) {
            const uint64_t smp = i / (size_t)nchans[t];
            const int c = (int)(i % (size_t)nchans[t]);
            uint16_t want;
            if (s[i] != 0.0f) {
                want = xc_synth_quantise(xc_synth_noise(p.seed, smp, c) + s[i], nbits[t]);
                with++;
            } else {
                /* the definition (synth_levels.h): 16 bits of block c / 8, a tie's 16 more of counter (smp, c) */
                uint32_t w[4];
                xc_synth_words(p.seed, XC_STREAM_LEVEL, smp, (uint32_t)c >> 3, w);
                const uint32_t h = (w[(c & 7) >> 1] >> (16 * (c & 1))) & 0xffffu;
                const int sh = 16 - nbits[t];
                const uint32_t col = h >> sh, r = h & ((1u << sh) - 1), thr = tab.thr[col];
                if (r == thr >> 16) {
                    ties++;
                    xc_synth_words(p.seed, XC_STREAM_TIE, smp, (uint32_t)c, w);
                    want = (w[0] & 0xffffu) < (thr & 0xffffu) ? (uint16_t)col : tab.alias[col];
                } else {
                    want = r < thr >> 16 ? (uint16_t)col : tab.alias[col];
                }
                if (i % 997 == 0 || r == thr >> 16)
                    CU_ASSERT_EQUAL(want, xc_synth_level_exact(p.seed, smp, c, nbits[t]));
            }
            if (v[i] != want && bad++ < 3)
                printf("\n  %d bits, sample %llu chan %d: level %u, expected %u (exact; signal %g)", nbits[t],
                       (unsigned long long)smp, c, v[i], want, s[i]);
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(with > n / 50);   /* the signal path was exercised */
        printf("\n  %d bits: %zu values, %zu with signal, %zu ties refined (expected about %.0f)", nbits[t], n, with,
               ties, (double)(n - with) / (1 << (16 - nbits[t])));
        CU_ASSERT(ties > 0);        /* and the ties' refinement */
        xc_levels_free(&tab);
        free(v);
        free(s);
        xc_synth_params_free(&p);
        xc_synth_params_free(&q);
    }
}

XC_TEST(test_exact_signal_chisq, "exact_signal_chisq")
{
    /* Values with a constant signal s through the part path (quantise of the
     * quad's Box-Muller Gaussian plus s; the vector path at 8 bits and 512
     * channels, the scalar path at 37 channels, a partial quad, and other
     * widths): the level histogram fits the law of quantise(Z + s),
     * Phi(hi - s) - Phi(lo - s) from GSL (p > 1e-3), at several s, and the
     * first fails the law at s + 0.02 (p < 1e-3: the test has power); the
     * signal is left all zero. */
    static const struct {
        int nbits, nch;
        size_t rows;
        float s;
    } cs[] = {{8, 512, 2500, 0.02f}, {8, 512, 2500, -0.5f}, {8, 512, 2500, 1.5f}, {8, 37, 20000, 3.9f},
              {8, 512, 2500, 0.7f},  {4, 64, 4000, 0.3f},   {1, 64, 4000, 0.1f},  {16, 64, 40000, -0.7f}};
    double *pr = malloc(65536 * sizeof *pr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pr);
    for (size_t t = 0; t < sizeof cs / sizeof cs[0]; t++) {
        const size_t n = cs[t].rows * (size_t)cs[t].nch;
        float *x = malloc(n * sizeof *x);
        uint16_t *lev = malloc(n * sizeof *lev), *v = malloc(n * sizeof *v);
        uint8_t *out = malloc(n * 2);
        CU_ASSERT_FATAL(x && lev && v && out);
        for (size_t i = 0; i < n; i++)
            x[i] = cs[t].s;
        xc_levels tab;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_levels_init(&tab, cs[t].nbits, &err), XC_OK);
        xc_levels_part(&tab, 5, 1000, cs[t].rows, cs[t].nch, x, lev, XC_BITORDER_LSB, out);
        xc_fb_unpack_u16(out, n, cs[t].nbits, XC_BITORDER_LSB, v);
        size_t left = 0;
        for (size_t i = 0; i < n; i++)
            left += x[i] != 0.0f;
        CU_ASSERT_EQUAL(left, 0);
        gsl_level_probs(cs[t].nbits, 1.0, cs[t].s, pr);
        double chi2;
        int dof;
        const double pv = gof(v, n, cs[t].nbits, pr, &chi2, &dof);
        printf("\n  %2d bits, %3d channels, s %5.2f, %zu values: chi2 %.1f, dof %d, p %.3f (must be > 1e-3)",
               cs[t].nbits, cs[t].nch, cs[t].s, n, chi2, dof, pv);
        CU_ASSERT(pv > 1e-3);
        if (t == 0) {
            gsl_level_probs(cs[t].nbits, 1.0, cs[t].s + 0.02, pr);
            const double pw = gof(v, n, cs[t].nbits, pr, &chi2, &dof);
            printf("\n  the same against s + 0.02: chi2 %.1f, dof %d, p %.3g (must be < 1e-3)", chi2, dof, pw);
            CU_ASSERT(pw < 1e-3);
        }
        xc_levels_free(&tab);
        free(x);
        free(lev);
        free(v);
        free(out);
    }
    printf("\n");
    free(pr);
}

XC_TEST_MAIN("synth_exact")
