/* The single-pulse search of a filterbank in gulps (core/sp/xc_spgulp.h,
 * docs/SINGLEPULSE.md "Gulps"): bursts on and across gulp boundaries found
 * once, lists identical to the one-gulp search, S/N bit for bit, on
 * patterned data and on noise whose windows' rms differ from the rows'
 * (the whole rows' statistics gathered first, core/sp/xc_sprms.h), the exact
 * selection itself on non-integer values, gulps below the overlap refused,
 * the same list at any thread count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/plugin/cli_plugin.h"
#include "core/io/xc_filterbank.h"
#include "core/sp/xc_spgulp.h"
#include "core/sp/xc_sprms.h"
#include "optimized/cpu/xc_cpu.h"
#include "optimized/cpu/xc_sp_cpu.h"
#include "reference/xc_sp_ref.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define NSAMP 6000
#define NCH 2

/* Channel 0 (1500 MHz, no delay) repeats a shuffled pattern of 20 values,
 * 3 x 0, 4 x 1, 6 x 2, 4 x 3, 3 x 4 (plus 10), each held two samples (so a
 * range downsampled by 2 sees the same pattern, doubled); channel 1
 * (1400 MHz) is 10 except the bursts.  With blocks of 120 samples (3
 * periods; 60 in the downsampled range) every block's median sits on a
 * plateau of the pattern's middle value with 17 samples of margin either
 * side (8 downsampled), and every window's median deviation on one with 23
 * per block (11), so a burst of 3 samples (6 changed per block at most, with
 * the DM smear) moves neither: every window's rms is the row's, the case
 * where the gulped list must be the whole one byte for byte. */
static const int pattern[20] = {2, 0, 3, 1, 2, 4, 2, 1, 0, 3, 2, 4, 1, 2, 3, 0, 2, 4, 1, 3};
/* Burst starts in channel 1 (trial 0's output sample): on the boundaries of
 * gulps of 500, 1000 and 1500 samples, one straddling 2000 (1999..2001). */
static const int burst_at[] = {500, 1000, 1999, 3000, 4500};
#define NBURST (int)(sizeof burst_at / sizeof *burst_at)

static void write_fil(const char *path, const uint16_t *v)
{
    const xc_geometry g = {NCH, 1500, -100, 1e-3};
    xc_fx_write_fil_u16(path, &g, 8, v, NSAMP);
}

/* The patterned file (noise 0: the pattern) or random 8-bit noise (seed). */
static void make_file(const char *path, uint64_t seed)
{
    static uint16_t v[NSAMP * NCH];
    uint64_t s = seed;
    for (int t = 0; t < NSAMP; t++) {
        v[t * NCH] = (uint16_t)(seed ? 96 + (int)(xc_fx_rng_next(&s) % 16) : 10 + pattern[t / 2 % 20]);
        v[t * NCH + 1] = (uint16_t)(seed ? 96 + (int)(xc_fx_rng_next(&s) % 16) : 10);
    }
    for (int b = 0; b < NBURST; b++)
        for (int u = 0; u < 3; u++)
            v[(burst_at[b] + u) * NCH + 1] += seed ? 90 : 20;
    write_fil(path, v);
}

/* make_file under the test's directory; the path in buf. */
static const char *file_at(char *buf, size_t n, const char *name, uint64_t seed)
{
    snprintf(buf, n, "%s/%s", xc_test_tmpdir(), name);
    make_file(buf, seed);
    return buf;
}

typedef struct {
    xc_dmplan plan;
    xc_spopts o;
    xc_spgulp_args a;
} setup;

static void setup_make(setup *s, const char *dmplan, xc_sp_preset preset, const xc_spsearcher *search)
{
    xc_error err;
    xc_dmplan_init(&s->plan);
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&s->plan, dmplan, "test", &err), XC_OK);
    xc_spopts_default(&s->o, preset);
    s->o.baseline_s = 0.12;   /* 120 samples */
    s->o.nwidths = 4;
    s->o.widths[0] = 1, s->o.widths[1] = 2, s->o.widths[2] = 4, s->o.widths[3] = 8;
    memset(&s->a, 0, sizeof s->a);
    s->a.search = search;
    s->a.opts = &s->o;
    s->a.dd = &xc_dd_cpu;
    s->a.conv = xc_convention_get("crosscheck");
    s->a.plan = &s->plan;
    s->a.input_name = "test.fil";
}

static xc_status run(const char *path, const xc_spgulp_args *a, xc_spcandlist *l, xc_spgulp_info *info,
                     xc_error *err)
{
    xc_fbreader *r;
    xc_spcandlist_init(l);
    xc_status st = xc_fbreader_open(&r, path, NULL, err);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    st = xc_sp_search_fil(r, a, l, info, err);
    xc_fbreader_close(r);
    return st;
}

/* Every field equal, S/N bit for bit (tolerance 0: the same doubles). */
static int same_list(const xc_spcandlist *x, const xc_spcandlist *y, const char *what)
{
    if (x->n != y->n) {
        printf("\n%s: %zu candidates, expected %zu\n", what, x->n, y->n);
        return 0;
    }
    for (size_t i = 0; i < x->n; i++) {
        const xc_spcand *p = &x->c[i], *q = &y->c[i];
        if (p->snr != q->snr || p->sample != q->sample || p->width != q->width || p->dm_index != q->dm_index ||
            p->members != q->members || p->begin != q->begin || p->end != q->end || p->dm_lo != q->dm_lo ||
            p->dm_hi != q->dm_hi) {
            printf("\n%s: candidate %zu: snr %.17g sample %lld width %d trial %d members %lld extent %lld..%lld "
                   "trials %d..%d, expected %.17g %lld %d %d %lld %lld..%lld %d..%d\n",
                   what, i, p->snr, (long long)p->sample, p->width, p->dm_index, (long long)p->members,
                   (long long)p->begin, (long long)p->end, p->dm_lo, p->dm_hi, q->snr, (long long)q->sample, q->width,
                   q->dm_index, (long long)q->members, (long long)q->begin, (long long)q->end, q->dm_lo, q->dm_hi);
            return 0;
        }
    }
    return 1;
}

/* s's search of path in gulps of each size (0: the least, rounded up to a
 * multiple of the plan's downsample lcm), and in the gulps a -max_memory of
 * a third of the whole chooses, against one gulp: identical lists, one
 * candidate per burst (each found once). */
static void against_whole(const char *path, setup *s, const size_t *gulps, size_t ng, size_t lcm, const char *what,
                          int noise)
{
    xc_spcandlist whole, l;
    xc_spgulp_info info;
    xc_error err;
    s->a.gulp = 0;
    s->a.max_memory = 0;
    CU_ASSERT_EQUAL_FATAL(run(path, &s->a, &whole, &info, &err), XC_OK);
    XC_ASSERT_NEAR((double)info.ngulps, 1, 0);
    XC_ASSERT_NEAR((double)info.rms_passes, 0, 0);   /* one gulp: its own statistics */
    if (noise)
        XC_ASSERT_ABOVE((double)whole.n, NBURST - 0.5);
    else
        XC_ASSERT_NEAR((double)whole.n, NBURST, 0);
    /* the budget: a third of the whole gulp, plus the whole rows' statistics the gulps gather */
    double budget = info.whole / 3 + xc_sprms_bytes(s->o.preset == XC_SP_ASTROACCELERATE ? XC_SP_MEAN_SD
                                                    : XC_SP_MEDIAN_MAD, xc_dmplan_ndm(&s->plan));
    size_t least = ((size_t)info.max_delay + info.widest + lcm - 1) / lcm * lcm;
    for (size_t g = 0; g <= ng; g++) {
        s->a.gulp = g == ng ? 0 : gulps[g] ? gulps[g] : least;
        s->a.max_memory = g == ng ? budget : 0;
        xc_status st = run(path, &s->a, &l, &info, &err);
        char name[128];
        snprintf(name, sizeof name, "%s, gulp %zu", what, info.gulp);
        if (st)
            printf("\n%s: %s\n", name, err.msg);
        CU_ASSERT_EQUAL(st, XC_OK);
        if (g == ng) {
            CU_ASSERT(info.ngulps > 1);
            XC_ASSERT_BELOW(info.bytes, budget);
        } else {
            size_t want = s->a.gulp / lcm * lcm;
            XC_ASSERT_NEAR((double)info.gulp, (double)(want < info.total ? want : info.total), 0);
        }
        XC_ASSERT_NEAR((double)info.ngulps, ceil((double)info.total / (double)info.gulp), 0);
        if (info.ngulps > 1)
            XC_ASSERT_ABOVE((double)info.rms_passes, 0.5);   /* the whole rows' statistics gathered first */
        CU_ASSERT(same_list(&l, &whole, name));
        xc_spcandlist_free(&l);
    }
    xc_spcandlist_free(&whole);
}

/* Gulps of many sizes, among them the boundaries on the bursts (500, 1000,
 * 1500), the least allowed, an awkward one (1234) and one past the file, for two presets and both
 * searchers; then a plan of two ranges (downsample 1 and 2: the second's
 * windows are narrower than the dedispersed gulp, views with a stride) in
 * gulps of the least, 500, 998 and 1235 (rounded down to 1234). */
XC_TEST(test_gulps_identical, "gulps_identical")
{
    char path[1024];
    file_at(path, sizeof path, "pattern.fil", 0);
    static const size_t gulps[] = {500, 1000, 1500, 0, 1234, 5999};
    static const size_t gulps2[] = {0, 500, 998, 1235};
    const xc_spsearcher *impls[2] = {&xc_sp_cpu, &xc_sp_reference};
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < (p < 2 ? 2 : 1); i++) {
            setup s;
            setup_make(&s, p < 2 ? "0:100:10:1" : "0:50:10:1,50:100:10:2", p == 1 ? XC_SP_PRESTO : XC_SP_HEIMDALL,
                       impls[i]);
            char what[64];
            snprintf(what, sizeof what, "%s, %s%s", impls[i]->impl.name, p == 1 ? "presto" : "heimdall",
                     p == 2 ? ", two ranges" : "");
            if (p < 2)
                against_whole(path, &s, gulps, sizeof gulps / sizeof *gulps, 1, what, 0);
            else
                against_whole(path, &s, gulps2, sizeof gulps2 / sizeof *gulps2, 2, what, 0);
            xc_dmplan_free(&s.plan);
        }
}

/* Random noise, where each window's robust rms differs from its row's: the
 * gulped search takes the whole rows' rms (core/sp/xc_sprms.h), so its list
 * is the whole search's, S/N bit for bit (tolerance 0), for both searchers
 * and the three presets (5 pairings), at threshold 8 (the bursts) and 4 (many noise
 * runs near the threshold, where a window's rms would add and drop
 * candidates), in gulps of 1100 (boundaries clear of the bursts), 997 and
 * those a -max_memory chooses, over a plan of 11 trials and one of two
 * ranges. */
XC_TEST(test_gulps_exact_rms, "gulps_exact_rms")
{
    char path[1024];
    file_at(path, sizeof path, "noise.fil", 7);
    static const size_t gulps[] = {1100, 997};
    static const struct {
        const xc_spsearcher *impl;
        xc_sp_preset preset;
        double threshold;
        int ranges;
    } cases[] = {
        {&xc_sp_cpu, XC_SP_HEIMDALL, 4, 1},       {&xc_sp_cpu, XC_SP_PRESTO, 8, 2},
        {&xc_sp_cpu, XC_SP_ASTROACCELERATE, 4, 1}, {&xc_sp_reference, XC_SP_HEIMDALL, 8, 2},
        {&xc_sp_reference, XC_SP_ASTROACCELERATE, 8, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        setup s;
        setup_make(&s, cases[i].ranges == 1 ? "0:100:10:1" : "0:50:10:1,50:100:10:2", cases[i].preset,
                   cases[i].impl);
        s.o.threshold = cases[i].threshold;
        if (cases[i].preset == XC_SP_ASTROACCELERATE)
            s.o.baseline_s = 0;   /* one block, the mean: the preset refuses -baseline */
        char what[96];
        snprintf(what, sizeof what, "noise, %s, %s, threshold %g, %d range(s)", cases[i].impl->impl.name,
                 xc_sp_preset_name(cases[i].preset), s.o.threshold, cases[i].ranges);
        against_whole(path, &s, gulps, sizeof gulps / sizeof *gulps, (size_t)cases[i].ranges, what, 1);
        xc_dmplan_free(&s.plan);
    }
}

/* The example plugin's single-pulse searcher (examples/plugin-dedisp/sp.c,
 * plugins/libxcsp_ok.so beside the crosscheck binary, built by make). */
static void sp_plugin_path(char *p, size_t n)
{
    snprintf(p, n, "%s", xc_fx_bin());
    char *slash = strrchr(p, '/');
    snprintf(slash ? slash + 1 : p, n - (size_t)(slash ? slash + 1 - p : 0), "plugins/libxcsp_ok.so");
}

static int skip_no_sp_plugin(char *why, size_t n)
{
    char p[4300];
    sp_plugin_path(p, sizeof p);
    if (xc_fx_exists(p))
        return 0;
    snprintf(why, n, "%s not built (make plugins)", p);
    return 1;
}

/* The same exact-gulp cases for a plugin's searcher (plugin ABI 2.2: its
 * descriptor asks for the whole rows' statistics, xcp_spplane.row_s /
 * row_m), each detect in a child process as always: its gulped lists are
 * the whole search's, S/N bit for bit (tolerance 0), for the median and
 * the mean-and-sd presets, at threshold 4 over one range and 8 over two, in
 * gulps of 997 and those a -max_memory chooses. */
XC_TEST_IF(test_gulps_exact_rms_plugin, "gulps_exact_rms_plugin", skip_no_sp_plugin)
{
    char path[1024], so[4300];
    file_at(path, sizeof path, "noise-plugin.fil", 7);
    sp_plugin_path(so, sizeof so);
    xc_registry *reg;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_registry_create(&reg, &err), XC_OK);
    xc_status st = xc_cli_plugin_load(reg, so, &err);
    if (st)
        printf("\n%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    const xc_spsearcher *sp = xc_spsearcher_of(xc_registry_find(reg, XC_FAMILY_SINGLEPULSE, "mysp"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    CU_ASSERT_EQUAL(sp->row_stats, 1);
    static const size_t gulps[] = {997};
    static const struct {
        xc_sp_preset preset;
        double threshold;
        int ranges;
    } cases[] = {{XC_SP_HEIMDALL, 4, 1}, {XC_SP_ASTROACCELERATE, 8, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        setup s;
        setup_make(&s, cases[i].ranges == 1 ? "0:100:10:1" : "0:50:10:1,50:100:10:2", cases[i].preset, sp);
        s.o.threshold = cases[i].threshold;
        if (cases[i].preset == XC_SP_ASTROACCELERATE)
            s.o.baseline_s = 0;
        char what[96];
        snprintf(what, sizeof what, "noise, plugin mysp, %s, threshold %g, %d range(s)",
                 xc_sp_preset_name(cases[i].preset), s.o.threshold, cases[i].ranges);
        against_whole(path, &s, gulps, sizeof gulps / sizeof *gulps, (size_t)cases[i].ranges, what, 1);
        xc_dmplan_free(&s.plan);
    }
    xc_registry_destroy(reg);
}

/* The windows' rms is not the row's on the noise file (else the test above
 * would prove nothing): of the 6 windows of gulps of 1100 at DM 0 (the
 * channels' sum), at least 3 have an rms (xc_sp_row_stats) other than the
 * row's. */
XC_TEST(test_window_rms_differs, "window_rms_differs")
{
    char path[1024];
    file_at(path, sizeof path, "noise2.fil", 7);
    xc_fbreader *r;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, &err), XC_OK);
    static uint16_t v[NSAMP * NCH];
    static float row[NSAMP];
    static double tmp[NSAMP], m[NSAMP];
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_read_u16(r, 0, NSAMP, 0, v, &err), XC_OK);
    xc_fbreader_close(r);
    for (int t = 0; t < NSAMP; t++)
        row[t] = (float)(v[t * NCH] + v[t * NCH + 1]);
    xc_spopts o;
    xc_spopts_default(&o, XC_SP_HEIMDALL);
    o.baseline_s = 0.12;
    xc_spconf c;
    CU_ASSERT_EQUAL_FATAL(xc_spconf_make(&o, 1e-3, &c, &err), XC_OK);
    double rms, rms_j;
    size_t a, e, differ = 0;
    xc_sp_row_stats(row, NSAMP, &c, m, &rms, tmp);
    for (size_t lo = 0; lo < NSAMP; lo += 1100) {
        xc_spgulp_window(NSAMP, c.block, 8, lo, lo + 1100 < NSAMP ? lo + 1100 : NSAMP, &a, &e);
        xc_sp_row_stats(row + a, e - a, &c, m, &rms_j, tmp);
        differ += rms_j != rms;
    }
    XC_ASSERT_ABOVE((double)differ, 2.5);   /* of 6 windows, at least 3 */
}

/* The whole rows' statistics (core/sp/xc_sprms.h) on non-integer values fed
 * a window at a time (gulps of 700, windows of whole blocks of 100): s, and
 * for the mean-and-sd statistic m, are xc_sp_row_stats's on the whole row
 * to the bit (tolerance 0: the same doubles), for odd and even n, a row
 * two-thirds ties and a row of 300 000 samples whose gather needs more than
 * two passes. */
XC_TEST(test_sprms_exact, "sprms_exact")
{
    static const size_t ns[] = {999, 1000, 3001, 300000};
    enum { NT = 4, L = 100 };
    static float x[NT][300000];
    static double tmp[300000], m[3000], mw[3000], tw[300000];
    uint64_t seed = 99;
    for (int i = 0; i < NT; i++)
        for (size_t t = 0; t < ns[i]; t++) {
            double u = (double)(xc_fx_rng_next(&seed) >> 11) * 0x1p-53;
            x[i][t] = i == 2 && t % 3 ? 5.25f : (float)(100.0 + 37.0 * sin(1e-3 * (double)t) + 8.0 * u);
        }
    for (int stat = 0; stat < 2; stat++) {
        xc_sprms *r;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_sprms_create(&r, (xc_sp_stat)stat, ns, NT, &err), XC_OK);
        while (!xc_sprms_done(r) && xc_sprms_passes(r) < 10) {
            xc_sprms_begin(r);
            for (int i = 0; i < NT; i++)
                for (size_t lo = 0; lo < ns[i]; lo += 700) {
                    size_t hi = lo + 700 < ns[i] ? lo + 700 : ns[i], a, e, Lw = stat ? 1 : L;
                    xc_spgulp_window(ns[i], Lw, 1, lo, hi, &a, &e);
                    xc_sprms_add(r, (size_t)i, x[i] + a, e - a, Lw, lo - a, hi - a, mw, tw);
                }
            CU_ASSERT_EQUAL_FATAL(xc_sprms_end(r, &err), XC_OK);
        }
        CU_ASSERT_FATAL(xc_sprms_done(r));
        if (!stat)
            XC_ASSERT_ABOVE((double)xc_sprms_passes(r), 2.5);
        xc_spconf c = {.stat = (xc_sp_stat)stat, .block = stat ? SIZE_MAX : L, .nwidths = 1, .widths = {1}};
        for (int i = 0; i < NT; i++) {
            double s;
            xc_sp_row_stats(x[i], ns[i], &c, m, &s, tmp);
            XC_ASSERT_NEAR(xc_sprms_s(r)[i], s, 0);
            if (stat)
                XC_ASSERT_NEAR(xc_sprms_m(r)[i], m[0], 0);
        }
        xc_sprms_destroy(r);
    }
}

/* The windows as docs/SINGLEPULSE.md states them (n 1000, L 60, w 8). */
XC_TEST(test_gulp_windows, "gulp_windows")
{
    size_t a, e;
    xc_spgulp_window(1000, 60, 8, 0, 300, &a, &e);   /* 300 + 16 = 316 -> block end 360 */
    XC_ASSERT_NEAR((double)a, 0, 0);
    XC_ASSERT_NEAR((double)e, 360, 0);
    xc_spgulp_window(1000, 60, 8, 300, 600, &a, &e);   /* 299 is in block 240..299; 616 -> 660 */
    XC_ASSERT_NEAR((double)a, 240, 0);
    XC_ASSERT_NEAR((double)e, 660, 0);
    xc_spgulp_window(1000, 60, 8, 600, 900, &a, &e);   /* 916 -> 960, the last block 900..999: to the end */
    XC_ASSERT_NEAR((double)a, 540, 0);
    XC_ASSERT_NEAR((double)e, 1000, 0);
    xc_spgulp_window(1000, 60, 8, 961, 1000, &a, &e);   /* 960 lies in the last block: its start */
    XC_ASSERT_NEAR((double)a, 900, 0);
    XC_ASSERT_NEAR((double)e, 1000, 0);
    xc_spgulp_window(1000, 1, 8, 300, 600, &a, &e);   /* no blocks (mean and sd): one sample before, 2w after */
    XC_ASSERT_NEAR((double)a, 299, 0);
    XC_ASSERT_NEAR((double)e, 616, 0);
}

/* A gulp below the largest delay plus the widest box is refused naming
 * -gulp and the least; so is a -max_memory that leaves no such gulp. */
XC_TEST(test_gulp_too_small, "gulp_too_small")
{
    char path[1024];
    file_at(path, sizeof path, "small.fil", 0);
    setup s;
    setup_make(&s, "0:100:10:1", XC_SP_HEIMDALL, &xc_sp_cpu);
    xc_spcandlist l;
    xc_spgulp_info info;
    xc_error err;
    s.a.gulp = 5;
    CU_ASSERT_EQUAL(run(path, &s.a, &l, &info, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-gulp 5: shorter than the plan's largest delay"));
    CU_ASSERT_EQUAL(l.n, 0);
    xc_spcandlist_free(&l);
    s.a.gulp = 0;
    s.a.max_memory = 4096;
    CU_ASSERT_EQUAL(run(path, &s.a, &l, &info, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-max_memory"));
    xc_spcandlist_free(&l);
    xc_dmplan_free(&s.plan);
}

/* Threads 1 and 3 (searcher and dedisperser), gulps of 997: the same list. */
XC_TEST(test_gulp_threads, "gulp_threads")
{
    char path[1024];
    file_at(path, sizeof path, "threads.fil", 11);
    xc_spcandlist l[2];
    for (int i = 0; i < 2; i++) {
        setup s;
        setup_make(&s, "0:100:10:1", XC_SP_HEIMDALL, &xc_sp_cpu);
        s.o.threads = s.a.threads = i ? 3 : 1;
        s.a.gulp = 997;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(run(path, &s.a, &l[i], NULL, &err), XC_OK);
        xc_dmplan_free(&s.plan);
    }
    CU_ASSERT(l[0].n >= (size_t)NBURST);
    CU_ASSERT(same_list(&l[1], &l[0], "3 threads against 1"));
    xc_spcandlist_free(&l[0]);
    xc_spcandlist_free(&l[1]);
}

/* The command: -gulp below the overlap is exit 2 naming it, nothing written;
 * a gulped run shows its meter (each pass of the rms, then the search) and
 * writes the one-gulp run's bytes on the patterned file. */
XC_TEST_IF(test_cli_gulp, "cli_gulp", xc_fx_skip_no_bin)
{
    const char *dir = xc_test_tmpdir();
    char fil[1024], csv[1100], one[1100], a[8192], b[8192];
    static char err[16384];
    snprintf(fil, sizeof fil, "%s/cli.fil", dir);
    make_file(fil, 0);
    snprintf(csv, sizeof csv, "%s/gulped.csv", dir);
    snprintf(one, sizeof one, "%s/one.csv", dir);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -dmplan 0:100:10:1 -widths 1,2,4,8 "
                                   "-baseline 0.12 -gulp 20 -o '%s'", fil, csv), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-gulp 20"));
    FILE *left = fopen(csv, "rb");
    CU_ASSERT_PTR_NULL(left);
    if (left)
        fclose(left);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -dmplan 0:100:10:1 -widths 1,2,4,8 "
                                   "-baseline 0.12 -gulp 777 -progress -o '%s'", fil, csv), 0);
    if (!strstr(err, "(8 gulps of 777 samples)"))
        printf("\nstderr: %s\n", err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "singlepulse rms, pass 1: 100% (5975/5975"));   /* the meter, per pass */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "singlepulse: 100% (5975/5975"));   /* ... and per gulp */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "(8 gulps of 777 samples) after "));
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "singlepulse -i '%s' -dmplan 0:100:10:1 -widths 1,2,4,8 "
                                   "-baseline 0.12 -o '%s'", fil, one), 0);
    xc_fx_slurp_into(csv, a, sizeof a);
    xc_fx_slurp_into(one, b, sizeof b);
    CU_ASSERT(strlen(b) > 70);
    CU_ASSERT_STRING_EQUAL(a, b);
}

XC_TEST_MAIN("spgulp")
