/* The canvas every cairo plot kind draws on (reports/draw/plot_frame.h): a white
 * page with fixed font options, written as PNG; the point lists that place
 * legends; markers. */
#include "reports/draw/plot_frame.h"

#ifdef XC_HAVE_CAIRO

#include <math.h>
#include <stdlib.h>
#include <string.h>

void xc_pf_pt_add(ptlist *l, double x, double y)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        double *nx = realloc(l->x, cap * sizeof *nx);
        if (!nx)
            return;   /* placement only gets worse */
        l->x = nx;
        double *ny = realloc(l->y, cap * sizeof *ny);
        if (!ny)
            return;
        l->y = ny;
        l->cap = cap;
    }
    l->x[l->n] = x;
    l->y[l->n++] = y;
}

void xc_pf_pt_free(ptlist *l)
{
    free(l->x);
    free(l->y);
}

/* ---- canvas -------------------------------------------------------------- */

static cairo_status_t png_sink(void *closure, const unsigned char *data, unsigned int len)
{
    xc_drawn *d = closure;
    if (d->n + len > d->cap) {
        size_t cap = d->cap ? d->cap : 65536;
        while (cap < d->n + len)
            cap *= 2;
        unsigned char *p = realloc(d->png, cap);
        if (!p)
            return CAIRO_STATUS_NO_MEMORY;
        d->png = p;
        d->cap = cap;
    }
    memcpy(d->png + d->n, data, len);
    d->n += len;
    return CAIRO_STATUS_SUCCESS;
}

/* A white W x H canvas (CSS pixels) with the fixed font options. */
cairo_t *xc_pf_canvas_open(int W, int H)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W * XC_PLOT_SCALE, H * XC_PLOT_SCALE);
    cairo_t *cr = cairo_create(s);
    cairo_surface_destroy(s);   /* cr holds it */
    cairo_scale(cr, XC_PLOT_SCALE, XC_PLOT_SCALE);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    return cr;
}

/* Writes the canvas as PNG into d and destroys it. */
xc_status xc_pf_canvas_close(cairo_t *cr, xc_drawn *d, int W, int H, const char *what, const char *title,
                              xc_error *err)
{
    cairo_status_t cs = cairo_status(cr);
    cairo_surface_t *s = cairo_get_target(cr);
    if (cs == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(s);
        cs = cairo_surface_write_to_png_stream(s, png_sink, d);
    }
    cairo_destroy(cr);
    d->w = W;
    d->h = H;
    if (cs == CAIRO_STATUS_NO_MEMORY)
        return xc_error_set(err, XC_ENOMEM, "%s '%s': out of memory", what, title);
    if (cs != CAIRO_STATUS_SUCCESS)
        return xc_error_set(err, XC_EIO, "%s '%s': cairo: %s", what, title, cairo_status_to_string(cs));
    return XC_OK;
}

const char *xc_pf_str(const char *s)
{
    return s ? s : "";
}

void xc_pf_marker(cairo_t *cr, double x, double y, double r, int hollow)
{
    cairo_new_sub_path(cr);
    cairo_arc(cr, x, y, r, 0, 2 * PI);
    if (hollow) {
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_fill_preserve(cr);
    }
}

#else
typedef int xc_plot_canvas_not_built;   /* PLOTS=0: nothing to draw with */
#endif
