/* What every cairo plot kind shares (reports/draw/plot_frame.h): colours, text
 * (cairo's "toy" API with DejaVu Sans and fixed font options, so the same
 * input gives the same bytes on a machine), axes and ticks, the frame's
 * layout, the colour bar and legends (the canvas: reports/draw/plot_canvas.c). */
#include "reports/draw/plot_frame.h"

#ifdef XC_HAVE_CAIRO

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FONT "DejaVu Sans"

const uint32_t xc_pf_palette[NPALETTE] = {0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e,
                                          0x9467bd, 0x8c564b, 0xe377c2, 0x17becf};

/* ---- colours ------------------------------------------------------------- */

void xc_pf_rgb(cairo_t *cr, uint32_t hex)
{
    cairo_set_source_rgb(cr, ((hex >> 16) & 255) / 255.0, ((hex >> 8) & 255) / 255.0, (hex & 255) / 255.0);
}

uint32_t xc_pf_cmap_hex(xc_cmap m, double v)
{
    uint8_t c[3];
    xc_cmap_rgb(m, v, c);
    return (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2];
}

/* ---- text ---------------------------------------------------------------- */

/* Copies s to buf (n bytes), drawing "^" followed by an optional sign and
 * digits as superscript characters (UTF-8): "cm^-3" -> "cm⁻³". */
static void pretty(char *buf, size_t n, const char *s)
{
    static const char *const sup[10] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                        "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
    size_t k = 0;
    buf[0] = '\0';
    for (const char *p = s ? s : ""; *p; p++) {
        const char *rep = NULL;
        char one[2] = {*p, 0};
        if (*p == '^') {
            const char *q = p + 1;
            if (*q == '-' || *q == '+')
                q++;
            if (*q >= '0' && *q <= '9') {
                /* Emit the sign, then each digit, as superscripts. */
                p++;
                if (*p == '-' || *p == '+') {
                    const char *sign = *p == '-' ? "\u207b" : "\u207a";
                    if (k + strlen(sign) >= n)
                        return;
                    memcpy(buf + k, sign, strlen(sign) + 1);
                    k += strlen(sign);
                    p++;
                }
                for (; *p >= '0' && *p <= '9'; p++) {
                    const char *d = sup[*p - '0'];
                    if (k + strlen(d) >= n)
                        return;
                    memcpy(buf + k, d, strlen(d) + 1);
                    k += strlen(d);
                }
                p--;
                continue;
            }
        }
        rep = one;
        if (k + 1 >= n)
            return;
        memcpy(buf + k, rep, 2);
        k++;
    }
}

static void font(cairo_t *cr, double size, int bold)
{
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

/* Advance width of s (in the current font) once superscripts are applied. */
static double text_width(cairo_t *cr, const char *s)
{
    char buf[1024];
    cairo_text_extents_t te;
    pretty(buf, sizeof buf, s);
    cairo_text_extents(cr, buf, &te);
    return te.x_advance;
}

/* Draws s in the current font (of the given size) anchored at (x, y): ha 0
 * left, 0.5 centre, 1 right; va 0 baseline, 0.5 middle, 1 top of the
 * capitals at y; rotated by angle (radians, about the anchor). */
static void text(cairo_t *cr, double x, double y, double size, const char *s, double ha, double va, double angle)
{
    char buf[1024];
    cairo_text_extents_t te;
    pretty(buf, sizeof buf, s);
    cairo_text_extents(cr, buf, &te);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, angle);
    cairo_move_to(cr, -ha * te.x_advance, va * 0.73 * size);
    cairo_show_text(cr, buf);
    cairo_restore(cr);
}

/* Title (bold, shrunk to fit the width) and an optional grey subtitle. */
void xc_pf_draw_title(cairo_t *cr, int W, const char *title, const char *sub)
{
    double size = 15;
    font(cr, size, 1);
    while (size > 8 && text_width(cr, title) > W - 16) {
        size -= 0.5;
        font(cr, size, 1);
    }
    xc_pf_rgb(cr, 0x111111);
    text(cr, W / 2.0, 10, size, title, 0.5, 1, 0);
    if (sub && *sub) {
        font(cr, 11, 0);
        xc_pf_rgb(cr, 0x5a6272);
        text(cr, W / 2.0, 31, 11, sub, 0.5, 1, 0);
    }
}

/* ---- axes ---------------------------------------------------------------- */

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
 * (data plots), otherwise the limits stay (heatmap and bin edges are physical). */
void xc_pf_axis_linear(axis *a, double lo, double hi, int extend)
{
    if (!(hi > lo)) {
        double pad = lo != 0 ? 0.5 * fabs(lo) : 1;
        lo -= pad;
        hi += pad;
    }
    memset(a, 0, sizeof *a);
    a->step = nice_step(hi - lo, 5);
    a->lo = extend ? floor(lo / a->step) * a->step : lo;
    a->hi = extend ? ceil(hi / a->step) * a->step : hi;
}

static void axis_log(axis *a, double vmin, double vmax)
{
    memset(a, 0, sizeof *a);
    a->log = 1;
    a->lo = floor(log10(vmin));
    a->hi = ceil(log10(vmax));
    if (a->hi <= a->lo)
        a->hi = a->lo + 1;
    a->step = ceil((a->hi - a->lo) / 8);
    a->plain = a->lo >= -2 && a->hi <= 3;
}

void xc_pf_axis_data(axis *a, double lo, double hi, int log)
{
    if (log)
        axis_log(a, lo, hi);
    else
        xc_pf_axis_linear(a, lo, hi, 1);
}

static void tick_label(char *buf, size_t n, const axis *a, double u)
{
    if (a->log) {
        int k = (int)lround(u);
        if (a->plain)
            snprintf(buf, n, "%g", pow(10, k));
        else
            snprintf(buf, n, "10^%d", k);
        return;
    }
    if (fabs(u) < a->step * 1e-6)
        u = 0;   /* no "-0" or 1e-17 from accumulated steps */
    double au = fabs(u);
    char num[48];
    if (u != 0 && (au >= 1e6 || au < 1e-3)) {
        snprintf(num, sizeof num, "%.3g", au);
    } else {
        int dec = a->step >= 1 ? 0 : (int)ceil(-log10(a->step) - 1e-9);
        snprintf(num, sizeof num, "%.*f", dec > 9 ? 9 : dec, au);
    }
    snprintf(buf, n, "%s%s", u < 0 ? "\u2212" : "", num);   /* a real minus sign */
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

/* Widest tick label of a, in the tick font. */
static double ticks_width(cairo_t *cr, const axis *a)
{
    double t0, w = 0;
    char lab[64];
    size_t n = axis_ticks(a, &t0);
    font(cr, 11, 0);
    for (size_t i = 0; i < n; i++) {
        tick_label(lab, sizeof lab, a, t0 + (double)i * a->step);
        w = fmax(w, text_width(cr, lab));
    }
    return w;
}

/* Places the frame: room on the left for the y tick labels and label,
 * `right` kept free on the right (colour bar), the title above. */
void xc_pf_layout(plot *p, double right, int subtitle)
{
    p->ytickw = ticks_width(p->cr, &p->ay);
    double left = 12 + 16 + 8 + p->ytickw + 8;
    double top = subtitle ? 50 : 38, bottom = 8 + 11 + 12 + 14 + 10;
    p->fx = round(left);
    p->fy = top;
    p->fw = round(p->W - right) - p->fx;
    p->fh = round(p->H - top - bottom);
}

double xc_pf_map_x(const plot *p, double v)
{
    return p->fx + p->fw * axis_frac(&p->ax, v);
}

double xc_pf_map_y(const plot *p, double v)
{
    return p->fy + p->fh - p->fh * axis_frac(&p->ay, v);
}

/* Grid (optional), ticks (minor ones on log axes), tick labels, frame and axis labels. */
void xc_pf_draw_axes(const plot *p, const char *xlabel, const char *ylabel, int grid)
{
    cairo_t *cr = p->cr;
    double t0;
    char lab[64];
    double bottom = p->fy + p->fh, right = p->fx + p->fw;
    cairo_set_line_width(cr, 1);
    for (int pass = 0; pass < 2; pass++) {   /* pass 0: grid; pass 1: ticks */
        if (pass == 0 && !grid)
            continue;
        for (int k = 0; k < 2; k++) {
            const axis *a = k ? &p->ay : &p->ax;
            size_t n = axis_ticks(a, &t0);
            for (size_t i = 0; i < n; i++) {
                double u = t0 + (double)i * a->step;
                for (int m = 1; m <= (a->log && a->step == 1 && a->hi - a->lo <= 6 ? 9 : 1); m++) {
                    double um = a->log ? u + log10(m) : u;
                    if (um > a->hi + 1e-9)
                        break;
                    double f = axis_pos(a, um);
                    double len = m == 1 ? 5 : 3;
                    if (pass == 0 && m > 1)
                        continue;
                    if (k == 0) {
                        double px = round(p->fx + p->fw * f);
                        if (pass == 0) {
                            cairo_move_to(cr, px, p->fy);
                            cairo_line_to(cr, px, bottom);
                        } else {
                            cairo_move_to(cr, px, bottom);
                            cairo_line_to(cr, px, bottom + len);
                        }
                    } else {
                        double py = round(bottom - p->fh * f);
                        if (pass == 0) {
                            cairo_move_to(cr, p->fx, py);
                            cairo_line_to(cr, right, py);
                        } else {
                            cairo_move_to(cr, p->fx, py);
                            cairo_line_to(cr, p->fx - len, py);
                        }
                    }
                }
            }
        }
        xc_pf_rgb(cr, pass == 0 ? 0xe6e8ec : 0x333333);
        cairo_stroke(cr);
    }
    font(cr, 11, 0);
    xc_pf_rgb(cr, 0x222222);
    size_t n = axis_ticks(&p->ax, &t0);
    for (size_t i = 0; i < n; i++) {
        double u = t0 + (double)i * p->ax.step;
        tick_label(lab, sizeof lab, &p->ax, u);
        text(cr, p->fx + p->fw * axis_pos(&p->ax, u), bottom + 9, 11, lab, 0.5, 1, 0);
    }
    n = axis_ticks(&p->ay, &t0);
    for (size_t i = 0; i < n; i++) {
        double u = t0 + (double)i * p->ay.step;
        tick_label(lab, sizeof lab, &p->ay, u);
        text(cr, p->fx - 8, bottom - p->fh * axis_pos(&p->ay, u), 11, lab, 1, 0.5, 0);
    }
    xc_pf_rgb(cr, 0x333333);
    cairo_rectangle(cr, p->fx, p->fy, p->fw, p->fh);
    cairo_stroke(cr);
    font(cr, 12.5, 0);
    xc_pf_rgb(cr, 0x111111);
    text(cr, p->fx + p->fw / 2, bottom + 9 + 11 + 12, 12.5, xlabel, 0.5, 1, 0);
    text(cr, p->fx - 8 - p->ytickw - 8, p->fy + p->fh / 2, 12.5, ylabel, 0.5, 0, -PI / 2);
}

/* "no data" in the middle of the frame. */
void xc_pf_draw_nodata(const plot *p, const char *why)
{
    font(p->cr, 14, 0);
    xc_pf_rgb(p->cr, 0x8a90a0);
    text(p->cr, p->fx + p->fw / 2, p->fy + p->fh / 2, 14, why, 0.5, 0.5, 0);
}

/* Clips drawing to the frame, widened so markers on its edge stay whole. */
void xc_pf_clip_frame(const plot *p, double margin)
{
    cairo_save(p->cr);
    cairo_rectangle(p->cr, p->fx - margin, p->fy - margin, p->fw + 2 * margin, p->fh + 2 * margin);
    cairo_clip(p->cr);
}

/* A vertical colour bar right of the frame, over [vmin, vmax] of the linear
 * axis az, with its ticks and label. */
void xc_pf_draw_colourbar(const plot *p, xc_cmap cmap, const axis *az, const char *zlabel)
{
    cairo_t *cr = p->cr;
    double bx = p->fx + p->fw + 18, bw = 16;
    cairo_surface_t *bar = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 256);
    if (cairo_surface_status(bar) == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(bar);
        unsigned char *data = cairo_image_surface_get_data(bar);
        int stride = cairo_image_surface_get_stride(bar);
        for (int i = 0; i < 256; i++)
            *(uint32_t *)(void *)(data + (size_t)i * (size_t)stride) = xc_pf_cmap_hex(cmap, (255 - i) / 255.0);
        cairo_surface_mark_dirty(bar);
        cairo_save(cr);
        cairo_rectangle(cr, bx, p->fy, bw, p->fh);
        cairo_clip(cr);
        cairo_translate(cr, bx, p->fy);
        cairo_scale(cr, bw, p->fh / 256);
        cairo_set_source_surface(cr, bar, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_paint(cr);
        cairo_restore(cr);
    }
    cairo_surface_destroy(bar);
    xc_pf_rgb(cr, 0x333333);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, bx, p->fy, bw, p->fh);
    double t0;
    char lab[64];
    size_t n = axis_ticks(az, &t0);
    for (size_t i = 0; i < n; i++) {
        double py = round(p->fy + p->fh - p->fh * axis_pos(az, t0 + (double)i * az->step));
        cairo_move_to(cr, bx + bw, py);
        cairo_line_to(cr, bx + bw + 4, py);
    }
    cairo_stroke(cr);
    double zw = ticks_width(cr, az);
    xc_pf_rgb(cr, 0x222222);
    for (size_t i = 0; i < n; i++) {
        double u = t0 + (double)i * az->step;
        tick_label(lab, sizeof lab, az, u);
        text(cr, bx + bw + 7, p->fy + p->fh - p->fh * axis_pos(az, u), 11, lab, 0, 0.5, 0);
    }
    font(cr, 12.5, 0);
    xc_pf_rgb(cr, 0x111111);
    text(cr, bx + bw + 7 + zw + 8 + 0.73 * 12.5, p->fy + p->fh / 2, 12.5, zlabel, 0.5, 0, -PI / 2);
}

/* Room the colour bar takes right of the frame. */
double xc_pf_colourbar_room(cairo_t *cr, const axis *az)
{
    return 18 + 16 + 7 + ticks_width(cr, az) + 8 + 16 + 8;
}

/* ---- legend -------------------------------------------------------------- */

static void legend_sample(cairo_t *cr, const legend_entry *e, double x, double y)
{
    xc_pf_rgb(cr, e->colour);
    cairo_set_line_width(cr, 2);
    switch (e->style) {
    case LG_LINE:
    case LG_DASH:
    case LG_LINEMARK:
        if (e->style == LG_DASH) {
            static const double dash[] = {6, 3};
            cairo_set_dash(cr, dash, 2, 0);
        }
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x + 24, y);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        if (e->style == LG_LINEMARK) {
            cairo_arc(cr, x + 12, y, 2.5, 0, 2 * PI);
            cairo_fill(cr);
        }
        break;
    case LG_MARKER:
    case LG_HOLLOW:
        cairo_arc(cr, x + 12, y, 3.5, 0, 2 * PI);
        if (e->style == LG_HOLLOW) {
            cairo_set_line_width(cr, 1.3);
            cairo_stroke(cr);
        } else {
            cairo_fill(cr);
        }
        break;
    default:
        cairo_rectangle(cr, x + 5, y - 5, 14, 10);
        cairo_fill(cr);
        break;
    }
}

/* The legend in the corner of the frame that covers fewest points (top
 * right, top left, bottom right, bottom left on a tie). */
void xc_pf_draw_legend(const plot *p, const legend_entry *e, size_t n, const ptlist *pts)
{
    cairo_t *cr = p->cr;
    double tw = 0;
    font(cr, 11, 0);
    for (size_t i = 0; i < n; i++)
        tw = fmax(tw, text_width(cr, e[i].label));
    double lw = 8 + 24 + 8 + tw + 10, lh = 6 + 17 * (double)n, in = 8;
    double cx[4] = {p->fx + p->fw - lw - in, p->fx + in, p->fx + p->fw - lw - in, p->fx + in};
    double cy[4] = {p->fy + in, p->fy + in, p->fy + p->fh - lh - in, p->fy + p->fh - lh - in};
    int best = 0;
    size_t bestn = (size_t)-1;
    for (int c = 0; c < 4; c++) {
        size_t k = 0;
        for (size_t i = 0; pts && i < pts->n; i++)
            k += pts->x[i] >= cx[c] - 4 && pts->x[i] <= cx[c] + lw + 4 && pts->y[i] >= cy[c] - 4 &&
                 pts->y[i] <= cy[c] + lh + 4;
        if (k < bestn) {
            bestn = k;
            best = c;
        }
    }
    double lx = round(cx[best]), ly = round(cy[best]);
    cairo_rectangle(cr, lx, ly, lw, lh);
    cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
    cairo_fill_preserve(cr);
    xc_pf_rgb(cr, 0xb4b9c4);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    for (size_t i = 0; i < n; i++) {
        double yy = ly + 3 + 17 * (double)i + 8.5;
        legend_sample(cr, &e[i], lx + 8, yy);
        font(cr, 11, 0);
        xc_pf_rgb(cr, 0x222222);
        text(cr, lx + 8 + 24 + 8, yy, 11, e[i].label, 0, 0.5, 0);
    }
}

#else
typedef int xc_plot_frame_not_built;   /* PLOTS=0: nothing to draw with */
#endif
