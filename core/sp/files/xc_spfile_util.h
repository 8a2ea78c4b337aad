/* xc_spfile_util.h: what the single-pulse file readers share
 * (core/sp/files/xc_spfile_util.c): the line loop, fields parsed with messages
 * that name the file, line, column and value, and the list's tsamp.
 * Internal to core/sp. */
#ifndef XC_SPFILE_UTIL_H
#define XC_SPFILE_UTIL_H

#include "core/sp/files/xc_spfiles.h"

typedef struct xc_spreader xc_spreader;
struct xc_spreader {
    xc_spcandlist *l;
    const char *path;
    /* one line (newline and trailing blanks removed); lineno from 1 */
    xc_status (*line)(xc_spreader *rd, char *line, int lineno, xc_error *err);
    void *user;
};

/* Empties rd->l (source set) and feeds every line of rd->path to rd->line;
 * the first failure ends the read and empties the list.  A NUL byte is an
 * error. */
xc_status xc_spread_lines_(xc_spreader *rd, const char *source, xc_error *err);

/* Splits a line of whitespace-separated columns into tok[0..ncol): exactly
 * ncol, else XC_EFORMAT "PATH: line N: K columns, WHAT". */
xc_status xc_spcolumns_(const xc_spreader *rd, char *line, int lineno, char **tok, int ncol, const char *what,
                        xc_error *err);

/* Splits s at any of the characters in seps (each one ends a field, so
 * empty fields count); returns the field count (tok holds at most max). */
int xc_spsplit_(char *s, const char *seps, char **tok, int max);
/* Splits at runs of blanks (spaces, tabs). */
int xc_spsplit_ws_(char *s, char **tok, int max);

/* Whole-field numbers, finite; XC_EFORMAT "PATH: line N: column NAME: 'VALUE' is not ...". */
xc_status xc_spfield_double_(const char *path, int lineno, const char *col, const char *s, double *out,
                             xc_error *err);
xc_status xc_spfield_int64_(const char *path, int lineno, const char *col, const char *s, int64_t *out,
                            xc_error *err);
xc_status xc_spfield_int32_(const char *path, int lineno, const char *col, const char *s, int32_t *out,
                            xc_error *err);

/* Checks c (xc_spcand_check, "PATH: line N") and appends it. */
xc_status xc_spadd_checked_(xc_spcandlist *l, const xc_spcand *c, const char *path, int lineno, xc_error *err);

/* Sets l->tsamp from its rows (xc_spfiles.h): time / sample of the row with
 * the largest sample, 0 when no row has a positive sample or when a row's
 * time differs from sample * tsamp by more than tol_abs + tol_rel * time.
 * centred: each row's time_s is still the file's time of the box centre
 * sample + floor(width/2); it is then moved to the box start (with tsamp,
 * or with the row's own time / centre when tsamp is 0). */
void xc_spfinish_(xc_spcandlist *l, int centred, double tol_abs, double tol_rel);

/* The time of c's box centre sample + floor(width/2) (what Heimdall and
 * PRESTO report), from l->tsamp, or from c's own time / sample when the
 * list's tsamp is unknown. */
double xc_spcentre_time_(const xc_spcandlist *l, const xc_spcand *c);

#endif
