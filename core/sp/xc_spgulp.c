/* xc_spgulp.c: the single-pulse search of a filterbank in gulps
 * (core/sp/xc_spgulp.h; docs/SINGLEPULSE.md, "Gulps"). */
#include "core/sp/xc_spgulp.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_fmt.h"
#include "core/base/xc_mem.h"
#include "core/base/xc_nbits.h"
#include "core/sp/xc_sprms.h"

/* One range of the plan as the gulps see it. */
typedef struct {
    xc_spconf c;
    size_t n;                 /* samples of the range's plane */
    size_t L;                 /* block for windows (1: statistics of no blocks) */
    size_t w;                 /* widest box */
    int ds;
} range;

typedef struct {
    int nr, nchans;
    range *r;
    size_t lcm, total, widest, pre, post;   /* series samples */
    int64_t maxd;
    double in1, per, fixed;   /* bytes: a spectrum; a series sample's plane; the delay tables */
    double stats;             /* bytes: the whole rows' statistics, held when there are gulps */
} layout;

void xc_spgulp_window(size_t n, size_t L, size_t w, size_t lo, size_t hi, size_t *a, size_t *e)
{
    if (L == 0 || L >= n) {
        *a = 0, *e = n;
        return;
    }
    size_t nb = xc_sp_nblocks(n, L), last = (nb - 1) * L;
    *a = lo == 0 ? 0 : (lo - 1) / L * L;
    if (*a > last)
        *a = last;
    size_t want = hi + 2 * w;
    if (want >= n || (want + L - 1) / L * L > last) {
        *e = n;
        return;
    }
    *e = (want + L - 1) / L * L;
}

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static xc_status layout_make(xc_fbreader *rd, const xc_spgulp_args *a, layout *ly, xc_error *err)
{
    const xc_fbheader *h = xc_fbreader_header(rd);
    const xc_dmplan *p = a->plan;
    xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    memset(ly, 0, sizeof *ly);
    xc_status st = xc_dmplan_max_delay(a->conv, &g, p, &ly->maxd, err);
    if (st)
        return st;
    if (p->nranges < 1 || xc_dmplan_ndm(p) == 0)
        return xc_error_set(err, XC_EINVAL, "%s: the DM plan has no trial", a->input_name);
    if ((uint64_t)ly->maxd >= h->nsamp)
        return xc_error_set(err, XC_EINVAL, "%s: nsamp %llu is not longer than the plan's largest delay, %lld samples",
                            a->input_name, (unsigned long long)h->nsamp, (long long)ly->maxd);
    ly->total = (size_t)(h->nsamp - (uint64_t)ly->maxd);
    if (!(ly->r = calloc((size_t)p->nranges, sizeof *ly->r)))
        return xc_error_set(err, XC_ENOMEM, "out of memory for %d DM ranges", p->nranges);
    ly->nr = p->nranges;
    ly->nchans = h->nchans;
    ly->lcm = 1;
    ly->in1 = (double)h->nchans * (xc_nbits_is_float(h->nbits) ? 4.0 : 2.0);
    ly->fixed = (double)xc_dmplan_ndm(p) * h->nchans * sizeof(int32_t);
    ly->stats = a->search->row_stats ? xc_sprms_bytes(a->opts->preset == XC_SP_ASTROACCELERATE ? XC_SP_MEAN_SD
                                                      : XC_SP_MEDIAN_MAD, xc_dmplan_ndm(p)) : 0;
    for (int k = 0; k < p->nranges; k++) {
        range *r = &ly->r[k];
        r->ds = p->r[k].ds;
        r->n = ly->total / (size_t)r->ds;
        if (r->n == 0)
            return xc_error_set(err, XC_EINVAL, "%s: range %d of the DM plan (downsample %d) gets no output from %zu "
                                "samples", a->input_name, k, r->ds, ly->total);
        if ((st = xc_spconf_make(a->opts, h->tsamp * r->ds, &r->c, err)))
            return st;
        r->L = r->c.stat == XC_SP_MEAN_SD ? 1 : r->c.block;
        r->w = (size_t)r->c.widths[r->c.nwidths - 1];
        ly->lcm = ly->lcm / gcd(ly->lcm, (size_t)r->ds) * (size_t)r->ds;
        ly->per += (double)p->r[k].ndm / r->ds * sizeof(float);
        size_t ds = (size_t)r->ds, wd = r->w * ds, pre = r->L < r->n ? r->L * ds : ly->total;
        size_t post = r->L < r->n ? (2 * r->w + r->L) * ds : ly->total;
        ly->widest = wd > ly->widest ? wd : ly->widest;
        ly->pre = pre > ly->pre ? pre : ly->pre;
        ly->post = post > ly->post ? post : ly->post;
    }
    ly->pre += ly->lcm;
    ly->post += ly->lcm;
    return XC_OK;
}

/* Bytes a gulp owning g series samples holds: its window's input and plane. */
static size_t span_of(const layout *ly, size_t g)
{
    double s = (double)g + (double)ly->pre + (double)ly->post;
    return s >= (double)ly->total ? ly->total : (size_t)s;
}

static double bytes_of(const layout *ly, size_t span)
{
    double stats = span < ly->total ? ly->stats : 0;
    return ly->fixed + stats + ((double)span + (double)ly->maxd) * ly->in1 + (double)span * ly->per;
}

/* The gulp: a->gulp, else the whole when it fits the budget, else the most that does. */
static xc_status choose(const layout *ly, const xc_spgulp_args *a, xc_spgulp_info *in, xc_error *err)
{
    size_t least = (size_t)ly->maxd + ly->widest, g;
    in->whole = bytes_of(ly, ly->total);
    if (a->gulp) {
        g = a->gulp / ly->lcm * ly->lcm;
        if (g < least || g == 0)
            return xc_error_set(err, XC_EINVAL, "%s: -gulp %zu: shorter than the plan's largest delay (%lld samples) "
                                "plus the widest box (%zu samples), %zu; use -gulp %zu or more",
                                a->input_name, a->gulp, (long long)ly->maxd, ly->widest, least,
                                (least + ly->lcm - 1) / ly->lcm * ly->lcm);
    } else {
        double budget = a->max_memory > 0 ? a->max_memory : 0.5 * xc_mem_physical();
        if (!(budget > 0) || in->whole <= budget) {
            g = ly->total;
        } else {
            double room = budget - bytes_of(ly, 0) - ((double)ly->pre + (double)ly->post) * (ly->in1 + ly->per);
            double most = room > 0 ? floor(room / (ly->in1 + ly->per)) : 0;
            g = most > (double)ly->total ? ly->total : (size_t)most / ly->lcm * ly->lcm;
            if (g < least) {
                char have[32];
                xc_fmt_bytes(have, sizeof have, budget);
                return xc_error_set(err, XC_EINVAL, "%s: -max_memory %s: leaves a gulp of %zu samples, shorter than "
                                    "the plan's largest delay (%lld) plus the widest box (%zu); use fewer trials or a "
                                    "larger -max_memory", a->input_name, have, g, (long long)ly->maxd, ly->widest);
            }
        }
    }
    in->gulp = g < ly->total ? g : ly->total;
    in->ngulps = (ly->total + in->gulp - 1) / in->gulp;
    in->total = ly->total;
    in->max_delay = ly->maxd;
    in->widest = ly->widest;
    in->span = in->ngulps == 1 ? ly->total : span_of(ly, in->gulp);
    in->bytes = bytes_of(ly, in->span) + (in->ngulps > 1 && in->span >= ly->total ? ly->stats : 0);
    char what[160];
    snprintf(what, sizeof what, "a single-pulse search in gulps of %zu samples (%zu DM trials, %d channels)",
             in->gulp, xc_dmplan_ndm(a->plan), ly->nchans);
    return xc_mem_check(in->bytes, a->input_name, what, "use -gulp or -max_memory", err);
}

xc_status xc_spgulp_choose(xc_fbreader *r, const xc_spgulp_args *a, xc_spgulp_info *info, xc_error *err)
{
    layout ly;
    xc_status st = layout_make(r, a, &ly, err);
    memset(info, 0, sizeof *info);
    if (!st)
        st = choose(&ly, a, info, err);
    free(ly.r);
    return st;
}

/* The state of a search: the layout, one plan, the input buffer, the views. */
typedef struct {
    layout ly;
    xc_spgulp_info in;
    xc_ddplan *dp;
    void *buf;
    size_t cap;               /* spectra buf holds */
    xc_spplane *views;
    double *dms;
    size_t *wa, *we;          /* each range's window of the gulp */
    xc_spdets all, one;
    xc_sprms *rms;            /* the whole rows' statistics (gulps, a searcher taking them) */
    char label[48];           /* the pass, for progress */
} gulper;

/* The windows of gulp j, and the series samples [*s, *f) they come from. */
static void windows(gulper *g, size_t j, size_t *s, size_t *f)
{
    const layout *ly = &g->ly;
    size_t lo = j * g->in.gulp, hi = lo + g->in.gulp < ly->total ? lo + g->in.gulp : ly->total;
    *s = ly->total, *f = 0;
    for (int k = 0; k < ly->nr; k++) {
        const range *r = &ly->r[k];
        size_t ds = (size_t)r->ds, rhi = j + 1 == g->in.ngulps ? r->n : hi / ds;
        xc_spgulp_window(r->n, r->L, r->w, lo / ds, rhi, &g->wa[k], &g->we[k]);
        *s = g->wa[k] * ds < *s ? g->wa[k] * ds : *s;
        *f = g->we[k] * ds > *f ? g->we[k] * ds : *f;
    }
    *s = *s / ly->lcm * ly->lcm;
    *f = (*f + ly->lcm - 1) / ly->lcm * ly->lcm;
    if (*f > ly->total)
        *f = ly->total;
}

/* Reads and dedisperses series samples [s, f) into pl: through src when
 * given (its memory), else into a plane allocated here. */
static xc_status dedisperse(gulper *g, xc_fbreader *rd, size_t s, size_t f, const xc_spgulp_source *src,
                            xc_plane *pl, xc_error *err)
{
    const xc_fbheader *h = xc_fbreader_header(rd);
    int isf = xc_nbits_is_float(h->nbits);
    size_t nin = f - s + (size_t)g->ly.maxd, one = isf ? sizeof(float) : sizeof(uint16_t);
    if (nin > g->cap) {
        void *b = realloc(g->buf, nin * (size_t)h->nchans * one);
        if (!b)
            return xc_error_set(err, XC_ENOMEM, "out of memory for a gulp of %zu spectra", nin);
        g->buf = b, g->cap = nin;
    }
    xc_status st = isf ? xc_fbreader_read_f32(rd, s, nin, 0, g->buf, err)
                       : xc_fbreader_read_u16(rd, s, nin, 0, g->buf, err);
    xc_block b = {h->nchans, nin, h->nbits, isf ? NULL : g->buf, isf ? g->buf : NULL};
    if (!st && src)
        st = src->plane(src->ctx, g->dp, &b, pl, err);
    else if (!st && !(st = xc_ddplan_plane_alloc(g->dp, nin, pl, err)))
        st = xc_ddplan_execute(g->dp, &b, pl, err);
    return st;
}

/* Searches each range's window of gulp j (plane pl from series sample s)
 * and keeps the runs that begin in the gulp's own samples. */
static xc_status search_gulp(gulper *g, const xc_spgulp_args *a, size_t j, size_t s, const xc_plane *pl,
                             double tsamp, xc_error *err)
{
    const layout *ly = &g->ly;
    xc_spplane_views(a->plan, pl, tsamp, g->views, g->dms);
    size_t lo = j * g->in.gulp, hi = lo + g->in.gulp;
    xc_status st = XC_OK;
    for (int k = 0; !st && k < ly->nr; k++) {
        const range *r = &ly->r[k];
        size_t ds = (size_t)r->ds, off = g->wa[k] - s / ds;
        size_t olo = lo / ds, ohi = j + 1 == g->in.ngulps ? r->n : hi / ds;
        xc_spplane v = g->views[k];
        v.device = a->source.plane && a->source.device;
        if (g->we[k] - s / ds > v.nsamp)
            return xc_error_set(err, XC_EINVAL, "gulp %zu, range %d: window to %zu past the plane's %zu samples", j,
                                k, g->we[k], s / ds + v.nsamp);
        v.data += off;
        v.nsamp = g->we[k] - g->wa[k];
        if (g->rms) {
            v.row_s = xc_sprms_s(g->rms) + v.dm0;
            v.row_m = xc_sprms_m(g->rms) ? xc_sprms_m(g->rms) + v.dm0 : NULL;
        }
        g->one.n = 0;
        if ((st = xc_sp_detect(a->search, &r->c, &v, &g->one, err)))
            break;
        size_t kept = 0;
        for (size_t i = 0; i < g->one.n; i++) {
            size_t begin = g->wa[k] + (size_t)g->one.d[i].begin;
            if (begin >= olo && begin < ohi)
                g->one.d[kept++] = g->one.d[i];
        }
        g->one.n = kept;
        xc_spdets_place(&g->one, (int64_t)g->wa[k], r->ds, v.dm0);
        st = xc_spdets_append(&g->all, &g->one, err);
    }
    return st;
}

/* Adds each trial's own samples of gulp j's windows (plane pl from series
 * sample s) to the whole rows' statistics, OpenMP over the trials of a range. */
static xc_status stats_gulp(gulper *g, const xc_spgulp_args *a, size_t j, size_t s, const xc_plane *pl,
                            double tsamp, xc_error *err)
{
    const layout *ly = &g->ly;
    xc_spplane_views(a->plan, pl, tsamp, g->views, g->dms);
    size_t lo = j * g->in.gulp, hi = lo + g->in.gulp;
    int bad = 0, nth = a->threads > 0 ? a->threads : 0;
    for (int k = 0; !bad && k < ly->nr; k++) {
        const range *r = &ly->r[k];
        size_t ds = (size_t)r->ds, off = g->wa[k] - s / ds, nw = g->we[k] - g->wa[k];
        size_t olo = lo / ds - g->wa[k], ohi = (j + 1 == g->in.ngulps ? r->n : hi / ds) - g->wa[k];
        const xc_spplane *v = &g->views[k];
        if (g->we[k] - s / ds > v->nsamp)
            return xc_error_set(err, XC_EINVAL, "gulp %zu, range %d: window to %zu past the plane's %zu samples", j,
                                k, g->we[k], s / ds + v->nsamp);
#pragma omp parallel num_threads(nth > 0 ? nth : omp_get_max_threads()) reduction(| : bad) if (v->nrows * nw >= 65536)
        {
            double *m = malloc(xc_sp_nblocks(nw, r->L) * sizeof *m), *tmp = malloc(nw * sizeof *tmp);
            bad |= !m || !tmp;
#pragma omp for schedule(dynamic, 4)
            for (size_t i = 0; i < v->nrows; i++)
                if (m && tmp)
                    xc_sprms_add(g->rms, (size_t)v->dm0 + i, v->data + i * v->stride + off, nw, r->L, olo, ohi, m,
                                 tmp);
            free(m);
            free(tmp);
        }
    }
    return bad ? xc_error_set(err, XC_ENOMEM, "out of memory for the statistics of a window of %zu samples",
                              g->in.span) : XC_OK;
}

typedef xc_status (*gulp_fn)(gulper *g, const xc_spgulp_args *a, size_t j, size_t s, const xc_plane *pl,
                             double tsamp, xc_error *err);

/* One pass through the file: every gulp read, dedispersed (through src
 * when given) and given to fn. */
static xc_status pass(gulper *g, xc_fbreader *rd, const xc_spgulp_args *a, const xc_spgulp_source *src, gulp_fn fn,
                      xc_error *err)
{
    const xc_fbheader *h = xc_fbreader_header(rd);
    xc_status st = XC_OK;
    for (size_t j = 0; !st && j < g->in.ngulps; j++) {
        size_t s, f;
        windows(g, j, &s, &f);
        xc_plane pl;
        memset(&pl, 0, sizeof pl);
        if (!(st = dedisperse(g, rd, s, f, src, &pl, err)))
            st = fn(g, a, j, s, &pl, h->tsamp, err);
        if (!src)
            xc_plane_free(&pl);
        size_t done = (j + 1) * g->in.gulp;
        xc_progress_report(&a->progress, g->label, done < g->in.total ? done : g->in.total, g->in.total);
    }
    return st;
}

/* The whole rows' exact statistics, pass after pass (core/sp/xc_sprms.h). */
static xc_status stats_passes(gulper *g, xc_fbreader *rd, const xc_spgulp_args *a, xc_error *err)
{
    const layout *ly = &g->ly;
    size_t ndms = xc_dmplan_ndm(a->plan), *n = malloc((ndms ? ndms : 1) * sizeof *n), at = 0;
    if (!n)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu DM trials", ndms);
    for (int k = 0; k < ly->nr; k++)
        for (size_t i = 0; i < (size_t)a->plan->r[k].ndm; i++)
            n[at++] = ly->r[k].n;
    xc_status st = xc_sprms_create(&g->rms, ly->r[0].c.stat, n, ndms, err);
    free(n);
    while (!st && !xc_sprms_done(g->rms)) {
        snprintf(g->label, sizeof g->label, "singlepulse rms, pass %d", xc_sprms_passes(g->rms) + 1);
        xc_sprms_begin(g->rms);
        if (!(st = pass(g, rd, a, NULL, stats_gulp, err)))
            st = xc_sprms_end(g->rms, err);
    }
    g->in.rms_passes = g->rms ? xc_sprms_passes(g->rms) : 0;
    return st;
}

static void gulper_free(gulper *g)
{
    xc_ddplan_destroy(g->dp);
    free(g->buf);
    free(g->views);
    free(g->dms);
    free(g->wa);
    free(g->we);
    free(g->ly.r);
    xc_spdets_free(&g->all);
    xc_spdets_free(&g->one);
    xc_sprms_destroy(g->rms);
}

xc_status xc_sp_search_fil(xc_fbreader *rd, const xc_spgulp_args *a, xc_spcandlist *out, xc_spgulp_info *info,
                           xc_error *err)
{
    const xc_fbheader *h = xc_fbreader_header(rd);
    xc_geometry geo = {h->nchans, h->fch1, h->foff, h->tsamp};
    gulper g;
    memset(&g, 0, sizeof g);
    xc_status st = layout_make(rd, a, &g.ly, err);
    if (!st)
        st = choose(&g.ly, a, &g.in, err);
    size_t ndms = xc_dmplan_ndm(a->plan), nr = (size_t)(a->plan->nranges > 0 ? a->plan->nranges : 1);
    if (!st) {
        g.views = calloc(nr, sizeof *g.views);
        g.dms = calloc(ndms ? ndms : 1, sizeof *g.dms);
        g.wa = calloc(nr, sizeof *g.wa);
        g.we = calloc(nr, sizeof *g.we);
        if (!g.views || !g.dms || !g.wa || !g.we)
            st = xc_error_set(err, XC_ENOMEM, "out of memory for %zu DM trials", ndms);
    }
    xc_ddopts o;
    memset(&o, 0, sizeof o);
    o.threads = a->threads;
    if (!st)
        st = xc_ddplan_create(&g.dp, a->dd, &geo, h->nbits, a->plan, a->conv, NULL, &o, err);
    if (!st && g.in.ngulps > 1 && a->search->row_stats)
        st = stats_passes(&g, rd, a, err);
    snprintf(g.label, sizeof g.label, "singlepulse");
    if (!st)
        st = pass(&g, rd, a, a->source.plane ? &a->source : NULL, search_gulp, err);
    if (!st) {
        xc_spsep sep = xc_spopts_sep(a->opts);
        st = xc_sp_cluster(&g.all, &sep, h->tsamp, g.dms, ndms, out, err);
    }
    if (info)
        *info = g.in;
    gulper_free(&g);
    return st;
}
