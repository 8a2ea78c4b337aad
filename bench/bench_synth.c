/* The synthesizer benchmark (xc_bench_synth.h). */
#include <jansson.h>
#include <stdio.h>
#include <unistd.h>

#include "core/base/xc_fs.h"

#include "bench/xc_bench_synth.h"

static int discard(void *ctx, const uint8_t *b, size_t n)
{
    /* touch the data so nothing can be skipped */
    uint64_t *sum = ctx;
    for (size_t i = 0; i < n; i += 4096)
        *sum += b[i];
    *sum += n;
    return 0;
}

/* One synthesis, as xc_bench_time times it: into memory, or into the file
 * path (removed after each run, untimed). */
typedef struct {
    const xc_synth_params *p;
    const char *path;   /* NULL: memory */
    uint64_t sum;
} synth_ctx;

static xc_status synth_once(void *ctx, xc_error *err)
{
    synth_ctx *c = ctx;
    c->sum = 0;
    return c->path ? xc_synth_write(c->p, c->path, NULL, NULL, err) : xc_synth_stream(c->p, discard, &c->sum, err);
}

static void synth_remove(void *ctx)
{
    synth_ctx *c = ctx;
    char tp[4300];
    if (!c->path)
        return;
    remove(c->path);
    if (!xc_synth_truth_path(c->path, tp, sizeof tp, NULL))
        remove(tp);
}

xc_status xc_bench_synth_params(const xc_bench_synth_opts *o, xc_synth_params *p, xc_error *err)
{
    xc_synth_params_init(p);
    p->nchans = o->nchans;
    p->nbits = o->nbits;
    p->tsamp = o->tsamp_us * 1e-6;
    p->tobs = o->tobs;
    p->fch1 = 1550;
    p->foff = -300.0 / o->nchans;
    p->psr.period_ms = o->period;
    p->psr.dm = o->dm;
    p->psr.snrpeak = 0.5;
    p->psr.width_pct = 10;
    p->chunk = (size_t)o->chunk;
    p->noise_gen = o->noise_gen ? XC_NOISE_EXACT : XC_NOISE_BOXMULLER;
    xc_status st = xc_synth_params_check(p, NULL, err);
    if (st)
        xc_synth_params_free(p);
    return st;
}

static json_t *synth_record(const xc_bench_synth_opts *o, int threads, int sink, double sec, double values)
{
    const double rate = values / sec;
    return json_pack("{s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:i, s:s}", "nchans", o->nchans, "nbits",
                     o->nbits, "threads", threads, "seconds", sec, "samples_per_s", rate, "spectra_per_s",
                     rate / o->nchans, "tobs_s", o->tobs, "tsamp_us", o->tsamp_us, "sink", sink ? "file" : "memory",
                     "signal", o->period > 0 ? "noise + dispersed pulsar" : "noise only", "chunk", o->chunk,
                     "noise", o->noise_gen ? "exact" : "boxmuller");
}

/* One thread count against each peer: ours writing dir/ours.fil and fake
 * (the same channels, bits, sample time, length, band and pulsar) writing
 * dir/fake.fil from its standard output, in turn; one record per peer. */
static xc_status synth_vs_peers(const xc_synth_params *p, const xc_bench_synth_opts *o, int threads, double values,
                                const xc_bench_sink *out, xc_error *err)
{
    const xc_bench_peers *ps = &o->peers;
    char ours[4200], fil[4200], v[10][32];
    xc_status st = xc_pathf(ours, sizeof ours, err, "%s/ours.fil", ps->dir);
    if (!st)
        st = xc_pathf(fil, sizeof fil, err, "%s/fake.fil", ps->dir);
    snprintf(v[0], 32, "%d", o->nchans), snprintf(v[1], 32, "%d", o->nbits), snprintf(v[2], 32, "%.17g", o->tsamp_us);
    snprintf(v[3], 32, "%.17g", o->tobs), snprintf(v[4], 32, "%.17g", p->fch1), snprintf(v[5], 32, "%.17g", p->foff);
    snprintf(v[6], 32, "%.17g", o->period), snprintf(v[7], 32, "%.17g", o->dm);
    snprintf(v[8], 32, "%.17g", p->psr.snrpeak), snprintf(v[9], 32, "%.17g", p->psr.width_pct);
    synth_ctx sc = {p, ours, 0};
    for (int k = 0; k < ps->npeers && !st; k++) {
        char *argv[] = {(char *)ps->peers[k].exe, "-nchans", v[0], "-nbits", v[1], "-tsamp", v[2], "-tobs", v[3],
                        "-fch1", v[4], "-foff", v[5], "-seed", "1", "-period", v[6], "-dm", v[7], "-snrpeak", v[8],
                        "-width", v[9], NULL};
        if (o->period <= 0)
            argv[15] = NULL;   /* noise only */
        xc_bench_side us, them;
        if ((st = xc_bench_peer_turns(ps, k, argv, fil, fil, synth_once, synth_remove, &sc, &us, &them, err)))
            break;
        json_t *rec = synth_record(o, threads, 1, us.seconds, values);
        if (rec)
            xc_bench_peer_fields(rec, &ps->peers[k], &us, &them, 1);   /* fake is single-threaded */
        st = xc_bench_emit(out, rec, err);
    }
    return st;
}

xc_status xc_bench_synth_run(xc_synth_params *p, const xc_bench_synth_opts *o, xc_bench_row_fn row, void *ctx,
                             json_t **doc, xc_error *err)
{
    *doc = NULL;
    const double values = (double)xc_synth_nsamp(p) * o->nchans;
    json_t *recs = json_array();
    const xc_bench_sink out = {recs, row, ctx};
    xc_status st = recs ? XC_OK : xc_error_set(err, XC_ENOMEM, "out of memory");
    for (int k = 0; k < o->nthreads && o->peers.npeers && !st; k++) {
        p->nthreads = o->threads[k];
        st = synth_vs_peers(p, o, o->threads[k], values, &out, err);
    }
    for (int sink = 0; sink < (o->dir ? 2 : 1) && !o->peers.npeers && !st; sink++)
        for (int k = 0; k < o->nthreads && !st; k++) {
            p->nthreads = o->threads[k];
            char path[4200];
            snprintf(path, sizeof path, "%s/bench-synth-%ld.fil", o->dir ? o->dir : ".", (long)getpid());
            synth_ctx sc = {p, sink ? path : NULL, 0};
            double ts[XC_BENCH_MAX_RUNS];
            int runs;
            st = xc_bench_time(synth_once, synth_remove, &sc, o->repeat, 0, ts, &runs, err);
            if (!st)
                st = xc_bench_emit(&out, synth_record(o, o->threads[k], sink, ts[runs / 2], values), err);
        }
    if (!st) {
        *doc = json_pack("{s:s, s:s, s:i, s:O}", "benchmark", "synth", "unit",
                         "samples_per_s = channel samples (values) per second", "online_cpus",
                         (int)sysconf(_SC_NPROCESSORS_ONLN), "records", recs);
        if (!*doc)
            st = xc_error_set(err, XC_ENOMEM, "out of memory");
    }
    json_decref(recs);
    return st;
}
