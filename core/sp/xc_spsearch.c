/* xc_spsearch.c: presets, options, detections and the driver of the
 * single-pulse search (core/sp/xc_spsearch.h). */
#include "core/sp/xc_spsearch.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_grow.h"

static const char *const preset_names[XC_SP_NPRESETS] = {"heimdall", "presto", "astroaccelerate"};

const char *xc_sp_preset_name(xc_sp_preset p) { return (unsigned)p < XC_SP_NPRESETS ? preset_names[p] : NULL; }

int xc_sp_preset_find(const char *name)
{
    for (int i = 0; name && i < XC_SP_NPRESETS; i++)
        if (!strcmp(name, preset_names[i]))
            return i;
    return -1;
}

void xc_spopts_default(xc_spopts *o, xc_sp_preset preset)
{
    memset(o, 0, sizeof *o);
    o->preset = preset;
}

/* single_pulse_search.py's downfactors (1 is its unsmoothed series); the
 * script itself stops at 30 unless -m asks for wider. */
static const int32_t presto_widths[] = {1, 2, 3, 4, 6, 9, 14, 20, 30, 45, 70, 100, 150};

/* AstroAccelerate's boxcar widths (aa_analysis_strategy.hpp,
 * Create_list_of_boxcar_widths2): PD_MAXTAPS = 32 widths a step of 1 apart,
 * then 16, 16, 16, 8, 8, ... each after a decimation by 2 (steps 2, 4, 8, ...). */
static int aa_widths(int32_t *w, int64_t wmax)
{
    static const int per_level[] = {32, 16, 16, 16, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8};
    int n = 0;
    int64_t width = 0, step = 1;
    for (size_t f = 0; f < sizeof per_level / sizeof *per_level; f++, step *= 2)
        for (int b = 0; b < per_level[f]; b++) {
            width += step;
            if (width > wmax || n == XC_SP_MAXW)
                return n;
            w[n++] = (int32_t)width;
        }
    return n;
}

static xc_status check_widths(const xc_spopts *o, xc_error *err)
{
    if (o->nwidths > XC_SP_MAXW)
        return xc_error_set(err, XC_EINVAL, "-widths: %d widths, at most %d", o->nwidths, XC_SP_MAXW);
    for (int i = 0; i < o->nwidths; i++) {
        if (o->widths[i] < 1)
            return xc_error_set(err, XC_EINVAL, "-widths: width %d is %d, expected >= 1 sample", i + 1,
                                (int)o->widths[i]);
        if (i && o->widths[i] <= o->widths[i - 1])
            return xc_error_set(err, XC_EINVAL, "-widths: %d after %d, expected ascending widths", (int)o->widths[i],
                                (int)o->widths[i - 1]);
    }
    return XC_OK;
}

xc_status xc_spconf_make(const xc_spopts *o, double tsamp, xc_spconf *c, xc_error *err)
{
    memset(c, 0, sizeof *c);
    if ((unsigned)o->preset >= XC_SP_NPRESETS)
        return xc_error_set(err, XC_EINVAL, "-preset: %d is not a preset", (int)o->preset);
    if (!(tsamp > 0) || !isfinite(tsamp))
        return xc_error_set(err, XC_EINVAL, "tsamp: %g, expected a positive number of seconds", tsamp);
    if (!isfinite(o->threshold) || !isfinite(o->baseline_s) || !isfinite(o->wmax_s))
        return xc_error_set(err, XC_EINVAL, "-threshold, -baseline, -wmax: expected finite numbers");
    xc_status st = check_widths(o, err);
    if (st)
        return st;
    xc_sp_preset p = o->preset;
    c->stat = p == XC_SP_ASTROACCELERATE ? XC_SP_MEAN_SD : XC_SP_MEDIAN_MAD;
    c->threshold = o->threshold > 0 ? o->threshold : p == XC_SP_PRESTO ? 5.0 : 6.0;
    c->threads = o->threads;
    if (p == XC_SP_ASTROACCELERATE && o->baseline_s > 0)
        return xc_error_set(err, XC_EINVAL, "-baseline %g: the astroaccelerate preset normalises whole DM trials",
                            o->baseline_s);
    if (p == XC_SP_ASTROACCELERATE)
        c->block = SIZE_MAX;
    else if (o->baseline_s > 0)
        c->block = (size_t)fmax(1.0, floor(o->baseline_s / tsamp + 0.5));
    else
        c->block = p == XC_SP_PRESTO ? 1000 : (size_t)fmax(1.0, floor(2.0 / tsamp + 0.5));
    if (o->nwidths > 0) {
        c->nwidths = o->nwidths;
        memcpy(c->widths, o->widths, (size_t)o->nwidths * sizeof *o->widths);
        return XC_OK;
    }
    double wmax = o->wmax_s > 0 ? floor(o->wmax_s / tsamp + 1e-9) : p == XC_SP_PRESTO ? 150 : 4096;
    if (wmax < 1)
        return xc_error_set(err, XC_EINVAL, "-wmax %g s: narrower than one sample (%g s)", o->wmax_s, tsamp);
    if (p == XC_SP_PRESTO) {
        for (size_t i = 0; i < sizeof presto_widths / sizeof *presto_widths && presto_widths[i] <= wmax; i++)
            c->widths[c->nwidths++] = presto_widths[i];
    } else if (p == XC_SP_ASTROACCELERATE) {
        c->nwidths = aa_widths(c->widths, (int64_t)fmin(wmax, 1e15));
    } else {
        for (int64_t w = 1; w <= wmax && w <= INT32_MAX && c->nwidths < XC_SP_MAXW; w *= 2)
            c->widths[c->nwidths++] = (int32_t)w;
    }
    return XC_OK;
}

void xc_spdets_free(xc_spdets *d)
{
    free(d->d);
    memset(d, 0, sizeof *d);
}

xc_status xc_spdets_add(xc_spdets *d, const xc_spdet *x, xc_error *err)
{
    if (xc_grow_push(&d->d, &d->n, &d->cap, x, sizeof *x, 64))
        return xc_error_set(err, XC_ENOMEM, "single-pulse detections: out of memory after %zu", d->n);
    return XC_OK;
}

xc_status xc_spdets_append(xc_spdets *dst, const xc_spdets *src, xc_error *err)
{
    for (size_t i = 0; i < src->n; i++) {
        xc_status st = xc_spdets_add(dst, &src->d[i], err);
        if (st)
            return st;
    }
    return XC_OK;
}

void xc_spdets_place(xc_spdets *d, int64_t shift, int ds, int32_t dm0)
{
    for (size_t i = 0; i < d->n; i++) {
        xc_spdet *x = &d->d[i];
        x->sample = (x->sample + shift) * ds;
        x->width *= ds;
        x->begin = (x->begin + shift) * ds;
        x->end = (x->end + shift) * ds;
        x->dm_index += dm0;
    }
}

xc_spsep xc_spopts_sep(const xc_spopts *o)
{
    xc_spsep sep = {o->sep_time > 0 ? o->sep_time : 3, o->sep_width > 0 ? o->sep_width : 3,
                    o->sep_dm > 0 ? o->sep_dm : 200};
    return sep;
}

size_t xc_sp_nblocks(size_t n, size_t L)
{
    size_t nb = n / L;
    return nb ? nb : 1;
}

double xc_sp_box_baseline(const double *m, size_t n, size_t L, size_t t, size_t w)
{
    size_t nb = xc_sp_nblocks(n, L), end = t + w;
    size_t b = t / L < nb ? t / L : nb - 1;
    double B = 0.0;
    for (; b < nb && xc_sp_block_lo(L, b) < end; b++) {
        size_t lo = xc_sp_block_lo(L, b), hi = b + 1 == nb ? n : lo + L;
        size_t a = t > lo ? t : lo, z = end < hi ? end : hi;
        B += (double)(z - a) * m[b];
    }
    return B;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double xc_sp_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void xc_sp_row_stats(const float *x, size_t n, const xc_spconf *c, double *m, double *s, double *tmp)
{
    size_t L = c->block, nb = xc_sp_nblocks(n, L);
    if (c->stat == XC_SP_MEAN_SD) {
        double sx = 0, sxx = 0;
        for (size_t t = 0; t < n; t++) {
            sx += (double)x[t];
            sxx += (double)x[t] * (double)x[t];
        }
        xc_sp_mean_sd(sx, sxx, n, &m[0], s);
        return;
    }
    xc_sp_block_medians(x, n, L, m, tmp);
    for (size_t t = 0; t < n; t++) {
        size_t b = t / L < nb ? t / L : nb - 1;
        tmp[t] = fabs((double)x[t] - m[b]);
    }
    *s = XC_SP_MAD_SCALE * xc_sp_median(tmp, n);
}

void xc_sp_block_medians(const float *x, size_t n, size_t L, double *m, double *tmp)
{
    size_t nb = xc_sp_nblocks(n, L);
    for (size_t b = 0; b < nb; b++) {
        size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
        for (size_t t = lo; t < hi; t++)
            tmp[t - lo] = (double)x[t];
        m[b] = xc_sp_median(tmp, hi - lo);
    }
}

void xc_sp_mean_sd(double sx, double sxx, size_t n, double *m, double *s)
{
    *m = sx / (double)n;
    double var = sxx / (double)n - *m * *m;
    *s = var > 0 ? sqrt(var) : 0.0;
}

void xc_spplane_views(const xc_dmplan *plan, const xc_plane *pl, double tsamp, xc_spplane *views, double *dms)
{
    size_t at = 0;
    for (int k = 0; k < plan->nranges && k < pl->nranges; k++) {
        const xc_planerange *r = &pl->r[k];
        memcpy(dms + at, plan->r[k].dms, r->ndm * sizeof *dms);
        views[k] = (xc_spplane){r->data, r->ndm, r->nsamp, r->nsamp, 0, tsamp * r->ds, r->ds, (int32_t)at, dms + at};
        at += r->ndm;
    }
}

const xc_spsearcher *xc_spsearcher_of(const xc_impl *impl)
{
    return impl && impl->family == XC_FAMILY_SINGLEPULSE ? (const xc_spsearcher *)impl : NULL;
}

xc_status xc_sp_detect(const xc_spsearcher *s, const xc_spconf *c, const xc_spplane *pl, xc_spdets *out,
                       xc_error *err)
{
    void *state = NULL;
    xc_status st = s->plan ? s->plan(s, c, pl->nsamp, &state, err) : XC_OK;
    if (!st)
        st = s->execute(s, state, c, pl, out, err);
    if (s->destroy)
        s->destroy(s, state);
    return st;
}

/* Detections of one plane: through a kept plan's state, or planned for it. */
static xc_status detect_in(const xc_spsearcher *s, void *state, const xc_spconf *c, const xc_spplane *pl,
                           xc_spdets *out, xc_error *err)
{
    return state ? s->execute(s, state, c, pl, out, err) : xc_sp_detect(s, c, pl, out, err);
}

xc_status xc_sp_search(const xc_spsearcher *s, const xc_spopts *o, const xc_spplane *views, int nviews, double tsamp,
                       const double *dms, size_t ndms, xc_spcandlist *out, xc_error *err)
{
    return xc_sp_search_planned(s, NULL, o, views, nviews, tsamp, dms, ndms, out, err);
}

xc_status xc_sp_search_planned(const xc_spsearcher *s, void *state, const xc_spopts *o, const xc_spplane *views,
                               int nviews, double tsamp, const double *dms, size_t ndms, xc_spcandlist *out,
                               xc_error *err)
{
    xc_spdets all = {0}, one = {0};
    xc_status st = XC_OK;
    for (int v = 0; !st && v < nviews; v++) {
        const xc_spplane *pl = &views[v];
        xc_spconf c;
        one.n = 0;
        if (pl->ds < 1 || pl->dm0 < 0 || (size_t)pl->dm0 + pl->nrows > ndms)
            st = xc_error_set(err, XC_EINVAL, "plane %d: ds %d, trials %d..%zu of %zu", v, pl->ds, (int)pl->dm0,
                              (size_t)pl->dm0 + pl->nrows, ndms);
        if (!st && !(st = xc_spconf_make(o, pl->tsamp, &c, err)) && !(st = detect_in(s, state, &c, pl, &one, err))) {
            xc_spdets_place(&one, 0, pl->ds, pl->dm0);
            st = xc_spdets_append(&all, &one, err);
        }
    }
    xc_spsep sep = xc_spopts_sep(o);
    if (!st)
        st = xc_sp_cluster(&all, &sep, tsamp, dms, ndms, out, err);
    xc_spdets_free(&one);
    xc_spdets_free(&all);
    return st;
}

double xc_sp_search_memory(const xc_spopts *o, const xc_spplane *views, int nviews, int threads)
{
    double most = 0;
    for (int v = 0; v < nviews; v++) {
        const xc_spplane *pl = &views[v];
        xc_spconf c;
        xc_error e;
        double n = (double)pl->nsamp, nb = (double)pl->nsamp;
        if (!xc_spconf_make(o, pl->tsamp, &c, &e))
            nb = (double)xc_sp_nblocks(pl->nsamp, c.block);
        /* a thread's prefix sums, detrended row, bit mask and block
         * baselines (optimized/cpu/sp_cpu_stats.c; the reference's
         * sorting copy is smaller), and each trial's detection list */
        double b = threads * (2 * (n + 1) + n / 32 + 1 + nb) * sizeof(double) + (double)pl->nrows * sizeof(xc_spdets);
        if (b > most)
            most = b;
    }
    return most;
}
