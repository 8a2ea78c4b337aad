/* The single-pulse search family (core/sp/xc_spsearch.h): a tiny plane whose
 * medians, rms, S/N, runs and cluster are computed by hand below; the presets'
 * width lists; bad options; the conformance suite catching a wrong searcher;
 * and `crosscheck singlepulse` on a synthesized file with bursts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/xc_conform_sp.h"
#include "core/base/xc_impl.h"
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

XC_TEST_MAIN("singlepulse")
