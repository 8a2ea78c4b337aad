/* The conformance cases of single-pulse searchers (compare/conform/xc_conform_sp.h):
 * planted boxes of awkward widths on integer-valued planes of awkward shapes,
 * pure noise at a low threshold, float planes within the rounding bound, and
 * the same list at any thread count. */
#include "compare/conform/xc_conform_sp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A plane of nrows x nsamp: noise of rms sigma about 100 (rounded to
 * integers unless frac), plus boxes. */
typedef struct {
    size_t nrows, nsamp;
    float *x;
    double *dms;
} plane;

static xc_status plane_make(plane *p, size_t nrows, size_t nsamp, double sigma, int frac, uint64_t seed,
                            xc_error *err)
{
    p->nrows = nrows;
    p->nsamp = nsamp;
    p->x = malloc(nrows * nsamp * sizeof *p->x);
    p->dms = malloc(nrows * sizeof *p->dms);
    if (!p->x || !p->dms)
        return xc_error_set(err, XC_ENOMEM, "conformance: out of memory for a %zu x %zu plane", nrows, nsamp);
    uint64_t s = seed ? seed : 1;
    for (size_t i = 0; i < nrows * nsamp; i++) {
        double v = 100 + sigma * xc_conform_rng_gauss(&s);
        p->x[i] = (float)(frac ? v : floor(v + 0.5));
    }
    for (size_t r = 0; r < nrows; r++)
        p->dms[r] = 10.0 + 0.5 * (double)r;
    return XC_OK;
}

/* Adds height to row r, samples [t, t+w) (cut at the row's end), and half
 * of it to the rows either side: a burst's DM smear. */
static void plane_box(plane *p, size_t r, size_t t, size_t w, float height)
{
    for (size_t rr = r ? r - 1 : 0; rr <= r + 1 && rr < p->nrows; rr++)
        for (size_t i = t; i < t + w && i < p->nsamp; i++)
            p->x[rr * p->nsamp + i] += rr == r ? height : (float)floor(height / 2);
}

static void plane_free(plane *p)
{
    free(p->x);
    free(p->dms);
}

/* The whole plane as two views (a plan of two ranges, the second
 * downsampled by 2 in name only), so the driver's rescaling is judged too. */
static xc_status search(const xc_spsearcher *s, const xc_spopts *o, const plane *p, xc_spcandlist *out,
                        xc_error *err)
{
    size_t half = p->nrows / 2;
    xc_spplane v[2] = {{p->x, half, p->nsamp, p->nsamp, 0, 1e-3, 1, 0, p->dms},
                       {p->x + half * p->nsamp, p->nrows - half, p->nsamp, p->nsamp, 0, 2e-3, 2, (int32_t)half,
                        p->dms + half}};
    xc_spcandlist_init(out);
    return xc_sp_search(s, o, half ? v : v + 1, half ? 2 : 1, 1e-3, p->dms, p->nrows, out, err);
}

/* The rounding bound of a float plane's S/N at candidate c: the prefix sums
 * and the direct sums each err by at most n u A, A = sum |x| over the row
 * (Higham, Accuracy and Stability of Numerical Algorithms, 2002, s4.2), so
 * |snr - snr_ref| <= 4 n u A / (s sqrt(w)), u = 2^-53. */
static double bound(const plane *p, const xc_spopts *o, const xc_spcand *c, int ds)
{
    size_t half = p->nrows / 2, r = (size_t)c->dm_index, n = p->nsamp;
    xc_spconf cf;
    xc_error e;
    if (xc_spconf_make(o, r < half ? 1e-3 : 2e-3, &cf, &e))
        return 0;
    const float *x = p->x + r * n;
    double *tmp = malloc(n * sizeof *tmp), *m = malloc(xc_sp_nblocks(n, cf.block) * sizeof *m), s = 0, A = 0;
    if (tmp && m)
        xc_sp_row_stats(x, n, &cf, m, &s, tmp);
    for (size_t t = 0; t < n; t++)
        A += fabs((double)x[t]);
    free(tmp);
    free(m);
    double w = (double)c->width / (r < half ? 1 : ds);
    return s > 0 ? 4.0 * (double)n * 0x1p-53 * A / (s * sqrt(w)) : 0;
}

/* One row: got against want, field by field; snr exact (float: within bound). */
static xc_status judge(xc_conform_report *rep, const char *name, const plane *p, const xc_spopts *o,
                       const xc_spcandlist *got, const xc_spcandlist *want, int frac, xc_error *err)
{
    char obs[256], exp[256], tol[192];
    snprintf(tol, sizeof tol, "%s", frac ? "same candidates; S/N within 4 n 2^-53 sum|x| / (s sqrt(w))"
                                         : "identical lists, S/N bit for bit (integer-valued plane)");
    if (got->n != want->n) {
        snprintf(obs, sizeof obs, "%zu candidates", got->n);
        snprintf(exp, sizeof exp, "%zu candidates (the reference's)", want->n);
        return xc_conform_report_add(rep, 0, name, obs, exp, tol, err);
    }
    for (size_t i = 0; i < got->n; i++) {
        const xc_spcand *a = &got->c[i], *b = &want->c[i];
        double lim = frac ? bound(p, o, b, 2) : 0;
        int same = a->sample == b->sample && a->width == b->width && a->dm_index == b->dm_index &&
                   a->members == b->members && a->begin == b->begin && a->end == b->end && a->dm_lo == b->dm_lo &&
                   a->dm_hi == b->dm_hi && a->dm == b->dm && a->time_s == b->time_s &&
                   (frac ? fabs(a->snr - b->snr) <= lim : a->snr == b->snr);
        if (!same) {
            snprintf(obs, sizeof obs, "candidate %zu: snr %.17g sample %lld width %d trial %d members %lld", i,
                     a->snr, (long long)a->sample, (int)a->width, (int)a->dm_index, (long long)a->members);
            snprintf(exp, sizeof exp, "snr %.17g sample %lld width %d trial %d members %lld (bound %.3g)", b->snr,
                     (long long)b->sample, (int)b->width, (int)b->dm_index, (long long)b->members, lim);
            return xc_conform_report_add(rep, 0, name, obs, exp, tol, err);
        }
    }
    snprintf(obs, sizeof obs, "%zu candidates, as the reference", got->n);
    return xc_conform_report_add(rep, 1, name, obs, obs, tol, err);
}

typedef struct {
    size_t nrows, nsamp;
    double baseline_s;   /* 0: the preset's */
} shape;

/* impl and ref on one plane under o; one row. */
static xc_status run_case(const xc_spsearcher *impl, const xc_spsearcher *ref, const char *name, const plane *p,
                          const xc_spopts *o, int frac, xc_conform_report *rep, xc_error *err)
{
    xc_spcandlist got, want;
    xc_status st = search(ref, o, p, &want, err);
    if (!st)
        st = search(impl, o, p, &got, err);
    if (st)
        st = xc_conform_report_add(rep, 0, name, err->msg, "a candidate list", "no error", err);
    else
        st = judge(rep, name, p, o, &got, &want, frac, err);
    xc_spcandlist_free(&got);
    xc_spcandlist_free(&want);
    return st;
}

/* Planted boxes of awkward widths, some across block boundaries and one at
 * the row's end, and pure noise, for each preset and shape. */
static xc_status planted_cases(const xc_spsearcher *impl, const xc_spsearcher *ref, const xc_conform_opts *co,
                               xc_conform_report *rep, xc_error *err)
{
    static const shape shapes[] = {{1, 997, 0.173}, {7, 1237, 0.211}, {13, 2003, 0}};
    static const int32_t odd_widths[] = {1, 3, 5, 11, 17, 37, 64};
    xc_status st = XC_OK;
    for (size_t k = 0; !st && k < sizeof shapes / sizeof *shapes; k++)
        for (int preset = 0; !st && preset < XC_SP_NPRESETS; preset++)
            for (int noise = 0; !st && noise < 2; noise++) {
                plane p = {0};
                const shape *sh = &shapes[k];
                st = plane_make(&p, sh->nrows, sh->nsamp, 10, 0, co->seed + k * 7 + (uint64_t)preset, err);
                if (!st && !noise) {
                    plane_box(&p, sh->nrows / 2, 170, 5, 40);            /* across the first block's end */
                    plane_box(&p, 0, sh->nsamp / 3, 37, 12);
                    plane_box(&p, sh->nrows - 1, sh->nsamp - 11, 11, 30); /* the row's last samples */
                    plane_box(&p, sh->nrows / 3, sh->nsamp / 2, 1, 90);
                }
                xc_spopts o;
                xc_spopts_default(&o, (xc_sp_preset)preset);
                o.threads = co->threads;
                o.threshold = noise ? 3.0 : 6.0;
                if (noise)   /* narrow friends, so the borderline boxes stay many candidates */
                    o.sep_time = o.sep_width = o.sep_dm = 1;
                o.wmax_s = 0.07;   /* 70 samples of the first view, 35 of the second */
                if (preset != XC_SP_ASTROACCELERATE)
                    o.baseline_s = sh->baseline_s;
                if (k == 1) {
                    o.nwidths = (int)(sizeof odd_widths / sizeof *odd_widths);
                    memcpy(o.widths, odd_widths, sizeof odd_widths);
                }
                char name[96];
                snprintf(name, sizeof name, "%s/%s-%zux%zu", noise ? "noise-thr3" : "planted",
                         xc_sp_preset_name((xc_sp_preset)preset), sh->nrows, sh->nsamp);
                if (!st)
                    st = run_case(impl, ref, name, &p, &o, 0, rep, err);
                plane_free(&p);
            }
    return st;
}

/* Float planes (values not integers): the same candidates, S/N within the bound. */
static xc_status float_cases(const xc_spsearcher *impl, const xc_spsearcher *ref, const xc_conform_opts *co,
                             xc_conform_report *rep, xc_error *err)
{
    xc_status st = XC_OK;
    for (int preset = 0; !st && preset < XC_SP_NPRESETS; preset++) {
        plane p = {0};
        st = plane_make(&p, 9, 1500, 7.3, 1, co->seed + 101 + (uint64_t)preset, err);
        if (!st) {
            plane_box(&p, 4, 600, 9, 25.5f);
            plane_box(&p, 2, 1400, 3, 40.25f);
        }
        xc_spopts o;
        xc_spopts_default(&o, (xc_sp_preset)preset);
        o.threads = co->threads;
        o.wmax_s = 0.04;
        char name[96];
        snprintf(name, sizeof name, "float/%s-9x1500", xc_sp_preset_name((xc_sp_preset)preset));
        if (!st)
            st = run_case(impl, ref, name, &p, &o, 1, rep, err);
        plane_free(&p);
    }
    return st;
}

/* The same list with 1 thread and with 3 (rows not a multiple of either). */
static xc_status thread_case(const xc_spsearcher *impl, const xc_conform_opts *co, xc_conform_report *rep,
                             xc_error *err)
{
    plane p = {0};
    xc_status st = plane_make(&p, 11, 1100, 10, 0, co->seed + 202, err);
    xc_spopts o;
    xc_spopts_default(&o, XC_SP_HEIMDALL);
    o.threshold = 3;
    o.wmax_s = 0.032;
    o.sep_time = o.sep_width = o.sep_dm = 1;
    xc_spcandlist one, three;
    xc_spcandlist_init(&one);
    xc_spcandlist_init(&three);
    o.threads = 1;
    if (!st)
        st = search(impl, &o, &p, &one, err);
    o.threads = 3;
    if (!st)
        st = search(impl, &o, &p, &three, err);
    if (st)
        st = xc_conform_report_add(rep, 0, "threads/1-vs-3", err->msg, "two candidate lists", "no error", err);
    else
        st = judge(rep, "threads/1-vs-3", &p, &o, &three, &one, 0, err);
    xc_spcandlist_free(&one);
    xc_spcandlist_free(&three);
    plane_free(&p);
    return st;
}

xc_status xc_conform_spsearcher(const xc_spsearcher *impl, const xc_spsearcher *ref, const xc_conform_opts *o,
                                xc_conform_report *rep, xc_error *err)
{
    int pass;
    xc_status st = xc_conform_check_pair(&impl->impl, &ref->impl, rep, err);
    if (!st)
        st = xc_conform_check_class(&impl->impl, rep, &pass, err);
    if (!st)
        st = planted_cases(impl, ref, o, rep, err);
    if (!st)
        st = float_cases(impl, ref, o, rep, err);
    if (!st)
        st = thread_case(impl, o, rep, err);
    return st;
}
