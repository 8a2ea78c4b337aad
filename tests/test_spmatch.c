/* test_spmatch.c: single-pulse lists matched against each other and against
 * a truth's pulses (compare/xc_spmatch.h), and `compare cands` on
 * single-pulse files: planted mismatches must fail, and each tolerance is
 * tried just inside and just outside. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/xc_spmatch.h"
#include "core/sp/files/xc_spfiles.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define TSAMP 1e-3
#define DMSTEP 0.5

static void add(xc_spcandlist *l, double snr, int64_t sample, int32_t width, int32_t dm_index)
{
    const xc_spcand c = {.snr = snr, .time_s = (double)sample * TSAMP, .sample = sample, .width = width,
                         .dm_index = dm_index, .dm = DMSTEP * dm_index, .members = 1, .begin = sample,
                         .end = sample + width, .dm_lo = dm_index, .dm_hi = dm_index};
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_spcandlist_add(l, &c, &err), XC_OK);
}

/* Three pulses on a plan of DM step 0.5 (trials 0..40). */
static void base(xc_spcandlist *l)
{
    xc_spcandlist_init(l);
    l->tsamp = TSAMP;
    add(l, 20.0, 1000, 4, 10);
    add(l, 9.0, 5000, 16, 30);
    add(l, 7.0, 9000, 1, 40);
}

static xc_spmatch_result run(const xc_spcandlist *a, const xc_spcandlist *b, const xc_spmatch_opts *o)
{
    xc_spmatch_result r;
    xc_error err;
    CU_ASSERT_EQUAL(xc_spmatch(a, b, "A", "B", o, &r, &err), XC_OK);
    return r;
}

XC_TEST(test_identical, "identical lists agree: every candidate matched, S/N ratio 1")
{
    xc_spcandlist a, b;
    base(&a);
    base(&b);
    xc_spmatch_opts o;
    xc_spmatch_opts_init(&o);
    xc_spmatch_result r = run(&a, &b, &o);
    CU_ASSERT_EQUAL(r.npairs, 3);
    CU_ASSERT_EQUAL(r.na_only + r.nb_only, 0);
    CU_ASSERT_TRUE(r.agree);
    XC_ASSERT_NEAR(r.ratio.min, 1.0, 0);
    XC_ASSERT_NEAR(r.ratio.max, 1.0, 0);
    /* DM step of the list: (dm of trial 30 - trial 10) / 20 */
    XC_ASSERT_NEAR(xc_spcands_dm_step(&a, 7.0), DMSTEP, 1e-15);
    XC_ASSERT_NEAR(xc_spcands_dm_step(&a, 100.0), DMSTEP, 1e-15);   /* beyond: the last pair's */
    xc_spmatch_result_free(&r);
    xc_spcandlist_free(&a);
    xc_spcandlist_free(&b);
}

/* B = base with candidate k changed by f; the verdict and the counts. */
static void planted(int k, void (*f)(xc_spcand *), const xc_spmatch_opts *o, int agree, size_t pairs)
{
    xc_spcandlist a, b;
    base(&a);
    base(&b);
    f(&b.c[k]);
    xc_spmatch_result r = run(&a, &b, o);
    CU_ASSERT_EQUAL(r.agree, agree);
    CU_ASSERT_EQUAL(r.npairs, pairs);
    if (r.agree != agree || r.npairs != pairs)
        fprintf(stderr, "candidate %d: agree %d (expected %d), %zu pairs (expected %zu), ratio %g..%g\n", k, r.agree,
                agree, r.npairs, pairs, r.ratio.min, r.ratio.max);
    xc_spmatch_result_free(&r);
    xc_spcandlist_free(&a);
    xc_spcandlist_free(&b);
}

static void move_sample(xc_spcand *c, int64_t d)
{
    c->sample += d;
    c->begin += d;
    c->end += d;
    c->time_s = (double)c->sample * TSAMP;
}
/* candidate 0: width 4 samples, so one width = 4 ms */
static void t_in(xc_spcand *c) { move_sample(c, 3); }
static void t_edge(xc_spcand *c) { move_sample(c, 4); }
static void t_out(xc_spcand *c) { move_sample(c, 5); }
static void dm_in(xc_spcand *c) { c->dm += DMSTEP * 0.999; }
static void dm_out(xc_spcand *c) { c->dm += DMSTEP * 1.001; }
static void w_in(xc_spcand *c) { c->width *= 2; c->end = c->begin + c->width + 8; }
static void w_out(xc_spcand *c) { c->width = c->width * 2 + 1; c->end = c->begin + c->width + 8; }
static void snr_in(xc_spcand *c) { c->snr /= 1.0999; }
static void snr_out(xc_spcand *c) { c->snr /= 1.1001; }

XC_TEST(test_planted, "planted differences: time, DM, width and S/N, just inside and just outside their tolerances")
{
    xc_spmatch_opts o;
    xc_spmatch_opts_init(&o);
    /* time: the centres move with the box; one width = 4 ms (the wider box of the pair) */
    planted(0, t_in, &o, 1, 3);
    planted(0, t_out, &o, 0, 2);
    /* DM: one step of the lists, 0.5 */
    planted(0, dm_in, &o, 1, 3);
    planted(0, dm_out, &o, 0, 2);
    /* width: ratio 2 passes, 33/16 fails.  The wider box also moves the
     * centre by 8 ms, inside its 32 ms */
    planted(1, w_in, &o, 1, 3);
    planted(1, w_out, &o, 0, 2);
    /* S/N: A/B = 1.0999 passes rtol 0.1, 1.1001 fails (the pair stays matched) */
    planted(0, snr_in, &o, 1, 3);
    planted(0, snr_out, &o, 0, 3);
    /* an explicit time tolerance around the 4 ms move (1e-12 s: far above
     * the rounding of 1.006 - 1.002, far below a sample) */
    o.tol_s = 0.004 - 1e-12;
    planted(0, t_edge, &o, 0, 2);
    o.tol_s = 0.004 + 1e-12;
    planted(0, t_edge, &o, 1, 3);
}

XC_TEST(test_snr_min, "unmatched candidates fail only above snr_min * (1 + rtol_snr)")
{
    xc_spcandlist a, b;
    base(&a);
    base(&b);
    add(&a, 6.59, 20000, 2, 20);   /* only in A, below 6 * 1.1 = 6.6 */
    xc_spmatch_opts o;
    xc_spmatch_opts_init(&o);
    o.snr_min = 6;
    xc_spmatch_result r = run(&a, &b, &o);
    CU_ASSERT_EQUAL(r.na_only, 1);
    CU_ASSERT_EQUAL(r.na_only_fail, 0);
    CU_ASSERT_TRUE(r.agree);
    xc_spmatch_result_free(&r);
    a.c[3].snr = 6.61;
    r = run(&a, &b, &o);
    CU_ASSERT_EQUAL(r.na_only_fail, 1);
    CU_ASSERT_FALSE(r.agree);
    xc_spmatch_result_free(&r);
    xc_spcandlist_free(&a);
    xc_spcandlist_free(&b);
}

XC_TEST(test_greedy, "the brightest candidate of A takes the closest of B; a duplicate in A stays unmatched")
{
    xc_spcandlist a, b;
    base(&a);
    base(&b);
    add(&a, 8.0, 1002, 4, 10);     /* a second A candidate near B's first */
    xc_spmatch_opts o;
    xc_spmatch_opts_init(&o);
    xc_spmatch_result r = run(&a, &b, &o);
    CU_ASSERT_EQUAL(r.npairs, 3);
    CU_ASSERT_EQUAL(r.na_only, 1);
    CU_ASSERT_EQUAL(r.a_only[0], 3);
    CU_ASSERT_FALSE(r.agree);
    xc_spmatch_result_free(&r);
    xc_spcandlist_free(&a);
    xc_spcandlist_free(&b);
}

XC_TEST(test_one_dm, "lists at one DM trial each need -tol_dm")
{
    xc_spcandlist a;
    xc_spcandlist_init(&a);
    a.tsamp = TSAMP;
    add(&a, 9, 100, 2, 3);
    xc_spmatch_opts o;
    xc_spmatch_opts_init(&o);
    xc_spmatch_result r;
    xc_error err;
    CU_ASSERT_EQUAL(xc_spmatch(&a, &a, "x.cand", "y.cand", &o, &r, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-tol_dm"));
    o.tol_dm = 0.1;
    CU_ASSERT_EQUAL(xc_spmatch(&a, &a, "x.cand", "y.cand", &o, &r, &err), XC_OK);
    CU_ASSERT_TRUE(r.agree);
    xc_spmatch_result_free(&r);
    xc_spcandlist_free(&a);
}

static xc_truth_pulse pulse(double t_s, double dm, double width_ms, double snr, double boxsnr)
{
    xc_truth_pulse p = {t_s, dm, width_ms, snr, boxsnr};
    return p;
}

XC_TEST(test_truth, "against truth: found within one DM step and max(one width, the pulse's width)")
{
    xc_spcandlist l;
    base(&l);
    /* candidate 0: box 1000..1003 at 1 ms, centre 1.002 s, width 4 ms, dm 5.0, S/N 20 */
    xc_truth_pulse p[] = {
        pulse(1.002 + 0.004 * 0.999, 5.0 + DMSTEP * 0.999, 1.0, 10, 20.0 / 1.05), /* just inside both */
        pulse(1.002 - 0.004 * 1.001, 5.0, 1.0, 10, NAN),                          /* just outside in time */
        pulse(1.002 + 0.0079, 5.0, 8.0, 10, NAN),                                 /* inside the pulse's 8 ms */
        pulse(1.002, 5.0 - DMSTEP * 1.001, 1.0, 10, NAN),                         /* just outside in DM */
    };
    xc_truth t;
    memset(&t, 0, sizeof t);
    t.pulses = p;
    t.npulses = 4;
    xc_spmatch_opts o;
    xc_spmatch_opts_init(&o);
    xc_sptruth_result r;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_spmatch_truth(&l, "L", &t, &o, &r, &err), XC_OK);
    CU_ASSERT_EQUAL(r.bursts[0].found, 1);
    CU_ASSERT_EQUAL(r.bursts[0].index, 0);
    XC_ASSERT_NEAR(r.bursts[0].ratio, 1.05, 1e-12);   /* against the expected boxcar S/N */
    CU_ASSERT_EQUAL(r.bursts[1].found, 0);
    CU_ASSERT_EQUAL(r.bursts[2].found, 1);
    XC_ASSERT_NEAR(r.bursts[2].ratio, 2.0, 1e-12);    /* no boxcar S/N: the peak S/N 10 */
    CU_ASSERT_EQUAL(r.bursts[3].found, 0);
    CU_ASSERT_EQUAL(r.nfound, 2);
    CU_ASSERT_EQUAL(r.nother, 2);                     /* candidates 1 and 2 */
    CU_ASSERT_FALSE(r.pass);
    xc_sptruth_result_free(&r);
    /* the S/N judged: 1.05 is inside 1 +- 0.0501, outside 1 +- 0.0499 */
    t.npulses = 1;
    o.truth_rtol_snr = 0.0501;
    CU_ASSERT_EQUAL_FATAL(xc_spmatch_truth(&l, "L", &t, &o, &r, &err), XC_OK);
    CU_ASSERT_TRUE(r.pass);
    xc_sptruth_result_free(&r);
    o.truth_rtol_snr = 0.0499;
    CU_ASSERT_EQUAL_FATAL(xc_spmatch_truth(&l, "L", &t, &o, &r, &err), XC_OK);
    CU_ASSERT_FALSE(r.pass);
    CU_ASSERT_TRUE(r.bursts[0].found);
    xc_sptruth_result_free(&r);
    xc_spcandlist_free(&l);
}

XC_TEST(test_truth_file, "truth pulses read from a synth truth file; bad pulses refused")
{
    char path[512];
    snprintf(path, sizeof path, "%s/singlepulse/synth_pulses.truth.json", xc_test_datasets());
    xc_truth t;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_truth_load_pulses(&t, path, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(t.npulses, 2);
    XC_ASSERT_NEAR(t.pulses[1].t_s, 0.12, 0);
    XC_ASSERT_NEAR(t.pulses[1].dm, 40, 0);
    XC_ASSERT_NEAR(t.pulses[1].width_ms, 0.5, 0);
    XC_ASSERT_NEAR(t.pulses[0].expected_boxcar_snr, 8 * sqrt(2.0), 1e-12);
    xc_truth_free(&t);
    CU_ASSERT_PTR_NULL(t.pulses);
    xc_fx_tmp_path(path, sizeof path, "bad.truth.json");
    xc_fx_write_text(path, "{\"pulses\": [{\"t_s\": 1, \"dm\": 2, \"width_ms\": -1}]}");
    CU_ASSERT_EQUAL(xc_truth_load_pulses(&t, path, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pulses[0].width_ms: -1 is negative"));
    xc_fx_write_text(path, "{\"pulses\": [{\"t_s\": 1, \"width_ms\": 1}]}");
    CU_ASSERT_EQUAL(xc_truth_load_pulses(&t, path, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pulses[0].dm: missing"));
    xc_fx_write_text(path, "{\"pulses\": []}");
    CU_ASSERT_EQUAL(xc_truth_load_pulses(&t, path, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no single pulses"));
}

/* The CSV crosscheck singlepulse writes (its formats), pulses of the synth
 * truth at their DMs (trials of step 1), with S/N snr1 for the first. */
static void write_csv(const char *path, double snr1, int64_t sample2)
{
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fprintf(fp, "snr,time_s,sample,width,dm,dm_index,members,begin,end,dm_lo,dm_hi\n");
    fprintf(fp, "%.6f,%.9f,%lld,%d,%.6f,%d,%lld,%lld,%lld,%d,%d\n", snr1, 0.049, 49LL, 2, 20.0, 20, 5LL, 47LL, 53LL,
            18, 22);
    fprintf(fp, "%.6f,%.9f,%lld,%d,%.6f,%d,%lld,%lld,%lld,%d,%d\n", 6.05, sample2 * 1e-3, (long long)sample2, 1, 40.0,
            40, 1LL, (long long)sample2, (long long)sample2 + 1, 40, 40);
    fclose(fp);
}

XC_TEST_IF(test_cli, "compare cands on single-pulse files: exit 0 agree, 1 planted mismatch or pulse missed, 2 bad "
           "input", xc_fx_skip_no_bin)
{
    char a[512], b[512], c[512], js[512], truth[512], msg[2048], buf[4096];
    xc_fx_tmp_path(a, sizeof a, "a.csv");
    xc_fx_tmp_path(b, sizeof b, "b.csv");
    xc_fx_tmp_path(c, sizeof c, "c.csv");
    xc_fx_tmp_path(js, sizeof js, "cmp.json");
    snprintf(truth, sizeof truth, "%s/singlepulse/synth_pulses.truth.json", xc_test_datasets());
    write_csv(a, 11.2, 119);
    write_csv(b, 11.2, 119);
    write_csv(c, 11.2, 125);   /* the second pulse 6 ms later: beyond one width (1 ms) */
    CU_ASSERT_EQUAL(xc_fx_run_clif(msg, sizeof msg, "compare cands %s %s -json %s", a, b, js), 0);
    xc_fx_slurp_into(js, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"verdict\": \"agree\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"matched\": 2"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(msg, sizeof msg, "compare cands %s %s", a, c), 1);
    /* against the truth: both pulses (t 0.05 s, DM 20; 0.12 s, DM 40) found */
    CU_ASSERT_EQUAL(xc_fx_run_clif(msg, sizeof msg, "compare cands %s -truth %s -json %s", a, truth, js), 0);
    xc_fx_slurp_into(js, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"found\": 2"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(msg, sizeof msg, "compare cands %s -truth %s", c, truth), 1);
    /* S/N 11.2 over the expected 8 sqrt(2) = 11.31: 0.99, outside 1 +- 0.005 */
    CU_ASSERT_EQUAL(xc_fx_run_clif(msg, sizeof msg, "compare cands %s -truth %s -truth_rtol_snr 0.005", a, truth), 1);
    CU_ASSERT_EQUAL(xc_fx_run_clif(msg, sizeof msg, "compare cands %s -truth %s -truth_rtol_snr 0.02", a, truth), 0);
    /* the same files read as another format, a bad format, a missing file */
    CU_ASSERT_EQUAL(xc_fx_run_clif(msg, sizeof msg, "compare cands %s %s -format presto", a, b), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "line 1"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(msg, sizeof msg, "compare cands %s %s -format fits", a, b), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'fits'"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(msg, sizeof msg, "compare cands %s %s.missing.cand", a, b), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "missing.cand"));
}

XC_TEST_MAIN("spmatch")
