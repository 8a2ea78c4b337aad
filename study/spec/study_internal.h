/* study_internal.h: what the study's files share and nothing outside uses. */
#ifndef XC_STUDY_INTERNAL_H
#define XC_STUDY_INTERNAL_H

#include <jansson.h>

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

/* Index of searcher k's configuration c in the per-pulsar list of searches. */
size_t xc_study_search_index(const xc_study *st, int k, int c);

/* One search of a pulsar's spectrum (study_search.c, core/search/
 * xc_psearch.h): searcher s's configurations c0..c0+nc-1 searched as one
 * into cl[0..nc-1] (search q of the pulsar is configuration c0's), through
 * the worker's kept search when cache is given.  Device searches one caller
 * at a time. */
xc_status xc_study_search(const xc_study_searcher *s, size_t c0, size_t nc, xc_study_cache *cache, size_t q,
                          const xc_spectrum *sp, int threads, xc_candlist *cl, xc_error *err);

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

/* The HTML report (study_report.c). */
xc_status xc_study_report(const xc_study *st, const xc_study_table *t, const char *dir, xc_error *err);

#endif
