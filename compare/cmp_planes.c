#include "compare/xc_compare.h"
#include "core/base/xc_grow.h"
#include "core/base/xc_nbits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void xc_cmpopts_init(xc_cmpopts *o)
{
    o->rtol = -1;
    o->atol = -1;
    o->dm = NAN;
}

void xc_cmpresult_free(xc_cmpresult *res)
{
    if (!res)
        return;
    XC_GROW_FREE(res->r, res->nranges);
}

const char *xc_cmpclass_name(xc_cmpclass c)
{
    return c == XC_CLASS_EXACT ? "exact" : "bound";
}

static const char *side_name(const xc_cmpside *s, const char *fallback)
{
    return s && s->name && *s->name ? s->name : fallback;
}

static void copy_str(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

/* A plane must match its own plan before two sides can be matched. */
static xc_status check_side(const xc_cmpside *s, const char *name, xc_error *err)
{
    if (!s || !s->plane || !s->meta || !s->plan)
        return xc_error_set(err, XC_EINVAL, "%s: plane, metadata and DM plan are all required", name);
    if (s->plane->nranges != s->plan->nranges)
        return xc_error_set(err, XC_EINVAL, "%s: plane has %d ranges but its DM plan %d", name,
                            s->plane->nranges, s->plan->nranges);
    for (int k = 0; k < s->plane->nranges; k++) {
        const xc_planerange *pr = &s->plane->r[k];
        const xc_dmrange *dr = &s->plan->r[k];
        if (pr->ndm != dr->ndm || pr->ds != dr->ds)
            return xc_error_set(err, XC_EINVAL,
                                "%s: range %d: plane has %zu trials at ds %d but its DM plan %zu at ds %d",
                                name, k, pr->ndm, pr->ds, dr->ndm, dr->ds);
        if (pr->ndm && pr->nsamp && !pr->data)
            return xc_error_set(err, XC_EINVAL, "%s: range %d has no data", name, k);
    }
    return XC_OK;
}

static int dm_equal(double x, double y)
{
    return fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y));
}

static xc_status check_match(const xc_cmpside *a, const xc_cmpside *b, const char *na,
                             const char *nb, xc_error *err)
{
    if (a->plane->nranges != b->plane->nranges)
        return xc_error_set(err, XC_EMISMATCH, "%d DM ranges in %s vs %d in %s", a->plane->nranges,
                            na, b->plane->nranges, nb);
    for (int k = 0; k < a->plane->nranges; k++) {
        const xc_planerange *ra = &a->plane->r[k], *rb = &b->plane->r[k];
        if (ra->ds != rb->ds)
            return xc_error_set(err, XC_EMISMATCH, "range %d: ds %d in %s vs %d in %s", k, ra->ds, na,
                                rb->ds, nb);
        if (ra->ndm != rb->ndm)
            return xc_error_set(err, XC_EMISMATCH, "range %d: %zu DM trials in %s vs %zu in %s", k,
                                ra->ndm, na, rb->ndm, nb);
        if (ra->nsamp != rb->nsamp)
            return xc_error_set(err, XC_EMISMATCH, "range %d: %zu samples per trial in %s vs %zu in %s",
                                k, ra->nsamp, na, rb->nsamp, nb);
        const double *da = a->plan->r[k].dms, *db = b->plan->r[k].dms;
        for (size_t j = 0; j < ra->ndm; j++)
            if (!dm_equal(da[j], db[j]))
                return xc_error_set(err, XC_EMISMATCH, "range %d trial %zu: DM %.10g in %s vs %.10g in %s",
                                    k, j, da[j], na, db[j], nb);
    }
    return XC_OK;
}

/* N of gamma_N for range k: the number of float terms in one output sum. */
static double n_terms(const xc_cmpside *a, const xc_cmpside *b, int ds)
{
    int na = a->meta->nchans_used > 0 ? a->meta->nchans_used : a->meta->nchans;
    int nb = b->meta->nchans_used > 0 ? b->meta->nchans_used : b->meta->nchans;
    /* The larger count bounds the error of whichever plane used fewer terms. */
    int n = na > nb ? na : nb;
    return n > 0 ? (double)n * ds : 0;
}

/* Mean and standard deviation of a row's finite samples, and its largest
 * finite sample at *tmax; 0 when the row has none. */
static int row_stats(const float *row, size_t n, double *mean, double *sd, double *vmax, size_t *tmax)
{
    double sum = 0, sum2 = 0;
    size_t m = 0;
    *vmax = -INFINITY;
    for (size_t t = 0; t < n; t++)
        if (isfinite(row[t])) {
            sum += row[t];
            m++;
            if (row[t] > *vmax) {
                *vmax = row[t];
                *tmax = t;
            }
        }
    if (!m)
        return 0;
    *mean = sum / (double)m;
    for (size_t t = 0; t < n; t++)
        if (isfinite(row[t]))
            sum2 += (row[t] - *mean) * (row[t] - *mean);
    *sd = sqrt(sum2 / (double)m);
    return 1;
}

/* The peak of one plane by S/N: each trial's largest sample against that
 * trial's own mean and standard deviation, so that ranges of other
 * downsampling (whose sums are larger) compete on the same footing; ties,
 * and planes of flat rows only, by value, first occurrence in (range,
 * trial, t) order. */
static void find_peak(const xc_cmpside *s, xc_cmppeak *p)
{
    memset(p, 0, sizeof *p);
    for (int k = 0; k < s->plane->nranges; k++) {
        const xc_planerange *pr = &s->plane->r[k];
        for (size_t j = 0; j < pr->ndm; j++) {
            double mean, sd, v;
            size_t t = 0;
            if (!row_stats(pr->data + j * pr->nsamp, pr->nsamp, &mean, &sd, &v, &t))
                continue;
            double snr = sd > 0 ? (v - mean) / sd : 0;
            if (p->found && !(snr > p->snr || (snr == p->snr && v > p->value)))
                continue;
            p->found = 1;
            p->range = k;
            p->idm = j;
            p->t = t;
            p->value = v;
            p->snr = snr;
            p->dm = s->plan->r[k].dms[j];
        }
    }
}

/* Nearest trial to dm over all ranges; the first one on a tie. */
static int nearest_trial(const xc_dmplan *plan, double dm, int *range, size_t *idm)
{
    double best = INFINITY;
    int found = 0;
    for (int k = 0; k < plan->nranges; k++)
        for (size_t j = 0; j < plan->r[k].ndm; j++) {
            double d = fabs(plan->r[k].dms[j] - dm);
            if (d < best) {
                best = d;
                *range = k;
                *idm = j;
                found = 1;
            }
        }
    return found;
}

static void dm_row(const xc_cmpside *a, const xc_cmpside *b, xc_cmpresult *res)
{
    int k;
    size_t j;
    if (!isfinite(res->dm_asked) || !nearest_trial(b->plan, res->dm_asked, &k, &j))
        return;
    const xc_planerange *ra = &a->plane->r[k], *rb = &b->plane->r[k];
    const float *ya = ra->data + j * ra->nsamp, *yb = rb->data + j * rb->nsamp;
    double mb = 0;
    for (size_t t = 0; t < rb->nsamp; t++)
        if (isfinite(yb[t]))
            mb = fmax(mb, fabs(yb[t]));
    double pmax = 0, sum2 = 0;
    for (size_t t = 0; t < ra->nsamp; t++) {
        double d = (double)ya[t] - (double)yb[t];
        if (ya[t] == yb[t] || (isnan(ya[t]) && isnan(yb[t])))
            d = 0;
        /* A row of zeros has no scale: any difference there is infinitely large. */
        double p = d == 0 ? 0 : (mb > 0 ? 100.0 * d / mb : INFINITY);
        if (isnan(p))
            p = INFINITY;
        pmax = fmax(pmax, fabs(p));
        sum2 += p * p;
    }
    res->has_dm = 1;
    res->dmrow.range = k;
    res->dmrow.idm = j;
    res->dmrow.dm = b->plan->r[k].dms[j];
    res->dm_max_abs_b = mb;
    res->pct_max = pmax;
    res->pct_rms = ra->nsamp ? sqrt(sum2 / (double)ra->nsamp) : 0;
}

static void set_loc(xc_cmploc *l, const xc_cmpside *b, int k, size_t j, size_t t, double va, double vb)
{
    l->range = k;
    l->idm = j;
    l->dm = b->plan->r[k].dms[j];
    l->t = t;
    l->a = va;
    l->b = vb;
}

xc_status xc_compare_planes(const xc_cmpside *a, const xc_cmpside *b, const xc_cmpopts *o,
                            xc_cmpresult *res, xc_error *err)
{
    const char *na = side_name(a, "A"), *nb = side_name(b, "B");
    xc_cmpopts defaults;
    xc_status st;

    memset(res, 0, sizeof *res);
    if (!o) {
        xc_cmpopts_init(&defaults);
        o = &defaults;
    }
    if ((st = check_side(a, na, err)) || (st = check_side(b, nb, err)) ||
        (st = check_match(a, b, na, nb, err)))
        return st;
    if (isnan(o->rtol) || isnan(o->atol))
        return xc_error_set(err, XC_EINVAL, "rtol %g / atol %g: not a number", o->rtol, o->atol);

    copy_str(res->name_a, sizeof res->name_a, na);
    copy_str(res->name_b, sizeof res->name_b, nb);
    copy_str(res->impl_a, sizeof res->impl_a, a->meta->impl);
    copy_str(res->impl_b, sizeof res->impl_b, b->meta->impl);
    copy_str(res->conv_a, sizeof res->conv_a, a->meta->convention);
    copy_str(res->conv_b, sizeof res->conv_b, b->meta->convention);
    res->nbits_a = a->meta->nbits;
    res->nbits_b = b->meta->nbits;
    res->rtol_given = o->rtol >= 0;
    res->atol = o->atol >= 0 ? o->atol : 0;
    res->cls = (!xc_nbits_is_float(a->meta->nbits) && !xc_nbits_is_float(b->meta->nbits) && o->rtol < 0 && o->atol < 0)
                   ? XC_CLASS_EXACT
                   : XC_CLASS_BOUND;

    int nr = a->plane->nranges;
    res->r = calloc(nr > 0 ? (size_t)nr : 1, sizeof *res->r);
    if (!res->r)
        return xc_error_set(err, XC_ENOMEM, "comparing %s with %s: out of memory", na, nb);
    res->nranges = nr;

    double sum2 = 0;
    for (int k = 0; k < nr; k++) {
        const xc_planerange *ra = &a->plane->r[k], *rb = &b->plane->r[k];
        xc_cmprange *cr = &res->r[k];
        size_t n = ra->ndm * ra->nsamp;
        cr->ds = ra->ds;
        cr->ndm = ra->ndm;
        cr->nsamp = ra->nsamp;
        cr->n_terms = n_terms(a, b, ra->ds);
        for (size_t i = 0; i < n; i++)
            if (isfinite(rb->data[i]))
                cr->max_abs_b = fmax(cr->max_abs_b, fabs(rb->data[i]));
        if (res->cls == XC_CLASS_BOUND) {
            if (o->rtol >= 0)
                cr->rtol = o->rtol;
            else if (cr->n_terms > 0)
                cr->rtol = cr->n_terms * ldexp(1.0, -24);
            else
                return xc_error_set(err, XC_EINVAL,
                                    "range %d: cannot form the default rtol N*2^-24: nchans_used is "
                                    "unknown in both %s and %s (give rtol)", k, na, nb);
            cr->bound = cr->rtol * cr->max_abs_b + res->atol;
        }
        size_t last_trial = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            double va = ra->data[i], vb = rb->data[i];
            if (va == vb || (isnan(va) && isnan(vb)))
                continue;
            size_t j = i / ra->nsamp, t = i % ra->nsamp;
            if (j != last_trial) {
                res->n_trials_diff++;
                last_trial = j;
            }
            double d = fabs(va - vb);
            if (isnan(d))
                d = INFINITY;
            if (res->n_diff == 0)
                set_loc(&res->first, b, k, j, t, va, vb);
            if (res->n_diff == 0 || d > res->max_abs) {
                res->max_abs = d;
                set_loc(&res->worst, b, k, j, t, va, vb);
            }
            res->n_diff++;
            cr->n_diff++;
            cr->max_abs = fmax(cr->max_abs, d);
            if (isfinite(d)) {
                sum2 += d * d;
                if (vb != 0 && isfinite(vb))
                    res->max_rel = fmax(res->max_rel, d / fabs(vb));
            } else {
                res->n_nonfinite++;
                if (vb != 0)
                    res->max_rel = INFINITY;
            }
            if (res->cls == XC_CLASS_EXACT || !(d <= cr->bound)) {
                res->n_over++;
                cr->n_over++;
            }
        }
        res->n_total += n;
    }
    /* Equal samples contribute zeros to the mean square. */
    uint64_t nrms = res->n_total - res->n_nonfinite;
    res->rms = nrms ? sqrt(sum2 / (double)nrms) : 0;

    find_peak(a, &res->peak_a);
    find_peak(b, &res->peak_b);
    res->dm_asked = isnan(o->dm) ? (res->peak_b.found ? res->peak_b.dm : NAN) : o->dm;
    dm_row(a, b, res);

    /* nothing compared is no agreement: an empty plane proves nothing */
    res->agree = res->n_over == 0 && res->n_total > 0;
    return XC_OK;
}
