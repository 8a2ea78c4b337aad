/* PRESTO DDplan.py's plans (core/dedisp/plan/xc_ddplan_presto.h) against the plans
 * DDplan.py printed (datasets/presto/ddplan-{a,b,c}.txt, see its README),
 * number for number; a hand-computed smearing value; the downsample factors;
 * and the subband plan chosen from a smearing budget. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/dedisp/plan/xc_ddplan_presto.h"
#include "core/dedisp/approx/xc_subband.h"
#include "tests/xc_test.h"

/* What DDplan.py printed: the header values and each row's columns. */
typedef struct {
    double min_total, min_chan, min_bw, min_dt, ok, guess;
    int nrows;
    double row[8][9];   /* lo hi dDM ds [dsubDM] #DMs [DMs/call calls] fract */
    int ncols;
} printed;

static int read_printed(const char *name, printed *pr)
{
    char path[512], line[256];
    snprintf(path, sizeof path, "%s/presto/%s", xc_test_datasets(), name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    memset(pr, 0, sizeof *pr);
    int in_table = 0;
    while (fgets(line, sizeof line, f)) {
        double v[9];
        if (sscanf(line, "Minimum total smearing     : %lf", &pr->min_total) == 1 ||
            sscanf(line, "Minimum channel smearing   : %lf", &pr->min_chan) == 1 ||
            sscanf(line, "Minimum smearing across BW : %lf", &pr->min_bw) == 1 ||
            sscanf(line, "Minimum sample time        : %lf", &pr->min_dt) == 1 ||
            sscanf(line, "Setting the new 'best' resolution to : %lf", &pr->ok) == 1 ||
            sscanf(line, "Best guess for optimal initial dDM is %lf", &pr->guess) == 1)
            continue;
        if (strstr(line, "Low DM")) {
            in_table = 1;
            pr->ncols = strstr(line, "dsubDM") ? 9 : 6;
            continue;
        }
        if (in_table && pr->nrows < 8) {
            int n = sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                           &v[6], &v[7], &v[8]);
            if (n == pr->ncols)
                memcpy(pr->row[pr->nrows++], v, sizeof v);
        }
    }
    fclose(f);
    return 0;
}

/* Every printed number within half a unit of its last printed digit. */
static void check_against(const char *file, const xc_ddp_obs *o)
{
    printed pr;
    CU_ASSERT_FATAL(read_printed(file, &pr) == 0);
    xc_ddp_plan p;
    xc_error err;
    CU_ASSERT_FATAL(xc_ddp_make(&p, o, &err) == XC_OK);
    /* %.3g values: 3 significant digits */
    XC_ASSERT_NEAR(p.min_total_smear, pr.min_total, 0.0051 * pr.min_total);
    XC_ASSERT_NEAR(p.min_chan_smear, pr.min_chan, 0.0051 * pr.min_chan + 1e-12);
    XC_ASSERT_NEAR(p.min_bw_smear, pr.min_bw, 0.0051 * pr.min_bw);
    XC_ASSERT_NEAR(p.min_dt, pr.min_dt, 0.0051 * pr.min_dt);
    XC_ASSERT_NEAR(p.ok_smear, pr.ok, 0.0051 * pr.ok);
    XC_ASSERT_NEAR(p.guess_ddm, pr.guess, 0.0005);
    CU_ASSERT_EQUAL_FATAL(p.nrows, pr.nrows);
    for (int k = 0; k < p.nrows; k++) {
        const xc_ddp_row *r = &p.rows[k];
        const double *v = pr.row[k];
        XC_ASSERT_NEAR(r->lodm, v[0], 0.0005);
        XC_ASSERT_NEAR(r->hidm, v[1], 0.0005);
        XC_ASSERT_NEAR(r->ddm, v[2], 0.005);
        CU_ASSERT_EQUAL(r->downsamp, (int)v[3]);
        if (pr.ncols == 9) {
            XC_ASSERT_NEAR(r->dsubdm, v[4], 0.005);
            CU_ASSERT_EQUAL(r->numdms, (long)v[5]);
            CU_ASSERT_EQUAL(r->dms_per_call, (long)v[6]);
            CU_ASSERT_EQUAL(r->calls, (long)v[7]);
            XC_ASSERT_NEAR(r->work_fract, v[8], 0.00051 * v[8]);
        } else {
            CU_ASSERT_EQUAL(r->numdms, (long)v[4]);
            XC_ASSERT_NEAR(r->work_fract, v[5], 0.00051 * v[5]);
        }
    }
    xc_ddp_free(&p);
}

XC_TEST(test_fixture_a, "ddplan_a")
{
    /* DDplan.py -l 0 -d 1000 -f 1400 -b 300 -n 1024 -t 0.000064 */
    xc_ddp_obs o;
    xc_ddp_obs_default(&o);
    check_against("ddplan-a.txt", &o);
}

XC_TEST(test_fixture_b, "ddplan_b_nsub32")
{
    /* the same with -s 32 */
    xc_ddp_obs o;
    xc_ddp_obs_default(&o);
    o.nsub = 32;
    check_against("ddplan-b.txt", &o);
}

XC_TEST(test_fixture_c, "ddplan_c_350mhz_nsub64")
{
    /* DDplan.py -l 0 -d 500 -f 350 -b 100 -n 4096 -t 0.000081920 -s 64, its defaults -p 1 -c 0 -r 0 -k 1024:
     * ok_smearing > dt */
    const xc_ddp_obs o = {.lodm = 0, .hidm = 500, .fctr = 350, .bw = 100, .nchans = 4096, .dt = 0.00008192,
                          .nsub = 64, .numprocs = 1, .cdm = 0, .res_ms = 0, .blocklen = 1024};
    check_against("ddplan-c.txt", &o);
    xc_ddp_plan p;
    xc_error err;
    CU_ASSERT_FATAL(xc_ddp_make(&p, &o, &err) == XC_OK);
    CU_ASSERT_EQUAL(p.note, XC_DDP_NOTE_OKSMEAR);
    CU_ASSERT_EQUAL(p.first_downsamp, 1);
    xc_ddp_free(&p);
}

XC_TEST(test_smear_by_hand, "smear_by_hand")
{
    /* BW_smear(0.1, 300 MHz, 1400 MHz): DM error 0.05 across 1250..1550 MHz,
     * 1000 * 0.05/0.000241 * (1/1250^2 - 1/1550^2) ms
     * = 207.46887966804979 * (6.4e-7 - 4.162330905306972e-7) = 0.046424670 ms;
     * Lorimer & Kramer's small-band form 8.3 us DM dnu / f_GHz^3 gives 0.0454 ms. */
    XC_ASSERT_NEAR(xc_ddp_bw_smear(0.1, 300, 1400), 0.0464246700, 1e-9);
    /* subband smear of ddplan-b's first range: dsubDM 2.6, 32 subbands of 9.375 MHz
     * = 1000 * 1.3/0.000241 * (1/1395.3125^2 - 1/1404.6875^2) = 0.0368598 ms */
    XC_ASSERT_NEAR(xc_ddp_subband_smear(2.6, 32, 300, 1400),
                   1000 * 1.3 / 0.000241 * (1 / (1395.3125 * 1395.3125) - 1 / (1404.6875 * 1404.6875)), 1e-12);
    XC_ASSERT_NEAR(xc_ddp_subband_smear(2.6, 32, 300, 1400), 0.0368598, 5e-7);
    CU_ASSERT_EQUAL(xc_ddp_subband_smear(2.6, 0, 300, 1400), 0.0);
    /* no channel smearing at the coherent DM */
    CU_ASSERT_EQUAL(xc_ddp_dm_smear(50, 1, 400, 50), 0.0);
}

XC_TEST(test_downsamps, "downsamps")
{
    /* blocklen 2400 (SIGPROC input): divisors below 260 thinned to ratios 1.5..2 */
    static const int want[] = {1, 2, 3, 5, 8, 12, 24, 48, 96, 150, 240};
    int got[64];
    int n = xc_ddp_downsamps(2400, got, 64);
    CU_ASSERT_EQUAL_FATAL(n, 11);
    for (int i = 0; i < n; i++)
        CU_ASSERT_EQUAL(got[i], want[i]);
    /* 1024: the powers of two, no thinning needed */
    n = xc_ddp_downsamps(1024, got, 64);
    CU_ASSERT_EQUAL(n, 9);
    CU_ASSERT_EQUAL(got[8], 256);
}

XC_TEST(test_bad_inputs, "bad_inputs")
{
    xc_ddp_obs o;
    xc_ddp_obs_default(&o);
    o.hidm = o.lodm;
    xc_ddp_plan p;
    xc_error err;
    CU_ASSERT_EQUAL(xc_ddp_make(&p, &o, &err), XC_EINVAL);
    xc_ddp_obs_default(&o);
    o.blocklen = 1;   /* only downsample 1: DDplan.py raises IndexError at the second range */
    CU_ASSERT_EQUAL(xc_ddp_make(&p, &o, &err), XC_EINVAL);
}

XC_TEST(test_budget, "budget_choice")
{
    xc_ddp_obs o;
    xc_ddp_obs_default(&o);
    int nsubs[] = {0, 16, 32, 64, 1024};
    double w[] = {40};
    xc_ddp_alt alts[5];
    int choice;
    xc_error err;
    /* no loss allowed: direct */
    CU_ASSERT_FATAL(xc_ddp_choose(&o, nsubs, 5, w, 1, 0.0, NULL, alts, &choice, &err) == XC_OK);
    CU_ASSERT_EQUAL(choice, 0);
    XC_ASSERT_NEAR(alts[0].speedup, 1.0, 1e-12);
    CU_ASSERT_EQUAL(alts[0].ndm, 2297 + 737 + 685 + 207);
    /* the additions of nsub 32 from ddplan-b's rows: (calls*1024 + #DMs*32)/ds */
    double adds = (94 * 1024 + 2444 * 32) / 1.0 + (37 * 1024 + 888 * 32) / 2.0 + (30 * 1024 + 780 * 32) / 4.0 +
                  (4 * 1024 + 104 * 32) / 8.0;
    XC_ASSERT_NEAR(alts[2].adds, adds, 1e-6);
    /* a 40 us pulse is under one 64 us sample: W = 1; every bound is at least
     * 1 - sqrt(1/4) (the three rounding samples alone) */
    for (int i = 1; i < 5; i++)
        XC_ASSERT_ABOVE(alts[i].loss_bound, 0.5 - 1e-12);
    XC_ASSERT_NEAR(xc_subband_loss_bound(1, 3), 0.5, 1e-15);
    /* anything allowed: the fewest additions, which is 32 of these */
    CU_ASSERT_FATAL(xc_ddp_choose(&o, nsubs, 5, w, 1, 1.0, NULL, alts, &choice, &err) == XC_OK);
    CU_ASSERT_EQUAL(choice, 2);
    for (int i = 0; i < 5; i++)
        CU_ASSERT(alts[i].adds >= alts[choice].adds);
    /* without direct and a budget nothing meets: no choice */
    CU_ASSERT_FATAL(xc_ddp_choose(&o, nsubs + 1, 4, w, 1, 0.01, NULL, alts, &choice, &err) == XC_OK);
    CU_ASSERT_EQUAL(choice, -1);
    int bad = 2048;
    CU_ASSERT_EQUAL(xc_ddp_choose(&o, &bad, 1, w, 1, 0.1, NULL, alts, &choice, &err), XC_EINVAL);
}

XC_TEST_MAIN("ddplan")
