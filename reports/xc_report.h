/* xc_report.h: self-contained HTML reports with plots drawn by cairo, plus a
 * machine-readable summary.json.
 *
 * A report is built in memory, piece by piece, in the order the pieces should
 * appear: sections, paragraphs, key/value lines and plots.  Verdict rows
 * (implementation, check, measured value, bound, PASS/FAIL) are collected into
 * one table shown at the top.  Plots are rendered when added (cairo, into a
 * PNG embedded as a base64 <img>), so the caller's arrays need not outlive the
 * call.  xc_report_write renders
 *     DIR/index.html    the page (CSS and images inline, nothing fetched)
 *     DIR/summary.json  title, verdict rows, numbers and caller data
 * Output is deterministic: the same calls give the same bytes on a machine
 * (no clock, no addresses, fixed number formats and font settings), so
 * reports can be diffed.
 *
 * Built with PLOTS=0 (and STATIC=1, which implies it) the library has no
 * cairo: plot calls still check their input the same way, and each plot
 * becomes a short paragraph saying plots were not built in. */
#ifndef XC_REPORT_H
#define XC_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "core/base/xc_error.h"

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

/* Appends base64 (RFC 4648, padded) of n bytes.  XC_ENOMEM only. */
xc_status xc_text_base64(xc_text *t, const void *p, size_t n);

/* ---- plots ---------------------------------------------------------------
 *
 * Every plot is an image of a fixed size on the page (720 pixels wide, 420 to
 * 460 high), drawn at XC_PLOT_SCALE times that in pixels so it stays sharp on
 * dense screens: axes with ticks and tick labels, axis labels, a title, a
 * legend when a series has a label, a colour bar with its label for colour
 * scales.  In titles, labels and legends "^" followed by digits (and a sign)
 * is drawn as a superscript: "DM (pc cm^-3)".  Non-finite values (and values
 * <= 0 on a log axis) are not drawn. */
#define XC_PLOT_SCALE 2

typedef enum { XC_CMAP_VIRIDIS = 0, XC_CMAP_GREY } xc_cmap;

/* Colour of v in [0, 1] (clamped; NaN gives magenta). */
void xc_cmap_rgb(xc_cmap m, double v, uint8_t rgb[3]);

/* One curve: n points (x[i], y[i]); a non-finite point breaks the line.
 * Positional initialisers of the first four members ({label, x, y, n}) leave
 * the rest zero: no error bars, a line. */
typedef struct {
    const char *label;
    const double *x, *y;
    size_t n;
    const double *ylo, *yhi;   /* optional error bars: NULL for none; else the bar spans ylo[i]..yhi[i] */
    int points;                /* 1: markers at the points, no connecting line */
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
 * of each block: the max keeps a narrow pulse visible).  Non-finite cells are
 * magenta. */
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

/* Points coloured by a third value, with a colourbar. */
typedef struct {
    const char *title, *xlabel, *ylabel, *zlabel;
    const double *x, *y, *c;   /* n points; c gives the colour through cmap over [cmin, cmax] (equal: data range) */
    size_t n;                  /* c NULL: every point in one colour, no colour bar */
    xc_cmap cmap;
    double cmin, cmax;
    int logx, logy;
    int diagonal;              /* 1: draw the line y = x (measured against truth) */
} xc_scatter;

/* Histogram / grouped bars: nbins bins with edges[0..nbins], nseries series of counts[s][0..nbins-1].
 * Edges must be finite and increasing, counts finite (bars start at 0);
 * labels may be NULL (no legend).  One series fills each bin; several stand
 * side by side in it. */
typedef struct {
    const char *title, *xlabel, *ylabel;
    const double *edges;
    size_t nbins;
    const double *const *counts;
    const char *const *labels;
    size_t nseries;
} xc_bars;

/* Each appends one figure to out: <img src="data:image/png;base64,..."
 * width=.. height=.. alt="TITLE"> (a title attribute carries notes such as
 * "no data" or the heatmap's reduction), or with PLOTS=0 a
 * <p class="noplot"> naming the plot.  Errors, the same in both builds:
 *   XC_EINVAL  lines: no series, a series with n > 0 but no x or y, only one
 *              of ylo/yhi, or no point that can be drawn;
 *              heatmap: no data, an empty array, non-finite axis limits;
 *              scatter: n > 0 but no x or y;
 *              bars: no edges or bins, no series or a series without counts,
 *              edges not finite and increasing, a non-finite count
 *   XC_ENOMEM  out of memory (cairo's own failures are reported as XC_EIO)
 * An empty scatter (n = 0, or no drawable point) and bars whose counts are
 * all zero are drawn with a "no data" note: not an error. */
xc_status xc_plot_lines(xc_text *out, const xc_lineplot *p, xc_error *err);
xc_status xc_plot_heatmap(xc_text *out, const xc_heatmap *h, xc_error *err);
xc_status xc_plot_scatter(xc_text *out, const xc_scatter *s, xc_error *err);
xc_status xc_plot_bars(xc_text *out, const xc_bars *b, xc_error *err);

/* 1 when plots are drawn (built with cairo), 0 when built with PLOTS=0. */
int xc_plots_built(void);

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
/* Plots, drawn as by xc_plot_lines and the rest (same errors). */
xc_status xc_report_add_lines(xc_report *r, const xc_lineplot *p, xc_error *err);
xc_status xc_report_add_heatmap(xc_report *r, const xc_heatmap *h, xc_error *err);
xc_status xc_report_add_scatter(xc_report *r, const xc_scatter *s, xc_error *err);
xc_status xc_report_add_bars(xc_report *r, const xc_bars *b, xc_error *err);

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
 * (e.g. base "runs").  XC_EINVAL if it does not fit in n bytes. */
xc_status xc_report_run_dir(char *buf, size_t n, const char *base, time_t when, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
