/* test_psearch.c: the periodicity-search contract (core/search/xc_psearch.h)
 * over both families:
 *  - Pulscan: one search of three configurations gives xc_pulscan_run's
 *    list of each, bit for bit, spectrum after spectrum;
 *  - accel: one search of four configurations gives xc_accel_run_sweep's
 *    lists bit for bit, and one of a single configuration xc_accel_run's
 *    (preset exact and presto): the study keeps such searches from pulsar
 *    to pulsar where it ran them afresh before;
 *  - every registered and available searcher of either family (the GPU
 *    ones where there is a device): one configuration through the contract
 *    gives the family's one-off search's list bit for bit;
 *  - which configurations are searched as one (xc_psearch_joint), the
 *    options every family has (zmax, numharm, sigma, threads);
 *  - refused by name: a dedisperser, options of another family, no
 *    configuration, a spectrum of another length;
 *  - planted: accel lists handed out in another order than the
 *    configurations' are caught by the same comparison;
 *  - progress (xc_psearch_progress): the reference and cpu searchers of both
 *    families report their label, work rising to the total and the total
 *    at the end, with lists bit for bit those of a search nobody listens to;
 *  - refit (xc_psearch_refit, a study's next pulsar of another length):
 *    every available searcher's search moved to another length and T and
 *    back gives a fresh search's lists bit for bit; with a gate of one slot
 *    (xc_psearch_gate), a searcher that takes it (the GPU accel one) takes
 *    and gives it once per search and keeps its plane's memory there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/conform/xc_conform_accel.h"
#include "core/search/xc_psearch.h"
#include "optimized/cpu/xc_accel_cpu.h"
#include "optimized/cpu/xc_cpu.h"
#include "optimized/xc_impls.h"
#include "reference/xc_accel_ref.h"
#include "reference/xc_reference.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define NCFG 4

/* Same length and every candidate equal, bit for bit (silently: the planted
 * case expects differences). */
static int equal(const xc_candlist *a, const xc_candlist *b)
{
    return a->n == b->n && (!a->n || !memcmp(a->c, b->c, a->n * sizeof *a->c));
}

static const double tones[][3] = {{701.3, 4, 40}, {1402.6, 8, 40}, {1511.65, -13, 45}, {2333.0, 0, 25}};

static void lists_init(xc_candlist *l, size_t n)
{
    for (size_t c = 0; c < n; c++)
        xc_candlist_init(&l[c]);
}

static void lists_free(xc_candlist *l, size_t n)
{
    for (size_t c = 0; c < n; c++)
        xc_candlist_free(&l[c]);
}

static void ps_configs(xc_psearch_opts *o, size_t n)
{
    static const int zh[3][2] = {{0, 1}, {20, 4}, {8, 2}};
    for (size_t c = 0; c < n; c++) {
        xc_psearch_opts_default(&o[c], XC_FAMILY_PULSCAN);
        xc_psearch_opts_set(&o[c], zh[c][0], zh[c][1], 3);
        o[c].ps.normwidth = 500;
        xc_psearch_opts_threads(&o[c], 2);
    }
}

static void ac_configs(xc_psearch_opts *o, size_t n)
{
    static const int zh[NCFG][2] = {{0, 1}, {20, 4}, {6, 2}, {20, 1}};
    for (size_t c = 0; c < n; c++) {
        xc_psearch_opts_default(&o[c], XC_FAMILY_ACCEL);
        xc_psearch_opts_set(&o[c], zh[c][0], zh[c][1], 3);
        o[c].ac.rlo = 20;
        o[c].ac.normwidth = 500;
        xc_psearch_opts_threads(&o[c], 2);
    }
}

XC_TEST(test_pulscan_configs, "pulscan_configs")
{
    xc_error err;
    xc_spectrum sp[2];
    for (int k = 0; k < 2; k++)
        CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp[k], 3001, 31 + (uint64_t)k, tones, 4 - k, &err), XC_OK);
    xc_psearch_opts o[3];
    ps_configs(o, 3);
    xc_psearch *s = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_psearch_open(&s, &xc_ps_cpu.impl, sp[0].nbins, sp[0].T, o, 3, &err), XC_OK);
    int failed = 0;
    size_t total = 0;
    for (int k = 0; k < 2; k++) {
        CU_ASSERT(xc_psearch_fits(s, &sp[k]));
        xc_candlist got[3], want[3];
        lists_init(got, 3);
        lists_init(want, 3);
        CU_ASSERT_EQUAL_FATAL(xc_psearch_run(s, &sp[k], got, &err), XC_OK);
        for (int c = 0; c < 3; c++) {
            CU_ASSERT_EQUAL_FATAL(xc_pulscan_run(&xc_ps_cpu, &sp[k], &o[c].ps, &want[c], &err), XC_OK);
            char what[64];
            snprintf(what, sizeof what, "spectrum %d, configuration %d", k, c);
            failed += !xc_fx_same_bits(&got[c], &want[c], what);
            total += got[c].n;
        }
        lists_free(got, 3);
        lists_free(want, 3);
    }
    printf("\n  cpu, 3 configurations x 2 spectra: %zu candidates, %d lists differ (tolerance: bit for bit)", total,
           failed);
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT(total > 0);
    xc_psearch_close(s);
    for (int k = 0; k < 2; k++)
        xc_spectrum_free(&sp[k]);
}

/* The lists of one accel search of n configurations at o against
 * xc_accel_run_sweep (n > 1) or xc_accel_run (n = 1); order[c] names the
 * list handed out as configuration c (the planted case swaps two). */
static int accel_vs_family(const xc_accel_searcher *as, const xc_spectrum *sp, const xc_psearch_opts *o, size_t n,
                           const size_t *order, int quiet, size_t *total)
{
    xc_error err;
    xc_candlist got[NCFG], want[NCFG];
    xc_accel_opts ao[NCFG];
    lists_init(got, n);
    lists_init(want, n);
    for (size_t c = 0; c < n; c++)
        ao[c] = o[c].ac;
    CU_ASSERT_EQUAL_FATAL(xc_psearch_once(&as->impl, sp, o, n, got, &err), XC_OK);
    xc_status st = n > 1 ? xc_accel_run_sweep(as, sp, ao, n, want, &err) : xc_accel_run(as, sp, &ao[0], &want[0], &err);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    int failed = 0;
    for (size_t c = 0; c < n; c++) {
        char what[96];
        snprintf(what, sizeof what, "%s, %zu configuration(s), #%zu", as->impl.name, n, c);
        failed += quiet ? !equal(&got[order[c]], &want[c]) : !xc_fx_same_bits(&got[order[c]], &want[c], what);
        *total += want[c].n;
    }
    lists_free(got, n);
    lists_free(want, n);
    return failed;
}

XC_TEST(test_accel_configs, "accel_configs")
{
    xc_error err;
    xc_spectrum sp;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 3001, 9, tones, 4, &err), XC_OK);
    xc_psearch_opts o[NCFG];
    ac_configs(o, NCFG);
    const size_t same[NCFG] = {0, 1, 2, 3}, swapped[NCFG] = {1, 0, 2, 3};
    size_t total = 0;
    int planted = accel_vs_family(&xc_accel_cpu, &sp, o, NCFG, swapped, 1, &total);
    printf("\n  planted (lists 0 and 1 swapped): %d lists differ (expected 2)", planted);
    CU_ASSERT_EQUAL(planted, 2);
    total = 0;
    int failed = accel_vs_family(&xc_accel_cpu, &sp, o, NCFG, same, 0, &total);
    failed += accel_vs_family(&xc_accel_reference, &sp, o, NCFG, same, 0, &total);
    for (size_t c = 0; c < NCFG; c++)
        failed += accel_vs_family(&xc_accel_cpu, &sp, &o[c], 1, same, 0, &total);
    o[1].ac.preset = XC_ACCEL_PRESTO;
    failed += accel_vs_family(&xc_accel_cpu, &sp, &o[1], 1, same, 0, &total);
    printf("\n  a sweep of %d, each alone, preset presto alone: %zu candidates, %d lists differ (tolerance: bit for "
           "bit)",
           NCFG, total, failed);
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT(total > 0);
    xc_spectrum_free(&sp);
}

XC_TEST(test_every_searcher, "every_searcher")
{
    xc_error err;
    xc_registry *reg = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &err), XC_OK);
    xc_spectrum sp;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 3001, 9, tones, 4, &err), XC_OK);
    xc_psearch_opts o[2];
    ps_configs(&o[0], 1);
    ac_configs(&o[1], 1);
    const size_t same[1] = {0};
    int failed = 0, searched = 0;
    size_t total = 0;
    for (int f = 0; f < 2; f++) {
        xc_family fam = o[f].family;
        for (size_t i = 0; i < xc_registry_count(reg, fam); i++) {
            const xc_impl *im = xc_registry_at(reg, fam, i);
            char why[256];
            if (!xc_impl_available(im, why, sizeof why))
                continue;
            searched++;
            if (fam == XC_FAMILY_ACCEL) {
                failed += accel_vs_family(xc_accel_searcher_of(im), &sp, &o[f], 1, same, 0, &total);
                continue;
            }
            xc_candlist got, want;
            xc_candlist_init(&got);
            xc_candlist_init(&want);
            CU_ASSERT_EQUAL_FATAL(xc_psearch_once(im, &sp, &o[f], 1, &got, &err), XC_OK);
            CU_ASSERT_EQUAL_FATAL(xc_pulscan_run(xc_searcher_of(im), &sp, &o[f].ps, &want, &err), XC_OK);
            failed += !xc_fx_same_bits(&got, &want, im->name);
            total += want.n;
            xc_candlist_free(&got);
            xc_candlist_free(&want);
        }
    }
    printf("\n  %d available searchers: %zu candidates, %d lists differ (tolerance: bit for bit)", searched, total,
           failed);
    CU_ASSERT_EQUAL(failed, 0);
    xc_spectrum_free(&sp);
    xc_registry_destroy(reg);
}

XC_TEST(test_options_joint, "options_joint")
{
    /* each family's defaults (crosscheck accel's, crosscheck pulscan's), then
     * the options every family has, set through the contract */
    const struct {
        xc_family f;
        int zmax, numharm;
    } fam[2] = {{XC_FAMILY_ACCEL, 200, 8}, {XC_FAMILY_PULSCAN, 200, 1}};
    for (int k = 0; k < 2; k++) {
        xc_psearch_opts o;
        int z, h;
        double s;
        xc_psearch_opts_default(&o, fam[k].f);
        xc_psearch_opts_get(&o, &z, &h, &s);
        CU_ASSERT(z == fam[k].zmax && h == fam[k].numharm && s == 2.0);
        xc_psearch_opts_set(&o, 50 + k, 4 - k, 5.5 + k);
        xc_psearch_opts_threads(&o, 3 + k);
        int ok = k ? o.ps.zmax == 51 && o.ps.numharm == 3 && o.ps.sigma == 6.5 && o.ps.threads == 4
                   : o.ac.zmax == 50 && o.ac.numharm == 4 && o.ac.sigma == 5.5 && o.ac.threads == 3;
        CU_ASSERT(ok);
    }
    xc_psearch_opts o;
    xc_error err;
    xc_psearch_opts_default(&o, XC_FAMILY_PULSCAN);
    o.ps.numharm = 9;
    CU_ASSERT_EQUAL(xc_psearch_opts_check(&o, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-numharm 9"));
    CU_ASSERT(xc_psearch_joint(&xc_accel_cpu.impl, 2));
    CU_ASSERT(!xc_psearch_joint(&xc_accel_cpu.impl, 1));
    CU_ASSERT(!xc_psearch_joint(&xc_ps_cpu.impl, 16));
    CU_ASSERT(!xc_psearch_joint(&xc_dd_reference.impl, 16));
}

XC_TEST(test_refusals, "refusals")
{
    xc_error err;
    xc_spectrum sp, other;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 3001, 9, tones, 4, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&other, 3002, 9, tones, 4, &err), XC_OK);
    xc_psearch_opts ps[1], ac[1];
    ps_configs(ps, 1);
    ac_configs(ac, 1);
    xc_psearch *s = NULL;
    CU_ASSERT_EQUAL(xc_psearch_open(&s, &xc_dd_reference.impl, sp.nbins, sp.T, ps, 1, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a periodicity searcher"));
    CU_ASSERT_EQUAL(xc_psearch_open(&s, &xc_ps_cpu.impl, sp.nbins, sp.T, ac, 1, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "another family"));
    CU_ASSERT_EQUAL(xc_psearch_open(&s, &xc_accel_cpu.impl, sp.nbins, sp.T, ac, 0, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no configurations"));
    CU_ASSERT_PTR_NULL(s);
    const xc_impl *impl[2] = {&xc_ps_cpu.impl, &xc_accel_cpu.impl};
    const xc_psearch_opts *opts[2] = {ps, ac};
    for (int f = 0; f < 2; f++) {
        CU_ASSERT_EQUAL_FATAL(xc_psearch_open(&s, impl[f], sp.nbins, sp.T, opts[f], 1, &err), XC_OK);
        CU_ASSERT(!xc_psearch_fits(s, &other));
        xc_candlist l;
        xc_candlist_init(&l);
        CU_ASSERT_EQUAL(xc_psearch_run(s, &other, &l, &err), XC_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "3002"));
        xc_candlist_free(&l);
        xc_psearch_close(s);
    }
    xc_spectrum_free(&sp);
    xc_spectrum_free(&other);
}

/* What a listener heard. */
typedef struct {
    const char *label;
    uint64_t first, last, total;
    int calls, falls, over, totals;   /* reports; done falling; done above total; totals that changed */
} heard;

static void listen(void *ctx, const char *label, uint64_t done, uint64_t total)
{
    heard *h = ctx;
    if (h->calls && done < h->last)
        h->falls++;
    if (h->calls && total != h->total)
        h->totals++;
    if (!h->calls)
        h->first = done;
    h->over += done > total;
    h->label = label;
    h->last = done;
    h->total = total;
    h->calls++;
}

XC_TEST(test_progress, "progress: reported from start to total; the lists unchanged")
{
    xc_error err;
    xc_spectrum sp;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 3001, 9, tones, 4, &err), XC_OK);
    xc_psearch_opts o[2];
    ps_configs(&o[0], 1);
    ac_configs(&o[1], 1);
    xc_psearch_opts_set(&o[0], 20, 4, 3);
    o[0].ps.chunkwidth = 256;   /* several R-blocks for the cpu searcher to count */
    const xc_impl *impls[4] = {&xc_ps_reference.impl, &xc_ps_cpu.impl, &xc_accel_reference.impl,
                               &xc_accel_cpu.impl};
    for (int i = 0; i < 4; i++) {
        const xc_psearch_opts *oi = &o[i / 2];
        xc_candlist got, want;
        xc_candlist_init(&got);
        xc_candlist_init(&want);
        heard h = {0};
        xc_psearch *s = NULL;
        CU_ASSERT_EQUAL_FATAL(xc_psearch_open(&s, impls[i], sp.nbins, sp.T, oi, 1, &err), XC_OK);
        xc_psearch_progress(s, (xc_progress_cb){listen, &h});
        CU_ASSERT_EQUAL_FATAL(xc_psearch_run(s, &sp, &got, &err), XC_OK);
        xc_psearch_close(s);
        CU_ASSERT_EQUAL_FATAL(xc_psearch_once(impls[i], &sp, oi, 1, &want, &err), XC_OK);
        printf("\n  %s %s: %d reports, %llu..%llu of %llu", impls[i]->name, h.label ? h.label : "-", h.calls,
               (unsigned long long)h.first, (unsigned long long)h.last, (unsigned long long)h.total);
        /* Pulscan: 11 widths x 4 stages (reference), 4 stages' R-blocks of
         * 256 (cpu); accel: the start and its one block of 65536 half-bins */
        CU_ASSERT(h.calls >= (i < 2 ? 8 : 2));
        CU_ASSERT_STRING_EQUAL(h.label ? h.label : "", i < 2 ? "pulscan" : "accel");
        CU_ASSERT(h.total > 1);
        XC_ASSERT_NEAR((double)h.last, (double)h.total, 0);   /* it ends at its total */
        CU_ASSERT(h.first < h.total);
        CU_ASSERT_EQUAL(h.falls, 0);
        CU_ASSERT_EQUAL(h.over, 0);
        CU_ASSERT_EQUAL(h.totals, 0);
        CU_ASSERT(xc_fx_same_bits(&got, &want, impls[i]->name));
        xc_candlist_free(&got);
        xc_candlist_free(&want);
    }
    xc_spectrum_free(&sp);
}

/* A gate of one slot that counts its takes and gives. */
typedef struct {
    xc_devslot slot;
    int taken, given, held;
} one_slot;

static xc_devslot *slot_take(void *ctx)
{
    one_slot *g = ctx;
    CU_ASSERT(!g->held);
    g->held = 1;
    g->taken++;
    return &g->slot;
}

static void slot_give(void *ctx, xc_devslot *s)
{
    one_slot *g = ctx;
    CU_ASSERT(g->held && s == &g->slot);
    g->held = 0;
    g->given++;
}

/* s's lists for sp against a fresh search's; returns the lists that differ. */
static int refit_vs_fresh(xc_psearch *s, const xc_impl *im, const xc_spectrum *sp, const xc_psearch_opts *o,
                          size_t n, size_t *total)
{
    xc_error err;
    xc_candlist got[NCFG], want[NCFG];
    lists_init(got, n);
    lists_init(want, n);
    CU_ASSERT_EQUAL_FATAL(xc_psearch_refit(s, sp, &err), XC_OK);
    CU_ASSERT(xc_psearch_fits(s, sp));
    CU_ASSERT_EQUAL_FATAL(xc_psearch_run(s, sp, got, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_psearch_once(im, sp, o, n, want, &err), XC_OK);
    int failed = 0;
    for (size_t c = 0; c < n; c++) {
        char what[96];
        snprintf(what, sizeof what, "%s (%s), %zu bins, configuration %zu", im->name,
                 xc_family_name(im->family), sp->nbins, c);
        failed += !xc_fx_same_bits(&got[c], &want[c], what);
        *total += want[c].n;
    }
    lists_free(got, n);
    lists_free(want, n);
    return failed;
}

XC_TEST(test_refit, "refit: moved to another length and back, the lists of fresh searches; gate taken per search")
{
    xc_error err;
    xc_registry *reg = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &err), XC_OK);
    xc_spectrum sp[2];
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp[0], 3001, 9, tones, 4, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp[1], 3203, 10, tones, 4, &err), XC_OK);
    CU_ASSERT_FATAL(sp[0].T != sp[1].T);
    xc_psearch_opts o[2][NCFG];
    ps_configs(o[0], 3);
    ac_configs(o[1], NCFG);
    const size_t n[2] = {3, NCFG};
    int failed = 0, searched = 0, gated = 0;
    size_t total = 0;
    for (int f = 0; f < 2; f++) {
        xc_family fam = o[f][0].family;
        for (size_t i = 0; i < xc_registry_count(reg, fam); i++) {
            const xc_impl *im = xc_registry_at(reg, fam, i);
            char why[256];
            if (!xc_impl_available(im, why, sizeof why))
                continue;
            searched++;
            xc_psearch *s = NULL;
            CU_ASSERT_EQUAL_FATAL(xc_psearch_open(&s, im, sp[0].nbins, sp[0].T, o[f], n[f], &err), XC_OK);
            one_slot g = {{0}, 0, 0, 0};
            const xc_devgate dg = {&g, slot_take, slot_give};
            const int takes = xc_psearch_gate(s, &dg);
            gated += takes;
            CU_ASSERT_EQUAL(takes, fam == XC_FAMILY_ACCEL && xc_accel_searcher_of(im)->takes_gate);
            for (int k = 1; k <= 3; k++)
                failed += refit_vs_fresh(s, im, &sp[k % 2], o[f], n[f], &total);
            const void *kept = g.slot.mem;
            failed += refit_vs_fresh(s, im, &sp[1], o[f], n[f], &total);
            if (takes) {
                CU_ASSERT(g.taken >= 4 && g.taken == g.given && !g.held);
                CU_ASSERT(kept != NULL && g.slot.mem == kept);   /* the slot's memory reused */
            } else {
                CU_ASSERT_EQUAL(g.taken, 0);
            }
            if (g.slot.mem)
                g.slot.release(g.slot.mem);
            xc_psearch_close(s);
        }
    }
    printf("\n  %d available searchers (%d taking the gate): %zu candidates, %d lists differ from fresh searches "
           "(tolerance: bit for bit)", searched, gated, total, failed);
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT(total > 0);
    for (int k = 0; k < 2; k++)
        xc_spectrum_free(&sp[k]);
    xc_registry_destroy(reg);
}

XC_TEST_MAIN("psearch")
