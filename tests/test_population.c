/* Tests of synthetic populations: the Table 1 spec, the draws' distributions,
 * reproducibility, resuming after an interruption, and spec errors.
 * Distribution checks use a chi-square goodness of fit with p > 1e-3
 * (false-alarm rate 1e-3) and 5-sigma correlation bounds; the seeds are
 * fixed, so a run always passes or always fails. */
#include <gsl/gsl_cdf.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_fft.h"
#include "core/io/xc_presto.h"
#include "tests/xc_fixture.h"
#include "synth/population/xc_population.h"
#include "synth/model/xc_synth.h"
#include "tests/xc_test.h"

static const xc_popdraw *find_draw(const xc_popspec *s, const char *field)
{
    for (size_t i = 0; i < s->ndraw; i++)
        if (!strcmp(s->draw[i].field, field))
            return &s->draw[i];
    return NULL;
}

XC_TEST(test_table1_spec, "table1_spec")
{
    /* White et al. 2024, Table 1 */
    static const struct {
        const char *field;
        xc_dist dist;
        double lo, hi;
    } t1[] = {
        {"period_ms", XC_DIST_LOGUNIFORM, 1, 10},     {"width_pct", XC_DIST_LOGUNIFORM, 5, 50},
        {"snrpeak", XC_DIST_LOGUNIFORM, 0.01, 0.1},   {"dm", XC_DIST_LOGUNIFORM, 100, 1000},
        {"bper_h", XC_DIST_LOGUNIFORM, 1, 10},        {"bphase", XC_DIST_UNIFORM, 0, 1},
        {"bpmass", XC_DIST_LOGUNIFORM, 0.5, 5},       {"bcmass", XC_DIST_LOGUNIFORM, 0.5, 5},
        {"becc", XC_DIST_UNIFORM, 0, 1},
    };
    xc_popspec s;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_popspec_load(&s, xc_fx_dataset("pulscan-table1.json"), &err), XC_OK);
    CU_ASSERT_EQUAL(s.ndraw, 9);
    for (size_t i = 0; i < sizeof t1 / sizeof t1[0]; i++) {
        const xc_popdraw *d = find_draw(&s, t1[i].field);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        CU_ASSERT_EQUAL(d->dist, t1[i].dist);
        CU_ASSERT_EQUAL(d->lo, t1[i].lo);
        CU_ASSERT_EQUAL(d->hi, t1[i].hi);
    }
    xc_synth_params p;
    int att;
    CU_ASSERT_EQUAL_FATAL(xc_popspec_pulsar(&s, 1, 0, &p, &att, &err), XC_OK);
    xc_fx_assert_synth_obs(&p, 1024, 8, 128e-6, 600, 1550, -0.292968752);
    CU_ASSERT_EQUAL(p.psr.bin.on, 1);
    CU_ASSERT_EQUAL(p.psr.bin.inc_deg, 90);
    xc_synth_params_free(&p);
    xc_popspec_free(&s);
}

static double field_value(const xc_synth_params *p, const char *f)
{
    if (!strcmp(f, "period_ms"))
        return p->psr.period_ms;
    if (!strcmp(f, "width_pct"))
        return p->psr.width_pct;
    if (!strcmp(f, "snrpeak"))
        return p->psr.snrpeak;
    if (!strcmp(f, "dm"))
        return p->psr.dm;
    if (!strcmp(f, "bper_h"))
        return p->psr.bin.pb_h;
    if (!strcmp(f, "bphase"))
        return p->psr.bin.phase;
    if (!strcmp(f, "bpmass"))
        return p->psr.bin.mp;
    if (!strcmp(f, "bcmass"))
        return p->psr.bin.mc;
    if (!strcmp(f, "becc"))
        return p->psr.bin.ecc;
    return NAN;
}

XC_TEST(test_draws_follow_distributions, "draws_follow_distributions")
{
    enum { N = 4000, NB = 20 };
    xc_popspec s;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_popspec_load(&s, xc_fx_dataset("pulscan-table1.json"), &err), XC_OK);
    double (*u)[9] = malloc(N * sizeof *u);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    int outside = 0, multi = 0, seeds_differ = 0;
    uint64_t prev_seed = 0;
    for (int i = 0; i < N; i++) {
        xc_synth_params p;
        int att;
        CU_ASSERT_EQUAL_FATAL(xc_popspec_pulsar(&s, 2024, (uint64_t)i, &p, &att, &err), XC_OK);
        multi += att > 1;
        seeds_differ += p.seed != prev_seed;
        prev_seed = p.seed;
        for (size_t k = 0; k < s.ndraw; k++) {
            const xc_popdraw *d = &s.draw[k];
            double v = field_value(&p, d->field);
            outside += !(v >= d->lo && v <= d->hi);
            u[i][k] = d->dist == XC_DIST_UNIFORM ? (v - d->lo) / (d->hi - d->lo) : log(v / d->lo) / log(d->hi / d->lo);
        }
        xc_synth_params_free(&p);
    }
    CU_ASSERT_EQUAL(outside, 0);
    CU_ASSERT_EQUAL(multi, 0);          /* a redraw is a ~1e-5 event in Table 1 */
    CU_ASSERT_EQUAL(seeds_differ, N);
    for (size_t k = 0; k < s.ndraw; k++) {
        /* uniform in u: chi-square over NB bins */
        double h[NB] = {0}, chi2 = 0;
        for (int i = 0; i < N; i++)
            h[(int)fmin(u[i][k] * NB, NB - 1)]++;
        for (int b = 0; b < NB; b++)
            chi2 += (h[b] - (double)N / NB) * (h[b] - (double)N / NB) / ((double)N / NB);
        double pval = gsl_cdf_chisq_Q(chi2, NB - 1);
        CU_ASSERT(pval > 1e-3);
        if (pval <= 1e-3)
            printf("\n    %s: chi-square p %.3g ", s.draw[k].field, pval);
        /* and independent of the next field */
        size_t k2 = (k + 1) % s.ndraw;
        double c = 0;
        for (int i = 0; i < N; i++)
            c += (u[i][k] - 0.5) * (u[i][k2] - 0.5);
        c /= N * (1.0 / 12.0);
        CU_ASSERT(fabs(c) < 5 / sqrt((double)N));
    }
    /* a pulsar's draws depend on (seed, i) only */
    xc_synth_params a, b;
    int att;
    CU_ASSERT_EQUAL_FATAL(xc_popspec_pulsar(&s, 2024, 17, &a, &att, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_popspec_pulsar(&s, 2024, 17, &b, &att, &err), XC_OK);
    CU_ASSERT(a.psr.period_ms == b.psr.period_ms && a.seed == b.seed && a.psr.bin.ecc == b.psr.bin.ecc);
    xc_synth_params_free(&b);
    CU_ASSERT_EQUAL_FATAL(xc_popspec_pulsar(&s, 2025, 17, &b, &att, &err), XC_OK);
    CU_ASSERT(a.psr.period_ms != b.psr.period_ms && a.seed != b.seed);
    xc_synth_params_free(&a);
    xc_synth_params_free(&b);
    free(u);
    xc_popspec_free(&s);
}

XC_TEST(test_rejected_orbits_are_drawn_again, "rejected_orbits_are_drawn_again")
{
    /* heavy, short, nearly parabolic orbits: many reach c/2 and are redrawn */
    const char *f = xc_fx_tmp("ecc.json");
    xc_fx_write_text(f, "{\"fixed\": {\"nchans\": 8, \"tobs_s\": 1, \"binary\": true, \"period_ms\": 5, \"bper_h\": 1,"
                  " \"bpmass\": 5, \"bcmass\": 5}, \"draw\": {\"becc\": {\"dist\": \"uniform\", \"lo\": 0.9999,"
                  " \"hi\": 0.99999999}}}");
    xc_popspec s;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_popspec_load(&s, f, &err), XC_OK);
    int redrawn = 0;
    for (int i = 0; i < 200; i++) {
        xc_synth_params p;
        int att;
        CU_ASSERT_EQUAL_FATAL(xc_popspec_pulsar(&s, 3, (uint64_t)i, &p, &att, &err), XC_OK);
        redrawn += att > 1;
        CU_ASSERT_EQUAL(xc_synth_params_check(&p, NULL, &err), XC_OK);
        xc_synth_params_free(&p);
    }
    CU_ASSERT(redrawn > 10);
    xc_popspec_free(&s);
    /* never valid: an error naming the pulsar and the reason */
    xc_fx_write_text(f, "{\"fixed\": {\"nchans\": 8, \"tobs_s\": 1, \"binary\": true, \"period_ms\": 5, \"bper_h\": 1,"
                  " \"bpmass\": 5, \"bcmass\": 5}, \"draw\": {\"becc\": {\"dist\": \"uniform\", \"lo\": 0.99999999,"
                  " \"hi\": 0.999999999}}}");
    CU_ASSERT_EQUAL_FATAL(xc_popspec_load(&s, f, &err), XC_OK);
    xc_synth_params p;
    int att;
    CU_ASSERT_EQUAL(xc_popspec_pulsar(&s, 3, 5, &p, &att, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pulsar 5"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "c/2"));
    xc_popspec_free(&s);
}

static int count_rows(const char *path)
{
    size_t n;
    unsigned char *b = xc_fx_slurp(path, &n);
    int rows = 0;
    for (size_t i = 0; b && i < n; i++)
        rows += b[i] == '\n';
    free(b);
    return rows;
}

/* The test population (datasets/population-test.json) into s, o zeroed;
 * failing to load ends the case. */
static void load_test_spec(xc_popspec *s, xc_popopts *o)
{
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_popspec_load(s, xc_fx_dataset("population-test.json"), &err), XC_OK);
    memset(o, 0, sizeof *o);
}

XC_TEST(test_population_reproducible_and_resumable, "population_reproducible_and_resumable")
{
    xc_popspec s;
    xc_error err;
    xc_popopts o;
    load_test_spec(&s, &o);
    const char *A = xc_fx_tmp("popA"), *B = xc_fx_tmp("popB");
    CU_ASSERT_EQUAL_FATAL(xc_population_run(&s, 3, 11, A, &o, &err), XC_OK);
    CU_ASSERT_EQUAL(o.made, 3);
    CU_ASSERT_EQUAL(o.skipped, 0);
    CU_ASSERT_EQUAL_FATAL(xc_population_run(&s, 3, 11, B, &o, &err), XC_OK);
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/manifest.csv", A);
    snprintf(b, sizeof b, "%s/manifest.csv", B);
    CU_ASSERT_EQUAL(count_rows(a), 4);
    CU_ASSERT_TRUE(xc_fx_same_file(a, b));
    static const char *const names[] = {"psr000000.fil", "psr000001.truth.json", "psr000002.fil"};
    for (int k = 0; k < 3; k++) {
        snprintf(a, sizeof a, "%s/%s", A, names[k]);
        snprintf(b, sizeof b, "%s/%s", B, names[k]);
        CU_ASSERT_TRUE(xc_fx_same_file(a, b));
    }
    /* the manifest's columns: id first, the truth r, z, w last */
    snprintf(a, sizeof a, "%s/manifest.csv", A);
    size_t n;
    char *m = (char *)xc_fx_slurp(a, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT(!strncmp(m, "id,noise_seed,file,truth,nchans,", 32));
    CU_ASSERT_PTR_NOT_NULL(strstr(m, ",draw_attempts,f0_hz,r,z,w\npsr000000,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "psr000002.fil,psr000002.truth.json"));
    free(m);
    /* running again makes nothing */
    CU_ASSERT_EQUAL_FATAL(xc_population_run(&s, 3, 11, A, &o, &err), XC_OK);
    CU_ASSERT_EQUAL(o.made, 0);
    CU_ASSERT_EQUAL(o.skipped, 3);
    snprintf(b, sizeof b, "%s/manifest.csv", B);
    CU_ASSERT_TRUE(xc_fx_same_file(a, b));
    /* an interrupted pulsar: no checkpoint, a truncated file and a temporary left */
    snprintf(a, sizeof a, "%s/psr000001.done", A);
    CU_ASSERT_EQUAL(remove(a), 0);
    snprintf(a, sizeof a, "%s/psr000001.fil", A);
    xc_fx_write_text(a, "half");
    char stale[600];
    snprintf(stale, sizeof stale, "%s/psr000001.fil.tmp.99.0", A);
    xc_fx_write_text(stale, "half");
    /* and a finished pulsar whose file was lost later */
    snprintf(a, sizeof a, "%s/psr000002.fil", A);
    CU_ASSERT_EQUAL(remove(a), 0);
    CU_ASSERT_EQUAL_FATAL(xc_population_run(&s, 4, 11, A, &o, &err), XC_OK);
    CU_ASSERT_EQUAL(o.made, 3);     /* 1, 2 and the new 3 */
    CU_ASSERT_EQUAL(o.skipped, 1);
    CU_ASSERT_FALSE(xc_fx_exists(stale));
    for (int k = 1; k <= 2; k++) {
        snprintf(a, sizeof a, "%s/psr%06d.fil", A, k);
        snprintf(b, sizeof b, "%s/psr%06d.fil", B, k);
        CU_ASSERT_TRUE(xc_fx_same_file(a, b));
    }
    snprintf(a, sizeof a, "%s/manifest.csv", A);
    snprintf(b, sizeof b, "%s/manifest.csv", B);
    CU_ASSERT_EQUAL(count_rows(a), 5);
    /* the first three rows are those of the 3-pulsar run */
    size_t na, nb;
    char *ma = (char *)xc_fx_slurp(a, &na), *mb = (char *)xc_fx_slurp(b, &nb);
    CU_ASSERT_FATAL(ma && mb && na > nb);
    CU_ASSERT_EQUAL(memcmp(ma, mb, nb), 0);
    free(ma);
    free(mb);
    /* another seed, other pulsars: the checkpoints no longer match */
    CU_ASSERT_EQUAL_FATAL(xc_population_run(&s, 2, 12, A, &o, &err), XC_OK);
    CU_ASSERT_EQUAL(o.made, 2);
    xc_popspec_free(&s);
}

XC_TEST(test_population_dedispersed, "population_dedispersed")
{
    xc_popspec s;
    xc_error err;
    xc_popopts o;
    load_test_spec(&s, &o);
    o.dedispersed = 1;
    o.first = 40;
    const char *D = xc_fx_tmp("popD");
    CU_ASSERT_EQUAL_FATAL(xc_population_run(&s, 2, 5, D, &o, &err), XC_OK);
    char p[600];
    static const char *const names[] = {"psr000040.dat", "psr000040.inf", "psr000041.truth.json", "manifest.csv"};
    for (int k = 0; k < 4; k++) {
        snprintf(p, sizeof p, "%s/%s", D, names[k]);
        CU_ASSERT_TRUE(xc_fx_exists(p));
    }
    snprintf(p, sizeof p, "%s/psr000040.truth.json", D);
    json_error_t je;
    json_t *t = json_load_file(p, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(t, "file")), "psr000040.dat");
    CU_ASSERT_PTR_NOT_NULL(json_object_get(t, "dedispersed"));
    CU_ASSERT(json_real_value(json_object_get(t, "r")) > 0);
    json_decref(t);
    /* each series is what fft takes: an even N, the truth's nsamp (exact) */
    for (int k = 40; k < 42; k++) {
        char dat[600], out[600];
        snprintf(dat, sizeof dat, "%s/psr%06d.dat", D, k);
        snprintf(p, sizeof p, "%s/psr%06d.truth.json", D, k);
        snprintf(out, sizeof out, "%s/psr%06d_spec", D, k);
        float *x;
        size_t n = 1;
        CU_ASSERT_EQUAL_FATAL(xc_dat_read(dat, &x, &n, &err), XC_OK);
        free(x);
        json_t *tk = json_load_file(p, 0, &je);
        CU_ASSERT_PTR_NOT_NULL_FATAL(tk);
        json_int_t nt = json_integer_value(json_object_get(tk, "nsamp"));
        json_decref(tk);
        if (n % 2 || (json_int_t)n != nt)
            printf("\n    %s: N = %zu, truth nsamp %lld: expected an even N equal to it ", dat, n, (long long)nt);
        CU_ASSERT_EQUAL(n % 2, 0);
        CU_ASSERT_EQUAL((json_int_t)n, nt);
        CU_ASSERT_EQUAL(xc_fft_file(dat, out, XC_FFT_SINGLE, &err), XC_OK);
    }
    /* a filterbank run in the same place does not take the .dat checkpoints as its own */
    o.dedispersed = 0;
    CU_ASSERT_EQUAL_FATAL(xc_population_run(&s, 2, 5, D, &o, &err), XC_OK);
    CU_ASSERT_EQUAL(o.made, 2);
    xc_popspec_free(&s);
}

XC_TEST(test_bad_specs, "bad_specs")
{
    static const struct {
        const char *json, *want;
    } bad[] = {
        {"{\"fixed\": {}, \"draw\": {\"dm\": {\"dist\": \"normal\", \"lo\": 1, \"hi\": 2}}}", "draw.dm.dist"},
        {"{\"fixed\": {}, \"draw\": {\"dm\": {\"dist\": \"uniform\", \"lo\": 3, \"hi\": 2}}}", "draw.dm: lo = 3"},
        {"{\"fixed\": {}, \"draw\": {\"dm\": {\"dist\": \"loguniform\", \"lo\": 0, \"hi\": 2}}}", "lo > 0"},
        {"{\"fixed\": {}, \"draw\": {\"perod_ms\": {\"dist\": \"uniform\", \"lo\": 1, \"hi\": 2}}}", "perod_ms"},
        {"{\"fixed\": {\"dm\": 4}, \"draw\": {\"dm\": {\"dist\": \"uniform\", \"lo\": 1, \"hi\": 2}}}",
         "also in \"fixed\""},
        {"{\"fixed\": {\"nbits\": 3}, \"draw\": {}}", "nbits"},
        {"{\"fixed\": {}, \"draw\": {}, \"extra\": 1}", "extra"},
        {"{\"fixed\": {}}", "\"draw\""},
        {"{\"fixed\": {}, \"draw\": {\"dm\": {\"dist\": \"uniform\", \"lo\": 1}}}", "draw.dm"},
    };
    const char *f = xc_fx_tmp("badspec.json");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xc_fx_write_text(f, bad[i].json);
        xc_popspec s;
        xc_error err;
        CU_ASSERT_NOT_EQUAL(xc_popspec_load(&s, f, &err), XC_OK);
        if (!strstr(err.msg, bad[i].want) || !strstr(err.msg, f)) {
            printf("\n  case %zu: '%s' not in: %s\n", i, bad[i].want, err.msg);
            CU_FAIL("message lacks the file or the field");
        }
    }
    xc_popspec s;
    xc_error err;
    CU_ASSERT_EQUAL(xc_popspec_load(&s, xc_fx_tmp("none.json"), &err), XC_EIO);
}

XC_TEST_MAIN("population")
