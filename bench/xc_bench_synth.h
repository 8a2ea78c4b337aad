/* xc_bench_synth.h: the synthesizer benchmark (bench_synth.c): channel
 * samples per second of a filterbank made into memory (and into a file),
 * at each thread count; with peers, against SIGPROC fake making the same
 * file in the same run. */
#ifndef XC_BENCH_SYNTH_H
#define XC_BENCH_SYNTH_H

#include "bench/xc_bench.h"
#include "bench/xc_bench_peer.h"
#include "synth/model/xc_synth.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int nchans, nbits;
    double tsamp_us, tobs;
    double period;            /* ms, 0: noise only */
    double dm;
    int repeat;               /* runs per thread count; the median is kept */
    int chunk;                /* spectra per chunk, 0: synth's own */
    int noise_gen;            /* xc_synth_noise_gen */
    const int *threads;       /* thread counts */
    int nthreads;
    const char *dir;          /* also time writing files there; NULL: memory only */
    xc_bench_peers peers;     /* npeers > 0: each thread count timed writing a file against each peer
                                 (SIGPROC fake with the same geometry), peers.runs pairs interleaved */
} xc_bench_synth_opts;

/* The synthesizer's parameters of o (a pulsar at 1550 MHz over 300 MHz),
 * checked; free with xc_synth_params_free. */
xc_status xc_bench_synth_params(const xc_bench_synth_opts *o, xc_synth_params *p, xc_error *err);

/* Times p at each thread count into memory (then into a file in o->dir;
 * with peers, into a file in the peers' folder against each peer instead);
 * *doc gets {"benchmark": "synth", "unit", "online_cpus", "records"}, each
 * record going to row as it is made.  On failure *doc is NULL. */
xc_status xc_bench_synth_run(xc_synth_params *p, const xc_bench_synth_opts *o, xc_bench_row_fn row, void *ctx,
                             struct json_t **doc, xc_error *err);

#ifdef __cplusplus
}
#endif

#endif
