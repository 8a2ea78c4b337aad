/* The GPU dedispersion benchmark (xc_bench_gpu.h): the gpu dedisperser on
 * the AstroAccelerate paper's Table 2 plan, kernels alone, the whole call,
 * and gulps through one plan with the data pageable and page-locked. */
#ifdef XC_HAVE_CUDA

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xc_bench_dd.h"
#include "bench/xc_bench_gpu.h"
#include "core/base/xc_progress.h"
#include "optimized/gpu/gpu_hostcopy.h"

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

/* The job of one configuration: the Table 2 plan on random data (the same
 * input as `bench dedisperse` for this nbits and nchans), and its plane. */
typedef struct {
    xc_dmplan plan;
    xc_geometry g;
    uint16_t *u;
    xc_block blk;
    xc_ddjob job;
    xc_plane pl;
    int have_job;
} gpu_job;

static void job_free(gpu_job *j)
{
    xc_plane_free(&j->pl);
    if (j->have_job)
        xc_ddjob_free(&j->job);
    free(j->u);
    xc_dmplan_free(&j->plan);
}

static xc_status job_make(int nbits, int nchans, double seconds, gpu_job *j, xc_error *err)
{
    memset(j, 0, sizeof *j);
    xc_dmplan_init(&j->plan);
    xc_status st = xc_dmplan_parse(&j->plan, TABLE2_PLAN, "bench", err);
    if (st)
        return st;
    const double bw = 300.0, tsamp = 64e-6;
    j->g = (xc_geometry){nchans, 1400.0 + bw / 2 - 0.5 * bw / nchans, -bw / nchans, tsamp};
    size_t nsamp = (size_t)llround(seconds / tsamp);
    j->u = malloc(nsamp * (size_t)nchans * sizeof *j->u);
    if (!j->u) {
        job_free(j);
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu x %d samples", nsamp, nchans);
    }
    xc_bench_fill_random(j->u, nsamp * (size_t)nchans, nbits, (uint64_t)nbits * 1000003u + (uint64_t)nchans);
    j->blk = (xc_block){nchans, nsamp, nbits, j->u, NULL};
    if (!(st = xc_ddjob_init(&j->job, &j->blk, &j->plan, xc_convention_get("crosscheck"), &j->g, NULL, err))) {
        j->have_job = 1;
        st = xc_plane_alloc(&j->pl, &j->job, err);
    }
    if (st)
        job_free(j);
    return st;
}

static void plane_poison(xc_plane *pl)
{
    for (int k = 0; k < pl->nranges; k++)
        memset(pl->r[k].data, 0xFF, pl->r[k].ndm * pl->r[k].nsamp * sizeof(float));
}

static xc_status check_output(const gpu_job *j, const char *what, xc_error *err)
{
    char msg[256];
    if (spot_check(&j->job, &j->pl, msg, sizeof msg))
        return xc_error_set(err, XC_EMISMATCH, "%d-bit %d channels: wrong output%s: %s", j->blk.nbits,
                            j->blk.nchans, what, msg);
    return XC_OK;
}

/* Kernel-only times and the one-shot call, every launch on its own: an
 * untimed run (module load, first-touch of the plane, autotuning), then
 * reps, whose medians go to res. */
static xc_status time_serial(gpu_job *j, int reps, int autotune, double *kt, double *tt, xc_bench_gpu_dd *res,
                             xc_error *err)
{
    j->job.tune.gpu_autotune = autotune;
    j->job.tune.gpu_serial = 1;
    memset(&res->info, 0, sizeof res->info);
    xc_status st = xc_dedisperse_gpu_info(&j->job, &j->pl, &res->info, err);
    if (st)
        return st;
    if (autotune) {
        const xc_gpu_ddrange *r0 = &res->info.range[0];
        res->tuned_spt = j->job.tune.gpu_samps_per_thread = r0->samps_per_thread;
        res->tuned_dy = j->job.tune.gpu_dms_per_block = r0->dms_per_block;
        res->tuned_spb = j->job.tune.gpu_samps_per_block = r0->samps_per_block;
        res->tuned_cs = j->job.tune.gpu_chans_per_stage = r0->chans_per_stage;
        j->job.tune.gpu_autotune = 0;
    }
    for (int i = 0; i < reps && !st; i++) {
        plane_poison(&j->pl);
        memset(&res->info, 0, sizeof res->info);
        double t0 = xc_now();
        if ((st = xc_dedisperse_gpu_info(&j->job, &j->pl, &res->info, err)))
            break;
        tt[i] = (xc_now() - t0) * 1e3;
        kt[i] = res->info.kernel_ms;
        res->h2d_ms += res->info.h2d_ms / reps;
        res->d2h_ms += res->info.d2h_ms / reps;
        res->prep_ms += res->info.prep_ms / reps;
    }
    return st ? st : check_output(j, "", err);
}

/* The same job as gulps through one plan of the gpu entry: the first sets
 * its state up, the others reuse its buffers, delays, settings and pinned
 * staging, and the time chunks go through the two-stream pipeline; the
 * plan's stats say what each gulp took. */
static xc_status time_gulps(gpu_job *j, xc_ddplan *dp, int reps, double *gt, xc_bench_gpu_dd *res, xc_error *err)
{
    xc_status st = XC_OK;
    xc_ddstats ds;
    for (int i = -1; i < reps && !st; i++) {
        plane_poison(&j->pl);
        double t0 = xc_now();
        if ((st = xc_ddplan_execute(dp, &j->blk, &j->pl, err)))
            break;
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
    if (!st && !(st = check_output(j, " of a gulp", err)))
        res->gulp_ms = xc_bench_median(gt, reps);
    return st;
}

/* Gulps through plan dp with the input block and the plane's ranges moved
 * into page-locked memory (xc_gpu_host_alloc); res->gulp_pinned_ms is the
 * median of reps.  The block's pointer and the plane are restored. */
static xc_status pinned_gulps(xc_ddplan *dp, gpu_job *j, int reps, double *gt, xc_bench_gpu_dd *res, xc_error *err)
{
    xc_plane *pl = &j->pl;
    xc_block *blk = &j->blk;
    const size_t nin = blk->nsamp * (size_t)blk->nchans;
    size_t tot = 0;
    for (int k = 0; k < pl->nranges; k++)
        tot += pl->r[k].ndm * pl->r[k].nsamp;
    void *pin = NULL, *ppl = NULL;
    xc_status st = xc_gpu_host_alloc(&pin, nin * sizeof(uint16_t), err);
    if (!st)
        st = xc_gpu_host_alloc(&ppl, (tot ? tot : 1) * sizeof(float), err);
    float **heap = st ? NULL : malloc((size_t)pl->nranges * sizeof *heap);
    if (!st && !heap)
        st = xc_error_set(err, XC_ENOMEM, "out of memory");
    if (st) {
        xc_gpu_host_free(ppl);
        xc_gpu_host_free(pin);
        return st;
    }
    memcpy(pin, blk->u16, nin * sizeof(uint16_t));
    const uint16_t *u = blk->u16;
    blk->u16 = pin;
    size_t off = 0;
    for (int k = 0; k < pl->nranges; k++) {
        heap[k] = pl->r[k].data;
        pl->r[k].data = (float *)ppl + off;
        off += pl->r[k].ndm * pl->r[k].nsamp;
    }
    for (int i = -1; i < reps && !st; i++) {
        memset(ppl, 0xFF, (tot ? tot : 1) * sizeof(float));
        double t0 = xc_now();
        if (!(st = xc_ddplan_execute(dp, blk, pl, err)) && i >= 0)
            gt[i] = (xc_now() - t0) * 1e3;
    }
    if (!st && !(st = check_output(j, " of a pinned gulp", err))) {
        res->gulp_pinned_ms = xc_bench_median(gt, reps);
        xc_ddstats ds;
        xc_ddplan_stats(dp, &ds);
        res->pinned_chunks = ds.chunks;
    }
    for (int k = 0; k < pl->nranges; k++)
        pl->r[k].data = heap[k];
    blk->u16 = u;
    free(heap);
    xc_gpu_host_free(ppl);
    xc_gpu_host_free(pin);
    return st;
}

/* The staging's host copy rates (xc_gpu_hostcopy_rates, 256 MiB): into
 * staging alone (res->hostcopy_bps), and the copies a pageable gulp of this
 * nbits makes (in: narrowing for at most 8 bits), alone and beside DMA both
 * ways, with the host memory's throughput then; zeros where the memory is
 * not there. */
static void hostcopy_rates(int nbits, xc_bench_gpu_dd *res)
{
    xc_gpu_copyrates r;
    xc_error err;
    if (xc_gpu_hostcopy_rates((size_t)256 << 20, &r, &err))
        return;
    res->hostcopy_bps = r.in[0];
    for (int busy = 0; busy < 2; busy++) {
        res->hostcopy_in_bps[busy] = nbits <= 8 ? r.narrow[busy] : r.in[busy];
        res->hostcopy_out_bps[busy] = r.out[busy];
    }
    res->dma_busy_bps = r.dma_bps;
    res->mem_bps = r.mem_bps;
}

/* Seconds of a pageable gulp's host side at the measured rates: while the
 * link's DMA runs (the larger direction's bytes at dma_busy_bps) the host
 * copies run at their rates beside DMA, the rest of them alone (or, where
 * the copies end first, the rest of the DMA at the link's own rate).  On the
 * hosts measured both running together moved more bytes per second than
 * either alone, so keeping both busy while the DMA lasts is the fastest mix
 * of the measured rates. */
static double host_side_s(const xc_bench_gpu_dd *r, int narrowed)
{
    const double dma_bytes = fmax(r->plane_bytes, narrowed ? r->in_bytes / 2 : r->in_bytes);
    const double t_dma = dma_bytes / r->dma_busy_bps;
    const double alone = r->in_bytes / r->hostcopy_in_bps[0] + r->plane_bytes / r->hostcopy_out_bps[0];
    const double busy = r->in_bytes / r->hostcopy_in_bps[1] + r->plane_bytes / r->hostcopy_out_bps[1];
    if (busy <= t_dma)
        return busy + (dma_bytes - busy * r->dma_busy_bps) / fmin(r->h2d_bps, r->d2h_bps);
    return t_dma + (1 - t_dma / busy) * alone;
}

/* The gulps' copies over the measured page-locked bandwidth, the two
 * directions overlapped (the pipeline copies in and out on two streams):
 * the rate PCIe allows, and the bound min(kernel rate, that rate). */
static xc_status pcie_bound(const gpu_job *j, xc_bench_gpu_dd *res, xc_error *err)
{
    xc_status st = xc_gpu_bandwidth((size_t)256 << 20, &res->h2d_bps, &res->d2h_bps, err);
    if (st)
        return st;
    hostcopy_rates(j->blk.nbits, res);
    res->in_bytes = (double)j->blk.nsamp * (double)j->blk.nchans * sizeof(uint16_t);
    res->plane_bytes = 0;
    for (int k = 0; k < j->pl.nranges; k++)
        res->plane_bytes += (double)j->pl.r[k].ndm * (double)j->pl.r[k].nsamp * sizeof(float);
    const double tin = res->in_bytes / res->h2d_bps, tout = res->plane_bytes / res->d2h_bps;
    res->adds_pcie = res->adds / (tin > tout ? tin : tout);
    res->adds_bound = res->adds_pcie < res->adds_kernel ? res->adds_pcie : res->adds_kernel;
    /* a pageable gulp's host copies (in, then out, on the same threads),
     * alone; and the host memory's traffic: per plane byte the DMA's write
     * into staging, the copy's read and write; per input byte the copy's
     * read, its write and the DMA's read (half of each once narrowed) */
    if (res->hostcopy_in_bps[0] > 0 && res->hostcopy_out_bps[0] > 0)
        res->adds_hostcopy =
            res->adds / (res->in_bytes / res->hostcopy_in_bps[0] + res->plane_bytes / res->hostcopy_out_bps[0]);
    res->mem_traffic = 3 * res->plane_bytes + (j->blk.nbits <= 8 ? 2 : 3) * res->in_bytes;
    if (res->mem_bps > 0)
        res->adds_mem = res->adds / (res->mem_traffic / res->mem_bps);
    double b = res->adds_bound;
    b = res->adds_hostcopy > 0 && res->adds_hostcopy < b ? res->adds_hostcopy : b;
    res->adds_pageable_bound = res->adds_mem > 0 && res->adds_mem < b ? res->adds_mem : b;
    if (res->hostcopy_in_bps[1] > 0 && res->hostcopy_out_bps[1] > 0 && res->dma_busy_bps > 0) {
        res->adds_host_side = res->adds / host_side_s(res, j->blk.nbits <= 8);
        res->adds_schedule_bound = res->adds_host_side < res->adds_bound ? res->adds_host_side : res->adds_bound;
    }
    return XC_OK;
}

/* The rates of the medians. */
static void rates(const gpu_job *j, int reps, double *kt, double *tt, const xc_gpu_props *props, xc_bench_gpu_dd *res)
{
    for (int k = 0; k < j->plan.nranges; k++)
        res->adds += (double)j->plan.r[k].ndm * (double)j->pl.r[k].nsamp * (double)j->blk.nchans;
    res->kernel_ms = xc_bench_median(kt, reps);
    res->total_ms = xc_bench_median(tt, reps);
    res->adds_kernel = res->adds / (res->kernel_ms * 1e-3);
    res->adds_total = res->adds / (res->total_ms * 1e-3);
    res->adds_gulp = res->adds / (res->gulp_ms * 1e-3);
    res->bytes_per_add = bytes_per_add(res->info.range[0].kernel);
    res->smem_frac = res->adds_kernel * res->bytes_per_add / props->smem_bytes_per_s;
}

xc_status xc_bench_gpu_dd_one(int nbits, int nchans, double seconds, int reps, int autotune,
                              const xc_gpu_props *props, xc_bench_gpu_dd *res, xc_error *err)
{
    memset(res, 0, sizeof *res);
    res->nbits = nbits;
    res->nchans = nchans;
    double *kt = calloc((size_t)reps, sizeof *kt), *tt = calloc((size_t)reps, sizeof *tt);
    double *gt = calloc((size_t)reps, sizeof *gt);
    gpu_job j;
    xc_ddplan *dp = NULL;
    xc_status st = kt && tt && gt ? job_make(nbits, nchans, seconds, &j, err) : xc_error_set(err, XC_ENOMEM, "out of memory");
    if (!st) {
        if (!(st = time_serial(&j, reps, autotune, kt, tt, res, err))) {
            j.job.tune.gpu_serial = 0;
            st = xc_ddplan_create_tuned(&dp, &xc_dd_gpu, &j.g, nbits, &j.plan, j.job.conv, NULL, NULL, &j.job.tune,
                                        err);
        }
        if (!st)
            st = time_gulps(&j, dp, reps, gt, res, err);
        /* and with the input and the planes in page-locked memory: no
         * staging (gt is reused for its times) */
        if (!st)
            st = pinned_gulps(dp, &j, reps, gt, res, err);
        /* pageable again, registered for each job by the dedisperser, then
         * registered by the first gulp and kept by the plan */
        for (int mode = 1; mode <= 2 && !st; mode++) {
            xc_ddplan_destroy(dp);
            dp = NULL;
            xc_bench_gpu_dd keep = *res;
            j.job.tune.gpu_register = mode;
            st = xc_ddplan_create_tuned(&dp, &xc_dd_gpu, &j.g, nbits, &j.plan, j.job.conv, NULL, NULL, &j.job.tune,
                                        err);
            if (!st)
                st = time_gulps(&j, dp, reps, gt, res, err);
            if (mode == 1) {
                keep.gulp_reg_ms = res->gulp_ms;
            } else {
                keep.gulp_kept_ms = res->gulp_ms;
                keep.first_kept_ms = res->first_gulp_ms;
            }
            *res = keep;
        }
        if (!st)
            rates(&j, reps, kt, tt, props, res);
        if (!st)
            st = pcie_bound(&j, res, err);
        xc_ddplan_destroy(dp);
        job_free(&j);
    }
    free(kt);
    free(tt);
    free(gt);
    return st;
}

json_t *xc_bench_gpu_dd_json(const xc_bench_gpu_dd *r)
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
    json_object_set_new(o, "end_to_end_registered_adds_per_s", json_real(r->adds / (r->gulp_reg_ms * 1e-3)));
    json_object_set_new(o, "h2d_bytes_per_s", json_real(r->h2d_bps));
    json_object_set_new(o, "d2h_bytes_per_s", json_real(r->d2h_bps));
    json_object_set_new(o, "host_copy_bytes_per_s", json_real(r->hostcopy_bps));
    json_object_set_new(o, "input_bytes", json_real(r->in_bytes));
    json_object_set_new(o, "plane_bytes", json_real(r->plane_bytes));
    json_object_set_new(o, "pcie_adds_per_s", json_real(r->adds_pcie));
    json_object_set_new(o, "pcie_bound_adds_per_s", json_real(r->adds_bound));
    json_object_set_new(o, "end_to_end_fraction_of_bound", json_real(r->adds_gulp / r->adds_bound));
    json_object_set_new(o, "end_to_end_registered_fraction_of_bound",
                        json_real(r->adds / (r->gulp_reg_ms * 1e-3) / r->adds_bound));
    /* the bounds of a pageable gulp and the registration kept by the plan */
    const struct {
        const char *name;
        double v;
    } more[] = {
        {"end_to_end_registered_kept_adds_per_s", r->adds / (r->gulp_kept_ms * 1e-3)},
        {"end_to_end_registered_kept_fraction_of_bound", r->adds / (r->gulp_kept_ms * 1e-3) / r->adds_bound},
        {"end_to_end_pinned_fraction_of_bound", r->adds / (r->gulp_pinned_ms * 1e-3) / r->adds_bound},
        {"registered_kept_first_gulp_ms", r->first_kept_ms},
        {"host_copy_in_bytes_per_s", r->hostcopy_in_bps[0]},
        {"host_copy_out_bytes_per_s", r->hostcopy_out_bps[0]},
        {"host_copy_in_during_dma_bytes_per_s", r->hostcopy_in_bps[1]},
        {"host_copy_out_during_dma_bytes_per_s", r->hostcopy_out_bps[1]},
        {"dma_during_host_copy_bytes_per_s", r->dma_busy_bps},
        {"host_memory_bytes_per_s", r->mem_bps},
        {"host_memory_traffic_bytes", r->mem_traffic},
        {"host_copy_adds_per_s", r->adds_hostcopy},
        {"host_memory_adds_per_s", r->adds_mem},
        {"pageable_bound_adds_per_s", r->adds_pageable_bound},
        {"end_to_end_fraction_of_pageable_bound", r->adds_gulp / r->adds_pageable_bound},
        {"host_side_adds_per_s", r->adds_host_side},
        {"pageable_schedule_bound_adds_per_s", r->adds_schedule_bound},
        {"end_to_end_fraction_of_pageable_schedule_bound",
         r->adds_schedule_bound > 0 ? r->adds_gulp / r->adds_schedule_bound : 0.0},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        json_object_set_new(o, more[i].name, json_real(more[i].v));
    json_object_set_new(o, "end_to_end_fraction", json_real(r->adds_gulp / r->adds_kernel));
    json_object_set_new(o, "exposed_ms", json_real(r->gulp_ms > r->kernel_ms ? r->gulp_ms - r->kernel_ms : 0.0));
    json_object_set_new(o, "pipeline_chunks", json_integer(r->gulp_chunks));
    json_object_set_new(o, "gulp_pinned_ms", json_real(r->gulp_pinned_ms));
    json_object_set_new(o, "pinned_gulp_chunks", json_integer(r->pinned_chunks));
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
        json_array_append_new(rs, json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:I, s:f}", "kernel", g->kernel,
                                            "samps_per_thread", g->samps_per_thread, "dms_per_block",
                                            g->dms_per_block, "samps_per_block", g->samps_per_block,
                                            "chans_per_stage", g->chans_per_stage, "shift_span", g->shift_span,
                                            "smem_bytes", (json_int_t)g->smem_bytes, "kernel_ms", g->kernel_ms));
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

json_t *xc_bench_gpu_doc(const char *desc, const xc_gpu_props *props, const char *command, double seconds, int reps,
                         json_t *results, json_t *psrecs)
{
    json_t *root = json_object();
    json_t *dev = json_object();
    json_object_set_new(dev, "description", json_string(desc));
    json_object_set_new(dev, "name", json_string(props->name));
    json_object_set_new(dev, "sms", json_integer(props->sms));
    json_object_set_new(dev, "clock_khz", json_integer(props->clock_khz));
    json_object_set_new(dev, "smem_bytes_per_s", json_real(props->smem_bytes_per_s));
    json_object_set_new(root, "device", dev);
    json_object_set_new(root, "command", json_string(command ? command : ""));
    json_object_set_new(root, "plan", json_string(TABLE2_PLAN));
    json_object_set_new(root, "seconds", json_real(seconds));
    json_object_set_new(root, "tsamp_s", json_real(64e-6));
    json_object_set_new(root, "band_mhz", json_string("1250-1550 (centre 1400, 300 MHz)"));
    json_object_set_new(root, "reps", json_integer(reps));
    json_t *def = xc_bench_gpu_definitions();
    json_object_set_new(root, "definitions", def);
    json_object_set_new(root, "anchors",
                        json_string("dedisp on an H200, this plan, with transfers: 0.50-0.77 T adds/s; "
                                    "AstroAccelerate 8-bit on an A100, kernel only: about 5 T adds/s"));
    json_object_set_new(root, "results", results);
    json_object_set_new(root, "pulscan", psrecs);
    return root;
}

#endif
