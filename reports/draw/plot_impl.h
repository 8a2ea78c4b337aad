/* plot_impl.h: between reports/plot.c (input checks, colour maps, the HTML of
 * a figure) and reports/draw/plot_cairo.c (drawing, only with cairo).  The drawing
 * functions are called with input plot.c has checked. */
#ifndef XC_PLOT_IMPL_H
#define XC_PLOT_IMPL_H

#include "reports/xc_report.h"

/* A drawn plot: the PNG's bytes, its size on the page (CSS pixels; the PNG
 * has XC_PLOT_SCALE times as many) and a note for the title attribute. */
typedef struct {
    unsigned char *png;
    size_t n, cap;
    int w, h;
    char note[256];
} xc_drawn;

void xc_drawn_free(xc_drawn *d);

/* Usable as a coordinate: finite, and > 0 on a log axis. */
static inline int xc_plot_usable(double v, int log)
{
    return v == v && v - v == 0 && (!log || v > 0);
}

#ifdef XC_HAVE_CAIRO
xc_status xc_draw_lines(const xc_lineplot *p, xc_drawn *d, xc_error *err);
xc_status xc_draw_heatmap(const xc_heatmap *h, xc_drawn *d, xc_error *err);
xc_status xc_draw_scatter(const xc_scatter *s, xc_drawn *d, xc_error *err);
xc_status xc_draw_bars(const xc_bars *b, xc_drawn *d, xc_error *err);
#endif

#endif
