/* The verdict rows of approximate dedispersers (compare/check/check_smear.c):
 * passing cases, and planted failures that each must catch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/check/xc_checks.h"
#include "compare/xc_smear.h"
#include "optimized/cpu/xc_cpu.h"
#include "tests/xc_test.h"

static xc_smear_row row(double loss, double bound, int pass)
{
    return (xc_smear_row){.dm = 10, .width = 1, .snr_loss = loss, .bound = bound, .pass = pass};
}

XC_TEST(test_smear_rows, "smear_rows")
{
    xc_checks l;
    xc_checks_init(&l);
    xc_error err;
    xc_smear_row ok[2] = {row(0.1, 0.5, 1), row(0.2, 0.25, 1)};
    CU_ASSERT_EQUAL_FATAL(xc_check_smear(&l, "obs", "x", ok, 2, &err), XC_OK);
    CU_ASSERT_EQUAL(l.row[0].state, XC_CHECK_PASS);
    XC_ASSERT_NEAR(l.row[0].observed, 0.2, 1e-15);   /* the row nearest its bound */
    XC_ASSERT_NEAR(l.row[0].expected, 0.25, 1e-15);
    /* planted: one pulse lost more than its bound */
    xc_smear_row bad[3] = {row(0.1, 0.5, 1), row(0.4, 0.3, 0), row(0.2, 0.25, 1)};
    CU_ASSERT_EQUAL_FATAL(xc_check_smear(&l, "obs", "x", bad, 3, &err), XC_OK);
    CU_ASSERT_EQUAL(l.row[1].state, XC_CHECK_FAIL);
    XC_ASSERT_NEAR(l.row[1].observed, 0.4, 1e-15);
    /* nothing measured is no pass */
    CU_ASSERT_EQUAL_FATAL(xc_check_smear(&l, "obs", "x", ok, 0, &err), XC_OK);
    CU_ASSERT_EQUAL(l.row[2].state, XC_CHECK_FAIL);
    CU_ASSERT_EQUAL(l.nfail, 2);
    xc_checks_free(&l);
}

/* A plane of one range, ndm x nsamp, filled with v + index. */
static void plane(xc_plane *p, xc_planerange *r, float *data, size_t ndm, size_t nsamp, float v)
{
    memset(r, 0, sizeof *r);
    r->ndm = ndm;
    r->nsamp = nsamp;
    r->data = data;
    for (size_t i = 0; i < ndm * nsamp; i++)
        data[i] = v + (float)i;
    p->nranges = 1;
    p->r = r;
}

XC_TEST(test_approx_ref, "approx_ref_pairing")
{
    float da[12], d1[12], d2[12], d3[8];
    xc_plane a, r1, r2, r3;
    xc_planerange ra, rr1, rr2, rr3;
    plane(&a, &ra, da, 3, 4, 0);
    plane(&r1, &rr1, d1, 3, 4, 100);   /* another algorithm */
    plane(&r2, &rr2, d2, 3, 4, 0);     /* its own */
    plane(&r3, &rr3, d3, 2, 4, 0);     /* another shape */
    const xc_plane *refs[3] = {&r1, &r2, &r3};
    const char *names[3] = {"one", "two", "three"};
    xc_checks l;
    xc_checks_init(&l);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_check_approx_ref(&l, "obs", "fast", &a, refs, names, 3, &err), XC_OK);
    CU_ASSERT_EQUAL(l.row[0].state, XC_CHECK_PASS);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.row[0].measured, "two"));
    /* planted: one sample off by one ulp, in every candidate */
    da[5] = nextafterf(da[5], 1e9f);
    CU_ASSERT_EQUAL_FATAL(xc_check_approx_ref(&l, "obs", "fast", &a, refs, names, 3, &err), XC_OK);
    CU_ASSERT_EQUAL(l.row[1].state, XC_CHECK_FAIL);
    XC_ASSERT_NEAR(l.row[1].observed, 1, 0);
    /* no reference at all is no pass */
    CU_ASSERT_EQUAL_FATAL(xc_check_approx_ref(&l, "obs", "fast", &a, refs, names, 0, &err), XC_OK);
    CU_ASSERT_EQUAL(l.row[2].state, XC_CHECK_FAIL);
    xc_checks_free(&l);
}

/* Measured for real: subband (cpu) against direct (cpu) on injected pulses
 * passes its derived bound, and fails a planted bound ten times tighter. */
XC_TEST(test_measured, "measured_and_planted_bound")
{
    static const int widths[] = {1, 4};
    double scales[2] = {1.0, 0.1};
    for (int s = 0; s < 2; s++) {
        xc_smear_cfg cfg = {64, 1500, -4, 256e-6, "0:100:1,100:200:2:2", "crosscheck", widths, 2, 7, scales[s]};
        xc_ddopts o;
        memset(&o, 0, sizeof o);
        o.nsub = 8;
        o.dmsub = 8;
        xc_smear_row *rows = NULL;
        size_t n = 0;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_smear_measure(&xc_dd_subband_cpu, &xc_dd_cpu, &o, &cfg, &rows, &n, &err), XC_OK);
        xc_checks l;
        xc_checks_init(&l);
        CU_ASSERT_EQUAL_FATAL(xc_check_smear(&l, "synthetic", "subband", rows, n, &err), XC_OK);
        CU_ASSERT_EQUAL(l.row[0].state, s == 0 ? XC_CHECK_PASS : XC_CHECK_FAIL);
        xc_checks_free(&l);
        free(rows);
    }
}

XC_TEST_MAIN("check_smear")
