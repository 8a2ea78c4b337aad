/* Tests of the filterbank synthesizer: reproducibility, noise statistics,
 * pulse arrival times, the truth file and the header written.
 *
 * Statistical checks use 5-sigma bounds (two-sided false-alarm rate 5.7e-7
 * each) and the chi-square goodness-of-fit tests a p-value threshold of 1e-3
 * (false-alarm rate 1e-3).  The seeds are fixed, so a run either always passes
 * or always fails; the thresholds say how unlucky a correct generator would
 * have to be to fail. */
#include <dirent.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "core/io/xc_fft.h"
#include "core/io/xc_filterbank.h"
#include "tests/xc_fixture.h"
#include "core/io/xc_presto.h"
#include "synth/model/xc_synth.h"
#include "synth/signal/synth_signal.h"
#include "synth/write/xc_synth_dedisp.h"
#include "tests/xc_test.h"

/* Writes p to path and reads the data back as floats (any nbits): out[nsamp*nchans]. */
static float *write_and_read(const xc_synth_params *p, const char *path, uint64_t *nsamp)
{
    xc_error err;
    xc_status st = xc_synth_write(p, path, NULL, "test_synth", &err);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    xc_fbreader *r;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, &err), XC_OK);
    const xc_fbheader *h = xc_fbreader_header(r);
    *nsamp = h->nsamp;
    float *x = malloc((size_t)h->nsamp * (size_t)h->nchans * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_read_f32(r, 0, (size_t)h->nsamp, 0, x, &err), XC_OK);
    xc_fbreader_close(r);
    return x;
}

XC_TEST(test_philox_known_answers, "philox_known_answers")
{
    /* Random123 kat_vectors, "philox4x32 10" lines: counter, key -> output. */
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e,
         0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
         0x5001e420, 0x24126ea1},
    };
    for (int t = 0; t < 3; t++) {
        uint32_t out[4];
        xc_synth_philox4x32_10(kat[t], kat[t] + 4, out);
        for (int i = 0; i < 4; i++)
            CU_ASSERT_EQUAL(out[i], kat[t][6 + i]);
    }
}

XC_TEST(test_noise_spectrum_matches_single_values, "noise_spectrum_matches_single_values")
{
    float s[7];
    xc_synth_noise_spectrum(99, 123456789012ull, 7, s);
    for (int c = 0; c < 7; c++)
        CU_ASSERT_EQUAL(s[c], xc_synth_noise(99, 123456789012ull, c));
    /* neighbouring counters and seeds give different values */
    CU_ASSERT_NOT_EQUAL(xc_synth_noise(99, 0, 0), xc_synth_noise(99, 1, 0));
    CU_ASSERT_NOT_EQUAL(xc_synth_noise(99, 0, 0), xc_synth_noise(100, 0, 0));
    CU_ASSERT_NOT_EQUAL(xc_synth_noise(99, 0, 0), xc_synth_noise(99, 0, 2));
}

static double lcg_unit(uint64_t *z)
{
    *z = *z * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*z >> 11) * 0x1p-53;
}

XC_TEST(test_quantise_levels, "quantise_levels")
{
    /* 8 bits: (x + 4)*255/8, rint (half to even), clipped */
    CU_ASSERT_EQUAL(xc_synth_quantise(0.0f, 8), 128);      /* 127.5 -> 128 */
    CU_ASSERT_EQUAL(xc_synth_quantise(-4.0f, 8), 0);
    CU_ASSERT_EQUAL(xc_synth_quantise(4.0f, 8), 255);
    CU_ASSERT_EQUAL(xc_synth_quantise(1.0f, 8), 159);      /* 159.375 */
    CU_ASSERT_EQUAL(xc_synth_quantise(-100.0f, 8), 0);
    CU_ASSERT_EQUAL(xc_synth_quantise(100.0f, 8), 255);
    /* 2 bits: thresholds at -8/3, 0, +8/3 sigma (fake measured 0.4/49.7/49.6/0.4 %) */
    CU_ASSERT_EQUAL(xc_synth_quantise(-2.7f, 2), 0);
    CU_ASSERT_EQUAL(xc_synth_quantise(-2.6f, 2), 1);
    CU_ASSERT_EQUAL(xc_synth_quantise(-0.01f, 2), 1);
    CU_ASSERT_EQUAL(xc_synth_quantise(0.01f, 2), 2);
    CU_ASSERT_EQUAL(xc_synth_quantise(2.7f, 2), 3);
    /* 4 bits: (x + 4)*15/8 */
    CU_ASSERT_EQUAL(xc_synth_quantise(0.0f, 4), 8);        /* 7.5 -> 8 */
    CU_ASSERT_EQUAL(xc_synth_quantise(-0.3f, 4), 7);       /* 6.9375 */
    /* 16 bits */
    CU_ASSERT_EQUAL(xc_synth_quantise(0.0f, 16), 32768);   /* 32767.5 -> 32768 */
    CU_ASSERT_EQUAL(xc_synth_quantise(5.0f, 16), 65535);
    /* 1 bit: the sign */
    CU_ASSERT_EQUAL(xc_synth_quantise(0.0f, 1), 0);
    CU_ASSERT_EQUAL(xc_synth_quantise(1e-6f, 1), 1);
    CU_ASSERT_EQUAL(xc_synth_quantise(-3.9f, 1), 0);       /* fake's 1-bit would set this one */
}

XC_TEST(test_quantise_pack_matches_scalar, "quantise_pack_matches_scalar")
{
    /* The 8-bit packer (AVX-512F and SSE2 blocks, a scalar tail) gives each
     * value xc_synth_quantise's level: exact ties (x + 4 a multiple of 4/255,
     * half to even), the clipping at both ends, infinities and NaN (level 0),
     * on 1000 + 37 values so every block width and the tail are used. */
    enum { N = 1037 };
    static float x[N];
    uint8_t out[N];
    uint64_t z = 99;
    for (int i = 0; i < N; i++) {
        switch (i % 5) {
        case 0: x[i] = (float)((i % 300) - 20) * (1.0f / 31.875f) - 4.0f + 0.5f / 31.875f; break;
        case 1: x[i] = (float)(16 * lcg_unit(&z) - 8); break;
        case 2: x[i] = i % 3 ? (float)(i % 2 ? 1e30 : -1e30) : (i % 2 ? INFINITY : -INFINITY); break;
        case 3: x[i] = i % 4 == 3 ? NAN : (float)(lcg_unit(&z) - 0.5); break;
        default: x[i] = (float)(((i % 256) - 0.5) / 31.875 - 4.0); break;
        }
    }
    xc_synth_quantise_pack(x, N, 8, XC_BITORDER_LSB, out);
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (out[i] != xc_synth_quantise(x[i], 8) && bad++ < 5)
            printf("\n  value %d (%.9g): level %d, expected %d (exact)\n", i, (double)x[i], out[i],
                   xc_synth_quantise(x[i], 8));
    CU_ASSERT_EQUAL(bad, 0);
}

/* xc_fx_synth_obs without noise; smear: whether pulses are smeared across
 * each channel. */
static void quiet_obs(xc_synth_params *p, int nchans, int nbits, double tsamp, double tobs, double fch1, double foff,
                      int smear)
{
    xc_fx_synth_obs(p, nchans, nbits, tsamp, tobs, fch1, foff);
    p->noise = 0;
    p->smear = smear;
}

/* A file with everything on: noise, smearing, a pulsar and two pulses. */
static void busy_params(xc_synth_params *p, int nbits)
{
    xc_error err;
    xc_fx_synth_obs(p, 64, nbits, 64e-6, 0.2, 1400, -1);
    p->seed = 20240611;
    xc_fx_synth_psr(p, 7.0, 30, 5, 40);
    xc_synth_pulse a = {0.05, 100, 0.5, 30}, b = {0.13, 20, 0.02, 50};
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(p, &a, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(p, &b, &err), XC_OK);
}

XC_TEST(test_same_seed_same_bytes_any_threads_and_chunks, "same_seed_same_bytes_any_threads_and_chunks")
{
    static const int nbits[2] = {4, 32};
    for (int t = 0; t < 2; t++) {
        xc_synth_params p;
        busy_params(&p, nbits[t]);
        xc_error err;
        const char *f1 = xc_fx_tmp("det1.fil"), *f2 = xc_fx_tmp("det2.fil"), *f3 = xc_fx_tmp("det3.fil");
        p.nthreads = 1;
        p.chunk = 1000;
        CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, f1, NULL, NULL, &err), XC_OK);
        p.nthreads = 2;
        p.chunk = 37;
        CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, f2, NULL, NULL, &err), XC_OK);
        p.chunk = 0;   /* automatic: the whole file in one chunk here */
        CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, f3, NULL, NULL, &err), XC_OK);
        CU_ASSERT_TRUE(xc_fx_same_file(f1, f2));
        CU_ASSERT_TRUE(xc_fx_same_file(f1, f3));

        /* another seed: about every noise value changes */
        p.seed++;
        CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, f2, NULL, NULL, &err), XC_OK);
        size_t na, nb;
        unsigned char *x = xc_fx_slurp(f1, &na), *y = xc_fx_slurp(f2, &nb);
        CU_ASSERT_FATAL(x && y && na == nb);
        size_t differ = 0, hdr = 200;   /* the header is the same; skip past it */
        for (size_t i = hdr; i < na; i++)
            differ += x[i] != y[i];
        /* two independent 4-bit pairs agree with probability ~0.04 */
        CU_ASSERT(differ > 0.9 * (double)(na - hdr));
        free(x);
        free(y);
        xc_synth_params_free(&p);
    }
}

static void noise_params(xc_synth_params *p, int nbits, double tobs)
{
    xc_synth_params_init(p);
    p->nchans = 64;
    p->nbits = nbits;
    p->tsamp = 100e-6;
    p->tobs = tobs;
    p->seed = 7;
}

XC_TEST(test_noise_mean_and_variance_f32, "noise_mean_and_variance_f32")
{
    xc_synth_params p;
    noise_params(&p, 32, 2.0);
    uint64_t ns;
    float *x = write_and_read(&p, xc_fx_tmp("n32.fil"), &ns);
    CU_ASSERT_EQUAL(ns, 20000);
    double n = (double)ns * p.nchans, s = 0, s2 = 0;
    for (size_t i = 0; i < (size_t)n; i++)
        s += x[i];
    double mean = s / n;
    for (size_t i = 0; i < (size_t)n; i++)
        s2 += (x[i] - mean) * (x[i] - mean);
    double var = s2 / (n - 1);
    CU_ASSERT(fabs(mean) < 5 / sqrt(n));
    CU_ASSERT(fabs(var - 1) < 5 * sqrt(2 / n));   /* var of a sample variance: 2/n */
    free(x);
    xc_synth_params_free(&p);
}

XC_TEST(test_noise_lag1_autocorrelation, "noise_lag1_autocorrelation")
{
    xc_synth_params p;
    noise_params(&p, 32, 2.0);
    uint64_t ns;
    float *x = write_and_read(&p, xc_fx_tmp("ac32.fil"), &ns);
    const size_t nc = (size_t)p.nchans;
    /* time lag 1 in every channel, and channel lag 1 (channels 2j and 2j+1 share
     * one Box-Muller pair; 2j+1 and 2j+2 come from different blocks) */
    double st = 0, sc = 0, s2 = 0, nt = 0, ncn = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t c = 0; c < nc; c++) {
            double v = x[i * nc + c];
            s2 += v * v;
            if (i + 1 < ns) {
                st += v * x[(i + 1) * nc + c];
                nt++;
            }
            if (c + 1 < nc) {
                sc += v * x[i * nc + c + 1];
                ncn++;
            }
        }
    double var = s2 / (double)(ns * nc);
    double rt = st / nt / var, rc = sc / ncn / var;
    CU_ASSERT(fabs(rt) < 5 / sqrt(nt));
    CU_ASSERT(fabs(rc) < 5 / sqrt(ncn));
    free(x);
    xc_synth_params_free(&p);
}

/* Chi-square goodness of fit of the level histogram to the quantised Gaussian;
 * neighbouring levels are pooled until each bin expects >= 5 counts. */
static double level_gof_p(const uint16_t *v, size_t n, int nbits)
{
    const int nl = 1 << nbits;
    double *obs = calloc((size_t)nl, sizeof *obs), *pr = calloc((size_t)nl, sizeof *pr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(obs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pr);
    for (size_t i = 0; i < n; i++)
        obs[v[i]]++;
    const double step = (XC_SYNTH_QMAX - XC_SYNTH_QMIN) / (nl - 1);
    for (int k = 0; k < nl; k++) {
        double lo = k == 0 ? -INFINITY : XC_SYNTH_QMIN + (k - 0.5) * step;
        double hi = k == nl - 1 ? INFINITY : XC_SYNTH_QMIN + (k + 0.5) * step;
        pr[k] = gsl_cdf_ugaussian_P(hi) - gsl_cdf_ugaussian_P(lo);
    }
    double chi2 = 0, o = 0, e = 0;
    int bins = 0;
    for (int k = 0; k < nl; k++) {
        o += obs[k];
        e += pr[k] * (double)n;
        if (e >= 5 || k == nl - 1) {
            if (e > 0) {
                chi2 += (o - e) * (o - e) / e;
                bins++;
            }
            o = e = 0;
        }
    }
    free(obs);
    free(pr);
    CU_ASSERT(bins > 1);
    return gsl_cdf_chisq_Q(chi2, bins - 1);
}

static uint16_t *read_levels(const char *path, size_t *n)
{
    xc_error err;
    xc_fbreader *r;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, &err), XC_OK);
    const xc_fbheader *h = xc_fbreader_header(r);
    *n = (size_t)h->nsamp * (size_t)h->nchans;
    uint16_t *v = malloc(*n * sizeof *v);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_read_u16(r, 0, (size_t)h->nsamp, 0, v, &err), XC_OK);
    xc_fbreader_close(r);
    return v;
}

XC_TEST(test_level_histograms_chisq, "level_histograms_chisq")
{
    static const int nbits[3] = {8, 4, 2};
    for (int t = 0; t < 3; t++) {
        xc_synth_params p;
        noise_params(&p, nbits[t], 2.0);
        xc_error err;
        const char *f = xc_fx_tmp("hist.fil");
        CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, f, NULL, NULL, &err), XC_OK);
        size_t n;
        uint16_t *v = read_levels(f, &n);
        double pval = level_gof_p(v, n, nbits[t]);
        CU_ASSERT(pval > 1e-3);
        if (nbits[t] == 8) {
            /* fake: 8-bit noise mean 127.5, rms 255/8 = 31.875 */
            double m, rms;
            xc_fx_mean_rms(NULL, v, n, &m, &rms);
            CU_ASSERT(fabs(m - 127.5) < 5 * 31.875 / sqrt((double)n));
            CU_ASSERT(fabs(rms - 31.875) < 0.2);   /* quantisation adds 1/12 level^2: rms 31.876 */
        }
        free(v);
        xc_synth_params_free(&p);
    }
    /* the test has power: a histogram of 1.2-sigma noise fails it */
    size_t n = 200000;
    uint16_t *v = malloc(n * sizeof *v);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    for (size_t i = 0; i < n; i++)
        v[i] = xc_synth_quantise(1.2f * xc_synth_noise(3, i, 0), 8);
    CU_ASSERT(level_gof_p(v, n, 8) < 1e-3);
    free(v);
}

XC_TEST(test_onebit_half_set, "onebit_half_set")
{
    xc_synth_params p;
    noise_params(&p, 1, 2.0);
    xc_error err;
    const char *f = xc_fx_tmp("one.fil");
    CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, f, NULL, NULL, &err), XC_OK);
    xc_fbreader *r;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, f, NULL, &err), XC_OK);
    uint64_t hb = xc_fbreader_header(r)->header_bytes, ns = xc_fbreader_header(r)->nsamp;
    xc_fbreader_close(r);
    size_t len;
    unsigned char *b = xc_fx_slurp(f, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(len - hb, ns * 64 / 8);
    double set = 0, n = (double)(len - hb) * 8;
    for (size_t i = hb; i < len; i++)
        set += __builtin_popcount(b[i]);
    CU_ASSERT(fabs(set / n - 0.5) < 5 * 0.5 / sqrt(n));
    free(b);
    xc_synth_params_free(&p);
}

/* k_DM 4148.808 written out here, not taken from the library. */
static double delay_crosscheck(double dm, double f, double fref)
{
    return 4148.808 * dm * (1 / (f * f) - 1 / (fref * fref));
}

static void pulse_params(xc_synth_params *p, int smear)
{
    xc_error err;
    quiet_obs(p, 64, 32, 100e-6, 1.5, 400, -1, smear);
    xc_synth_pulse pl = {0.1, 100, 1.0, 20};
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(p, &pl, &err), XC_OK);
}

XC_TEST(test_pulse_arrives_at_analytic_delay, "pulse_arrives_at_analytic_delay")
{
    xc_synth_params p;
    pulse_params(&p, 0);
    uint64_t ns;
    float *x = write_and_read(&p, xc_fx_tmp("dm100.fil"), &ns);
    const double amp = 20 / sqrt(64.0), ts = p.tsamp;
    int bad = 0, badsum = 0;
    for (int c = 0; c < 64; c++) {
        double f = 400 - c;
        double start = 0.1 - 0.5e-3 + delay_crosscheck(100, f, 400);
        long want = (long)floor(start / ts), first = -1;
        double sum = 0;
        for (uint64_t i = 0; i < ns; i++) {
            float v = x[i * 64 + (uint64_t)c];
            if (v != 0 && first < 0)
                first = (long)i;
            sum += v;
        }
        if (labs(first - want) > 1)
            bad++;
        /* energy: amp x 10 samples, whatever the alignment */
        if (fabs(sum - amp * 10) > 1e-4 * amp * 10)
            badsum++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(badsum, 0);
    /* lowest channel (337 MHz): delay 1.0601 s, 10601 samples */
    XC_ASSERT_CLOSE(delay_crosscheck(100, 337, 400), 1.0601, 1e-4);
    free(x);

    /* smeared: the same energy, spread over the channel's delay span */
    xc_synth_params_free(&p);
    pulse_params(&p, 1);
    x = write_and_read(&p, xc_fx_tmp("dm100s.fil"), &ns);
    bad = badsum = 0;
    for (int c = 0; c < 64; c++) {
        double f = 400 - c, fhi = f + 0.5, flo = f - 0.5;
        long lo = (long)floor((0.1 - 0.5e-3 + delay_crosscheck(100, fhi, 400)) / ts);
        long hi = (long)floor((0.1 + 0.5e-3 + delay_crosscheck(100, flo, 400)) / ts);
        long first = -1, last = -1;
        double sum = 0;
        for (uint64_t i = 0; i < ns; i++) {
            float v = x[i * 64 + (uint64_t)c];
            if (v != 0) {
                if (first < 0)
                    first = (long)i;
                last = (long)i;
            }
            sum += v;
        }
        if (first < lo - 1 || first > lo + 1 || last < hi - 1 || last > hi + 1)
            bad++;
        if (fabs(sum - amp * 10) > 1e-4 * amp * 10)
            badsum++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(badsum, 0);
    free(x);

    /* the convention's k_DM sets the delay: PRESTO's 1/2.41e-4 moves the lowest
     * channel by 14.6 samples of 10 us from where k_DM 4148.808 puts it */
    xc_synth_params_free(&p);
    pulse_params(&p, 0);
    p.convention = xc_convention_get("presto");
    p.nchans = 8;
    p.foff = -9;
    p.tsamp = 10e-6;
    p.tobs = 1.2;
    x = write_and_read(&p, xc_fx_tmp("dm100p.fil"), &ns);
    long first = -1;
    for (uint64_t i = 0; i < ns && first < 0; i++)
        if (x[i * 8 + 7] != 0)
            first = (long)i;
    double want = (0.1 - 0.5e-3 + (1 / 2.41e-4) * 100 * (1 / (337.0 * 337.0) - 1 / (400.0 * 400.0))) / 10e-6;
    double other = (0.1 - 0.5e-3 + delay_crosscheck(100, 337, 400)) / 10e-6;
    CU_ASSERT(labs(first - (long)floor(want)) <= 1);
    CU_ASSERT(labs(first - (long)floor(other)) > 10);
    free(x);
    xc_synth_params_free(&p);
}

/* A noiseless 32-bit observation (quiet_obs: fch1 1400 MHz, foff -1 MHz) of
 * nchans channels with one pulsar (period ms, DM, duty cycle %, S/N 8),
 * written to tmp/name and read back; fake: smeared, with SIGPROC fake's
 * phase and widened duty cycle. */
static float *noiseless_pulsar(xc_synth_params *p, int nchans, double tsamp, double tobs, int fake, double period,
                               double dm, double width_pct, const char *name, uint64_t *ns)
{
    quiet_obs(p, nchans, 32, tsamp, tobs, 1400, -1, fake);
    xc_fx_synth_psr(p, period, dm, width_pct, 8);
    p->fake_phase = fake;
    return write_and_read(p, xc_fx_tmp(name), ns);
}

XC_TEST(test_pulsar_phase_and_duty_cycle, "pulsar_phase_and_duty_cycle")
{
    xc_synth_params p;
    uint64_t ns;
    float *x = noiseless_pulsar(&p, 8, 100e-6, 0.1, 0, 10, 0, 10, "psr.fil", &ns);
    CU_ASSERT_EQUAL_FATAL(ns, 1000);
    const double amp = 8 / sqrt(8.0);
    /* pulse k covers [(k + 0.45) P, (k + 0.55) P): samples 100k+45 .. 100k+54 */
    int bad = 0;
    for (uint64_t i = 0; i < ns; i++) {
        long ph = (long)(i % 100);
        for (int c = 0; c < 8; c++) {
            double v = x[i * 8 + (uint64_t)c];
            if (ph >= 46 && ph <= 53 && fabs(v - amp) > 1e-5)
                bad++;
            if ((ph < 44 || ph > 55) && v != 0)
                bad++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    double sum = 0;
    for (uint64_t i = 0; i < ns; i++)
        sum += x[i * 8];
    CU_ASSERT(fabs(sum - 10 * amp * 10) < 1e-4 * sum);
    free(x);
    xc_synth_params_free(&p);
}

/* -fake_phase with smearing draws SIGPROC fake's widened duty cycle
 * (fake.c: sqrt(tdm^2 + tsamp^2 + w^2) / P, tdm = 8.3e3 DM |foff| / fch1^3):
 * the truth's duty_cycle_drawn must be the fraction of samples the data
 * have on, measured in one channel of a noiseless file.  P = 10.37 ms is no
 * multiple of tsamp, so the sampling phase walks over the 192 pulses and the
 * measured fraction is the drawn one to ~1e-4; tolerance 0.1 sample per
 * period (1e-3).  The widening is 3 such tolerances here, so the intrinsic
 * width alone (0.05) fails as well as a width in wrong units. */
XC_TEST(test_truth_fake_duty_cycle, "truth_fake_duty_cycle")
{
    xc_synth_params p;
    uint64_t ns;
    float *x = noiseless_pulsar(&p, 4, 100e-6, 2.0, 1, 10.37, 50, 5, "fkdc.fil", &ns);
    size_t on = 0;
    for (uint64_t i = 0; i < ns; i++)
        on += x[i * 4] != 0;
    json_error_t je;
    json_t *t = json_load_file(xc_fx_tmp("fkdc.truth.json"), 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    json_t *psr = json_object_get(t, "pulsar");
    double dc = json_real_value(json_object_get(psr, "duty_cycle_drawn"));
    double per_sample = p.tsamp / (p.psr.period_ms * 1e-3);   /* one sample per period, in duty cycle */
    XC_ASSERT_NEAR((double)on / (double)ns, dc, 0.1 * per_sample);
    XC_ASSERT_ABOVE(dc - 0.05, 0.3 * per_sample);               /* the widening is resolved */
    XC_ASSERT_NEAR(json_real_value(json_object_get(psr, "width_s")), dc * 10.37e-3, 1e-15);
    json_decref(t);
    free(x);
    xc_synth_params_free(&p);
}

XC_TEST(test_truth_file, "truth_file")
{
    xc_synth_params p;
    busy_params(&p, 8);
    xc_error err;
    const char *f = xc_fx_tmp("truth.fil");
    CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, f, NULL, "crosscheck synth -o truth.fil", &err), XC_OK);
    const char *tp = xc_fx_tmp("truth.truth.json");
    CU_ASSERT_TRUE_FATAL(xc_fx_exists(tp));
    json_error_t je;
    json_t *t = json_load_file(tp, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(t, "command_line")), "crosscheck synth -o truth.fil");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(t, "nsamp")), 3125);   /* 0.2 s / 64 us */
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(t, "seed")), 20240611);
    json_t *cv = json_object_get(t, "convention");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(cv, "name")), "crosscheck");
    XC_ASSERT_CLOSE(json_real_value(json_object_get(cv, "kdm")), 4148.808, 1e-12);
    json_t *psr = json_object_get(t, "pulsar");
    XC_ASSERT_CLOSE(json_real_value(json_object_get(psr, "f0_hz")), 1000.0 / 7.0, 1e-9);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(psr, "period_s")), 0.007, 1e-15);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(psr, "dm")), 30, 0);
    json_t *pls = json_object_get(t, "pulses");
    CU_ASSERT_EQUAL_FATAL(json_array_size(pls), 2);
    json_t *a = json_array_get(pls, 0), *b = json_array_get(pls, 1);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(a, "t_s")), 0.05, 0);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(a, "dm")), 100, 0);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(a, "width_ms")), 0.5, 0);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(a, "snr")), 30, 0);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(a, "arrival_sample")), 781);   /* 0.05/64e-6 = 781.25 */
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(b, "arrival_sample")), 2031);  /* 2031.25 */
    XC_ASSERT_CLOSE(json_real_value(json_object_get(a, "expected_boxcar_snr")), 30 * sqrt(0.5e-3 / 64e-6), 1e-9);
    /* narrower than a sample: all its energy in one sample */
    XC_ASSERT_CLOSE(json_real_value(json_object_get(b, "expected_boxcar_snr")), 50 * 0.02e-3 / 64e-6, 1e-9);
    json_t *par = json_object_get(t, "params");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(par, "nbits")), 8);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(par, "tsamp_us")), 64, 1e-9);
    json_decref(t);

    /* the "params" object rebuilds the same parameters */
    xc_synth_params q;
    xc_synth_params_init(&q);
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_load(&q, tp, "params", &err), XC_OK);
    CU_ASSERT_EQUAL(q.nchans, p.nchans);
    CU_ASSERT_EQUAL(q.nbits, p.nbits);
    CU_ASSERT_EQUAL(q.tsamp, p.tsamp);
    CU_ASSERT_EQUAL(q.seed, p.seed);
    CU_ASSERT_EQUAL(q.psr.period_ms, p.psr.period_ms);
    CU_ASSERT_EQUAL(q.psr.dm, p.psr.dm);
    CU_ASSERT_EQUAL_FATAL(q.npulses, 2);
    CU_ASSERT_EQUAL(q.pulses[1].width_ms, p.pulses[1].width_ms);
    CU_ASSERT_PTR_EQUAL(q.convention, p.convention);
    /* ... and so the same bytes */
    const char *f2 = xc_fx_tmp("truth2.fil");
    CU_ASSERT_EQUAL_FATAL(xc_synth_write(&q, f2, NULL, NULL, &err), XC_OK);
    CU_ASSERT_TRUE(xc_fx_same_file(f, f2));
    xc_synth_params_free(&q);
    xc_synth_params_free(&p);
}

XC_TEST(test_header_reads_back, "header_reads_back")
{
    static const int nb[7] = {2, 2, 16, 1, 4, 8, 32};
    static const xc_bitorder order[7] = {XC_BITORDER_LSB, XC_BITORDER_MSB, XC_BITORDER_LSB, XC_BITORDER_LSB,
                                         XC_BITORDER_MSB, XC_BITORDER_LSB, XC_BITORDER_LSB};
    for (int t = 0; t < 7; t++) {
        xc_synth_params p;
        xc_synth_params_init(&p);
        p.nchans = 32;
        p.nbits = nb[t];
        p.tsamp = 64e-6;
        p.tobs = 0.1001;     /* 1564.06 samples -> 1564 */
        p.fch1 = 1500.25;
        p.foff = 0.5;        /* positive: written negative */
        p.tstart = 60123.5;
        p.seed = 11;
        p.bitorder = order[t];
        p.psr.period_ms = 5;
        p.psr.dm = 50;
        p.psr.snrpeak = 0;   /* header only: keep the data pure noise */
        xc_error err;
        const char *f = xc_fx_tmp("hdr.fil");
        CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, f, NULL, NULL, &err), XC_OK);
        xc_fbreader *r;
        xc_fbopts o = {order[t], 0};
        CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, f, &o, &err), XC_OK);
        const xc_fbheader *h = xc_fbreader_header(r);
        CU_ASSERT_STRING_EQUAL(h->source_name, "P: 5.000000000000 ms, DM: 50.000");
        CU_ASSERT_EQUAL(h->machine_id, 10);
        CU_ASSERT_EQUAL(h->telescope_id, 4);
        CU_ASSERT_EQUAL(h->data_type, 1);
        CU_ASSERT_EQUAL(h->fch1, 1500.25);
        CU_ASSERT_EQUAL(h->foff, -0.5);
        CU_ASSERT_EQUAL(h->nchans, 32);
        CU_ASSERT_EQUAL(h->nbits, nb[t]);
        CU_ASSERT_EQUAL(h->tstart, 60123.5);
        CU_ASSERT_EQUAL(h->tsamp, 64e-6);
        CU_ASSERT_EQUAL(h->nifs, 1);
        CU_ASSERT_EQUAL(h->nsamp, 1564);
        CU_ASSERT_EQUAL(h->header_bytes, 242);   /* fake's header for this source name, measured */
        static const xc_fbkey fake_order[] = {XC_FB_SOURCE_NAME, XC_FB_MACHINE_ID, XC_FB_TELESCOPE_ID,
                                              XC_FB_DATA_TYPE, XC_FB_FCH1, XC_FB_FOFF, XC_FB_NCHANS,
                                              XC_FB_NBITS, XC_FB_TSTART, XC_FB_TSAMP, XC_FB_NIFS};
        CU_ASSERT_EQUAL_FATAL(h->norder, 11);
        for (int k = 0; k < 11; k++)
            CU_ASSERT_EQUAL(h->order[k], (int)fake_order[k]);
        /* the data are the documented noise values, packed in the asked order */
        int bad = 0;
        if (nb[t] == 32) {
            float v[20 * 32];
            CU_ASSERT_EQUAL_FATAL(xc_fbreader_read_f32(r, 1000, 20, 0, v, &err), XC_OK);
            for (int s = 0; s < 20; s++)
                for (int c = 0; c < 32; c++)
                    bad += v[s * 32 + c] != xc_synth_noise(11, 1000 + (uint64_t)s, c);
        } else {
            uint16_t v[20 * 32];
            CU_ASSERT_EQUAL_FATAL(xc_fbreader_read_u16(r, 1000, 20, 0, v, &err), XC_OK);
            for (int s = 0; s < 20; s++)
                for (int c = 0; c < 32; c++)
                    bad += v[s * 32 + c] != xc_synth_quantise(xc_synth_noise(11, 1000 + (uint64_t)s, c), nb[t]);
        }
        CU_ASSERT_EQUAL(bad, 0);
        xc_fbreader_close(r);
        xc_synth_params_free(&p);
    }
}

XC_TEST(test_spec_load, "spec_load")
{
    const char *f = xc_fx_tmp("spec.json");
    xc_fx_write_text(f, "{\"other\": 1, \"synth\": {\"nchans\": 256, \"nbits\": 8, \"tsamp_us\": 64, \"tobs_s\": 3,"
                  " \"fch1\": 1500, \"foff\": -0.5, \"seed\": 18446744073709551615, \"convention\": \"sigproc\","
                  " \"period_ms\": 3.5, \"width_pct\": 6, \"snrpeak\": 12, \"dm\": 40, \"smear\": false,"
                  " \"pulses\": [{\"t_s\": 1.5, \"dm\": 300, \"width_ms\": 2, \"snr\": 9}]}}");
    xc_synth_params p;
    xc_synth_params_init(&p);
    xc_error err;
    /* 2^64-1 is not a jansson integer: invalid JSON for jansson, a clear error */
    CU_ASSERT_NOT_EQUAL(xc_synth_params_load(&p, f, "synth", &err), XC_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, f));
    xc_fx_write_text(f, "{\"other\": 1, \"synth\": {\"nchans\": 256, \"nbits\": 8, \"tsamp_us\": 64, \"tobs_s\": 3,"
                  " \"fch1\": 1500, \"foff\": -0.5, \"seed\": \"18446744073709551615\", \"convention\": \"sigproc\","
                  " \"period_ms\": 3.5, \"width_pct\": 6, \"snrpeak\": 12, \"dm\": 40, \"smear\": false,"
                  " \"pulses\": [{\"t_s\": 1.5, \"dm\": 300, \"width_ms\": 2, \"snr\": 9}]}}");
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_load(&p, f, "synth", &err), XC_OK);
    xc_fx_assert_synth_obs(&p, 256, 8, 64e-6, 3, 1500, -0.5);
    CU_ASSERT_EQUAL(p.seed, UINT64_MAX);
    CU_ASSERT_STRING_EQUAL(p.convention->name, "sigproc");
    CU_ASSERT_EQUAL(p.psr.period_ms, 3.5);
    CU_ASSERT_EQUAL(p.psr.width_pct, 6);
    CU_ASSERT_EQUAL(p.psr.snrpeak, 12);
    CU_ASSERT_EQUAL(p.psr.dm, 40);
    CU_ASSERT_EQUAL(p.smear, 0);
    CU_ASSERT_EQUAL(p.noise, 1);
    CU_ASSERT_EQUAL(p.tstart, 50000.0);   /* untouched fields keep their defaults */
    CU_ASSERT_EQUAL_FATAL(p.npulses, 1);
    CU_ASSERT_EQUAL(p.pulses[0].dm, 300);
    xc_synth_params_free(&p);

    /* errors name the file, the field and the value, and leave p unchanged */
    static const struct {
        const char *json, *key, *want[2];
        xc_status code;
    } bad[] = {
        {"{\"nbits\": 3}", NULL, {"nbits", "3"}, XC_EINVAL},
        {"{\"nchans\": 0}", NULL, {"nchans", "0"}, XC_EINVAL},
        {"{\"nchans\": 64.5}", NULL, {"nchans", "64.5"}, XC_EINVAL},
        {"{\"tsamp_us\": \"abc\"}", NULL, {"tsamp_us", "\"abc\""}, XC_EINVAL},
        {"{\"tsamp_us\": -1}", NULL, {"tsamp_us", "-1"}, XC_EINVAL},
        {"{\"nchan\": 64}", NULL, {"nchan", "unknown"}, XC_EINVAL},
        {"{\"convention\": \"tempo3\"}", NULL, {"convention", "tempo3"}, XC_EINVAL},
        {"{\"width_pct\": 0}", NULL, {"width_pct", "0"}, XC_EINVAL},
        {"{\"pulses\": [{\"t_s\": 1, \"dm\": 5, \"snr\": 3}]}", NULL, {"pulses[0].width_ms", "missing"}, XC_EINVAL},
        {"{\"pulses\": [{\"t_s\": 1, \"dm\": -5, \"width_ms\": 1, \"snr\": 3}]}", NULL, {"pulses[0].dm", "-5"},
         XC_EINVAL},
        {"{\"a\": {\"nbits\": 8}}", "b", {"\"b\"", "top level"}, XC_EINVAL},
        {"{\"nbits\": 8,}", NULL, {"invalid JSON", ":1:"}, XC_EFORMAT},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xc_fx_write_text(f, bad[i].json);
        xc_synth_params_init(&p);
        xc_synth_pulse pl = {1, 2, 3, 4};
        CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(&p, &pl, &err), XC_OK);
        xc_status st = xc_synth_params_load(&p, f, bad[i].key, &err);
        CU_ASSERT_EQUAL(st, bad[i].code);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, f));
        for (int k = 0; k < 2; k++)
            if (!strstr(err.msg, bad[i].want[k])) {
                printf("\n  case %zu: '%s' not in: %s\n", i, bad[i].want[k], err.msg);
                CU_FAIL("message lacks a field or value");
            }
        CU_ASSERT_EQUAL(p.nbits, 4);
        CU_ASSERT_EQUAL(p.nchans, 128);
        CU_ASSERT_EQUAL(p.npulses, 1);
        xc_synth_params_free(&p);
    }
    xc_synth_params_init(&p);
    CU_ASSERT_EQUAL(xc_synth_params_load(&p, xc_fx_tmp("no-such.json"), NULL, &err), XC_EIO);

    /* an object already in memory, named by its source in messages */
    json_t *o = json_pack("{s:i, s:f, s:[{s:f, s:f, s:f, s:f}]}", "nchans", 512, "tobs_s", 4.5, "pulses", "t_s",
                          1.0, "dm", 10.0, "width_ms", 1.0, "snr", 8.0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(xc_synth_params_from_json(&p, o, "run.json: synthetic[0]", &err), XC_OK);
    CU_ASSERT_EQUAL(p.nchans, 512);
    CU_ASSERT_EQUAL(p.tobs, 4.5);
    CU_ASSERT_EQUAL(p.npulses, 1);
    json_object_set_new(o, "nbits", json_integer(12));
    CU_ASSERT_EQUAL(xc_synth_params_from_json(&p, o, "run.json: synthetic[0]", &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "run.json: synthetic[0]: nbits (-nbits) = 12"));
    CU_ASSERT_EQUAL(p.npulses, 1);
    json_decref(o);
    xc_synth_params_free(&p);
}

XC_TEST(test_bad_values_leave_no_file, "bad_values_leave_no_file")
{
    static const struct {
        int nchans, nbits;
        double tsamp, tobs, fch1, foff;
        const char *want;
    } bad[] = {
        {128, 3, 64e-6, 1, 1400, -1, "nbits (-nbits) = 3"},
        {0, 8, 64e-6, 1, 1400, -1, "nchans (-nchans) = 0"},
        {128, 8, 0, 1, 1400, -1, "tsamp_us (-tsamp) = 0"},
        {128, 8, 64e-6, -2, 1400, -1, "tobs_s (-tobs) = -2"},
        {128, 8, 64e-6, 1e-6, 1400, -1, "0 samples"},
        {3, 4, 64e-6, 1, 1400, -1, "whole bytes"},
        {128, 8, 64e-6, 1, 100, -1, "lowest frequency"},
        {128, 8, 64e-6, 1, 1400, 0, "foff (-foff) = 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xc_synth_params p;
        xc_fx_synth_obs(&p, bad[i].nchans, bad[i].nbits, bad[i].tsamp, bad[i].tobs, bad[i].fch1, bad[i].foff);
        xc_error err;
        CU_ASSERT_EQUAL(xc_synth_write(&p, xc_fx_tmp("bad.fil"), NULL, NULL, &err), XC_EINVAL);
        if (!strstr(err.msg, bad[i].want)) {
            printf("\n  case %zu: '%s' not in: %s\n", i, bad[i].want, err.msg);
            CU_FAIL("message lacks the field or value");
        }
        xc_synth_params_free(&p);
    }
    /* a bad pulse, and an output directory that does not exist */
    xc_synth_params p;
    xc_synth_params_init(&p);
    p.tobs = 0.01;
    xc_synth_pulse pl = {0.001, 10, 0, 5};
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(&p, &pl, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_synth_write(&p, xc_fx_tmp("bad.fil"), NULL, NULL, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pulses[0].width_ms"));
    p.pulses[0].width_ms = 1;
    CU_ASSERT_EQUAL(xc_synth_write(&p, xc_fx_tmp("nodir/bad.fil"), NULL, NULL, &err), XC_EIO);
    /* the truth file cannot be written: the filterbank is not left either */
    CU_ASSERT_EQUAL(xc_synth_write(&p, xc_fx_tmp("bad.fil"), xc_fx_tmp("nodir/bad.json"), NULL, &err), XC_EIO);
    xc_synth_params_free(&p);
    CU_ASSERT_EQUAL(xc_fx_count_prefix("bad."), 0);
}


XC_TEST(test_noise_vector_matches_reference, "noise_vector_matches_reference")
{
    /* the SSE2 generator and the one-value definition give the same bits */
    static const uint64_t seeds[3] = {1, 0xdeadbeefcafef00dull, UINT64_MAX};
    size_t bad = 0;
    for (int s = 0; s < 3; s++)
        for (uint64_t i = 0; i < 2000; i++) {
            uint64_t sample = i * 2654435761ull + (uint64_t)s;
            float row[67];
            xc_synth_noise_spectrum(seeds[s], sample, 67, row);
            for (int c = 0; c < 67; c++) {
                float r = xc_synth_noise_ref(seeds[s], sample, c);
                bad += memcmp(&r, &row[c], sizeof r) != 0;
                bad += !isfinite(r) || fabsf(r) > 6.7f;
            }
        }
    CU_ASSERT_EQUAL(bad, 0);
    /* every odd and even channel count up to 70 (tails of every lane count) */
    size_t badn = 0;
    for (int nch = 1; nch <= 70; nch++) {
        float row[70];
        xc_synth_noise_spectrum(7, 1000003u + (uint64_t)nch, nch, row);
        for (int c = 0; c < nch; c++) {
            float r = xc_synth_noise_ref(7, 1000003u + (uint64_t)nch, c);
            badn += memcmp(&r, &row[c], sizeof r) != 0;
        }
    }
    if (badn)
        printf("\n  %zu of 2485 values differ from the reference (expected 0, exact)\n", badn);
    CU_ASSERT_EQUAL(badn, 0);
    /* the packed 8-bit quantiser agrees with the scalar one, edge values included */
    float x[203];
    uint8_t q[203];
    for (int i = 0; i < 203; i++)
        x[i] = -5.0f + (float)i * 0.05f;
    x[0] = NAN;
    x[1] = INFINITY;
    x[2] = -INFINITY;
    x[3] = 0.0f;                       /* level 127.5: half to even, 128 */
    x[4] = 4.0f / 255.0f * 0.5f - 4.0f + 8.0f / 255.0f;   /* near a half level */
    xc_synth_quantise_pack(x, 203, 8, XC_BITORDER_LSB, q);
    int badq = 0;
    for (int i = 0; i < 203; i++)
        badq += q[i] != xc_synth_quantise(x[i], 8);
    CU_ASSERT_EQUAL(badq, 0);
    CU_ASSERT_EQUAL(q[0], 0);
    CU_ASSERT_EQUAL(q[1], 255);
    CU_ASSERT_EQUAL(q[2], 0);
    CU_ASSERT_EQUAL(q[3], 128);
}

/* One code path against the one-value definition, word for word: every block
 * count 0..37 (full groups of 4, 8 and 16 lanes and every tail) from odd and
 * even first blocks, on three streams and three seeds.  Exact: the paths do
 * the reference's float operations in its order, so any difference is a bug. */
static void check_noise_path(int path)
{
    static const uint64_t seeds[3] = {99, 0xdeadbeefcafef00dull, UINT64_MAX};
    size_t bad = 0, n = 0;
    for (int s = 0; s < 3; s++)
        for (uint32_t stream = 0; stream < 3; stream++)
            for (uint32_t nb = 0; nb <= 37; nb++) {
                const uint64_t sample = (uint64_t)nb * 7919u + ((uint64_t)s << 33);
                const uint32_t first = (nb * 5u + stream) % 23u;
                float v[4 * 38 + 1], r[4 * 38 + 1];
                v[4 * nb] = r[4 * nb] = -7.0f;   /* nothing past the last block is written */
                xc_synth_noise_path(path, seeds[s], stream, sample, first, nb, v);
                xc_synth_noise_path(0, seeds[s], stream, sample, first, nb, r);
                bad += memcmp(v, r, (4 * nb + 1) * sizeof *v) != 0;
                for (uint32_t c = 0; stream == 0 && c < 4 * nb; c++) {
                    float one = xc_synth_noise_ref(seeds[s], sample, (int)(4 * first + c));
                    bad += memcmp(&one, &v[c], sizeof one) != 0;
                }
                n++;
            }
    if (bad)
        printf("\n  path %d: %zu mismatches in %zu block runs (expected 0, exact)\n", path, bad, n);
    CU_ASSERT_EQUAL(bad, 0);
}

static int skip_path(int path, const char *name, char *why, size_t n)
{
    if (xc_synth_noise_path_available(path))
        return 0;
    snprintf(why, n, "this CPU (or build) has no %s", name);
    return 1;
}
static int skip_sse2(char *why, size_t n) { return skip_path(1, "SSE2", why, n); }
static int skip_avx2(char *why, size_t n) { return skip_path(2, "AVX2", why, n); }
static int skip_avx512(char *why, size_t n) { return skip_path(3, "AVX-512F", why, n); }

XC_TEST(test_noise_path_scalar, "noise_path_scalar") { check_noise_path(0); }
XC_TEST_IF(test_noise_path_sse2, "noise_path_sse2", skip_sse2) { check_noise_path(1); }
XC_TEST_IF(test_noise_path_avx2, "noise_path_avx2", skip_avx2) { check_noise_path(2); }
XC_TEST_IF(test_noise_path_avx512, "noise_path_avx512", skip_avx512) { check_noise_path(3); }

XC_TEST(test_level_stats, "level_stats")
{
    double m, r, g;
    xc_synth_level_stats(8, &m, &r, &g);
    XC_ASSERT_CLOSE(m, 127.5, 1e-9);
    XC_ASSERT_CLOSE(r, 31.876, 0.002);      /* 255/8, plus 1/12 level^2 of rounding */
    XC_ASSERT_CLOSE(g, 31.875, 0.01);       /* levels per sigma */
    xc_synth_level_stats(1, &m, &r, &g);
    XC_ASSERT_CLOSE(g / r, sqrt(2 / M_PI), 1e-12);   /* the 1-bit S/N loss */
    xc_synth_level_stats(2, &m, &r, &g);
    /* thresholds at -8/3, 0, 8/3 sigma */
    double p0 = gsl_cdf_ugaussian_P(-8.0 / 3.0);
    XC_ASSERT_CLOSE(m, 1.5, 1e-12);
    XC_ASSERT_CLOSE(r * r, 2 * p0 * 2.25 + (1 - 2 * p0) * 0.25, 1e-12);
    XC_ASSERT_CLOSE(g, 2 * gsl_ran_ugaussian_pdf(8.0 / 3.0) + gsl_ran_ugaussian_pdf(0), 1e-12);
    xc_synth_level_stats(32, &m, &r, &g);
    CU_ASSERT(m == 0 && r == 1 && g == 1);
}

/* Sums the channels of a filterbank at DM with delays round(4148.808 DM
 * (1/f^2 - 1/fch1^2)/tsamp), half away from zero: out[nsamp - maxd]. */
static double *dedisperse_file(const char *path, double dm, size_t *nout)
{
    xc_error err;
    xc_fbreader *r;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, &err), XC_OK);
    const xc_fbheader *h = xc_fbreader_header(r);
    const int nc = h->nchans;
    const uint64_t ns = h->nsamp;
    long *d = malloc((size_t)nc * sizeof *d), maxd = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    for (int c = 0; c < nc; c++) {
        double f = h->fch1 + c * h->foff;
        d[c] = lround(4148.808 * dm * (1 / (f * f) - 1 / (h->fch1 * h->fch1)) / h->tsamp);
        maxd = d[c] > maxd ? d[c] : maxd;
    }
    *nout = (size_t)ns - (size_t)maxd;
    double *out = calloc(*nout, sizeof *out);
    float *x = malloc(4096 * (size_t)nc * sizeof *x);
    CU_ASSERT_FATAL(out && x);
    for (uint64_t s0 = 0; s0 < ns; s0 += 4096) {
        size_t n = ns - s0 < 4096 ? (size_t)(ns - s0) : 4096;
        CU_ASSERT_EQUAL_FATAL(xc_fbreader_read_f32(r, s0, n, 0, x, &err), XC_OK);
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < nc; c++) {
                long j = (long)(s0 + i) - d[c];
                if (j >= 0 && (size_t)j < *nout)
                    out[j] += x[i * (size_t)nc + (size_t)c];
            }
    }
    xc_fbreader_close(r);
    free(x);
    free(d);
    return out;
}

/* |sum_j y_j exp(-2 pi i f t_j)|^2 over y[0..n) with t_j = t0 + j dt. */
static double dft_power(const double *y, size_t n, double t0, double dt, double f)
{
    double re = 0, im = 0;
    for (size_t j = 0; j < n; j++) {
        double ph = 2 * M_PI * f * (t0 + (double)j * dt);
        re += y[j] * cos(ph);
        im -= y[j] * sin(ph);
    }
    return re * re + im * im;
}

/* The frequency of the largest power in [flo, fhi]: a grid of quarter bins,
 * then golden section around the best point. */
static double peak_freq(const double *y, size_t n, double t0, double dt, double flo, double fhi)
{
    const double T = (double)n * dt, step = 0.25 / T;
    double best = flo, bp = -1;
    for (double f = flo; f <= fhi; f += step) {
        double pw = dft_power(y, n, t0, dt, f);
        if (pw > bp) {
            bp = pw;
            best = f;
        }
    }
    double a = best - step, b = best + step, g = 0.5 * (sqrt(5.0) - 1);
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    double p1 = dft_power(y, n, t0, dt, x1), p2 = dft_power(y, n, t0, dt, x2);
    while (b - a > 1e-4 / T) {
        if (p1 > p2) {
            b = x2;
            x2 = x1;
            p2 = p1;
            x1 = b - g * (b - a);
            p1 = dft_power(y, n, t0, dt, x1);
        } else {
            a = x1;
            x1 = x2;
            p1 = p2;
            x2 = a + g * (b - a);
            p2 = dft_power(y, n, t0, dt, x2);
        }
    }
    return 0.5 * (a + b);
}

XC_TEST(test_truth_r_z_recovered_from_data, "truth_r_z_recovered_from_data")
{
    /* A bright 100 Hz pulsar in a 1 h, e = 0.2 orbit, 200 s: the truth says
     * z = 20.5 and r = 14 bins below f0 T.  The frequency is measured in 8
     * segments of the dedispersed series (DFT peak), and a straight line
     * through them gives the mean frequency and the mean fdot, which for a
     * cubic phase are exactly r/T and z/T^2.  Expected errors (from the
     * segment powers, ~1200): 0.03 bins in r, 0.2 in z; tolerances 0.3, 2. */
    xc_synth_params p;
    xc_fx_synth_obs(&p, 16, 8, 200e-6, 200, 1400, -2);
    p.seed = 77;
    p.psr.bin = (xc_synth_binary){1, 1.0, 0.2, 60, 60, 0.0, 1.4, 3.0};
    xc_fx_synth_psr(&p, 10, 30, 10, 1);
    xc_error err;
    const char *f = xc_fx_tmp("rz.fil");
    CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, f, NULL, NULL, &err), XC_OK);
    json_error_t je;
    json_t *t = json_load_file(xc_fx_tmp("rz.truth.json"), 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    const double r = json_real_value(json_object_get(t, "r")), z = json_real_value(json_object_get(t, "z"));
    const double f0 = json_real_value(json_object_get(t, "f0_hz")), T = json_real_value(json_object_get(t, "tobs_s"));
    CU_ASSERT(fabs(z) > 15);
    CU_ASSERT(fabs(r - f0 * T) > 10);
    json_decref(t);
    size_t n;
    double *y = dedisperse_file(f, p.psr.dm, &n);
    /* 1 ms blocks, mean removed; the dedispersed series starts at t = 0 at fch1 */
    const size_t nb = n / 5;
    double *b = calloc(nb, sizeof *b), mean = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    for (size_t j = 0; j < nb; j++) {
        for (int k = 0; k < 5; k++)
            b[j] += y[5 * j + (size_t)k];
        mean += b[j] / (double)nb;
    }
    for (size_t j = 0; j < nb; j++)
        b[j] -= mean;
    const double dt = 5 * p.tsamp, Td = (double)nb * dt;
    enum { M = 8 };
    double tc[M], fs[M];
    const size_t seg = nb / M;
    for (int s = 0; s < M; s++) {
        double t0 = (double)(s * seg) * dt + 0.5 * dt;   /* block centres */
        fs[s] = peak_freq(b + s * seg, seg, t0, dt, 0.995 * f0, 1.005 * f0);
        tc[s] = t0 + 0.5 * (double)seg * dt - 0.5 * dt;
    }
    double tm, fm, slope = xc_fx_line_fit(tc, fs, M, &tm, &fm), fmid = fm - slope * (tm - 0.5 * Td);
    /* the truth is for [0, T]; the series is shorter by the sweep (Td < T): compare
     * with the truth's mean frequency moved to the middle of the series */
    double fmean_truth = r / T + z / (T * T) * (0.5 * Td - 0.5 * T);
    double dr = (fmid - fmean_truth) * T, dz = slope * T * T - z;
    printf("\n    measured r - truth %.3f bins, z - truth %.3f (truth r %.3f, z %.3f, f0 T %.1f) ", dr, dz, r, z,
           f0 * T);
    CU_ASSERT(fabs(dr) < 0.3);
    CU_ASSERT(fabs(dz) < 2.0);
    free(b);
    free(y);
    remove(f);
    xc_synth_params_free(&p);
}


/* Folds y[0..n) at period P (samples of dt from t = 0): mean, variance and
 * count off the pulse (phase outside [0.3, 0.7]), the mean on it (inside
 * [0.47, 0.53]) and a 50-bin profile with its counts. */
typedef struct {
    double off_mean, off_var, on_mean, prof[50];
    size_t n_off, n_on, cnt[50];
} folded;

static void fold(const double *y, size_t n, double dt, double P, folded *fo)
{
    memset(fo, 0, sizeof *fo);
    double s2 = 0;
    for (size_t j = 0; j < n; j++) {
        double ph = fmod(((double)j + 0.5) * dt / P, 1.0);
        int k = (int)(ph * 50);
        fo->prof[k] += y[j];
        fo->cnt[k]++;
        if (ph < 0.3 || ph > 0.7) {
            fo->off_mean += y[j];
            s2 += y[j] * y[j];
            fo->n_off++;
        } else if (ph > 0.47 && ph < 0.53) {
            fo->on_mean += y[j];
            fo->n_on++;
        }
    }
    fo->off_mean /= (double)fo->n_off;
    fo->off_var = s2 / (double)fo->n_off - fo->off_mean * fo->off_mean;
    fo->on_mean /= (double)fo->n_on;
    for (int k = 0; k < 50; k++)
        fo->prof[k] /= (double)fo->cnt[k];
}

XC_TEST(test_dedispersed_matches_filterbank, "dedispersed_matches_filterbank")
{
    /* The fast path against dedispersing the filterbank (here, in the test,
     * with its own delays) at the true DM: the same length, off-pulse mean and
     * variance, pulse S/N and folded profile, within 5 sigma (chi-square
     * p > 1e-3 for the profile). */
    for (int nb = 0; nb < 2; nb++) {
        xc_synth_params p;
        xc_fx_synth_obs(&p, 32, nb ? 2 : 8, 256e-6, 30, 1500, -4);
        p.seed = 5;
        xc_fx_synth_psr(&p, 50, 150, 8, 1.5);
        xc_error err;
        const char *f = xc_fx_tmp("dd.fil");
        CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, f, NULL, NULL, &err), XC_OK);
        size_t n1;
        double *y1 = dedisperse_file(f, p.psr.dm, &n1);
        remove(f);
        p.seed = 6;   /* independent noise */
        CU_ASSERT_EQUAL_FATAL(xc_synth_write_dedispersed(&p, xc_fx_tmp("dd"), NULL, NULL, &err), XC_OK);
        float *d;
        size_t n2;
        CU_ASSERT_EQUAL_FATAL(xc_dat_read(xc_fx_tmp("dd.dat"), &d, &n2, &err), XC_OK);
        xc_inf inf;
        CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, xc_fx_tmp("dd.inf"), &err), XC_OK);
        CU_ASSERT_EQUAL(n2, n1 & ~(size_t)1);   /* even, as PRESTO writes */
        CU_ASSERT_EQUAL((size_t)inf.n, n2);
        CU_ASSERT_EQUAL(inf.dt, p.tsamp);
        CU_ASSERT_EQUAL(inf.dm, 150);
        CU_ASSERT_EQUAL(inf.nchan, 32);
        XC_ASSERT_CLOSE(inf.freq_low, 1500 - 31 * 4, 1e-9);
        double *y2 = malloc(n2 * sizeof *y2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(y2);
        for (size_t j = 0; j < n2; j++)
            y2[j] = d[j];
        folded a, b;
        fold(y1, n1, p.tsamp, 0.05, &a);
        fold(y2, n2, p.tsamp, 0.05, &b);
        double se_mean = sqrt(a.off_var / (double)a.n_off + b.off_var / (double)b.n_off);
        CU_ASSERT(fabs(a.off_mean - b.off_mean) < 5 * se_mean);
        CU_ASSERT(fabs(a.off_var / b.off_var - 1) < 5 * sqrt(4.0 / (double)a.n_off));
        double sa = (a.on_mean - a.off_mean) / sqrt(a.off_var), sb = (b.on_mean - b.off_mean) / sqrt(b.off_var);
        double se_snr = sqrt(2.0 / (double)a.n_on);
        CU_ASSERT(fabs(sa - sb) < 5 * se_snr);
        /* and both are the truth's expected S/N per dedispersed sample */
        double lm, lr, lg;
        xc_synth_level_stats(p.nbits, &lm, &lr, &lg);
        CU_ASSERT(fabs(sb - 1.5 * lg / lr) < 5 * se_snr);
        XC_ASSERT_CLOSE(a.off_mean, 32 * lm, 5 * se_mean);
        XC_ASSERT_CLOSE(b.off_var, 32 * lr * lr, 5 * sqrt(2.0 / (double)b.n_off) * 32 * lr * lr);
        double chi2 = 0;
        for (int k = 0; k < 50; k++) {
            double dd = a.prof[k] - b.prof[k];
            chi2 += dd * dd / (a.off_var / (double)a.cnt[k] + b.off_var / (double)b.cnt[k]);
        }
        double pval = gsl_cdf_chisq_Q(chi2, 50);
        CU_ASSERT(pval > 1e-3);
        printf("\n    %d-bit: mean %.2f / %.2f, var %.1f / %.1f, S/N %.3f / %.3f (expected %.3f), profile p %.2g ",
               p.nbits, a.off_mean, b.off_mean, a.off_var, b.off_var, sa, sb, 1.5 * lg / lr, pval);
        /* the truth describes the .dat */
        json_error_t je;
        json_t *t = json_load_file(xc_fx_tmp("dd.truth.json"), 0, &je);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(t, "nsamp")), (json_int_t)n2);
        XC_ASSERT_CLOSE(json_real_value(json_object_get(t, "r")), 20.0 * (double)n2 * p.tsamp, 1e-6);
        CU_ASSERT_PTR_NOT_NULL(json_object_get(t, "dedispersed"));
        json_decref(t);
        free(y1);
        free(y2);
        free(d);
        xc_synth_params_free(&p);
    }
}

XC_TEST(test_dedispersed_even_length, "dedispersed_even_length")
{
    /* Lengths one sample apart leave the sweep an odd and an even count of
     * complete samples: the .dat, the .inf and the truth hold that count
     * rounded down to even (the last odd sample dropped), exactly, and the
     * .dat goes through the realfft layout, which takes only even N. */
    int seen[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        xc_synth_params p;
        xc_fx_synth_obs(&p, 16, 8, 128e-6, (4000 + k) * 128e-6, 1500, -4);
        p.seed = 3;
        xc_fx_synth_psr(&p, 40, 30, 8, 1);
        xc_error err;
        const char *stem = xc_fx_tmp(k ? "ev1" : "ev0");
        CU_ASSERT_EQUAL_FATAL(xc_synth_write_dedispersed(&p, stem, NULL, NULL, &err), XC_OK);
        char path[4200];
        snprintf(path, sizeof path, "%s.truth.json", stem);
        json_error_t je;
        json_t *t = json_load_file(path, 0, &je);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        json_int_t maxd = json_integer_value(json_object_get(json_object_get(t, "dedispersed"), "max_delay_samples"));
        json_int_t nt = json_integer_value(json_object_get(t, "nsamp"));
        json_decref(t);
        const uint64_t left = xc_synth_nsamp(&p) - (uint64_t)maxd;
        CU_ASSERT(maxd > 0);
        seen[left % 2] = 1;
        float *d;
        size_t n;
        snprintf(path, sizeof path, "%s.dat", stem);
        CU_ASSERT_EQUAL_FATAL(xc_dat_read(path, &d, &n, &err), XC_OK);
        free(d);
        xc_inf inf;
        snprintf(path, sizeof path, "%s.inf", stem);
        CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, path, &err), XC_OK);
        if (n != (left & ~(uint64_t)1) || (json_int_t)n != nt || inf.n != (double)n)
            printf("\n    %llu samples left by the sweep: .dat N = %zu, .inf N = %.0f, truth nsamp = %lld; "
                   "expected %llu each (exact) ", (unsigned long long)left, n, inf.n, (long long)nt,
                   (unsigned long long)(left & ~(uint64_t)1));
        CU_ASSERT_EQUAL(n, left & ~(uint64_t)1);
        CU_ASSERT_EQUAL((json_int_t)n, nt);
        CU_ASSERT_EQUAL(inf.n, (double)n);
        snprintf(path, sizeof path, "%s.dat", stem);
        CU_ASSERT_EQUAL(xc_fft_file(path, xc_fx_tmp(k ? "ev1f" : "ev0f"), XC_FFT_SINGLE, &err), XC_OK);
        xc_synth_params_free(&p);
    }
    CU_ASSERT(seen[0] && seen[1]);   /* both parities were made */
}

/* The buffer a test hands the synthesizer: big enough for a series of cap
 * samples; n is what it was asked for. */
typedef struct {
    float *b;
    uint64_t cap, n;
} test_dest;

static float *test_buffer(void *ctx, uint64_t n)
{
    test_dest *d = ctx;
    d->n = n;
    return n <= d->cap ? d->b : NULL;
}

/* The series made in place in a caller's buffer (the study's transform
 * input) is the .dat's bytes, as is the series in memory: a binary top-hat
 * pulsar over 3 chunks of 65 536 samples and part of a fourth (some 3 600
 * pulses each), 16 channels, 2 threads and 1.  A buffer too small is refused
 * with ENOMEM.  Tolerance: none
 * (bits). */
XC_TEST(test_dedispersed_into_same_bytes, "dedispersed_into_same_bytes")
{
    xc_synth_params p;
    xc_fx_synth_obs(&p, 16, 8, 128e-6, 230000 * 128e-6, 1500, -4);
    p.seed = 11;
    p.nthreads = 2;
    xc_fx_synth_psr(&p, 2.3, 120, 20, 0.5);
    p.psr.bin = (xc_synth_binary){1, 0.05, 0.4, 90, 30, 0.3, 1.4, 1.0};
    xc_error err;
    const char *stem = xc_fx_tmp("into");
    CU_ASSERT_EQUAL_FATAL(xc_synth_write_dedispersed(&p, stem, NULL, NULL, &err), XC_OK);
    char path[4200];
    snprintf(path, sizeof path, "%s.dat", stem);
    float *dat, *mem;
    size_t n;
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(path, &dat, &n, &err), XC_OK);
    uint64_t nm, ni;
    xc_truth tm, ti;
    CU_ASSERT_EQUAL_FATAL(xc_synth_dedispersed_series(&p, "into", &mem, &nm, &tm, &err), XC_OK);
    test_dest d = {malloc((n + 100) * sizeof(float)), n + 100, 0};
    CU_ASSERT_PTR_NOT_NULL_FATAL(d.b);
    float *x;
    CU_ASSERT_EQUAL_FATAL(xc_synth_dedispersed_into(&p, "into", &(xc_synth_dest){test_buffer, &d}, &x, &ni, &ti, &err),
                          XC_OK);
    if (nm != n || ni != n || d.n != n || x != d.b)
        printf("\n    .dat %zu samples, in memory %llu, in place %llu (asked %llu, own buffer %d); expected %zu ", n,
               (unsigned long long)nm, (unsigned long long)ni, (unsigned long long)d.n, x == d.b, n);
    CU_ASSERT_FATAL(nm == n && ni == n && d.n == n && x == d.b);
    CU_ASSERT(n > 3 * 65536);
    CU_ASSERT_EQUAL(memcmp(mem, dat, n * sizeof *dat), 0);
    CU_ASSERT_EQUAL(memcmp(x, dat, n * sizeof *dat), 0);
    CU_ASSERT_EQUAL(tm.nsamp_dedispersed, ti.nsamp_dedispersed);
    CU_ASSERT_EQUAL(memcmp(&tm.r, &ti.r, sizeof tm.r), 0);
    /* one thread: the pulses' edges (split over threads above) the same */
    float *one;
    uint64_t n1;
    p.nthreads = 1;
    CU_ASSERT_EQUAL_FATAL(xc_synth_dedispersed_series(&p, "into", &one, &n1, &tm, &err), XC_OK);
    CU_ASSERT_FATAL(n1 == n);
    CU_ASSERT_EQUAL(memcmp(one, dat, n * sizeof *dat), 0);
    free(one);
    d.cap = n - 1;
    CU_ASSERT_EQUAL(xc_synth_dedispersed_into(&p, "into", &(xc_synth_dest){test_buffer, &d}, &x, &ni, &ti, &err),
                    XC_ENOMEM);
    CU_ASSERT_PTR_NULL(x);
    free(d.b);
    free(mem);
    free(dat);
    xc_synth_params_free(&p);
}

XC_TEST(test_gaussian_profile, "gaussian_profile")
{
    /* A Gaussian of FWHM 2 ms, peak amp, one channel: the sum of the samples is
     * its area amp sigma sqrt(2 pi)/tsamp, the centroid its centre, the peak amp. */
    xc_synth_params p;
    quiet_obs(&p, 4, 32, 50e-6, 0.2, 1000, -0.5, 1);
    p.profile = XC_PROFILE_GAUSSIAN;
    xc_synth_pulse pl = {0.0731, 0, 2.0, 8};
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(&p, &pl, &err), XC_OK);
    uint64_t ns;
    float *x = write_and_read(&p, xc_fx_tmp("g.fil"), &ns);
    const double amp = 8 / 2.0, sig = 2e-3 / (2 * sqrt(2 * log(2)));
    double s = 0, st = 0, peak = 0;
    for (uint64_t i = 0; i < ns; i++) {
        s += x[i * 4];
        st += x[i * 4] * ((double)i + 0.5) * p.tsamp;
        peak = fmax(peak, x[i * 4]);
    }
    XC_ASSERT_CLOSE(s * p.tsamp, amp * sig * sqrt(2 * M_PI), 1e-6 * amp * sig);
    XC_ASSERT_CLOSE(st / s, 0.0731, 1e-8);
    XC_ASSERT_CLOSE(peak, amp, 0.002 * amp);   /* sample-averaged at the top: 1 - (ts/sig)^2/24 */
    free(x);
    /* a pulsar of Gaussians: 5 % duty, folded area per pulse as the formula */
    xc_synth_params_free(&p);
    xc_synth_params_init(&p);
    p.nchans = 1;
    p.nbits = 32;
    p.tsamp = 20e-6;
    p.tobs = 0.1;
    p.noise = 0;
    p.profile = XC_PROFILE_GAUSSIAN;
    p.psr.period_ms = 10;
    p.psr.width_pct = 5;
    p.psr.snrpeak = 1;
    x = write_and_read(&p, xc_fx_tmp("gp.fil"), &ns);
    s = 0;
    for (uint64_t i = 0; i < ns; i++)
        s += x[i];
    double area = 0.5e-3 / (2 * sqrt(2 * log(2))) * sqrt(2 * M_PI);
    XC_ASSERT_CLOSE(s * p.tsamp, 10 * area, 1e-4 * 10 * area);
    /* pulse k centred at (k + 0.5) P: the sample holding 5 ms is the peak */
    CU_ASSERT(x[250] > 0.99 && x[249] > 0.9 && x[100] < 1e-30);
    free(x);
    xc_synth_params_free(&p);
}

XC_TEST(test_truth_path, "truth_path")
{
    char out[64];
    xc_error err;
    CU_ASSERT_EQUAL(xc_synth_truth_path("a/obs.fil", out, sizeof out, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(out, "a/obs.truth.json");
    CU_ASSERT_EQUAL(xc_synth_truth_path("obs.dat", out, sizeof out, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(out, "obs.truth.json");
    CU_ASSERT_EQUAL(xc_synth_truth_path("obs.raw", out, sizeof out, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(out, "obs.raw.truth.json");
    CU_ASSERT_EQUAL(xc_synth_truth_path("obs.fil", out, 12, &err), XC_EINVAL);
}


/* ---- the command line ------------------------------------------------------ */




XC_TEST_IF(test_cli, "cli", xc_fx_skip_no_bin)
{
    char args[3000];
    CU_ASSERT_EQUAL(xc_fx_run_cli("synth -h"), 0);
    CU_ASSERT_EQUAL(xc_fx_run_cli("population -h"), 0);
    CU_ASSERT_EQUAL(xc_fx_run_cli("synth -o x.fil -nosuchoption"), 2);
    CU_ASSERT_EQUAL(xc_fx_run_cli("synth -o x.fil -tpulse 3"), 2);               /* -tpulse needs -single */
    CU_ASSERT_EQUAL(xc_fx_run_cli("synth -o x.fil -single -tobs 1"), 2);         /* -single needs -period */
    snprintf(args, sizeof args, "synth -o '%s' -becc 1 -binary -period 5", xc_fx_tmp("cli_bad.fil"));
    CU_ASSERT_EQUAL(xc_fx_run_cli(args), 2);
    /* -single: the pulsar's one pulse, where asked, with its width, S/N and DM */
    snprintf(args, sizeof args,
             "synth -quiet -single -tpulse 0.3 -period 10 -width 20 -snrpeak 5 -dm 50 -tobs 0.6 -nchans 8 "
             "-nbits 32 -nonoise -o '%s'", xc_fx_tmp("cli_single.fil"));
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    json_error_t je;
    json_t *t = json_load_file(xc_fx_tmp("cli_single.truth.json"), 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    json_t *pl = json_array_get(json_object_get(t, "pulses"), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(pl, "t_s")), 0.3, 0);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(pl, "width_ms")), 2.0, 1e-12);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(pl, "snr")), 5, 0);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(pl, "dm")), 50, 0);
    CU_ASSERT_TRUE(json_is_null(json_object_get(t, "pulsar")));
    json_decref(t);
    /* a binary pulsar's truth at the top level, and the dedispersed fast path */
    snprintf(args, sizeof args,
             "synth -quiet -dedispersed -period 3 -dm 40 -snrpeak 2 -binary -bper 3 -becc 0.2 -bphase 0.4 "
             "-bpmass 1.3 -bcmass 0.4 -nchans 16 -nbits 8 -tobs 5 -tsamp 256 -fch1 1400 -foff -4 -o '%s'",
             xc_fx_tmp("cli_dd.dat"));
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    CU_ASSERT_TRUE(xc_fx_exists(xc_fx_tmp("cli_dd.inf")));
    t = json_load_file(xc_fx_tmp("cli_dd.truth.json"), 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    static const char *const keys[] = {"f0_hz", "tobs_s", "r", "z", "w", "dm", "seed"};
    for (int k = 0; k < 7; k++)
        CU_ASSERT_TRUE(json_is_number(json_object_get(t, keys[k])));
    XC_ASSERT_CLOSE(json_real_value(json_object_get(t, "f0_hz")), 1000.0 / 3.0, 1e-9);
    json_decref(t);
    /* a population */
    snprintf(args, sizeof args, "population -quiet -spec '%s/population-test.json' -n 2 -seed 3 -out '%s'",
             xc_test_datasets(), xc_fx_tmp("cli_pop"));
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    CU_ASSERT_TRUE(xc_fx_exists(xc_fx_tmp("cli_pop/manifest.csv")));
    CU_ASSERT_TRUE(xc_fx_exists(xc_fx_tmp("cli_pop/psr000001.fil")));
    snprintf(args, sizeof args, "population -spec '%s/population-test.json' -n 0 -out '%s'", xc_test_datasets(),
             xc_fx_tmp("cli_pop"));
    CU_ASSERT_EQUAL(xc_fx_run_cli(args), 2);
}

XC_TEST(test_dedispersed_noise_no_repeat, "dedispersed_noise_no_repeat")
{
    /* The dedispersed series is made in chunks of 65536 samples: each sample's
     * noise must come from its own counter, so samples one chunk apart (and
     * one 16-sample group apart) are independent.  The correlation of m
     * independent pairs has a standard deviation of 1/sqrt(m) (0.0035 here);
     * the bound is 6 of them (false alarm 2e-9); noise restarted per chunk
     * correlates fully. */
    xc_synth_params p;
    xc_fx_synth_obs(&p, 16, 8, 64e-6, 9.0, 1500, -4);
    p.seed = 11;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_synth_write_dedispersed(&p, xc_fx_tmp("nr"), NULL, NULL, &err), XC_OK);
    float *d;
    size_t n;
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(xc_fx_tmp("nr.dat"), &d, &n, &err), XC_OK);
    const size_t lags[2] = {65536, 16};
    CU_ASSERT_FATAL(n > 65536 + 60000);
    for (int k = 0; k < 2; k++) {
        size_t m = n - lags[k];
        double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
        for (size_t j = 0; j < m; j++) {
            double a = d[j], b = d[j + lags[k]];
            sa += a, sb += b, saa += a * a, sbb += b * b, sab += a * b;
        }
        double cov = sab / m - (sa / m) * (sb / m), va = saa / m - (sa / m) * (sa / m),
               vb = sbb / m - (sb / m) * (sb / m);
        double r = cov / sqrt(va * vb);
        printf("\n  lag %zu: correlation %.5f of %zu pairs (bound %.5f)", lags[k], r, m, 6 / sqrt((double)m));
        XC_ASSERT_NEAR(r, 0, 6 / sqrt((double)m));
    }
    free(d);
}


XC_TEST(test_tophat8_same_values, "tophat8_same_values")
{
    /* Eight channels at a time (the vector path where the CPU has AVX-512F)
     * add the same floats as xc_signal_tophat channel by channel: 3000 random
     * bands, DMs (0 and unsmeared included), pulses and chunk windows, into
     * the same random starting values, compared bit for bit (tolerance 0). */
    enum { NCH = 37, NROW = 300 };
    static float a[NROW * NCH], b[NROW * NCH], base[NROW * NCH];
    xc_chgeo geo[NCH];
    uint64_t z = 12345;
    int bad = 0;
    for (int i = 0; i < NROW * NCH; i++)
        base[i] = (float)(lcg_unit(&z) - 0.5);
    for (int trial = 0; trial < 3000; trial++) {
        xc_synth_params p;
        xc_synth_params_init(&p);
        p.nchans = NCH;
        p.fch1 = 300 + 1200 * lcg_unit(&z);
        p.foff = -(0.01 + 3 * lcg_unit(&z));
        p.smear = trial % 7 != 3;
        const double dm = trial % 11 == 5 ? 0 : 2000 * lcg_unit(&z) * lcg_unit(&z);
        for (int c = 0; c < NCH; c++)
            xc_chgeo_set(&geo[c], &p, c, dm);
        double *lanes = xc_chgeo_lanes(geo, NCH);
        CU_ASSERT_PTR_NOT_NULL_FATAL(lanes);
        const double ts = (20 + 200 * lcg_unit(&z)) * 1e-6;
        const uint64_t first = (uint64_t)(1e6 * lcg_unit(&z));
        xc_chunk ca = {a, first, NROW, NCH, ts}, cb = {b, first, NROW, NCH, ts};
        memcpy(a, base, sizeof a);
        memcpy(b, base, sizeof b);
        const double w = ts * 30 * lcg_unit(&z), amp = 0.1 + lcg_unit(&z);
        const double ta = (double)first * ts + (NROW * lcg_unit(&z) - 50) * ts - geo[0].dmin;
        for (int c = 0; c < NCH; c++)
            xc_signal_tophat(&ca, c, &geo[c], ta, ta + w, amp);
        for (int c = 0; c < NCH; c += 8)
            xc_signal_tophat8(&cb, c, NCH - c < 8 ? NCH - c : 8, geo, lanes, ta, ta + w, amp);
        if (memcmp(a, b, sizeof a)) {
            for (int i = 0; i < NROW * NCH; i++)
                if (a[i] != b[i] && bad++ < 3)
                    printf("\n  trial %d, sample %d channel %d: %.9g, expected %.9g (bit for bit)\n", trial,
                           i / NCH, i % NCH, (double)b[i], (double)a[i]);
        }
        free(lanes);
        xc_synth_params_free(&p);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

XC_TEST_MAIN("synth")
