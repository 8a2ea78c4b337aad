/* Tests of FRB bursts in the synthesizer: the radiometer equation from a
 * fluence, the scattering tail per channel, the spectral index, the truth's
 * fields and expected box S/N, and the bytes at any thread count and chunk.
 * Data are 32-bit floats without noise, so each comparison is with a closed
 * form; the tolerances cover float storage (2^-24 relative per value, sums
 * of a few hundred values) and nothing else. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_nbits.h"
#include "synth/model/xc_synth.h"
#include "synth/population/xc_population.h"
#include "synth/write/synth_burst_snr.h"
#include "tests/xc_test.h"

/* Where the next bytes of the stream go, and the end of the room for them. */
typedef struct {
    uint8_t *at, *end;
} cursor;

static int sink(void *ctx, const uint8_t *bytes, size_t n)
{
    cursor *c = ctx;
    if (n > (size_t)(c->end - c->at))
        return 1;   /* more than the observation holds */
    memcpy(c->at, bytes, n);
    c->at += n;
    return 0;
}

/* A noiseless float observation at DM 0 without smearing: 4 channels of
 * 200 MHz from 1400 MHz down to 800, 100 us samples, 0.2 s. */
static void obs(xc_synth_params *p, int nchans, double foff)
{
    xc_synth_params_init_obs(p, nchans, 32, 100e-6, 0.2);
    p->fch1 = 1400;
    p->foff = foff;
    p->noise = 0;
    p->smear = 0;
}

/* The samples (channel fastest; float for 32 bits, else the packed bytes) of
 * p, or NULL. */
static float *render(const xc_synth_params *p)
{
    const size_t n = (size_t)xc_synth_nsamp(p) * (size_t)p->nchans;
    const size_t bytes = xc_nbits_is_float(p->nbits) ? n * sizeof(float) : n * (size_t)p->nbits / 8;
    float *x = malloc(bytes ? bytes : 1);
    cursor c = {(uint8_t *)x, (uint8_t *)x + bytes};
    xc_error err;
    if (!x || xc_synth_stream(p, sink, &c, &err) != XC_OK || c.at != c.end) {
        fprintf(stderr, "xc_synth_stream: %s\n", x ? err.msg : "out of memory");
        free(x);
        return NULL;
    }
    return x;
}

/* Radiometer: F / SEFD * sqrt(npol BW / W). */
static double radiometer(const xc_synth_params *p, double f_jyms, double w_s)
{
    return f_jyms * 1e-3 / p->sefd_jy * sqrt(p->npol * p->nchans * fabs(p->foff) * 1e6 / w_s);
}

/* The fluence case: a 1 ms top hat of 2 Jy ms at 0.1005 s (samples
 * 1000..1009) on 16 channels of 1 MHz, with the given scattering reference
 * frequency and index (the truth carries them), added to obs. */
static xc_status fluence_case(xc_synth_params *p, double tau_ref_mhz, double tau_index, xc_error *err)
{
    obs(p, 16, -1.0);
    xc_synth_pulse pl;
    xc_synth_pulse_init(&pl, 0.1005, 0, 1.0, 0);
    pl.fluence_jyms = 2.0;
    pl.tau_ref_mhz = tau_ref_mhz;
    pl.tau_index = tau_index;
    return xc_synth_params_add_pulse(p, &pl, err);
}

XC_TEST(test_fluence_snr, "fluence_snr")
{
    /* A 1 ms top hat on samples 1000..1009 of 16 channels of 1 MHz: the box
     * of its 10 samples on the band sum reaches the radiometer S/N
     * (2 Jy ms, SEFD 40 Jy, 2 pols, 16 MHz: 8.944). */
    xc_synth_params p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(fluence_case(&p, XC_SYNTH_TAU_REF_MHZ, XC_SYNTH_TAU_INDEX, &err), XC_OK);
    float *x = render(&p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    double sum = 0, outside = 0;
    for (int i = 990; i < 1020; i++)
        for (int c = 0; c < 16; c++)
            *(i >= 1000 && i < 1010 ? &sum : &outside) += x[(size_t)i * 16 + c];
    const double expect = radiometer(&p, 2.0, 1e-3);
    XC_ASSERT_NEAR(expect, 8.94427190999916, 1e-12);
    /* 160 float values of about 0.55: 1e-5 relative covers their rounding */
    XC_ASSERT_NEAR(sum / sqrt(16.0 * 10), expect, 1e-5 * expect);
    XC_ASSERT_NEAR(outside, 0, 1e-6);
    /* the truth's best box: the same 10 samples, the same S/N */
    xc_burst_box bx;
    CU_ASSERT_EQUAL_FATAL(xc_burst_box_snr(&p, &p.pulses[0], &bx, &err), XC_OK);
    XC_ASSERT_NEAR(bx.snr, expect, 1e-5 * expect);
    CU_ASSERT_EQUAL(bx.width, 10);
    CU_ASSERT_EQUAL(bx.start, 1000);
    XC_ASSERT_NEAR(bx.snr_pow2, expect * sqrt(8.0 / 10.0), 1e-5 * expect);
    CU_ASSERT_EQUAL(bx.width_pow2, 8);
    /* dispersed (DM 200, no smearing): each channel lands within half a
     * sample of its rounded delay, so a box of 11 samples holds all the
     * energy and no box does better than the undispersed one */
    p.pulses[0].dm = 200;
    CU_ASSERT_EQUAL_FATAL(xc_burst_box_snr(&p, &p.pulses[0], &bx, &err), XC_OK);
    XC_ASSERT_BELOW(bx.snr, expect * (1 + 1e-5));
    XC_ASSERT_ABOVE(bx.snr, expect * sqrt(10.0 / 11.0) * (1 - 1e-5));
    double d = xc_synth_delay(&p, 200, 1400 - 15) / 1e-4;
    XC_ASSERT_NEAR((double)bx.start, 1000, 1.0);
    XC_ASSERT_ABOVE(d, 50);   /* the sweep is long: the rounding is what is tested */
    free(x);
    xc_synth_params_free(&p);
}

XC_TEST(test_scattering_tail, "scattering_tail")
{
    /* A 1-sample top hat on sample 1000 scattered with tau = 2 ms at 1 GHz,
     * index -4: after the pulse each channel decays by exp(-tsamp/tau(f))
     * per sample, tau(1400) = 0.5206 ms, tau(800) = 4.883 ms, and keeps the
     * pulse's area (the tail is drawn to 20 tau: e^-20 = 2e-9 lost). */
    xc_synth_params p;
    obs(&p, 4, -200.0);
    p.tobs = 0.3;
    xc_synth_pulse pl;
    xc_synth_pulse_init(&pl, 0.10005, 0, 0.1, 8.0);
    pl.tau_ms = 2.0;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(&p, &pl, &err), XC_OK);
    float *x = render(&p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    const double amp = 8.0 / 2.0;   /* snr/sqrt(nchans) */
    for (int c = 0; c < 4; c += 3) {
        const double f = 1400 - 200.0 * c, tau = 2e-3 * pow(f / 1000, -4);
        XC_ASSERT_NEAR(xc_synth_pulse_tau(&pl, f), tau, 1e-15);
        for (int i = 1002; i < 1008; i++) {
            double r = x[(size_t)(i + 1) * 4 + c] / x[(size_t)i * 4 + c];
            /* a ratio of two floats: 2 x 2^-24 relative, 1e-6 with margin */
            XC_ASSERT_NEAR(r, exp(-1e-4 / tau), 1e-6);
            XC_ASSERT_NEAR(-1e-4 / log(r), tau, 2e-6 * tau / (1e-4 / tau));
        }
        double area = 0;
        for (int i = 990; i < 3000; i++)
            area += x[(size_t)i * 4 + c];
        XC_ASSERT_NEAR(area, amp, 1e-5 * amp);
        XC_ASSERT_NEAR(x[(size_t)999 * 4 + c], 0, 1e-7);
    }
    free(x);
    xc_synth_params_free(&p);
}

XC_TEST(test_spectral_index, "spectral_index")
{
    /* alpha = -2: channel amplitudes in the ratio (f_c/1400)^-2, their mean
     * the flat spectrum's amplitude snr/sqrt(nchans). */
    xc_synth_params p;
    obs(&p, 4, -200.0);
    xc_synth_pulse pl;
    xc_synth_pulse_init(&pl, 0.10005, 0, 0.1, 10.0);
    pl.alpha = -2.0;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(&p, &pl, &err), XC_OK);
    float *x = render(&p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    const float *row = x + (size_t)1000 * 4;
    double mean = 0;
    for (int c = 0; c < 4; c++) {
        double f = 1400 - 200.0 * c;
        XC_ASSERT_NEAR(row[c] / row[0], pow(f / 1400, -2.0), 1e-6);
        mean += row[c] / 4;
    }
    XC_ASSERT_NEAR(mean, 10.0 / 2.0, 1e-6 * 5);
    free(x);
    xc_synth_params_free(&p);
}

static double jnum(const json_t *o, const char *path)
{
    char k[64];
    snprintf(k, sizeof k, "%s", path);
    const json_t *v = o;
    for (char *s = strtok(k, "."); s && v; s = strtok(NULL, "."))
        v = json_object_get(v, s);
    return v ? json_number_value(v) : NAN;
}

XC_TEST(test_truth_fields, "truth_fields")
{
    /* Every member of the burst in the truth, the radiometer's S/N and the
     * best box of the fluence case above (float: quantisation keeps all). */
    xc_synth_params p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(fluence_case(&p, 600, -4.4, &err), XC_OK);
    char fil[4200], truth[4300];
    snprintf(fil, sizeof fil, "%s/burst.fil", xc_test_tmpdir());
    snprintf(truth, sizeof truth, "%s/burst.truth.json", xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(xc_synth_write(&p, fil, truth, NULL, &err), XC_OK);
    json_error_t je;
    json_t *root = json_load_file(truth, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    const json_t *b = json_array_get(json_object_get(root, "pulses"), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    const double expect = radiometer(&p, 2.0, 1e-3);
    XC_ASSERT_NEAR(jnum(b, "t_s"), 0.1005, 0);
    XC_ASSERT_NEAR(jnum(b, "fluence_jyms"), 2.0, 0);
    XC_ASSERT_NEAR(jnum(b, "tau_ms"), 0.0, 0);
    XC_ASSERT_NEAR(jnum(b, "tau_ref_mhz"), 600, 0);
    XC_ASSERT_NEAR(jnum(b, "tau_index"), -4.4, 0);
    XC_ASSERT_NEAR(jnum(b, "alpha"), 0, 0);
    XC_ASSERT_NEAR(jnum(b, "radiometer.sefd_jy"), 40, 0);
    XC_ASSERT_NEAR(jnum(b, "radiometer.npol"), 2, 0);
    XC_ASSERT_NEAR(jnum(b, "radiometer.snr_tophat_box"), expect, 1e-12 * expect);
    XC_ASSERT_NEAR(jnum(b, "expected_box.snr"), expect, 1e-5 * expect);
    XC_ASSERT_NEAR(jnum(b, "expected_box.width_samples"), 10, 0);
    XC_ASSERT_NEAR(jnum(b, "expected_box.start_sample"), 1000, 0);
    /* the params block reads back into the same burst */
    xc_synth_params q;
    xc_synth_params_init(&q);
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_from_json(&q, json_object_get(root, "params"), "truth", &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(q.npulses, 1);
    CU_ASSERT(!memcmp(&q.pulses[0], &p.pulses[0], sizeof p.pulses[0]));
    json_decref(root);
    xc_synth_params_free(&q);
    xc_synth_params_free(&p);
}

XC_TEST(test_spec_errors, "spec_errors")
{
    xc_synth_params p;
    xc_synth_params_init(&p);
    xc_error err;
    json_error_t je;
    json_t *o = json_loads("{\"pulses\": [{\"t_s\": 1, \"dm\": 10, \"width_ms\": 1}]}", 0, &je);
    CU_ASSERT_EQUAL(xc_synth_params_from_json(&p, o, "s.json", &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "fluence_jyms"));
    json_decref(o);
    o = json_loads("{\"pulses\": [{\"t_s\": 1, \"dm\": 10, \"width_ms\": 1, \"snr\": 5, \"tau_ms\": -1}]}", 0, &je);
    CU_ASSERT_EQUAL(xc_synth_params_from_json(&p, o, "s.json", &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pulses[0].tau_ms"));
    json_decref(o);
    o = json_loads("{\"pulses\": [{\"t_s\": 1, \"dm\": 10, \"width_ms\": 1, \"fluence_jyms\": 3}]}", 0, &je);
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_from_json(&p, o, "s.json", &err), XC_OK);
    XC_ASSERT_NEAR(p.pulses[0].tau_index, -4, 0);
    XC_ASSERT_NEAR(p.pulses[0].tau_ref_mhz, 1000, 0);
    json_decref(o);
    xc_synth_params_free(&p);
}

XC_TEST(test_burst_determinism, "burst_determinism")
{
    /* Dispersed, smeared, scattered bursts in noise, 8 bits, both profiles:
     * the same bytes with 1 thread and automatic chunks as with 4 threads and
     * chunks of 77 spectra. */
    for (int gauss = 0; gauss < 2; gauss++) {
        xc_synth_params p;
        xc_synth_params_init_obs(&p, 64, 8, 64e-6, 0.5);
        p.fch1 = 1500;
        p.foff = -4;
        p.profile = gauss ? XC_PROFILE_GAUSSIAN : XC_PROFILE_TOPHAT;
        xc_synth_pulse pl;
        xc_synth_pulse_init(&pl, 0.12, 300, 0.7, 0);
        pl.fluence_jyms = 20;
        pl.tau_ms = 3;
        pl.alpha = 1.5;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(&p, &pl, &err), XC_OK);
        xc_synth_pulse_init(&pl, 0.3, 800, 2.0, 15);
        pl.tau_ms = 0.5;
        CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(&p, &pl, &err), XC_OK);
        p.nthreads = 1;
        float *a = render(&p);
        p.nthreads = 4;
        p.chunk = 77;
        float *b = render(&p);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        CU_ASSERT(!memcmp(a, b, xc_synth_nsamp(&p) * 64));
        free(a);
        free(b);
        xc_synth_params_free(&p);
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const char *frb_spec(void)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/frb.json", xc_test_tmpdir());
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs("{\"description\": \"an FRB population\",\n"
          " \"fixed\": {\"nchans\": 64, \"nbits\": 8, \"tsamp_us\": 256, \"tobs_s\": 2, \"fch1\": 1500,\n"
          "           \"foff\": -4},\n"
          " \"draw\": {},\n"
          " \"frb\": {\"fluence_jyms\": {\"min\": 0.5},\n"
          "         \"width_ms\": {\"median\": 2, \"sigma_ln\": 0.5},\n"
          "         \"dm\": {\"lo\": 100, \"hi\": 1000},\n"
          "         \"tau_ms\": {\"median\": 0.5, \"sigma_ln\": 1}}}\n", f);
    fclose(f);
    return path;
}

XC_TEST(test_population_fluences, "population_fluences")
{
    /* 4000 bursts: N(>F) ~ F^-1.5 above 0.5 Jy ms.  The Kolmogorov-Smirnov
     * distance to the CDF 1 - (F/0.5)^-1.5 stays below 1.95/sqrt(N) = 0.031
     * (false alarm 1e-3), the maximum-likelihood index N/sum ln(F/Fmin)
     * within 5 sigma (sigma = 1.5/sqrt(N) = 0.024) of 1.5, ln(width) has
     * mean ln 2 within 5 sigma (0.5/sqrt(N)); the seed is fixed, so the test
     * always passes or always fails. */
    const char *path = frb_spec();
    CU_ASSERT_PTR_NOT_NULL_FATAL(path);
    xc_popspec s;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_popspec_load(&s, path, &err), XC_OK);
    CU_ASSERT_EQUAL(s.frb.on, 1);
    enum { N = 4000 };
    static double F[N];
    double lsum = 0, lw = 0;
    for (int i = 0; i < N; i++) {
        xc_synth_params p;
        int att;
        CU_ASSERT_EQUAL_FATAL(xc_popspec_pulsar(&s, 7, (uint64_t)i, &p, &att, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(p.npulses, 1);
        const xc_synth_pulse *pl = &p.pulses[0];
        F[i] = pl->fluence_jyms;
        lsum += log(F[i] / 0.5);
        lw += log(pl->width_ms);
        if (!(pl->dm >= 100 && pl->dm <= 1000 && pl->tau_ms > 0 && pl->t_s >= 0.5 && pl->t_s <= 1.0))
            CU_FAIL("a draw outside its range");
        xc_synth_params_free(&p);
    }
    double D = 0;
    qsort(F, N, sizeof F[0], cmp);
    for (int i = 0; i < N; i++) {
        double c = 1 - pow(F[i] / 0.5, -1.5);
        D = fmax(D, fmax(fabs(c - (double)i / N), fabs(c - (double)(i + 1) / N)));
    }
    XC_ASSERT_BELOW(D, 1.95 / sqrt((double)N));
    XC_ASSERT_NEAR(N / lsum, 1.5, 5 * 1.5 / sqrt((double)N));
    XC_ASSERT_NEAR(lw / N, log(2.0), 5 * 0.5 / sqrt((double)N));
    xc_popspec_free(&s);
}

XC_TEST(test_population_resume, "population_resume")
{
    /* Three FRB files written, then the same run again: all three skipped
     * (their checkpoints record the same bursts), and the truths hold them. */
    const char *path = frb_spec();
    xc_popspec s;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_popspec_load(&s, path, &err), XC_OK);
    char out[4200];
    snprintf(out, sizeof out, "%s/frbpop", xc_test_tmpdir());
    xc_popopts o = {0};
    o.nthreads = 1;
    CU_ASSERT_EQUAL_FATAL(xc_population_run(&s, 3, 11, out, &o, &err), XC_OK);
    CU_ASSERT_EQUAL(o.made, 3);
    xc_popopts o2 = {0};
    CU_ASSERT_EQUAL_FATAL(xc_population_run(&s, 3, 11, out, &o2, &err), XC_OK);
    CU_ASSERT_EQUAL(o2.made, 0);
    CU_ASSERT_EQUAL(o2.skipped, 3);
    char truth[4300];
    snprintf(truth, sizeof truth, "%s/psr000002.truth.json", out);
    json_error_t je;
    json_t *root = json_load_file(truth, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    const json_t *b = json_array_get(json_object_get(root, "pulses"), 0);
    XC_ASSERT_ABOVE(jnum(b, "fluence_jyms"), 0.5);
    XC_ASSERT_ABOVE(jnum(b, "expected_box.snr"), 0);
    /* the manifest's burst columns: the truth's values, exactly (%.17g) */
    char man[4300], text[16384];
    snprintf(man, sizeof man, "%s/manifest.csv", out);
    FILE *f = fopen(man, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ",draw_attempts,f0_hz,r,z,w,burst_fluence_jyms,burst_width_ms,burst_tau_ms,"
                                        "burst_dm,burst_t_s\n"));
    const char *row = strstr(text, "\npsr000002,");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    const char *end = strchr(row + 1, '\n'), *c = end;
    for (int k = 0; k < 5; k++)   /* back to the fifth comma from the end */
        while (*--c != ',')
            ;
    double v[5];
    CU_ASSERT_EQUAL_FATAL(sscanf(c, ",%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4]), 5);
    static const char *const keys[5] = {"fluence_jyms", "width_ms", "tau_ms", "dm", "t_s"};
    for (int k = 0; k < 5; k++) {
        if (v[k] != jnum(b, keys[k]))
            printf("\n  burst_%s: observed %.17g in the manifest, expected the truth's %.17g (tolerance 0)", keys[k],
                   v[k], jnum(b, keys[k]));
        XC_ASSERT_NEAR(v[k], jnum(b, keys[k]), 0);
    }
    CU_ASSERT(v[2] > 0);   /* scattering drawn: a log-normal, never 0 */
    json_decref(root);
    xc_popspec_free(&s);
}

XC_TEST_MAIN("burst")
