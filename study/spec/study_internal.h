/* study_internal.h: what the study's files share and nothing outside uses. */
#ifndef XC_STUDY_INTERNAL_H
#define XC_STUDY_INTERNAL_H

#include <jansson.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/io/xc_fft.h"
#include "study/xc_study.h"
#include "synth/truth/xc_truth.h"

/* The position of an option in its family's table (the order of labels), -1
 * for an unknown name. */
int xc_study_opt_rank(xc_family f, const char *name);
/* Sets option `name` of family f from v into c; text gets the value as the
 * label shows it.  XC_EINVAL naming `where` (a JSON path). */
xc_status xc_study_opt_apply(xc_family f, const char *name, const json_t *v, const char *where,
                             xc_study_config *c, char *text, size_t ntext, xc_error *err);
/* The family's defaults (those of `crosscheck pulscan` / `crosscheck accel`). */
void xc_study_config_init(xc_family f, xc_study_config *c);
/* The family's own checks of the options, named by where and the label. */
xc_status xc_study_config_check(const xc_study_config *c, const char *where, xc_error *err);

/* The same for a single-pulse searcher's options (study_spopts.c), and its
 * checks (those of `crosscheck singlepulse`, named by where and label). */
int xc_study_spopt_rank(const char *name);
xc_status xc_study_spopt_apply(const char *name, const json_t *v, const char *where, xc_study_spconf *c, char *text,
                               size_t nt, xc_error *err);
void xc_study_spconf_init(xc_study_spconf *c);
xc_status xc_study_spconf_check(const xc_study_spconf *c, const char *where, const char *label, xc_error *err);

/* Index of searcher k's configuration c in the per-pulsar list of searches. */
size_t xc_study_search_index(const xc_study *st, int k, int c);

/* One search of a pulsar's spectrum (study_search.c, core/search/
 * xc_psearch.h): searcher s's configurations c0..c0+nc-1 searched as one
 * into cl[0..nc-1] (search q of the pulsar is configuration c0's), through
 * the worker's kept search when cache is given.  Device searches one caller
 * at a time. */
xc_status xc_study_search(const xc_study_searcher *s, size_t c0, size_t nc, xc_study_cache *cache, size_t q,
                          const xc_spectrum *sp, int threads, xc_candlist *cl, xc_error *err);

/* The worker's buffer for a spectrum of n floats and 2 more (FFTW's
 * Nyquist pair, so the transform writes into it directly: page-locked where
 * the study has st->host_alloc and it succeeds, else 64-byte aligned), kept
 * from pulsar to pulsar; NULL without a cache or memory (the caller
 * transforms in place).  And the worker's kept forward FFT, planned for n
 * samples (its buffers kept from length to length; NULL: none, the caller
 * makes its own). */
float *xc_study_cache_spectrum(xc_study_cache *c, const xc_study *st, size_t n);
xc_realfft *xc_study_cache_fft(xc_study_cache *c, size_t n);
/* The worker's buffer for a series of n floats, allocated as the spectrum's
 * (kept; NULL without a cache or memory), for the device transform's
 * upload.  And that transform (st->fft_run, the worker's, made at its first
 * pulsar; without a cache one made and freed for this series, *dev then
 * NULL): x's n samples into out (n floats) and *dev, their device copy. */
float *xc_study_cache_series(xc_study_cache *c, const xc_study *st, size_t n);
xc_status xc_study_device_fft(xc_study_cache *c, const xc_study *st, const float *x, size_t n, float *out,
                              const float **dev, xc_error *err);
/* What the worker's device searches keep of its device transform's
 * spectrum for the pulsar's later searches (xc_spectrum.share; each
 * xc_study_device_fft adds 1 to its gen); NULL without a cache. */
xc_devshare *xc_study_cache_share(xc_study_cache *c);

/* A synthetic filterbank made in memory (study_pulsar.c): blk's samples,
 * owned here, and its geometry. */
typedef struct {
    uint8_t *raw;
    uint16_t *u16;
    xc_block blk;
    xc_geometry geom;
} xc_study_fb;
xc_status xc_study_fb_make(const xc_synth_params *p, xc_study_fb *fb, xc_error *err);
void xc_study_fb_free(xc_study_fb *fb);

/* Item id's parameters (a pulsar, or a burst) with threads, and its label
 * ("study <what> <id>"). */
xc_status xc_study_params(const xc_study *st, uint64_t id, int threads, const char *what, xc_synth_params *p,
                          char *label, size_t nlabel, xc_error *err);

/* An FRB study's burst id: its filterbank made once, dedispersed and
 * searched by every wanted (searcher, configuration), each scored against
 * the burst's truth into one row (study_frb.c).  Device work one caller at
 * a time.  secs (NULL: not timed) gets the wall seconds of each stage added:
 * [0] synthesis (parameters, truth, filterbank), [1] dedispersion (a plane
 * kept for the next configuration counted once), [2] scoring, [3 + q]
 * search q's single-pulse search. */
xc_status xc_study_frb_burst(const xc_study *st, uint64_t id, const unsigned char *want, int threads,
                             xc_study_rows *out, double *secs, xc_error *err);
/* The memory one worker of an FRB study holds at once, its searches on
 * threads threads (study_frb.c): burst 0's filterbank (every burst has the
 * spec's length), as made and as held, and beside it the largest of the
 * configurations' plane, delay tables and search scratch. */
xc_status xc_study_frb_memory(const xc_study *st, int threads, double *bytes, xc_error *err);
/* An FRB study's detections.csv header (no newline) and its row parser. */
const char *xc_study_frb_header(void);
xc_status xc_study_frb_row_parse(const xc_study *st, const char *line, xc_study_row *row, const char *where,
                                 xc_error *err);
/* Splits buf at commas into at most max columns (col), returns the count
 * (max + 1 when there are more). */
int xc_study_split(char *buf, char **col, int max);
/* Row fields 1 and 2 (searcher name, configuration label) to indices;
 * XC_EFORMAT naming where when the study has no such pair. */
xc_status xc_study_row_key(const xc_study *st, const char *name, const char *label, xc_study_row *row,
                           const char *where, xc_error *err);

/* A row line split into its ncols columns (col, pointing into buf, a copy of
 * line of nbuf bytes at most; col holds ncols + 1) and its first columns
 * (pulsar, searcher, config, detected: 0 or 1) into row (zeroed first); and
 * columns idx[0..n-1] as numbers into *dst[..].  XC_EFORMAT naming where
 * and the column. */
xc_status xc_study_row_head(const xc_study *st, const char *line, char *buf, size_t nbuf, char **col, int ncols,
                            xc_study_row *row, const char *where, xc_error *err);
xc_status xc_study_row_nums(char *const *col, const int *idx, double *const *dst, int n, const char *where,
                            xc_error *err);

/* Searcher k's configuration c scored on pulsar id (parameters p, truth t)
 * from its candidate list cl (study_pulsar.c): the detections.csv row in
 * *row (its line owned by the row).  Detection: the strongest candidate
 * above the searcher's threshold (the baseline's own, else detection.sigma)
 * within ftol of f0 (with harmonics: of n f0 or f0/n); its r, z, w errors
 * are against the truth taken to the matched harmonic. */
xc_status xc_study_score(const xc_study *st, uint64_t id, int k, int c, const xc_synth_params *p,
                         const xc_truth *t, const xc_candlist *cl, xc_study_row *row, xc_error *err);

/* Appends row r to rows (study_rows.c). */
xc_status xc_study_rows_push(xc_study_rows *rows, const xc_study_row *r, xc_error *err);

/* Writes text to path through a temporary (core/base/xc_atomic.h). */
xc_status xc_study_write_text(const char *path, const char *text, size_t len, xc_error *err);

/* v with `digits` significant digits ("%.*g"), or "nan" when not finite. */
void xc_study_fmt_num(char *out, size_t n, double v, int digits);

/* Per (searcher, config): detections among pulsars not removed, unique ones. */
typedef struct {
    uint64_t n, detected, unique, n_removed, n_total;
    double rate, lo, hi;
    char peers[256];
} xc_study_rate;

/* The rows of one slice as a grid: grid[p * nsearch + k] is pulsar ids[p]'s
 * row of search k; removed[p] is 1 when the baseline detected it. */
typedef struct {
    size_t np, nsearch;
    uint64_t *ids;
    const xc_study_row **grid;
    unsigned char *removed;
    xc_study_rate *rate;   /* [nsearch] */
} xc_study_table;

xc_status xc_study_table_make(const xc_study *st, const xc_study_rows *rows, uint64_t shard, uint64_t nshards,
                              xc_study_table *t, xc_error *err);
void xc_study_table_free(xc_study_table *t);

/* The |z| (abs = 1) or signed z fit of searcher k's configuration c. */
void xc_study_zfit(const xc_study *st, const xc_study_table *t, size_t k, size_t c, int abs, xc_linfit *f);
/* The same over search q (an index of xc_study_search_index) with the
 * caller's buffers x, y of t->np values. */
void xc_study_zfit_rows(const xc_study *st, const xc_study_table *t, size_t k, size_t q, int abs, double *x,
                        double *y, xc_linfit *f);

/* A growable text (study_outputs.c): put appends (printf), flush writes it
 * to dir/name through a temporary and empties it; XC_ENOMEM when a put
 * failed. */
typedef struct {
    char *s;
    size_t len, cap;
    int bad;
} xc_study_buf;
void xc_study_put(xc_study_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
xc_status xc_study_flush(xc_study_buf *b, const char *dir, const char *name, xc_error *err);

/* An FRB study's completeness curves (study_frb_out.c): per search q and
 * axis a (xc_study_frb_axis), the bursts in each of nb bins of the axis
 * (log bins for fluence, width and scattering, linear for DM; edges over
 * every burst of the table), found, the fraction and its Wilson interval;
 * per search the fluence at 50 % and 90 % completeness with its interval. */
enum { XC_FRB_NAXES = 4, XC_FRB_MAXBINS = 100 };
typedef struct {
    uint64_t n, k;
    double frac, lo, hi;
} xc_study_bin;
typedef struct {
    int nb;
    int ok[XC_FRB_NAXES];        /* the axis has a spread (else no curve) */
    int logx[XC_FRB_NAXES];
    double edge[XC_FRB_NAXES][XC_FRB_MAXBINS + 1];
    xc_study_bin *bin;           /* [(q * XC_FRB_NAXES + a) * nb + b] */
    double *fq;                  /* [(q * 2 + level) * 3 + {estimate, lo, hi}], levels 0.5 and 0.9 */
} xc_study_frbcurves;
/* "fluence_jyms", "width_ms", "dm", "tau_ms"; a row's value on axis a. */
const char *xc_study_frb_axis(int a);
double xc_study_frb_value(const xc_study_row *r, int a);
xc_status xc_study_frb_curves(const xc_study *st, const xc_study_table *t, xc_study_frbcurves *cv, xc_error *err);
void xc_study_frb_curves_free(xc_study_frbcurves *cv);
/* The fluence where the binned fraction y (nb bins of log edges e, n[b] = 0:
 * empty, skipped) reaches p and stays at or above it (study_frb_out.c). */
double xc_study_frb_cross(const double *e, const double *y, const uint64_t *n, int nb, int logx, double p);
/* An FRB study's outputs: detections.csv, rates.csv, completeness.csv,
 * completeness.json and index.html (study_frb_report.c). */
xc_status xc_study_frb_outputs(const xc_study *st, const xc_study_table *t, const char *dir, xc_error *err);
xc_status xc_study_frb_report(const xc_study *st, const xc_study_table *t, const xc_study_frbcurves *cv,
                              const char *dir, xc_error *err);

/* The HTML report (study_report.c). */
xc_status xc_study_report(const xc_study *st, const xc_study_table *t, const char *dir, xc_error *err);

#endif
