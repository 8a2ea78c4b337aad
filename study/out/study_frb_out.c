/* An FRB study's outputs, from the sorted rows alone (so any way of getting
 * them gives the same bytes): detections.csv, rates.csv, completeness.csv
 * (the detection fraction against fluence, width, DM and scattering with
 * Wilson intervals) and completeness.json (the fluence at 50 % and 90 %
 * completeness per searcher and configuration, with intervals). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/spec/study_internal.h"

static const char *const axes[XC_FRB_NAXES] = {"fluence_jyms", "width_ms", "dm", "tau_ms"};
static const double levels[2] = {0.5, 0.9};

const char *xc_study_frb_axis(int a) { return a >= 0 && a < XC_FRB_NAXES ? axes[a] : NULL; }

double xc_study_frb_value(const xc_study_row *r, int a)
{
    return a == 0 ? r->fluence : a == 1 ? r->width_ms : a == 2 ? r->dm : r->tau_ms;
}

void xc_study_frb_curves_free(xc_study_frbcurves *cv)
{
    free(cv->bin);
    free(cv->fq);
    memset(cv, 0, sizeof *cv);
}

/* The bin of v among nb bins of edges e (the last one closed). */
static int bin_of(const double *e, int nb, double v)
{
    int b = 0;
    while (b + 1 < nb && v >= e[b + 1])
        b++;
    return b;
}

double xc_study_frb_cross(const double *e, const double *y, const uint64_t *n, int nb, int logx, double p)
{
    /* the last non-empty bin below p; the crossing lies between its centre
     * and the next non-empty bin's, interpolated linearly in the axis (in
     * log10 on a log axis) */
    int last = -1, first = -1;
    for (int b = 0; b < nb; b++) {
        if (!n[b])
            continue;
        if (first < 0)
            first = b;
        if (y[b] < p)
            last = b;
    }
    if (first < 0)
        return NAN;
    if (last < 0)   /* every bin at or above p: the curve reaches p below the range, at most its lower edge */
        return e[first];
    int next = last + 1;
    while (next < nb && !n[next])
        next++;
    if (next == nb)   /* never reached within the range */
        return NAN;
    double x0 = logx ? 0.5 * (log10(e[last]) + log10(e[last + 1])) : 0.5 * (e[last] + e[last + 1]);
    double x1 = logx ? 0.5 * (log10(e[next]) + log10(e[next + 1])) : 0.5 * (e[next] + e[next + 1]);
    double x = x0 + (p - y[last]) / (y[next] - y[last]) * (x1 - x0);
    return logx ? pow(10.0, x) : x;
}

/* The edges of axis a over every burst of t (search 0's rows: every search
 * of a burst has its truth); 0 when the values have no spread. */
static int edges(const xc_study_table *t, int a, int nb, int logx, double *e)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t p = 0; p < t->np; p++) {
        double v = xc_study_frb_value(t->grid[p * t->nsearch], a);
        if (!isfinite(v) || (logx && !(v > 0)))
            continue;
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    if (!(hi > lo))
        return 0;
    for (int b = 0; b <= nb; b++)
        e[b] = logx ? pow(10.0, log10(lo) + (log10(hi) - log10(lo)) * b / nb) : lo + (hi - lo) * b / nb;
    e[nb] = hi;   /* exactly, so the brightest burst is in the last bin */
    return 1;
}

/* Search q's fractions on axis a and, on the fluence axis, its F50 and F90. */
static void curve(const xc_study_table *t, size_t q, int a, xc_study_frbcurves *cv)
{
    const int nb = cv->nb;
    xc_study_bin *bin = &cv->bin[(q * XC_FRB_NAXES + (size_t)a) * (size_t)nb];
    for (size_t p = 0; p < t->np; p++) {
        const xc_study_row *r = t->grid[p * t->nsearch + q];
        double v = xc_study_frb_value(t->grid[p * t->nsearch], a);
        if (!isfinite(v) || (cv->logx[a] && !(v > 0)))
            continue;
        xc_study_bin *b = &bin[bin_of(cv->edge[a], nb, v)];
        b->n++;
        b->k += (uint64_t)r->detected;
    }
    double y[3][XC_FRB_MAXBINS];
    uint64_t n[XC_FRB_MAXBINS];
    for (int b = 0; b < nb; b++) {
        bin[b].frac = bin[b].n ? (double)bin[b].k / (double)bin[b].n : NAN;
        xc_wilson95(bin[b].k, bin[b].n, &bin[b].lo, &bin[b].hi);
        n[b] = bin[b].n;
        y[0][b] = bin[b].frac;
        y[1][b] = bin[b].hi;   /* the upper bound reaches p first: the interval's low end */
        y[2][b] = bin[b].lo;
    }
    if (a != 0)
        return;
    for (int l = 0; l < 2; l++)
        for (int w = 0; w < 3; w++)
            cv->fq[(q * 2 + (size_t)l) * 3 + (size_t)w] = xc_study_frb_cross(cv->edge[0], y[w], n, nb, 1, levels[l]);
}

xc_status xc_study_frb_curves(const xc_study *st, const xc_study_table *t, xc_study_frbcurves *cv, xc_error *err)
{
    memset(cv, 0, sizeof *cv);
    cv->nb = st->bins < 2 ? 2 : st->bins > XC_FRB_MAXBINS ? XC_FRB_MAXBINS : st->bins;
    const size_t ns = t->nsearch;
    cv->bin = calloc(ns * XC_FRB_NAXES * (size_t)cv->nb + 1, sizeof *cv->bin);
    cv->fq = malloc((ns * 6 + 1) * sizeof *cv->fq);
    if (!cv->bin || !cv->fq) {
        xc_study_frb_curves_free(cv);
        return xc_error_set(err, XC_ENOMEM, "out of memory for the completeness curves");
    }
    for (size_t i = 0; i < ns * 6; i++)
        cv->fq[i] = NAN;
    for (int a = 0; a < XC_FRB_NAXES; a++) {
        cv->logx[a] = a != 2;
        cv->ok[a] = t->np > 0 && edges(t, a, cv->nb, cv->logx[a], cv->edge[a]);
        for (size_t q = 0; cv->ok[a] && q < ns; q++)
            curve(t, q, a, cv);
    }
    return XC_OK;
}

static void num(char *out, double v) { xc_study_fmt_num(out, 32, v, 6); }

static xc_status write_rates(const xc_study *st, const xc_study_table *t, const xc_study_frbcurves *cv,
                             const char *dir, xc_error *err)
{
    xc_study_buf b = {0};
    xc_study_put(&b, "searcher,config,n,detected,rate,ci_lo,ci_hi,unique,peers,impl,ddimpl,f50_jyms,"
                     "f50_lo,f50_hi,f90_jyms,f90_lo,f90_hi\n");
    for (size_t k = 0; k < st->ns; k++)
        for (size_t c = 0; c < st->s[k].ncfg; c++) {
            const size_t q = xc_study_search_index(st, (int)k, (int)c);
            const xc_study_rate *r = &t->rate[q];
            char a[9][32];
            num(a[0], r->rate);
            num(a[1], r->lo);
            num(a[2], r->hi);
            for (int i = 0; i < 6; i++)
                num(a[3 + i], cv->fq[q * 6 + (size_t)i]);
            xc_study_put(&b, "%s,%s,%llu,%llu,%s,%s,%s,%llu,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", st->s[k].name,
                         st->s[k].cfg[c].label, (unsigned long long)r->n, (unsigned long long)r->detected, a[0], a[1],
                         a[2], (unsigned long long)r->unique, r->peers, st->s[k].impl->name, st->s[k].cfg[c].sp.dd->name,
                         a[3], a[4], a[5], a[6], a[7], a[8]);
        }
    return xc_study_flush(&b, dir, "rates.csv", err);
}

static xc_status write_completeness(const xc_study *st, const xc_study_table *t, const xc_study_frbcurves *cv,
                                    const char *dir, xc_error *err)
{
    xc_study_buf b = {0};
    xc_study_put(&b, "searcher,config,axis,lo,hi,n,detected,fraction,ci_lo,ci_hi\n");
    for (size_t k = 0; k < st->ns; k++)
        for (size_t c = 0; c < st->s[k].ncfg; c++) {
            const size_t q = xc_study_search_index(st, (int)k, (int)c);
            for (int a = 0; a < XC_FRB_NAXES; a++)
                for (int i = 0; cv->ok[a] && i < cv->nb; i++) {
                    const xc_study_bin *x = &cv->bin[(q * XC_FRB_NAXES + (size_t)a) * (size_t)cv->nb + (size_t)i];
                    char v[5][32];
                    num(v[0], cv->edge[a][i]);
                    num(v[1], cv->edge[a][i + 1]);
                    num(v[2], x->frac);
                    num(v[3], x->lo);
                    num(v[4], x->hi);
                    xc_study_put(&b, "%s,%s,%s,%s,%s,%llu,%llu,%s,%s,%s\n", st->s[k].name, st->s[k].cfg[c].label,
                                 axes[a], v[0], v[1], (unsigned long long)x->n, (unsigned long long)x->k, v[2], v[3],
                                 v[4]);
                }
        }
    (void)t;
    return xc_study_flush(&b, dir, "completeness.csv", err);
}

static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static xc_status write_json(const xc_study *st, const xc_study_frbcurves *cv, const char *dir, xc_error *err)
{
    json_t *root = json_object(), *list = json_array();
    char hx[20];
    snprintf(hx, sizeof hx, "%016llx", (unsigned long long)st->hash);
    json_object_set_new(root, "study_hash", json_string(hx));
    json_object_set_new(root, "definition", json_string(
        "the fluence (Jy ms) at which each searcher's detected fraction reaches 50 % and 90 %: the fraction in "
        "log-spaced fluence bins (completeness.csv), interpolated linearly in log10 fluence between the centres of "
        "the last bin below the level and the next non-empty bin (so above the estimate every bin is at or above "
        "the level); lo and hi are the same crossing of the bins' 95 % Wilson upper and lower bounds. null: the "
        "level is not reached within the population's fluences; the lower edge of the range when every bin is "
        "already at or above it"));
    json_object_set_new(root, "bins", json_integer(cv->nb));
    for (size_t k = 0; k < st->ns; k++)
        for (size_t c = 0; c < st->s[k].ncfg; c++) {
            const size_t q = xc_study_search_index(st, (int)k, (int)c);
            json_t *o = json_object();
            json_object_set_new(o, "searcher", json_string(st->s[k].name));
            json_object_set_new(o, "config", json_string(st->s[k].cfg[c].label));
            for (int l = 0; l < 2; l++) {
                json_t *f = json_object();
                json_object_set_new(f, "fluence_jyms", jnum(cv->fq[(q * 2 + (size_t)l) * 3]));
                json_object_set_new(f, "lo", jnum(cv->fq[(q * 2 + (size_t)l) * 3 + 1]));
                json_object_set_new(f, "hi", jnum(cv->fq[(q * 2 + (size_t)l) * 3 + 2]));
                json_object_set_new(o, l ? "f90" : "f50", f);
            }
            json_array_append_new(list, o);
        }
    json_object_set_new(root, "completeness", list);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    xc_study_buf b = {0};
    xc_study_put(&b, "%s\n", text);
    free(text);
    return xc_study_flush(&b, dir, "completeness.json", err);
}

xc_status xc_study_frb_outputs(const xc_study *st, const xc_study_table *t, const char *dir, xc_error *err)
{
    xc_study_buf b = {0};
    xc_study_put(&b, "%s\n", xc_study_frb_header());
    for (size_t p = 0; p < t->np; p++)
        for (size_t q = 0; q < t->nsearch; q++)
            xc_study_put(&b, "%s\n", t->grid[p * t->nsearch + q]->line);
    xc_status e = xc_study_flush(&b, dir, "detections.csv", err);
    xc_study_frbcurves cv;
    if (e || (e = xc_study_frb_curves(st, t, &cv, err)))
        return e;
    if (!(e = write_rates(st, t, &cv, dir, err)) && !(e = write_completeness(st, t, &cv, dir, err)) &&
        !(e = write_json(st, &cv, dir, err)))
        e = xc_study_frb_report(st, t, &cv, dir, err);
    xc_study_frb_curves_free(&cv);
    return e;
}
