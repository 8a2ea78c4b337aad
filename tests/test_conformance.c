/* The conformance suite over the registry (docs/ARCHITECTURE.md): every
 * implementation registered in every family goes through the conformance
 * library (compare/conform/xc_conform.h) against its family's reference, the entry
 * with XC_CAP_REFERENCE, and must fail no row.  One case per registered
 * implementation, made from the registry at start-up, so registering one more
 * adds its case with no edit here; one that is not available here (the gpu
 * without a device) is skipped through the harness, counted as skipped and
 * never as passed.
 *
 * Then the suite is shown to catch wrong implementations: planted ones,
 * wrapping the real stages and registered at run time (XC_CAP_RUNTIME), go
 * through the same loop and must be reported failing on the case their bug
 * breaks, and an approximate one within its declared bound must pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/conform/xc_conform.h"
#include "compare/conform/xc_conform_accel.h"
#include "compare/conform/xc_conform_sp.h"
#include "core/base/xc_impl.h"
#include "optimized/cpu/xc_cpu.h"
#include "optimized/xc_impls.h"
#include "reference/xc_reference.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- the conformance loop --------------------------------------------------- */

static xc_conform_pscfg ps_configs[XC_FX_PS_SMALL];

/* The suite's options: the library's defaults, with the Pulscan test
 * configurations cheap enough for the reference (tests/xc_fixture.c). */
static xc_conform_opts suite_opts(void)
{
    xc_conform_opts o;
    xc_conform_opts_default(&o);
    for (size_t k = 0; k < XC_FX_PS_SMALL; k++) {
        ps_configs[k].nbins = xc_fx_ps_configs[k].nbins;
        ps_configs[k].opts = xc_fx_ps_opts(&xc_fx_ps_configs[k]);
    }
    o.ps_configs = ps_configs;
    o.n_ps_configs = XC_FX_PS_SMALL;
    return o;
}

static void print_row(const xc_impl *impl, const xc_conform_row *r)
{
    printf("\n  %s/%s FAILS %s\n    observed:  %s\n    expected:  %s\n    tolerance: %s", xc_family_name(impl->family),
           impl->name, r->name, r->observed, r->expected, r->tolerance);
}

/* Prints up to max (0: all) failing rows of rep other than skip. */
static void print_failures(const xc_impl *impl, const xc_conform_report *rep, size_t max, const xc_conform_row *skip)
{
    size_t shown = 0;
    for (size_t i = 0; i < rep->n && (!max || shown < max); i++)
        if (!rep->rows[i].pass && &rep->rows[i] != skip) {
            print_row(impl, &rep->rows[i]);
            shown++;
        }
    if (shown + !!skip < rep->nfail)
        printf("\n  ... and %zu more failing rows", rep->nfail - shown - !!skip);
}

/* Runs the library on impl against the reference of its family in reg,
 * found by capability.  Returns the library's status (the report holds the
 * rows). */
static xc_status conform_one(const xc_registry *reg, const xc_impl *impl, xc_conform_report *rep)
{
    const xc_impl *ref = xc_registry_pick(reg, impl->family, XC_CAP_REFERENCE, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
    xc_conform_opts o = suite_opts();
    xc_error err;
    xc_error_clear(&err);
    xc_status st = impl->family == XC_FAMILY_DEDISPERSE
                       ? xc_conform_dedisperser(xc_dedisperser_of(impl), xc_dedisperser_of(ref), &o, rep, &err)
                   : impl->family == XC_FAMILY_ACCEL
                       ? xc_conform_accel(xc_accel_searcher_of(impl), xc_accel_searcher_of(ref), &o, rep, &err)
                   : impl->family == XC_FAMILY_SINGLEPULSE
                       ? xc_conform_spsearcher(xc_spsearcher_of(impl), xc_spsearcher_of(ref), &o, rep, &err)
                       : xc_conform_searcher(xc_searcher_of(impl), xc_searcher_of(ref), &o, rep, &err);
    if (st)
        printf("\n  %s/%s: %s", xc_family_name(impl->family), impl->name, err.msg);
    return st;
}

/* ---- one case per registered implementation -------------------------------- */

/* The harness's cases take no argument, so each registered implementation
 * gets one of these slots (filled from the registry in main). */
#define NSLOTS 24
static xc_registry *builtin;
static const xc_impl *slot_impl[NSLOTS];
static char slot_name[NSLOTS][96];
static size_t nslots, nregistered;

static void conform_slot(size_t k)
{
    const xc_impl *impl = slot_impl[k];
    xc_conform_report rep;
    xc_conform_report_init(&rep);
    xc_status st = conform_one(builtin, impl, &rep);
    CU_ASSERT_EQUAL(st, XC_OK);
    CU_ASSERT(rep.n > 20);   /* the cases ran, not just the class row */
    print_failures(impl, &rep, 0, NULL);
    CU_ASSERT_EQUAL(rep.nfail, 0);
    xc_conform_report_free(&rep);
}

static int skip_slot(size_t k, char *why, size_t n) { return !xc_impl_available(slot_impl[k], why, n); }

#define SLOT(k)                                                                                                   \
    static void slot_##k(void) { conform_slot(k); }                                                             \
    static int skip_##k(char *why, size_t n) { return skip_slot(k, why, n); }
SLOT(0) SLOT(1) SLOT(2) SLOT(3) SLOT(4) SLOT(5) SLOT(6) SLOT(7)
SLOT(8) SLOT(9) SLOT(10) SLOT(11) SLOT(12) SLOT(13) SLOT(14) SLOT(15)
SLOT(16) SLOT(17) SLOT(18) SLOT(19) SLOT(20) SLOT(21) SLOT(22) SLOT(23)
static void (*const slot_fn[NSLOTS])(void) = {slot_0,  slot_1,  slot_2,  slot_3,  slot_4,  slot_5,  slot_6,  slot_7,
                                              slot_8,  slot_9,  slot_10, slot_11, slot_12, slot_13, slot_14, slot_15,
                                              slot_16, slot_17, slot_18, slot_19, slot_20, slot_21, slot_22, slot_23};
static int (*const slot_skip[NSLOTS])(char *, size_t) = {
    skip_0,  skip_1,  skip_2,  skip_3,  skip_4,  skip_5,  skip_6,  skip_7,  skip_8,  skip_9,  skip_10, skip_11,
    skip_12, skip_13, skip_14, skip_15, skip_16, skip_17, skip_18, skip_19, skip_20, skip_21, skip_22, skip_23};

/* Every registered implementation got a case, and every family a reference. */
static void test_every_entry_has_a_case(void)
{
    CU_ASSERT_EQUAL(nslots, nregistered);
    if (nslots != nregistered)
        printf("\n  %zu implementations registered, %d case slots: raise NSLOTS", nregistered, NSLOTS);
    for (int f = 0; f < XC_FAMILY_COUNT; f++)
        CU_ASSERT_PTR_NOT_NULL(xc_registry_pick(builtin, (xc_family)f, XC_CAP_REFERENCE, 0));
}

/* ---- planted wrong implementations ------------------------------------------ */

/* The reference on a copy of job whose delays the entry's data (a delay_fn) changed. */
typedef struct {
    int32_t (*fn)(int32_t d, int c, int nc);
} delay_fn;

static xc_status exec_delays(const xc_dedisperser *self, void *state, const xc_ddjob *job, xc_plane *out,
                             xc_error *err)
{
    (void)state;
    int32_t (*fn)(int32_t d, int c, int nc) = ((const delay_fn *)self->impl.data)->fn;
    const xc_dmplan *p = job->plan;
    int nc = job->geom.nchans;
    int32_t **d = calloc((size_t)p->nranges, sizeof *d);
    xc_status st = d ? XC_OK : xc_error_set(err, XC_ENOMEM, "planted: out of memory");
    for (int k = 0; !st && k < p->nranges; k++) {
        size_t n = p->r[k].ndm * (size_t)nc;
        if (!(d[k] = malloc(n * sizeof **d)))
            st = xc_error_set(err, XC_ENOMEM, "planted: out of memory");
        for (size_t i = 0; !st && i < n; i++)
            d[k][i] = fn(job->delays[k][i], (int)(i % (size_t)nc), nc);
    }
    xc_ddjob j = *job;
    j.delays = d;
    if (!st)
        st = xc_dedisperse_reference(&j, out, err);
    for (int k = 0; d && k < p->nranges; k++)
        free(d[k]);
    free(d);
    return st;
}

/* (a) The middle channel's delay one sample short wherever it is not 0. */
static int32_t short_delay(int32_t d, int c, int nc) { return c == nc / 2 && d > 0 ? d - 1 : d; }

/* (a') Right everywhere but the last output sample of each gulp, left 0. */
static xc_status exec_drop_last(const xc_dedisperser *self, void *state, const xc_ddjob *job, xc_plane *out,
                                xc_error *err)
{
    (void)self;
    (void)state;
    xc_status st = xc_dedisperse_reference(job, out, err);
    for (int k = 0; !st && k < out->nranges; k++)
        for (size_t d = 0; out->r[k].nsamp && d < out->r[k].ndm; d++)
            out->r[k].data[(d + 1) * out->r[k].nsamp - 1] = 0;
    return st;
}

/* (c) An approximate dedisperser: delays rounded down to a multiple of 4
 * samples, as a subband scheme with too coarse a step would; linear and
 * time invariant, but a one-sample pulse is smeared over up to 4 samples. */
static int32_t coarse_delay(int32_t d, int c, int nc)
{
    (void)c;
    (void)nc;
    return d - d % 4;
}

static const delay_fn shortened = {short_delay}, coarsened = {coarse_delay};

static const xc_dedisperser planted_short_delay = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "planted-short-delay", .tol = {XC_TOL_ROUNDING, 1.0},
             .caps = XC_CAP_RUNTIME, .data = &shortened,
             .desc = "reference with the middle channel's delay one sample short"},
    .execute = exec_delays};
static const xc_dedisperser planted_drop_last = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "planted-drop-last", .tol = {XC_TOL_ROUNDING, 1.0},
             .caps = XC_CAP_RUNTIME,
             .desc = "reference with the last sample of each gulp zeroed"},
    .execute = exec_drop_last};
static const xc_dedisperser planted_lossy = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "planted-lossy", .tol = {XC_TOL_SIGNAL_LOSS, 0.05},
             .caps = XC_CAP_APPROXIMATE | XC_CAP_RUNTIME, .data = &coarsened,
             .desc = "delays rounded down to 4 samples, claiming at most 5% S/N loss"},
    .execute = exec_delays};
static const xc_dedisperser planted_lossy_honest = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "planted-lossy-honest", .tol = {XC_TOL_SIGNAL_LOSS, 0.9},
             .caps = XC_CAP_APPROXIMATE | XC_CAP_RUNTIME, .data = &coarsened,
             .desc = "delays rounded down to 4 samples, claiming at most 90% S/N loss"},
    .execute = exec_delays};

/* (b) A screening bug: the cpu peaks stage, then every boxcar less than
 * 2^-10 above its threshold dropped, as a screen whose safety margin was
 * applied the wrong way would drop it. */
static xc_status screened_peaks(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                                const double *thr, xc_pspeaks *pk, xc_error *err)
{
    (void)self;
    size_t n0 = pk->n, w = n0, stride = (size_t)o->zmax + 2;
    xc_status st = xc_ps_cpu.peaks(&xc_ps_cpu, sp, o, P, thr, pk, err);
    for (size_t i = n0; !st && i < pk->n; i++) {
        const xc_pspeak *p = &pk->p[i];
        if (p->power > thr[(size_t)(p->numharm - 1) * stride + (size_t)p->width] * (1 + 0x1.0p-10))
            pk->p[w++] = *p;
    }
    if (!st)
        pk->n = w;
    return st;
}
static const xc_searcher planted_screen = {
    .impl = {.family = XC_FAMILY_PULSCAN, .name = "planted-screen", .tol = {XC_TOL_EXACT, 0},
             .caps = XC_CAP_THREADED | XC_CAP_RUNTIME,
             .desc = "cpu peaks stage dropping boxcars within 2^-10 above their threshold"},
    .powers = xc_fx_cpu_powers, .peaks = screened_peaks};

/* What the loop must report for each planted entry: the prefix of a failing
 * row, or NULL for an entry that must pass; only: every failing row has the
 * prefix. */
typedef struct {
    const xc_impl *impl;
    const char *fails;
    int only;
} planted;

/* Registers the planted entries in a registry of the built-in ones, runs the
 * conformance loop over every runtime entry of family f, and checks each
 * verdict. */
static void catches(xc_family f, const planted *pl, size_t n)
{
    xc_registry *reg;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &err), XC_OK);
    for (size_t i = 0; i < n; i++) {
        xc_status st = xc_registry_add(reg, pl[i].impl, &err);
        if (st)
            printf("\n  %s", err.msg);
        CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    }
    size_t seen = 0;
    for (size_t e = 0; e < xc_registry_count(reg, f); e++) {
        const xc_impl *impl = xc_registry_at(reg, f, e);
        if (!(impl->caps & XC_CAP_RUNTIME))
            continue;   /* the built-in ones have their own cases */
        const planted *want = NULL;
        for (size_t i = 0; i < n; i++)
            want = pl[i].impl == impl ? &pl[i] : want;
        CU_ASSERT_PTR_NOT_NULL_FATAL(want);
        seen++;
        xc_conform_report rep;
        xc_conform_report_init(&rep);
        CU_ASSERT_EQUAL(conform_one(reg, impl, &rep), XC_OK);
        printf("\n  %s/%s: %zu of %zu rows fail", xc_family_name(f), impl->name, rep.nfail, rep.n);
        if (want->fails) {
            const xc_conform_row *r = xc_conform_report_failed(&rep, want->fails);
            CU_ASSERT(rep.nfail > 0);
            CU_ASSERT_PTR_NOT_NULL(r);
            if (r)
                print_row(impl, r);
            else
                printf("\n  %s was not caught by a '%s' row", impl->name, want->fails);
            for (size_t i = 0; want->only && i < rep.n; i++)
                CU_ASSERT(rep.rows[i].pass || !strncmp(rep.rows[i].name, want->fails, strlen(want->fails)));
            print_failures(impl, &rep, 2, r);
        } else {
            print_failures(impl, &rep, 0, NULL);
            CU_ASSERT_EQUAL(rep.nfail, 0);
        }
        xc_conform_report_free(&rep);
    }
    CU_ASSERT_EQUAL(seen, n);
    printf("\n");
    xc_registry_destroy(reg);
}

static void test_catches_wrong_dedispersers(void)
{
    const planted pl[] = {
        {&planted_short_delay.impl, "hand/", 0},
        {&planted_drop_last.impl, "gulps/", 0},
        {&planted_lossy.impl, "signal-loss/", 1},
        {&planted_lossy_honest.impl, NULL, 0},
    };
    catches(XC_FAMILY_DEDISPERSE, pl, sizeof pl / sizeof *pl);
}

static void test_catches_screening_searcher(void)
{
    const planted pl[] = {{&planted_screen.impl, "raw-peaks/noise-sigma0", 0}};
    catches(XC_FAMILY_PULSCAN, pl, 1);
}

int main(void)
{
    xc_error err;
    if (xc_registry_builtin(&builtin, &err)) {
        fprintf(stderr, "registry: %s\n", err.msg);
        return 2;
    }
    xc_testcase cases[NSLOTS + 3];
    size_t n = 0;
    for (int f = 0; f < XC_FAMILY_COUNT; f++)
        for (size_t e = 0; e < xc_registry_count(builtin, (xc_family)f); e++, nregistered++) {
            if (nslots == NSLOTS)
                continue;
            slot_impl[nslots] = xc_registry_at(builtin, (xc_family)f, e);
            snprintf(slot_name[nslots], sizeof slot_name[nslots], "conform_%s_%s", xc_family_name((xc_family)f),
                     slot_impl[nslots]->name);
            cases[n++] = (xc_testcase){slot_name[nslots], slot_fn[nslots], slot_skip[nslots]};
            nslots++;
        }
    cases[n++] = (xc_testcase){"every_entry_has_a_case", test_every_entry_has_a_case, NULL};
    cases[n++] = (xc_testcase){"catches_wrong_dedispersers", test_catches_wrong_dedispersers, NULL};
    cases[n++] = (xc_testcase){"catches_screening_searcher", test_catches_screening_searcher, NULL};
    int rc = xc_test_run("conformance", cases, n);
    xc_registry_destroy(builtin);
    return rc;
}
