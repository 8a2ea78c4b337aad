/* cli_verdict.h: the verdict of `crosscheck run`, `gate` and `check`.  It
 * holds the rows (compare/check/xc_checks.h), a sticky error - the first failure
 * that is no verdict (the report, memory, a folder), which makes the exit
 * status 2 - and sends each row, once, to the places the command chose: a
 * line as it comes (on stderr or stdout), the report, a JSON array.  At the
 * end the rows go to a table on stdout and to JUnit XML for CI.  The report
 * calls of a command go through it too, so that their failures are noted
 * the same way. */
#ifndef XC_CLI_VERDICT_H
#define XC_CLI_VERDICT_H

#include <stdio.h>

#include <jansson.h>

#include "cli/base/cli_vdtable.h"
#include "compare/check/xc_checks.h"
#include "reports/xc_report.h"

/* The columns of the table (xc_vd_print_row): the verdict, the
 * implementation (IMPL only), the check and the measurement. */
typedef enum {
    XC_VD_LINE_IMPL,    /* with the implementation's column (run) */
    XC_VD_LINE_STATE,   /* without it (gate: one implementation) */
    XC_VD_LINE_BOUND    /* without it (check) */
} xc_vd_line;

typedef struct {
    xc_checks rows;
    size_t shown;          /* rows already sent to the sinks below */
    xc_status fatal;       /* the first error that is no verdict */
    xc_error fatal_err;
    xc_report *rep;        /* each row as a verdict of the report; NULL: none */
    json_t *json;          /* an array that gets {impl, check, measured, bound, pass} per row; NULL: none */
    FILE *lines;           /* where the table's rows go as they come, after its header; NULL: none (-quiet) */
    xc_vd_line style;
    int headed;            /* the header went to lines */
} xc_vd;

/* Empty rows, no sinks. */
void xc_vd_init(xc_vd *v);
/* Frees the rows (the report and the JSON array are the caller's). */
void xc_vd_free(xc_vd *v);

/* Remembers st with its message (the first one wins) unless it is XC_OK;
 * returns st. */
xc_status xc_vd_note(xc_vd *v, xc_status st, const xc_error *e);
/* A failed row for a check that could not be made. */
void xc_vd_fail(xc_vd *v, const char *obs, const char *impl, const char *check, const char *why, const char *bound);
/* Sends the rows added since the last call to the sinks. */
void xc_vd_emit(xc_vd *v);

/* The report, each failure noted (nothing happens without a report). */
void xc_vd_section(xc_vd *v, const char *heading);
void xc_vd_text(xc_vd *v, const char *text);
void xc_vd_kv(xc_vd *v, const char *key, const char *value);
void xc_vd_plot(xc_vd *v, const xc_lineplot *p);
void xc_vd_number(xc_vd *v, const char *key, double value);
void xc_vd_json(xc_vd *v, const char *key, json_t *value);   /* takes value's reference */

/* The table on stdout (with the implementation's column), unless its rows
 * went there as they came (lines is stdout): each check is shown once. */
void xc_vd_table(const xc_vd *v);
/* The same without the implementation's column. */
void xc_vd_table_checks(const xc_vd *v);

/* Every row as a JSON object (check, impl, state, measured, bound, observed,
 * expected; NaN as null), in an array.  NULL when out of memory. */
json_t *xc_vd_rows_json(const xc_vd *v);
/* The rows as JUnit XML (compare/check/xc_junit.h) at path, unless an error was
 * noted before; a failure is noted. */
void xc_vd_junit(xc_vd *v, const char *suite, double seconds, const char *path);

/* 2 after a noted error, 0 when every row passed and at least one did, 1
 * otherwise. */
int xc_vd_exit_code(const xc_vd *v);

#endif
