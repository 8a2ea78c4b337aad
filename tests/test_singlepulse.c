/* The single-pulse search family (core/sp/xc_spsearch.h): a tiny plane whose
 * medians, rms, S/N, runs and cluster are computed by hand below; the presets'
 * width lists; bad options; the conformance suite catching a wrong searcher;
 * and `crosscheck singlepulse` on a synthesized file with bursts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/conform/xc_conform_sp.h"
#include "core/base/xc_impl.h"
#include "core/sp/files/xc_spfiles.h"
#include "optimized/cpu/xc_sp_cpu.h"
#include "optimized/xc_impls.h"
#include "reference/xc_sp_ref.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* One row, tsamp 1 ms, blocks of L = 5 samples (baseline 5 ms):
 *   block 0: 1 0 2 1 1   sorted 0 1 1 1 2    median m0 = 1
 *   block 1: 2 10 2 3 1  sorted 1 2 2 3 10   median m1 = 2
 *   |x - m|: 0 1 1 0 0 0 8 0 1 1, sorted 0 0 0 0 0 1 1 1 1 8: an even count,
 *   the median is the mean of 0 and 1 = 0.5, so s = 1.4826 x 0.5 = 0.7413.
 * Threshold 3, widths 1, 2, 3:
 *   w 1: only t = 6 passes, (10 - 2) / 0.7413 = 10.79
 *   w 2: t = 5 (2 + 10 - 2 x 2) and t = 6 (10 + 2 - 4) both 8 / (0.7413 sqrt 2) = 7.63: one
 *        run, its best the earlier t = 5; t = 4 straddles the blocks: 1 + 2 - (1 x 1 + 1 x 2) = 0
 *   w 3: t = 4: 13 - (1 + 2 x 2) = 8, t = 5: 14 - 6 = 8, t = 6: 15 - 6 = 9, t = 7: 6 - 6 = 0:
 *        one run 4..6, best t = 6 at 9 / (0.7413 sqrt 3) = 7.01, begin 4, end 9
 * One cluster (friends of friends): best the w 1 box at 6, 3 members, begin 4, end 9. */
static const float tiny[10] = {1, 0, 2, 1, 1, 2, 10, 2, 3, 1};
static const double tiny_dm[1] = {42.5};

static xc_spopts tiny_opts(void)
{
    xc_spopts o;
    xc_spopts_default(&o, XC_SP_HEIMDALL);
    o.threshold = 3;
    o.baseline_s = 0.005;
    o.nwidths = 3;
    o.widths[0] = 1, o.widths[1] = 2, o.widths[2] = 3;
    return o;
}

static const xc_spplane tiny_plane = {tiny, 1, 10, 10, 0, 1e-3, 1, 0, tiny_dm};

/* Exact comparisons: integer data, and the expected values are the same
 * IEEE expressions of exact integers and the exactly representable 0.7413. */
XC_TEST(test_hand_tiny_detections, "hand_tiny_detections")
{
    const xc_spsearcher *impls[2] = {&xc_sp_reference, &xc_sp_cpu};
    const xc_spdet want[3] = {{8 / 0.7413, 6, 1, 0, 0, 6, 7},
                              {8 / (0.7413 * sqrt(2.0)), 5, 2, 1, 0, 5, 8},
                              {9 / (0.7413 * sqrt(3.0)), 6, 3, 2, 0, 4, 9}};
    xc_spopts o = tiny_opts();
    xc_spconf c;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_spconf_make(&o, 1e-3, &c, &err), XC_OK);
    XC_ASSERT_NEAR((double)c.block, 5, 0);
    for (int i = 0; i < 2; i++) {
        xc_spdets d = {0};
        CU_ASSERT_EQUAL_FATAL(xc_sp_detect(impls[i], &c, &tiny_plane, &d, &err), XC_OK);
        XC_ASSERT_NEAR((double)d.n, 3, 0);
        for (size_t k = 0; k < d.n && k < 3; k++) {
            XC_ASSERT_NEAR(d.d[k].snr, want[k].snr, 0);
            XC_ASSERT_NEAR((double)d.d[k].sample, (double)want[k].sample, 0);
            XC_ASSERT_NEAR((double)d.d[k].width, (double)want[k].width, 0);
            XC_ASSERT_NEAR((double)d.d[k].begin, (double)want[k].begin, 0);
            XC_ASSERT_NEAR((double)d.d[k].end, (double)want[k].end, 0);
        }
        xc_spdets_free(&d);
    }
}

XC_TEST(test_hand_tiny_cluster, "hand_tiny_cluster")
{
    xc_spopts o = tiny_opts();
    for (int narrow = 0; narrow < 2; narrow++) {
        /* narrow: widths' indices 1 apart at most: w1 - w3 are friends only through w2 */
        o.sep_width = narrow ? 1 : 0;
        xc_spcandlist l;
        xc_spcandlist_init(&l);
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_sp_search(&xc_sp_cpu, &o, &tiny_plane, 1, 1e-3, tiny_dm, 1, &l, &err), XC_OK);
        XC_ASSERT_NEAR((double)l.n, 1, 0);
        if (l.n == 1) {
            const xc_spcand *c = &l.c[0];
            XC_ASSERT_NEAR(c->snr, 8 / 0.7413, 0);
            XC_ASSERT_NEAR((double)c->sample, 6, 0);
            XC_ASSERT_NEAR((double)c->width, 1, 0);
            XC_ASSERT_NEAR((double)c->members, 3, 0);
            XC_ASSERT_NEAR((double)c->begin, 4, 0);
            XC_ASSERT_NEAR((double)c->end, 9, 0);
            XC_ASSERT_NEAR(c->time_s, 6e-3, 0);
            XC_ASSERT_NEAR(c->dm, 42.5, 0);
        }
        xc_spcandlist_free(&l);
    }
    /* width tolerance 0 (sep_width 0 means Heimdall's 3, so the time
     * tolerance is what splits here): 0 samples apart x the wider width */
    o.sep_width = 1;
    o.sep_time = 1;
    o.sep_dm = 1;
    xc_spcandlist l;
    xc_spcandlist_init(&l);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_sp_search(&xc_sp_reference, &o, &tiny_plane, 1, 1e-3, tiny_dm, 1, &l, &err), XC_OK);
    XC_ASSERT_NEAR((double)l.n, 1, 0);   /* 6 - 5 <= 1 x 2 and 6 - 5 <= 1 x 3: still one */
    xc_spcandlist_free(&l);
}

/* The presets' widths: Heimdall's powers of two, PRESTO's downfactors,
 * AstroAccelerate's 1..32 then steps of 2. */
XC_TEST(test_preset_widths, "preset_widths")
{
    static const int32_t presto[] = {1, 2, 3, 4, 6, 9, 14, 20, 30, 45, 70, 100, 150};
    xc_spopts o;
    xc_spconf c;
    xc_error err;
    xc_spopts_default(&o, XC_SP_HEIMDALL);
    o.wmax_s = 0.0131;   /* 13.1 samples of 1 ms: 1, 2, 4, 8 */
    CU_ASSERT_EQUAL_FATAL(xc_spconf_make(&o, 1e-3, &c, &err), XC_OK);
    XC_ASSERT_NEAR((double)c.nwidths, 4, 0);
    XC_ASSERT_NEAR((double)c.widths[3], 8, 0);
    XC_ASSERT_NEAR((double)c.block, 2000, 0);   /* Heimdall's 2 s baseline */
    XC_ASSERT_NEAR(c.threshold, 6, 0);
    xc_spopts_default(&o, XC_SP_PRESTO);
    CU_ASSERT_EQUAL_FATAL(xc_spconf_make(&o, 1e-3, &c, &err), XC_OK);
    XC_ASSERT_NEAR((double)c.nwidths, 13, 0);
    for (int i = 0; i < 13 && i < c.nwidths; i++)
        XC_ASSERT_NEAR((double)c.widths[i], (double)presto[i], 0);
    XC_ASSERT_NEAR((double)c.block, 1000, 0);
    XC_ASSERT_NEAR(c.threshold, 5, 0);
    xc_spopts_default(&o, XC_SP_ASTROACCELERATE);
    o.wmax_s = 0.040;
    CU_ASSERT_EQUAL_FATAL(xc_spconf_make(&o, 1e-3, &c, &err), XC_OK);
    XC_ASSERT_NEAR((double)c.nwidths, 36, 0);   /* 1..32, then 34, 36, 38, 40 */
    XC_ASSERT_NEAR((double)c.widths[35], 40, 0);
    CU_ASSERT(c.stat == XC_SP_MEAN_SD);
    /* bad options name the option and the value */
    o.baseline_s = 1;
    CU_ASSERT_EQUAL(xc_spconf_make(&o, 1e-3, &c, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-baseline 1"));
    xc_spopts_default(&o, XC_SP_HEIMDALL);
    o.nwidths = 2;
    o.widths[0] = 4, o.widths[1] = 2;
    CU_ASSERT_EQUAL(xc_spconf_make(&o, 1e-3, &c, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "2 after 4"));
}

/* A searcher whose S/N is rounded to float (as a careless GPU port would
 * keep it) must fail the conformance suite. */
static xc_status float_snr_execute(const xc_spsearcher *self, void *state, const xc_spconf *c, const xc_spplane *pl,
                                   xc_spdets *out, xc_error *err)
{
    (void)self;
    size_t n0 = out->n;
    xc_status st = xc_sp_cpu.execute(&xc_sp_cpu, state, c, pl, out, err);
    for (size_t i = n0; i < out->n; i++)
        out->d[i].snr = (float)out->d[i].snr;
    return st;
}

static const xc_spsearcher planted_float_snr = {
    .impl = {.family = XC_FAMILY_SINGLEPULSE, .name = "float-snr", .tol = {XC_TOL_ROUNDING, 1},
             .caps = XC_CAP_RUNTIME, .desc = "the cpu entry with its S/N rounded to float"},
    .execute = float_snr_execute};

XC_TEST(test_conformance_catches_float_snr, "conformance_catches_float_snr")
{
    xc_conform_opts o;
    xc_conform_opts_default(&o);
    xc_conform_report rep;
    xc_conform_report_init(&rep);
    xc_error err;
    CU_ASSERT_EQUAL(xc_conform_spsearcher(&planted_float_snr, &xc_sp_reference, &o, &rep, &err), XC_OK);
    const xc_conform_row *bad = xc_conform_report_failed(&rep, "planted/");
    CU_ASSERT_PTR_NOT_NULL(bad);
    if (bad)
        printf("\n  caught as expected: %s: %s vs %s", bad->name, bad->observed, bad->expected);
    xc_conform_report_free(&rep);
}

/* list -json names the family and both entries. */
XC_TEST(test_registry_lists_family, "registry_lists_family")
{
    xc_registry *reg;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(xc_family_name(XC_FAMILY_SINGLEPULSE), "singlepulse");
    CU_ASSERT_PTR_NOT_NULL(xc_registry_find(reg, XC_FAMILY_SINGLEPULSE, "reference"));
    CU_ASSERT_PTR_NOT_NULL(xc_registry_find(reg, XC_FAMILY_SINGLEPULSE, "cpu"));
    CU_ASSERT_PTR_EQUAL(xc_registry_pick(reg, XC_FAMILY_SINGLEPULSE, XC_CAP_THREADED, XC_CAP_DEVICE),
                        &xc_sp_cpu.impl);
    xc_registry_destroy(reg);
}

/* ---- crosscheck singlepulse -------------------------------------------------- */

/* Two dispersed bursts (synth -pulse T,DM,W,SNR: T the centre at fch1, W in
 * ms) in 4 s of 64 channels, 256 us samples; the plan steps 2 pc cm^-3. */
static const struct {
    double t, dm, w_ms;
} bursts[2] = {{1.0, 50, 2}, {2.5, 120, 4}};

static int make_bursts(const char *dir, char *fil, size_t n)
{
    snprintf(fil, n, "%s/bursts.fil", dir);
    char args[2048];
    snprintf(args, sizeof args,
             "synth -nchans 64 -nbits 8 -tsamp 256 -tobs 4 -period 0 -pulse %g,%g,%g,15 -pulse %g,%g,%g,20 -o '%s'",
             bursts[0].t, bursts[0].dm, bursts[0].w_ms, bursts[1].t, bursts[1].dm, bursts[1].w_ms, fil);
    return xc_fx_run_cli(args);
}

/* Each burst is a candidate within one DM step (2) of its DM, its width
 * within a factor 2 (the next power of two), its box's centre within one
 * width of its time. */
XC_TEST_IF(test_cli_finds_bursts, "cli_finds_bursts", xc_fx_skip_no_bin)
{
    const char *dir = xc_test_tmpdir();
    char fil[1024], csv[1100], text[8192], err[2048];
    CU_ASSERT_EQUAL_FATAL(make_bursts(dir, fil, sizeof fil), 0);
    snprintf(csv, sizeof csv, "%s/bursts.csv", dir);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -dmplan 0:200:2:1 -wmax 0.02 -o '%s'",
                                         fil, csv), 0);
    xc_fx_slurp_into(csv, text, sizeof text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(text, "snr,time_s,sample,width,dm,dm_index,members,begin,end,dm_lo,dm_hi\n"));
    int found[2] = {0, 0};
    for (const char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        double snr, t, dm;
        long long sample, members, begin, end;
        int width, di, lo, hi;
        if (sscanf(line + 1, "%lf,%lf,%lld,%d,%lf,%d,%lld,%lld,%lld,%d,%d", &snr, &t, &sample, &width, &dm, &di,
                   &members, &begin, &end, &lo, &hi) != 11)
            continue;
        for (int b = 0; b < 2; b++) {
            double wsamp = bursts[b].w_ms * 1e-3 / 256e-6, centre = (double)sample + width / 2.0;
            if (fabs(dm - bursts[b].dm) <= 2 && width >= wsamp / 2 && width <= wsamp * 2 &&
                fabs(centre * 256e-6 - bursts[b].t) <= width * 256e-6)
                found[b]++;
        }
    }
    for (int b = 0; b < 2; b++)
        if (found[b] != 1)
            printf("\n  burst %d (t %g s, DM %g, %g ms): observed %d candidates, expected 1 within DM +-2, width x2, "
                   "one width in time\n%s", b, bursts[b].t, bursts[b].dm, bursts[b].w_ms, found[b], text);
    CU_ASSERT_EQUAL(found[0], 1);
    CU_ASSERT_EQUAL(found[1], 1);
    /* the reference writes the same bytes */
    char csv2[1100], text2[8192];
    snprintf(csv2, sizeof csv2, "%s/bursts-ref.csv", dir);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -dmplan 0:200:2:1 -wmax 0.02 -impl reference "
                                   "-quiet -o '%s'", fil, csv2), 0);
    xc_fx_slurp_into(csv2, text2, sizeof text2);
    CU_ASSERT_STRING_EQUAL(text2, text);
    /* a plane written by `crosscheck dedisperse` gives the same list */
    char plane[1100];
    snprintf(plane, sizeof plane, "%s/plane", dir);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "dedisperse -i '%s' -dmplan 0:200:2:1 -quiet -o '%s'", fil, plane),
                    0);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s.json' -wmax 0.02 -quiet -o '%s'", plane, csv2),
                    0);
    xc_fx_slurp_into(csv2, text2, sizeof text2);
    CU_ASSERT_STRING_EQUAL(text2, text);
    /* -format heimdall and presto: the same candidates read back (S/N to the
     * formats' printed precision: Heimdall %.6f here, PRESTO %.2f) */
    static const char *const fmts[2] = {"heimdall", "presto"}, *const ext[2] = {"cand", "singlepulse"};
    static const double snr_tol[2] = {1e-6, 0.005 + 1e-9};
    xc_spcandlist want, got;
    xc_spcandlist_init(&want);
    xc_spcandlist_init(&got);
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_spcands_read(&want, csv, XC_SPFMT_CSV, &e), XC_OK);
    for (int f = 0; f < 2; f++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/bursts.%s", dir, ext[f]);
        CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -dmplan 0:200:2:1 -wmax 0.02 -quiet "
                                       "-format %s -o '%s'", fil, fmts[f], path), 0);
        CU_ASSERT_EQUAL_FATAL(xc_spcands_read(&got, path, XC_SPFMT_AUTO, &e), XC_OK);
        CU_ASSERT_EQUAL_FATAL(got.n, want.n);
        for (size_t i = 0; i < want.n; i++) {
            const xc_spcand *b = &want.c[i], *a = NULL;
            for (size_t j = 0; j < got.n && !a; j++)
                if (got.c[j].sample == b->sample && got.c[j].width == b->width)
                    a = &got.c[j];
            if (!a || fabs(a->snr - b->snr) > snr_tol[f])
                printf("\n  %s: candidate sample %lld width %d snr %.6f: observed %s snr %.6f (tolerance %g)\n",
                       fmts[f], (long long)b->sample, b->width, b->snr, a ? "one with" : "none", a ? a->snr : 0.0,
                       snr_tol[f]);
            CU_ASSERT_PTR_NOT_NULL(a);
            if (a)
                CU_ASSERT_DOUBLE_EQUAL(a->snr, b->snr, snr_tol[f]);
        }
    }
    xc_spcandlist_free(&want);
    xc_spcandlist_free(&got);
}

/* Bad input: exit 2, a message naming the file or option and the value, no output left. */
XC_TEST_IF(test_cli_bad_input, "cli_bad_input", xc_fx_skip_no_bin)
{
    const char *dir = xc_test_tmpdir();
    char fil[1024], csv[1100], err[2048], junk[1100];
    CU_ASSERT_EQUAL_FATAL(make_bursts(dir, fil, sizeof fil), 0);
    snprintf(csv, sizeof csv, "%s/bad.csv", dir);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -o '%s'", fil, csv), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no DM plan"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -dmplan 0:20:2:1 -widths 4,2 -o '%s'", fil,
                                   csv), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-widths: 2 after 4"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -dmplan 0:20:2:1 -preset nope -o '%s'", fil,
                                   csv), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nope"));
    snprintf(junk, sizeof junk, "%s/junk.fil", dir);
    FILE *fp = fopen(junk, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("not a filterbank", fp);
    fclose(fp);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -dmplan 0:20:2:1 -o '%s'", junk, csv), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, junk));
    FILE *left = fopen(csv, "rb");
    CU_ASSERT_PTR_NULL(left);
    if (left)
        fclose(left);
}

XC_TEST_MAIN("singlepulse")
