/* run.h: what the pieces of `crosscheck run` share (private to cli/).
 *   cmd_run.c       options, the spec, the order of the work, the verdict table
 *   cmd_run_dd.c    dedispersion: synthetic and real observations
 *   cmd_run_ps.c    periodicity: Pulscan on spectra
 *   run_searches.c  what Pulscan and accel share: the spectrum, the searches
 *   cmd_run_accel.c the matched-filter accel/jerk search on spectra
 *   cmd_run_sp.c    the single-pulse search: injected pulses, declared bursts
 *   cmd_run_presto.c PRESTO prepsubband's series against the subband dedispersers
 *   cmd_run_plot.c  the report's plots and texts
 * The checks themselves are compare/check/xc_checks.h's. */
#ifndef CMD_RUN_H
#define CMD_RUN_H

#include <stddef.h>

#include "cli/base/cli_verdict.h"
#include "compare/check/xc_checks.h"
#include "compare/check/xc_runspec.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_impl.h"
#include "core/dedisp/run/xc_ddstream.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/search/xc_psearch.h"
#include "reports/xc_report.h"
#include "synth/model/xc_synth.h"

typedef struct {
    xc_vd vd;                  /* the rows, the report, the first error that is no verdict */
    int quiet;
    int keep;                  /* -keep: work stays after the run */
    int threads;
    char dir[4096];            /* the report folder */
    char work[4200];           /* dir/work: filterbanks, planes, spectra */
    char datasets[1024];       /* relative files of the spec are under the spec's folder */
    const char *only;          /* comma-separated implementation names, or NULL */
    const xc_convention *cv;
    double max_memory;         /* -max_memory (0: none) */
    double stream_memory;      /* what a dedispersion may hold beside the planes held (0: no bound) */
    double maxloss;            /* -maxloss: approximate dedispersers' declared loss limit (0: 0.2) */
    const xc_impl *noise_done[32];   /* searchers whose pure-noise check ran (once a run) */
    int nnoise_done;
} runctx;

/* One implementation's plane of one observation. */
typedef struct {
    const xc_dedisperser *impl;
    char label[64];
    char json[4300];
    xc_planefile pf;
    double seconds;
} planerun;

/* One searcher's candidates on one spectrum. */
typedef struct {
    const xc_impl *impl;
    xc_candlist cands;
    double seconds;
} searchrun;

#define RUN_MAXIMPL 16   /* implementations of one family judged per observation (9 approximate ones with CUDA) */

/* run.c */
int run_wanted(const runctx *c, const xc_impl *impl);
/* The next implementation of a family from registry index *i on that -impl
 * wants and that is available here; unavailable ones are noted as skipped
 * (never passed).  NULL at the end. */
const xc_impl *run_next_impl(runctx *c, const char *obs, const char *what, xc_family fam, size_t *i);
/* An observation starts: its name on stderr (unless -quiet), returned. */
const char *run_begin(const runctx *c, const char *obs);
/* path as the report may show it: a file of the work folder, removed at the
 * end unless -keep, is not named (the report names only what remains). */
const char *run_shown_path(const runctx *c, const char *path);
/* The memory a step of an observation needs (need bytes, what it holds in
 * words) said on stderr (unless -quiet); beyond -max_memory a failed
 * "memory" row and an error (exit 2) naming the step, the need and the
 * bound, and 1: the step is not run.  0 to go on. */
int run_memory(runctx *c, const char *obs, const char *step, double need, const char *what);
/* The memory a stream of fil through plan takes (xc_ddstream_estimate
 * under c's convention) into *est; non-zero when fil or plan cannot be
 * estimated (the step that runs them says why, as a row). */
int run_dd_estimate(const runctx *c, const char *fil, const xc_dmplan *plan, xc_ddstream_est *est);
/* An implementation that cannot run here: a line in the report and on stderr. */
void run_skip_text(runctx *c, const char *obs, const char *what, const char *name, const char *why);

/* cmd_run_dd.c */
void run_synthetic(runctx *c, const xc_rs_synthetic *ob);
void run_real(runctx *c, const xc_rs_real *ob);
/* cmd_run_sp.c: every single-pulse searcher on the reference plane ref of
 * a synthetic observation: sp's pulses found, lists equal to the reference
 * searcher's. */
void run_singlepulse(runctx *c, const char *obs, const planerun *ref, const xc_synth_params *sp);
/* The same searchers on a real file's reference plane ref: each burst of
 * k[0..nk) judged (xc_check_known_sp); nothing without a burst. */
void run_sp_known(runctx *c, const char *obs, const planerun *ref, const xc_known *k, size_t nk);
/* The same on the PRESTO series beside a spectrum file (BASE.dat with its
 * BASE.inf for BASE.fft), one DM trial: each burst of k[0..nk) judged. */
void run_sp_series(runctx *c, const char *obs, const char *fftpath, const xc_known *k, size_t nk);
/* cmd_run_presto.c: the real file's PRESTO prepsubband series (ob->ps_root)
 * against every subband dedisperser, bit for bit. */
void run_prepsubband(runctx *c, const xc_rs_real *ob, const char *fil);
/* cmd_run_approx.c: verdict rows for the approximate dedispersers approx[0..na)
 * on the observation fil with its plan. */
void run_approx(runctx *c, const char *obs, const char *fil, const xc_dmplan *plan, const xc_impl *const *approx,
                int na);

/* cmd_run_ps.c */
void run_periodicity(runctx *c, const xc_rs_periodicity *ob);

/* run_searches.c */
/* How a search's list is judged against the reference's (ref): the
 * family's comparison options for implementation im, co holding the
 * defaults with sigma_min the search's sigma. */
typedef void (*run_judge_fn)(const xc_impl *im, const xc_candlist *ref, xc_cmpcands_opts *co);
/* Every wanted implementation of o's family (run_next_impl: the reference
 * first) searches sp at o with c's threads (core/search/xc_psearch.h) into
 * runs; a search that fails gets a row saying so, each list after the first
 * is judged against the first's.  Returns the count; run_searches_free
 * frees the lists. */
int run_searches(runctx *c, const char *obs, const xc_spectrum *sp, const xc_psearch_opts *o, run_judge_fn judge,
                 searchrun *runs);
void run_searches_free(searchrun *runs, int n);
/* Pure-noise spectra of the borderline check every searcher but the
 * reference gets once a run (xc_check_noise_search). */
#define RUN_NOISE_SPECTRA 4
/* That check for im, the first time im is judged in the run; a row. */
void run_noise_check(runctx *c, const char *obs, const xc_impl *im);
/* The synthetic pulsar of the spec object sobj, dedispersed and FFT'd under
 * work/ as obs.fft (path), its truth file in truthp. */
xc_status run_synth_spectrum(runctx *c, const char *obs, const json_t *sobj, char *path, size_t np, char *truthp,
                             size_t nt, xc_error *e);

/* The spectrum of a spec entry (a file, or synth -> work/obs.fft with its
 * truth in truthp, "" otherwise) into sp, after the entry's section heading;
 * non-zero, with a row saying why, when it cannot be had. */
int run_load_spectrum(runctx *c, const char *obs, const char *fft, const json_t *synth, xc_spectrum *sp, char *path,
                      size_t np, char *truthp, size_t nt);

/* The rows of a spectrum file's known signals (compare/check/xc_known.h) against
 * each search's list; the DM of a pulsar judged once, from the .inf beside
 * fftpath; bursts by the single-pulse search of the series beside it
 * (run_sp_series). */
void run_known(runctx *c, const char *obs, const char *fftpath, const xc_known *k, size_t nk, const searchrun *runs,
               int n);

/* cmd_run_accel.c */
void run_accel(runctx *c, const xc_rs_accel *ob);

/* cmd_run_plot.c: each notes a failure in c->vd. */
void plot_plane(runctx *c, const char *obs, const planerun *ref, int k);
void plot_snr_curves(runctx *c, const char *obs, const planerun *runs, int n, const xc_dmplan *plan,
                     const xc_pulse_truth *t);
void plot_spectrum(runctx *c, const char *obs, const char *label, double dm, double f0, const xc_powerpeak *pk,
                   const double *spec);
void plot_cands(runctx *c, const char *obs, const searchrun *runs, int n);

#endif
