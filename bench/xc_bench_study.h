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
    uint64_t serial;    /* pulsars of the one-at-a-time pass, the first of the n (0: all n) */
} xc_bench_study_opts;

typedef struct {
    double *secs;         /* per pulsar summed: [0] synthesis, [1] FFT, [2 + q] search q (owned); of an FRB
                           * study per burst: [0] synthesis, [1] dedispersion, [2] scoring, [3 + q] search q */
    int anydev;           /* a searcher runs on a device */
    int T, W, K;          /* threads, workers and device jobs as run */
    uint64_t ns;          /* pulsars of the serial pass (secs and per_psr are over these) */
    double serial;        /* seconds of the serial pass */
    double wall;          /* seconds of the side-by-side pass, NAN when not run */
    double nbins;         /* the spec's spectrum length (pulsar 0), NAN unknown */
    double per_psr;       /* serial / n (per burst for an FRB study) */
    double scale;         /* the paper's bins over nbins (1 for an FRB study) */
    double serial_h;      /* the paper's study (an FRB study: the spec's population) from the serial pass, hours */
    double machine_h;     /* ... from the side-by-side pass, NAN when not run */
    double *psecs;        /* secs of the side-by-side pass, summed over its workers (owned; NULL: not run) */
    double slot_wait, slot_held;   /* seconds its device searches waited for a slot and held one, summed */
    double serial_first;  /* seconds of the serial pass's first pulsar */
    double *done;         /* seconds from the side-by-side pass's start to each pulsar's end (owned; NULL: not run) */
    double startup;       /* the serial pass's first pulsar less its mean one (NAN with one pulsar) */
    double rate;          /* the side-by-side pass's steady pulsars/s (NAN: too few completions) */
    double fixed;         /* its wall less n / rate: the workers' sessions and the last round's tail */
    double scaled_h;      /* the side-by-side wall of n pulsars scaled to the paper's count, hours */
} xc_bench_study_result;

/* The side-by-side pass as a fixed cost and a steady rate.  done: the n
 * completion times (seconds from the pass's start, any order), W workers,
 * wall the pass's seconds.  The first W completions fill the pipeline (every
 * worker starts at once, with its sessions still to make); the rate is the
 * inverse slope of the least-squares line through the sorted completion
 * times from the W-th to the n-th (completion index against time), and
 * fixed = wall - n / rate: what the pass cost beyond n pulsars at the steady
 * rate (the sessions' making, the first round's fill, the last round's
 * tail).  Fewer than 3 completions from the W-th on, or a line that does not
 * rise: *rate and *fixed are NAN. */
void xc_bench_study_steady(const double *done, uint64_t n, int W, double wall, double *rate, double *fixed);
/* The hours of npsr pulsars: (startup + fixed + npsr * scale / rate) / 3600,
 * startup taken as 0 when NAN or below 0 (a first pulsar no slower than the
 * mean: nothing to add); NAN when rate is not > 0. */
double xc_bench_study_hours(double startup, double fixed, double rate, double npsr, double scale);

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
