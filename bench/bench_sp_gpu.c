/* The fused GPU single-pulse benchmark (xc_bench_gpu.h): random data
 * through the gpu dedisperser into a plane in device memory, searched there
 * by the gpu searcher (a fused plan, xc_sp_gpu_fused_execute per block),
 * timed from the filterbank block in host memory to the candidates on the
 * host, against the dedispersion
 * kernels alone (the serial path's CUDA-event time) on the same data. */
#ifdef XC_HAVE_CUDA

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xc_bench_dd.h"
#include "bench/xc_bench_gpu.h"
#include "core/base/xc_progress.h"
#include "core/sp/xc_spsearch.h"

/* The AstroAccelerate paper's example plan (AstroAccelerate's README), cut
 * at each scenario's largest DM. */
#define AA_PLAN_1500 "0:150:0.1:1,150:300:0.2:1,300:500:0.25:1,500:900:0.4:2,900:1200:0.6:4,1200:1500:0.8:4"
#define AA_PLAN_2000 AA_PLAN_1500 ",1500:2000:1:4"
#define AA_PLAN_3000 AA_PLAN_2000 ",2000:3000:2:8"

/* Novotny et al. 2023, Table 3 (low, mid, high centre frequency; 300 s, 50 s, 50 s). */
const xc_bench_spgpu_case xc_bench_spgpu_scenarios[3] = {
    {"low", 1024, 8, 400, 200, 256e-6, 300, AA_PLAN_1500},
    {"mid", 4096, 8, 800, 200, 128e-6, 50, AA_PLAN_2000},
    {"high", 4096, 8, 1400, 300, 64e-6, 50, AA_PLAN_3000},
};

typedef struct {
    xc_dmplan plan;
    xc_geometry g;
    uint16_t *u;
    xc_block blk;
    xc_spopts so;
} fz_data;

static void data_free(fz_data *d)
{
    free(d->u);
    xc_dmplan_free(&d->plan);
}

static xc_status data_make(const xc_bench_spgpu_case *c, int nwidths, fz_data *d, xc_error *err)
{
    memset(d, 0, sizeof *d);
    xc_dmplan_init(&d->plan);
    xc_status st = xc_dmplan_parse(&d->plan, c->dmplan, "bench singlepulse -fused", err);
    if (st)
        return st;
    const double foff = -c->bw / c->nchans;
    d->g = (xc_geometry){c->nchans, c->fc + c->bw / 2 + foff / 2, foff, c->tsamp};
    const size_t nsamp = (size_t)llround(c->tobs / c->tsamp);
    d->u = malloc(nsamp * (size_t)c->nchans * sizeof *d->u);
    if (!d->u) {
        data_free(d);
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu x %d samples", nsamp, c->nchans);
    }
    xc_bench_fill_random(d->u, nsamp * (size_t)c->nchans, c->nbits, (uint64_t)c->nbits * 1000003u + (uint64_t)c->nchans);
    d->blk = (xc_block){c->nchans, nsamp, c->nbits, d->u, NULL};
    xc_spopts_default(&d->so, XC_SP_HEIMDALL);
    d->so.nwidths = nwidths;
    for (int i = 0; i < nwidths; i++)
        d->so.widths[i] = (int32_t)1 << i;
    return XC_OK;
}

/* A plan of the gpu dedisperser (serial: every launch timed on its own) and
 * a fused plan over it, as a gulped run makes them once; a first execute
 * (*first: its host clock; it sets the plans up: the device plane, the
 * dedisperser's buffers, delays and staging), then reps timed, each what a
 * later gulp pays; *wall the median of the host clock, *kernel_ms the median
 * of the dedispersion kernels' time, *search_ms the median of the search
 * kernels' (xc_spfused_info.search_kernel_s). */
static xc_status time_fused(fz_data *d, int serial, int reps, double *wall, double *first, double *kernel_ms,
                            double *search_ms, size_t *ncand, int64_t *max_delay, xc_spfused_info *info,
                            xc_error *err)
{
    xc_ddtune t;
    memset(&t, 0, sizeof t);
    t.gpu_serial = serial;
    xc_ddplan *p = NULL;
    xc_spfused *f = NULL;
    double w[XC_BENCH_MAX_RUNS], k[XC_BENCH_MAX_RUNS], sk[XC_BENCH_MAX_RUNS];
    xc_status st = xc_ddplan_create_tuned(&p, &xc_dd_gpu, &d->g, d->blk.nbits, &d->plan,
                                          xc_convention_get("crosscheck"), NULL, NULL, &t, err);
    if (!st)
        *max_delay = xc_ddplan_max_delay(p);
    if (!st)
        st = xc_sp_gpu_fused_create(&f, p, &d->plan, d->g.tsamp, &xc_sp_gpu, err);
    for (int i = -1; i < reps && !st; i++) {
        xc_spcandlist l;
        xc_spcandlist_init(&l);
        const double t0 = xc_now();
        st = xc_sp_gpu_fused_execute(f, &d->blk, &d->so, &l, info, err);
        const double dt = xc_now() - t0;
        *ncand = l.n;
        xc_spcandlist_free(&l);
        xc_ddstats ds;
        if (!st && i < 0)
            *first = dt;
        if (!st && i >= 0 && !(st = xc_ddplan_stats(p, &ds))) {
            w[i] = dt;
            k[i] = ds.kernel_ms;
            sk[i] = info->search_kernel_s * 1e3;
        }
    }
    xc_sp_gpu_fused_destroy(f);
    xc_ddplan_destroy(p);
    if (!st) {
        *wall = xc_bench_median(w, reps);
        *kernel_ms = xc_bench_median(k, reps);
        *search_ms = xc_bench_median(sk, reps);
    }
    return st;
}

/* The same block as a stream of gulps through a fused plan (submit per
 * gulp: its dedispersion runs while the search of the gulp before runs on
 * a thread of its own): two gulps untimed (the plans' setup, and a first
 * search to overlap), then reps timed, each what one more gulp of a long
 * run costs in the steady state (*wall the median); every gulp's
 * candidates must number ncand (the execute's). */
static xc_status time_stream(fz_data *d, int reps, size_t ncand, double *wall, xc_spfused_info *info,
                             xc_error *err)
{
    xc_ddtune t;
    memset(&t, 0, sizeof t);
    xc_ddplan *p = NULL;
    xc_spfused *f = NULL;
    double w[XC_BENCH_MAX_RUNS];
    xc_status st = xc_ddplan_create_tuned(&p, &xc_dd_gpu, &d->g, d->blk.nbits, &d->plan,
                                          xc_convention_get("crosscheck"), NULL, NULL, &t, err);
    if (!st)
        st = xc_sp_gpu_fused_create(&f, p, &d->plan, d->g.tsamp, &xc_sp_gpu, err);
    for (int i = -2; i <= reps && !st; i++) {
        xc_spcandlist l;
        xc_spcandlist_init(&l);
        int have = 0;
        const double t0 = xc_now();
        st = i < reps ? xc_sp_gpu_fused_submit(f, &d->blk, &d->so, &l, &have, info, err)
                      : xc_sp_gpu_fused_finish(f, &l, &have, NULL, err);
        const double dt = xc_now() - t0;
        if (!st && have && l.n != ncand)
            st = xc_error_set(err, XC_EMISMATCH, "bench singlepulse -fused: %zu candidates in a stream's gulp, %zu "
                                                 "executed",
                              l.n, ncand);
        xc_spcandlist_free(&l);
        if (!st && i >= 0 && i < reps)
            w[i] = dt;
    }
    xc_sp_gpu_fused_destroy(f);
    xc_ddplan_destroy(p);
    if (!st)
        *wall = xc_bench_median(w, reps);
    return st;
}

/* The plane's samples: trials x output samples over the ranges. */
static double plane_samples(const fz_data *d, size_t nout)
{
    double n = 0;
    for (int k = 0; k < d->plan.nranges; k++)
        n += (double)d->plan.r[k].ndm * (double)(nout / (size_t)d->plan.r[k].ds);
    return n;
}

xc_status xc_bench_sp_fused(const xc_bench_spgpu_case *c, int nwidths, int reps, json_t **rec, xc_error *err)
{
    fz_data d;
    xc_status st = data_make(c, nwidths, &d, err);
    if (st)
        return st;
    double wall = 0, kms = 0, swall = 0, pkms = 0, first = 0, sfirst = 0, stream = 0, skms = 0, sskms = 0;
    size_t ncand = 0, nc2 = 0;
    int64_t md = 0;
    xc_spfused_info info, sinfo, qinfo;
    /* kernels alone from the serial path, then the pipelined fused run */
    if (!(st = time_fused(&d, 1, reps, &swall, &sfirst, &kms, &sskms, &nc2, &md, &sinfo, err)))
        st = time_fused(&d, 0, reps, &wall, &first, &pkms, &skms, &ncand, &md, &info, err);
    if (!st && nc2 != ncand)
        st = xc_error_set(err, XC_EMISMATCH, "bench singlepulse -fused: %s: %zu candidates pipelined, %zu serial",
                          c->name, ncand, nc2);
    if (!st)
        st = time_stream(&d, reps, ncand, &stream, &qinfo, err);
    if (!st) {
        double adds = 0;
        const size_t nout = d.blk.nsamp - (size_t)md;
        for (int k = 0; k < d.plan.nranges; k++)
            adds += (double)d.plan.r[k].ndm * (double)(nout / (size_t)d.plan.r[k].ds) * (double)c->nchans;
        /* own: the rate of the pipeline's own kernels, each half timed alone
         * (the dedispersion's in the serial path, the search's in the
         * pipelined execute), what a fusion that removed every transfer and
         * idle gap would reach without overlapping the halves */
        const double tobs = (double)d.blk.nsamp * c->tsamp, kr = adds / (kms * 1e-3), fr = adds / wall,
                     qr = adds / stream, own = adds / ((kms + skms) * 1e-3);
        *rec = json_pack("{s:s, s:s, s:i, s:i, s:f, s:f, s:f, s:f, s:s, s:I, s:I, s:i}", "kind", "singlepulse-fused",
                         "case", c->name, "nchans", c->nchans, "nbits", c->nbits, "fc_mhz", c->fc, "bw_mhz", c->bw,
                         "tsamp_us", c->tsamp * 1e6, "tobs_s", tobs, "dmplan", c->dmplan, "trials",
                         (json_int_t)xc_dmplan_ndm(&d.plan), "nout", (json_int_t)nout, "widths", nwidths);
        json_t *m = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:f, s:f}", "adds", adds,
                              "kernel_ms", kms, "kernel_adds_per_s", kr, "fused_s", wall, "fused_first_s", first,
                              "fused_dedisperse_s", info.dedisperse_s,
                              "fused_search_s", info.search_s, "fused_adds_per_s", fr, "fused_fraction_of_kernel",
                              fr / kr, "plane_bytes", (json_int_t)info.plane_bytes, "candidates", (json_int_t)ncand,
                              "realtime_factor", tobs / wall, "realtime_factor_kernel", tobs / (kms * 1e-3));
        json_t *q = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "stream_s", stream, "stream_dedisperse_s",
                              qinfo.dedisperse_s, "stream_search_s", qinfo.search_s, "stream_adds_per_s", qr,
                              "stream_fraction_of_kernel", qr / kr, "realtime_factor_stream", tobs / stream);
        json_t *o = json_pack("{s:f, s:f, s:f, s:f}", "search_kernel_ms", skms, "search_kernel_ps_per_sample",
                              skms * 1e9 / plane_samples(&d, nout), "own_kernels_adds_per_s", own,
                              "fused_fraction_of_own_kernels", fr / own);
        /* the search's host clock in the last timed execute, step by step:
         * the waits for the device, the detections' sorting, the rest
         * enqueueing work (xc_sp_gpu_trace) */
        const xc_sp_gpu_trace *tr = &info.search_trace;
        json_t *h = json_pack("{s:i, s:i, s:f, s:f, s:f, s:f}", "search_host_calls", (int)tr->calls,
                              "search_host_waits", (int)tr->waits, "search_host_ms", tr->total_s * 1e3,
                              "search_host_wait_ms", tr->wait_s * 1e3, "search_host_sort_ms", tr->sort_s * 1e3,
                              "search_host_enqueue_ms", (tr->total_s - tr->wait_s - tr->sort_s) * 1e3);
        if (!*rec || !m || !q || !o || !h || json_object_update(*rec, m) || json_object_update(*rec, q) ||
            json_object_update(*rec, o) || json_object_update(*rec, h))
            st = xc_error_set(err, XC_ENOMEM, "bench singlepulse -fused: out of memory");
        json_decref(m);
        json_decref(q);
        json_decref(o);
        json_decref(h);
    }
    data_free(&d);
    return st;
}

#endif
