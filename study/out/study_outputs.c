/* A study's outputs: detections.csv, rates.csv, recovery.json (and the
 * report, study_report.c), all made from the sorted rows alone so that any
 * way of getting the rows gives the same bytes. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/spec/study_internal.h"

void xc_study_table_free(xc_study_table *t)
{
    free(t->ids);
    free(t->grid);
    free(t->removed);
    free(t->rate);
    memset(t, 0, sizeof *t);
}

static void compute_rates(const xc_study *st, xc_study_table *t)
{
    const size_t ns = t->nsearch;
    for (size_t k = 0; k < st->ns; k++)
        for (size_t c = 0; c < st->s[k].ncfg; c++) {
            size_t q = xc_study_search_index(st, (int)k, (int)c);
            xc_study_rate *r = &t->rate[q];
            memset(r, 0, sizeof *r);
            /* peers: the other searchers (not the baseline) with this configuration */
            size_t peer_q[XC_STUDY_MAX_SEARCHERS], npeer = 0, len = 0;
            for (size_t k2 = 0; k2 < st->ns && !st->s[k].baseline; k2++) {
                if (k2 == k || st->s[k2].baseline)
                    continue;
                for (size_t c2 = 0; c2 < st->s[k2].ncfg; c2++)
                    if (!strcmp(st->s[k2].cfg[c2].label, st->s[k].cfg[c].label)) {
                        peer_q[npeer++] = xc_study_search_index(st, (int)k2, (int)c2);
                        len += (size_t)snprintf(r->peers + len, sizeof r->peers - len, "%s%s", len ? " " : "",
                                                st->s[k2].name);
                    }
            }
            if (!npeer)
                snprintf(r->peers, sizeof r->peers, "none");
            r->n_total = t->np;
            for (size_t p = 0; p < t->np; p++) {
                if (t->removed[p] && !st->s[k].baseline) {
                    r->n_removed++;
                    continue;
                }
                r->n++;
                if (!t->grid[p * ns + q]->detected)
                    continue;
                r->detected++;
                int other = 0;
                for (size_t i = 0; i < npeer; i++)
                    other |= t->grid[p * ns + peer_q[i]]->detected;
                r->unique += !other;
            }
            r->rate = r->n ? (double)r->detected / (double)r->n : NAN;
            xc_wilson95(r->detected, r->n, &r->lo, &r->hi);
        }
}

xc_status xc_study_table_make(const xc_study *st, const xc_study_rows *rows, uint64_t shard, uint64_t nshards,
                              xc_study_table *t, xc_error *err)
{
    memset(t, 0, sizeof *t);
    if (nshards < 1)
        nshards = 1;
    const size_t ns = xc_study_nsearch(st);
    size_t np = st->n > shard ? (size_t)((st->n - shard + nshards - 1) / nshards) : 0;
    t->np = np;
    t->nsearch = ns;
    t->ids = calloc(np ? np : 1, sizeof *t->ids);
    t->grid = calloc(np * ns > 0 ? np * ns : 1, sizeof *t->grid);
    t->removed = calloc(np ? np : 1, 1);
    t->rate = calloc(ns, sizeof *t->rate);
    if (!t->ids || !t->grid || !t->removed || !t->rate) {
        xc_study_table_free(t);
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu pulsars x %zu searches", np, ns);
    }
    for (size_t p = 0; p < np; p++)
        t->ids[p] = shard + (uint64_t)p * nshards;
    for (size_t i = 0; i < rows->n; i++) {
        const xc_study_row *r = &rows->r[i];
        if (r->id >= st->n || r->id % nshards != shard)
            continue;
        size_t p = (size_t)((r->id - shard) / nshards);
        t->grid[p * ns + xc_study_search_index(st, r->searcher, r->config)] = r;
    }
    for (size_t p = 0; p < np; p++)
        for (size_t k = 0; k < st->ns; k++)
            for (size_t c = 0; c < st->s[k].ncfg; c++)
                if (!t->grid[p * ns + xc_study_search_index(st, (int)k, (int)c)]) {
                    xc_status e = xc_error_set(err, XC_EINVAL, "pulsar %llu has no row for searcher %s, %s: the "
                                               "study is not finished (run it again to finish it)",
                                               (unsigned long long)t->ids[p], st->s[k].name, st->s[k].cfg[c].label);
                    xc_study_table_free(t);
                    return e;
                }
    if (st->has_baseline) {
        size_t qb = xc_study_search_index(st, (int)st->ns - 1, 0);
        for (size_t p = 0; p < np; p++)
            t->removed[p] = (unsigned char)t->grid[p * ns + qb]->detected;
    }
    compute_rates(st, t);
    return XC_OK;
}

void xc_study_put(xc_study_buf *b, const char *fmt, ...)
{
    if (b->bad)
        return;
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->bad = 1;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? 2 * b->cap : 4096;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->bad = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
}

xc_status xc_study_flush(xc_study_buf *b, const char *dir, const char *name, xc_error *err)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    xc_status e = b->bad ? xc_error_set(err, XC_ENOMEM, "%s: out of memory", path)
                         : xc_study_write_text(path, b->s ? b->s : "", b->len, err);
    free(b->s);
    memset(b, 0, sizeof *b);
    return e;
}

static xc_status write_rates(const xc_study *st, const xc_study_table *t, const char *dir, xc_error *err)
{
    xc_study_buf b = {0};
    xc_study_put(&b,
                 "searcher,config,n,detected,rate,ci_lo,ci_hi,unique,peers,n_total,n_removed,impl,family,zmax,numharm\n");
    for (size_t k = 0; k < st->ns; k++)
        for (size_t c = 0; c < st->s[k].ncfg; c++) {
            const xc_study_rate *r = &t->rate[xc_study_search_index(st, (int)k, (int)c)];
            char a[3][32];
            xc_study_fmt_num(a[0], 32, r->rate, 6);
            xc_study_fmt_num(a[1], 32, r->lo, 6);
            xc_study_fmt_num(a[2], 32, r->hi, 6);
            xc_study_put(&b, "%s,%s,%llu,%llu,%s,%s,%s,%llu,%s,%llu,%llu,%s,%s,%d,%d\n", st->s[k].name,
                         st->s[k].cfg[c].label,
                (unsigned long long)r->n, (unsigned long long)r->detected, a[0], a[1], a[2],
                (unsigned long long)r->unique, r->peers, (unsigned long long)r->n_total,
                (unsigned long long)r->n_removed, st->s[k].impl->name, xc_family_name(st->s[k].family),
                st->s[k].cfg[c].zmax, st->s[k].cfg[c].numharm);
        }
    return xc_study_flush(&b, dir, "rates.csv", err);
}

static xc_status write_detections(const xc_study *st, const xc_study_table *t, const char *dir, xc_error *err)
{
    xc_study_buf b = {0};
    xc_study_put(&b, "%s,baseline_detected\n", xc_study_header());
    for (size_t p = 0; p < t->np; p++)
        for (size_t q = 0; q < t->nsearch; q++)
            xc_study_put(&b, "%s,%d\n", t->grid[p * t->nsearch + q]->line, t->removed[p]);
    (void)st;
    return xc_study_flush(&b, dir, "detections.csv", err);
}

static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *fit_json(const xc_linfit *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer((json_int_t)f->n));
    json_object_set_new(o, "slope", jnum(f->slope));
    json_object_set_new(o, "intercept", jnum(f->intercept));
    json_object_set_new(o, "r2", jnum(f->r2));
    json_object_set_new(o, "resid_rms", jnum(f->resid_rms));
    return o;
}

/* Measured z against truth z over the detections (fundamental, baseline
 * pulsars removed): the Pulscan paper's Table 2 regression, against the
 * synthesizer's exact z instead of FDJS's.  The paper compares magnitudes
 * (a boxcar cannot tell the sign of z), so the main fit is |z| against
 * |z| for every searcher; matched filters also get the signed fit. */
static xc_status write_recovery(const xc_study *st, const xc_study_table *t, const char *dir, xc_error *err)
{
    json_t *root = json_object(), *fits = json_array();
    double *x = malloc((t->np ? t->np : 1) * sizeof *x), *y = malloc((t->np ? t->np : 1) * sizeof *y);
    xc_status e = XC_OK;
    if (!root || !fits || !x || !y) {
        e = xc_error_set(err, XC_ENOMEM, "out of memory");
        goto out;
    }
    char hx[20];
    snprintf(hx, sizeof hx, "%016llx", (unsigned long long)st->hash);
    json_object_set_new(root, "study_hash", json_string(hx));
    json_object_set_new(root, "definition",
                        json_string("least-squares fit measured = intercept + slope * truth over the pulsars each "
                                    "configuration detects at its fundamental (baseline detections removed), as the "
                                    "Pulscan paper's Table 2 but against the synthesizer's mid-observation z rather "
                                    "than FDJS's: n, slope, intercept, r2 and resid_rms (bins) are the fit of |z| "
                                    "against |truth z| (a boxcar cannot tell the sign); \"signed\" is the fit of z "
                                    "against truth z, for matched filters"));
    for (size_t k = 0; k < st->ns; k++)
        for (size_t c = 0; c < st->s[k].ncfg; c++) {
            size_t q = xc_study_search_index(st, (int)k, (int)c);
            xc_linfit f;
            xc_study_zfit_rows(st, t, k, q, 1, x, y, &f);
            json_t *o = fit_json(&f);
            json_object_set_new(o, "searcher", json_string(st->s[k].name));
            json_object_set_new(o, "config", json_string(st->s[k].cfg[c].label));
            if (st->s[k].signed_z) {
                xc_study_zfit_rows(st, t, k, q, 0, x, y, &f);
                json_object_set_new(o, "signed", fit_json(&f));
            }
            json_array_append_new(fits, o);
        }
    json_object_set(root, "fits", fits);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER);
    if (!text) {
        e = xc_error_set(err, XC_ENOMEM, "out of memory");
        goto out;
    }
    xc_study_buf b = {0};
    xc_study_put(&b, "%s\n", text);
    free(text);
    e = xc_study_flush(&b, dir, "recovery.json", err);
out:
    free(x);
    free(y);
    json_decref(fits);
    json_decref(root);
    return e;
}

xc_status xc_study_write_outputs(const xc_study *st, const xc_study_rows *rows, uint64_t shard, uint64_t nshards,
                                 const char *dir, xc_error *err)
{
    xc_study_table t;
    xc_status e = xc_study_table_make(st, rows, shard, nshards, &t, err);
    if (e)
        return e;
    if (st->frb) {
        e = xc_study_frb_outputs(st, &t, dir, err);
        xc_study_table_free(&t);
        return e;
    }
    if (!(e = write_detections(st, &t, dir, err)) && !(e = write_rates(st, &t, dir, err)) &&
        !(e = write_recovery(st, &t, dir, err)))
        e = xc_study_report(st, &t, dir, err);
    xc_study_table_free(&t);
    return e;
}
