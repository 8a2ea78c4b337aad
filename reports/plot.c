/* Plots: the checks on their input (the same with and without cairo) and
 * the HTML of a figure: an <img> holding the PNG that draw/plot_cairo.c
 * drew, or, built with PLOTS=0, a paragraph saying so. */
#include "reports/draw/plot_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int xc_plots_built(void)
{
#ifdef XC_HAVE_CAIRO
    return 1;
#else
    return 0;
#endif
}

void xc_drawn_free(xc_drawn *d)
{
    free(d->png);
    memset(d, 0, sizeof *d);
}

static const char *title_of(const char *t)
{
    return t ? t : "";
}

/* ---- input checks -------------------------------------------------------- */

static xc_status check_lines(const xc_lineplot *p, xc_error *err)
{
    const char *title = title_of(p ? p->title : NULL);
    if (!p || !p->series || p->nseries == 0)
        return xc_error_set(err, XC_EINVAL, "line plot '%s': no series", title);
    size_t usable = 0;
    for (size_t s = 0; s < p->nseries; s++) {
        const xc_series *sr = &p->series[s];
        if (sr->n && (!sr->x || !sr->y))
            return xc_error_set(err, XC_EINVAL, "line plot '%s': series %zu has no data", title, s);
        if (!sr->ylo != !sr->yhi)
            return xc_error_set(err, XC_EINVAL, "line plot '%s': series %zu has %s but not %s", title, s,
                                sr->ylo ? "ylo" : "yhi", sr->ylo ? "yhi" : "ylo");
        for (size_t i = 0; i < sr->n; i++)
            usable += xc_plot_usable(sr->x[i], p->logx) && xc_plot_usable(sr->y[i], p->logy);
    }
    if (!usable)
        return xc_error_set(err, XC_EINVAL, "line plot '%s': no point to draw%s", title,
                            p->logx || p->logy ? " (log axes skip values <= 0)" : "");
    return XC_OK;
}

static xc_status check_heatmap(const xc_heatmap *h, xc_error *err)
{
    const char *title = title_of(h ? h->title : NULL);
    if (!h || !h->data || h->nrows == 0 || h->ncols == 0)
        return xc_error_set(err, XC_EINVAL, "heatmap '%s': no data", title);
    if (!isfinite(h->x0) || !isfinite(h->x1) || !isfinite(h->y0) || !isfinite(h->y1))
        return xc_error_set(err, XC_EINVAL, "heatmap '%s': axis limits must be finite", title);
    return XC_OK;
}

static xc_status check_scatter(const xc_scatter *s, xc_error *err)
{
    if (!s)
        return xc_error_set(err, XC_EINVAL, "scatter plot: no plot");
    if (s->n && (!s->x || !s->y))
        return xc_error_set(err, XC_EINVAL, "scatter plot '%s': %zu points but no x or y", title_of(s->title),
                            s->n);
    return XC_OK;
}

static xc_status check_bars(const xc_bars *b, xc_error *err)
{
    const char *title = title_of(b ? b->title : NULL);
    if (!b || !b->edges || b->nbins == 0)
        return xc_error_set(err, XC_EINVAL, "bar plot '%s': no bins", title);
    if (!b->counts || b->nseries == 0)
        return xc_error_set(err, XC_EINVAL, "bar plot '%s': no series", title);
    for (size_t i = 0; i <= b->nbins; i++)
        if (!isfinite(b->edges[i]) || (i && !(b->edges[i] > b->edges[i - 1])))
            return xc_error_set(err, XC_EINVAL, "bar plot '%s': edge %zu (%g) is not finite or not above the one "
                                "before", title, i, b->edges[i]);
    for (size_t s = 0; s < b->nseries; s++) {
        if (!b->counts[s])
            return xc_error_set(err, XC_EINVAL, "bar plot '%s': series %zu has no counts", title, s);
        for (size_t i = 0; i < b->nbins; i++)
            if (!isfinite(b->counts[s][i]))
                return xc_error_set(err, XC_EINVAL, "bar plot '%s': series %zu, bin %zu: count %g is not finite",
                                    title, s, i, b->counts[s][i]);
    }
    return XC_OK;
}

/* ---- the figure's HTML --------------------------------------------------- */

#ifdef XC_HAVE_CAIRO
static xc_status put_img(xc_text *out, const char *title, xc_drawn *d, xc_status st, xc_error *err)
{
    if (!st) {
        xc_text_put(out, "<img src=\"data:image/png;base64,");
        xc_text_base64(out, d->png, d->n);
        xc_text_printf(out, "\" width=\"%d\" height=\"%d\" alt=\"", d->w, d->h);
        xc_text_escape(out, title);
        if (d->note[0]) {
            xc_text_put(out, "\" title=\"");
            xc_text_escape(out, d->note);
        }
        xc_text_put(out, "\">\n");
        if (out->oom)
            st = xc_error_set(err, XC_ENOMEM, "plot '%s': out of memory", title);
    }
    xc_drawn_free(d);
    return st;
}
#define FIGURE(out, title, draw, what, arg, err) \
    do { \
        xc_drawn d_ = {0}; \
        return put_img(out, title, &d_, draw(arg, &d_, err), err); \
    } while (0)
#else
static xc_status put_noplot(xc_text *out, const char *what, const char *title, xc_error *err)
{
    xc_text_printf(out, "<p class=\"noplot\">%s &#8220;", what);
    xc_text_escape(out, title);
    xc_text_put(out, "&#8221;: not drawn, this crosscheck was built without plots (PLOTS=0).</p>\n");
    return out->oom ? xc_error_set(err, XC_ENOMEM, "plot '%s': out of memory", title) : XC_OK;
}
#define FIGURE(out, title, draw, what, arg, err) return put_noplot(out, what, title, err)
#endif

/* Each kind of plot: FN checks its description (CHECK) and then puts the
 * figure (FIGURE: drawn by DRAW, or WHAT said not drawn). */
#define PLOT_FN(FN, T, CHECK, DRAW, WHAT)                         \
    xc_status FN(xc_text *out, const T *p, xc_error *err)         \
    {                                                             \
        xc_status st = CHECK(p, err);                             \
        if (st)                                                   \
            return st;                                            \
        FIGURE(out, title_of(p->title), DRAW, WHAT, p, err);      \
    }

PLOT_FN(xc_plot_lines, xc_lineplot, check_lines, xc_draw_lines, "Line plot")
PLOT_FN(xc_plot_heatmap, xc_heatmap, check_heatmap, xc_draw_heatmap, "Heatmap")
PLOT_FN(xc_plot_scatter, xc_scatter, check_scatter, xc_draw_scatter, "Scatter plot")
PLOT_FN(xc_plot_bars, xc_bars, check_bars, xc_draw_bars, "Bar plot")
