/* The run's checks (compare/check/xc_checks.h) must pass on good input and report
 * every planted failure as a failed row with what they observed; the run
 * spec (compare/check/xc_runspec.h) must refuse unknown fields and wrong types,
 * naming the field's JSON path. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/check/xc_checks.h"
#include "compare/check/xc_runspec.h"
#include "core/base/xc_nbits.h"
#include "core/search/xc_search.h"
#include "optimized/xc_impls.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define NSAMP 2000
#define TSAMP 1e-3
#define PLAN "0:30:1:1"          /* 30 trials, DM 0..29, one step apart */
#define PULSE_ROW 10
#define PULSE_T0 700
#define PULSE_W 16
#define PULSE_A 5.0              /* per sample, in units of the noise's sigma */
#define LINE_ROW 20
#define LINE_HZ 50.0             /* bin 100 of a 2 s series */

/* xorshift64*: the test's own generator, so data are the same everywhere. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* About N(0, 1): the sum of 12 uniforms less 6 (Irwin-Hall). */
static double gauss(uint64_t *s)
{
    double x = 0;
    for (int i = 0; i < 12; i++)
        x += (double)(rnd(s) >> 11) / 9007199254740992.0;
    return x - 6.0;
}

typedef struct {
    xc_dmplan plan;
    xc_plane pl;
    xc_planemeta meta;
} fplane;

/* Noise scaled by 8 (not rounded: a MAD of integers is quantised), a pulse in row
 * PULSE_ROW and a sine in row LINE_ROW. */
static void fp_make(fplane *f, uint64_t seed)
{
    xc_error err;
    memset(f, 0, sizeof *f);
    xc_dmplan_init(&f->plan);
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&f->plan, PLAN, "test", &err), XC_OK);
    size_t ndm = f->plan.r[0].ndm;
    f->pl.nranges = 1;
    f->pl.r = calloc(1, sizeof *f->pl.r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->pl.r);
    f->pl.r[0] = (xc_planerange){1, ndm, NSAMP, malloc(ndm * NSAMP * sizeof(float))};
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->pl.r[0].data);
    for (size_t d = 0; d < ndm; d++)
        for (size_t t = 0; t < NSAMP; t++) {
            double x = 8.0 * gauss(&seed);
            if (d == PULSE_ROW && t >= PULSE_T0 && t < PULSE_T0 + PULSE_W)
                x += 8.0 * PULSE_A;
            if (d == LINE_ROW)
                x += 24.0 * sin(2 * M_PI * LINE_HZ * (double)t * TSAMP);
            f->pl.r[0].data[d * NSAMP + t] = (float)x;
        }
    snprintf(f->meta.impl, sizeof f->meta.impl, "test");
    snprintf(f->meta.convention, sizeof f->meta.convention, "crosscheck");
    f->meta.nbits = 8;
    f->meta.nchans = f->meta.nchans_used = 37;
    f->meta.tsamp = TSAMP;
}

static void fp_copy(fplane *dst, const fplane *src)
{
    xc_error err;
    *dst = *src;
    xc_dmplan_init(&dst->plan);
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&dst->plan, PLAN, "test", &err), XC_OK);
    dst->pl.r = calloc(1, sizeof *dst->pl.r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dst->pl.r);
    dst->pl.r[0] = src->pl.r[0];
    size_t n = src->pl.r[0].ndm * src->pl.r[0].nsamp;
    dst->pl.r[0].data = malloc(n * sizeof(float));
    CU_ASSERT_PTR_NOT_NULL_FATAL(dst->pl.r[0].data);
    memcpy(dst->pl.r[0].data, src->pl.r[0].data, n * sizeof(float));
}

static void fp_free(fplane *f)
{
    xc_plane_free(&f->pl);
    xc_dmplan_free(&f->plan);
}

/* The one row a check added, asserted to be in state s. */
static const xc_check_row *only_row(const xc_checks *l, xc_check_state s)
{
    CU_ASSERT_EQUAL_FATAL(l->n, 1);
    const xc_check_row *r = &l->row[0];
    if (r->state != s)
        fprintf(stderr, "\n    row %s [%s]: %s, measured '%s', bound '%s'\n", r->check, r->impl,
                xc_check_state_name(r->state), r->measured, r->bound);
    CU_ASSERT_EQUAL(r->state, s);
    CU_ASSERT_EQUAL(l->npass + l->nfail + l->nskip, 1);
    return r;
}

/* ---- the list ------------------------------------------------------------ */

XC_TEST(test_list_counts, "row list counts, skips apart")
{
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    for (int i = 0; i < 100; i++)
        CU_ASSERT_EQUAL(xc_checks_addf(&l, "obs", "cpu", "c", i % 3 == 0 ? XC_CHECK_PASS : i % 3 == 1 ? XC_CHECK_FAIL
                                                                                                        : XC_CHECK_SKIP,
                                       i, 0, NULL, &err, "row %d", i), XC_OK);
    CU_ASSERT_EQUAL(l.n, 100);
    CU_ASSERT_EQUAL(l.npass, 34);
    CU_ASSERT_EQUAL(l.nfail, 33);
    CU_ASSERT_EQUAL(l.nskip, 33);     /* skips never count as passes */
    CU_ASSERT_STRING_EQUAL(l.row[99].check, "obs: c");
    CU_ASSERT_STRING_EQUAL(l.row[99].measured, "row 99");
    CU_ASSERT_STRING_EQUAL(l.row[99].bound, "-");
    CU_ASSERT_STRING_EQUAL(xc_check_state_name(l.row[2].state), "SKIP");
    xc_checks_free(&l);
}

/* ---- planes -------------------------------------------------------------- */

static void plane_case(int plant, int nbits)
{
    fplane a, b;
    fp_make(&a, 1);
    a.meta.nbits = nbits;
    fp_copy(&b, &a);
    double delta = 0;
    if (plant) {
        delta = xc_nbits_is_float(nbits) ? 1.0 : 3.0;      /* the float bound here is N 2^-24 max|ref|, ~1e-4 */
        b.pl.r[0].data[5 * NSAMP + 123] += (float)delta;
    }
    xc_cmpside A = {"a", &b.pl, &b.meta, &b.plan}, B = {"ref", &a.pl, &a.meta, &a.plan};
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_check_plane(&l, "obs", "cpu", &A, &B, &err), XC_OK);
    const xc_check_row *r = only_row(&l, plant ? XC_CHECK_FAIL : XC_CHECK_PASS);
    CU_ASSERT_STRING_EQUAL(r->check, "obs: plane vs reference");
    XC_ASSERT_NEAR(r->observed, delta, 1e-6);
    if (plant)
        CU_ASSERT_PTR_NOT_NULL(strstr(r->measured, "1 of 60000 samples differ"));
    xc_checks_free(&l);
    fp_free(&a);
    fp_free(&b);
}

XC_TEST(test_plane_exact_pass, "plane: identical integer planes pass") { plane_case(0, 8); }
XC_TEST(test_plane_exact_fail, "plane: one changed sample fails") { plane_case(1, 8); }
XC_TEST(test_plane_float_fail, "plane: float sample beyond the bound fails") { plane_case(1, 32); }

XC_TEST(test_plane_mismatch, "plane: other shape fails, not an error")
{
    fplane a, b;
    fp_make(&a, 1);
    fp_copy(&b, &a);
    b.pl.r[0].nsamp--;        /* a plane of other trials cannot be compared */
    xc_cmpside A = {"a", &b.pl, &b.meta, &b.plan}, B = {"ref", &a.pl, &a.meta, &a.plan};
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL(xc_check_plane(&l, "obs", "cpu", &A, &B, &err), XC_OK);
    const xc_check_row *r = only_row(&l, XC_CHECK_FAIL);
    CU_ASSERT_STRING_EQUAL(r->bound, "comparable");
    CU_ASSERT(isnan(r->observed));
    xc_checks_free(&l);
    b.pl.r[0].nsamp++;
    fp_free(&a);
    fp_free(&b);
}

static void threads_case(int plant)
{
    fplane a, b;
    fp_make(&a, 2);
    fp_copy(&b, &a);
    if (plant)
        b.pl.r[0].data[17 * NSAMP + 1999] = -0.0f;   /* equal as numbers, not as bytes */
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    if (plant)
        a.pl.r[0].data[17 * NSAMP + 1999] = 0.0f;
    CU_ASSERT_EQUAL_FATAL(xc_check_threads(&l, "obs", "cpu", &b.pl, &a.pl, 4, &err), XC_OK);
    const xc_check_row *r = only_row(&l, plant ? XC_CHECK_FAIL : XC_CHECK_PASS);
    XC_ASSERT_NEAR(r->observed, plant ? 1.0 : 0.0, 0);
    CU_ASSERT_STRING_EQUAL(r->measured, plant ? "1 samples differ between 1 and 4 threads"
                                              : "0 samples differ between 1 and 4 threads");
    CU_ASSERT_EQUAL(xc_check_threads(&l, "obs", "cpu", NULL, &a.pl, 4, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(l.n, 1);
    xc_checks_free(&l);
    fp_free(&a);
    fp_free(&b);
}

XC_TEST(test_threads_pass, "threads: same bytes pass") { threads_case(0); }
XC_TEST(test_threads_fail, "threads: -0 against 0 fails") { threads_case(1); }

/* ---- pulses -------------------------------------------------------------- */

static void pulse_case(double dm, int expect_pass)
{
    fplane a;
    fp_make(&a, 3);
    xc_pulse_truth t;
    xc_pulse_truth_init(&t, 0, PULSE_T0 * TSAMP, dm, PULSE_W * TSAMP, PULSE_A, TSAMP);
    XC_ASSERT_NEAR(t.snr_expected, PULSE_A * 4.0, 1e-12);     /* sqrt(16) samples */
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_check_pulse(&l, "obs", "cpu", &a.pl, &a.plan, TSAMP, &t, &err), XC_OK);
    const xc_check_row *r = only_row(&l, expect_pass ? XC_CHECK_PASS : XC_CHECK_FAIL);
    /* Found where it was put, whatever the truth said. */
    XC_ASSERT_NEAR(r->observed, (double)PULSE_ROW, 1e-9);
    XC_ASSERT_NEAR(r->expected, dm, 0);
    CU_ASSERT_STRING_EQUAL(r->check, expect_pass ? "obs: pulse 0 (DM 10 at 0.700 s)" : "obs: pulse 0 (DM 14 at 0.700 s)");
    xc_checks_free(&l);
    fp_free(&a);
}

XC_TEST(test_pulse_pass, "pulse: found at its DM") { pulse_case(PULSE_ROW, 1); }
XC_TEST(test_pulse_wrong_dm, "pulse: truth at the wrong DM fails") { pulse_case(PULSE_ROW + 4, 0); }

/* A pulse found at the right DM with a third of the S/N the truth promised. */
XC_TEST(test_pulse_weak, "pulse: weaker than promised fails")
{
    fplane a;
    fp_make(&a, 3);
    xc_pulse_truth t;
    xc_pulse_truth_init(&t, 0, PULSE_T0 * TSAMP, PULSE_ROW, PULSE_W * TSAMP, 3 * PULSE_A, TSAMP);
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_check_pulse(&l, "obs", "cpu", &a.pl, &a.plan, TSAMP, &t, &err), XC_OK);
    const xc_check_row *r = only_row(&l, XC_CHECK_FAIL);
    XC_ASSERT_NEAR(r->observed, (double)PULSE_ROW, 1e-9);
    xc_checks_free(&l);
    fp_free(&a);
}

/* The pulse check at its edges: the truth one DM step from the found peak
 * passes, 1 % of a step more fails; the found S/N 9.9 % from the promised
 * passes, 10.1 % fails (either side).  The row's observed is the judged DM. */
XC_TEST(test_pulse_edges, "pulse: at the edges of one DM step and 10 % of S/N")
{
    fplane a;
    fp_make(&a, 3);
    xc_pulse_truth t;
    xc_pulse_truth_init(&t, 0, PULSE_T0 * TSAMP, PULSE_ROW, PULSE_W * TSAMP, PULSE_A, TSAMP);
    xc_pulsefind f;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_recover_pulse(&a.pl, &a.plan, TSAMP, t.t_s, t.width_s, t.window_s, &f, &err), XC_OK);
    const struct {
        double dm, snr_div;
        xc_check_state s;
    } cs[] = {
        {f.dm + f.dm_step, 1, XC_CHECK_PASS},        {f.dm + 1.01 * f.dm_step, 1, XC_CHECK_FAIL},
        {f.dm - f.dm_step, 1, XC_CHECK_PASS},        {f.dm - 1.01 * f.dm_step, 1, XC_CHECK_FAIL},
        {f.dm, 1.099, XC_CHECK_PASS},                {f.dm, 1.101, XC_CHECK_FAIL},
        {f.dm, 0.901, XC_CHECK_PASS},                {f.dm, 0.899, XC_CHECK_FAIL},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        xc_pulse_truth ti = t;
        ti.dm = cs[i].dm;
        ti.snr_expected = f.snr / cs[i].snr_div;
        xc_checks l;
        xc_checks_init(&l);
        CU_ASSERT_EQUAL_FATAL(xc_check_pulse(&l, "obs", "cpu", &a.pl, &a.plan, TSAMP, &ti, &err), XC_OK);
        const xc_check_row *r = only_row(&l, cs[i].s);
        XC_ASSERT_NEAR(r->observed, f.dm, 0);
        XC_ASSERT_NEAR(r->expected, cs[i].dm, 0);
        xc_checks_free(&l);
    }
    fp_free(&a);
}

/* ---- lines --------------------------------------------------------------- */

static void line_case(double dm, double f0, xc_check_state s, double observed)
{
    fplane a;
    fp_make(&a, 4);
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    double *spec = NULL;
    xc_powerpeak pk;
    CU_ASSERT_EQUAL_FATAL(xc_check_line(&l, "obs", "cpu", &a.pl, &a.plan, TSAMP, dm, f0, 1.0, &spec, &pk, &err),
                          XC_OK);
    const xc_check_row *r = only_row(&l, s);
    if (isnan(observed)) {
        CU_ASSERT(isnan(r->observed));
        CU_ASSERT_STRING_EQUAL(r->measured, "DM not in the plan");
    } else {
        XC_ASSERT_NEAR(r->observed, observed, 1e-9);
        XC_ASSERT_NEAR(r->expected, f0, 0);
        CU_ASSERT_PTR_NOT_NULL(spec);
    }
    free(spec);
    xc_checks_free(&l);
    fp_free(&a);
}

XC_TEST(test_line_pass, "line: at its frequency") { line_case(LINE_ROW, LINE_HZ, XC_CHECK_PASS, LINE_HZ); }
XC_TEST(test_line_wrong_freq, "line: expected at the wrong frequency fails") { line_case(LINE_ROW, 20.0, XC_CHECK_FAIL, LINE_HZ); }
XC_TEST(test_line_dm_absent, "line: DM not in the plan fails") { line_case(100.0, LINE_HZ, XC_CHECK_FAIL, NAN); }

/* ---- candidates ---------------------------------------------------------- */

#define T_OBS 100.0

static void add_cand(xc_candlist *l, double r, double z, double sigma)
{
    xc_cand c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.z = z;
    c.width = (int)fabs(z) + 1;
    c.numharm = 1;
    c.sigma = sigma;
    c.power = 10 * sigma;
    c.dof = 2;
    c.ntrials = 1e6;
    xc_cand_derive(&c, T_OBS);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_candlist_add(l, &c, &err), XC_OK);
}

static void cands_make(xc_candlist *l, int drop, int extra)
{
    xc_candlist_init(l);
    l->T = T_OBS;
    snprintf(l->source, sizeof l->source, "crosscheck");
    static const double rs[4] = {610.0, 1220.0, 3000.0, 4500.0};
    for (int i = 0; i < 4; i++)
        if (i != drop)
            add_cand(l, rs[i], 2.0 * i, 20.0 - i);
    if (extra)
        add_cand(l, 7777.0, 0.0, 9.0);
    xc_candlist_sort(l);
}

static void cands_case(int drop, int extra, double observed)
{
    xc_candlist a, ref;
    cands_make(&ref, -1, 0);
    cands_make(&a, drop, extra);
    xc_cmpcands_opts o;
    xc_cmpcands_opts_init(&o);
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_check_cands(&l, "obs", "cpu", &a, &ref, &o, &err), XC_OK);
    const xc_check_row *r = only_row(&l, observed == 0 ? XC_CHECK_PASS : XC_CHECK_FAIL);
    XC_ASSERT_NEAR(r->observed, observed, 0);
    CU_ASSERT_STRING_EQUAL(r->check, "obs: candidates vs reference");
    xc_checks_free(&l);
    xc_candlist_free(&a);
    xc_candlist_free(&ref);
}

XC_TEST(test_cands_pass, "cands: same lists agree") { cands_case(-1, 0, 0); }
XC_TEST(test_cands_missing, "cands: a missing candidate fails") { cands_case(2, 0, 1); }
XC_TEST(test_cands_extra, "cands: an extra candidate fails") { cands_case(-1, 1, 1); }

static void top_case(double f0, xc_check_state s)
{
    xc_candlist c;
    cands_make(&c, -1, 0);
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_check_top_cand(&l, "obs", "cpu", &c, f0, 16, &err), XC_OK);
    const xc_check_row *r = only_row(&l, s);
    XC_ASSERT_NEAR(r->observed, 6.1, 1e-9);     /* r 610 over 100 s */
    XC_ASSERT_NEAR(r->expected, f0, 0);
    xc_checks_free(&l);
    xc_candlist_free(&c);
}

/* Within one bin (1/T = 0.01 Hz) of f0: 0.0099 Hz off passes, 0.0101 fails. */
XC_TEST(test_top_edges, "top candidate: at the edge of one bin") { top_case(6.1099, XC_CHECK_PASS); top_case(6.0901, XC_CHECK_PASS); top_case(6.1101, XC_CHECK_FAIL); top_case(6.0899, XC_CHECK_FAIL); }
XC_TEST(test_top_pass, "top candidate: the pulsar") { top_case(6.1, XC_CHECK_PASS); }
XC_TEST(test_top_subharmonic_pass, "top candidate: a subharmonic passes") { top_case(12.2, XC_CHECK_PASS); }
XC_TEST(test_top_wrong_freq, "top candidate: at the wrong frequency fails") { top_case(7.3, XC_CHECK_FAIL); }

XC_TEST(test_top_empty, "top candidate: none fails")
{
    xc_candlist c;
    xc_candlist_init(&c);
    c.T = T_OBS;
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL(xc_check_top_cand(&l, "obs", "cpu", &c, 6.1, 16, &err), XC_OK);
    const xc_check_row *r = only_row(&l, XC_CHECK_FAIL);
    CU_ASSERT_STRING_EQUAL(r->measured, "no candidate");
    xc_checks_free(&l);
}

static void truth_case(double r_true, xc_check_state s)
{
    xc_candlist c;
    cands_make(&c, -1, 0);
    xc_truth t = {r_true / T_OBS, r_true, 0.0, T_OBS, 1};
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    xc_cmpcands_opts o;
    xc_cmpcands_opts_init(&o);
    o.fundamental = 1;
    o.truth_dr = 1.0;
    o.truth_dz = 2.0;
    CU_ASSERT_EQUAL_FATAL(xc_check_truth(&l, "obs", "cpu", &c, &t, &o, &err), XC_OK);
    const xc_check_row *r = only_row(&l, s);
    XC_ASSERT_NEAR(r->observed, 610.0, 1e-9);   /* the candidate at 1 % from the truth is its detection */
    XC_ASSERT_NEAR(r->expected, r_true, 0);
    xc_checks_free(&l);
    xc_candlist_free(&c);
}

/* run's rule: the candidate at r 610 one bin from the truth passes, 1/16 more fails */
XC_TEST(test_truth_edges, "truth: r at the edge of one bin") { truth_case(611.0, XC_CHECK_PASS); truth_case(608.9375, XC_CHECK_FAIL); }
XC_TEST(test_truth_pass, "truth: recovered") { truth_case(610.3, XC_CHECK_PASS); }
XC_TEST(test_truth_wrong_r, "truth: r off by more than a bin fails") { truth_case(614.0, XC_CHECK_FAIL); }

/* ---- the accel search ---------------------------------------------------- */

/* Three candidates: r 131 z 0 w 0 (sigma 50), r 393.5 z 4 w -20 (40), r 20040 z 80 w 200 (17). */
static void accel_cands(xc_candlist *c)
{
    static const double v[3][4] = {{131, 0, 0, 50}, {393.5, 4, -20, 40}, {20040, 80, 200, 17}};
    xc_candlist_init(c);
    for (int i = 0; i < 3; i++) {
        xc_cand k;
        memset(&k, 0, sizeof k);
        k.r = v[i][0];
        k.z = v[i][1];
        k.w = v[i][2];
        k.sigma = v[i][3];
        k.numharm = 1;
        xc_error e;
        CU_ASSERT_EQUAL_FATAL(xc_candlist_add(c, &k, &e), XC_OK);
    }
}

static void accel_truth_case(double r, double z, double w, xc_check_state s, double observed)
{
    xc_candlist c;
    accel_cands(&c);
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_check_accel_truth(&l, "obs", "cpu", &c, r, z, w, 1, 2, 20, 2, &err), XC_OK);
    const xc_check_row *row = only_row(&l, s);
    XC_ASSERT_NEAR(row->observed, observed, 0);
    XC_ASSERT_NEAR(row->expected, r, 0);
    xc_checks_free(&l);
    xc_candlist_free(&c);
}

XC_TEST(test_accel_truth_pass, "accel truth: r, z, w found") { accel_truth_case(20040.3, 81, 210, XC_CHECK_PASS, 20040); }
XC_TEST(test_accel_truth_no_z, "accel truth: z and w NaN are not checked") { accel_truth_case(131, NAN, NAN, XC_CHECK_PASS, 131); }
/* planted: the right r with z of the wrong sign, w a grid step and a half off, r 1.5 bins off */
XC_TEST(test_accel_truth_wrong_z, "accel truth: z of the wrong sign fails") { accel_truth_case(20040, -80, 200, XC_CHECK_FAIL, 131); }
XC_TEST(test_accel_truth_wrong_w, "accel truth: w 30 off fails") { accel_truth_case(20040, 80, 230.5, XC_CHECK_FAIL, 131); }
XC_TEST(test_accel_truth_wrong_r, "accel truth: r 1.5 bins off fails") { accel_truth_case(395, 4, -20, XC_CHECK_FAIL, 131); }

/* accelsearch's table against ours: equal lists pass; a sigma 0.3 off, an
 * r 0.6 off or a missing candidate fails; outside [rlo, rhi] or beyond the
 * strongest maxn nothing is compared. */
static void vs_accelsearch_case(int which, double delta, double rlo, double rhi, size_t maxn, xc_check_state s,
                                double unmatched)
{
    xc_candlist a, b;
    accel_cands(&a);
    accel_cands(&b);
    if (which == 0)
        b.c[1].sigma += delta;
    else if (which == 1)
        b.c[1].r += delta;
    else if (which == 2)
        b.n = 1;   /* its last two dropped */
    xc_checks l;
    xc_error err;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_check_accel_vs_accelsearch(&l, "obs", "cpu", &a, &b, "x_ACCEL_0", 2, rlo, rhi, maxn, &err),
                          XC_OK);
    const xc_check_row *row = only_row(&l, s);
    XC_ASSERT_NEAR(row->observed, unmatched, 0);
    xc_checks_free(&l);
    xc_candlist_free(&a);
    xc_candlist_free(&b);
}

XC_TEST(test_accel_vs_presto_pass, "accelsearch: equal lists, sigma 0.15 off pass")
{
    vs_accelsearch_case(0, 0.15, 0, INFINITY, (size_t)-1, XC_CHECK_PASS, 0);
}
XC_TEST(test_accel_vs_presto_sigma, "accelsearch: sigma 0.3 off fails")
{
    vs_accelsearch_case(0, 0.3, 0, INFINITY, (size_t)-1, XC_CHECK_FAIL, 2);
}
XC_TEST(test_accel_vs_presto_r, "accelsearch: r 0.6 off fails") { vs_accelsearch_case(1, 0.6, 0, INFINITY, (size_t)-1, XC_CHECK_FAIL, 2); }
XC_TEST(test_accel_vs_presto_missing, "accelsearch: missing candidates fail")
{
    vs_accelsearch_case(2, 0, 0, INFINITY, (size_t)-1, XC_CHECK_FAIL, 2);
}
XC_TEST(test_accel_vs_presto_range, "accelsearch: only the range and the strongest maxn are compared")
{
    vs_accelsearch_case(2, 0, 100, 200, (size_t)-1, XC_CHECK_PASS, 0);
    vs_accelsearch_case(1, 0.6, 0, INFINITY, 1, XC_CHECK_PASS, 0);
}

/* ---- the run spec -------------------------------------------------------- */

static xc_status spec_from(const char *text, xc_runspec *s, xc_error *err)
{
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    xc_status st = xc_runspec_from_json(s, root, "spec.json", err);
    json_decref(root);
    return st;
}

static void spec_refused(const char *text, const char *message)
{
    xc_runspec s;
    xc_error err;
    xc_error_clear(&err);
    CU_ASSERT_EQUAL(spec_from(text, &s, &err), XC_EINVAL);
    if (!strstr(err.msg, message))
        fprintf(stderr, "\n    message '%s', expected it to hold '%s'\n", err.msg, message);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, message));
    CU_ASSERT_EQUAL(s.nsyn + s.nreal + s.nper + s.nacc, 0);
    xc_runspec_free(&s);
}

XC_TEST(test_spec_good, "spec: a good one reads with defaults")
{
    xc_runspec s;
    xc_error err;
    const char *text = "{\"description\": \"x\", \"real\": [{\"name\": \"t\", \"file\": \"a.fil\", \"dmplan\": "
                       "\"0:10:1:1\", \"line\": {\"dm\": 3, \"freq_hz\": 4.5}}, {\"file\": \"b.fil\", \"dmplan\": "
                       "\"0:10:1:1\"}], \"periodicity\": [{\"fft\": \"x.fft\", \"zmax\": 50, \"sigma\": 2, "
                       "\"note\": \"n\"}]}";
    CU_ASSERT_EQUAL_FATAL(spec_from(text, &s, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(s.convention, "crosscheck");
    CU_ASSERT_EQUAL_FATAL(s.nreal, 2);
    XC_ASSERT_NEAR(s.real[0].line_dm, 3.0, 0);
    XC_ASSERT_NEAR(s.real[0].line_freq_hz, 4.5, 0);
    CU_ASSERT_STRING_EQUAL(s.real[1].name, "real");
    CU_ASSERT(isnan(s.real[1].line_dm));
    CU_ASSERT_EQUAL_FATAL(s.nper, 1);
    CU_ASSERT_EQUAL(s.per[0].zmax, 50);
    CU_ASSERT_EQUAL(s.per[0].numharm, 1);
    XC_ASSERT_NEAR(s.per[0].sigma, 2.0, 0);
    CU_ASSERT(isnan(s.per[0].f_hz));
    xc_runspec_free(&s);
}

/* Every spec the repository ships reads. */
XC_TEST(test_spec_shipped, "spec: the shipped ones read")
{
    static const char *names[] = {"default-run.json", "ci-run.json"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", xc_test_datasets(), names[i]);
        xc_runspec s;
        xc_error err;
        xc_error_clear(&err);
        xc_status st = xc_runspec_load(&s, path, &err);
        if (st)
            fprintf(stderr, "\n    %s\n", err.msg);
        CU_ASSERT_EQUAL(st, XC_OK);
        CU_ASSERT(s.nsyn + s.nreal + s.nper > 0);
        xc_runspec_free(&s);
    }
}

XC_TEST(test_spec_unknown_field, "spec: unknown fields are refused by path")
{
    spec_refused("{\"real\": [{\"file\": \"a.fil\", \"dmplan\": \"0:10:1:1\", \"flie\": \"b\"}]}",
                 "spec.json: real[0].flie: unknown field");
    spec_refused("{\"real\": [{\"file\": \"a.fil\", \"dmplan\": \"0:10:1:1\", \"line\": {\"dm\": 1, \"freq\": 4}}]}",
                 "spec.json: real[0].line.freq: unknown field");
    spec_refused("{\"synthetik\": []}", "spec.json: synthetik: unknown field");
}

XC_TEST(test_spec_wrong_type, "spec: wrong types are refused by path")
{
    spec_refused("{\"periodicity\": [{\"fft\": \"x.fft\", \"zmax\": \"64\"}]}",
                 "spec.json: periodicity[0].zmax: expected integer, got string \"64\"");
    spec_refused("{\"periodicity\": [{\"fft\": \"x.fft\", \"zmax\": 64.5}]}",
                 "spec.json: periodicity[0].zmax: expected integer, got number 64.5");
    spec_refused("{\"real\": [{\"file\": 3, \"dmplan\": \"0:10:1:1\"}]}",
                 "spec.json: real[0].file: expected string, got integer 3");
    spec_refused("{\"real\": {}}", "spec.json: real: expected array of objects, got object");
    spec_refused("{\"synthetic\": [{\"dmplan\": \"0:10:1:1\", \"synth\": {\"nchans\": \"64\"}}]}",
                 "spec.json: synthetic[0].synth");
}

XC_TEST(test_spec_values, "spec: bounds, required fields, plans, conventions")
{
    spec_refused("{\"periodicity\": [{\"fft\": \"x.fft\", \"numharm\": 9}]}", "periodicity[0].numharm: 9 is outside");
    spec_refused("{\"real\": [{\"file\": \"a.fil\"}]}", "spec.json: real[0].dmplan: missing");
    spec_refused("{\"real\": [{\"file\": \"a.fil\", \"dmplan\": \"ten\"}]}", "real[0].dmplan");
    spec_refused("{\"convention\": \"nope\"}", "spec.json: convention: 'nope' is not a known preset");
    spec_refused("{\"periodicity\": [{\"zmax\": 3}]}", "periodicity[0]: give exactly one of fft and synth");
}

XC_TEST(test_spec_accel, "spec: the accel entries, with their defaults and refusals")
{
    xc_runspec s;
    xc_error err;
    const char *text = "{\"accel\": [{\"fft\": \"x.fft\", \"zmax\": 200, \"wmax\": 300, \"rlo\": 10, "
                       "\"rhi\": 20, \"truth\": {\"r\": 15, \"z\": -4, \"w\": 40}, \"accelsearch\": \"x_ACCEL_200\"}, "
                       "{\"fft\": \"y.fft\"}]}";
    CU_ASSERT_EQUAL_FATAL(spec_from(text, &s, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(s.nacc, 2);
    CU_ASSERT_EQUAL(s.acc[0].wmax, 300);
    XC_ASSERT_NEAR(s.acc[0].truth_z, -4, 0);
    XC_ASSERT_NEAR(s.acc[0].truth_w, 40, 0);
    CU_ASSERT_STRING_EQUAL(s.acc[0].accelsearch, "x_ACCEL_200");
    CU_ASSERT_EQUAL(s.acc[1].numharm, 1);
    XC_ASSERT_NEAR(s.acc[1].dz, 2, 0);
    XC_ASSERT_NEAR(s.acc[1].dw, 20, 0);
    CU_ASSERT(isnan(s.acc[1].rlo) && isnan(s.acc[1].truth_r));
    CU_ASSERT_PTR_NULL(s.acc[1].accelsearch);
    xc_runspec_free(&s);
    spec_refused("{\"accel\": [{\"fft\": \"x.fft\", \"wmax\": \"300\"}]}",
                 "spec.json: accel[0].wmax: expected integer, got string \"300\"");
    spec_refused("{\"accel\": [{\"fft\": \"x.fft\", \"zmax\": 1300}]}", "accel[0].zmax: 1300 is outside");
    spec_refused("{\"accel\": [{\"fft\": \"x.fft\", \"truth\": {\"z\": 3}}]}", "accel[0].truth.r: missing");
    spec_refused("{\"accel\": [{\"fft\": \"x.fft\", \"rlo\": 30, \"rhi\": 20}]}", "accel[0]: rlo 30 is not below rhi 20");
    spec_refused("{\"accel\": [{\"zmax\": 3}]}", "accel[0]: give exactly one of fft and synth");
}

/* The command: a spec error and an unknown -impl exit 2 before any work. */
XC_TEST_IF(test_cli_errors, "run: bad spec and unknown -impl exit 2", xc_fx_skip_no_bin)
{
    char path[1024], args[2600];
    snprintf(path, sizeof path, "%s/bad-spec.json", xc_test_tmpdir());
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("{\"periodicity\": [{\"fft\": \"x.fft\", \"zmax\": \"64\"}]}\n", fp);
    fclose(fp);
    snprintf(args, sizeof args, "run -quiet -spec '%s' -out '%s/r1'", path, xc_test_tmpdir());
    CU_ASSERT_EQUAL(xc_fx_run_cli(args), 2);
    snprintf(args, sizeof args, "run -quiet -impl no-such-impl -spec '%s/ci-run.json' -out '%s/r2'",
             xc_test_datasets(), xc_test_tmpdir());
    CU_ASSERT_EQUAL(xc_fx_run_cli(args), 2);
}

/* The prepsubband object of a real entry: its fields by path; its series
 * check: equal passes, a planted one-sample difference, an empty or a
 * too-long series of the other tool fail. */
XC_TEST(test_spec_prepsubband, "spec: prepsubband fields are checked by path")
{
    spec_refused("{\"real\": [{\"file\": \"a.fil\", \"dmplan\": \"0:10:1:1\", \"prepsubband\": "
                 "{\"dmplan\": \"40:72:2\", \"root\": \"p\", \"nsub\": \"32\"}}]}",
                 "spec.json: real[0].prepsubband.nsub: expected integer, got string \"32\"");
    spec_refused("{\"real\": [{\"file\": \"a.fil\", \"dmplan\": \"0:10:1:1\", \"prepsubband\": "
                 "{\"dmplan\": \"40:72:2\"}}]}",
                 "spec.json: real[0].prepsubband.root");
}

XC_TEST(test_series_equal, "series equal: bit for bit, planted differences fail")
{
    xc_checks l;
    xc_checks_init(&l);
    xc_error err;
    const float want[4] = {1.0f, 2.5f, -3.0f, 4.0f};
    float got[6] = {1.0f, 2.5f, -3.0f, 4.0f, 9.0f, 9.0f};
    CU_ASSERT_EQUAL_FATAL(xc_check_series_equal(&l, "o", "x", "c", got, 6, want, 4, &err), XC_OK);
    CU_ASSERT_EQUAL(l.row[0].state, XC_CHECK_PASS);
    got[2] = -3.0000002f;   /* one ulp off */
    CU_ASSERT_EQUAL_FATAL(xc_check_series_equal(&l, "o", "x", "c", got, 6, want, 4, &err), XC_OK);
    CU_ASSERT_EQUAL(l.row[1].state, XC_CHECK_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.row[1].measured, "sample 2"));
    CU_ASSERT_EQUAL_FATAL(xc_check_series_equal(&l, "o", "x", "c", got, 6, want, 0, &err), XC_OK);
    CU_ASSERT_EQUAL(l.row[2].state, XC_CHECK_FAIL);
    CU_ASSERT_EQUAL_FATAL(xc_check_series_equal(&l, "o", "x", "c", got, 3, want, 4, &err), XC_OK);
    CU_ASSERT_EQUAL(l.row[3].state, XC_CHECK_FAIL);
    xc_checks_free(&l);
}

/* ---- power and sigma against the reference ------------------------------------ */

/* One reference candidate (r 1000, z 4, 2 harmonics, power 200, sigma 12)
 * and got's, with power and sigma scaled by fp and fs and numharm h: the
 * rule is each column within rtol 2e-3 (relative), a pair only with the same
 * numharm, a column judged where got's is finite.  The one row's state. */
static xc_check_state power_case(double fp, double fs, int h, const char **measured, xc_checks *l)
{
    xc_candlist ref, got;
    xc_candlist_init(&ref);
    xc_candlist_init(&got);
    xc_error err;
    xc_cand a = {.r = 1000, .z = 4, .numharm = 2, .power = 200, .sigma = 12};
    xc_cand b = {.r = 1000.4, .z = -4, .numharm = h, .power = 200 * fp, .sigma = 12 * fs};
    CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&ref, &a, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&got, &b, &err), XC_OK);
    xc_powercheck pc = {6, 1, 4, 0, 2e-3};
    xc_checks_init(l);
    CU_ASSERT_EQUAL_FATAL(xc_check_cands_power(l, "obs", "tool", &got, &ref, &pc, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(l->n, 1);
    CU_ASSERT_STRING_EQUAL(l->row[0].check, "obs: power and sigma vs reference");
    *measured = l->row[0].measured;
    xc_candlist_free(&ref);
    xc_candlist_free(&got);
    return l->row[0].state;
}

XC_TEST(test_power_edges, "power and sigma vs reference: each column at its edge; numharm and absent columns")
{
    static const struct {
        double fp, fs;
        int h;
        xc_check_state want;
        double observed;        /* the worst relative difference the row reports */
        const char *text;
    } cs[] = {
        {1.0019, 1, 2, XC_CHECK_PASS, 0.0019, "power max rel. diff 0.0019 (0 over)"},
        {1.0021, 1, 2, XC_CHECK_FAIL, 0.0021, "worst: power 200.42, reference 200 at r 1000.00"},
        {1, 0.9981, 2, XC_CHECK_PASS, 0.0019, "sigma 0.0019 (0 over)"},
        {1, 0.9979, 2, XC_CHECK_FAIL, 0.0021, "worst: sigma 11.9748, reference 12"},
        {NAN, 0.9979, 2, XC_CHECK_FAIL, 0.0021, "power max rel. diff 0 (0 over), sigma 0.0021 (1 over)"},
        {1.5, 1.5, 4, XC_CHECK_SKIP, NAN, "0 of 1 reference candidates paired"},
        {NAN, NAN, 2, XC_CHECK_SKIP, NAN, "1 of 1 reference candidates paired with the same numharm, none with"},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        xc_checks l;
        const char *m = "";
        xc_check_state st = power_case(cs[i].fp, cs[i].fs, cs[i].h, &m, &l);
        int ok = st == cs[i].want && strstr(m, cs[i].text) &&
                 (isnan(cs[i].observed) ? isnan(l.row[0].observed) : fabs(l.row[0].observed - cs[i].observed) < 1e-9);
        if (!ok)
            printf("\n  case %zu: %s %s (observed %g), expected %s with \"%s\" (observed %g)", i,
                   xc_check_state_name(st), m, l.row[0].observed, xc_check_state_name(cs[i].want), cs[i].text,
                   cs[i].observed);
        CU_ASSERT(ok);
        xc_checks_free(&l);
    }
}

XC_TEST_MAIN("checks")

/* ---- the borderline check: a planted slip in a searcher ---------------------- */

static const xc_searcher *planted_base;

/* The cpu searcher with a planted slip: its raw peaks of stage 1 without
 * the widest boxcar (width zmax + 1), what a screen whose width loop stops
 * one short drops.  On a pulsar, whose boxcars are narrow, nothing changes. */
static xc_status planted_peaks(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                               const double *thr, xc_pspeaks *pk, xc_error *err)
{
    (void)self;
    size_t n0 = pk->n, k = n0;
    xc_status st = planted_base->peaks(planted_base, sp, o, P, thr, pk, err);
    for (size_t i = n0; i < pk->n; i++)
        if (!(pk->p[i].numharm == 1 && pk->p[i].width == o->zmax + 1))
            pk->p[k++] = pk->p[i];
    pk->n = k;
    return st;
}

XC_TEST(test_noise_check, "pure noise at sigma 0: the cpu searchers pass; a dropped borderline boxcar fails")
{
    xc_registry *reg = NULL;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &err), XC_OK);
    const xc_impl *ref = xc_registry_find(reg, XC_FAMILY_PULSCAN, "reference"),
                  *cpu = xc_registry_find(reg, XC_FAMILY_PULSCAN, "cpu"),
                  *aref = xc_registry_find(reg, XC_FAMILY_ACCEL, "reference"),
                  *acpu = xc_registry_find(reg, XC_FAMILY_ACCEL, "cpu");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cpu);
    CU_ASSERT_PTR_NOT_NULL_FATAL(aref);
    CU_ASSERT_PTR_NOT_NULL_FATAL(acpu);
    xc_checks l;
    xc_checks_init(&l);
    /* two spectra: each about two thousand raw peaks above threshold */
    CU_ASSERT_EQUAL_FATAL(xc_check_noise_search(&l, "noise", cpu, ref, 2, 900, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_check_noise_search(&l, "noise", acpu, aref, 2, 900, &err), XC_OK);
    for (size_t i = 0; i < l.n; i++)
        if (l.row[i].state != XC_CHECK_PASS)
            printf("\n  %s %s: %s\n", l.row[i].impl, l.row[i].check, l.row[i].measured);
    CU_ASSERT_EQUAL(l.nfail, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.row[0].measured, "as the reference's, one for one"));
    /* the slip: the first spectrum's missing widest boxcar named */
    planted_base = xc_searcher_of(cpu);
    xc_searcher bad = *planted_base;
    bad.peaks = planted_peaks;
    bad.peaks_in = NULL;
    bad.impl.name = "cpu-planted";
    CU_ASSERT_EQUAL_FATAL(xc_check_noise_search(&l, "noise", &bad.impl, ref, 2, 900, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(l.n, 3);
    CU_ASSERT_EQUAL(l.row[2].state, XC_CHECK_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.row[2].measured, "missing stage 1 width 31"));
    XC_ASSERT_NEAR(l.row[2].observed, 2, 0);   /* both cases fail: every box and local maxima */
    /* searchers of two families are no pair */
    CU_ASSERT_EQUAL(xc_check_noise_search(&l, "noise", cpu, aref, 2, 900, &err), XC_EINVAL);
    xc_checks_free(&l);
    xc_registry_destroy(reg);
}

/* ---- known signals of real files (compare/check/xc_known.h) ---------------------- */

/* cands_make's list: 6.1, 12.2, 30 and 45 Hz (r over T_OBS = 100 s, one bin
 * 0.01 Hz) at sigma 20, 19, 18, 17.  The rows of signal k against it, the
 * first asserted in state s with observed obs (NaN: not asserted). */
static void known_case(xc_known k, double series_dm, size_t nrows, xc_check_state s, double obs, const char *text)
{
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_known_check(&k, "spec.json: known[0]", &err), XC_OK);
    xc_candlist c;
    cands_make(&c, -1, 0);
    xc_checks l;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_check_known(&l, "obs", "cpu", &c, &k, series_dm, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(l.n, nrows);
    const xc_check_row *r = &l.row[0];
    if (r->state != s || (text && !strstr(r->measured, text)))
        fprintf(stderr, "\n    row %s: %s, measured '%s', bound '%s'; expected %s with '%s'\n", r->check,
                xc_check_state_name(r->state), r->measured, r->bound, xc_check_state_name(s), text ? text : "");
    CU_ASSERT_EQUAL(r->state, s);
    if (!isnan(obs))
        XC_ASSERT_NEAR(r->observed, obs, 1e-9);
    if (text)
        CU_ASSERT_PTR_NOT_NULL(strstr(r->measured, text));
    xc_checks_free(&l);
    xc_candlist_free(&c);
}

static xc_known known_of(const char *kind, double f_hz, double dm)
{
    xc_known k;
    xc_known_init(&k);
    k.kind_name = kind;
    k.f_hz = f_hz;
    k.dm = dm;
    return k;
}

/* The strongest candidate within one bin (the default tolerance, 0.01 Hz
 * here) or ftol_hz of f: 0.0099 off passes, 0.0101 off fails. */
XC_TEST(test_known_top_edges, "known pulsar: the strongest candidate at the edge of its tolerance")
{
    known_case(known_of("pulsar", 6.1099, 50), NAN, 1, XC_CHECK_PASS, 6.1, "strongest 6.1000 Hz = f");
    known_case(known_of("pulsar", 6.0901, 50), NAN, 1, XC_CHECK_PASS, 6.1, NULL);
    known_case(known_of("pulsar", 6.1101, 50), NAN, 1, XC_CHECK_FAIL, 6.1, NULL);
    known_case(known_of("pulsar", 6.0899, 50), NAN, 1, XC_CHECK_FAIL, 6.1, NULL);
    xc_known k = known_of("pulsar", 6.149, 50);
    k.ftol_hz = 0.05;
    known_case(k, NAN, 1, XC_CHECK_PASS, 6.1, NULL);
    k.f_hz = 6.151;
    known_case(k, NAN, 1, XC_CHECK_FAIL, 6.1, NULL);
    /* the second strongest (12.2 Hz) is not the strongest */
    known_case(known_of("pulsar", 12.2, 50), NAN, 1, XC_CHECK_FAIL, 6.1, NULL);
}

XC_TEST(test_known_harmonics, "known pulsar: harmonics count only up to maxharm")
{
    xc_known k = known_of("pulsar", 3.05, 50);   /* the strongest, 6.1 Hz, is its 2nd harmonic */
    known_case(k, NAN, 1, XC_CHECK_FAIL, 6.1, NULL);
    k.maxharm = 2;
    known_case(k, NAN, 1, XC_CHECK_PASS, 6.1, "= 2 f");
    k = known_of("pulsar", 12.2, 50);              /* ... and 12.2's sub-harmonic */
    k.maxharm = 2;
    known_case(k, NAN, 1, XC_CHECK_PASS, 6.1, "= f / 2");
}

/* With sigma: any candidate above it (strictly, as the searches' -sigma)
 * within the tolerance; the 30 Hz candidate has sigma 18. */
XC_TEST(test_known_sigma_edges, "known birdie and pulsar: a candidate above sigma, at the edges")
{
    xc_known k = known_of("birdie", 30.0, NAN);
    k.sigma = 17.99;
    known_case(k, NAN, 1, XC_CHECK_PASS, 30.0, "sigma 18.0");
    k.sigma = 18.0;
    known_case(k, NAN, 1, XC_CHECK_FAIL, NAN, "none of 4 candidates above sigma 18");
    k.sigma = 10;
    k.f_hz = 30.0101;
    known_case(k, NAN, 1, XC_CHECK_FAIL, NAN, NULL);
    k.f_hz = 29.9901;
    known_case(k, NAN, 1, XC_CHECK_PASS, 30.0, NULL);
    /* several above: the strongest of those there */
    k = known_of("pulsar", 6.1, 50);
    k.sigma = 5;
    k.maxharm = 2;
    known_case(k, NAN, 1, XC_CHECK_PASS, 6.1, "sigma 20.0");
}

/* A pulsar's DM against the DM the series was dedispersed at: within dmtol
 * (default 1): 0.99 off passes, 1.01 fails; a second row, and none when
 * the series' DM is unknown. */
XC_TEST(test_known_dm_edges, "known pulsar: the series' DM at the edge of dmtol")
{
    xc_known k = known_of("pulsar", 6.1, 112.38);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_known_check(&k, "k", &err), XC_OK);
    double dms[4] = {113.37, 111.39, 113.39, 111.37};
    for (int i = 0; i < 4; i++) {
        xc_candlist c;
        cands_make(&c, -1, 0);
        xc_checks l;
        xc_checks_init(&l);
        CU_ASSERT_EQUAL_FATAL(xc_check_known(&l, "obs", "cpu", &c, &k, dms[i], &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(l.n, 2);
        CU_ASSERT_EQUAL(l.row[0].state, XC_CHECK_PASS);
        CU_ASSERT_EQUAL(l.row[1].state, i < 2 ? XC_CHECK_PASS : XC_CHECK_FAIL);
        XC_ASSERT_NEAR(l.row[1].observed, dms[i], 0);
        XC_ASSERT_NEAR(l.row[1].expected, 112.38, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(l.row[1].check, "at DM 112.38"));
        xc_checks_free(&l);
        xc_candlist_free(&c);
    }
    known_case(k, NAN, 1, XC_CHECK_PASS, 6.1, NULL);
}

XC_TEST(test_known_burst_skipped, "known burst: a skipped row, never a pass")
{
    xc_known k = known_of("burst", NAN, 565);
    k.t_s = 1.25;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_known_check(&k, "k", &err), XC_OK);
    xc_checks l;
    xc_checks_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_check_known_burst(&l, "obs", &k, &err), XC_OK);
    const xc_check_row *r = only_row(&l, XC_CHECK_SKIP);
    CU_ASSERT_EQUAL(l.npass, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r->check, "known burst burst at DM 565, 1.25 s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r->measured, "no single-pulse search"));
    xc_checks_free(&l);
}

XC_TEST(test_spec_known, "spec: known signals read with their defaults; incomplete or misplaced ones refused")
{
    xc_runspec s;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(
        spec_from("{\"periodicity\": [{\"fft\": \"x.fft\", \"known\": [{\"kind\": \"pulsar\", \"f_hz\": 6.1, "
                  "\"dm\": 112.4}, {\"kind\": \"birdie\", \"name\": \"mains\", \"f_hz\": 50, \"sigma\": 5}]}], "
                  "\"accel\": [{\"fft\": \"x.fft\", \"known\": [{\"kind\": \"pulsar\", \"f_hz\": 6.1, \"dm\": 1, "
                  "\"maxharm\": 8, \"ftol_hz\": 0.05, \"dmtol\": 2}]}], "
                  "\"real\": [{\"file\": \"a.fil\", \"dmplan\": \"0:10:1:1\", \"known\": [{\"kind\": \"burst\", "
                  "\"dm\": 5, \"t_s\": 0.5}]}]}",
                  &s, &err),
        XC_OK);
    CU_ASSERT_EQUAL_FATAL(s.per[0].nknown, 2);
    const xc_known *k = s.per[0].known;
    CU_ASSERT_EQUAL(k[0].kind, XC_KNOWN_PULSAR);
    CU_ASSERT_STRING_EQUAL(k[0].name, "pulsar");
    XC_ASSERT_NEAR(k[0].dm, 112.4, 0);
    XC_ASSERT_NEAR(k[0].dmtol, 1.0, 0);
    CU_ASSERT_EQUAL(k[0].maxharm, 1);
    CU_ASSERT(isnan(k[0].ftol_hz) && isnan(k[0].sigma));
    CU_ASSERT_EQUAL(k[1].kind, XC_KNOWN_BIRDIE);
    CU_ASSERT_STRING_EQUAL(k[1].name, "mains");
    XC_ASSERT_NEAR(k[1].sigma, 5, 0);
    CU_ASSERT_EQUAL_FATAL(s.acc[0].nknown, 1);
    CU_ASSERT_EQUAL(s.acc[0].known[0].maxharm, 8);
    XC_ASSERT_NEAR(s.acc[0].known[0].ftol_hz, 0.05, 0);
    XC_ASSERT_NEAR(s.acc[0].known[0].dmtol, 2, 0);
    CU_ASSERT_EQUAL_FATAL(s.real[0].nknown, 1);
    CU_ASSERT_EQUAL(s.real[0].known[0].kind, XC_KNOWN_BURST);
    XC_ASSERT_NEAR(s.real[0].known[0].t_s, 0.5, 0);
    XC_ASSERT_NEAR(s.real[0].known[0].ttol_s, 0.01, 0);
    xc_runspec_free(&s);
    /* a burst of a spectrum entry is judged on the series beside its .fft */
    CU_ASSERT_EQUAL_FATAL(spec_from("{\"periodicity\": [{\"fft\": \"x.fft\", \"known\": [{\"kind\": \"burst\", "
                                    "\"dm\": 1, \"t_s\": 1, \"ttol_s\": 0.05}]}]}",
                                    &s, &err),
                          XC_OK);
    CU_ASSERT_EQUAL_FATAL(s.per[0].nknown, 1);
    CU_ASSERT_EQUAL(s.per[0].known[0].kind, XC_KNOWN_BURST);
    XC_ASSERT_NEAR(s.per[0].known[0].ttol_s, 0.05, 0);
    xc_runspec_free(&s);
    spec_refused("{\"periodicity\": [{\"fft\": \"x.fft\", \"known\": [{\"kind\": \"glitch\", \"f_hz\": 1}]}]}",
                 "spec.json: periodicity[0].known[0].kind: \"glitch\": must be pulsar, birdie or burst");
    spec_refused("{\"periodicity\": [{\"fft\": \"x.fft\", \"known\": [{\"kind\": \"pulsar\", \"f_hz\": 1}]}]}",
                 "periodicity[0].known[0]: a pulsar needs dm");
    spec_refused("{\"periodicity\": [{\"fft\": \"x.fft\", \"known\": [{\"kind\": \"pulsar\", \"dm\": 1}]}]}",
                 "periodicity[0].known[0]: a pulsar needs f_hz");
    spec_refused("{\"accel\": [{\"fft\": \"x.fft\", \"known\": [{\"kind\": \"birdie\", \"f_hz\": 50, \"dm\": 0}]}]}",
                 "accel[0].known[0]: a birdie has no dm");
    spec_refused("{\"real\": [{\"file\": \"a.fil\", \"dmplan\": \"0:10:1:1\", \"known\": [{\"kind\": \"pulsar\", "
                 "\"f_hz\": 1, \"dm\": 1}]}]}",
                 "real[0].known[0]: a pulsar belongs to a periodicity or accel entry");
    spec_refused("{\"real\": [{\"file\": \"a.fil\", \"dmplan\": \"0:10:1:1\", \"known\": [{\"kind\": \"burst\", "
                 "\"dm\": 1}]}]}",
                 "real[0].known[0]: a burst needs dm and t_s");
    spec_refused("{\"periodicity\": [{\"synth\": {\"tobs_s\": 1}, \"known\": [{\"kind\": \"birdie\", \"f_hz\": 1}]}]}",
                 "a synthesized entry's signals are its truth file's");
    spec_refused("{\"periodicity\": [{\"fft\": \"x.fft\", \"known\": [{\"kind\": \"birdie\", \"f_hz\": 1, "
                 "\"fhz\": 2}]}]}",
                 "spec.json: periodicity[0].known[0].fhz: unknown field");
}

/* ---- single-pulse search rows (compare/check/check_sp.c) -------------------------- */

/* One candidate at DM trial 10 of plan 0:20:1 (step 1), box of b samples
 * whose centre is at t_s; a top-hat pulse of 16 samples (1 ms at 62.5 us)
 * with matched-box S/N 20.  The row's state. */
static xc_check_state sp_case(double dm_true, int b, double snr, double t_s)
{
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&plan, "0:20:1", "test", &err), XC_OK);
    const double tsamp = 62.5e-6;
    xc_spcandlist l;
    xc_spcandlist_init(&l);
    l.tsamp = tsamp;
    xc_spcand c = {.snr = snr, .width = b, .dm_index = 10, .dm = 10.0, .members = 1, .dm_lo = 10, .dm_hi = 10};
    c.sample = (int64_t)llround(t_s / tsamp - 0.5 * b);
    c.time_s = (double)c.sample * tsamp;
    c.begin = c.sample;
    c.end = c.sample + b;
    CU_ASSERT_EQUAL_FATAL(xc_spcandlist_add(&l, &c, &err), XC_OK);
    xc_pulse_truth t;
    xc_pulse_truth_init(&t, 0, 0.5, dm_true, 16 * tsamp, 20.0 / 4.0, tsamp);   /* 5 sqrt(16) = 20 */
    xc_checks rows;
    xc_checks_init(&rows);
    CU_ASSERT_EQUAL_FATAL(xc_check_sp_pulse(&rows, "obs", "x", &l, &plan, &t, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(rows.n, 1);
    xc_check_state s = rows.row[0].state;
    if (s != XC_CHECK_PASS)
        printf("\n  %s: %s (bound: %s)", rows.row[0].check, rows.row[0].measured, rows.row[0].bound);
    xc_checks_free(&rows);
    xc_spcandlist_free(&l);
    xc_dmplan_free(&plan);
    return s;
}

/* S/N 10 % off passes, 10.1 % fails; a box of 32 over a 16-sample pulse is
 * held to 20 sqrt(1/2); one DM step off passes, 1.01 fails; a box of 64 (a
 * factor 4) fails; a centre outside the window (width + 5 ms) fails. */
XC_TEST(test_sp_pulse_edges, "single-pulse: edges of DM step and S/N and width and window")
{
    CU_ASSERT_EQUAL(sp_case(10.0, 16, 20.0 * 1.0999, 0.5), XC_CHECK_PASS);
    CU_ASSERT_EQUAL(sp_case(10.0, 16, 20.0 * 0.9001, 0.5), XC_CHECK_PASS);
    CU_ASSERT_EQUAL(sp_case(10.0, 16, 20.0 * 1.1010, 0.5), XC_CHECK_FAIL);
    CU_ASSERT_EQUAL(sp_case(10.0, 16, 20.0 * 0.8990, 0.5), XC_CHECK_FAIL);
    CU_ASSERT_EQUAL(sp_case(10.0, 32, 20.0 * sqrt(0.5), 0.5), XC_CHECK_PASS);
    CU_ASSERT_EQUAL(sp_case(10.0, 32, 20.0, 0.5), XC_CHECK_FAIL);
    CU_ASSERT_EQUAL(sp_case(11.0, 16, 20.0, 0.5), XC_CHECK_PASS);
    CU_ASSERT_EQUAL(sp_case(11.01, 16, 20.0, 0.5), XC_CHECK_FAIL);
    CU_ASSERT_EQUAL(sp_case(10.0, 64, 20.0 * sqrt(0.25), 0.5), XC_CHECK_FAIL);
    CU_ASSERT_EQUAL(sp_case(10.0, 16, 20.0, 0.5 + 16 * 62.5e-6 + 0.0052), XC_CHECK_FAIL);
}

/* A declared burst (DM 10, t 0.5 s, window ttol 0.02 s) against a list of
 * two clusters at 62.5 us: the one near t_s (DM dm, box of 16 samples, its
 * centre dt seconds after t_s, S/N 10) and a brighter one (S/N 50) 0.1 s
 * later, outside the window.  plan 0:20:1 (step 1) or, with series, none
 * (a series of one DM: tolerance dmtol 0.5).  The row's state. */
static xc_check_state known_sp_case(double dm, double dt, int series)
{
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&plan, "0:20:1", "test", &err), XC_OK);
    xc_spcandlist l;
    xc_spcandlist_init(&l);
    l.tsamp = 62.5e-6;
    xc_spcand c = {.snr = 10, .width = 16, .dm_index = (int32_t)lround(dm), .dm = dm, .members = 3};
    c.sample = (int64_t)llround((0.5 + dt) / l.tsamp - 8);
    xc_spcand far = c;
    far.snr = 50;
    far.sample += 1600;
    CU_ASSERT_EQUAL_FATAL(xc_spcandlist_add(&l, &far, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_spcandlist_add(&l, &c, &err), XC_OK);
    xc_known k = known_of("burst", NAN, 10);
    k.t_s = 0.5;
    k.ttol_s = 0.02;
    k.dmtol = 0.5;
    CU_ASSERT_EQUAL_FATAL(xc_known_check(&k, "k", &err), XC_OK);
    xc_checks rows;
    xc_checks_init(&rows);
    CU_ASSERT_EQUAL_FATAL(xc_check_known_sp(&rows, "obs", "x", &l, series ? NULL : &plan, &k, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(rows.n, 1);
    xc_check_state st = rows.row[0].state;
    CU_ASSERT_PTR_NOT_NULL(strstr(rows.row[0].check, "known burst burst at DM 10, 0.5 s"));
    if (st != XC_CHECK_FAIL)   /* the cluster judged is the one in the window */
        XC_ASSERT_NEAR(rows.row[0].observed, dm, 0);
    xc_checks_free(&rows);
    xc_spcandlist_free(&l);
    xc_dmplan_free(&plan);
    return st;
}

/* One DM step off passes, 1.01 steps fails; a centre 15 samples off (a box
 * is 16) passes either side, 17 samples fails; nothing in the window fails though a
 * brighter cluster lies outside it; on a series the DM tolerance is dmtol. */
XC_TEST(test_known_burst_sp, "known burst: the brightest cluster in the window, one DM step, one width")
{
    CU_ASSERT_EQUAL(known_sp_case(10, 0, 0), XC_CHECK_PASS);
    CU_ASSERT_EQUAL(known_sp_case(11, 0, 0), XC_CHECK_PASS);
    CU_ASSERT_EQUAL(known_sp_case(11.01, 0, 0), XC_CHECK_FAIL);
    CU_ASSERT_EQUAL(known_sp_case(10, 15 * 62.5e-6, 0), XC_CHECK_PASS);
    CU_ASSERT_EQUAL(known_sp_case(10, -15 * 62.5e-6, 0), XC_CHECK_PASS);
    CU_ASSERT_EQUAL(known_sp_case(10, 17 * 62.5e-6, 0), XC_CHECK_FAIL);
    CU_ASSERT_EQUAL(known_sp_case(10, 0.03, 0), XC_CHECK_FAIL);
    CU_ASSERT_EQUAL(known_sp_case(10.5, 0, 1), XC_CHECK_PASS);
    CU_ASSERT_EQUAL(known_sp_case(10.6, 0, 1), XC_CHECK_FAIL);
}

/* Lists against the reference's: equal passes; one sample, one member, an
 * S/N beyond rtol or one candidate more fails. */
XC_TEST(test_sp_same_edges, "single-pulse: candidates vs reference")
{
    xc_spcandlist a, r;
    xc_spcandlist_init(&a);
    xc_spcandlist_init(&r);
    xc_error err;
    xc_spcand c = {.snr = 12.0, .sample = 100, .width = 4, .dm_index = 3, .members = 5, .begin = 90, .end = 110};
    CU_ASSERT_EQUAL_FATAL(xc_spcandlist_add(&r, &c, &err), XC_OK);
    const struct {
        int64_t dsample, dmembers;
        double snr;
        int extra;
        xc_check_state want;
    } k[] = {{0, 0, 12.0, 0, XC_CHECK_PASS}, {0, 0, 12.0 * (1 + 0.9e-9), 0, XC_CHECK_PASS},
             {0, 0, 12.0 * (1 + 1.1e-9), 0, XC_CHECK_FAIL}, {1, 0, 12.0, 0, XC_CHECK_FAIL},
             {0, 1, 12.0, 0, XC_CHECK_FAIL}, {0, 0, 12.0, 1, XC_CHECK_FAIL}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        xc_spcandlist_free(&a);
        xc_spcand x = c;
        x.sample += k[i].dsample;
        x.members += k[i].dmembers;
        x.snr = k[i].snr;
        CU_ASSERT_EQUAL_FATAL(xc_spcandlist_add(&a, &x, &err), XC_OK);
        if (k[i].extra)
            CU_ASSERT_EQUAL_FATAL(xc_spcandlist_add(&a, &x, &err), XC_OK);
        xc_checks rows;
        xc_checks_init(&rows);
        CU_ASSERT_EQUAL_FATAL(xc_check_sp_same(&rows, "obs", "x", &a, &r, 1e-9, &err), XC_OK);
        if (rows.row[0].state != k[i].want)
            printf("\n  case %zu: observed %s (%s), expected %s", i, xc_check_state_name(rows.row[0].state),
                   rows.row[0].measured, xc_check_state_name(k[i].want));
        CU_ASSERT_EQUAL(rows.row[0].state, k[i].want);
        xc_checks_free(&rows);
    }
    xc_spcandlist_free(&a);
    xc_spcandlist_free(&r);
}
