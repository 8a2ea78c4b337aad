/* Plots drawn with cairo into an image surface and written as PNG: line
 * plots (with error bars and markers), heatmaps, colour-coded scatter plots
 * and histograms / grouped bars; what they share (axes, legends, the
 * canvas) is in plot_frame.c.  Text uses cairo's "toy" API with DejaVu Sans
 * (fonts-dejavu-core), with fixed font options (grey antialiasing, no
 * hinting), so the same input gives the same bytes on a machine.
 *
 * Sizes below are in CSS pixels; the surface is XC_PLOT_SCALE times larger
 * and cairo_scale maps one onto the other.  Lines of width 1 at whole
 * coordinates then cover whole device pixels (crisp frames and ticks). */
#include "reports/draw/plot_frame.h"

#ifdef XC_HAVE_CAIRO

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- line plots ---------------------------------------------------------- */

static int usable(double v, int log)
{
    return xc_plot_usable(v, log);
}

/* Extends the path to (x, y) when ok (pen up: starts it there), else lifts
 * the pen: a line through the usable points, broken where one is not. */
static void trace(const plot *p, int *pen, int ok, double x, double y)
{
    if (!ok) {
        *pen = 0;
        return;
    }
    double px = xc_pf_map_x(p, x), py = xc_pf_map_y(p, y);
    if (*pen)
        cairo_line_to(p->cr, px, py);
    else
        cairo_move_to(p->cr, px, py);
    *pen = 1;
}

/* The extent of the usable points of every series, error bars included. */
static void data_range(const xc_lineplot *lp, double *xmin, double *xmax, double *ymin, double *ymax)
{
    *xmin = *ymin = INFINITY;
    *xmax = *ymax = -INFINITY;
    for (size_t s = 0; s < lp->nseries; s++) {
        const xc_series *sr = &lp->series[s];
        for (size_t i = 0; i < sr->n; i++) {
            if (!usable(sr->x[i], lp->logx) || !usable(sr->y[i], lp->logy))
                continue;
            *xmin = fmin(*xmin, sr->x[i]);
            *xmax = fmax(*xmax, sr->x[i]);
            *ymin = fmin(*ymin, sr->y[i]);
            *ymax = fmax(*ymax, sr->y[i]);
            if (sr->ylo && usable(sr->ylo[i], lp->logy))
                *ymin = fmin(*ymin, sr->ylo[i]);
            if (sr->yhi && usable(sr->yhi[i], lp->logy))
                *ymax = fmax(*ymax, sr->yhi[i]);
        }
    }
}

/* Series sr's error bars (ylo..yhi), their ends added to pts for the legend's placement. */
static void draw_bars(const plot *p, const xc_lineplot *lp, const xc_series *sr, uint32_t col, ptlist *pts)
{
    cairo_t *cr = p->cr;
    double bottom = lp->logy ? pow(10, p->ay.lo) : NAN;
    for (size_t i = 0; i < sr->n; i++) {
        if (!usable(sr->x[i], lp->logx) || !usable(sr->y[i], lp->logy))
            continue;
        double lo = sr->ylo[i], hi = sr->yhi[i];
        if (!isfinite(lo) || !isfinite(hi))
            continue;
        if (lp->logy && lo <= 0)
            lo = bottom;   /* a bar reaching zero runs off the bottom */
        if (lp->logy && hi <= 0)
            continue;
        double px = xc_pf_map_x(p, sr->x[i]), y0 = xc_pf_map_y(p, lo), y1 = xc_pf_map_y(p, hi);
        cairo_move_to(cr, px, y0);
        cairo_line_to(cr, px, y1);
        cairo_move_to(cr, px - 3, y0);
        cairo_line_to(cr, px + 3, y0);
        cairo_move_to(cr, px - 3, y1);
        cairo_line_to(cr, px + 3, y1);
        xc_pf_pt_add(pts, px, y0);
        xc_pf_pt_add(pts, px, y1);
    }
    cairo_set_line_width(cr, 1.2);
    xc_pf_rgb(cr, col);
    cairo_stroke(cr);
}

xc_status xc_draw_lines(const xc_lineplot *lp, xc_drawn *d, xc_error *err)
{
    double xmin, xmax, ymin, ymax;
    data_range(lp, &xmin, &xmax, &ymin, &ymax);
    plot p = {.W = 720, .H = 420};
    p.cr = xc_pf_canvas_open(p.W, p.H);
    cairo_t *cr = p.cr;
    xc_pf_axis_data(&p.ax, xmin, xmax, lp->logx);
    xc_pf_axis_data(&p.ay, ymin, ymax, lp->logy);
    xc_pf_layout(&p, 24, 0);
    xc_pf_draw_title(cr, p.W, xc_pf_str(lp->title), NULL);
    xc_pf_draw_axes(&p, xc_pf_str(lp->xlabel), xc_pf_str(lp->ylabel), 1);

    ptlist pts = {0};
    xc_pf_clip_frame(&p, 6);
    for (size_t s = 0; s < lp->nseries; s++) {
        const xc_series *sr = &lp->series[s];
        int extra = s >= NPALETTE;
        uint32_t col = xc_pf_palette[s % NPALETTE];
        if (!sr->points) {
            int pen = 0;
            for (size_t i = 0; i < sr->n; i++)
                trace(&p, &pen, usable(sr->x[i], lp->logx) && usable(sr->y[i], lp->logy), sr->x[i], sr->y[i]);
            /* Past the palette, dashes keep series apart. */
            static const double dash[] = {6, 3};
            cairo_set_dash(cr, dash, extra ? 2 : 0, 0);
            cairo_set_line_width(cr, 1.6);
            xc_pf_rgb(cr, col);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        if (sr->ylo)
            draw_bars(&p, lp, sr, col, &pts);
        int marks = sr->points || sr->n <= 60;
        for (size_t i = 0; i < sr->n; i++) {
            if (!usable(sr->x[i], lp->logx) || !usable(sr->y[i], lp->logy))
                continue;
            double px = xc_pf_map_x(&p, sr->x[i]), py = xc_pf_map_y(&p, sr->y[i]);
            xc_pf_pt_add(&pts, px, py);
            if (!marks)
                continue;
            xc_pf_rgb(cr, col);
            if (sr->points) {
                xc_pf_marker(cr, px, py, 3.2, extra);
                xc_pf_rgb(cr, col);
                if (extra) {
                    cairo_set_line_width(cr, 1.3);
                    cairo_stroke(cr);
                } else {
                    cairo_fill(cr);
                }
            } else {
                xc_pf_marker(cr, px, py, 2.5, 0);
                cairo_fill(cr);
            }
        }
    }
    cairo_restore(cr);

    legend_entry *le = calloc(lp->nseries, sizeof *le);
    size_t nl = 0;
    for (size_t s = 0; le && s < lp->nseries; s++)
        nl += lp->series[s].label && *lp->series[s].label;
    if (le && nl) {
        for (size_t s = 0; s < lp->nseries; s++) {
            const xc_series *sr = &lp->series[s];
            int extra = s >= NPALETTE;
            le[s].label = xc_pf_str(sr->label);
            le[s].colour = xc_pf_palette[s % NPALETTE];
            le[s].style = sr->points ? (extra ? LG_HOLLOW : LG_MARKER)
                                     : extra ? LG_DASH : sr->n <= 60 ? LG_LINEMARK : LG_LINE;
        }
        xc_pf_draw_legend(&p, le, lp->nseries, &pts);
    }
    free(le);
    xc_pf_pt_free(&pts);
    return xc_pf_canvas_close(cr, d, p.W, p.H, "line plot", xc_pf_str(lp->title), err);
}

/* ---- heatmaps ------------------------------------------------------------ */

enum { MAXC = 200, MAXR = 150 };

/* Reduces data to nr x nc cells of fr x fc samples each (edge cells smaller). */
static float *reduce_cells(const xc_heatmap *h, size_t fr, size_t fc, size_t nr, size_t nc)
{
    float *cells = malloc(nr * nc * sizeof *cells);
    if (!cells)
        return NULL;
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < nc; c++) {
            double acc = h->reduce == XC_REDUCE_MAX ? -INFINITY : 0;
            size_t n = 0;
            for (size_t i = r * fr; i < (r + 1) * fr && i < h->nrows; i++)
                for (size_t j = c * fc; j < (c + 1) * fc && j < h->ncols; j++) {
                    float v = h->data[i * h->ncols + j];
                    if (!isfinite(v))
                        continue;
                    acc = h->reduce == XC_REDUCE_MAX ? fmax(acc, v) : acc + v;
                    n++;
                }
            cells[r * nc + c] = n == 0 ? NAN : (float)(h->reduce == XC_REDUCE_MAX ? acc : acc / (double)n);
        }
    return cells;
}

xc_status xc_draw_heatmap(const xc_heatmap *h, xc_drawn *d, xc_error *err)
{
    const char *title = xc_pf_str(h->title);
    size_t fr = (h->nrows + MAXR - 1) / MAXR, fc = (h->ncols + MAXC - 1) / MAXC;
    size_t nr = (h->nrows + fr - 1) / fr, nc = (h->ncols + fc - 1) / fc;
    float *cells = reduce_cells(h, fr, fc, nr, nc);
    if (!cells)
        return xc_error_set(err, XC_ENOMEM, "heatmap '%s': out of memory for %zu x %zu cells", title, nr, nc);
    double vmin = h->vmin, vmax = h->vmax;
    if (!(vmax > vmin) || !isfinite(vmin) || !isfinite(vmax)) {
        vmin = INFINITY;
        vmax = -INFINITY;
        for (size_t i = 0; i < nr * nc; i++)
            if (!isnan(cells[i])) {
                vmin = fmin(vmin, cells[i]);
                vmax = fmax(vmax, cells[i]);
            }
        if (!(vmin <= vmax))
            vmin = vmax = 0;
    }
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)nc, (int)nr);
    size_t nbad = 0;
    if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(img);
        unsigned char *data = cairo_image_surface_get_data(img);
        size_t stride = (size_t)cairo_image_surface_get_stride(img);
        for (size_t r = 0; r < nr; r++)
            for (size_t c = 0; c < nc; c++) {
                float v = cells[r * nc + c];
                nbad += isnan(v);
                double u = isnan(v) ? NAN : vmax > vmin ? (v - vmin) / (vmax - vmin) : 0.5;
                /* Image rows run top down; row 0 of the data is at the bottom. */
                *(uint32_t *)(void *)(data + (nr - 1 - r) * stride + 4 * c) = xc_pf_cmap_hex(h->cmap, u);
            }
        cairo_surface_mark_dirty(img);
    }
    free(cells);

    int ns = snprintf(d->note, sizeof d->note, "%zu x %zu samples", h->nrows, h->ncols);
    if (fr > 1 || fc > 1)
        ns += snprintf(d->note + ns, sizeof d->note - (size_t)ns, "; each cell the %s of %zu x %zu",
                       h->reduce == XC_REDUCE_MAX ? "maximum" : "mean", fr, fc);
    if (nbad)
        snprintf(d->note + ns, sizeof d->note - (size_t)ns, "; %zu cell%s not finite (magenta)", nbad,
                 nbad == 1 ? "" : "s");

    plot p = {.W = 720, .H = 440};
    p.cr = xc_pf_canvas_open(p.W, p.H);
    cairo_t *cr = p.cr;
    axis az;
    xc_pf_axis_linear(&p.ax, fmin(h->x0, h->x1), fmax(h->x0, h->x1), 0);
    xc_pf_axis_linear(&p.ay, fmin(h->y0, h->y1), fmax(h->y0, h->y1), 0);
    xc_pf_axis_linear(&az, vmin, vmax, 0);
    /* x1 < x0 (e.g. frequency falling with channel) keeps column 0 at the left. */
    p.ax.rev = h->x1 < h->x0;
    p.ay.rev = h->y1 < h->y0;
    xc_pf_layout(&p, xc_pf_colourbar_room(cr, &az), 1);
    xc_pf_draw_title(cr, p.W, title, d->note);

    /* The reduced image spans nc*fc columns and nr*fr rows of data, a little
     * more than the array when the last block is partial: the overhang
     * (right and top) is clipped by the frame. */
    double iw = p.fw * (double)(nc * fc) / (double)h->ncols, ih = p.fh * (double)(nr * fr) / (double)h->nrows;
    xc_pf_clip_frame(&p, 0);
    cairo_translate(cr, p.fx, p.fy + p.fh - ih);
    cairo_scale(cr, iw / (double)nc, ih / (double)nr);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
    xc_pf_draw_axes(&p, xc_pf_str(h->xlabel), xc_pf_str(h->ylabel), 0);
    xc_pf_draw_colourbar(&p, h->cmap, &az, xc_pf_str(h->zlabel));
    return xc_pf_canvas_close(cr, d, p.W, p.H, "heatmap", title, err);
}

/* ---- scatter plots ------------------------------------------------------- */

xc_status xc_draw_scatter(const xc_scatter *sc, xc_drawn *d, xc_error *err)
{
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    double cmin = INFINITY, cmax = -INFINITY;
    size_t nuse = 0;
    for (size_t i = 0; i < sc->n; i++) {
        if (!usable(sc->x[i], sc->logx) || !usable(sc->y[i], sc->logy))
            continue;
        nuse++;
        xmin = fmin(xmin, sc->x[i]);
        xmax = fmax(xmax, sc->x[i]);
        ymin = fmin(ymin, sc->y[i]);
        ymax = fmax(ymax, sc->y[i]);
        if (sc->c && isfinite(sc->c[i])) {
            cmin = fmin(cmin, sc->c[i]);
            cmax = fmax(cmax, sc->c[i]);
        }
    }
    if (!nuse) {
        /* An empty axis: [0, 1], or a decade on a log axis. */
        xmin = sc->logx ? 1 : 0;
        xmax = sc->logx ? 10 : 1;
        ymin = sc->logy ? 1 : 0;
        ymax = sc->logy ? 10 : 1;
        snprintf(d->note, sizeof d->note, "no data");
    }
    if (sc->cmax > sc->cmin && isfinite(sc->cmin) && isfinite(sc->cmax)) {
        cmin = sc->cmin;
        cmax = sc->cmax;
    } else if (!(cmin <= cmax)) {
        cmin = 0;
        cmax = 1;
    }
    plot p = {.W = 720, .H = 460};
    p.cr = xc_pf_canvas_open(p.W, p.H);
    cairo_t *cr = p.cr;
    axis az;
    xc_pf_axis_linear(&az, cmin, cmax, 0);
    xc_pf_axis_data(&p.ax, xmin, xmax, sc->logx);
    xc_pf_axis_data(&p.ay, ymin, ymax, sc->logy);
    xc_pf_layout(&p, sc->c ? xc_pf_colourbar_room(cr, &az) : 24, 0);
    xc_pf_draw_title(cr, p.W, xc_pf_str(sc->title), NULL);
    xc_pf_draw_axes(&p, xc_pf_str(sc->xlabel), xc_pf_str(sc->ylabel), 1);

    ptlist pts = {0};
    xc_pf_clip_frame(&p, 6);
    if (sc->diagonal) {
        /* y = x, sampled along the x axis so it is right on mixed log/linear axes too. */
        int pen = 0;
        for (int k = 0; k <= 256; k++) {
            double u = p.ax.lo + (p.ax.hi - p.ax.lo) * k / 256.0;
            double v = p.ax.log ? pow(10, u) : u;
            trace(&p, &pen, usable(v, p.ay.log), v, v);
        }
        static const double dash[] = {6, 4};
        cairo_set_dash(cr, dash, 2, 0);
        cairo_set_line_width(cr, 1.2);
        xc_pf_rgb(cr, 0x555555);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    for (size_t i = 0; i < sc->n; i++) {
        if (!usable(sc->x[i], sc->logx) || !usable(sc->y[i], sc->logy))
            continue;
        double px = xc_pf_map_x(&p, sc->x[i]), py = xc_pf_map_y(&p, sc->y[i]);
        xc_pf_pt_add(&pts, px, py);
        uint32_t col = xc_pf_palette[0];
        if (sc->c) {
            double v = sc->c[i];
            col = xc_pf_cmap_hex(sc->cmap, isfinite(v) ? (cmax > cmin ? (v - cmin) / (cmax - cmin) : 0.5) : NAN);
        }
        cairo_new_sub_path(cr);
        cairo_arc(cr, px, py, 3.5, 0, 2 * PI);
        xc_pf_rgb(cr, col);
        cairo_fill_preserve(cr);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.35);
        cairo_set_line_width(cr, 0.5);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
    if (!nuse)
        xc_pf_draw_nodata(&p, "no data");
    if (sc->diagonal) {
        legend_entry e = {"y = x", 0x555555, LG_DASH};
        xc_pf_draw_legend(&p, &e, 1, &pts);
    }
    if (sc->c)
        xc_pf_draw_colourbar(&p, sc->cmap, &az, xc_pf_str(sc->zlabel));
    xc_pf_pt_free(&pts);
    return xc_pf_canvas_close(cr, d, p.W, p.H, "scatter plot", xc_pf_str(sc->title), err);
}

/* ---- histograms and grouped bars ----------------------------------------- */

xc_status xc_draw_bars(const xc_bars *b, xc_drawn *d, xc_error *err)
{
    double lo = 0, hi = 0;
    for (size_t s = 0; s < b->nseries; s++)
        for (size_t i = 0; i < b->nbins; i++) {
            lo = fmin(lo, b->counts[s][i]);
            hi = fmax(hi, b->counts[s][i]);
        }
    int empty = lo == 0 && hi == 0;
    if (empty) {
        hi = 1;
        snprintf(d->note, sizeof d->note, "no data (every count is zero)");
    }
    /* Headroom, so the tallest bar does not touch the frame. */
    hi += 0.04 * (hi - lo);
    lo -= lo < 0 ? 0.04 * (hi - lo) : 0;
    plot p = {.W = 720, .H = 420};
    p.cr = xc_pf_canvas_open(p.W, p.H);
    cairo_t *cr = p.cr;
    xc_pf_axis_linear(&p.ax, b->edges[0], b->edges[b->nbins], 0);
    xc_pf_axis_linear(&p.ay, lo, hi, 1);
    xc_pf_layout(&p, 24, 0);
    xc_pf_draw_title(cr, p.W, xc_pf_str(b->title), NULL);
    /* Grid first, bars over it, then ticks and frame over the bars. */
    xc_pf_draw_axes(&p, xc_pf_str(b->xlabel), xc_pf_str(b->ylabel), 1);

    ptlist pts = {0};
    xc_pf_clip_frame(&p, 0);
    double zero = xc_pf_map_y(&p, 0);
    for (size_t s = 0; s < b->nseries; s++) {
        for (size_t i = 0; i < b->nbins; i++) {
            double x0 = xc_pf_map_x(&p, b->edges[i]), x1 = xc_pf_map_x(&p, b->edges[i + 1]);
            if (b->nseries > 1) {
                double w = 0.8 * (x1 - x0) / (double)b->nseries;
                x0 += 0.1 * (x1 - x0) + w * (double)s;
                x1 = x0 + w;
            }
            double y = xc_pf_map_y(&p, b->counts[s][i]);
            if (b->counts[s][i] == 0)
                continue;
            cairo_rectangle(cr, x0, fmin(y, zero), x1 - x0, fabs(zero - y));
            xc_pf_pt_add(&pts, (x0 + x1) / 2, y);
            xc_pf_pt_add(&pts, x0, y);
            xc_pf_pt_add(&pts, x1, y);
        }
        xc_pf_rgb(cr, xc_pf_palette[s % NPALETTE]);
        if (b->nseries == 1) {
            /* A histogram: bins touch, thin white lines part them. */
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_set_line_width(cr, 0.8);
            cairo_stroke(cr);
        } else {
            cairo_fill(cr);
        }
    }
    cairo_restore(cr);
    /* The zero line and the frame again, over the bars. */
    xc_pf_rgb(cr, 0x333333);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, p.fx, p.fy, p.fw, p.fh);
    cairo_stroke(cr);
    if (lo < 0) {
        cairo_move_to(cr, p.fx, round(zero));
        cairo_line_to(cr, p.fx + p.fw, round(zero));
        cairo_stroke(cr);
    }
    if (empty)
        xc_pf_draw_nodata(&p, "no data (every count is zero)");
    size_t nl = 0;
    for (size_t s = 0; b->labels && s < b->nseries; s++)
        nl += b->labels[s] && *b->labels[s];
    legend_entry *le = nl ? calloc(b->nseries, sizeof *le) : NULL;
    if (le) {
        for (size_t s = 0; s < b->nseries; s++)
            le[s] = (legend_entry){xc_pf_str(b->labels[s]), xc_pf_palette[s % NPALETTE], LG_BOX};
        xc_pf_draw_legend(&p, le, b->nseries, &pts);
    }
    free(le);
    xc_pf_pt_free(&pts);
    return xc_pf_canvas_close(cr, d, p.W, p.H, "bar plot", xc_pf_str(b->title), err);
}

#else
typedef int xc_plot_cairo_not_built;   /* PLOTS=0: nothing to draw with */
#endif
