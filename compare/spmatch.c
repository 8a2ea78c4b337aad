/* spmatch.c: single-pulse lists matched against each other (xc_spmatch.h). */
#include "compare/xc_spmatch.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_grow.h"

void xc_spmatch_opts_init(xc_spmatch_opts *o)
{
    memset(o, 0, sizeof *o);
    o->tol_width = 2;
    o->rtol_snr = 0.1;
}

static double cand_dt(const xc_spcandlist *l, const xc_spcand *c)
{
    if (l->tsamp > 0)
        return l->tsamp;
    return c->sample > 0 ? c->time_s / (double)c->sample : 0;
}

double xc_spcand_centre_s(const xc_spcandlist *l, const xc_spcand *c)
{
    double dt = cand_dt(l, c);
    return dt > 0 ? ((double)c->sample + 0.5 * c->width) * dt : c->time_s;
}

double xc_spcand_width_s(const xc_spcandlist *l, const xc_spcand *c)
{
    double dt = cand_dt(l, c);
    return dt > 0 ? c->width * dt : c->width;
}

static int by_index(const void *x, const void *y)
{
    const xc_spcand *a = x, *b = y;
    if (a->dm_index != b->dm_index)
        return a->dm_index < b->dm_index ? -1 : 1;
    return (a->dm > b->dm) - (a->dm < b->dm);
}

xc_status xc_spsteps_init_(xc_spsteps *s, const xc_spcandlist *l, xc_error *err)
{
    memset(s, 0, sizeof *s);
    xc_spcand *c = malloc((l->n ? l->n : 1) * sizeof *c);
    s->idx = malloc((l->n ? l->n : 1) * sizeof *s->idx);
    s->dm = malloc((l->n ? l->n : 1) * sizeof *s->dm);
    if (!c || !s->idx || !s->dm) {
        free(c);
        xc_spsteps_free_(s);
        return xc_error_set(err, XC_ENOMEM, "single-pulse match: out of memory for %zu DM trials", l->n);
    }
    if (l->n)
        memcpy(c, l->c, l->n * sizeof *c);
    qsort(c, l->n, sizeof *c, by_index);
    for (size_t i = 0; i < l->n; i++)
        if (!s->n || c[i].dm_index != s->idx[s->n - 1]) {
            s->idx[s->n] = c[i].dm_index;
            s->dm[s->n++] = c[i].dm;
        }
    free(c);
    return XC_OK;
}

void xc_spsteps_free_(xc_spsteps *s)
{
    free(s->idx);
    free(s->dm);
    memset(s, 0, sizeof *s);
}

double xc_spsteps_at_(const xc_spsteps *s, double dm)
{
    if (s->n < 2)
        return 0;
    /* the last trial whose DM is <= dm (DMs ascend with the index), kept
     * inside 0..n-2 so that it and the next form a pair */
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->dm[mid] <= dm)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo ? lo - 1 : 0;
    if (k > s->n - 2)
        k = s->n - 2;
    return fabs(s->dm[k + 1] - s->dm[k]) / (double)(s->idx[k + 1] - s->idx[k]);
}

double *xc_spsteps_of_(const xc_spcandlist *l, xc_error *err)
{
    xc_spsteps s;
    if (xc_spsteps_init_(&s, l, err))
        return NULL;
    double *v = malloc((l->n ? l->n : 1) * sizeof *v);
    if (!v)
        xc_error_set(err, XC_ENOMEM, "single-pulse match: out of memory for %zu DM steps", l->n);
    for (size_t i = 0; v && i < l->n; i++)
        v[i] = xc_spsteps_at_(&s, l->c[i].dm);
    xc_spsteps_free_(&s);
    return v;
}

double xc_spcands_dm_step(const xc_spcandlist *l, double dm)
{
    xc_spsteps s;
    xc_error e;
    if (xc_spsteps_init_(&s, l, &e))
        return 0;
    double step = xc_spsteps_at_(&s, dm);
    xc_spsteps_free_(&s);
    return step;
}

void xc_spstat_add_(xc_spstat *s, double v, double about)
{
    if (!s->n || v < s->min)
        s->min = v;
    if (!s->n || v > s->max)
        s->max = v;
    s->n++;
    s->mean += (v - s->mean) / (double)s->n;
    s->rms += (v - about) * (v - about);   /* the sum of squares until stat_end */
}

void xc_spstat_end_(xc_spstat *s)
{
    s->rms = s->n ? sqrt(s->rms / (double)s->n) : 0;
}

/* The tolerances of a pair and whether it passes them; *dist its distance. */
static int pair_ok(const xc_spcandlist *a, const xc_spcand *ca, double step_a, const xc_spcandlist *b,
                   const xc_spcand *cb, double step_b, const xc_spmatch_opts *o, double *dist)
{
    double dt = xc_spcand_centre_s(a, ca) - xc_spcand_centre_s(b, cb);
    double tol_t = o->tol_s > 0 ? o->tol_s : fmax(xc_spcand_width_s(a, ca), xc_spcand_width_s(b, cb));
    double tol_dm = o->tol_dm > 0 ? o->tol_dm : fmax(step_a, step_b);
    double wr = fmax(ca->width, cb->width) / fmin(ca->width, cb->width);
    double ddm = ca->dm - cb->dm;
    if (fabs(dt) > tol_t || fabs(ddm) > tol_dm || wr > o->tol_width)
        return 0;
    double lw = log(o->tol_width);
    *dist = (tol_t > 0 ? (dt / tol_t) * (dt / tol_t) : 0) + (tol_dm > 0 ? (ddm / tol_dm) * (ddm / tol_dm) : 0) +
            (lw > 0 ? (log(wr) / lw) * (log(wr) / lw) : 0);
    return 1;
}

typedef struct {
    double key;
    size_t i;
} keyed;

static int keyed_cmp(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* l's candidates ordered by key ascending (ties by index); NULL when out of memory. */
static keyed *sorted(const xc_spcandlist *l, int by_time)
{
    keyed *k = malloc((l->n ? l->n : 1) * sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < l->n; i++) {
        k[i].key = by_time ? xc_spcand_centre_s(l, &l->c[i]) : -l->c[i].snr;
        k[i].i = i;
    }
    qsort(k, l->n, sizeof *k, keyed_cmp);
    return k;
}

static double max_width_s(const xc_spcandlist *l)
{
    double w = 0;
    for (size_t i = 0; i < l->n; i++)
        w = fmax(w, xc_spcand_width_s(l, &l->c[i]));
    return w;
}

/* The free candidate of B (bt: B by centre time) closest to ca; SIZE_MAX when none passes. */
static size_t closest(const xc_spcandlist *a, const xc_spcand *ca, double step_a, const xc_spcandlist *b,
                      const keyed *bt, const double *step_b, const unsigned char *taken, double win,
                      const xc_spmatch_opts *o)
{
    double t = xc_spcand_centre_s(a, ca);
    size_t lo = 0, hi = b->n;
    while (lo < hi) {   /* the first with centre >= t - win */
        size_t mid = lo + (hi - lo) / 2;
        if (bt[mid].key < t - win)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t best = SIZE_MAX;
    double best_d = INFINITY;
    for (size_t k = lo; k < b->n && bt[k].key <= t + win; k++) {
        double d;
        size_t j = bt[k].i;
        if (!taken[j] && pair_ok(a, ca, step_a, b, &b->c[j], step_b[j], o, &d) && (d < best_d || (d == best_d && j < best))) {
            best = j;
            best_d = d;
        }
    }
    return best;
}

static int has_step(const xc_spcandlist *l)
{
    for (size_t i = 1; i < l->n; i++)
        if (l->c[i].dm_index != l->c[0].dm_index)
            return 1;
    return 0;
}

xc_status xc_spmatch(const xc_spcandlist *a, const xc_spcandlist *b, const char *name_a, const char *name_b,
                     const xc_spmatch_opts *o, xc_spmatch_result *r, xc_error *err)
{
    memset(r, 0, sizeof *r);
    r->na = a->n;
    r->nb = b->n;
    if (!(o->tol_width >= 1))
        return xc_error_set(err, XC_EINVAL, "width ratio tolerance %g is below 1 (-tol_width)", o->tol_width);
    if (!(o->tol_dm > 0) && a->n && b->n && !has_step(a) && !has_step(b))
        return xc_error_set(err, XC_EINVAL, "%s and %s: each has candidates at one DM trial only, so neither "
                            "tells its DM step: give the DM tolerance (-tol_dm)", name_a, name_b);
    keyed *as = sorted(a, 0), *bt = sorted(b, 1);
    double *step_a = xc_spsteps_of_(a, err), *step_b = step_a ? xc_spsteps_of_(b, err) : NULL;
    unsigned char *taken = calloc(b->n ? b->n : 1, 1), *amatched = calloc(a->n ? a->n : 1, 1);
    r->pairs = malloc((a->n ? a->n : 1) * sizeof *r->pairs);
    r->a_only = malloc((a->n ? a->n : 1) * sizeof *r->a_only);
    r->b_only = malloc((b->n ? b->n : 1) * sizeof *r->b_only);
    xc_status st = XC_OK;
    if (!as || !bt || !step_a || !step_b || !taken || !amatched || !r->pairs || !r->a_only || !r->b_only) {
        st = xc_error_set(err, XC_ENOMEM, "single-pulse match: out of memory for %zu and %zu candidates", a->n, b->n);
        goto done;
    }
    const double win = o->tol_s > 0 ? o->tol_s : fmax(max_width_s(a), max_width_s(b));
    const double must = o->snr_min * (1 + o->rtol_snr);
    for (size_t k = 0; k < a->n; k++) {
        const size_t i = as[k].i;
        const xc_spcand *ca = &a->c[i];
        size_t j = closest(a, ca, step_a[i], b, bt, step_b, taken, win, o);
        if (j == SIZE_MAX)
            continue;
        const xc_spcand *cb = &b->c[j];
        taken[j] = amatched[i] = 1;
        xc_sppair *p = &r->pairs[r->npairs++];
        p->ia = i;
        p->ib = j;
        p->dt_s = xc_spcand_centre_s(a, ca) - xc_spcand_centre_s(b, cb);
        p->ddm = ca->dm - cb->dm;
        p->snr_ratio = cb->snr != 0 ? ca->snr / cb->snr : (ca->snr == 0 ? 1 : INFINITY);
        p->checked = fmax(ca->snr, cb->snr) > o->snr_min;
        p->snr_ok = fabs(p->snr_ratio - 1) <= o->rtol_snr;
        r->nsnr_bad += p->checked && !p->snr_ok;
        xc_spstat_add_(&r->ratio, p->snr_ratio, 1);
        r->dt_max_s = fmax(r->dt_max_s, fabs(p->dt_s));
        r->ddm_max = fmax(r->ddm_max, fabs(p->ddm));
    }
    xc_spstat_end_(&r->ratio);
    for (size_t i = 0; i < a->n; i++)
        if (!amatched[i]) {
            r->a_only[r->na_only++] = i;
            r->na_only_fail += a->c[i].snr > must;
        }
    for (size_t j = 0; j < b->n; j++)
        if (!taken[j]) {
            r->b_only[r->nb_only++] = j;
            r->nb_only_fail += b->c[j].snr > must;
        }
    r->agree = !r->na_only_fail && !r->nb_only_fail && !r->nsnr_bad;
done:
    xc_free_each(6, step_a, step_b, as, bt, taken, amatched);
    if (st)
        xc_spmatch_result_free(r);
    return st;
}

void xc_spmatch_result_free(xc_spmatch_result *r)
{
    xc_free_each(3, r->pairs, r->a_only, r->b_only);
    memset(r, 0, sizeof *r);
}
