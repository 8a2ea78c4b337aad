/* xc_report.h: self-contained HTML reports with inline SVG plots, plus a
 * machine-readable summary.json, written without any plotting library.
 *
 * A report is built in memory, piece by piece, in the order the pieces should
 * appear: sections, paragraphs, key/value lines and plots.  Verdict rows
 * (implementation, check, measured value, bound, PASS/FAIL) are collected into
 * one table shown at the top.  Plots are rendered to SVG when added, so the
 * caller's arrays need not outlive the call.  xc_report_write renders
 *     DIR/index.html    the page (CSS inline, heatmaps as embedded PNG)
 *     DIR/summary.json  title, verdict rows, numbers and caller data
 * Output is deterministic: the same calls give the same bytes (no clock, no
 * addresses, fixed number formats), so reports can be diffed. */
#ifndef XC_REPORT_H
#define XC_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "core/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- building blocks ----------------------------------------------------- */

/* A growable string.  After an allocation failure it stays failed (oom set)
 * and every later append returns XC_ENOMEM, so a chain of appends needs one
 * check at the end. */
typedef struct {
    char *s;          /* NUL-terminated (NULL while empty) */
    size_t len, cap;
    int oom;
} xc_text;

void xc_text_init(xc_text *t);
void xc_text_free(xc_text *t);
xc_status xc_text_printf(xc_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
xc_status xc_text_put(xc_text *t, const char *s);
/* Appends s with &, <, >, " and ' escaped for HTML/XML text and attributes. */
xc_status xc_text_escape(xc_text *t, const char *s);

typedef enum { XC_CMAP_VIRIDIS = 0, XC_CMAP_GREY } xc_cmap;

/* Colour of v in [0, 1] (clamped; NaN gives magenta). */
void xc_cmap_rgb(xc_cmap m, double v, uint8_t rgb[3]);

/* Appends an 8-bit RGB image (w x h, rows top to bottom, rgb[3*(y*w + x)]) as
 * base64 of an uncompressed PNG. */
xc_status xc_png_base64(xc_text *out, const uint8_t *rgb, size_t w, size_t h, xc_error *err);

/* One curve: n points (x[i], y[i]); a non-finite point breaks the line. */
typedef struct {
    const char *label;
    const double *x, *y;
    size_t n;
} xc_series;

typedef struct {
    const char *title;
    const char *xlabel, *ylabel;   /* with units, e.g. "DM (pc cm^-3)" */
    const xc_series *series;
    size_t nseries;
    int logx, logy;                /* log10 axes; points <= 0 on them are skipped */
} xc_lineplot;

typedef enum { XC_REDUCE_MAX = 0, XC_REDUCE_MEAN } xc_reduce;

/* A 2-D float array, data[row*ncols + col], drawn with row 0 at the bottom.
 * Larger arrays are reduced to at most 200 x 150 cells (the max, or the mean,
 * of each block: the max keeps a narrow pulse visible). */
typedef struct {
    const char *title;
    const float *data;
    size_t nrows, ncols;
    double x0, x1;                 /* x at the left edge of column 0 and right edge of the last */
    double y0, y1;                 /* y at the bottom edge of row 0 and top edge of the last */
    const char *xlabel, *ylabel, *zlabel;
    xc_cmap cmap;
    xc_reduce reduce;
    double vmin, vmax;             /* colour range; equal (e.g. both 0): the data's range */
} xc_heatmap;

/* Append one <svg> element.  XC_EINVAL for no series / an empty array / NULL data. */
xc_status xc_svg_lines(xc_text *out, const xc_lineplot *p, xc_error *err);
xc_status xc_svg_heatmap(xc_text *out, const xc_heatmap *h, xc_error *err);

/* ---- the report ---------------------------------------------------------- */

typedef struct xc_report xc_report;

xc_status xc_report_new(xc_report **r, const char *title, xc_error *err);
void xc_report_free(xc_report *r);

/* Starts a new section with a heading; later pieces belong to it. */
xc_status xc_report_add_section(xc_report *r, const char *heading, xc_error *err);
/* A paragraph of plain text (escaped); a blank line starts a new paragraph. */
xc_status xc_report_add_text(xc_report *r, const char *text, xc_error *err);
/* One key/value line; consecutive ones form one table. */
xc_status xc_report_add_kv(xc_report *r, const char *key, const char *value, xc_error *err);
/* One row of the verdict table. */
xc_status xc_report_add_verdict(xc_report *r, const char *impl, const char *check,
                                const char *measured, const char *bound, int pass, xc_error *err);
xc_status xc_report_add_lines(xc_report *r, const xc_lineplot *p, xc_error *err);
xc_status xc_report_add_heatmap(xc_report *r, const xc_heatmap *h, xc_error *err);

/* summary.json "numbers": {key: value}; a non-finite value is written as null. */
xc_status xc_report_set_number(xc_report *r, const char *key, double value, xc_error *err);
/* summary.json "data": {key: value}; takes over the caller's reference to value. */
xc_status xc_report_set_json(xc_report *r, const char *key, json_t *value, xc_error *err);

/* Verdict rows so far and how many failed. */
size_t xc_report_nverdicts(const xc_report *r, size_t *nfailed);

/* Creates DIR (and missing parents) and writes index.html and summary.json
 * under temporary names, renaming them into place at the end.  On failure no
 * file of this write is left and directories it created are removed. */
xc_status xc_report_write(const xc_report *r, const char *dir, xc_error *err);

/* buf = base/YYYYmmdd-HHMMSS (UTC of `when`), the conventional run folder
 * (e.g. base "reports/runs").  XC_EINVAL if it does not fit in n bytes. */
xc_status xc_report_run_dir(char *buf, size_t n, const char *base, time_t when, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
