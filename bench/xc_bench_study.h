/* xc_bench_study.h: a study's stages timed on its first pulsars, and what
 * that projects for the Pulscan paper's full study (bench_study.c). */
#ifndef XC_BENCH_STUDY_H
#define XC_BENCH_STUDY_H

#include <stdint.h>

#include "bench/xc_bench.h"
#include "study/xc_study.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The paper's study (White et al. 2024, section 3): 10 955 pulsars of 600 s
 * at 128 us, i.e. 4 687 500 samples, 2 343 750 complex bins. */
#define XC_BENCH_PAPER_NPSR 10955.0
#define XC_BENCH_PAPER_NBINS 2343750.0

typedef struct {
    uint64_t n;         /* pulsars timed, >= 1 */
    int threads;        /* of the side-by-side pass (0: OpenMP's default) */
    int workers;        /* pulsars at once in it (0: threads, or 8 with a device searcher) */
    int device_jobs;    /* device searches at once (0: 2 with a device searcher, else 1) */
    int separate;       /* every configuration its own search, nothing kept */
    int fresh;          /* sweeps, but nothing kept from pulsar to pulsar */
} xc_bench_study_opts;

typedef struct {
    double *secs;         /* per pulsar summed: [0] synthesis, [1] FFT, [2 + q] search q (owned); of an FRB
                           * study per burst: [0] synthesis, [1] dedispersion, [2] scoring, [3 + q] search q */
    int anydev;           /* a searcher runs on a device */
    int T, W, K;          /* threads, workers and device jobs as run */
    double serial;        /* seconds of the serial pass */
    double wall;          /* seconds of the side-by-side pass, NAN when not run */
    double nbins;         /* the spec's spectrum length (pulsar 0), NAN unknown */
    double per_psr;       /* serial / n (per burst for an FRB study) */
    double scale;         /* the paper's bins over nbins (1 for an FRB study) */
    double serial_h;      /* the paper's study (an FRB study: the spec's population) from the serial pass, hours */
    double machine_h;     /* ... from the side-by-side pass, NAN when not run */
    double *psecs;        /* secs of the side-by-side pass, summed over its workers (owned; NULL: not run) */
    double slot_wait, slot_held;   /* seconds its device searches waited for a slot and held one, summed */
} xc_bench_study_result;

/* Times st's first o->n pulsars: one at a time on one thread (all threads
 * for a device searcher's host side), then side by side as the study runs
 * them.  st->separate is set from o.  Free r with xc_bench_study_result_free. */
xc_status xc_bench_study_measure(xc_study *st, const xc_bench_study_opts *o, xc_bench_study_result *r, xc_error *err);
void xc_bench_study_result_free(xc_bench_study_result *r);

/* The record: stages, searches, searchers and the projection (an FRB
 * study's: xc_bench_study_frb_json). */
struct json_t *xc_bench_study_json(const xc_study *st, const char *spec, const xc_bench_study_opts *o,
                                   const xc_bench_study_result *r);
/* An FRB study's record (bench_study_frb.c): per burst the synthesis,
 * dedispersion, each search, scoring; the projection for the spec's
 * population of bursts. */
struct json_t *xc_bench_study_frb_json(const xc_study *st, const char *spec, const xc_bench_study_opts *o,
                                       const xc_bench_study_result *r);

#ifdef __cplusplus
}
#endif

#endif
