/* test_accel_sweep.c: xc_accel_run_sweep (core/search/accel/xc_accel_sweep.c), the one
 * search a study makes of a zmax x numharm sweep, against the separate
 * searches it stands for.
 *  - reference: the direct sums of a template do not depend on the other
 *    templates, so the sweep's lists equal separate runs bit for bit;
 *  - cpu: the overlap-save segment follows the largest template, so the
 *    planes round differently: same r, z, w, numharm, power and sigma within
 *    1e-5 relative (float planes summed in double, ~1e-7 apart);
 *  - searches that do not nest (sigma or preset differs) are searched alone:
 *    equal bit for bit; the rest of the set still nests;
 *  - a session (xc_accel_session_*) gives xc_accel_run_sweep's lists bit for
 *    bit spectrum after spectrum, and refuses another length;
 *  - planted: the uncut superset is not any one search's list (the cut to
 *    each search's templates, stages and thresholds does the work). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/conform/xc_conform_accel.h"
#include "core/search/xc_accel.h"
#include "optimized/cpu/xc_accel_cpu.h"
#include "reference/xc_accel_ref.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define NCFG 6

/* Same length; same r, z, w, numharm in order; power and sigma within rtol
 * (0: bit for bit).  Prints the first difference. */
static int same_lists(const xc_candlist *a, const xc_candlist *b, double rtol, double *worst, const char *what)
{
    int ok = a->n == b->n;
    if (!ok)
        printf("\n  %s: %zu candidates, expected %zu", what, a->n, b->n);
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        const xc_cand *x = &a->c[i], *y = &b->c[i];
        double dp = fabs(x->power - y->power) / y->power, ds = fabs(x->sigma - y->sigma) / fmax(y->sigma, 1);
        int bad = x->r != y->r || x->z != y->z || x->w != y->w || x->numharm != y->numharm ||
                  (rtol == 0 ? x->power != y->power || x->sigma != y->sigma : dp > rtol || ds > rtol);
        if (bad && ok)
            printf("\n  %s #%zu: observed r %.1f z %g w %g h %d P %.9g sigma %.9g, expected r %.1f z %g w %g h %d "
                   "P %.9g sigma %.9g (tolerance %.0e)",
                   what, i, x->r, x->z, x->w, x->numharm, x->power, x->sigma, y->r, y->z, y->w, y->numharm, y->power,
                   y->sigma, rtol);
        ok &= !bad;
        *worst = fmax(*worst, fmax(dp, ds));
    }
    return ok;
}

/* Tones with z of both signs and one beyond the smaller zmax; harmonics of
 * one so that numharm 2 and 4 find summed candidates. */
static const double tones[][3] = {
    {701.3, 4, 40}, {1402.6, 8, 40}, {2103.9, 12, 40}, {1511.65, -13, 45}, {2333.0, 0, 25}, {1803.4, 18, 30}};

/* The first n (at most NCFG) of six configurations. */
static void make_opts(xc_accel_opts *o, int n, int threads)
{
    static const int zh[NCFG][2] = {{0, 1}, {20, 4}, {6, 2}, {6, 1}, {20, 1}, {0, 4}};
    for (int c = 0; c < n && c < NCFG; c++) {
        o[c] = xc_fx_accel_opts(zh[c][0], 0, zh[c][1], threads);
        o[c].rlo = 20;
        o[c].sigma = 3;
        o[c].normwidth = 500;
    }
}

static void sweep_against_separate(const xc_accel_searcher *s, size_t nbins, double rtol, double *worst, int *total)
{
    xc_spectrum sp;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, nbins, 5, tones, 6, &err), XC_OK);
    xc_accel_opts o[NCFG];
    make_opts(o, NCFG, 2);
    CU_ASSERT_EQUAL(xc_accel_sweep_nests(o, NCFG), 1);
    xc_candlist sw[NCFG], one[NCFG];
    for (int c = 0; c < NCFG; c++)
        xc_candlist_init(&sw[c]);
    xc_status st = xc_accel_run_sweep(s, &sp, o, NCFG, sw, &err);
    if (st)
        printf("\n  %s sweep: %s", s->impl.name, err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    for (int c = 0; c < NCFG; c++) {
        xc_fx_accel_or_fail(s, &sp, &o[c], &one[c]);
        char what[96];
        snprintf(what, sizeof what, "%s zmax %d numharm %d", s->impl.name, o[c].zmax, o[c].numharm);
        CU_ASSERT(same_lists(&sw[c], &one[c], rtol, worst, what));
        CU_ASSERT(one[c].n >= 2);
        *total += (int)one[c].n;
        xc_candlist_free(&sw[c]);
        xc_candlist_free(&one[c]);
    }
    xc_spectrum_free(&sp);
}

XC_TEST(test_sweep_reference_bits, "sweep_reference_bits")
{
    double worst = 0;
    int total = 0;
    sweep_against_separate(&xc_accel_reference, 2600, 0, &worst, &total);
    printf("\n  reference: 6 searches (zmax 0/6/20 x numharm 1/2/4), %d candidates, sweep = separate bit for bit "
           "(largest difference %.1e)",
           total, worst);
    CU_ASSERT_EQUAL(worst, 0);
}

XC_TEST(test_sweep_cpu_tolerance, "sweep_cpu_tolerance")
{
    double worst = 0;
    int total = 0;
    sweep_against_separate(&xc_accel_cpu, 4099, 1e-5, &worst, &total);
    printf("\n  cpu: 6 searches, %d candidates, largest relative power/sigma difference %.2e (tolerance 1e-5)", total,
           worst);
    CU_ASSERT(worst <= 1e-5);
}

/* Options that do not nest are grouped: o[1] (another sigma) nests with
 * nothing and is searched alone, its list xc_accel_run's bit for bit; o[0]
 * and o[2] nest with each other (within 1e-5, as above); and a preset
 * presto search alone equals its own run bit for bit. */
XC_TEST(test_sweep_not_nested, "sweep_not_nested")
{
    xc_spectrum sp;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 3001, 9, tones, 6, &err), XC_OK);
    xc_accel_opts o[4];
    make_opts(o, 4, 1);
    o[1].sigma = 5;
    o[3].preset = XC_ACCEL_PRESTO;
    CU_ASSERT_EQUAL(xc_accel_sweep_nests(o, 3), 0);
    CU_ASSERT_EQUAL(xc_accel_sweep_nests(o + 2, 2), 0);
    CU_ASSERT_EQUAL(xc_accel_sweep_nests(o, 1), 1);
    xc_candlist sw[4], one[4];
    for (int c = 0; c < 4; c++)
        xc_candlist_init(&sw[c]);
    CU_ASSERT_EQUAL_FATAL(xc_accel_run_sweep(&xc_accel_cpu, &sp, o, 4, sw, &err), XC_OK);
    double worst = 0;
    for (int c = 0; c < 4; c++) {
        xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o[c], &one[c]);
        char what[64];
        snprintf(what, sizeof what, "not nested, search %d", c);
        CU_ASSERT(same_lists(&sw[c], &one[c], c == 1 || c == 3 ? 0 : 1e-5, &worst, what));
        CU_ASSERT(one[c].n >= 1);
        xc_candlist_free(&sw[c]);
        xc_candlist_free(&one[c]);
    }
    xc_spectrum_free(&sp);
}

/* A session: three spectra through one (plans and the cpu state made
 * once) give xc_accel_run_sweep's lists bit for bit; another length is
 * refused naming both. */
XC_TEST(test_sweep_session, "sweep_session")
{
    xc_spectrum sp[3], other;
    xc_error err;
    for (int k = 0; k < 3; k++)
        CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp[k], 3001, 21 + (uint64_t)k, tones, 6 - 2 * k, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&other, 3002, 1, tones, 6, &err), XC_OK);
    xc_accel_opts o[NCFG];
    make_opts(o, NCFG, 2);
    o[5].sigma = 4;   /* a second group */
    xc_accel_session *ss = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_accel_session_open(&xc_accel_cpu, sp[0].nbins, sp[0].T, o, NCFG, &ss, &err), XC_OK);
    double worst = 0;
    int total = 0;
    for (int k = 0; k < 3; k++) {
        xc_candlist a[NCFG], b[NCFG];
        for (int c = 0; c < NCFG; c++) {
            xc_candlist_init(&a[c]);
            xc_candlist_init(&b[c]);
        }
        CU_ASSERT_EQUAL_FATAL(xc_accel_session_run(ss, &sp[k], a, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_accel_run_sweep(&xc_accel_cpu, &sp[k], o, NCFG, b, &err), XC_OK);
        for (int c = 0; c < NCFG; c++) {
            char what[64];
            snprintf(what, sizeof what, "session, spectrum %d, search %d", k, c);
            CU_ASSERT(same_lists(&a[c], &b[c], 0, &worst, what));
            total += (int)b[c].n;
            xc_candlist_free(&a[c]);
            xc_candlist_free(&b[c]);
        }
    }
    printf("\n  session: 3 spectra x 6 searches, %d candidates, equal to run_sweep bit for bit", total);
    CU_ASSERT(total >= 18);
    xc_candlist c[NCFG];
    for (int q = 0; q < NCFG; q++)
        xc_candlist_init(&c[q]);
    xc_status st = xc_accel_session_run(ss, &other, c, &err);
    printf("\n  another length: status %d: %s", (int)st, st ? err.msg : "");
    CU_ASSERT_EQUAL(st, XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "3002 bins"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "3001 bins"));
    for (int q = 0; q < NCFG; q++)
        xc_candlist_free(&c[q]);
    xc_accel_session_close(ss);
    for (int k = 0; k < 3; k++)
        xc_spectrum_free(&sp[k]);
    xc_spectrum_free(&other);
}

/* Planted: the superset (the largest search with the lowest thresholds),
 * uncut, is none of the small searches' lists: it holds points of |z| >
 * zmax or numharm above theirs, or below their thresholds. */
XC_TEST(test_sweep_planted_uncut, "sweep_planted_uncut")
{
    xc_spectrum sp;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 2600, 5, tones, 6, &err), XC_OK);
    xc_accel_opts o[NCFG];
    make_opts(o, NCFG, 1);
    xc_accel_plan top, small;
    xc_accel_opts big = o[1];   /* zmax 20, numharm 4 */
    CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&top, &big, sp.nbins, sp.T, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_accel_plan_make(&small, &o[3], sp.nbins, sp.T, &err), XC_OK);   /* zmax 6, 1 */
    top.thr[0] = small.thr[0];
    top.ntrials[0] = small.ntrials[0];
    xc_accel_peaks pk = {0};
    CU_ASSERT_EQUAL_FATAL(xc_accel_run_peaks(&xc_accel_reference, NULL, &sp, &top, &pk, &err), XC_OK);
    xc_candlist uncut, want;
    xc_candlist_init(&uncut);
    CU_ASSERT_EQUAL_FATAL(xc_accel_finish(&small, &pk, sp.T, &uncut, &err), XC_OK);
    xc_fx_accel_or_fail(&xc_accel_reference, &sp, &o[3], &want);
    size_t outside = 0;
    for (size_t i = 0; i < uncut.n; i++)
        outside += fabs(uncut.c[i].z * uncut.c[i].numharm) > 6 || uncut.c[i].numharm > 1;
    double worst = 0;
    printf("\n  planted (superset uncut): %zu candidates (%zu beyond zmax 6 or numharm 1), the zmax 6 search has %zu",
           uncut.n, outside, want.n);
    CU_ASSERT(outside > 0);
    CU_ASSERT(!same_lists(&uncut, &want, 0, &worst, "planted"));
    xc_candlist_free(&uncut);
    xc_candlist_free(&want);
    xc_accel_peaks_free(&pk);
    xc_accel_plan_free(&top);
    xc_accel_plan_free(&small);
    xc_spectrum_free(&sp);
}

XC_TEST_MAIN("accel_sweep")
