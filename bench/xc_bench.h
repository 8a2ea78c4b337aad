/* xc_bench.h: the benchmark library's common pieces: the timing loop, the
 * description of the machine, random input, and how a benchmark hands each
 * record to its caller.  The benchmarks themselves: xc_bench_search.h
 * (Pulscan, accel), xc_bench_synth.h, xc_bench_study.h.  Like the rest of the
 * library, nothing here prints or exits: a benchmark returns its records as
 * JSON and gives each one to a row callback as it is made (the command
 * prints its table from them). */
#ifndef XC_BENCH_H
#define XC_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/xc_error.h"
#include "core/search/xc_psearch.h"
#include "core/search/xc_search.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t;

/* The most runs xc_bench_time is asked for by any benchmark's -repeat/-runs. */
#define XC_BENCH_MAX_RUNS 1000

/* Called with each record of a benchmark as soon as it is complete (rec is
 * owned by the benchmark's records array); NULL: none. */
typedef void (*xc_bench_row_fn)(void *ctx, const struct json_t *rec);

/* The work under test, once: XC_OK or err set. */
typedef xc_status (*xc_bench_fn)(void *ctx, xc_error *err);

/* Runs run(ctx) `repeat` times (at least once), stopping early once `budget`
 * seconds have been spent (budget <= 0: no limit), and after(ctx), untimed,
 * after each run when it is not NULL (to remove files the run wrote).
 * t[0..*runs-1] gets each run's wall-clock seconds sorted ascending (t has room
 * for repeat): t[0] is the best, t[*runs / 2] the median.  Stops at the
 * first failure and returns it. */
xc_status xc_bench_time(xc_bench_fn run, void (*after)(void *ctx), void *ctx, int repeat, double budget, double *t,
                        int *runs, xc_error *err);
/* The median of v[0..n-1], n >= 1 (the mean of the middle two for even n); sorts v. */
double xc_bench_median(double *v, int n);

/* The host, as the benchmarks report it. */
typedef struct {
    char model[256];          /* /proc/cpuinfo's model name, "unknown" without it */
    double mhz;               /* its clock, 0 unknown */
    int cores;                /* online */
    const char *isa;          /* the CPU dedispersion kernel version the loader picked */
    int vector_bytes;         /* and its vector width */
    double bw1, bwn;          /* streaming read bandwidth, bytes/s, 1 and N threads */
    double speedup;           /* N threads over 1 on a compute-only loop */
    double add16;             /* measured 16-bit lane adds per second, one thread, in the kernels' ISA */
    double mix_split;         /* the direct 8-bit kernel's instruction mix, sample adds per second, one thread,
                                 every load spanning two lines (xc_cpu_mix_probe); 0 where not measured */
    double mix_aligned;       /* the same mix on line-aligned rows */
} xc_bench_machine;

/* Describes and measures the host: read bandwidth over bwbytes (choose more
 * than the last-level cache to measure DRAM) with 1 and `threads` threads, and
 * the speedup of `threads` threads over 1 (both only when threads > 1), and
 * one core's integer add peak (xc_cpu_add_probe, best of ten at two placements, per second of the thread's CPU time)
 * and the direct 8-bit kernel's instruction-mix ceiling (xc_cpu_mix_probe, best of six, split and aligned rows). */
void xc_bench_machine_measure(xc_bench_machine *m, size_t bwbytes, int threads);
/* m as a JSON object (cpu_model, cores, cpu_mhz, compiler, kernel_isa,
 * vector_bytes, read_bandwidth_1_thread, read_bandwidth_n_threads,
 * compute_speedup_n_threads, add16_per_s_1_thread, and where measured
 * direct_mix_split_adds_per_s_1_thread, direct_mix_aligned_adds_per_s_1_thread). */
struct json_t *xc_bench_machine_json(const xc_bench_machine *m);

/* A spectrum of nbins complex bins of unit Gaussian noise (GSL mt19937 seeded
 * with seed, ziggurat), dt 64 us, T = 2 nbins dt, owned (xc_spectrum_free),
 * to which add (if not NULL) adds the benchmark's signals.  On failure err
 * says "<cmd>: out of memory ...". */
xc_status xc_bench_noise_spectrum(xc_spectrum *sp, size_t nbins, unsigned long seed, void (*add)(xc_spectrum *sp),
                                  const char *cmd, xc_error *err);

/* n random nbits-bit values (nbits 1..16) from xorshift streams, one per
 * block of 2^20 values seeded from seed and the block: the same data whatever
 * the number of threads. */
void xc_bench_fill_random(uint16_t *u, size_t n, int nbits, uint64_t seed);

/* 1 when the lists hold the same candidates in the same order: the same r,
 * width and numharm, power and sigma within rtol relative; *maxrel gets the
 * largest relative power or sigma difference of the pairs compared. */
int xc_bench_same_cands(const xc_candlist *a, const xc_candlist *b, double rtol, double *maxrel);

/* Where a benchmark's records go: the array, and the row callback. */
typedef struct {
    struct json_t *records;
    xc_bench_row_fn row;       /* NULL: none */
    void *ctx;
} xc_bench_sink;

/* Appends rec to s->records (stealing the reference) and hands it to s->row:
 * XC_ENOMEM when rec is NULL or cannot be appended. */
xc_status xc_bench_emit(const xc_bench_sink *s, struct json_t *rec, xc_error *err);


/* One periodicity search (core/search/xc_psearch.h) as xc_bench_time times
 * it: impl searches sp at o into *l, emptied first (l NULL: into a list
 * freed after the run); ncands gets the candidates. */
typedef struct {
    const xc_impl *impl;
    const xc_spectrum *sp;
    const xc_psearch_opts *o;
    xc_candlist *l;
    size_t ncands;
} xc_bench_search;
xc_status xc_bench_search_once(void *ctx, xc_error *err);

#ifdef __cplusplus
}
#endif

#endif
