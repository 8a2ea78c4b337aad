/* xc_bench_sp.h: the single-pulse search benchmark (bench_sp.c): the search
 * of a plane against the CPU dedispersion that made it, same threads. */
#ifndef XC_BENCH_SP_H
#define XC_BENCH_SP_H

#include "bench/xc_bench.h"
#include "bench/xc_bench_peer.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/sp/xc_spsearch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int nchans, nbits;
    double tsamp_us;
    size_t nout;                   /* output samples per trial */
    const char *dmplan;            /* the Table 2 plan by default */
    int nwidths;                   /* widths 1, 2, 4, ... 2^(nwidths-1) */
    int threads;                   /* 0: all */
    int repeat;                    /* runs of each; the median is kept */
    const xc_dedisperser *dd;      /* the CPU dedisperser */
    const xc_spsearcher *sp;       /* the searcher timed */
    /* with a peer (a command, -peer_cmd): the input is the synthesizer's
     * noise written to peers->dir/bench.fil (and read back), dedispersed
     * once more into bench_DM<dm>.dat/.inf series there when peer_dat; the
     * peer's command runs in turn with ours: the search of the plane, or the
     * dedispersion and the search when peer_fil (the peer reads the
     * filterbank) */
    const xc_bench_peers *peers;   /* NULL: none */
    char *const *peer_argv;
    int peer_fil, peer_dat;
} xc_bench_sp_opts;

/* One record (kind "singlepulse"): seconds (the search), dedisperse_seconds,
 * ratio (search over dedispersion), threads, trials, samples, widths,
 * candidates; random nbits data at 1400 MHz centre over 300 MHz.  With a
 * peer, *rec is instead {"benchmark": "singlepulse", "records": [that
 * record, one record (kind "singlepulse_peer") per peer with the peer
 * fields of xc_bench_peer.h]}. */
xc_status xc_bench_sp_run(const xc_bench_sp_opts *o, struct json_t **rec, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
