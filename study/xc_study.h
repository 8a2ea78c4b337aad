/* xc_study.h: sensitivity studies on synthetic pulsar populations, as the
 * Pulscan paper's (White et al. 2024, sections 3-4): every pulsar of a
 * population is made once, searched by every searcher at every configuration,
 * and scored against the synthesizer's truth.
 *
 * A study spec is JSON (strict: an unknown field or a wrong type is an error
 * naming its JSON path, e.g. "searchers[1].sweep.zmax[2]"):
 *   { "description": "...",
 *     "population": { "spec": "pulscan-table1.json" (relative to this file),
 *                     "n": 300, "seed": 1,
 *                     "fixed": {synth fields that replace the spec's},
 *                     "draw": {FIELD: {dist, lo, hi}} that replace the spec's },
 *     "data": "dedispersed",    the synthesizer's fast path: the series dedispersed at the true DM,
 *          or {"filterbank": {"impl": "cpu"}}: the filterbank made in memory, dedispersed at the
 *             true DM (one trial) by that dedisperser (default: chosen by capability)
 *     "searchers": [ { "name": "pulscan", "family": "pulscan"|"accel",
 *                      "impl": "cpu" (optional; default chosen by capability),
 *                      "options": {OPTION: value},          applied to every configuration
 *                      "sweep": {OPTION: [values...]} },     the configurations: their product
 *                    ... ],
 *     "detection": { "sigma": 6, "ftol": 0.01, "harmonics": false },
 *     "baseline": { "family": "pulscan", "impl": ..., "options": {"zmax": 0, "numharm": 1},
 *                   "sigma": 2 } }      its own detection threshold (default: detection.sigma; the
 *                                       paper's Fig 2 removed pulsars found above 2 sigma)
 * OPTION names are those of `crosscheck pulscan` and `crosscheck accel`
 * (zmax, numharm, sigma, ...; see study_options.c).
 *
 * Detection (the paper's section 3.3.1): the highest-sigma candidate above
 * detection.sigma within detection.ftol (relative) of the true spin frequency
 * (with harmonics: also of n f0 or f0/n, n = 2..16).  Pulsars the baseline
 * searcher detects are removed from every rate (the paper removes those a
 * zmax = 0 search finds); the baseline's own rate is over all pulsars.
 *
 * A study whose searchers are of family "singlepulse" is an FRB study
 * (study_frb.c, docs/STUDY.md): its population's bursts, each dedispersed
 * by every searcher's dedisperser under its DM plan and searched as
 * `crosscheck singlepulse` does, found when a candidate lies within one
 * width of the burst's time and one DM step of its DM
 * (compare/xc_spmatch.h); its outputs are completeness curves against
 * fluence, width, DM and scattering and the fluence of 50 % and 90 %
 * completeness (study_frb_out.c).  "detection" then takes only "bins".
 *
 * Determinism: pulsar i depends only on (seed, i); each (pulsar, searcher,
 * configuration) gives one row; every output is made from the sorted rows,
 * so thread count, shards, ranks and interruptions do not change a byte. */
#ifndef XC_STUDY_H
#define XC_STUDY_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"
#include "core/base/xc_progress.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/search/xc_psearch.h"
#include "core/sp/xc_spsearch.h"
#include "synth/population/xc_population.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XC_STUDY_MAX_CONFIGS 256
#define XC_STUDY_MAX_SEARCHERS 16

/* A single-pulse searcher's configuration (family "singlepulse"): the
 * options of `crosscheck singlepulse` (study_spopts.c). */
typedef struct {
    xc_spopts o;           /* preset, threshold, wmax, baseline, widths */
    char ddimpl[32];       /* the dedisperser's name ("": chosen by capability, exact ones) */
    const xc_impl *dd;     /* resolved when the spec is read */
    char dmplan[256];      /* "lo:hi:step:ds,..." ("": the tolerance list below) */
    double lodm, hidm, dm_tol, dm_pulse_width;   /* dedisp/Heimdall tolerance list (us) */
    char convention[32];   /* xc_convention_get */
    double maxloss;        /* an approximate dedisperser's S/N-loss bound (0: its default) */
} xc_study_spconf;

typedef struct {
    char label[160];       /* "zmax=25,numharm=4": the swept options, canonical order */
    xc_psearch_opts opts;  /* the searcher's family's options */
    int zmax;              /* for plots against zmax */
    int numharm;
    xc_study_spconf sp;    /* family singlepulse */
} xc_study_config;

typedef struct {
    char name[32];
    xc_family family;      /* XC_FAMILY_PULSCAN, XC_FAMILY_ACCEL or XC_FAMILY_SINGLEPULSE */
    const xc_impl *impl;
    int signed_z;          /* matched filter (accel): z has a sign; a boxcar's does not */
    int impl_named;        /* the spec named impl (else chosen by capability) */
    int baseline;          /* 1: the baseline searcher ("baseline") */
    xc_study_config *cfg;
    size_t ncfg;
} xc_study_searcher;

typedef struct {
    char path[1024];       /* the study spec */
    xc_popspec pop;        /* with the overrides applied */
    uint64_t n, seed;
    const xc_impl *dedisperser;   /* data path: NULL the synthesizer's dedispersed series; else the
                                     filterbank made in memory and dedispersed by it at the true DM */
    xc_study_searcher *s;  /* the baseline, if any, last */
    size_t ns;
    int has_baseline;
    double det_sigma, det_ftol;
    double base_sigma;     /* the baseline's own detection threshold (its "sigma"; default det_sigma) */
    int det_harmonics;
    int frb;               /* 1: an FRB study (single-pulse searchers over a population's "frb" bursts) */
    int bins;              /* an FRB study's bins per axis of its completeness curves */
    int separate;          /* 1: every configuration its own search, no matched-filter sweep (bench study
                              -separate: the A/B baseline; the lists differ from the sweep's by rounding) */
    uint64_t hash;         /* of the canonical spec without n: what resume and merge compare */
    char *canonical;       /* the canonical spec (JSON text) */
    char *spec_copy;       /* the spec as DIR/spec.json keeps it: population.spec = "population.json" */
    char pop_path[2200];   /* the population spec it read (copied to DIR/population.json) */
    uint64_t pop_hash;     /* of its bytes */
    /* Where a worker keeps its pulsars' spectra (xc_study_cache): the
     * caller's page-locked host memory (the CUDA runtime's cudaHostAlloc),
     * from which a device searcher's uploads go straight to the device
     * instead of through the runtime's staging; NULL: the series' own
     * buffer.  The same values either way. */
    xc_status (*host_alloc)(void **p, size_t bytes, xc_error *err);
    void (*host_free)(void *p);
    /* The pulsars' forward transform on the device (a study with a device
     * searcher: optimized/gpu/realfft_gpu.cu), one per worker:
     * fft_run transforms n real samples x into out (PRESTO's packed layout,
     * n floats) and sets *dev to the same values on the device, which the
     * pulsar's device searches read (xc_spectrum.dev).  NULL: FFTW on the
     * host.  The spectra then carry that transform's bits (double inside,
     * rounded to float once), the same at any worker count; a CPU-only
     * study keeps FFTW's. */
    xc_status (*fft_new)(void **f, xc_error *err);
    xc_status (*fft_run)(void *f, const float *x, size_t n, float *out, const float **dev, xc_error *err);
    void (*fft_free)(void *f);
} xc_study;

/* Reads and checks a spec; implementations are looked up in reg (a named
 * impl must exist and be available; otherwise the first available entry of
 * the family that is threaded, not approximate and not a device, else the
 * reference).  XC_EIO, XC_EFORMAT, XC_EINVAL naming the file and JSON path. */
xc_status xc_study_load(xc_study *st, const char *path, const xc_registry *reg, xc_error *err);
void xc_study_free(xc_study *st);
/* Searchers whose spec names no impl take the first available one with the
 * capabilities `want` instead (bench study -device: XC_CAP_DEVICE); those
 * without such an implementation keep theirs. */
void xc_study_prefer(xc_study *st, const xc_registry *reg, unsigned want);
/* Searches per pulsar: every configuration of every searcher. */
size_t xc_study_nsearch(const xc_study *st);

/* ---- rows: one per (pulsar, searcher, configuration) ------------------------- */

/* detections.csv's header (no newline). */
const char *xc_study_header(void);

typedef struct {
    uint64_t id;
    int searcher, config;  /* indices into st->s and its cfg */
    char *line;            /* the detections.csv row, no newline (owned) */
    /* parsed from line, for the statistics */
    int detected, harm_n;
    double sigma, z, z_true, w_true, snrpeak;
    /* an FRB study's burst (study_frb.c): the axes of its completeness curves */
    double fluence, width_ms, dm, tau_ms;
} xc_study_row;

typedef struct {
    xc_study_row *r;
    size_t n, cap;
} xc_study_rows;

void xc_study_rows_free(xc_study_rows *rows);
/* Parses a row line (as written by the study) for st: XC_EFORMAT naming where. */
xc_status xc_study_row_parse(const xc_study *st, const char *line, xc_study_row *row, const char *where,
                             xc_error *err);
/* Sorts by (pulsar, searcher, configuration); XC_EINVAL when a key repeats
 * with different text (two runs of different studies). Duplicates with equal
 * text are dropped. */
xc_status xc_study_rows_sort(xc_study_rows *rows, xc_error *err);

/* ---- one pulsar -------------------------------------------------------------- */

/* Makes pulsar id's data and runs the searches with want[k] != 0 (k over
 * xc_study_nsearch, searcher-major), appending their rows.  threads: for the
 * synthesizer and the searchers (0: OpenMP default).  Not thread safe with
 * other FFTs (FFTW's planner): the caller serialises xc_study_fft_lock. */
xc_status xc_study_pulsar(const xc_study *st, uint64_t id, const unsigned char *want, int threads,
                          xc_study_rows *out, xc_error *err);
/* The same, adding the wall seconds of each stage to secs (NULL: not timed):
 * secs[0] synthesis, secs[1] FFT, secs[2 + k] search k (bench study); of an
 * FRB study's burst (3 + xc_study_nsearch entries): [0] synthesis, [1]
 * dedispersion, [2] scoring, [3 + k] search k. */
xc_status xc_study_pulsar_timed(const xc_study *st, uint64_t id, const unsigned char *want, int threads,
                                xc_study_rows *out, double *secs, xc_error *err);
/* A worker's searches kept from pulsar to pulsar (core/search/xc_psearch.h:
 * thresholds, templates, plans and device buffers made once): one per worker
 * thread, never shared.  The rows are the same bytes with or without one. */
typedef struct xc_study_cache xc_study_cache;
xc_status xc_study_cache_new(const xc_study *st, xc_study_cache **c, xc_error *err);
void xc_study_cache_free(xc_study_cache *c);
/* Device searches at once among the workers (study_search.c): jobs >= 1
 * slots, each search on a device taking one for its whole call, but a
 * built-in Pulscan device searcher's (the GPU one: its device memory is its
 * kept plan's), which take none.  Without a
 * gate (or a cache) device searches run one at a time in the process.
 * More than one lets the host side of one worker's search (checks,
 * normalisation, copies, significance) overlap another's kernels; each
 * slot may hold a search's device memory (the accel searcher's whole plane:
 * 22.5 GB at the Pulscan paper's size), so the count is bounded by the
 * device's memory, not by the workers. */
typedef struct xc_study_gate xc_study_gate;
xc_status xc_study_gate_new(int jobs, xc_study_gate **g, xc_error *err);
void xc_study_gate_free(xc_study_gate *g);
/* The worker's device searches go through gate g (shared by the workers;
 * NULL: one at a time). */
void xc_study_cache_gate(xc_study_cache *c, xc_study_gate *g);
/* Seconds the searches through g waited for a slot and held one, summed
 * over the callers (bench study: whether the device's slots bound the
 * side-by-side pass). */
void xc_study_gate_times(xc_study_gate *g, double *wait_s, double *held_s);
/* The memory one worker of a pulsar study holds at once, each of its
 * searches on threads threads, into *bytes (study_search.c): a pulsar's
 * series, its spectrum and the forward transform kept, every search it keeps from pulsar to
 * pulsar (xc_psearch_memory: joint or each configuration's), and with a
 * dedisperser the synthesized filterbank (packed and 16-bit) and its plane.
 * Estimated on pulsar 0 (every pulsar has the spec's length).  An FRB
 * study's worker: burst 0's filterbank (made and held) and the largest of
 * its configurations' plane, delay tables and single-pulse search scratch.
 * Errors as xc_psearch_memory. */
xc_status xc_study_worker_memory(const xc_study *st, int threads, double *bytes, xc_error *err);
/* xc_study_pulsar_timed with the worker's cache (NULL: none). */
xc_status xc_study_pulsar_cached(const xc_study *st, xc_study_cache *cache, uint64_t id, const unsigned char *want,
                                 int threads, xc_study_rows *out, double *secs, xc_error *err);

/* ---- checkpoints: DIR/journal/<tag>.csv ------------------------------------- */

/* Checks or writes DIR/study.json (the canonical spec): a directory that holds
 * another study is refused (XC_EINVAL naming both hashes). */
xc_status xc_study_dir_init(const xc_study *st, const char *dir, xc_error *err);
/* Reads every journal under dir (torn last lines are dropped) into rows. */
xc_status xc_study_journal_read(const xc_study *st, const char *dir, xc_study_rows *rows, xc_error *err);

typedef struct xc_study_journal xc_study_journal;
/* Opens DIR/journal/<tag>.csv for appending, first cutting a torn last line. */
xc_status xc_study_journal_open(xc_study_journal **j, const char *dir, const char *tag, xc_error *err);
/* Appends rows[first..] and flushes them to disk (fsync): after this returns
 * they survive a SIGKILL. */
xc_status xc_study_journal_append(xc_study_journal *j, const xc_study_rows *rows, size_t first, xc_error *err);
void xc_study_journal_close(xc_study_journal *j);

/* ---- running ------------------------------------------------------------------ */

typedef struct {
    uint64_t shard, nshards;   /* this process takes pulsars id % nshards == shard (0, 1: all) */
    int threads;               /* total CPU threads (0: OpenMP default) */
    int workers;               /* pulsars searched at once (0: threads, or 1 with a device searcher);
                                  each gets threads / workers threads */
    int device_jobs;           /* device searches at once among the workers (0, 1: one at a time;
                                  xc_study_gate_new) */
    const char *tag;           /* journal name (NULL: "main" or "shard-I-of-N") */
    /* dynamic distribution (MPI): when next is set, pulsars are taken by
     * calling next(ctx), which returns the next index into the pending list
     * shared by every rank, or >= npending at the end */
    uint64_t (*next)(void *ctx);
    void *next_ctx;
    /* called once the pending list is made, before any work (MPI: a barrier,
     * so no rank appends before every rank has read the journals) */
    void (*ready)(void *ctx);
    void *ready_ctx;
    xc_progress_cb progress;   /* per pulsar */
    uint64_t done_before;      /* filled in: pulsars finished by earlier runs */
    uint64_t made;             /* filled in: pulsars made now */
} xc_study_runopts;

/* Runs every pulsar of the slice that the journals in dir do not finish. */
xc_status xc_study_run(const xc_study *st, const char *dir, xc_study_runopts *o, xc_error *err);

/* Pulsar ids of the slice that are not finished in dir, ascending: *ids
 * malloc'd.  For MPI, every rank computes the same list. */
xc_status xc_study_pending(const xc_study *st, const char *dir, uint64_t shard, uint64_t nshards, uint64_t **ids,
                           uint64_t *n, xc_error *err);

/* ---- outputs --------------------------------------------------------------------- */

/* Writes detections.csv, rates.csv, recovery.json and index.html into dir
 * from the rows of pulsars with id % nshards == shard among 0..st->n-1; every
 * one of them must have all its rows (XC_EINVAL naming the first missing). */
xc_status xc_study_write_outputs(const xc_study *st, const xc_study_rows *rows, uint64_t shard, uint64_t nshards,
                                 const char *dir, xc_error *err);

/* Joins the journals of study directories into out (same study required;
 * the union must cover pulsars 0..n-1 of the largest n) and writes the
 * outputs there. */
xc_status xc_study_merge(const char *const *dirs, size_t ndirs, const char *out, const xc_registry *reg,
                         xc_study *st, xc_error *err);

/* ---- statistics (study_stats.c) --------------------------------------------------- */

/* Wilson score interval of k successes in n trials at 95 % (z = 1.959964);
 * n = 0 gives NaN. */
void xc_wilson95(uint64_t k, uint64_t n, double *lo, double *hi);

typedef struct {
    size_t n;
    double slope, intercept, r2, resid_rms;   /* NaN when n < 3 or x has no spread */
} xc_linfit;

/* Least squares y = intercept + slope x. */
void xc_linfit_compute(const double *x, const double *y, size_t n, xc_linfit *f);

#ifdef __cplusplus
}
#endif
#endif
