/* xc_bench_search.h: the periodicity-search benchmarks: seconds per whole
 * Pulscan search (bench_pulscan.c) and per matched-filter accel/jerk search
 * (bench_accel.c) on synthetic spectra, over a grid of sizes and options. */
#ifndef XC_BENCH_SEARCH_H
#define XC_BENCH_SEARCH_H

#include "bench/xc_bench.h"
#include "bench/xc_bench_peer.h"
#include "core/base/xc_impl.h"
#include "core/search/xc_search.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Pulscan ----------------------------------------------------------------- */

/* The grid: nbins 2^20 and 2^23 (quick: 2^18 and 2^20), zmax 200 and 1200
 * (quick: 200), numharm 1 and 4, both peak modes, the cpu searcher at each
 * thread count; the reference on one thread where nbins <= ref_max_nbins
 * and zmax <= 200, and there every cpu list compared with its list. */
typedef struct {
    int quick;
    int runs;                  /* best of runs per record (the reference 1) */
    const int *threads;        /* the cpu searcher's thread counts */
    int nthreads;
    unsigned long long ref_max_nbins;
    const char *command;       /* the command line, for the document */
    const int *nbins, *zmax, *numharm;   /* given: these lists replace the grid's */
    int nnbins, nzmax, nnumharm;         /* 0: the grid's */
    xc_bench_peers peers;      /* npeers > 0: each cpu record timed against each peer
                                  (Pulscan's `pulscan`), peers.runs pairs interleaved */
} xc_bench_pulscan_opts;

/* Times the grid with the reference ref and the searcher cpu; *doc gets the
 * document ({"benchmark": "pulscan", ..., "records": [...]}) and *mismatches
 * the number of cpu lists that differ from the reference's.  Each record
 * (impl, mode, nbins, zmax, numharm, threads, seconds, candidates, runs,
 * matches_reference) goes to row as it is made.  On failure *doc is NULL. */
xc_status xc_bench_pulscan_run(const xc_impl *ref, const xc_impl *cpu, const xc_bench_pulscan_opts *o,
                               xc_bench_row_fn row, void *ctx, struct json_t **doc, int *mismatches, xc_error *err);

/* ---- accel ---------------------------------------------------------------------- */

#define XC_BENCH_ACCEL_MAXL 8

/* The grid: every nbins x zmax x wmax x numharm x threads (0: all), for each
 * available implementation of the registry's accel family that `which`
 * selects (0 reference, 1 every other, 2 both); the reference only where
 * nbins <= ref_max_nbins. */
typedef struct {
    int nbins[XC_BENCH_ACCEL_MAXL], nnbins;
    int zmax[XC_BENCH_ACCEL_MAXL], nzmax;
    int wmax[XC_BENCH_ACCEL_MAXL], nwmax;
    int numharm[XC_BENCH_ACCEL_MAXL], nnumharm;
    int threads[XC_BENCH_ACCEL_MAXL], nthreads;
    int which;
    int runs;
    int ref_max_nbins;
    int presto;                /* the searches' preset: 0 exact, 1 presto */
    const char *command;
    xc_bench_peers peers;      /* npeers > 0: every point is timed against each peer
                                  (accelsearch), peers.runs pairs interleaved */
} xc_bench_accel_opts;

/* The defaults: 2^20 bins, zmax 200, wmax 0, numharm 1, 1 and 2 threads,
 * every non-reference implementation, one run, the reference up to 16384
 * bins. */
void xc_bench_accel_opts_default(xc_bench_accel_opts *o);
/* The whole grid: 2^20 and 2^22 bins, zmax 0/200/1200, numharm 1/4, wmax
 * 0/300, 1, 2 and all threads. */
void xc_bench_accel_opts_full(xc_bench_accel_opts *o);

/* Times the grid; *doc gets {"benchmark": "accel", "command", "records"};
 * each record goes to row as it is made.  On failure *doc is NULL. */
xc_status xc_bench_accel_run(const xc_registry *reg, const xc_bench_accel_opts *o, xc_bench_row_fn row, void *ctx,
                             struct json_t **doc, xc_error *err);

#ifdef __cplusplus
}
#endif

#endif
