/* SVG line plots and heatmaps.  Coordinates are printed with two decimals and
 * every label with a fixed format, so the same input gives the same bytes. */
#include "reports/xc_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FONT "font-family=\"Helvetica,Arial,sans-serif\" font-size=\"12\""

/* One axis: maps a data value to [0, 1] of the plot extent. */
typedef struct {
    double lo, hi;    /* in data units, or log10 of them for a log axis */
    int log;
    double step;      /* tick spacing (decades for a log axis) */
    int rev;          /* drawn from hi to lo */
} axis;

/* Position in [0, 1] of u, in axis units (log10 already taken). */
static double axis_pos(const axis *a, double u)
{
    double f = a->hi > a->lo ? (u - a->lo) / (a->hi - a->lo) : 0.5;
    return a->rev ? 1 - f : f;
}

static double axis_frac(const axis *a, double v)
{
    return axis_pos(a, a->log ? log10(v) : v);
}

/* 1, 2 or 5 times a power of ten, about span/n. */
static double nice_step(double span, int n)
{
    double raw = span / n;
    double p = pow(10, floor(log10(raw)));
    double f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}

/* Linear axis over [lo, hi]; `extend` rounds the limits out to whole ticks
 * (line plots), otherwise the limits stay (heatmap edges are physical). */
static void axis_linear(axis *a, double lo, double hi, int extend)
{
    if (!(hi > lo)) {
        double pad = lo != 0 ? 0.5 * fabs(lo) : 1;
        lo -= pad;
        hi += pad;
    }
    a->log = 0;
    a->rev = 0;
    a->step = nice_step(hi - lo, 5);
    a->lo = extend ? floor(lo / a->step) * a->step : lo;
    a->hi = extend ? ceil(hi / a->step) * a->step : hi;
}

static void axis_log(axis *a, double vmin, double vmax)
{
    a->log = 1;
    a->rev = 0;
    a->lo = floor(log10(vmin));
    a->hi = ceil(log10(vmax));
    if (a->hi <= a->lo)
        a->hi = a->lo + 1;
    a->step = ceil((a->hi - a->lo) / 8);
}

static void tick_label(char *buf, size_t n, const axis *a, double v)
{
    if (a->log) {
        snprintf(buf, n, "%g", pow(10, v));
        return;
    }
    if (fabs(v) < a->step * 1e-6)
        v = 0;   /* no "-0" or 1e-17 from accumulated steps */
    double av = fabs(v);
    if (v != 0 && (av >= 1e6 || av < 1e-3)) {
        snprintf(buf, n, "%.3g", v);
    } else {
        int dec = a->step >= 1 ? 0 : (int)ceil(-log10(a->step) - 1e-9);
        snprintf(buf, n, "%.*f", dec > 9 ? 9 : dec, v);
    }
}

/* Tick positions (in axis units): first tick and count. */
static size_t axis_ticks(const axis *a, double *first)
{
    double t0 = ceil(a->lo / a->step - 1e-9) * a->step;
    *first = t0;
    if (t0 > a->hi + 1e-9 * a->step)
        return 0;
    return (size_t)floor((a->hi - t0) / a->step + 1e-9) + 1;
}

/* Grid, frame, ticks, tick labels and axis labels of a plot area at (x, y)
 * of size w x h. */
static void draw_axes(xc_text *o, double x, double y, double w, double h, const axis *ax,
                      const axis *ay, const char *xlabel, const char *ylabel, int grid)
{
    double t0;
    char lab[64];
    size_t n = axis_ticks(ax, &t0);
    for (size_t i = 0; i < n; i++) {
        double u = t0 + (double)i * ax->step;
        double px = x + w * axis_pos(ax, u);
        if (grid)
            xc_text_printf(o, "<path d=\"M%.2f %.2fV%.2f\" stroke=\"#e6e6e6\"/>\n", px, y, y + h);
        xc_text_printf(o, "<path d=\"M%.2f %.2fv5\" stroke=\"#444\"/>\n", px, y + h);
        tick_label(lab, sizeof lab, ax, u);
        xc_text_printf(o, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n", px, y + h + 18,
                       lab);
    }
    n = axis_ticks(ay, &t0);
    for (size_t i = 0; i < n; i++) {
        double u = t0 + (double)i * ay->step;
        double py = y + h - h * axis_pos(ay, u);
        if (grid)
            xc_text_printf(o, "<path d=\"M%.2f %.2fH%.2f\" stroke=\"#e6e6e6\"/>\n", x, py, x + w);
        xc_text_printf(o, "<path d=\"M%.2f %.2fh-5\" stroke=\"#444\"/>\n", x, py);
        tick_label(lab, sizeof lab, ay, u);
        xc_text_printf(o, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n", x - 8, py + 4, lab);
    }
    xc_text_printf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
                      "stroke=\"#444\"/>\n", x, y, w, h);
    xc_text_printf(o, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">", x + w / 2, y + h + 42);
    xc_text_escape(o, xlabel);
    xc_text_printf(o, "</text>\n<text transform=\"translate(%.2f %.2f) rotate(-90)\" text-anchor=\"middle\">",
                   x - 58, y + h / 2);
    xc_text_escape(o, ylabel);
    xc_text_put(o, "</text>\n");
}

static void svg_open(xc_text *o, int w, int h, const char *title, const char *subtitle)
{
    xc_text_printf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                      "height=\"%d\" " FONT " role=\"img\">\n<title>", w, h, w, h);
    xc_text_escape(o, title);
    xc_text_printf(o, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", w, h);
    xc_text_printf(o, "<text x=\"%.2f\" y=\"20\" text-anchor=\"middle\" font-size=\"15\" "
                      "font-weight=\"bold\">", w / 2.0);
    xc_text_escape(o, title);
    xc_text_put(o, "</text>\n");
    if (subtitle && *subtitle) {
        xc_text_printf(o, "<text x=\"%.2f\" y=\"35\" text-anchor=\"middle\" font-size=\"11\" fill=\"#666\">",
                       w / 2.0);
        xc_text_escape(o, subtitle);
        xc_text_put(o, "</text>\n");
    }
}

/* ---- line plots ---------------------------------------------------------- */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define NPALETTE (sizeof palette / sizeof palette[0])

static int usable(double v, int log)
{
    return isfinite(v) && (!log || v > 0);
}

xc_status xc_svg_lines(xc_text *o, const xc_lineplot *p, xc_error *err)
{
    const char *title = p && p->title ? p->title : "";
    if (!p || !p->series || p->nseries == 0)
        return xc_error_set(err, XC_EINVAL, "line plot '%s': no series", title);
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (size_t s = 0; s < p->nseries; s++) {
        const xc_series *sr = &p->series[s];
        if (sr->n && (!sr->x || !sr->y))
            return xc_error_set(err, XC_EINVAL, "line plot '%s': series %zu has no data", title, s);
        for (size_t i = 0; i < sr->n; i++)
            if (usable(sr->x[i], p->logx) && usable(sr->y[i], p->logy)) {
                xmin = fmin(xmin, sr->x[i]);
                xmax = fmax(xmax, sr->x[i]);
                ymin = fmin(ymin, sr->y[i]);
                ymax = fmax(ymax, sr->y[i]);
            }
    }
    if (!(xmin <= xmax))
        return xc_error_set(err, XC_EINVAL, "line plot '%s': no point to draw%s", title,
                            p->logx || p->logy ? " (log axes skip values <= 0)" : "");

    const int W = 720, H = 420;
    const double X = 80, Y = 44, PW = W - X - 24, PH = H - Y - 62;
    axis ax, ay;
    if (p->logx)
        axis_log(&ax, xmin, xmax);
    else
        axis_linear(&ax, xmin, xmax, 1);
    if (p->logy)
        axis_log(&ay, ymin, ymax);
    else
        axis_linear(&ay, ymin, ymax, 1);

    svg_open(o, W, H, title, NULL);
    draw_axes(o, X, Y, PW, PH, &ax, &ay, p->xlabel, p->ylabel, 1);
    for (size_t s = 0; s < p->nseries; s++) {
        const xc_series *sr = &p->series[s];
        const char *col = palette[s % NPALETTE];
        /* Past the palette, dashes keep series apart. */
        const char *dash = s >= NPALETTE ? " stroke-dasharray=\"6 3\"" : "";
        int pen = 0;
        xc_text_printf(o, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s d=\"", col, dash);
        for (size_t i = 0; i < sr->n; i++) {
            if (!usable(sr->x[i], p->logx) || !usable(sr->y[i], p->logy)) {
                pen = 0;
                continue;
            }
            double px = X + PW * axis_frac(&ax, sr->x[i]), py = Y + PH - PH * axis_frac(&ay, sr->y[i]);
            xc_text_printf(o, "%s%.2f %.2f", pen ? "L" : "M", px, py);
            pen = 1;
        }
        xc_text_put(o, "\"/>\n");
        if (sr->n <= 60)
            for (size_t i = 0; i < sr->n; i++)
                if (usable(sr->x[i], p->logx) && usable(sr->y[i], p->logy))
                    xc_text_printf(o, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" fill=\"%s\"/>\n",
                                   X + PW * axis_frac(&ax, sr->x[i]),
                                   Y + PH - PH * axis_frac(&ay, sr->y[i]), col);
    }

    /* Legend, top right inside the frame; width from the longest label. */
    size_t longest = 0;
    for (size_t s = 0; s < p->nseries; s++) {
        size_t l = p->series[s].label ? strlen(p->series[s].label) : 0;
        longest = l > longest ? l : longest;
    }
    if (longest) {
        double lw = 40 + 6.8 * (double)longest, lh = 8 + 18 * (double)p->nseries;
        double lx = X + PW - lw - 8, ly = Y + 8;
        xc_text_printf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#fff\" "
                          "fill-opacity=\"0.85\" stroke=\"#bbb\"/>\n", lx, ly, lw, lh);
        for (size_t s = 0; s < p->nseries; s++) {
            double yy = ly + 16 + 18 * (double)s;
            xc_text_printf(o, "<path d=\"M%.2f %.2fh22\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", lx + 6,
                           yy - 4, palette[s % NPALETTE], s >= NPALETTE ? " stroke-dasharray=\"6 3\"" : "");
            xc_text_printf(o, "<text x=\"%.2f\" y=\"%.2f\">", lx + 34, yy);
            xc_text_escape(o, p->series[s].label ? p->series[s].label : "");
            xc_text_put(o, "</text>\n");
        }
    }
    xc_text_put(o, "</svg>\n");
    return o->oom ? xc_error_set(err, XC_ENOMEM, "line plot '%s': out of memory", title) : XC_OK;
}

/* ---- heatmaps ------------------------------------------------------------ */

/* viridis sampled at 0, 0.1, ..., 1 (matplotlib's table); linear in between. */
static const uint8_t viridis[11][3] = {
    {0x44, 0x01, 0x54}, {0x48, 0x24, 0x75}, {0x41, 0x44, 0x87}, {0x35, 0x5f, 0x8d},
    {0x2a, 0x78, 0x8e}, {0x21, 0x91, 0x8c}, {0x22, 0xa8, 0x84}, {0x44, 0xbf, 0x70},
    {0x7a, 0xd1, 0x51}, {0xbd, 0xdf, 0x26}, {0xfd, 0xe7, 0x25},
};

void xc_cmap_rgb(xc_cmap m, double v, uint8_t rgb[3])
{
    if (isnan(v)) {
        rgb[0] = 255, rgb[1] = 0, rgb[2] = 255;
        return;
    }
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    if (m == XC_CMAP_GREY) {
        rgb[0] = rgb[1] = rgb[2] = (uint8_t)lround(255 * v);
        return;
    }
    double u = v * 10;
    int i = (int)u;
    if (i >= 10)
        i = 9;
    double f = u - i;
    for (int c = 0; c < 3; c++)
        rgb[c] = (uint8_t)lround(viridis[i][c] + f * (viridis[i + 1][c] - viridis[i][c]));
}

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

xc_status xc_svg_heatmap(xc_text *o, const xc_heatmap *h, xc_error *err)
{
    const char *title = h && h->title ? h->title : "";
    if (!h || !h->data || h->nrows == 0 || h->ncols == 0)
        return xc_error_set(err, XC_EINVAL, "heatmap '%s': no data", title);
    if (!isfinite(h->x0) || !isfinite(h->x1) || !isfinite(h->y0) || !isfinite(h->y1))
        return xc_error_set(err, XC_EINVAL, "heatmap '%s': axis limits must be finite", title);

    size_t fr = (h->nrows + MAXR - 1) / MAXR, fc = (h->ncols + MAXC - 1) / MAXC;
    size_t nr = (h->nrows + fr - 1) / fr, nc = (h->ncols + fc - 1) / fc;
    float *cells = reduce_cells(h, fr, fc, nr, nc);
    uint8_t *rgb = malloc(nr * nc * 3);
    uint8_t bar[3 * 128];
    if (!cells || !rgb) {
        free(cells);
        free(rgb);
        return xc_error_set(err, XC_ENOMEM, "heatmap '%s': out of memory for %zu x %zu cells", title, nr, nc);
    }
    double vmin = h->vmin, vmax = h->vmax;
    size_t nbad = 0;
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
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < nc; c++) {
            float v = cells[r * nc + c];
            nbad += isnan(v);
            double u = isnan(v) ? NAN : vmax > vmin ? (v - vmin) / (vmax - vmin) : 0.5;
            xc_cmap_rgb(h->cmap, u, rgb + 3 * ((nr - 1 - r) * nc + c));   /* PNG rows run top down */
        }
    for (int i = 0; i < 128; i++)
        xc_cmap_rgb(h->cmap, (127 - i) / 127.0, bar + 3 * i);

    char sub[256];
    int ns = snprintf(sub, sizeof sub, "%zu x %zu samples", h->nrows, h->ncols);
    if (fr > 1 || fc > 1)
        ns += snprintf(sub + ns, sizeof sub - (size_t)ns, "; each cell the %s of %zu x %zu",
                       h->reduce == XC_REDUCE_MAX ? "maximum" : "mean", fr, fc);
    if (nbad)
        snprintf(sub + ns, sizeof sub - (size_t)ns, "; %zu cells not finite (magenta)", nbad);

    const int W = 720, H = 440;
    const double X = 80, Y = 44, PW = W - X - 116, PH = H - Y - 62;
    axis ax, ay, az;
    axis_linear(&ax, fmin(h->x0, h->x1), fmax(h->x0, h->x1), 0);
    axis_linear(&ay, fmin(h->y0, h->y1), fmax(h->y0, h->y1), 0);
    axis_linear(&az, vmin, vmax, 0);
    /* x1 < x0 (e.g. frequency falling with channel) keeps column 0 at the left. */
    ax.rev = h->x1 < h->x0;
    ay.rev = h->y1 < h->y0;

    svg_open(o, W, H, title, sub);
    /* The reduced image spans nc*fc columns and nr*fr rows of data, a little
     * more than the array when the last block is partial; the nested <svg>
     * clips that overhang to the plot area. */
    double iw = PW * (double)(nc * fc) / (double)h->ncols, ih = PH * (double)(nr * fr) / (double)h->nrows;
    xc_text_printf(o, "<svg x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" viewBox=\"0 0 %.2f %.2f\">\n",
                   X, Y, PW, PH, PW, PH);
    xc_text_printf(o, "<image x=\"0\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" preserveAspectRatio=\"none\" "
                      "style=\"image-rendering:pixelated\" href=\"data:image/png;base64,", PH - ih, iw, ih);
    xc_status st = xc_png_base64(o, rgb, nc, nr, err);
    xc_text_put(o, "\"/>\n</svg>\n");
    free(cells);
    free(rgb);
    if (st)
        return st;
    draw_axes(o, X, Y, PW, PH, &ax, &ay, h->xlabel, h->ylabel, 0);

    /* Colour bar with its own ticks. */
    double bx = X + PW + 22, bw = 16;
    xc_text_printf(o, "<image x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" preserveAspectRatio=\"none\" "
                      "href=\"data:image/png;base64,", bx, Y, bw, PH);
    st = xc_png_base64(o, bar, 1, 128, err);
    if (st)
        return st;
    xc_text_printf(o, "\"/>\n<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
                      "stroke=\"#444\"/>\n", bx, Y, bw, PH);
    double t0;
    char lab[64];
    size_t n = axis_ticks(&az, &t0);
    for (size_t i = 0; i < n; i++) {
        double u = t0 + (double)i * az.step;
        double py = Y + PH - PH * axis_frac(&az, u);
        tick_label(lab, sizeof lab, &az, u);
        xc_text_printf(o, "<path d=\"M%.2f %.2fh4\" stroke=\"#444\"/>\n<text x=\"%.2f\" y=\"%.2f\">%s</text>\n",
                       bx + bw, py, bx + bw + 6, py + 4, lab);
    }
    xc_text_printf(o, "<text transform=\"translate(%.2f %.2f) rotate(-90)\" text-anchor=\"middle\">",
                   (double)W - 8, Y + PH / 2);
    xc_text_escape(o, h->zlabel);
    xc_text_put(o, "</text>\n</svg>\n");
    return o->oom ? xc_error_set(err, XC_ENOMEM, "heatmap '%s': out of memory", title) : XC_OK;
}
