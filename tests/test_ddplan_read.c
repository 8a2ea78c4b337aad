/* The DM plan of a printed DDplan.py plan (xc_ddp_read): the tables PRESTO's
 * DDplan.py printed (datasets/presto/ddplan-{a,b}.txt) read as their rows
 * say, broken tables refused with the file, line and field; and `crosscheck
 * singlepulse -ddplan` / `dedisperse -ddplan` give what the same plan given
 * as -dmplan gives, byte for byte. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/plan/xc_ddplan_presto.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* The rows of a fixture against the plan read: lo, dDM, DownSamp, #DMs
 * (each DM exact to 1e-9 relative: lo + j dDM in double from the printed
 * decimals). */
static void check_fixture(const char *name, int nrows, const double (*row)[4])
{
    char path[1024];
    snprintf(path, sizeof path, "%s/presto/%s", xc_test_datasets(), name);
    xc_dmplan p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_ddp_read(&p, path, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(p.nranges, nrows);
    for (int i = 0; i < nrows; i++) {
        const xc_dmrange *r = &p.r[i];
        XC_ASSERT_NEAR(r->lo, row[i][0], 0);
        XC_ASSERT_NEAR(r->step, row[i][1], 0);
        CU_ASSERT_EQUAL(r->ds, (int)row[i][2]);
        CU_ASSERT_EQUAL(r->ndm, (size_t)row[i][3]);
        XC_ASSERT_CLOSE(r->dms[r->ndm - 1], row[i][0] + (row[i][3] - 1) * row[i][1], 1e-9);
    }
    xc_dmplan_free(&p);
}

XC_TEST(test_read_fixtures, "read_ddplan_fixtures")
{
    /* DDplan.py -l 0 -d 1000 -f 1400 -b 300 -n 1024 -t 0.000064 (ddplan-a.txt), and -s 32 (ddplan-b.txt) */
    static const double a[4][4] = {{0, 0.1, 1, 2297}, {229.7, 0.3, 2, 737}, {450.8, 0.5, 4, 685},
                                   {793.3, 1.0, 8, 207}};
    static const double b[4][4] = {{0, 0.1, 1, 2444}, {244.4, 0.3, 2, 888}, {510.8, 0.5, 4, 780},
                                   {900.8, 1.0, 8, 104}};
    check_fixture("ddplan-a.txt", 4, a);
    check_fixture("ddplan-b.txt", 4, b);
}

/* A table written to the test folder, read: its status and message. */
static xc_status read_text(const char *text, xc_error *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/plan.txt", xc_test_tmpdir());
    xc_fx_write_text(path, text);
    xc_dmplan p;
    xc_status st = xc_ddp_read(&p, path, err);
    if (!st)
        xc_dmplan_free(&p);
    return st;
}

#define HEAD "\n  Low DM    High DM     dDM  DownSamp   #DMs  WorkFract\n"

XC_TEST(test_read_refusals, "read_ddplan_refusals")
{
    xc_error err;
    CU_ASSERT_EQUAL(read_text(HEAD "    0.000     20.000    1.00       1      20   1\n\nnot a row\n", &err), XC_OK);
    CU_ASSERT_EQUAL(read_text("Minimum total smearing     : 0.0906 ms\n", &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no DDplan.py table"));
    CU_ASSERT_EQUAL(read_text(HEAD "    0.000     20.000    1.00       1      21   1\n", &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 3: #DMs: 21"));
    CU_ASSERT_EQUAL(read_text(HEAD "    0.000     20.000    1.00     1.5      20   1\n", &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 3: DownSamp: 1.5"));
    CU_ASSERT_EQUAL(read_text(HEAD "    0.000     20.000    1.00\n", &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 3: '    0.000     20.000    1.00': expected a row"));
    /* rows that overlap are refused as in any plan */
    CU_ASSERT_EQUAL(read_text(HEAD "    0.000     20.000    1.00       1      20   1\n"
                                   "   10.000     30.000    1.00       1      20   1\n", &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "plan.txt: range 1: lo 10 is below the previous range's hi 20"));
}

/* A burst at DM 50 in 4 s of 64 channels; its DDplan-style plan of two rows
 * and the same as -dmplan give the same candidates and the same plane. */
XC_TEST_IF(test_cli_ddplan, "cli_singlepulse_dedisperse_ddplan", xc_fx_skip_no_bin)
{
    const char *dir = xc_test_tmpdir();
    char fil[1024], plan[1024], a[1100], b[1100], err[2048];
    snprintf(fil, sizeof fil, "%s/burst.fil", dir);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_clif(err, sizeof err, "synth -nchans 64 -nbits 8 -tsamp 256 -tobs 4 -period 0 "
                                         "-pulse 1.0,50,2,15 -o '%s'", fil), 0);
    snprintf(plan, sizeof plan, "%s/ddplan.txt", dir);
    xc_fx_write_text(plan, HEAD "    0.000    100.000    2.00       1      50   0.6667\n"
                                "  100.000    200.000    4.00       2      25   0.3333\n\n");
    snprintf(a, sizeof a, "%s/a.csv", dir);
    snprintf(b, sizeof b, "%s/b.csv", dir);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -ddplan '%s' -wmax 0.02 -quiet -o '%s'",
                                         fil, plan, a), 0);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -dmplan 0:100:2:1,100:200:4:2 "
                                         "-wmax 0.02 -quiet -o '%s'", fil, b), 0);
    char ta[8192], tb[8192];
    xc_fx_slurp_into(a, ta, sizeof ta);
    xc_fx_slurp_into(b, tb, sizeof tb);
    CU_ASSERT_STRING_EQUAL(ta, tb);
    CU_ASSERT_PTR_NOT_NULL(strstr(ta, ",50.000000,25,"));   /* the burst at DM 50, trial 25 */
    /* dedisperse: the same plane (range 1 holds the DM 100-200 trials at ds 2) */
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "dedisperse -i '%s' -ddplan '%s' -quiet -o '%s/pa'", fil, plan,
                                   dir), 0);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "dedisperse -i '%s' -dmplan 0:100:2:1,100:200:4:2 -quiet "
                                   "-o '%s/pb'", fil, dir), 0);
    for (int r = 0; r < 2; r++) {
        size_t na = 0, nb = 0;
        snprintf(a, sizeof a, "%s/pa.r%d.npy", dir, r);
        snprintf(b, sizeof b, "%s/pb.r%d.npy", dir, r);
        unsigned char *x = xc_fx_slurp(a, &na), *y = xc_fx_slurp(b, &nb);
        CU_ASSERT_PTR_NOT_NULL(x);
        CU_ASSERT(x && y && na == nb && na > 0 && !memcmp(x, y, na));
        free(x);
        free(y);
    }
    /* two ways at once, and a missing file: exit 2 naming them */
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -ddplan '%s' -dmplan 0:10:1 -o '%s'", fil,
                                   plan, a), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "give only one of -dmplan, -dmplanfile, -ddplan"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -ddplan '%s/none.txt' -o '%s'", fil, dir, a),
                    2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "none.txt"));
}

XC_TEST_MAIN("ddplan_read")
