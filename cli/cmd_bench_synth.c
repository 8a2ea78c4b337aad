/* crosscheck bench synth: how fast the synthesizer makes filterbank data. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/bench_util.h"
#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "synth/xc_synth.h"

/* SIGPROC fake's speed on the development machine: 512 channels, 8 bits,
 * one thread. */
#define FAKE_SAMPLES_PER_S 17e6

static void help(void)
{
    printf("usage: crosscheck bench synth [-json FILE] [options]\n\n"
           "Times `crosscheck synth` making a filterbank (noise, a dispersed pulsar, quantisation and\n"
           "packing) into memory, at each thread count, and reports channel samples per second\n"
           "against SIGPROC fake's %.0f M/s (512 channels, 8 bits, one thread).  The data are\n"
           "the same bytes synth writes; only the disk is left out (see -dir).\n\n"
           "  -json FILE         write the records as JSON (atomically)\n"
           "  -threads LIST      comma-separated thread counts [1,2]\n"
           "  -nchans N          channels [512]\n"
           "  -nbits B           bits per sample [8]\n"
           "  -tsamp US          sample time in microseconds [64]\n"
           "  -tobs S            seconds of data per run [20]\n"
           "  -period MS         pulsar period, 0 for noise only [5]\n"
           "  -dm DM             pulsar DM [100]\n"
           "  -repeat R          runs per thread count; the median is kept [3]\n"
           "  -chunk N           spectra per chunk (0: synth's automatic size) [0]\n"
           "  -dir DIR           also time writing real files in DIR (removed afterwards)\n"
           "  -h                 this help\n",
           FAKE_SAMPLES_PER_S / 1e6);
}

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

int xc_bench_synth(int argc, char **argv)
{
    static const xc_optspec spec = {"bench synth", help, 0};
    xc_error err;
    xc_error_clear(&err);
    const char *json_path = NULL, *threads_s = "1,2", *dir = NULL;
    int nchans = 512, nbits = 8, repeat = 3, chunk = 0;
    double tsamp_us = 64, tobs = 20, period = 5, dm = 100;
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json_path),
        XC_OPT_STR("threads", &threads_s),   /* checked below, after the others */
        XC_OPT_INT("nchans", &nchans, 1, 1 << 24),
        XC_OPT_INT("nbits", &nbits, 1, 32),
        XC_OPT_DOUBLE("tsamp", &tsamp_us),
        XC_OPT_DOUBLE("tobs", &tobs),
        XC_OPT_DOUBLE("period", &period),
        XC_OPT_DOUBLE("dm", &dm),
        XC_OPT_INT("repeat", &repeat, 1, XC_BENCH_MAX_RUNS),
        XC_OPT_STR("dir", &dir),
        XC_OPT_INT("chunk", &chunk, 0, 1 << 30),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    int th[64], nth = 0;
    for (const char *s = threads_s; *s && nth < 64;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 4096 || (*end && *end != ','))
            return xc_cli_failf("bench synth", "-threads: '%s' is not a list of counts like 1,2", threads_s);
        th[nth++] = (int)v;
        s = *end ? end + 1 : end;
    }
    xc_synth_params p;
    xc_synth_params_init(&p);
    p.nchans = nchans;
    p.nbits = nbits;
    p.tsamp = tsamp_us * 1e-6;
    p.tobs = tobs;
    p.fch1 = 1550;
    p.foff = -300.0 / nchans;
    p.psr.period_ms = period;
    p.psr.dm = dm;
    p.psr.snrpeak = 0.5;
    p.psr.width_pct = 10;
    p.chunk = (size_t)chunk;
    if (xc_synth_params_check(&p, NULL, &err)) {
        xc_synth_params_free(&p);
        return xc_cli_fail("bench synth", &err);
    }
    const double values = (double)xc_synth_nsamp(&p) * nchans;
    json_t *recs = json_array();
    printf("bench synth: %d channels, %d bits, %.6g s at %g us (%.3g M values), %s; median of %d\n", nchans, nbits,
           tobs, tsamp_us, values / 1e6, period > 0 ? "noise + dispersed pulsar" : "noise only", repeat);
    printf("  %-8s %-7s %10s %14s %10s\n", "threads", "sink", "seconds", "values/s", "vs fake");
    rc = 0;
    for (int sink = 0; sink < (dir ? 2 : 1) && !rc; sink++)
        for (int k = 0; k < nth && !rc; k++) {
            p.nthreads = th[k];
            char path[4200];
            snprintf(path, sizeof path, "%s/bench-synth-%ld.fil", dir ? dir : ".", (long)getpid());
            synth_ctx sc = {&p, sink ? path : NULL, 0};
            double ts[XC_BENCH_MAX_RUNS];
            int runs;
            if (xc_bench_time(synth_once, synth_remove, &sc, repeat, 0, ts, &runs, &err))
                rc = xc_cli_fail("bench synth", &err);
            if (!rc) {
                double sec = ts[runs / 2], rate = values / sec;
                printf("  %-8d %-7s %10.3f %14.4g %9.1fx\n", th[k], sink ? "file" : "memory", sec, rate,
                       rate / FAKE_SAMPLES_PER_S);
                json_t *o = json_pack("{s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:f, s:f, s:i}", "nchans", nchans,
                                      "nbits", nbits, "threads", th[k], "seconds", sec, "samples_per_s", rate,
                                      "spectra_per_s", rate / nchans, "tobs_s", tobs, "tsamp_us", tsamp_us, "sink",
                                      sink ? "file" : "memory", "signal",
                                      period > 0 ? "noise + dispersed pulsar" : "noise only", "fake_samples_per_s",
                                      FAKE_SAMPLES_PER_S, "speedup_vs_fake", rate / FAKE_SAMPLES_PER_S, "chunk",
                                      chunk);
                if (!o || json_array_append_new(recs, o))
                    rc = xc_cli_failf("bench synth", "out of memory");
            }
        }
    xc_synth_params_free(&p);
    if (!rc && json_path) {
        json_t *root = json_pack("{s:s, s:s, s:i, s:O}", "benchmark", "synth", "unit",
                                 "samples_per_s = channel samples (values) per second", "online_cpus",
                                 (int)sysconf(_SC_NPROCESSORS_ONLN), "records", recs);
        if (!root)
            rc = xc_cli_failf("bench synth", "out of memory");
        else if (xc_cli_write_json(json_path, root, JSON_INDENT(2), &err))
            rc = xc_cli_fail("bench synth", &err);
        json_decref(root);
    }
    json_decref(recs);
    return rc;
}
