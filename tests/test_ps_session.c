/* test_ps_session.c: Pulscan sessions (core/search/pulscan/xc_ps_session.c), the
 * thresholds and a searcher's plan made once for many spectra of one length:
 *  - the reference and cpu searchers through a session give xc_pulscan_run's
 *    lists bit for bit, spectrum after spectrum;
 *  - a searcher with a plan (a stand-in that wraps the cpu stages and counts
 *    its calls) is planned once and destroyed once, with the same lists;
 *  - a spectrum of another length, and bad options, are refused by name;
 *  - planted: a stand-in whose plan keeps the first spectrum's peaks is
 *    caught by the same comparison on the second spectrum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/conform/xc_conform_accel.h"
#include "core/search/xc_search.h"
#include "optimized/cpu/xc_cpu.h"
#include "reference/xc_reference.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

static const double tones[][3] = {{701.3, 4, 40}, {1402.6, 8, 30}, {1511.65, -13, 45}, {2333.0, 0, 25}};

static void spectra(xc_spectrum *sp, size_t nbins)
{
    xc_error err;
    for (int k = 0; k < 3; k++)
        CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp[k], nbins, 11 + (uint64_t)k, tones, 4 - k, &err), XC_OK);
}

static xc_psopts opts(void)
{
    const xc_fx_pscfg c = {.zmax = 20, .numharm = 4, .zstep = 2, .chunk = 32768, .normw = 500,
                           .norm = XC_NORM_EXACT, .logp = XC_LOGP_EXACT, .sigma = 3};
    xc_psopts o = xc_fx_ps_opts(&c);
    o.threads = 2;
    return o;
}

/* n spectra through one session against xc_pulscan_run; returns candidates. */
static size_t session_vs_run(const xc_searcher *s, const xc_spectrum *sp, int n, const xc_psopts *o, int *failed)
{
    xc_error err;
    xc_pulscan_session *ss = NULL;
    xc_status st = xc_pulscan_session_open(s, sp[0].nbins, o, &ss, &err);
    if (st)
        printf("\n  %s: %s", s->impl.name, err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    size_t total = 0;
    for (int k = 0; k < n; k++) {
        xc_candlist a, b;
        xc_candlist_init(&a);
        xc_candlist_init(&b);
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_session_run(ss, &sp[k], &a, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_run(s, &sp[k], o, &b, &err), XC_OK);
        char what[64];
        snprintf(what, sizeof what, "%s spectrum %d", s->impl.name, k);
        int ok = xc_fx_same_bits(&a, &b, what);
        *failed += !ok;
        CU_ASSERT(ok);
        CU_ASSERT(b.n >= 1);
        total += b.n;
        xc_candlist_free(&a);
        xc_candlist_free(&b);
    }
    xc_pulscan_session_close(ss);
    return total;
}

XC_TEST(test_session_bits, "session_bits")
{
    xc_spectrum sp[3];
    spectra(sp, 3001);
    xc_psopts o = opts();
    int failed = 0;
    size_t nr = session_vs_run(&xc_ps_reference, sp, 3, &o, &failed);
    size_t nc = session_vs_run(&xc_ps_cpu, sp, 3, &o, &failed);
    printf("\n  3 spectra of 3001 bins, zmax 20, 4 harmonics: reference %zu and cpu %zu candidates, session = run bit "
           "for bit",
           nr, nc);
    CU_ASSERT_EQUAL(failed, 0);
    for (int k = 0; k < 3; k++)
        xc_spectrum_free(&sp[k]);
}

/* ---- a stand-in searcher with a plan ------------------------------------------ */

typedef struct {
    int planned, destroyed, runs, stale;
    xc_pspeaks first;     /* stale: the first spectrum's peaks, handed back every time */
} planstats;

static planstats stats;

static xc_status sp_plan(const xc_searcher *self, size_t nbins, const xc_psopts *o, void **state, xc_error *err)
{
    (void)self, (void)nbins, (void)o, (void)err;
    stats.planned++;
    *state = &stats;
    return XC_OK;
}

static xc_status sp_peaks_in(const xc_searcher *self, void *state, const xc_spectrum *sp, const xc_psopts *o,
                             const double *P, const double *thr, xc_pspeaks *pk, xc_error *err)
{
    (void)self;
    planstats *s = state;
    s->runs++;
    if (s->stale && s->runs > 1) {
        for (size_t k = 0; k < s->first.n; k++)
            if (xc_pspeaks_push(pk, s->first.p[k].i, s->first.p[k].width, s->first.p[k].numharm, s->first.p[k].power, err))
                return err->code;
        return XC_OK;
    }
    xc_status st = xc_ps_cpu.peaks(&xc_ps_cpu, sp, o, P, thr, pk, err);
    if (!st && s->stale)
        for (size_t k = 0; k < pk->n && !st; k++)
            st = xc_pspeaks_push(&s->first, pk->p[k].i, pk->p[k].width, pk->p[k].numharm, pk->p[k].power, err);
    return st;
}

static void sp_destroy(const xc_searcher *self, void *state)
{
    (void)self;
    ((planstats *)state)->destroyed++;
}

static const xc_searcher planned = {
    .impl = {.family = XC_FAMILY_PULSCAN, .name = "planned", .tol = {XC_TOL_EXACT, 0},
             .caps = XC_CAP_THREADED | XC_CAP_RUNTIME,
             .desc = "test stand-in: the cpu stages behind a plan"},
    .powers = xc_fx_cpu_powers, .peaks = xc_fx_cpu_peaks, .plan = sp_plan, .peaks_in = sp_peaks_in,
    .destroy = sp_destroy};

/* The planned stand-in's cases: three spectra of 2500 bins, the stand-in's
 * counts cleared; the options to search them with. */
static xc_psopts planned_start(xc_spectrum sp[3])
{
    spectra(sp, 2500);
    memset(&stats, 0, sizeof stats);
    xc_pspeaks_init(&stats.first);
    return opts();
}

XC_TEST(test_session_plan_once, "session_plan_once")
{
    xc_spectrum sp[3];
    xc_psopts o = planned_start(sp);
    int failed = 0;
    size_t n = session_vs_run(&planned, sp, 3, &o, &failed);
    printf("\n  stand-in with a plan: %zu candidates over 3 spectra; planned %d, ran %d, destroyed %d (expected 1, 3, "
           "1)",
           n, stats.planned, stats.runs, stats.destroyed);
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT_EQUAL(stats.planned, 1);
    CU_ASSERT_EQUAL(stats.runs, 3);
    CU_ASSERT_EQUAL(stats.destroyed, 1);
    xc_pspeaks_free(&stats.first);
    for (int k = 0; k < 3; k++)
        xc_spectrum_free(&sp[k]);
}

XC_TEST(test_session_planted_stale, "session_planted_stale")
{
    xc_spectrum sp[3];
    xc_psopts o = planned_start(sp);
    stats.stale = 1;
    xc_error err;
    xc_pulscan_session *ss = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_session_open(&planned, sp[0].nbins, &o, &ss, &err), XC_OK);
    int differ = 0;
    for (int k = 0; k < 2; k++) {
        xc_candlist a, b;
        xc_candlist_init(&a);
        xc_candlist_init(&b);
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_session_run(ss, &sp[k], &a, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_run(&xc_ps_cpu, &sp[k], &o, &b, &err), XC_OK);
        if (k == 1)
            differ = !xc_fx_same_bits(&a, &b, "planted (stale peaks)");
        xc_candlist_free(&a);
        xc_candlist_free(&b);
    }
    xc_pulscan_session_close(ss);
    CU_ASSERT(differ);
    xc_pspeaks_free(&stats.first);
    for (int k = 0; k < 3; k++)
        xc_spectrum_free(&sp[k]);
}

XC_TEST(test_session_errors, "session_errors")
{
    xc_spectrum sp[3], other[3];
    spectra(sp, 2500);
    spectra(other, 2600);
    xc_psopts o = opts();
    xc_error err;
    xc_pulscan_session *ss = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_session_open(&xc_ps_cpu, 2500, &o, &ss, &err), XC_OK);
    xc_candlist a;
    xc_candlist_init(&a);
    xc_status st = xc_pulscan_session_run(ss, &other[0], &a, &err);
    printf("\n  another length: status %d: %s", (int)st, st ? err.msg : "");
    CU_ASSERT_EQUAL(st, XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "2600"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "2500"));
    sp[1].data[7] = 1.0f / 0.0f;
    st = xc_pulscan_session_run(ss, &sp[1], &a, &err);
    printf("\n  a non-finite value: status %d: %s", (int)st, st ? err.msg : "");
    CU_ASSERT_EQUAL(st, XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bin 3"));
    xc_pulscan_session_close(ss);
    xc_candlist_free(&a);
    o.zmax = -4;
    xc_pulscan_session *bad = NULL;
    st = xc_pulscan_session_open(&xc_ps_cpu, 2500, &o, &bad, &err);
    printf("\n  zmax -4: status %d: %s", (int)st, st ? err.msg : "");
    CU_ASSERT_EQUAL(st, XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-4"));
    CU_ASSERT_PTR_NULL(bad);
    xc_pulscan_session_close(bad);
    for (int k = 0; k < 3; k++) {
        xc_spectrum_free(&sp[k]);
        xc_spectrum_free(&other[k]);
    }
}

XC_TEST_MAIN("ps_session")
