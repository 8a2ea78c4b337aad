/* The GPU dedisperser against the reference: bit for bit for integer input
 * (every nbits, every convention preset, awkward channel counts including the
 * sizes AstroAccelerate gets wrong, scrunched ranges, kill masks, odd
 * tunables, forced time chunks, the direct fallback kernel, autotuning, the
 * 64-bit-sum kernels and every narrow-sum flush), float input within its
 * stated bound, clean errors, and plan and execute: gulps of different sizes
 * through one state, each bit for bit the reference's, and the jobs a state
 * refuses.  Every case is skipped (never passed) in a build without CUDA or
 * on a machine without a usable device. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/xc_nbits.h"
#include "optimized/gpu/gpu_hostcopy.h"
#include "optimized/gpu/xc_gpu.h"
#include "reference/xc_reference.h"
#include "core/dedisp/xc_dedisperse.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- helpers ------------------------------------------------------------- */

static void run_ref(const xc_ddjob *job, xc_plane *pl)
{
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(pl, job, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_dedisperse_reference(job, pl, &err), XC_OK);
}

/* A freshly allocated plane poisoned with NaN, so that an output the kernels
 * never write cannot match the reference. */
static void alloc_poisoned(const xc_ddjob *job, xc_plane *pl)
{
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(pl, job, &err), XC_OK);
    for (int k = 0; k < pl->nranges; k++)
        memset(pl->r[k].data, 0xFF, pl->r[k].ndm * pl->r[k].nsamp * sizeof(float));
}

/* Runs the GPU into a fresh poisoned plane. */
static xc_status gpu_run(const xc_ddjob *job, xc_plane *pl, xc_gpu_ddinfo *info, xc_error *err)
{
    alloc_poisoned(job, pl);
#ifdef XC_HAVE_CUDA
    return xc_dedisperse_gpu_info(job, pl, info, err);
#else
    (void)info;
    return xc_error_set(err, XC_EUNAVAIL, "built without CUDA (CUDA=0)");
#endif
}

/* Runs job through a plan of entry d (the plan path: the stats call
 * reports what ran) into a fresh poisoned plane; its stats in ds. */
static xc_status plan_run(const xc_dedisperser *d, const xc_ddjob *job, xc_plane *pl, xc_ddstats *ds, xc_error *err)
{
    alloc_poisoned(job, pl);
    xc_ddplan *p = NULL;
    xc_status st = xc_ddplan_create_tuned(&p, d, &job->geom, job->in->nbits, job->plan, job->conv, job->killmask,
                                          &job->opts, &job->tune, err);
    if (!st)
        st = xc_ddplan_execute(p, job->in, pl, err);
    if (!st)
        st = xc_ddplan_stats(p, ds);
    xc_ddplan_destroy(p);
    return st;
}

/* The gpu entry, or in a build without CUDA one that says so. */
#ifdef XC_HAVE_CUDA
#define GPU_ENTRY (&xc_dd_gpu)
#else
static xc_status no_gpu_run(const xc_dedisperser *self, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    (void)self, (void)job, (void)out;
    return xc_error_set(err, XC_EUNAVAIL, "built without CUDA (CUDA=0)");
}
static const xc_dedisperser no_gpu = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "gpu", .tol = {XC_TOL_ROUNDING, 1.0}, .caps = XC_CAP_DEVICE,
             .desc = "built without CUDA"},
    .run = no_gpu_run};
#define GPU_ENTRY (&no_gpu)
#endif

/* The state API (plan and execute); in a build without CUDA, XC_EUNAVAIL
 * (the cases that use it are skipped there). */
static xc_status state_create(xc_gpu_ddstate **st, xc_error *err)
{
#ifdef XC_HAVE_CUDA
    return xc_gpu_ddstate_create(st, err);
#else
    *st = NULL;
    return xc_error_set(err, XC_EUNAVAIL, "built without CUDA (CUDA=0)");
#endif
}

static void state_destroy(xc_gpu_ddstate *st)
{
#ifdef XC_HAVE_CUDA
    xc_gpu_ddstate_destroy(st);
#else
    (void)st;
#endif
}

/* Runs job through st into a fresh poisoned plane. */
static xc_status state_run(xc_gpu_ddstate *st, const xc_ddjob *job, xc_plane *pl, xc_gpu_ddinfo *info,
                           xc_error *err)
{
    alloc_poisoned(job, pl);
#ifdef XC_HAVE_CUDA
    return xc_dedisperse_gpu_exec(st, job, pl, info, err);
#else
    (void)st;
    (void)info;
    return xc_error_set(err, XC_EUNAVAIL, "built without CUDA (CUDA=0)");
#endif
}

/* One GPU setting: the xc_ddtune gpu_* fields and the info hooks. */
typedef struct {
    int spt, dy, spb, cs;
    int autotune, force_direct, test_wide, test_period;
    size_t max_bytes;
    int serial;   /* tune.gpu_serial: one launch at a time instead of the two-stream pipeline */
} setting;

static const setting S_DEFAULT = {0, 0, 0, 0, 0, 0, 0, 0, 0};

static void apply(xc_ddjob *job, xc_gpu_ddinfo *info, const setting *s)
{
    job->tune.gpu_samps_per_thread = s->spt;
    job->tune.gpu_dms_per_block = s->dy;
    job->tune.gpu_samps_per_block = s->spb;
    job->tune.gpu_chans_per_stage = s->cs;
    job->tune.gpu_autotune = s->autotune;
    job->tune.gpu_max_bytes = s->max_bytes;
    job->tune.gpu_serial = s->serial;
    memset(info, 0, sizeof *info);
    info->force_direct = s->force_direct;
    info->test_wide = s->test_wide;
    info->test_period = s->test_period;
}

/* Checks the effective settings the run reports: what ran is one of the
 * kernels ("none" only where there was nothing to add), and a shared-memory
 * block has at most 512 threads. */
static int info_sane(const xc_gpu_ddinfo *info, const xc_ddjob *job, const char *what)
{
    int bad = 0, nuse = 0;
    for (int c = 0; c < job->in->nchans; c++)
        nuse += !job->killmask || job->killmask[c];
    CU_ASSERT_EQUAL(info->nranges, job->plan->nranges < XC_GPU_MAX_RANGES ? job->plan->nranges : XC_GPU_MAX_RANGES);
    CU_ASSERT(info->nchunks >= 1 || nuse == 0 || job->nout == 0);
    for (int k = 0; k < info->nranges; k++) {
        const xc_gpu_ddrange *r = &info->range[k];
        if (!strcmp(r->kernel, "none") && (nuse == 0 || job->nout / (size_t)job->plan->r[k].ds == 0))
            continue;
        if (!strcmp(r->kernel, "direct"))
            continue;
        if (strncmp(r->kernel, "smem-", 5) || r->samps_per_thread < 1 || r->dms_per_block < 1 ||
            r->samps_per_block < r->samps_per_thread || r->chans_per_stage < 1 ||
            (r->samps_per_block / r->samps_per_thread) * r->dms_per_block > XC_GPU_MAX_THREADS) {
            printf("%s: range %d: kernel '%s' spt %d dy %d spb %d cs %d\n", what, k, r->kernel, r->samps_per_thread,
                   r->dms_per_block, r->samps_per_block, r->chans_per_stage);
            bad++;
        }
    }
    return bad;
}

/* Runs the GPU under each setting and compares with ref bit for bit.
 * Returns the number of mismatching runs. */
static int gpu_matches(xc_fixture *f, const xc_plane *ref, const setting *set, size_t nset, const char *what)
{
    int bad = 0;
    for (size_t i = 0; i < nset; i++) {
        xc_gpu_ddinfo info;
        apply(&f->job, &info, &set[i]);
        xc_plane p;
        xc_error err;
        xc_status st = gpu_run(&f->job, &p, &info, &err);
        char w[400];
        snprintf(w, sizeof w, "%s [setting %zu: spt %d dy %d spb %d cs %d%s%s%s]", what, i, set[i].spt, set[i].dy,
                 set[i].spb, set[i].cs, set[i].autotune ? " autotune" : "", set[i].force_direct ? " direct" : "",
                 set[i].test_wide ? " wide" : "");
        if (st) {
            printf("%s: %s\n", w, err.msg);
            bad++;
        } else if (!xc_fx_planes_equal(ref, &p, w) || info_sane(&info, &f->job, w)) {
            bad++;
        }
        xc_plane_free(&p);
    }
    f->job.opts = (xc_ddopts){0};
    f->job.tune = (xc_ddtune){0};
    return bad;
}

static int fixture_matches(xc_fixture *f, const setting *set, size_t nset, const char *what)
{
    xc_plane ref;
    run_ref(&f->job, &ref);
    int bad = gpu_matches(f, &ref, set, nset, what);
    xc_plane_free(&ref);
    return bad;
}

/* Reference run over a plan with scrunched ranges: ds 1, 2, 3, 4. */
static const char *plan_ds = "0:2:0.25,2:3:0.5:2,3:4.5:0.5:3,4.5:5:0.5:4";
/* Delays of hundreds to thousands of samples: shift spans per block larger
 * than a tile (1148-1400 MHz, 64 us: about 16 samples per unit DM). */
static const char *plan_big = "0:200:5,200:400:10:2,400:430:10:3";

/* f's job, with channels c % every == which killed when kill is set; the mask
 * is f's (xc_fx_free frees it). */
static void job_killing_every(xc_fixture *f, int kill, int every, int which)
{
    if (kill) {
        f->mask = malloc((size_t)f->blk.nchans);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f->mask);
        for (int c = 0; c < f->blk.nchans; c++)
            f->mask[c] = c % every != which;
    }
    xc_fx_job(f, f->mask);
}

/* ---- cases ------------------------------------------------------------------ */

/* Ends a case on f with its reference plane: the options and tuning reset,
 * then both freed. */
static void free_case(xc_fixture *f, xc_plane *ref)
{
    f->job.opts = (xc_ddopts){0};
    f->job.tune = (xc_ddtune){0};
    xc_plane_free(ref);
    xc_fx_free(f);
}

XC_TEST_IF(test_gpu_device, "gpu_device", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    char why[256] = "";
    CU_ASSERT_EQUAL(xc_gpu_available(why, sizeof why), 1);
    xc_gpu_props p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_gpu_properties(&p, &err), XC_OK);
    CU_ASSERT(p.cc_major >= 9);
    CU_ASSERT(p.sms > 0 && p.clock_khz > 0);
    CU_ASSERT(p.smem_block_optin >= 48 * 1024);
    XC_ASSERT_CLOSE(p.smem_bytes_per_s, p.sms * 128.0 * p.clock_khz * 1e3, 1.0);
    char line[512];
    CU_ASSERT_EQUAL(xc_gpu_describe(line, sizeof line, &err), XC_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, p.name));
    printf("device: %s\n", line);
#endif
}

typedef struct {
    const setting *set;
    size_t nset;
} settings;

static int gpu_check(xc_fixture *f, const char *what, const void *ctx)
{
    const settings *s = ctx;
    return fixture_matches(f, s->set, s->nset, what);
}

XC_TEST_IF(test_gpu_nbits_presets, "gpu_nbits_presets", xc_fx_skip_gpu)
{
    static const setting set[] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 1, 0, 0, 0},       /* direct kernel */
        {4, 3, 0, 5, 0, 0, 0, 0, 0},       /* odd tunables */
        {0, 0, 0, 0, 0, 0, 1, 2, 0},       /* 64-bit sums, flush every 2 */
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 1},    /* serial */
        {0, 0, 0, 0, 0, 1, 0, 0, 0, 1},    /* serial, direct kernel */
    };
    const settings ctx = {set, XC_NCASES(set)};
    CU_ASSERT_EQUAL(xc_fx_each_nbits_preset("0:6:0.75,6:14:1:2,14:20:2:3,20:26:2:4", 300, gpu_check, &ctx), 0);
}

/* nchans 1..9000: 4097 and 5000 at 4 bits (AstroAccelerate sums only the first
 * 4096 channels for 4096 < nchans < 8192), 8193 and 9000 above dedisp's and
 * AstroAccelerate's 8192 limit. */
XC_TEST_IF(test_gpu_awkward_sizes, "gpu_awkward_sizes", xc_fx_skip_gpu)
{
    static const struct { int nchans; int nbits; size_t nout; } sz[] = {
        {1, 8, 300}, {7, 16, 200}, {13, 2, 150}, {255, 8, 70}, {257, 8, 70}, {257, 4, 60},
        {1000, 16, 40}, {4097, 8, 20}, {4097, 1, 9}, {5000, 4, 24}, {8193, 8, 12}, {9000, 16, 10},
        {9000, 4, 10},
    };
    static const setting set[] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {8, 5, 0, 37, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 1, 0, 0, 0},
    };
    for (size_t i = 0; i < XC_NCASES(sz); i++) {
        xc_fixture f;
        xc_fx_random_job(&f, sz[i].nchans, sz[i].nbits, 1500, -100.0 / sz[i].nchans, 1e-4, plan_ds, "crosscheck",
                         sz[i].nout, 200 + i);
        char what[64];
        snprintf(what, sizeof what, "%d ch %d-bit", sz[i].nchans, sz[i].nbits);
        CU_ASSERT_EQUAL(fixture_matches(&f, set, XC_NCASES(set), what), 0);   /* each size on its own */
        xc_fx_free(&f);
    }
}

/* Large shifts: a block's DMs span more samples than its tile holds. */
XC_TEST_IF(test_gpu_big_delays, "gpu_big_delays", xc_fx_skip_gpu)
{
    static const int nbits[] = {4, 8, 16};
    static const setting set[] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {32, 16, 0, 8, 0, 0, 0, 0, 0},
        {4, 1, 0, 1, 0, 0, 0, 0, 0},
        {0, 0, 0, 0, 0, 1, 0, 0, 0},
    };
    int bad = 0;
    for (size_t b = 0; b < XC_NCASES(nbits); b++) {
        xc_fixture f;
        xc_fx_random_job(&f, 64, nbits[b], 1400, -4, 64e-6, plan_big, b == 1 ? "dedisp" : "sigproc", 3000, 250 + b);
        CU_ASSERT(f.job.max_delay > 5000);
        char what[64];
        snprintf(what, sizeof what, "big delays %d-bit", nbits[b]);
        bad += fixture_matches(&f, set, XC_NCASES(set), what);
        xc_fx_free(&f);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

XC_TEST_IF(test_gpu_edges, "gpu_edges", xc_fx_skip_gpu)
{
    int bad = 0;
    xc_fixture f;
    xc_plane p;
    xc_error err;
    xc_gpu_ddinfo info;
    /* nsamp just above the largest delay: nout = 1 (and 0 samples for ds 2) */
    xc_fx_random_job(&f, 31, 8, 1500, -3, 1e-4, "0:10:1,10:20:2:2", "presto", 1, 300);
    CU_ASSERT_EQUAL(f.job.nout, 1u);
    bad += fixture_matches(&f, &S_DEFAULT, 1, "nout 1");
    xc_fx_free(&f);
    /* one DM trial */
    xc_fx_random_job(&f, 64, 16, 1500, -1, 1e-4, "30:31:1", "sigproc", 77, 301);
    bad += fixture_matches(&f, &S_DEFAULT, 1, "one trial");
    xc_fx_free(&f);

    /* full scale everywhere: the narrow lane sums must flush before they wrap */
    static const struct { int nchans, nbits; const char *plan; uint16_t v; double sum0; } fs[] = {
        {1000, 8, "0:3:1", 255, 255.0 * 1000},                     /* q8: the two u32 sums flush every 256 */
        {5000, 4, "0:3:1,3:5:1:3", 15, 15.0 * 5000},               /* q4: 17 channels, then 257 */
        {600, 8, "0:2:1:128", 255, 255.0 * 128 * 600},             /* p16 with 2 channels per flush */
        {4097, 16, "0:2:1:2,2:4:1:3", 65535, 65535.0 * 2 * 4097}, /* w32 */
        {1100, 16, "0:2:1:64", 65535, 65535.0 * 64 * 1100},        /* w32 with 64-bit sums (> 2^32) */
        {1000, 16, "0:3:1", 65535, 65535.0 * 1000},                /* s16 */
    };
    for (size_t i = 0; i < XC_NCASES(fs); i++) {
        xc_fx_init(&f, fs[i].nchans, fs[i].nbits, 1500, -0.1, 1e-4, fs[i].plan, "crosscheck", 300);
        xc_fx_fill(&f, fs[i].v);
        xc_fx_job(&f, NULL);
        apply(&f.job, &info, &S_DEFAULT);
        CU_ASSERT_EQUAL_FATAL(gpu_run(&f.job, &p, &info, &err), XC_OK);
        CU_ASSERT_EQUAL(p.r[0].data[0], (float)fs[i].sum0);
        CU_ASSERT_EQUAL(p.r[0].data[p.r[0].ndm * p.r[0].nsamp - 1], (float)fs[i].sum0);
        if (i == 4)
            CU_ASSERT_STRING_EQUAL(info.range[0].kernel, "smem-w32-wide");
        if (i == 2)
            CU_ASSERT_STRING_EQUAL(info.range[0].kernel, "smem-p16");
        if (i == 5)
            CU_ASSERT_STRING_EQUAL(info.range[0].kernel, "smem-s16");
        xc_plane_free(&p);
        char what[64];
        snprintf(what, sizeof what, "full scale %d ch %d-bit", fs[i].nchans, fs[i].nbits);
        bad += fixture_matches(&f, &S_DEFAULT, 1, what);
        xc_fx_free(&f);
    }
    /* 16-bit at ds 65538: scrunched values pass 2^32 (u64 words, direct kernel) */
    xc_fx_random_job(&f, 2, 16, 1500, -1, 1e-4, "0:1:1:65538", "astroaccelerate", 3 * 65538 + 5, 302);
    apply(&f.job, &info, &S_DEFAULT);
    CU_ASSERT_EQUAL_FATAL(gpu_run(&f.job, &p, &info, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(info.range[0].kernel, "direct");
    xc_plane_free(&p);
    bad += fixture_matches(&f, &S_DEFAULT, 1, "ds 65538");
    xc_fx_free(&f);
    CU_ASSERT_EQUAL(bad, 0);
}

/* The 64-bit-sum instances and every flush of the narrow sums, reached with
 * the test hooks on small random data of every format. */
XC_TEST_IF(test_gpu_flush_paths, "gpu_flush_paths", xc_fx_skip_gpu)
{
    static const struct { int nbits; const char *plan; } fm[] = {
        {2, "0:4:0.5,4:8:1:3"},     /* q4 */
        {8, "0:4:0.5"},             /* q8 */
        {8, "0:4:0.5:2,4:8:1:5"},   /* p16 */
        {16, "0:4:0.5,4:8:1:2"},    /* s16, w32 */
    };
    static const setting set[] = {
        {0, 0, 0, 0, 0, 0, 1, 0, 0}, {0, 0, 0, 0, 0, 0, 1, 1, 0}, {0, 0, 0, 0, 0, 0, 1, 2, 0},
        {0, 0, 0, 0, 0, 0, 1, 3, 0}, {0, 0, 0, 0, 0, 0, 0, 1, 0}, {8, 4, 0, 7, 0, 0, 1, 2, 0},
        {4, 16, 0, 3, 0, 0, 1, 3, 0},
    };
    int bad = 0;
    for (size_t i = 0; i < XC_NCASES(fm); i++) {
        xc_fixture f;
        xc_fx_random_job(&f, 203, fm[i].nbits, 1500, -0.5, 1e-4, fm[i].plan, "crosscheck", 700, 350 + i);
        char what[64];
        snprintf(what, sizeof what, "flush paths %d-bit %s", fm[i].nbits, fm[i].plan);
        bad += fixture_matches(&f, set, XC_NCASES(set), what);
        xc_fx_free(&f);
    }
    /* and the kernel names report it */
    xc_fixture f;
    xc_fx_random_job(&f, 50, 8, 1500, -0.5, 1e-4, "0:2:0.5", "crosscheck", 100, 360);
    xc_gpu_ddinfo info;
    setting s = S_DEFAULT;
    s.test_wide = 1;
    apply(&f.job, &info, &s);
    xc_plane p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(gpu_run(&f.job, &p, &info, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(info.range[0].kernel, "smem-q8-wide");
    xc_plane_free(&p);
    xc_fx_free(&f);
    CU_ASSERT_EQUAL(bad, 0);
}

XC_TEST_IF(test_gpu_killmask, "gpu_killmask", xc_fx_skip_gpu)
{
    static const setting set[] = {{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 1, 0, 0, 0}, {2, 2, 64, 3, 0, 0, 0, 0, 0}};
    int bad = 0;
    uint64_t s = 77;
    for (int trial = 0; trial < 5; trial++) {
        xc_fixture f;
        int nc = trial == 3 ? 300 : trial == 4 ? 2000 : 45;
        xc_fx_init(&f, nc, trial == 1 ? 16 : trial == 4 ? 4 : 8, 1400, nc > 100 ? -100.0 / nc : -1, 64e-6,
                "0:10:0.5,10:20:1:2", "dedisp", 100);
        xc_fx_random(&f, 400 + (uint64_t)trial);
        uint8_t *mask = xc_fx_killmask(nc, trial, &s);
        xc_fx_job(&f, mask);
        char what[64];
        snprintf(what, sizeof what, "killmask %d", trial);
        bad += fixture_matches(&f, set, XC_NCASES(set), what);
        if (trial == 2) {   /* everything killed: the scaled empty sum */
            xc_plane p;
            xc_error err;
            CU_ASSERT_EQUAL_FATAL(gpu_run(&f.job, &p, NULL, &err), XC_OK);
            CU_ASSERT_EQUAL(p.r[0].data[0], 0.0f);
            xc_plane_free(&p);
        }
        free(mask);
        xc_fx_free(&f);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

XC_TEST_IF(test_gpu_tunables, "gpu_tunables", xc_fx_skip_gpu)
{
    static const setting set[] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0},          {1, 1, 1, 1, 0, 0, 0, 0, 0},
        {3, 5, 100, 7, 0, 0, 0, 0, 0},        {64, 33, 5000, 1000, 0, 0, 0, 0, 0},
        {2, 2, 64, 3, 0, 0, 0, 0, 0},         {16, 16, 512, 257, 0, 0, 0, 0, 0},
        {32, 1, 2048, 1, 0, 0, 0, 0, 0},      {1000000, 1000000, 1000000, 1000000, 0, 0, 0, 0, 0},
        {8, 8, 8192, 16, 0, 0, 0, 0, 0},      {16, 4, 4096, 64, 0, 0, 0, 0, 0},
    };
    static const int nbits[] = {1, 4, 8, 16, 32};
    int bad = 0;
    for (size_t b = 0; b < XC_NCASES(nbits); b++) {
        xc_fixture f;
        xc_fx_random_job(&f, 96, nbits[b], 1400, -2, 64e-6, "0:60:1.5,60:120:3:2", "crosscheck", 1500, 500 + b);
        if (nbits[b] == 32) {
            /* float sums depend on the order: only the settings' kernels, checked
             * in test_gpu_float; here, that every setting runs and agrees with
             * the default within rounding */
            xc_plane p0, p;
            xc_error err;
            xc_gpu_ddinfo info;
            apply(&f.job, &info, &set[0]);
            CU_ASSERT_EQUAL_FATAL(gpu_run(&f.job, &p0, &info, &err), XC_OK);
            for (size_t i = 1; i < XC_NCASES(set); i++) {
                apply(&f.job, &info, &set[i]);
                xc_status st = gpu_run(&f.job, &p, &info, &err);
                if (st)
                    printf("float setting %zu: %s\n", i, err.msg);
                CU_ASSERT_EQUAL(st, XC_OK);
                bad += info_sane(&info, &f.job, "float tunables");
                for (int k = 0; k < p.nranges && !st; k++)
                    for (size_t j = 0; j < p.r[k].ndm * p.r[k].nsamp; j++)
                        if (!(fabs(p.r[k].data[j] - p0.r[k].data[j]) <= 1e-4 * fabs(p0.r[k].data[j]))) {
                            bad++;
                            break;
                        }
                xc_plane_free(&p);
            }
            xc_plane_free(&p0);
        } else {
            char what[64];
            snprintf(what, sizeof what, "tunables %d-bit", nbits[b]);
            bad += fixture_matches(&f, set, XC_NCASES(set), what);
        }
        f.job.opts = (xc_ddopts){0};
        xc_fx_free(&f);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* The chunking cases' job (48 channels, plan_big, 30000 samples, every
 * 5th channel killed with mask): the reference's plane in *ref, and the
 * device bytes of a default run, which must be one chunk equal to it. */
static size_t chunk_case(xc_fixture *f, int nbits, const char *preset, int mask, uint64_t seed, xc_plane *ref)
{
    xc_fx_init(f, 48, nbits, 1400, -5, 64e-6, plan_big, preset, 30000);
    xc_fx_random(f, seed);
    job_killing_every(f, mask, 5, 2);
    run_ref(&f->job, ref);
    xc_gpu_ddinfo info;
    xc_error err;
    xc_plane p;
    apply(&f->job, &info, &S_DEFAULT);
    CU_ASSERT_EQUAL_FATAL(gpu_run(&f->job, &p, &info, &err), XC_OK);
    CU_ASSERT_EQUAL(info.nchunks, 1);
    CU_ASSERT(xc_fx_planes_equal(ref, &p, "chunking: one chunk"));
    xc_plane_free(&p);
    CU_ASSERT_FATAL(info.device_bytes > 0);
    return info.device_bytes;
}

/* Time chunks: lower gpu_max_bytes step by step until one chunk no longer
 * fits; every run must match, some must use several chunks (the chunk
 * boundaries are not multiples of the ranges' ds 2 and 3), and the last must
 * fail cleanly. */
XC_TEST_IF(test_gpu_chunking, "gpu_chunking", xc_fx_skip_gpu)
{
    static const struct { int nbits; const char *preset; int mask; } cs[] = {
        {8, "crosscheck", 0}, {16, "astroaccelerate", 1}, {4, "dedisp", 0},
    };
    for (size_t i = 0; i < XC_NCASES(cs); i++) {
        xc_fixture f;
        xc_plane ref, p;
        xc_gpu_ddinfo info;
        xc_error err;
        const size_t full = chunk_case(&f, cs[i].nbits, cs[i].preset, cs[i].mask, 600 + i, &ref);
        /* the pipeline (two slots of buffers) and the serial path each down to their limit */
        for (int serial = 0; serial < 2; serial++) {
            int most = 1, runs = 0, bad = 0;
            xc_status last = XC_OK;
            for (double frac = 0.9; frac > 1e-4; frac *= 0.7) {
                setting s = S_DEFAULT;
                s.max_bytes = (size_t)(full * frac);
                s.serial = serial;
                if (i == 2)
                    s.autotune = 1;   /* autotuning on the first of several chunks */
                apply(&f.job, &info, &s);
                last = gpu_run(&f.job, &p, &info, &err);
                if (last) {
                    xc_plane_free(&p);
                    break;
                }
                runs++;
                if (info.device_bytes > s.max_bytes) {
                    printf("chunking: %zu bytes allocated under a cap of %zu\n", info.device_bytes, s.max_bytes);
                    bad++;
                }
                if (info.pipelined != !serial) {
                    printf("chunking: pipelined %d with serial %d\n", info.pipelined, serial);
                    bad++;
                }
                /* staged input of at most 8 bits goes one byte a sample (pageable input, several chunks) */
                if (info.narrowed != (!serial && info.nchunks > 1 && cs[i].nbits <= 8)) {
                    printf("chunking: narrowed %d (%d-bit, serial %d, %d chunks)\n", info.narrowed, cs[i].nbits, serial,
                           info.nchunks);
                    bad++;
                }
                char what[96];
                snprintf(what, sizeof what, "chunking %d-bit, cap %zu, %d chunks, serial %d", cs[i].nbits, s.max_bytes,
                         info.nchunks, serial);
                if (!xc_fx_planes_equal(&ref, &p, what))
                    bad++;
                most = info.nchunks > most ? info.nchunks : most;
                xc_plane_free(&p);
            }
            printf("chunking %d-bit serial %d: %d runs, up to %d chunks, then: %s\n", cs[i].nbits, serial, runs, most,
                   err.msg);
            CU_ASSERT(runs >= (serial ? 3 : 2));
            CU_ASSERT(most >= 5);
            CU_ASSERT_EQUAL(bad, 0);
            CU_ASSERT_EQUAL(last, XC_EINVAL);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gpu_max_bytes"));
        }
        free_case(&f, &ref);
    }
}

/* The pipeline's chunk ramp (a short first chunk, then growing ones, so the
 * first chunk's copy in is short): planned from rates given through the
 * test hook (kernels 3 and 5 times the staging copy's time per sample) on
 * caps that give several chunks; every plane must equal the reference's
 * (exact: integer input), some runs must ramp over two or more chunks, and
 * rates that cannot hide a copy (kernels as fast as the copy) plan none.
 * With an overlap of D = 6170 samples (largest delay 6168, ds up to 3) and
 * margin 1.5, kernels 3 times as slow plan chunks of 9255 and 12340 outputs
 * before chunks of Lc = 16716, kernels 5 times as slow 4096 and 7483
 * (dd_memplan.cu). */
XC_TEST_IF(test_gpu_ramp, "gpu_ramp", xc_fx_skip_gpu)
{
    xc_fixture f;
    xc_plane ref, p;
    xc_gpu_ddinfo info;
    xc_error err;
    const size_t full = chunk_case(&f, 8, "crosscheck", 0, 650, &ref);
    int ramps = 0, bad = 0;
    static const double rates[] = {3.0, 5.0, 1.0};
    for (size_t r = 0; r < XC_NCASES(rates); r++)
        for (double frac = 0.6; frac > 0.1; frac *= 0.7) {
            setting s = S_DEFAULT;
            s.max_bytes = (size_t)(full * frac);
            apply(&f.job, &info, &s);
            info.test_ramp = rates[r];
            if (gpu_run(&f.job, &p, &info, &err)) {
                xc_plane_free(&p);
                break;
            }
            char what[128];
            snprintf(what, sizeof what, "ramp x%g, cap %zu: %d chunks, %d of them ramped, Lc %zu", rates[r],
                     s.max_bytes, info.nchunks, info.ramp_chunks, info.chunk_samples);
            printf("\n  %s", what);
            bad += !xc_fx_planes_equal(&ref, &p, what);
            if (rates[r] == 1.0 && info.ramp_chunks != 0) {
                printf(" (expected no ramp)");
                bad++;
            }
            bad += info.ramp_chunks >= info.nchunks && info.nchunks > 1;
            ramps += info.ramp_chunks >= 2;
            xc_plane_free(&p);
        }
    CU_ASSERT(ramps >= 2);   /* x3 at the first cap, x5 at the first two */
    CU_ASSERT_EQUAL(bad, 0);
    free_case(&f, &ref);
}

/* Four channels from 400 down to 100 MHz at 10 us: adjacent trials 2 pc cm^-3
 * apart differ by ~78000 samples in the lowest channel, more than shared
 * memory holds, so the direct kernel runs; one trial per block brings the
 * shared-memory kernel back. */
static void fallback_case(int nbits, uint64_t seed)
{
    xc_fixture f;
    xc_fx_random_job(&f, 4, nbits, 400, -100, 1e-5, "0:8:2", "crosscheck", 300, seed);
    CU_ASSERT(f.job.max_delay > 100000);
    xc_plane ref, p, q;
    run_ref(&f.job, &ref);
    xc_gpu_ddinfo info;
    xc_error err;
    apply(&f.job, &info, &S_DEFAULT);
    CU_ASSERT_EQUAL_FATAL(gpu_run(&f.job, &p, &info, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(info.range[0].kernel, "direct");
    setting one = S_DEFAULT;
    one.dy = 1;
    apply(&f.job, &info, &one);
    CU_ASSERT_EQUAL_FATAL(gpu_run(&f.job, &q, &info, &err), XC_OK);
    CU_ASSERT_EQUAL(strncmp(info.range[0].kernel, "smem-", 5), 0);
    CU_ASSERT_EQUAL(info.range[0].shift_span, 0);
    if (nbits == 32) {
        /* the direct kernel sums in double; the shared one in float per stage */
        for (size_t j = 0; j < ref.r[0].ndm * ref.r[0].nsamp; j++) {
            CU_ASSERT(fabs(p.r[0].data[j] - ref.r[0].data[j]) <= 4 * 0x1.0p-24 * fabs(ref.r[0].data[j]) + 1e-30);
            CU_ASSERT(fabs(q.r[0].data[j] - ref.r[0].data[j]) <= 4 * 0x1.0p-24 * 400.0);
        }
    } else {
        CU_ASSERT(xc_fx_planes_equal(&ref, &p, "fallback direct"));
        CU_ASSERT(xc_fx_planes_equal(&ref, &q, "fallback one trial per block"));
    }
    xc_plane_free(&p);
    xc_plane_free(&q);
    free_case(&f, &ref);
}

XC_TEST_IF(test_gpu_fallback, "gpu_fallback", xc_fx_skip_gpu)
{
    fallback_case(8, 700);
    fallback_case(16, 701);
    fallback_case(32, 702);
}

XC_TEST_IF(test_gpu_autotune, "gpu_autotune", xc_fx_skip_gpu)
{
    static const int nbits[] = {4, 8, 16};
    for (size_t b = 0; b < XC_NCASES(nbits); b++) {
        xc_fixture f;
        xc_fx_random_job(&f, 256, nbits[b], 1400, -1, 64e-6, "0:100:0.5,100:200:1:2", "crosscheck", 2000, 800 + b);
        xc_plane ref, p;
        run_ref(&f.job, &ref);
        xc_gpu_ddinfo info;
        xc_error err;
        setting s = S_DEFAULT;
        s.autotune = 1;
        apply(&f.job, &info, &s);
        CU_ASSERT_EQUAL_FATAL(gpu_run(&f.job, &p, &info, &err), XC_OK);
        CU_ASSERT(xc_fx_planes_equal(&ref, &p, "autotune"));
        CU_ASSERT_EQUAL(info_sane(&info, &f.job, "autotune"), 0);
        for (int k = 0; k < 2; k++) {
            CU_ASSERT_EQUAL(info.range[k].autotuned, 1);
            CU_ASSERT(info.range[k].candidates >= 4);
            CU_ASSERT(info.range[k].kernel_ms > 0);
            printf("autotune %d-bit range %d: %s spt %d dy %d spb %d cs %d (%d candidates)\n", nbits[b], k,
                   info.range[k].kernel, info.range[k].samps_per_thread, info.range[k].dms_per_block,
                   info.range[k].samps_per_block, info.range[k].chans_per_stage, info.range[k].candidates);
        }
        CU_ASSERT(info.kernel_ms > 0);
        XC_ASSERT_CLOSE(info.kernel_ms, info.range[0].kernel_ms + info.range[1].kernel_ms, 1e-9);
        CU_ASSERT(info.autotune_ms > 0);
        xc_plane_free(&p);
        /* the same through a plan: its stats name the path and the kernel time */
        xc_ddstats ds;
        CU_ASSERT_EQUAL_FATAL(plan_run(GPU_ENTRY, &f.job, &p, &ds, &err), XC_OK);
        CU_ASSERT(xc_fx_planes_equal(&ref, &p, "autotune, plan"));
        const int smem = !strncmp(info.range[0].kernel, "smem", 4) + !strncmp(info.range[1].kernel, "smem", 4);
        CU_ASSERT_STRING_EQUAL(ds.path, smem == 2 ? "smem" : smem == 0 ? "direct" : "mixed");
        CU_ASSERT(ds.kernel_ms > 0);
        CU_ASSERT(ds.chunks >= 1);
        xc_plane_free(&p);
        free_case(&f, &ref);
    }
}

/* |gpu - ref| <= N * 2^-24 * max|ref| per range, N = unmasked channels * ds. */
XC_TEST_IF(test_gpu_float, "gpu_float", xc_fx_skip_gpu)
{
    static const struct { int nchans; const char *plan; const char *preset; int kill; } cs[] = {
        {1, "0:5:1", "crosscheck", 0},
        {300, "0:3:0.5,3:6:1:2,6:8:1:3", "crosscheck", 0},
        {1000, "0:4:1,4:6:1:4", "dedisp", 1},
        {57, "0:9:1:2", "astroaccelerate", 1},
        {4100, "0:3:1", "sigproc", 0},
    };
    static const setting set[] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 1, 0, 0, 0}, {1, 3, 0, 1000, 0, 0, 0, 0, 0},
        {16, 16, 0, 2, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < XC_NCASES(cs); i++) {
        xc_fixture f;
        int m = xc_fx_float_case(&f, cs[i].nchans, cs[i].plan, cs[i].preset, cs[i].kill, 640, 900 + i);
        xc_plane ref;
        run_ref(&f.job, &ref);
        for (size_t t = 0; t < XC_NCASES(set); t++) {
            xc_gpu_ddinfo info;
            xc_error err;
            xc_plane p;
            apply(&f.job, &info, &set[t]);
            xc_status st = gpu_run(&f.job, &p, &info, &err);
            if (st)
                printf("float case %zu setting %zu: %s\n", i, t, err.msg);
            CU_ASSERT_EQUAL_FATAL(st, XC_OK);
            char what[64];
            snprintf(what, sizeof what, "float case %zu setting %zu", i, t);
            if (xc_fx_float_bound(&ref, &p, m, what))
                for (int k = 0; k < info.nranges; k++)
                    printf("  %s: range %d ran %s\n", what, k, info.range[k].kernel);
            xc_plane_free(&p);
        }
        free_case(&f, &ref);
    }
}

XC_TEST_IF(test_gpu_errors, "gpu_errors", xc_fx_skip_gpu)
{
    xc_fixture f;
    xc_fx_random_job(&f, 96, 8, 1500, -1, 1e-4, "0:40:0.5", "crosscheck", 3000, 1000);
    xc_plane ref, p;
    xc_error err;
    run_ref(&f.job, &ref);
    /* a negative tunable, named */
    f.job.tune.gpu_dms_per_block = -3;
    CU_ASSERT_EQUAL(gpu_run(&f.job, &p, NULL, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gpu_dms_per_block"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-3"));
    xc_plane_free(&p);
    f.job.tune.gpu_dms_per_block = 0;
    /* a plane of the wrong shape */
    CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(&p, &f.job, &err), XC_OK);
    p.r[0].nsamp--;
#ifdef XC_HAVE_CUDA
    CU_ASSERT_EQUAL(xc_dedisperse_gpu(&f.job, &p, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "shape"));
#endif
    p.r[0].nsamp++;
    xc_plane_free(&p);
    /* a device memory cap below one chunk: a clean XC_EINVAL naming the cap */
    f.job.tune.gpu_max_bytes = 1000;
    CU_ASSERT_EQUAL(gpu_run(&f.job, &p, NULL, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gpu_max_bytes = 1000"));
    xc_plane_free(&p);
    f.job.tune.gpu_max_bytes = 0;
    /* and the device is still usable afterwards, through a plan whose stats
     * report the kernel time */
    xc_ddstats ds;
    CU_ASSERT_EQUAL_FATAL(plan_run(GPU_ENTRY, &f.job, &p, &ds, &err), XC_OK);
    CU_ASSERT(xc_fx_planes_equal(&ref, &p, "after errors"));
    CU_ASSERT(ds.kernel_ms > 0);
    xc_plane_free(&p);
    free_case(&f, &ref);
}

/* Random shapes, nbits, presets, masks and tunables. */
XC_TEST_IF(test_gpu_random, "gpu_random", xc_fx_skip_gpu)
{
    static const int nbits[] = {1, 2, 4, 8, 16};
    size_t np;
    const xc_convention *cv = xc_convention_list(&np);
    uint64_t s = 4242;
    int bad = 0;
    for (int trial = 0; trial < 24; trial++) {
        int nc = 1 + (int)(xc_fx_rng_next(&s) % 700);
        int nb = nbits[xc_fx_rng_next(&s) % 5];
        int ds2 = 2 + (int)(xc_fx_rng_next(&s) % 4), ds3 = ds2 + 1 + (int)(xc_fx_rng_next(&s) % 3);
        double step = 0.5 + (double)(xc_fx_rng_next(&s) % 40) / 4.0;
        char plan[128];
        snprintf(plan, sizeof plan, "0:%g:%g,%g:%g:%g:%d,%g:%g:%g:%d", 10 * step, step, 10 * step, 14 * step, step,
                 ds2, 14 * step, 20 * step, 2 * step, ds3);
        xc_fixture f;
        xc_fx_init(&f, nc, nb, 1450, -(50.0 + (double)(xc_fx_rng_next(&s) % 200)) / nc, 64e-6, plan,
                cv[xc_fx_rng_next(&s) % np].name, 50 + xc_fx_rng_next(&s) % 900);
        xc_fx_random(&f, 1100 + (uint64_t)trial);
        uint8_t *mask = NULL;
        if (trial % 3 == 1) {
            mask = malloc((size_t)nc);
            CU_ASSERT_PTR_NOT_NULL_FATAL(mask);
            for (int c = 0; c < nc; c++)
                mask[c] = (xc_fx_rng_next(&s) % 5) != 0;
        }
        xc_fx_job(&f, mask);
        setting set[2] = {S_DEFAULT, S_DEFAULT};
        set[1].spt = 1 + (int)(xc_fx_rng_next(&s) % 40);
        set[1].dy = 1 + (int)(xc_fx_rng_next(&s) % 20);
        set[1].spb = (int)(xc_fx_rng_next(&s) % 3000);
        set[1].cs = 1 + (int)(xc_fx_rng_next(&s) % 70);
        set[1].test_period = trial % 4 == 0 ? 1 + (int)(xc_fx_rng_next(&s) % 5) : 0;
        char what[200];
        snprintf(what, sizeof what, "random %d: %d ch %d-bit %s plan %s", trial, nc, nb, f.cv->name, plan);
        bad += fixture_matches(&f, set, 2, what);
        free(mask);
        xc_fx_free(&f);
    }
    CU_ASSERT_EQUAL(bad, 0);
}


/* ---- plan and execute: one state, many jobs --------------------------------- */

/* The job of one gulp of a long fixture: outputs [t0, t0 + n), its block
 * starting at input sample t0, everything else (plan, delays, convention,
 * mask, options) base's, as a caller streaming a file would build it. */
static xc_ddjob gulp_job(const xc_fixture *f, const xc_ddjob *base, xc_block *blk, size_t t0, size_t n)
{
    const size_t nc = (size_t)f->blk.nchans;
    CU_ASSERT_FATAL(t0 + n + (size_t)base->max_delay <= f->blk.nsamp);
    *blk = f->blk;
    blk->nsamp = n + (size_t)base->max_delay;
    if (xc_nbits_is_float(f->blk.nbits))
        blk->f32 = f->f32 + t0 * nc;
    else
        blk->u16 = f->u16 + t0 * nc;
    xc_ddjob j = *base;
    j.in = blk;
    j.nout = n;
    return j;
}

/* 1 if two runs report the same setting for every range. */
static int same_settings(const xc_gpu_ddinfo *a, const xc_gpu_ddinfo *b)
{
    if (a->nranges != b->nranges)
        return 0;
    for (int k = 0; k < a->nranges; k++) {
        const xc_gpu_ddrange *x = &a->range[k], *y = &b->range[k];
        if (strcmp(x->kernel, y->kernel) || x->samps_per_thread != y->samps_per_thread ||
            x->dms_per_block != y->dms_per_block || x->samps_per_block != y->samps_per_block ||
            x->chans_per_stage != y->chans_per_stage || x->autotuned != y->autotuned ||
            x->candidates != y->candidates)
            return 0;
    }
    return 1;
}

/* Gulps of different sizes through one state, each plane bit for bit the
 * reference's on the same job: the third gulp is larger than the first (the
 * buffers grow), one has fewer outputs than a range's ds, and the settings
 * chosen on the first gulp are kept (an autotuned state times its candidates
 * once).  Every format, the direct kernel, a kill mask, odd tunables with the
 * 64-bit sums and their flushes, and a memory cap that forces several chunks
 * on the larger gulps and is never exceeded. */
XC_TEST_IF(test_gpu_state_gulps, "gpu_state_gulps", xc_fx_skip_gpu)
{
    static const size_t gulp[] = {300, 40, 1100, 1, 257, 1100, 2};
    static const struct {
        int nbits;
        const char *preset;
        int mask, cap;
        setting set;
    } cs[] = {
        {8, "crosscheck", 0, 0, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {16, "dedisp", 1, 0, {0, 0, 0, 0, 1, 0, 0, 0, 0}},          /* autotuned, masked */
        {4, "astroaccelerate", 0, 0, {0, 0, 0, 0, 0, 1, 0, 0, 0}},  /* direct kernel */
        {2, "sigproc", 1, 0, {8, 4, 0, 7, 0, 0, 1, 2, 0}},          /* 64-bit sums, flush every 2 */
        {1, "presto", 0, 0, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {8, "presto", 1, 1, {0, 0, 0, 0, 0, 0, 0, 0, 0}},           /* capped: several chunks */
        {16, "crosscheck", 0, 1, {0, 0, 0, 0, 1, 0, 0, 0, 0}},      /* capped and autotuned */
    };
    size_t total = 0;
    for (size_t g = 0; g < XC_NCASES(gulp); g++)
        total += gulp[g];
    int bad = 0;
    for (size_t i = 0; i < XC_NCASES(cs); i++) {
        xc_fixture f;
        xc_fx_init(&f, 77, cs[i].nbits, 1450, -1.5, 64e-6, "0:40:1,40:80:2:2,80:120:4:3", cs[i].preset, total);
        xc_fx_random(&f, 1300 + i);
        job_killing_every(&f, cs[i].mask, 6, 4);
        xc_gpu_ddinfo info, first;
        xc_error err;
        xc_block blk;
        setting set = cs[i].set;
        if (cs[i].cap) {
            /* the cap of a one-shot run of the first gulp: the larger ones need several chunks */
            xc_ddjob j = gulp_job(&f, &f.job, &blk, 0, gulp[0]);
            xc_plane p;
            apply(&j, &info, &set);
            CU_ASSERT_EQUAL_FATAL(gpu_run(&j, &p, &info, &err), XC_OK);
            xc_plane_free(&p);
            set.max_bytes = info.device_bytes;
        }
        xc_gpu_ddstate *st = NULL;
        CU_ASSERT_EQUAL_FATAL(state_create(&st, &err), XC_OK);
        memset(&first, 0, sizeof first);
        size_t t0 = 0, held = 0, largest = 0, most = 0;
        for (size_t g = 0; g < XC_NCASES(gulp); t0 += gulp[g], g++) {
            xc_ddjob j = gulp_job(&f, &f.job, &blk, t0, gulp[g]);
            apply(&j, &info, &set);
            xc_plane ref, p;
            run_ref(&j, &ref);
            xc_status rc = state_run(st, &j, &p, &info, &err);
            char what[160];
            snprintf(what, sizeof what, "state %d-bit %s%s%s, gulp %zu (%zu outputs from %zu)", cs[i].nbits,
                     cs[i].preset, cs[i].mask ? " masked" : "", cs[i].cap ? " capped" : "", g, gulp[g], t0);
            if (rc) {
                printf("%s: %s\n", what, err.msg);
                bad++;
            } else {
                if (!xc_fx_planes_equal(&ref, &p, what) || info_sane(&info, &j, what))
                    bad++;
                CU_ASSERT(info.setup_ms >= 0 && info.exec_ms >= 0);
                if (g == 0) {
                    first = info;
                    CU_ASSERT(info.setup_ms > 0);
                    CU_ASSERT_EQUAL(info.autotune_ms > 0, set.autotune);
                } else {
                    /* the first gulp decided every range (300 outputs >= ds): kept since */
                    if (!same_settings(&first, &info)) {
                        printf("%s: settings changed: range 0 %s -> %s\n", what, first.range[0].kernel,
                               info.range[0].kernel);
                        bad++;
                    }
                    CU_ASSERT_EQUAL(info.autotune_ms, 0.0);
                }
                /* uncapped, a gulp no larger than one before keeps the buffers, a larger one grows them */
                if (!cs[i].cap && g > 0 && gulp[g] <= largest && info.device_bytes != held) {
                    printf("%s: %zu bytes held, %zu before\n", what, info.device_bytes, held);
                    bad++;
                }
                if (!cs[i].cap && g > 0 && gulp[g] > largest)
                    CU_ASSERT(info.device_bytes > held);
                held = info.device_bytes;
                largest = gulp[g] > largest ? gulp[g] : largest;
                if (cs[i].cap && info.device_bytes > set.max_bytes) {
                    printf("%s: %zu bytes held under a cap of %zu\n", what, info.device_bytes, set.max_bytes);
                    bad++;
                }
                most = (size_t)info.nchunks > most ? (size_t)info.nchunks : most;
            }
            xc_plane_free(&ref);
            xc_plane_free(&p);
        }
        if (cs[i].cap)
            CU_ASSERT(most >= 3);
        state_destroy(st);
        xc_fx_free(&f);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* A job that does not share the binding is XC_EINVAL naming what differs,
 * and leaves the state as it was; a first job that fails leaves the state
 * unbound (the next job binds it); the kernel-time output may differ. */
XC_TEST_IF(test_gpu_state_mismatch, "gpu_state_mismatch", xc_fx_skip_gpu)
{
    xc_fixture f;
    xc_fx_random_job(&f, 40, 8, 1500, -2, 1e-4, "0:30:1,30:50:2:2", "crosscheck", 1500, 1400);
    xc_error err;
    xc_gpu_ddinfo info;
    xc_block blk, blk2;
    xc_plane ref, p;
    xc_gpu_ddstate *st = NULL;
    CU_ASSERT_EQUAL_FATAL(state_create(&st, &err), XC_OK);
    /* a first job that fails: a cap below one chunk */
    xc_ddjob j = gulp_job(&f, &f.job, &blk, 0, 500);
    j.tune.gpu_max_bytes = 1000;
    CU_ASSERT_EQUAL(state_run(st, &j, &p, NULL, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gpu_max_bytes = 1000"));
    xc_plane_free(&p);
    /* so the next job binds it, with other options */
    j.tune.gpu_max_bytes = 0;
    run_ref(&j, &ref);
    CU_ASSERT_EQUAL_FATAL(state_run(st, &j, &p, NULL, &err), XC_OK);
    CU_ASSERT(xc_fx_planes_equal(&ref, &p, "state: after a failed first job"));
    xc_plane_free(&ref);
    xc_plane_free(&p);

    /* every way a job can differ, each named */
    xc_ddjob other;
    CU_ASSERT_EQUAL_FATAL(xc_ddjob_init(&other, &f.blk, &f.plan, f.cv, &f.g, NULL, &err), XC_OK);
    xc_dmplan plan2 = f.plan;          /* the same ranges at another address */
    static const uint8_t keep[40] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                     1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    static const char *const names[] = {"delays", "plan", "killmask", "conv", "geometry", "in->nbits",
                                        "tune.gpu_dms_per_block", "tune.gpu_autotune", "info->force_direct",
                                        "tune.gpu_max_bytes"};
    for (size_t i = 0; i < XC_NCASES(names); i++) {
        xc_ddjob d = gulp_job(&f, &f.job, &blk2, 500, 300);
        memset(&info, 0, sizeof info);
        switch (i) {
        case 0: d.delays = other.delays; break;   /* equal values, another table */
        case 1: d.plan = &plan2; break;
        case 2: d.killmask = keep; break;         /* keeps every channel, but is another mask */
        case 3: d.conv = xc_convention_get("sigproc"); break;
        case 4: d.geom.tsamp *= 2; break;
        case 5: blk2.nbits = 16; break;
        case 6: d.tune.gpu_dms_per_block = 4; break;
        case 7: d.tune.gpu_autotune = 1; break;
        case 8: info.force_direct = 1; break;
        case 9: d.tune.gpu_max_bytes = (size_t)1 << 30; break;
        }
        char what[96];
        snprintf(what, sizeof what, "state: a job whose %s differs", names[i]);
        xc_status rc = state_run(st, &d, &p, &info, &err);
        if (rc != XC_EINVAL || !strstr(err.msg, names[i]))
            printf("%s: status %d, '%s'\n", what, (int)rc, rc ? err.msg : "");
        CU_ASSERT_EQUAL(rc, XC_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, names[i]));
        xc_plane_free(&p);
    }
    xc_ddjob_free(&other);

    /* the state is unharmed */
    j = gulp_job(&f, &f.job, &blk, 700, 800);
    run_ref(&j, &ref);
    memset(&info, 0, sizeof info);
    CU_ASSERT_EQUAL_FATAL(state_run(st, &j, &p, &info, &err), XC_OK);
    CU_ASSERT(xc_fx_planes_equal(&ref, &p, "state: after mismatching jobs"));
    CU_ASSERT(info.kernel_ms > 0);
    xc_plane_free(&ref);
    xc_plane_free(&p);
    state_destroy(st);
    state_destroy(NULL);
#ifdef XC_HAVE_CUDA
    CU_ASSERT_EQUAL(xc_gpu_ddstate_create(NULL, &err), XC_EINVAL);
#endif
    xc_fx_free(&f);
}

/* Faults injected into a run (xc_gpu_ddinfo.test_fault): an invalid launch
 * configuration after range 0's kernels fails the run with XC_EDEVICE naming
 * the stage and the launch, the plane is not touched (it stays poisoned), and
 * the device is usable afterwards. */
#ifdef XC_HAVE_CUDA
/* 40 channels of 8 bits, 90000 samples (three pipeline chunks of 32768
 * outputs) under plan_big in f, and the reference plane. */
static void three_chunk_case(xc_fixture *f, uint64_t seed, xc_plane *ref)
{
    xc_fx_random_job(f, 40, 8, 1400, -2, 64e-6, plan_big, "crosscheck", 90000, seed);
    run_ref(&f->job, ref);
}
#endif

/* Page-locked input and planes (xc_gpu_host_alloc) go to and from the
 * device without the pipeline's staging: every combination of pinned and
 * pageable input and plane, over several time chunks, equals the reference. */
XC_TEST_IF(test_gpu_pinned, "gpu_pinned", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    xc_fixture f;
    xc_plane ref;
    three_chunk_case(&f, 977, &ref);
    xc_error err;
    const size_t nin = f.blk.nsamp * (size_t)f.blk.nchans;
    void *pin = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_gpu_host_alloc(&pin, nin * sizeof(uint16_t), &err), XC_OK);
    memcpy(pin, f.u16, nin * sizeof(uint16_t));
    int bad = 0;
    for (int mode = 0; mode < 4; mode++) {
        f.blk.u16 = (mode & 1) ? (uint16_t *)pin : f.u16;
        xc_plane p;
        xc_gpu_ddinfo info;
        apply(&f.job, &info, &S_DEFAULT);
        void *ppl = NULL;
        if (mode & 2) {
            /* the plane's ranges in one page-locked block, poisoned */
            size_t tot = 0;
            CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(&p, &f.job, &err), XC_OK);
            for (int k = 0; k < p.nranges; k++)
                tot += p.r[k].ndm * p.r[k].nsamp;
            CU_ASSERT_EQUAL_FATAL(xc_gpu_host_alloc(&ppl, tot * sizeof(float), &err), XC_OK);
            memset(ppl, 0xFF, tot * sizeof(float));
            float *heap[8] = {0};
            size_t off = 0;
            for (int k = 0; k < p.nranges && k < 8; k++) {
                heap[k] = p.r[k].data;
                p.r[k].data = (float *)ppl + off;
                off += p.r[k].ndm * p.r[k].nsamp;
            }
            xc_status st = xc_dedisperse_gpu_info(&f.job, &p, &info, &err);
            if (st)
                printf("\n  pinned mode %d: %s", mode, err.msg);
            CU_ASSERT_EQUAL(st, XC_OK);
            char what[64];
            snprintf(what, sizeof what, "pinned mode %d (%d chunks)", mode, info.nchunks);
            if (!st && !xc_fx_planes_equal(&ref, &p, what))
                bad++;
            for (int k = 0; k < p.nranges && k < 8; k++)
                p.r[k].data = heap[k];
            xc_gpu_host_free(ppl);
        } else {
            CU_ASSERT_EQUAL_FATAL(gpu_run(&f.job, &p, &info, &err), XC_OK);
            char what[64];
            snprintf(what, sizeof what, "pinned mode %d (%d chunks)", mode, info.nchunks);
            if (!xc_fx_planes_equal(&ref, &p, what))
                bad++;
        }
        CU_ASSERT_EQUAL(info.pipelined, 1);
        CU_ASSERT(info.nchunks >= 2);
        xc_plane_free(&p);
    }
    f.blk.u16 = f.u16;
    xc_gpu_host_free(pin);
    CU_ASSERT_EQUAL(bad, 0);
    free_case(&f, &ref);
#endif
}

/* The staging's host copies (no device needed): bytes at unaligned offsets
 * and sizes on both sides of the streaming-store threshold (1 MiB) and of
 * the threads' 2 MiB pieces, and rows at unaligned pitches, equal memcpy's
 * exactly, bytes around them untouched. */
static int skip_no_cuda(char *why, size_t n)
{
#ifdef XC_HAVE_CUDA
    (void)why;
    (void)n;
    return 0;
#else
    snprintf(why, n, "built without CUDA (CUDA=0): no host copies to check");
    return 1;
#endif
}

XC_TEST_IF(test_gpu_hostcopy, "gpu_hostcopy", skip_no_cuda)
{
#ifdef XC_HAVE_CUDA
    const size_t N = (size_t)12 << 20;
    unsigned char *a = malloc(N + 64), *b = malloc(N + 64), *c = malloc(N + 64);
    CU_ASSERT_FATAL(a && b && c);
    for (size_t i = 0; i < N + 64; i++)
        a[i] = (unsigned char)((i * 2654435761u) >> 13);
    static const size_t ns[] = {0, 1, 63, 1000, ((size_t)1 << 20) - 1, ((size_t)1 << 20) + 17, ((size_t)5 << 20) + 3,
                                (size_t)12 << 20};
    int bad = 0;
    for (size_t k = 0; k < XC_NCASES(ns); k++)
        for (size_t o = 0; o < 3; o++) {
            memset(b, 0x5A, N + 64);
            memset(c, 0x5A, N + 64);
            xc_gpu_copy_bytes(b + o * 7, a + o * 3, ns[k] - (ns[k] == N ? o * 7 : 0));
            memcpy(c + o * 7, a + o * 3, ns[k] - (ns[k] == N ? o * 7 : 0));
            if (memcmp(b, c, N + 64)) {
                printf("\n  copy_bytes of %zu bytes at offsets %zu/%zu differs from memcpy", ns[k], o * 7, o * 3);
                bad++;
            }
        }
    static const size_t rl[] = {1, 3, 1000, 33333}, nr[] = {1, 7, 100, 40};
    for (size_t k = 0; k < XC_NCASES(rl); k++) {
        const size_t sp = rl[k] + 5, dp = rl[k] + 3;
        float *f = (float *)(void *)a, *g = (float *)(void *)b, *h = (float *)(void *)c;
        memset(b, 0x5A, N);
        memset(c, 0x5A, N);
        xc_gpu_copy_rows(g + 1, dp, f + 2, sp, rl[k], nr[k]);
        for (size_t d = 0; d < nr[k]; d++)
            memcpy(h + 1 + d * dp, f + 2 + d * sp, rl[k] * sizeof(float));
        if (memcmp(b, c, N)) {
            printf("\n  copy_rows of %zu rows of %zu differs from memcpy", nr[k], rl[k]);
            bad++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(a);
    free(b);
    free(c);
#endif
}

#ifdef XC_HAVE_CUDA
/* One job of the register case through st into p (poisoned first): its
 * plane against ref, and which buffers are page-locked after it. */
static int register_job(xc_fixture *f, xc_gpu_ddstate *st, xc_plane *p, const xc_plane *ref, const char *what)
{
    for (int k = 0; k < p->nranges; k++)
        memset(p->r[k].data, 0xFF, p->r[k].ndm * p->r[k].nsamp * sizeof(float));
    xc_gpu_ddinfo info;
    xc_error err;
    apply(&f->job, &info, &S_DEFAULT);
    const xc_status s = xc_dedisperse_gpu_exec(st, &f->job, p, &info, &err);
    if (s) {
        printf("\n  %s: %s", what, err.msg);
        return 1;
    }
    /* time chunks, or (a later job with the registration kept, where the
     * rates say so) one banded chunk */
    return (info.nchunks < 2 && !info.bands) + !xc_fx_planes_equal(ref, p, what);
}
#endif

/* The caller's pageable input and plane page-locked by the pipeline
 * (tune.gpu_register): 1 for each job, 2 kept by the state while later jobs
 * pass the same buffers.  Through one state, jobs into plane A, A, B, B
 * (three chunks each): every plane equals the reference (exact, integer
 * input); after each job the input and A are page-locked only with 2, A
 * until two jobs in a row have not passed it (after the third job, not
 * after the fourth), B from the third; nothing after the state's destroy. */
XC_TEST_IF(test_gpu_register, "gpu_register", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    xc_fixture f;
    xc_plane ref;
    three_chunk_case(&f, 978, &ref);
    int bad = 0;
    for (int mode = 1; mode <= 2; mode++) {
        xc_plane pl[2];
        xc_gpu_ddstate *st = NULL;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_gpu_ddstate_create(&st, &err), XC_OK);
        f.job.tune.gpu_register = mode;
        alloc_poisoned(&f.job, &pl[0]);
        alloc_poisoned(&f.job, &pl[1]);
        for (int i = 0; i < 4; i++) {
            char what[64];
            snprintf(what, sizeof what, "register mode %d, job %d into plane %c", mode, i, i < 2 ? 'A' : 'B');
            bad += register_job(&f, st, &pl[i / 2], &ref, what);
            const int in = xc_gpu_is_pinned(f.u16), a = xc_gpu_is_pinned(pl[0].r[0].data),
                      b = xc_gpu_is_pinned(pl[1].r[0].data);
            const int want_in = mode == 2, want_a = mode == 2 && i <= 2, want_b = mode == 2 && i >= 2;
            if (in != want_in || a != want_a || b != want_b) {
                printf("\n  %s: page-locked input %d A %d B %d, expected %d %d %d", what, in, a, b, want_in, want_a,
                       want_b);
                bad++;
            }
        }
        xc_gpu_ddstate_destroy(st);
        if (xc_gpu_is_pinned(f.u16) || xc_gpu_is_pinned(pl[1].r[0].data)) {
            printf("\n  register mode %d: still page-locked after the state's destroy", mode);
            bad++;
        }
        xc_plane_free(&pl[0]);
        xc_plane_free(&pl[1]);
    }
    f.job.tune.gpu_register = 0;
    CU_ASSERT_EQUAL(bad, 0);
    free_case(&f, &ref);
#endif
}

/* The job of both fault cases (64 channels of 8 bits) made in f and run on
 * the GPU into p with the fault test_fault injected (1: a launch fails, 2: a
 * kernel traps). */
static xc_status fault_run(xc_fixture *f, int test_fault, xc_plane *p, xc_error *err)
{
    xc_fx_random_job(f, 64, 8, 1500, -1, 1e-4, "0:20:1", "crosscheck", 2000, 1000);
    xc_gpu_ddinfo info;
    memset(&info, 0, sizeof info);
    info.test_fault = test_fault;
    return gpu_run(&f->job, p, &info, err);
}

XC_TEST_IF(test_gpu_fault_launch, "gpu_fault_launch", xc_fx_skip_gpu)
{
    xc_fixture f;
    xc_plane ref, p;
    xc_error err;
    xc_status st = fault_run(&f, 1, &p, &err);
    printf("\n  injected launch fault: status %d: %s", (int)st, st ? err.msg : "(none)");
    CU_ASSERT_EQUAL(st, XC_EDEVICE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "launch dd_fault"));
    xc_plane poison;
    alloc_poisoned(&f.job, &poison);
    CU_ASSERT(xc_fx_planes_equal(&poison, &p, "a failed run must leave the plane as it was"));
    xc_plane_free(&poison);
    xc_plane_free(&p);
    run_ref(&f.job, &ref);
    CU_ASSERT_EQUAL_FATAL(gpu_run(&f.job, &p, NULL, &err), XC_OK);
    CU_ASSERT(xc_fx_planes_equal(&ref, &p, "after the injected fault"));
    xc_plane_free(&p);
    free_case(&f, &ref);
}

/* A kernel that traps: the context is lost for good, so the case runs the
 * job in a fresh process (this program again, only this case, with
 * XC_GPU_TRAP_CHILD set), which prints its status and message; the run must
 * fail with XC_EDEVICE naming the stage, never hand back a plane. */
XC_TEST_IF(test_gpu_fault_trap, "gpu_fault_trap", xc_fx_skip_gpu)
{
    if (getenv("XC_GPU_TRAP_CHILD")) {
        xc_fixture f;
        xc_plane p;
        xc_error err;
        xc_status st = fault_run(&f, 2, &p, &err);
        printf("\nTRAP-RESULT %d %s\n", (int)st, st ? err.msg : "(none)");
        fflush(stdout);
        _exit(0);
    }
    char self[4096], cmd[4400], out[8192];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CU_ASSERT_FATAL(n > 0);
    self[n] = '\0';
    snprintf(cmd, sizeof cmd, "XC_GPU_TRAP_CHILD=1 XC_TEST_ONLY=gpu_fault_trap '%s' 2>&1", self);
    FILE *fp = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    size_t k = fread(out, 1, sizeof out - 1, fp);
    out[k] = '\0';
    pclose(fp);
    const char *r = strstr(out, "TRAP-RESULT ");
    printf("\n  injected trap, in a child process: %s", r ? r : out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(atoi(r + 12), XC_EDEVICE);
    CU_ASSERT_PTR_NOT_NULL(strstr(r, "dd_fault"));
}

XC_TEST_MAIN("gpu")
