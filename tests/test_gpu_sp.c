/* The GPU single-pulse searcher against the reference, detection by
 * detection (the conformance suite, tests/test_conformance.c, judges its
 * clustered candidates too): integer-valued planes, so every field and the
 * S/N bit for bit (tolerance 0: exact prefix sums, exact order statistics,
 * the S/N formula without FMA), over both statistics, odd and even block
 * and row lengths (the medians' two middle values), a row shorter than a
 * block, a constant row (rms 0: nothing), widths beyond the row; a plane
 * already in device memory, with a padded stride, read through the device
 * view; more rows than one batch and more detections than the first
 * buffer; rows long enough for the sampled selection (its fallback, ties)
 * and runs across the tiles' edges; boxes too wide for the tiles; clean
 * errors.  The fused pipeline (a filterbank block through
 * the gpu dedisperser into a plane in device memory, searched there): its
 * candidates equal, field by field and S/N bit for bit, those of the gpu
 * dedisperser's host plane searched by the gpu searcher and those of the
 * reference dedisperser's plane searched by the reference, with the plane
 * in one time chunk (the kernels write into it), in several (copies on the
 * device) and through the serial path; a stream of blocks (each searched
 * on a thread while the next is dedispersed into a second plane) gives each
 * block its execute's candidates.  Given row statistics (a gulp's
 * window of longer rows with the whole rows' rms and mean) replace the
 * device's, on a host plane and through a device view, and a filterbank
 * searched in gulps by the gpu searcher gives the one-gulp list of the
 * reference, bit for bit; a file with bursts on and near the gulps'
 * boundaries searched in gulps through the fused plan gives the
 * reference's list of the same gulps, and in one shot its one-gulp list.
 * Every case is skipped (never
 * passed) without CUDA or a usable device, printing why. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_filterbank.h"
#include "core/sp/xc_spgulp.h"
#include "core/sp/xc_spsearch.h"
#include "optimized/cpu/xc_cpu.h"
#ifdef XC_HAVE_CUDA
#include "optimized/gpu/sp_fused.h"
#endif
#include "optimized/gpu/xc_gpu.h"
#include "optimized/xc_impls.h"
#include "reference/xc_reference.h"
#include "reference/xc_sp_ref.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

static xc_registry *reg;

/* The registry's gpu entry of the family (absent without CUDA). */
static const xc_spsearcher *gpu_entry(void)
{
    xc_error err;
    if (!reg && xc_registry_builtin(&reg, &err))
        return NULL;
    return xc_spsearcher_of(xc_registry_find(reg, XC_FAMILY_SINGLEPULSE, "gpu"));
}

/* nrows x nsamp integers about 100 (rms about 10), rows stride apart, with
 * boxes planted: one across the first block's end, one at the row's end. */
static float *int_plane(size_t nrows, size_t nsamp, size_t stride, uint64_t seed)
{
    float *x = calloc(nrows * stride, sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t r = 0; r < nrows; r++)
        for (size_t t = 0; t < nsamp; t++) {
            double g = 0;
            for (int k = 0; k < 4; k++) {   /* a sum of 4 uniforms: near-Gaussian, rms 10 */
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                g += (double)(s >> 11) * 0x1p-53 - 0.5;
            }
            x[r * stride + t] = (float)floor(100 + 10 * sqrt(3.0) * g + 0.5);
        }
    for (size_t r = 0; r < nrows; r++)
        for (size_t t = 0; t < nsamp; t++)
            if ((t >= 170 && t < 175) || t + 11 >= nsamp)
                x[r * stride + t] += r % 2 ? 40 : 25;
    return x;
}

static xc_spconf conf(xc_sp_stat stat, size_t block, double threshold)
{
    static const int32_t widths[] = {1, 2, 3, 5, 11, 17, 37, 64, 2000};
    xc_spconf c;
    memset(&c, 0, sizeof c);
    c.stat = stat;
    c.block = stat == XC_SP_MEAN_SD ? SIZE_MAX : block;
    c.threshold = threshold;
    c.nwidths = (int)(sizeof widths / sizeof *widths);
    memcpy(c.widths, widths, sizeof widths);
    return c;
}

/* got against want field by field, S/N bit for bit; prints the first difference. */
static int same_dets(const xc_spdets *got, const xc_spdets *want, const char *what)
{
    if (got->n != want->n) {
        printf("\n  %s: %zu detections, expected %zu (the reference's), tolerance 0", what, got->n, want->n);
        return 0;
    }
    for (size_t i = 0; i < got->n; i++) {
        const xc_spdet *a = &got->d[i], *b = &want->d[i];
        if (a->snr != b->snr || a->sample != b->sample || a->width != b->width || a->windex != b->windex ||
            a->dm_index != b->dm_index || a->begin != b->begin || a->end != b->end) {
            printf("\n  %s: detection %zu: snr %.17g t %lld w %d row %d run %lld..%lld, expected snr %.17g t %lld "
                   "w %d row %d run %lld..%lld (tolerance 0)",
                   what, i, a->snr, (long long)a->sample, (int)a->width, (int)a->dm_index, (long long)a->begin,
                   (long long)a->end, b->snr, (long long)b->sample, (int)b->width, (int)b->dm_index,
                   (long long)b->begin, (long long)b->end);
            return 0;
        }
    }
    return 1;
}

/* The gpu's detections of pl against the reference's of ref_pl (the same
 * values, on the host); returns the reference's count, or -1 on a difference. */
static long compare(const xc_spconf *c, const xc_spplane *pl, const xc_spplane *ref_pl, const char *what)
{
    const xc_spsearcher *g = gpu_entry();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    xc_spdets a = {0}, b = {0};
    xc_error err;
    xc_error_clear(&err);
    xc_status st = xc_sp_detect(g, c, pl, &a, &err);
    if (st)
        printf("\n  %s: gpu: %s", what, err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_sp_detect(&xc_sp_reference, c, ref_pl, &b, &err), XC_OK);
    long n = same_dets(&a, &b, what) ? (long)b.n : -1;
    xc_spdets_free(&a);
    xc_spdets_free(&b);
    return n;
}

XC_TEST_IF(test_gpu_sp_listed, "gpu_sp_listed", xc_fx_skip_gpu)
{
    const xc_spsearcher *g = gpu_entry(), *cpu = xc_spsearcher_of(xc_registry_find(reg, XC_FAMILY_SINGLEPULSE, "cpu"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cpu);
    char why[256] = "";
    CU_ASSERT_EQUAL(xc_impl_available(&g->impl, why, sizeof why), 1);
    CU_ASSERT(g->impl.caps & XC_CAP_DEVICE);
    CU_ASSERT_EQUAL(g->impl.tol.kind, cpu->impl.tol.kind);
    XC_ASSERT_NEAR(g->impl.tol.value, cpu->impl.tol.value, 0);
}

/* Host planes: three shapes x both statistics x thresholds 6 and 3. */
XC_TEST_IF(test_gpu_sp_host_planes, "gpu_sp_host_planes", xc_fx_skip_gpu)
{
    static const struct {
        size_t nrows, nsamp, block;
    } shapes[] = {{1, 997, 173}, {5, 1000, 200}, {3, 64, 1000}};
    static const double dms[5] = {1, 2, 3, 4, 5};
    int bad = 0;
    long total = 0;
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        size_t nr = shapes[k].nrows, n = shapes[k].nsamp;
        float *x = int_plane(nr, n, n, 11 + k);
        if (nr == 5)
            for (size_t t = 0; t < n; t++)
                x[4 * n + t] = 100;   /* a constant row: rms 0, nothing found */
        xc_spplane pl = {x, nr, n, n, 0, 1e-3, 1, 0, dms};
        for (int stat = 0; stat < 2; stat++)
            for (int th = 0; th < 2; th++) {
                xc_spconf c = conf((xc_sp_stat)stat, shapes[k].block, th ? 3.0 : 6.0);
                char what[96];
                snprintf(what, sizeof what, "%zux%zu L %zu stat %d threshold %g", nr, n, shapes[k].block, stat,
                         c.threshold);
                long got = compare(&c, &pl, &pl, what);
                bad += got < 0;
                total += got > 0 ? got : 0;
            }
        free(x);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(total > 50);   /* the cases found something to compare */
}

/* A plane in device memory, rows 1513 floats apart, through the device view. */
XC_TEST_IF(test_gpu_sp_device_view, "gpu_sp_device_view", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    const size_t nr = 9, n = 1500, stride = 1513;
    static const double dms[9] = {0};
    float *x = int_plane(nr, n, stride, 7);
    void *dev = NULL;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_gpu_upload(&dev, x, nr * stride * sizeof *x, &err), XC_OK);
    xc_spplane host = {x, nr, n, stride, 0, 1e-3, 1, 0, dms}, devv = host;
    devv.data = dev;
    devv.device = 1;
    for (int stat = 0; stat < 2; stat++) {
        xc_spconf c = conf((xc_sp_stat)stat, 250, 4.0);
        CU_ASSERT(compare(&c, &devv, &host, stat ? "device view, mean/sd" : "device view, median/MAD") > 0);
        CU_ASSERT(compare(&c, &host, &host, stat ? "strided host view, mean/sd" : "strided host view") > 0);
    }
    /* the host searchers refuse the device view */
    xc_spdets d = {0};
    xc_spconf c = conf(XC_SP_MEDIAN_MAD, 250, 4.0);
    CU_ASSERT_EQUAL(xc_sp_detect(&xc_sp_reference, &c, &devv, &d, &err), XC_EINVAL);
    xc_spdets_free(&d);
    xc_gpu_free(dev);
    free(x);
#endif
}

/* 4100 rows (more than one batch of at most 4096) at threshold 1: more
 * detections than the device's first buffer of 4096. */
XC_TEST_IF(test_gpu_sp_batches, "gpu_sp_batches", xc_fx_skip_gpu)
{
    const size_t nr = 4100, n = 64;
    float *x = int_plane(nr, n, n, 3);
    double *dms = calloc(nr, sizeof *dms);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dms);
    xc_spplane pl = {x, nr, n, n, 0, 1e-3, 1, 0, dms};
    xc_spconf c = conf(XC_SP_MEDIAN_MAD, 32, 1.0);
    long got = compare(&c, &pl, &pl, "4100 x 64 at threshold 1");
    CU_ASSERT(got > 4096);
    free(dms);
    free(x);
}

/* Rows long enough for the sampled selection (blocks of 5000 and 5003
 * samples, rows of 20000 and 20011), each against the reference at
 * threshold 3 (runs cut at tile edges and joined on the host): row 0
 * noise; row 1 the values at the sample's positions raised by 1000, so the
 * sample's bracket misses the middle and the selection falls back to every
 * key; row 2 100 and 101 in turn, a spike every 997 samples (ties: the
 * two middle ranks in different bins, a MAD of one key); row 3 a wide
 * burst across a tile's edge (4096). */
XC_TEST_IF(test_gpu_sp_long_rows, "gpu_sp_long_rows", xc_fx_skip_gpu)
{
    static const double dms[4] = {0};
    static const size_t shapes[][2] = {{20000, 5000}, {20011, 5003}};
    int bad = 0;
    for (size_t k = 0; k < 2; k++) {
        const size_t n = shapes[k][0], L = shapes[k][1];
        float *x = int_plane(4, n, n, 21 + k);
        for (size_t i = 0; i < 1024; i++) {
            x[n + i * L / 1024] += 1000;   /* the blocks' sample positions (block 0) */
            x[n + i * n / 1024] += 1000;   /* the MAD's */
        }
        for (size_t t = 0; t < n; t++)
            x[2 * n + t] = (float)(100 + t % 2) + (t % 997 == 0 ? 30.0f : 0.0f);
        for (size_t t = 4000; t < 4200; t++)
            x[3 * n + t] += 12;
        xc_spplane pl = {x, 4, n, n, 0, 1e-3, 1, 0, dms};
        xc_spconf c = conf(XC_SP_MEDIAN_MAD, L, 3.0);
        char what[64];
        snprintf(what, sizeof what, "4 x %zu, L %zu, threshold 3", n, L);
        bad += compare(&c, &pl, &pl, what) <= 0;
        free(x);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* Boxes wider than the tiles take (9000 samples): the rows' prefix sums in
 * global memory, both statistics. */
XC_TEST_IF(test_gpu_sp_wide, "gpu_sp_wide", xc_fx_skip_gpu)
{
    static const double dms[3] = {0};
    const size_t n = 12000;
    float *x = int_plane(3, n, n, 9);
    for (size_t t = 3000; t < 9000; t++)
        x[n + t] += 3;
    xc_spplane pl = {x, 3, n, n, 0, 1e-3, 1, 0, dms};
    for (int stat = 0; stat < 2; stat++) {
        xc_spconf c = conf((xc_sp_stat)stat, 4000, 3.0);
        static const int32_t widths[] = {1, 64, 9000};
        c.nwidths = 3;
        memcpy(c.widths, widths, sizeof widths);
        CU_ASSERT(compare(&c, &pl, &pl, stat ? "widths to 9000, mean/sd" : "widths to 9000, median/MAD") > 0);
    }
    free(x);
}

/* A host pointer marked device, and a plane longer than the plan: XC_EINVAL
 * naming it, and the state works afterwards. */
XC_TEST_IF(test_gpu_sp_errors, "gpu_sp_errors", xc_fx_skip_gpu)
{
    const xc_spsearcher *g = gpu_entry();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    static const double dms[2] = {0};
    float *x = int_plane(2, 300, 300, 5);
    xc_spplane pl = {x, 2, 300, 300, 1, 1e-3, 1, 0, dms};
    xc_spconf c = conf(XC_SP_MEDIAN_MAD, 100, 6.0);
    xc_spdets d = {0};
    xc_error err;
    void *state = NULL;
    CU_ASSERT_EQUAL_FATAL(g->plan(g, &c, 200, &state, &err), XC_OK);
    xc_error_clear(&err);
    CU_ASSERT_EQUAL(g->execute(g, state, &c, &pl, &d, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "300 samples"));
    pl.nsamp = 200;
    xc_error_clear(&err);
    CU_ASSERT_EQUAL(g->execute(g, state, &c, &pl, &d, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not device memory"));
    pl.device = 0;
    CU_ASSERT_EQUAL(g->execute(g, state, &c, &pl, &d, &err), XC_OK);
    CU_ASSERT(d.n > 0);
    g->destroy(g, state);
    xc_spdets_free(&d);
    free(x);
}

#ifdef XC_HAVE_CUDA
/* b against a, every field, S/N bit for bit (tolerance 0: integer-valued
 * planes); prints the first difference. */
static int same_cands(const xc_spcandlist *b, const xc_spcandlist *a, const char *what)
{
    if (a->n != b->n) {
        printf("\n  %s: %zu candidates, expected %zu (tolerance 0)", what, b->n, a->n);
        return 0;
    }
    for (size_t i = 0; i < a->n; i++) {
        const xc_spcand *x = &b->c[i], *y = &a->c[i];
        if (x->snr != y->snr || x->sample != y->sample || x->width != y->width || x->dm_index != y->dm_index ||
            x->members != y->members || x->begin != y->begin || x->end != y->end || x->dm_lo != y->dm_lo ||
            x->dm_hi != y->dm_hi || x->dm != y->dm || x->time_s != y->time_s) {
            printf("\n  %s: candidate %zu: snr %.17g t %lld w %d dm %d members %lld, expected snr %.17g t %lld w %d "
                   "dm %d members %lld (tolerance 0)",
                   what, i, x->snr, (long long)x->sample, (int)x->width, (int)x->dm_index, (long long)x->members,
                   y->snr, (long long)y->sample, (int)y->width, (int)y->dm_index, (long long)y->members);
            return 0;
        }
    }
    return 1;
}

/* The plane of f's block through dd (host memory), searched by s. */
static void host_path(xc_fixture *f, const xc_dedisperser *dd, const xc_spsearcher *s, const xc_spopts *o,
                      xc_spcandlist *out)
{
    xc_error err;
    xc_ddplan *p = NULL;
    xc_plane pl = {0, NULL};
    size_t ndms = xc_dmplan_ndm(&f->plan);
    double *dms = calloc(ndms, sizeof *dms);
    xc_spplane v[8];
    CU_ASSERT_PTR_NOT_NULL_FATAL(dms);
    CU_ASSERT_FATAL(f->plan.nranges <= 8);
    CU_ASSERT_EQUAL_FATAL(xc_ddplan_create(&p, dd, &f->g, f->blk.nbits, &f->plan, f->cv, NULL, NULL, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_ddplan_plane_alloc(p, f->blk.nsamp, &pl, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_ddplan_execute(p, &f->blk, &pl, &err), XC_OK);
    xc_spplane_views(&f->plan, &pl, f->g.tsamp, v, dms);
    xc_status st = xc_sp_search(s, o, v, pl.nranges, f->g.tsamp, dms, ndms, out, &err);
    if (st)
        printf("\n  %s + %s: %s", dd->impl.name, s->impl.name, err.msg);
    CU_ASSERT_EQUAL(st, XC_OK);
    xc_plane_free(&pl);
    xc_ddplan_destroy(p);
    free(dms);
}

/* 64 channels of 8-bit noise (values 0..127) with a pulse of 6 samples at
 * trial 37 of a two-range plan (ds 1 and 2), 6000 outputs of 1 ms. */
static void fused_block(xc_fixture *f)
{
    const size_t nout = 6000;
    xc_fx_random_job(f, 64, 8, 1500, -4, 1e-3, "0:60:1,60:120:2:2", "crosscheck", nout, 31);
    const int nc = f->blk.nchans;
    for (size_t i = 0; i < f->blk.nsamp * (size_t)nc; i++)
        f->u16[i] >>= 1;
    for (int c = 0; c < nc; c++)
        for (size_t t = 2500; t < 2506; t++)
            f->u16[(t + (size_t)f->job.delays[0][37 * (size_t)nc + (size_t)c]) * (size_t)nc + (size_t)c] += 60;
}
#endif

XC_TEST_IF(test_gpu_sp_fused, "gpu_sp_fused", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    const xc_spsearcher *g = gpu_entry();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT(xc_sp_gpu_fusable(&xc_dd_gpu, g));
    CU_ASSERT(!xc_sp_gpu_fusable(&xc_dd_reference, g));
    CU_ASSERT(!xc_sp_gpu_fusable(&xc_dd_gpu, &xc_sp_reference));
    xc_fixture f;
    fused_block(&f);
    for (int preset = 0; preset < 2; preset++) {
        xc_spopts o;
        xc_spopts_default(&o, preset ? XC_SP_ASTROACCELERATE : XC_SP_HEIMDALL);
        o.threshold = 5;
        if (!preset)
            o.baseline_s = 1.0;   /* astroaccelerate normalises whole trials: no blocks */
        xc_spcandlist ref, host, fz;
        xc_spcandlist_init(&ref);
        xc_spcandlist_init(&host);
        host_path(&f, &xc_dd_reference, &xc_sp_reference, &o, &ref);
        host_path(&f, &xc_dd_gpu, g, &o, &host);
        CU_ASSERT(same_cands(&host, &ref, "gpu dedisperser's host plane, gpu searcher"));
        /* the pulse found near where it was planted (trial 37, samples
         * 2500..2505): a box of 8 holds the whole pulse at neighbouring
         * trials too (under a sample of smearing per trial across the band),
         * so the cluster's best member may sit a few trials away */
        int found = 0;
        for (size_t i = 0; i < ref.n; i++)
            found |= abs(ref.c[i].dm_index - 37) <= 6 && ref.c[i].sample >= 2490 && ref.c[i].sample <= 2505 &&
                     ref.c[i].snr > 10;
        if (!found)
            printf("\n  preset %d: no candidate within 6 trials of 37 at samples 2490..2505 with S/N > 10 "
                   "(%zu candidates; the first: trial %d, sample %lld, S/N %.3f)",
                   preset, ref.n, ref.n ? (int)ref.c[0].dm_index : -1, ref.n ? (long long)ref.c[0].sample : -1LL,
                   ref.n ? ref.c[0].snr : 0.0);
        CU_ASSERT(found);
        /* one chunk (the kernels write into the device plane), chunks of a
         * few hundred samples (copies on the device), the serial path */
        for (int mode = 0; mode < 3; mode++) {
            xc_ddtune t;
            memset(&t, 0, sizeof t);
            t.gpu_max_bytes = mode == 1 ? (size_t)1 << 20 : 0;
            t.gpu_serial = mode == 2;
            xc_ddplan *p = NULL;
            xc_error err;
            xc_spfused_info info;
            CU_ASSERT_EQUAL_FATAL(
                xc_ddplan_create_tuned(&p, &xc_dd_gpu, &f.g, 8, &f.plan, f.cv, NULL, NULL, &t, &err), XC_OK);
            xc_spcandlist_init(&fz);
            xc_status st = xc_sp_gpu_fused(p, &f.plan, &f.blk, f.g.tsamp, g, &o, &fz, &info, &err);
            if (st)
                printf("\n  fused, mode %d: %s", mode, err.msg);
            CU_ASSERT_EQUAL(st, XC_OK);
            xc_ddstats ds;
            xc_ddplan_stats(p, &ds);
            /* 60 trials x 6000 samples, 30 x 3000 (ds 2); one chunk stages nothing */
            const int ok_chunks = mode == 1 ? ds.chunks > 1 : ds.chunks == 1;
            const int ok_bytes = info.plane_bytes >= 4 * (60 * 6000 + 30 * 3000);
            const int ok_pinned = mode == 1 || ds.pinned_bytes == 0;
            if (!ok_chunks || !ok_bytes || !ok_pinned)
                printf("\n  fused, mode %d: %d chunks (expected %s), plane %zu bytes (expected >= %d), %zu pinned "
                       "bytes (expected 0 with one chunk)",
                       mode, ds.chunks, mode == 1 ? "> 1" : "1", info.plane_bytes, 4 * (60 * 6000 + 30 * 3000),
                       ds.pinned_bytes);
            CU_ASSERT(ok_chunks && ok_bytes && ok_pinned);
            char what[96];
            snprintf(what, sizeof what, "fused, preset %d, mode %d", preset, mode);
            CU_ASSERT(same_cands(&fz, &ref, what));
            xc_spcandlist_free(&fz);
            /* a fused plan: two blocks through it, the second reusing the
             * device plane and the dedisperser's buffers; the same candidates */
            xc_spfused *fp = NULL;
            CU_ASSERT_EQUAL_FATAL(xc_sp_gpu_fused_create(&fp, p, &f.plan, f.g.tsamp, g, &err), XC_OK);
            for (int rep = 0; rep < 2; rep++) {
                xc_spcandlist_init(&fz);
                st = xc_sp_gpu_fused_execute(fp, &f.blk, &o, &fz, &info, &err);
                if (st)
                    printf("\n  fused plan, mode %d, block %d: %s", mode, rep, err.msg);
                CU_ASSERT_EQUAL(st, XC_OK);
                snprintf(what, sizeof what, "fused plan, preset %d, mode %d, block %d", preset, mode, rep);
                CU_ASSERT(same_cands(&fz, &ref, what));
                /* the search's host trace: one execute a DM range, one wait
                 * each (two where more than the first detections come back
                 * with the count, three where they overflow the buffer), the
                 * waits and the sorting within the executes' clock (to a
                 * microsecond: a clock counting seconds from boot, read
                 * into doubles) */
                const xc_sp_gpu_trace *tr = &info.search_trace;
                const int ok_trace = st || ((int)tr->calls == f.plan.nranges && tr->waits >= tr->calls &&
                                            tr->waits <= 3 * tr->calls &&
                                            tr->wait_s + tr->sort_s <= tr->total_s + 1e-6 &&
                                            tr->total_s <= info.search_s + 1e-6);
                if (!ok_trace)
                    printf("\n  %s: trace of %u executes (expected %d), %u waits (expected %u..%u), wait %.6f s + "
                           "sort %.6f s of %.6f s (of the search's %.6f s)",
                           what, tr->calls, f.plan.nranges, tr->waits, tr->calls, 3 * tr->calls, tr->wait_s,
                           tr->sort_s, tr->total_s, info.search_s);
                CU_ASSERT(ok_trace);
                xc_spcandlist_free(&fz);
            }
            xc_sp_gpu_fused_destroy(fp);
            xc_ddplan_destroy(p);
        }
        xc_spcandlist_free(&ref);
        xc_spcandlist_free(&host);
    }
    /* a pair that is not fusable: XC_EINVAL naming both */
    xc_ddplan *p = NULL;
    xc_error err;
    xc_spopts o;
    xc_spopts_default(&o, XC_SP_HEIMDALL);
    xc_spcandlist fz;
    xc_spcandlist_init(&fz);
    CU_ASSERT_EQUAL_FATAL(xc_ddplan_create(&p, &xc_dd_reference, &f.g, 8, &f.plan, f.cv, NULL, NULL, &err), XC_OK);
    xc_status st = xc_sp_gpu_fused(p, &f.plan, &f.blk, f.g.tsamp, g, &o, &fz, NULL, &err);
    if (st != XC_EINVAL || !strstr(err.msg, "reference"))
        printf("\n  reference dedisperser fused: status %d, \"%s\" (expected XC_EINVAL naming it)", (int)st, err.msg);
    CU_ASSERT(st == XC_EINVAL && strstr(err.msg, "reference"));
    xc_ddplan_destroy(p);
    xc_fx_free(&f);
#endif
}

#ifdef XC_HAVE_CUDA
/* The candidates of in through an execute of a fused plan on p. */
static void executed(xc_ddplan *p, const xc_fixture *f, const xc_block *in, const xc_spsearcher *g,
                     const xc_spopts *o, xc_spcandlist *l)
{
    xc_error err;
    xc_spfused *fp = NULL;
    xc_spcandlist_init(l);
    CU_ASSERT_EQUAL_FATAL(xc_sp_gpu_fused_create(&fp, p, &f->plan, f->g.tsamp, g, &err), XC_OK);
    xc_status st = xc_sp_gpu_fused_execute(fp, in, o, l, NULL, &err);
    if (st)
        printf("\n  fused execute: %s", err.msg);
    CU_ASSERT_EQUAL(st, XC_OK);
    xc_sp_gpu_fused_destroy(fp);
}
#endif

/* A stream of blocks through a fused plan (submit, finish): blocks a, b, a,
 * b where b is a's data from spectrum 700 on (shorter, its pulse 700
 * samples earlier, a plane of other sizes), in one chunk and in chunks of a
 * few hundred samples.  Each block's candidates must be its execute's,
 * every field and S/N bit for bit (tolerance 0: the same kernels on the
 * same plane), collected by the next submit or by finish; an execute while
 * a search is in flight is XC_EINVAL. */
XC_TEST_IF(test_gpu_sp_stream, "gpu_sp_stream", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    const xc_spsearcher *g = gpu_entry();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    xc_fixture f;
    fused_block(&f);
    xc_block in[2] = {f.blk, f.blk};
    in[1].nsamp -= 700;
    in[1].u16 += 700 * (size_t)f.blk.nchans;
    xc_spopts o;
    xc_spopts_default(&o, XC_SP_HEIMDALL);
    o.threshold = 5;
    o.baseline_s = 1.0;
    for (int mode = 0; mode < 2; mode++) {
        xc_ddtune t;
        memset(&t, 0, sizeof t);
        t.gpu_max_bytes = mode ? (size_t)1 << 20 : 0;
        xc_ddplan *p = NULL;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_ddplan_create_tuned(&p, &xc_dd_gpu, &f.g, 8, &f.plan, f.cv, NULL, NULL, &t, &err),
                              XC_OK);
        xc_spcandlist want[2];
        for (int b = 0; b < 2; b++)
            executed(p, &f, &in[b], g, &o, &want[b]);
        CU_ASSERT(want[0].n > 0 && want[1].n > 0);
        xc_spfused *fp = NULL;
        CU_ASSERT_EQUAL_FATAL(xc_sp_gpu_fused_create(&fp, p, &f.plan, f.g.tsamp, g, &err), XC_OK);
        for (int i = 0; i <= 4; i++) {
            xc_spcandlist l;
            xc_spcandlist_init(&l);
            int have = -1;
            xc_status st = i < 4 ? xc_sp_gpu_fused_submit(fp, &in[i & 1], &o, &l, &have, NULL, &err)
                                 : xc_sp_gpu_fused_finish(fp, &l, &have, NULL, &err);
            if (st)
                printf("\n  stream, mode %d, step %d: %s", mode, i, err.msg);
            CU_ASSERT_EQUAL(st, XC_OK);
            if (have != (i > 0))
                printf("\n  stream, mode %d, step %d: have %d, expected %d", mode, i, have, i > 0);
            CU_ASSERT_EQUAL(have, i > 0);
            if (i > 0) {
                char what[96];
                snprintf(what, sizeof what, "stream, mode %d, block %d", mode, i - 1);
                CU_ASSERT(same_cands(&l, &want[(i - 1) & 1], what));
            }
            xc_spcandlist_free(&l);
            if (i == 1) {
                /* a search in flight: execute refuses */
                xc_spcandlist x;
                xc_spcandlist_init(&x);
                st = xc_sp_gpu_fused_execute(fp, &in[0], &o, &x, NULL, &err);
                if (st != XC_EINVAL)
                    printf("\n  execute during a stream: status %d (expected XC_EINVAL)", (int)st);
                CU_ASSERT_EQUAL(st, XC_EINVAL);
                xc_spcandlist_free(&x);
            }
        }
        /* destroy with a search in flight waits for it */
        CU_ASSERT_EQUAL(xc_sp_gpu_fused_submit(fp, &in[0], &o, NULL, NULL, NULL, &err), XC_OK);
        xc_sp_gpu_fused_destroy(fp);
        for (int b = 0; b < 2; b++)
            xc_spcandlist_free(&want[b]);
        xc_ddplan_destroy(p);
    }
    xc_fx_free(&f);
#endif
}

/* A window [300, 1300) of rows of 2000 samples, whole blocks of 100, given
 * the whole rows' rms (and mean): the gpu's detections are the reference's
 * given the same (xc_sp_given_stats), on the host and through a device view,
 * every field and S/N bit for bit (tolerance 0: the same doubles enter the
 * same expressions).  Outside the window the noise is twice as loud, so
 * every window's own rms differs from its row's (threshold 2 in the rows'
 * rms: about 3 of the window's). */
static void given_stats_case(const xc_spsearcher *g)
{
#ifdef XC_HAVE_CUDA
    enum { NR = 5, N = 2000, LO = 300, NW = 1000 };
    static const double dms[NR] = {0};
    static double rs[NR], rm[NR], m[N], tmp[N];
    float *x = int_plane(NR, N, N, 21);
    for (size_t i = 0; i < (size_t)NR * N; i++)
        if (i % N < LO || i % N >= LO + NW)
            x[i] = 100 + 2 * (x[i] - 100);   /* integers still */
    void *dev = NULL;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_gpu_upload(&dev, x, (size_t)NR * N * sizeof *x, &err), XC_OK);
    CU_ASSERT_EQUAL(g->row_stats, 1);
    for (int stat = 0; stat < 2; stat++) {
        xc_spconf c = conf((xc_sp_stat)stat, 100, 2.0);
        int differ = 0;
        for (int r = 0; r < NR; r++) {
            double sw;
            xc_sp_row_stats(x + (size_t)r * N, N, &c, m, &rs[r], tmp);
            rm[r] = m[0];
            xc_sp_row_stats(x + (size_t)r * N + LO, NW, &c, m, &sw, tmp);
            differ += sw != rs[r];
        }
        XC_ASSERT_NEAR(differ, NR, 0);   /* else the given statistics would change nothing */
        xc_spplane win = {x + LO, NR, NW, N, 0, 1e-3, 1, 0, dms, rs, stat ? rm : NULL}, devv = win;
        devv.data = (const float *)dev + LO;
        devv.device = 1;
        CU_ASSERT(compare(&c, &win, &win, stat ? "given mean/sd, host plane" : "given rms, host plane") > 0);
        CU_ASSERT(compare(&c, &devv, &win, stat ? "given mean/sd, device view" : "given rms, device view") > 0);
    }
    xc_gpu_free(dev);
    free(x);
#else
    (void)g;
#endif
}

#ifdef XC_HAVE_CUDA
/* f made by make, written as a filterbank named name in the test's
 * temporary directory; path (n bytes) gets its path. */
static void block_file(xc_fixture *f, void (*make)(xc_fixture *), const char *name, char *path, size_t n)
{
    make(f);
    snprintf(path, n, "%s/%s", xc_test_tmpdir(), name);
    xc_fx_write_fil(f, path);
}

/* The search of path in gulps under a (a->gulp), every gulp's host plane. */
static void gulped(const char *path, const xc_spgulp_args *a, xc_spcandlist *l, xc_spgulp_info *info)
{
    xc_fbreader *r;
    xc_error err;
    xc_spcandlist_init(l);
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, &err), XC_OK);
    xc_status st = xc_sp_search_fil(r, a, l, info, &err);
    if (st)
        printf("\n  %s, gulp %zu: %s", a->search->impl.name, a->gulp, err.msg);
    CU_ASSERT_EQUAL(st, XC_OK);
    xc_fbreader_close(r);
}
#endif

/* The fused case's block (64 channels of noise, a pulse, a plan of two
 * ranges) as a filterbank searched in gulps of 1100 and 997 (996 after the
 * plan's downsample lcm) by the gpu searcher, which takes the whole rows'
 * statistics the gulps gather, against the reference's one-gulp search:
 * the same list, every field and S/N bit for bit (tolerance 0), for the
 * median and the mean-and-sd presets at threshold 4 (many noise runs near
 * the threshold, where a window's own rms would add and drop candidates). */
XC_TEST_IF(test_gpu_sp_gulps_exact, "gpu_sp_gulps_exact", xc_fx_skip_gpu)
{
    const xc_spsearcher *g = gpu_entry();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    given_stats_case(g);
#ifdef XC_HAVE_CUDA
    xc_fixture f;
    char path[1100];
    block_file(&f, fused_block, "gulps.fil", path, sizeof path);
    static const size_t gulps[] = {1100, 997};
    for (int preset = 0; preset < 2; preset++) {
        xc_spopts o;
        xc_spopts_default(&o, preset ? XC_SP_ASTROACCELERATE : XC_SP_HEIMDALL);
        o.threshold = 4;
        o.baseline_s = preset ? 0 : 0.25;   /* astroaccelerate: the whole trial */
        o.nwidths = 4;
        o.widths[0] = 1, o.widths[1] = 2, o.widths[2] = 4, o.widths[3] = 8;
        xc_spgulp_args a = {.search = &xc_sp_reference, .opts = &o, .dd = &xc_dd_cpu, .conv = f.cv,
                            .plan = &f.plan, .input_name = "gulps.fil"};
        xc_spcandlist whole, l;
        xc_spgulp_info info;
        gulped(path, &a, &whole, &info);
        CU_ASSERT_EQUAL(info.ngulps, 1);
        CU_ASSERT(whole.n > 10);
        a.search = g;
        for (size_t k = 0; k < sizeof gulps / sizeof *gulps; k++) {
            a.gulp = gulps[k];
            gulped(path, &a, &l, &info);
            CU_ASSERT(info.ngulps > 1 && info.rms_passes > 0);
            char what[80];
            snprintf(what, sizeof what, "gpu in gulps of %zu, preset %s", info.gulp, xc_sp_preset_name(o.preset));
            CU_ASSERT(same_cands(&l, &whole, what));
            xc_spcandlist_free(&l);
        }
        xc_spcandlist_free(&whole);
    }
    xc_fx_free(&f);
#endif
}

#ifdef XC_HAVE_CUDA
/* Bursts of 8 samples planted on and near the boundaries of gulps of 600
 * and 1200 samples: trial 37 (the plan's first range) across sample 1200,
 * from 2400 on; trial 75 (the second, ds 2) up to 3600, across 4800. */
static const struct {
    int trial;
    size_t t0;
} bursts[] = {{37, 1196}, {37, 2400}, {75, 3592}, {75, 4797}};
#define NBURSTS (sizeof bursts / sizeof *bursts)

/* The fused case's noise (64 channels, plan "0:60:1,60:120:2:2", 6000
 * outputs of 1 ms) with the bursts above, 40 a channel and sample. */
static void burst_block(xc_fixture *f)
{
    xc_fx_random_job(f, 64, 8, 1500, -4, 1e-3, "0:60:1,60:120:2:2", "crosscheck", 6000, 47);
    const size_t nc = (size_t)f->blk.nchans;
    for (size_t i = 0; i < f->blk.nsamp * nc; i++)
        f->u16[i] >>= 1;
    for (size_t b = 0; b < NBURSTS; b++) {
        const int k = bursts[b].trial < 60 ? 0 : 1, ds = k ? 2 : 1, row = bursts[b].trial - (k ? 60 : 0);
        for (size_t c = 0; c < nc; c++)
            for (size_t t = bursts[b].t0; t < bursts[b].t0 + 8; t++)
                f->u16[(t + (size_t)ds * (size_t)f->job.delays[k][(size_t)row * nc + c]) * nc + c] += 40;
    }
}

/* 1 when every burst is one candidate of l (S/N > 8 within 30 samples of
 * it; noise reaches 8 about once in 10^15 boxes) and nothing else is. */
static int bursts_once(const xc_spcandlist *l, const char *what)
{
    size_t strong = 0, near[NBURSTS] = {0};
    for (size_t i = 0; i < l->n; i++) {
        if (!(l->c[i].snr > 8))
            continue;
        strong++;
        for (size_t b = 0; b < NBURSTS; b++)
            near[b] += l->c[i].sample + 30 >= (int64_t)bursts[b].t0 && l->c[i].sample <= (int64_t)bursts[b].t0 + 38;
    }
    int ok = strong == NBURSTS;
    for (size_t b = 0; b < NBURSTS; b++)
        ok &= near[b] == 1;
    if (!ok)
        printf("\n  %s: %zu candidates above S/N 8 (expected %zu, one per burst); near the bursts %zu %zu %zu %zu "
               "(expected 1 each)",
               what, strong, NBURSTS, near[0], near[1], near[2], near[3]);
    return ok;
}

/* b, searched in gulps of gulp samples, against a, the whole search:
 * every field equal (S/N bit for bit), except that a candidate of a whose
 * runs cross a gulp boundary may end earlier in b, at or after the first
 * boundary past its begin (docs/SINGLEPULSE.md, Gulps: a run outliving its
 * gulp's window, which reaches past the boundary, is cut at the window's
 * end; its boxes, their S/N and the clusters are the same).  *cut gets how
 * many ended earlier. */
static int same_but_cut(const xc_spcandlist *b, const xc_spcandlist *a, size_t gulp, size_t *cut, const char *what)
{
    *cut = 0;
    if (a->n != b->n) {
        printf("\n  %s: %zu candidates, expected %zu (tolerance 0)", what, b->n, a->n);
        return 0;
    }
    for (size_t i = 0; i < a->n; i++) {
        const xc_spcand *x = &b->c[i], *y = &a->c[i];
        const int64_t G = (int64_t)gulp, first = (y->begin / G + 1) * G;   /* the first boundary after begin */
        const int shorter = x->end < y->end && first <= y->end && x->end >= first;
        *cut += (size_t)shorter;
        if (x->snr != y->snr || x->sample != y->sample || x->width != y->width || x->dm_index != y->dm_index ||
            x->members != y->members || x->begin != y->begin || (x->end != y->end && !shorter) ||
            x->dm_lo != y->dm_lo || x->dm_hi != y->dm_hi || x->dm != y->dm || x->time_s != y->time_s) {
            printf("\n  %s: candidate %zu: snr %.17g t %lld w %d dm %d members %lld run %lld..%lld, expected snr "
                   "%.17g t %lld w %d dm %d members %lld run %lld..%lld (tolerance 0; the end may be cut back to a "
                   "gulp boundary, %zu samples apart)",
                   what, i, x->snr, (long long)x->sample, (int)x->width, (int)x->dm_index, (long long)x->members,
                   (long long)x->begin, (long long)x->end, y->snr, (long long)y->sample, (int)y->width,
                   (int)y->dm_index, (long long)y->members, (long long)y->begin, (long long)y->end, gulp);
            return 0;
        }
    }
    return 1;
}

/* The one-shot fused search of f's whole block. */
static void fused_whole(xc_fixture *f, const xc_spsearcher *g, const xc_spopts *o, xc_spcandlist *l,
                        size_t *plane_bytes)
{
    xc_ddplan *p = NULL;
    xc_error err;
    xc_spfused_info info;
    xc_spcandlist_init(l);
    CU_ASSERT_EQUAL_FATAL(xc_ddplan_create(&p, &xc_dd_gpu, &f->g, 8, &f->plan, f->cv, NULL, NULL, &err), XC_OK);
    xc_status st = xc_sp_gpu_fused(p, &f->plan, &f->blk, f->g.tsamp, g, o, l, &info, &err);
    if (st)
        printf("\n  one-shot fused: %s", err.msg);
    CU_ASSERT_EQUAL(st, XC_OK);
    *plane_bytes = info.plane_bytes;
    xc_ddplan_destroy(p);
}

/* The fused search of path in gulps of a->gulp (xc_sp_gpu_search_fil). */
static xc_status fused_gulps(const char *path, const xc_spgulp_args *a, xc_spcandlist *l, xc_spgulp_info *info,
                             size_t *plane_bytes, xc_error *err)
{
    xc_fbreader *r;
    xc_spcandlist_init(l);
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, err), XC_OK);
    xc_status st = xc_sp_gpu_search_fil(r, a, l, info, plane_bytes, err);
    xc_fbreader_close(r);
    return st;
}

/* The options of the bursts' searches: preset (0 heimdall with blocks of
 * 250 samples, 1 astroaccelerate), threshold 4 (many noise runs near it,
 * where a window's own rms would add and drop some), widths 1, 2, 4, 8. */
static xc_spopts burst_opts(int preset)
{
    xc_spopts o;
    xc_spopts_default(&o, preset ? XC_SP_ASTROACCELERATE : XC_SP_HEIMDALL);
    o.threshold = 4;
    o.baseline_s = preset ? 0 : 0.25;
    o.nwidths = 4;
    o.widths[0] = 1, o.widths[1] = 2, o.widths[2] = 4, o.widths[3] = 8;
    return o;
}

/* One gulp size of the fused gulps' case: the fused list against the
 * reference's in the same gulps (the same windows, runs kept and
 * clustering: every field, tolerance 0), against the whole search's
 * (same_but_cut) and the bursts found once; the device plane shorter than
 * the whole file's (whole_bytes). */
static void fused_gulp_case(const char *path, xc_spgulp_args *a, const xc_spsearcher *g, const xc_spcandlist *whole,
                            size_t whole_bytes, size_t *cuts)
{
    xc_spcandlist l, refg;
    xc_spgulp_info info;
    xc_error err;
    size_t bytes = 0, cut = 0;
    char what[96];
    a->search = &xc_sp_reference;
    a->dd = &xc_dd_cpu;
    gulped(path, a, &refg, &info);
    a->search = g;
    a->dd = &xc_dd_gpu;
    xc_status st = fused_gulps(path, a, &l, &info, &bytes, &err);
    if (st)
        printf("\n  fused in gulps of %zu: %s", a->gulp, err.msg);
    CU_ASSERT_EQUAL(st, XC_OK);
    CU_ASSERT(info.gulp == a->gulp && info.ngulps == 6000 / a->gulp && info.rms_passes > 0);
    if (!(bytes > 0 && bytes < whole_bytes))
        printf("\n  fused in gulps of %zu: device plane %zu bytes, expected fewer than the whole file's %zu", a->gulp,
               bytes, whole_bytes);
    CU_ASSERT(bytes > 0 && bytes < whole_bytes);
    snprintf(what, sizeof what, "fused in gulps of %zu, preset %s", a->gulp, xc_sp_preset_name(a->opts->preset));
    CU_ASSERT(same_cands(&l, &refg, what));
    CU_ASSERT(same_but_cut(&l, whole, a->gulp, &cut, what));
    CU_ASSERT(bursts_once(&l, what));
    *cuts += cut;
    xc_spcandlist_free(&l);
    xc_spcandlist_free(&refg);
}
#endif

/* A filterbank with bursts on and near the gulps' boundaries (gulps of 600
 * and 1200 samples), searched in gulps through the fused plan (each gulp's
 * window dedispersed into the plan's device plane and searched there, the
 * whole rows' statistics gathered first), in one shot through the fused
 * plan, and by the reference (cpu dedisperser, reference searcher) in one
 * gulp and in the same gulps, for the median and the mean-and-sd presets:
 * one shot and the reference's one gulp, and the fused gulps and the
 * reference's same gulps, are the same lists, every field and S/N bit for
 * bit (tolerance 0: integer-valued planes, the whole rows' exact
 * statistics); the fused gulps against the one gulp the same but for the
 * ends of clusters whose runs outlive a window (same_but_cut); each burst
 * one candidate with the one gulp's S/N; the gulps' device plane smaller
 * than the whole file's; a pair that is not fusable is XC_EINVAL naming
 * both. */
XC_TEST_IF(test_gpu_sp_fused_gulps, "gpu_sp_fused_gulps", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    const xc_spsearcher *g = gpu_entry();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    xc_fixture f;
    char path[1100];
    block_file(&f, burst_block, "bursts.fil", path, sizeof path);
    static const size_t gulps[] = {1200, 600};
    xc_error err;
    for (int preset = 0; preset < 2; preset++) {
        xc_spopts o = burst_opts(preset);
        xc_spgulp_args a = {.search = &xc_sp_reference, .opts = &o, .dd = &xc_dd_cpu, .conv = f.cv,
                            .plan = &f.plan, .input_name = "bursts.fil"};
        xc_spcandlist ref, one;
        xc_spgulp_info info;
        size_t whole_bytes = 0, cuts = 0;
        gulped(path, &a, &ref, &info);
        CU_ASSERT(info.ngulps == 1 && bursts_once(&ref, "the reference"));
        fused_whole(&f, g, &o, &one, &whole_bytes);
        CU_ASSERT(same_cands(&one, &ref, "one-shot fused"));
        for (size_t k = 0; k < sizeof gulps / sizeof *gulps; k++) {
            a.gulp = gulps[k];
            fused_gulp_case(path, &a, g, &ref, whole_bytes, &cuts);
        }
        printf("\n  preset %s: %zu candidates, %zu ends cut at a window", xc_sp_preset_name(o.preset), ref.n, cuts);
        xc_spcandlist_free(&ref);
        xc_spcandlist_free(&one);
    }
    xc_spopts o = burst_opts(0);
    xc_spgulp_args a = {.search = g, .opts = &o, .dd = &xc_dd_cpu, .conv = f.cv, .plan = &f.plan,
                        .input_name = "bursts.fil"};
    xc_spcandlist l;
    xc_status st = fused_gulps(path, &a, &l, NULL, NULL, &err);
    if (st != XC_EINVAL || !strstr(err.msg, "cpu") || !strstr(err.msg, "gpu"))
        printf("\n  cpu dedisperser fused: status %d, \"%s\" (expected XC_EINVAL naming cpu and gpu)", (int)st,
               err.msg);
    CU_ASSERT(st == XC_EINVAL && strstr(err.msg, "cpu") && strstr(err.msg, "gpu"));
    xc_spcandlist_free(&l);
    xc_fx_free(&f);
#endif
}

XC_TEST_MAIN("gpu_sp")
