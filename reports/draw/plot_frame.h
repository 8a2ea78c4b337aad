/* plot_frame.h: internal to reports/: what every cairo plot kind shares
 * (reports/draw/plot_frame.c): the palette and colour maps, text, axes and their
 * ticks, the frame's layout, the colour bar, legends that avoid the data,
 * and the canvas written as PNG.  The plot kinds are in plot_cairo.c.
 * Sizes are CSS pixels (see plot_cairo.c). */
#ifndef XC_PLOT_FRAME_H
#define XC_PLOT_FRAME_H

#include "reports/draw/plot_impl.h"

#ifdef XC_HAVE_CAIRO

#include <cairo.h>
#include <stddef.h>
#include <stdint.h>

#define PI 3.14159265358979323846

/* matplotlib's tab10, first eight; past them lines are dashed and markers hollow. */
#define NPALETTE 8
extern const uint32_t xc_pf_palette[NPALETTE];

/* One axis: maps a data value to [0, 1] of the plot extent. */
typedef struct {
    double lo, hi;    /* in data units, or log10 of them for a log axis */
    int log;
    double step;      /* tick spacing (decades for a log axis) */
    int rev;          /* drawn from hi to lo */
    int plain;        /* log axis: ticks as 0.01 ... 1000 rather than 10^k */
} axis;

/* A plot: canvas size, the frame of the data area and its axes. */
typedef struct {
    cairo_t *cr;
    int W, H;
    double fx, fy, fw, fh;    /* frame */
    axis ax, ay;
    double ytickw;            /* widest y tick label */
} plot;

enum { LG_LINE, LG_DASH, LG_MARKER, LG_HOLLOW, LG_BOX, LG_LINEMARK };

typedef struct {
    const char *label;
    uint32_t colour;
    int style;
} legend_entry;

/* Points (device-independent plot coordinates) the legend should avoid. */
typedef struct {
    double *x, *y;
    size_t n, cap;
} ptlist;

/* colours and text */
void xc_pf_rgb(cairo_t *cr, uint32_t hex);
uint32_t xc_pf_cmap_hex(xc_cmap m, double v);
/* the title (and subtitle) centred above the frame */
void xc_pf_draw_title(cairo_t *cr, int W, const char *title, const char *sub);

/* axes: a linear axis over [lo, hi] (extend: to whole ticks), or one chosen for the data */
void xc_pf_axis_linear(axis *a, double lo, double hi, int extend);
void xc_pf_axis_data(axis *a, double lo, double hi, int log);
/* the frame: room for the y tick labels on the left, `right` free on the right */
void xc_pf_layout(plot *p, double right, int subtitle);
double xc_pf_map_x(const plot *p, double v);
double xc_pf_map_y(const plot *p, double v);
void xc_pf_draw_axes(const plot *p, const char *xlabel, const char *ylabel, int grid);
void xc_pf_draw_nodata(const plot *p, const char *why);
void xc_pf_clip_frame(const plot *p, double margin);
void xc_pf_draw_colourbar(const plot *p, xc_cmap cmap, const axis *az, const char *zlabel);
double xc_pf_colourbar_room(cairo_t *cr, const axis *az);

/* legends, placed away from the points in pts */
void xc_pf_pt_add(ptlist *l, double x, double y);
void xc_pf_pt_free(ptlist *l);
void xc_pf_draw_legend(const plot *p, const legend_entry *e, size_t n, const ptlist *pts);

/* the canvas: a white W x H one, then written as PNG into d and destroyed */
cairo_t *xc_pf_canvas_open(int W, int H);
xc_status xc_pf_canvas_close(cairo_t *cr, xc_drawn *d, int W, int H, const char *what, const char *title,
                             xc_error *err);
/* s, or "" for NULL */
const char *xc_pf_str(const char *s);
/* a round marker's path at (x, y) (hollow: white inside) */
void xc_pf_marker(cairo_t *cr, double x, double y, double r, int hollow);

#endif
#endif
