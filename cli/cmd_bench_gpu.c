/* crosscheck bench gpu: dedispersion throughput of the GPU implementation on
 * the AstroAccelerate paper's frequency-resolution test (Novotny et al. 2023,
 * section 5.2, Table 2): kernel only, whole calls with host-device transfers,
 * and gulps through one state (plan and execute) with its setup apart. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/xc_bench_dd.h"
#include "cli/bench_util.h"
#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "core/base/xc_progress.h"
#include "core/dedisp/xc_dedisperse.h"
#ifdef XC_HAVE_CUDA
#include "bench/xc_bench_gpu.h"
#include "optimized/gpu/xc_gpu.h"
#endif

#define MAXN 16

static void help(void)
{
    printf("usage: crosscheck bench gpu -json FILE [-quick] [-nchans LIST] [-nbits LIST] [-autotune]\n"
           "                            [-reps N] [-seconds S]\n\n"
           "Times the gpu dedisperser on the AstroAccelerate paper's frequency-resolution test\n"
           "(Novotny et al. 2023, section 5.2): the Table 2 plan " TABLE2_PLAN "\n"
           "(3050 trials, no scrunching) on random data of 64 us samples, 300 MHz of band centred\n"
           "on 1400 MHz, crosscheck convention.  Reports adds per second (adds = sum over ranges of\n"
           "trials x output samples x channels) for the dedispersion kernels alone (CUDA events)\n"
           "and for the whole call including host-device transfers and allocation (wall clock),\n"
           "each the median of the timed runs after one untimed run, and the fraction of the\n"
           "device's shared-memory bandwidth the kernel reached (see the JSON's 'definitions').\n"
           "Kernel times and the whole call come from serial runs (opts.gpu_serial: one launch at a\n"
           "time).  Then the same job as gulps through one state (xc_dedisperse_gpu_exec) whose time\n"
           "chunks go through the two-stream pipeline: the first gulp's setup (allocation, delay\n"
           "upload and bounds, pinned staging) apart, and the wall clock of the later gulps, which\n"
           "reuse it (median of the timed runs): the end-to-end rate, with the input and the planes\n"
           "in pageable host memory, and the time kernels did not cover (e2e %%: its rate over the\n"
           "kernel-only rate).\n"
           "64 outputs per configuration are checked against exact host sums.\n"
           "Last, one Pulscan record (kind pulscan): the Pulscan paper's Table 4 case as `bench\n"
           "gpu-pulscan` runs it, through a plan, kernel_ms and wall_ms (page-locked spectrum) and its\n"
           "candidates against the cpu searcher's.\n\n"
           "  -json FILE       write the results as JSON (required)\n"
           "  -quick           1024 and 4096 channels, one timed run\n"
           "  -nchans LIST     channel counts, comma-separated (default 512,1024,2048,4096,8192)\n"
           "  -nbits LIST      bits per sample, comma-separated, from 1,2,4,8,16 (default 8,16)\n"
           "  -autotune        let the untimed run time the candidate settings and use the\n"
           "                   fastest (that of the first DM range) for the timed runs and gulps\n"
           "  -reps N          timed runs per configuration (default 3)\n"
           "  -seconds S       length of the data in seconds (default 10)\n");
}

#ifdef XC_HAVE_CUDA

/* Exact host sums of a few outputs: the timings are of a correct result. */
static int spot_check(const xc_ddjob *job, const xc_plane *pl, char *msg, size_t n)
{
    uint64_t s = 12345;
    const int nc = job->in->nchans;
    for (int i = 0; i < 64; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int k = (int)((s >> 33) % (uint64_t)pl->nranges);
        const xc_planerange *r = &pl->r[k];
        if (!r->ndm || !r->nsamp)
            continue;
        size_t d = (size_t)(s >> 20) % r->ndm, t = (size_t)(s >> 7) % r->nsamp;
        if (i == 0)
            d = t = 0;
        uint64_t sum = 0;
        for (int c = 0; c < nc; c++)
            sum += job->in->u16[(t + (size_t)job->delays[k][d * (size_t)nc + (size_t)c]) * (size_t)nc + (size_t)c];
        float want = xc_scale_int(job->conv, sum, nc, 1, job->in->nbits);
        if (memcmp(&want, &r->data[d * r->nsamp + t], sizeof want)) {
            snprintf(msg, n, "range %d trial %zu sample %zu: gpu %.9g, exact %.9g", k, d, t,
                     (double)r->data[d * r->nsamp + t], (double)want);
            return 1;
        }
    }
    return 0;
}

typedef struct {
    int nbits, nchans;
    double adds, kernel_ms, total_ms, h2d_ms, d2h_ms, prep_ms;
    double adds_kernel, adds_total, smem_frac, bytes_per_add;
    double setup_ms, first_gulp_ms, gulp_ms, gulp_exec_ms, adds_gulp;   /* through one state */
    int gulp_chunks;
    size_t pinned_bytes;
    double gulp_pinned_ms;   /* gulps with input and planes page-locked */
    xc_gpu_ddinfo info;
    int tuned_spt, tuned_dy, tuned_spb, tuned_cs;
} result;

static double bytes_per_add(const char *kernel)
{
    /* one 32-bit shared-memory load per word per channel; a word holds 4
     * samples (q4, q8), 2 (p16, s16) or 1 (w32, f32) */
    if (!strncmp(kernel, "smem-q", 6))
        return 1.0;
    if (!strncmp(kernel, "smem-p16", 8) || !strncmp(kernel, "smem-s16", 8))
        return 2.0;
    if (!strncmp(kernel, "smem-", 5))
        return 4.0;
    return 0.0;   /* the direct kernel reads no shared memory */
}

/* Gulps through plan dp with the input block and the plane's ranges moved
 * into page-locked memory (xc_gpu_host_alloc); res->gulp_pinned_ms is the
 * median of reps.  The block's pointer and the plane are restored. */
static int pinned_gulps(const char *cmd, xc_ddplan *dp, const xc_ddjob *job, xc_plane *pl, xc_block *blk, int reps,
                        double *gt, result *res)
{
    xc_error err;
    const size_t nin = blk->nsamp * (size_t)blk->nchans;
    size_t tot = 0;
    for (int k = 0; k < pl->nranges; k++)
        tot += pl->r[k].ndm * pl->r[k].nsamp;
    void *pin = NULL, *ppl = NULL;
    if (xc_gpu_host_alloc(&pin, nin * sizeof(uint16_t), &err) ||
        xc_gpu_host_alloc(&ppl, (tot ? tot : 1) * sizeof(float), &err)) {
        xc_gpu_host_free(pin);
        return xc_cli_fail(cmd, &err);
    }
    memcpy(pin, blk->u16, nin * sizeof(uint16_t));
    const uint16_t *u = blk->u16;
    float **heap = malloc((size_t)pl->nranges * sizeof *heap);
    int rc = 0;
    if (!heap) {
        rc = xc_cli_failf(cmd, "out of memory");
        goto out;
    }
    blk->u16 = pin;
    size_t off = 0;
    for (int k = 0; k < pl->nranges; k++) {
        heap[k] = pl->r[k].data;
        pl->r[k].data = (float *)ppl + off;
        off += pl->r[k].ndm * pl->r[k].nsamp;
    }
    for (int i = -1; i < reps && !rc; i++) {
        memset(ppl, 0xFF, (tot ? tot : 1) * sizeof(float));
        double t0 = xc_now();
        if (xc_ddplan_execute(dp, blk, pl, &err))
            rc = xc_cli_fail(cmd, &err);
        else if (i >= 0)
            gt[i] = (xc_now() - t0) * 1e3;
    }
    char msg[256];
    if (!rc && spot_check(job, pl, msg, sizeof msg))
        rc = xc_cli_failf(cmd, "%d-bit %d channels: wrong output of a pinned gulp: %s", blk->nbits, blk->nchans, msg);
    if (!rc)
        res->gulp_pinned_ms = xc_bench_median(gt, reps);
    for (int k = 0; k < pl->nranges; k++)
        pl->r[k].data = heap[k];
    blk->u16 = u;
out:
    free(heap);
    xc_gpu_host_free(ppl);
    xc_gpu_host_free(pin);
    return rc;
}

static int bench_one(const char *cmd, int nbits, int nchans, double seconds, int reps, int autotune,
                     const xc_gpu_props *props, result *res)
{
    memset(res, 0, sizeof *res);
    res->nbits = nbits;
    res->nchans = nchans;
    xc_error err;
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    if (xc_dmplan_parse(&plan, TABLE2_PLAN, "bench", &err))
        return xc_cli_fail(cmd, &err);
    const double bw = 300.0, tsamp = 64e-6;
    xc_geometry g = {nchans, 1400.0 + bw / 2 - 0.5 * bw / nchans, -bw / nchans, tsamp};
    size_t nsamp = (size_t)llround(seconds / tsamp);
    uint16_t *u = malloc(nsamp * (size_t)nchans * sizeof *u);
    if (!u) {
        xc_dmplan_free(&plan);
        return xc_cli_failf(cmd, "out of memory for %zu x %d samples", nsamp, nchans);
    }
    /* the same input as `bench dedisperse` for this nbits and nchans */
    xc_bench_fill_random(u, nsamp * (size_t)nchans, nbits, (uint64_t)nbits * 1000003u + (uint64_t)nchans);
    xc_block blk = {nchans, nsamp, nbits, u, NULL};
    xc_ddjob job;
    xc_plane pl = {0, NULL};
    int rc = 0;
    double *kt = calloc((size_t)reps, sizeof *kt), *tt = calloc((size_t)reps, sizeof *tt);
    double *gt = calloc((size_t)reps, sizeof *gt);
    xc_ddplan *dp = NULL;
    xc_ddstats ds;
    if (!kt || !tt || !gt) {
        rc = xc_cli_failf(cmd, "out of memory");
        goto out_plan;
    }
    if (xc_ddjob_init(&job, &blk, &plan, xc_convention_get("crosscheck"), &g, NULL, &err)) {
        rc = xc_cli_fail(cmd, &err);
        goto out_plan;
    }
    if (xc_plane_alloc(&pl, &job, &err)) {
        rc = xc_cli_fail(cmd, &err);
        goto out_job;
    }
    job.tune.gpu_autotune = autotune;
    /* kernel-only times and the one-shot call: every launch on its own */
    job.tune.gpu_serial = 1;
    memset(&res->info, 0, sizeof res->info);
    /* untimed: module load, first-touch of the plane, autotuning */
    if (xc_dedisperse_gpu_info(&job, &pl, &res->info, &err)) {
        rc = xc_cli_fail(cmd, &err);
        goto out_plane;
    }
    if (autotune) {
        const xc_gpu_ddrange *r0 = &res->info.range[0];
        res->tuned_spt = job.tune.gpu_samps_per_thread = r0->samps_per_thread;
        res->tuned_dy = job.tune.gpu_dms_per_block = r0->dms_per_block;
        res->tuned_spb = job.tune.gpu_samps_per_block = r0->samps_per_block;
        res->tuned_cs = job.tune.gpu_chans_per_stage = r0->chans_per_stage;
        job.tune.gpu_autotune = 0;
    }
    for (int i = 0; i < reps; i++) {
        for (int k = 0; k < pl.nranges; k++)
            memset(pl.r[k].data, 0xFF, pl.r[k].ndm * pl.r[k].nsamp * sizeof(float));
        memset(&res->info, 0, sizeof res->info);
        double t0 = xc_now();
        if (xc_dedisperse_gpu_info(&job, &pl, &res->info, &err)) {
            rc = xc_cli_fail(cmd, &err);
            goto out_plane;
        }
        tt[i] = (xc_now() - t0) * 1e3;
        kt[i] = res->info.kernel_ms;
        res->h2d_ms += res->info.h2d_ms / reps;
        res->d2h_ms += res->info.d2h_ms / reps;
        res->prep_ms += res->info.prep_ms / reps;
    }
    char msg[256];
    if (spot_check(&job, &pl, msg, sizeof msg)) {
        rc = xc_cli_failf(cmd, "%d-bit %d channels: wrong output: %s", nbits, nchans, msg);
        goto out_plane;
    }
    /* the same job as gulps through one plan of the gpu entry: the first
     * sets its state up, the others reuse its buffers, delays, settings and
     * pinned staging, and the time chunks go through the two-stream
     * pipeline; the plan's stats say what each gulp took */
    job.tune.gpu_serial = 0;
    if (xc_ddplan_create_tuned(&dp, &xc_dd_gpu, &g, nbits, &plan, job.conv, NULL, NULL, &job.tune, &err)) {
        rc = xc_cli_fail(cmd, &err);
        goto out_plane;
    }
    for (int i = -1; i < reps; i++) {
        for (int k = 0; k < pl.nranges; k++)
            memset(pl.r[k].data, 0xFF, pl.r[k].ndm * pl.r[k].nsamp * sizeof(float));
        double t0 = xc_now();
        if (xc_ddplan_execute(dp, &blk, &pl, &err)) {
            rc = xc_cli_fail(cmd, &err);
            goto out_plane;
        }
        const double ms = (xc_now() - t0) * 1e3;
        xc_ddplan_stats(dp, &ds);
        if (i < 0) {
            res->first_gulp_ms = ms;
            res->setup_ms = ds.setup_ms;
            res->gulp_chunks = ds.chunks;
            res->pinned_bytes = ds.pinned_bytes;
        } else {
            gt[i] = ms;
            res->gulp_exec_ms += ds.exec_ms / reps;
        }
    }
    if (spot_check(&job, &pl, msg, sizeof msg)) {
        rc = xc_cli_failf(cmd, "%d-bit %d channels: wrong output of a gulp: %s", nbits, nchans, msg);
        goto out_plane;
    }
    res->gulp_ms = xc_bench_median(gt, reps);
    /* and with the input and the planes in page-locked memory: no staging
     * (gt is reused for its times) */
    if ((rc = pinned_gulps(cmd, dp, &job, &pl, &blk, reps, gt, res)))
        goto out_plane;
    for (int k = 0; k < plan.nranges; k++)
        res->adds += (double)plan.r[k].ndm * (double)pl.r[k].nsamp * (double)nchans;
    res->kernel_ms = xc_bench_median(kt, reps);
    res->total_ms = xc_bench_median(tt, reps);
    res->adds_kernel = res->adds / (res->kernel_ms * 1e-3);
    res->adds_total = res->adds / (res->total_ms * 1e-3);
    res->adds_gulp = res->adds / (res->gulp_ms * 1e-3);
    res->bytes_per_add = bytes_per_add(res->info.range[0].kernel);
    res->smem_frac = res->adds_kernel * res->bytes_per_add / props->smem_bytes_per_s;
out_plane:
    xc_ddplan_destroy(dp);
    xc_plane_free(&pl);
out_job:
    xc_ddjob_free(&job);
out_plan:
    free(kt);
    free(tt);
    free(gt);
    free(u);
    xc_dmplan_free(&plan);
    return rc;
}

static json_t *result_json(const result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string("dedisperse"));
    json_object_set_new(o, "nbits", json_integer(r->nbits));
    json_object_set_new(o, "nchans", json_integer(r->nchans));
    json_object_set_new(o, "adds", json_real(r->adds));
    json_object_set_new(o, "kernel_ms", json_real(r->kernel_ms));
    json_object_set_new(o, "total_ms", json_real(r->total_ms));
    json_object_set_new(o, "h2d_ms", json_real(r->h2d_ms));
    json_object_set_new(o, "d2h_ms", json_real(r->d2h_ms));
    json_object_set_new(o, "prep_ms", json_real(r->prep_ms));
    json_object_set_new(o, "adds_per_s_kernel", json_real(r->adds_kernel));
    json_object_set_new(o, "adds_per_s_total", json_real(r->adds_total));
    json_object_set_new(o, "kernel_adds_per_s", json_real(r->adds_kernel));
    json_object_set_new(o, "end_to_end_adds_per_s", json_real(r->adds_gulp));
    json_object_set_new(o, "end_to_end_fraction", json_real(r->adds_gulp / r->adds_kernel));
    json_object_set_new(o, "exposed_ms", json_real(r->gulp_ms > r->kernel_ms ? r->gulp_ms - r->kernel_ms : 0.0));
    json_object_set_new(o, "pipeline_chunks", json_integer(r->gulp_chunks));
    json_object_set_new(o, "gulp_pinned_ms", json_real(r->gulp_pinned_ms));
    json_object_set_new(o, "end_to_end_pinned_adds_per_s", json_real(r->adds / (r->gulp_pinned_ms * 1e-3)));
    json_object_set_new(o, "pinned_bytes", json_integer((json_int_t)r->pinned_bytes));
    json_object_set_new(o, "setup_ms", json_real(r->setup_ms));
    json_object_set_new(o, "first_gulp_ms", json_real(r->first_gulp_ms));
    json_object_set_new(o, "gulp_ms", json_real(r->gulp_ms));
    json_object_set_new(o, "gulp_exec_ms", json_real(r->gulp_exec_ms));
    json_object_set_new(o, "adds_per_s_gulp", json_real(r->adds_gulp));
    json_object_set_new(o, "smem_bytes_per_add", json_real(r->bytes_per_add));
    json_object_set_new(o, "smem_fraction", json_real(r->smem_frac));
    json_object_set_new(o, "chunks", json_integer(r->info.nchunks));
    json_object_set_new(o, "device_bytes", json_integer((json_int_t)r->info.device_bytes));
    json_t *rs = json_array();
    for (int k = 0; k < r->info.nranges; k++) {
        const xc_gpu_ddrange *g = &r->info.range[k];
        json_t *x = json_object();
        json_object_set_new(x, "kernel", json_string(g->kernel));
        json_object_set_new(x, "samps_per_thread", json_integer(g->samps_per_thread));
        json_object_set_new(x, "dms_per_block", json_integer(g->dms_per_block));
        json_object_set_new(x, "samps_per_block", json_integer(g->samps_per_block));
        json_object_set_new(x, "chans_per_stage", json_integer(g->chans_per_stage));
        json_object_set_new(x, "shift_span", json_integer(g->shift_span));
        json_object_set_new(x, "smem_bytes", json_integer((json_int_t)g->smem_bytes));
        json_object_set_new(x, "kernel_ms", json_real(g->kernel_ms));
        json_array_append_new(rs, x);
    }
    json_object_set_new(o, "ranges", rs);
    if (r->tuned_spt) {
        json_t *t = json_object();
        json_object_set_new(t, "samps_per_thread", json_integer(r->tuned_spt));
        json_object_set_new(t, "dms_per_block", json_integer(r->tuned_dy));
        json_object_set_new(t, "samps_per_block", json_integer(r->tuned_spb));
        json_object_set_new(t, "chans_per_stage", json_integer(r->tuned_cs));
        json_object_set_new(o, "autotuned", t);
    }
    return o;
}

static int run_bench(const char *cmd, const char *json, const int *nbits, int nnb, const int *nchans, int nnc,
                     int reps, double seconds, int autotune)
{
    char why[256];
    if (!xc_gpu_available(why, sizeof why))
        return xc_cli_failf(cmd, "gpu unavailable: %s", why);
    xc_error err;
    xc_gpu_props props;
    if (xc_gpu_properties(&props, &err))
        return xc_cli_fail(cmd, &err);
    char desc[512];
    if (xc_gpu_describe(desc, sizeof desc, &err))
        return xc_cli_fail(cmd, &err);
    printf("device: %s\n", desc);
    printf("plan %s (3050 trials), %.3g s of 64 us samples, 1250-1550 MHz, %d timed run%s%s\n\n", TABLE2_PLAN,
           seconds, reps, reps > 1 ? "s (median)" : "", autotune ? ", autotuned" : "");
    printf("%5s %6s  %-9s %4s %3s %5s %3s  %9s %9s  %9s %9s  %6s  %8s %9s %9s %6s %9s %6s\n", "nbits", "nchans", "kernel",
           "spt", "dy", "spb", "cs", "kernel ms", "T adds/s", "total ms", "T adds/s", "smem %", "setup ms", "gulp ms",
           "T adds/s", "e2e %", "pinned ms", "e2e %");
    json_t *root = json_object(), *arr = json_array();
    int rc = 0;
    for (int b = 0; b < nnb && !rc; b++)
        for (int c = 0; c < nnc && !rc; c++) {
            result r;
            rc = bench_one(cmd, nbits[b], nchans[c], seconds, reps, autotune, &props, &r);
            if (rc)
                break;
            const xc_gpu_ddrange *g = &r.info.range[0];
            printf("%5d %6d  %-9s %4d %3d %5d %3d  %9.2f %9.3f  %9.2f %9.3f  %6.1f  %8.2f %9.2f %9.3f %6.1f %9.2f %6.1f\n",
                   r.nbits, r.nchans, g->kernel, g->samps_per_thread, g->dms_per_block, g->samps_per_block,
                   g->chans_per_stage, r.kernel_ms, r.adds_kernel / 1e12, r.total_ms, r.adds_total / 1e12,
                   100 * r.smem_frac, r.setup_ms, r.gulp_ms, r.adds_gulp / 1e12, 100 * r.adds_gulp / r.adds_kernel,
                   r.gulp_pinned_ms, 100 * r.kernel_ms / r.gulp_pinned_ms);
            fflush(stdout);
            json_array_append_new(arr, result_json(&r));
        }
    json_t *psrecs = json_array();
    if (!rc) {
        /* Pulscan on the same device: the paper's Table 4 case (bench gpu-pulscan's defaults) */
        json_t *ps = NULL;
        xc_status st = xc_bench_gpu_pulscan_record(reps < 5 ? 5 : reps, &ps, &err);
        if (st) {
            rc = xc_cli_fail(cmd, &err);
        } else {
            printf("\npulscan (T = 600 s at 128 us, zmax 256, 4 harmonics, through a plan): kernels %.4f ms, wall %.4f "
                   "ms with the spectrum page-locked (%.4f ms pageable), candidates %s the cpu's\n",
                   json_real_value(json_object_get(ps, "kernel_ms")), json_real_value(json_object_get(ps, "wall_ms")),
                   json_real_value(json_object_get(ps, "wall_pageable_ms")),
                   json_is_true(json_object_get(ps, "gpu_matches_cpu")) ? "equal to" : "DIFFERENT from");
            json_array_append(arr, ps);
            json_array_append_new(psrecs, ps);
        }
    }
    if (!rc) {
        json_t *dev = json_object();
        json_object_set_new(dev, "description", json_string(desc));
        json_object_set_new(dev, "name", json_string(props.name));
        json_object_set_new(dev, "sms", json_integer(props.sms));
        json_object_set_new(dev, "clock_khz", json_integer(props.clock_khz));
        json_object_set_new(dev, "smem_bytes_per_s", json_real(props.smem_bytes_per_s));
        json_object_set_new(root, "device", dev);
        json_object_set_new(root, "command", json_string(xc_cli_cmdline()));
        json_object_set_new(root, "plan", json_string(TABLE2_PLAN));
        json_object_set_new(root, "seconds", json_real(seconds));
        json_object_set_new(root, "tsamp_s", json_real(64e-6));
        json_object_set_new(root, "band_mhz", json_string("1250-1550 (centre 1400, 300 MHz)"));
        json_object_set_new(root, "reps", json_integer(reps));
        json_t *def = json_object();
        json_object_set_new(def, "adds", json_string("sum over DM ranges of trials x output samples x channels"));
        json_object_set_new(def, "adds_per_s_kernel",
                            json_string("adds / summed CUDA-event time of the dedispersion kernels (median of runs)"));
        json_object_set_new(def, "adds_per_s_total",
                            json_string("adds / wall time of the whole call: allocation, host-to-device copy, "
                                        "transpose/scrunch/pack, kernels, device-to-host copy (median of runs)"));
        json_object_set_new(def, "setup_ms",
                            json_string("host clock of the first gulp's setup through a state: device allocation, "
                                        "delay upload and bounds, chunk plan, autotuning (xc_gpu_ddinfo.setup_ms)"));
        json_object_set_new(def, "first_gulp_ms",
                            json_string("wall time of the first gulp through the state, setup included"));
        json_object_set_new(def, "adds_per_s_gulp",
                            json_string("adds / wall time of a later gulp through the same state: host-to-device copy, "
                                        "transpose/scrunch/pack, kernels, device-to-host copy, no allocation or delay "
                                        "upload (median of runs, gulp_ms); gulp_exec_ms is the mean of its "
                                        "xc_gpu_ddinfo.exec_ms"));
        json_object_set_new(def, "kernel_adds_per_s", json_string("= adds_per_s_kernel (serial runs, kernels alone)"));
        json_object_set_new(def, "end_to_end_adds_per_s",
                            json_string("= adds_per_s_gulp: input in pageable host memory, planes back in pageable "
                                        "host memory, through a state whose time chunks go through the two-stream "
                                        "pipeline (pinned staging held by the state)"));
        json_object_set_new(def, "end_to_end_fraction", json_string("end_to_end_adds_per_s / kernel_adds_per_s"));
        json_object_set_new(def, "end_to_end_pinned_adds_per_s",
                            json_string("as end_to_end_adds_per_s with the input block and the planes in page-locked "
                                        "host memory (xc_gpu_host_alloc): no staging, copies straight to and from "
                                        "the caller's memory"));
        json_object_set_new(def, "exposed_ms",
                            json_string("gulp_ms - kernel_ms: the time of a pipelined gulp that kernels did not "
                                        "cover (copies, staging and packing left exposed)"));
        json_object_set_new(def, "smem_fraction",
                            json_string("adds_per_s_kernel x shared-memory bytes loaded per add (4 bytes per "
                                        "32-bit word load / samples per word: 1 for q4/q8, 2 for p16/s16, 4 for w32) / "
                                        "(SMs x 32 banks x 4 bytes x peak SM clock), the paper's eq. (8); staging "
                                        "stores and shift-table loads are not counted"));
        json_object_set_new(root, "definitions", def);
        json_object_set_new(root, "anchors",
                            json_string("dedisp on an H200, this plan, with transfers: 0.50-0.77 T adds/s; "
                                        "AstroAccelerate 8-bit on an A100, kernel only: about 5 T adds/s"));
        json_object_set_new(def, "pulscan",
                            json_string("records of kind pulscan (also in results): the Pulscan paper's Table 4 case "
                                        "(bench gpu-pulscan's defaults) through one plan; kernel_ms = the stages' "
                                        "summed CUDA-event times, wall_ms = host clock from the copy of a page-locked "
                                        "spectrum to the peaks on the host (wall_pageable_ms: the spectrum in pageable "
                                        "memory), medians of the timed runs"));
        json_object_set_new(root, "results", arr);
        json_object_set_new(root, "pulscan", psrecs);
        psrecs = NULL;
        arr = NULL;
        rc = xc_bench_write_json(cmd, json, root);
    }
    json_decref(arr);
    json_decref(psrecs);
    json_decref(root);
    return rc;
}

#endif

int xc_bench_gpu(int argc, char **argv)
{
    static const xc_optspec spec = {"bench gpu", help, 0};
    const char *cmd = spec.cmd;
    const char *json = NULL;
    int quick = 0, autotune = 0, reps = 3, nchans_given = 0, reps_given = 0;
    int nchans_v[MAXN] = {512, 1024, 2048, 4096, 8192}, nbits_v[MAXN] = {8, 16};
    xc_cli_ints nchans = {nchans_v, 5, MAXN}, nbits = {nbits_v, 2, MAXN};
    double seconds = 10.0;
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json),
        XC_OPT_FLAG("quick", &quick),
        {.name = "nchans", .kind = XC_OPTK_INTS, .dest = &nchans, .lo = 1, .hi = 1 << 20, .given = &nchans_given},
        XC_OPT_INTS("nbits", &nbits, 1, 16),
        XC_OPT_FLAG("autotune", &autotune),
        {.name = "reps", .kind = XC_OPTK_INT, .dest = &reps, .lo = 1, .hi = 1000, .given = &reps_given},
        XC_OPT_DOUBLE("seconds", &seconds),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    if (xc_bench_check_nbits(cmd, nbits.v, nbits.n))
        return 2;
    if (!(seconds > 0.5 && seconds <= 3600))
        return xc_cli_failf(cmd, "option -seconds: %g is outside (0.5, 3600]", seconds);
    if (!json)
        return xc_cli_failf(cmd, "-json FILE is required (see -h)");
    if (quick) {
        if (!nchans_given) {
            nchans.v[0] = 1024;
            nchans.v[1] = 4096;
            nchans.n = 2;
        }
        if (!reps_given)
            reps = 1;
    }
#ifdef XC_HAVE_CUDA
    return run_bench(cmd, json, nbits.v, nbits.n, nchans.v, nchans.n, reps, seconds, autotune);
#else
    (void)autotune;
    return xc_bench_no_cuda(cmd);
#endif
}
