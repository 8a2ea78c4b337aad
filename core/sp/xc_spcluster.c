/* xc_spcluster.c: detections into candidates by friends of friends, as
 * Heimdall labels its giants (heimdall-astro, Pipeline/label_candidate_clusters
 * and hd/are_coincident: time tolerance x the wider filter, filter and DM
 * trial tolerances), and the CSV writer of candidate lists. */
#include "core/sp/xc_spsearch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_atomic.h"

static int cmp_det(const void *a, const void *b)
{
    const xc_spdet *x = a, *y = b;
    if (x->sample != y->sample)
        return x->sample < y->sample ? -1 : 1;
    if (x->dm_index != y->dm_index)
        return x->dm_index < y->dm_index ? -1 : 1;
    return (x->width > y->width) - (x->width < y->width);
}

static size_t find(size_t *up, size_t i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

static int friends(const xc_spdet *a, const xc_spdet *b, const xc_spsep *s)
{
    int64_t w = a->width > b->width ? a->width : b->width;
    int64_t dt = a->sample > b->sample ? a->sample - b->sample : b->sample - a->sample;
    return dt <= (int64_t)s->sep_time * w && abs(a->windex - b->windex) <= s->sep_width &&
           abs(a->dm_index - b->dm_index) <= s->sep_dm;
}

/* 1 if a is the better representative: larger snr, then earlier sample,
 * lower trial, smaller width. */
static int better(const xc_spdet *a, const xc_spdet *b)
{
    if (a->snr != b->snr)
        return a->snr > b->snr;
    if (a->sample != b->sample)
        return a->sample < b->sample;
    if (a->dm_index != b->dm_index)
        return a->dm_index < b->dm_index;
    return a->width < b->width;
}

xc_status xc_sp_cluster(xc_spdets *d, const xc_spsep *sep, double tsamp, const double *dms, size_t ndms,
                        xc_spcandlist *out, xc_error *err)
{
    size_t n = d->n;
    out->tsamp = tsamp;
    snprintf(out->source, sizeof out->source, "crosscheck");
    if (!n)
        return XC_OK;
    qsort(d->d, n, sizeof *d->d, cmp_det);
    size_t *up = malloc(n * sizeof *up), *rep = malloc(n * sizeof *rep);
    if (!up || !rep) {
        free(up);
        free(rep);
        return xc_error_set(err, XC_ENOMEM, "single-pulse clustering: out of memory for %zu detections", n);
    }
    int64_t wmax = 0;
    for (size_t i = 0; i < n; i++) {
        up[i] = i;
        wmax = d->d[i].width > wmax ? d->d[i].width : wmax;
    }
    const int64_t reach = (int64_t)sep->sep_time * wmax;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && d->d[j].sample - d->d[i].sample <= reach; j++)
            if (friends(&d->d[i], &d->d[j], sep)) {
                size_t a = find(up, i), b = find(up, j);
                if (a != b)
                    up[a > b ? a : b] = a < b ? a : b;
            }
    /* rep[root]: the index of its candidate in out */
    xc_status st = XC_OK;
    size_t first = out->n;
    for (size_t i = 0; i < n && !st; i++) {
        size_t r = find(up, i);
        const xc_spdet *x = &d->d[i];
        if (x->dm_index < 0 || (size_t)x->dm_index >= ndms) {
            st = xc_error_set(err, XC_EINVAL, "single-pulse detection at trial %d of %zu", (int)x->dm_index, ndms);
            break;
        }
        if (r == i) {
            xc_spcand c = {.snr = x->snr, .sample = x->sample, .width = x->width, .dm_index = x->dm_index,
                           .members = 0, .begin = x->begin, .end = x->end, .dm_lo = x->dm_index,
                           .dm_hi = x->dm_index};
            rep[r] = out->n;   /* roots are their clusters' lowest indices: first seen */
            st = xc_spcandlist_add(out, &c, err);
        }
        if (st)
            break;
        xc_spcand *c = &out->c[rep[r]];
        c->members++;
        c->begin = x->begin < c->begin ? x->begin : c->begin;
        c->end = x->end > c->end ? x->end : c->end;
        c->dm_lo = x->dm_index < c->dm_lo ? x->dm_index : c->dm_lo;
        c->dm_hi = x->dm_index > c->dm_hi ? x->dm_index : c->dm_hi;
        xc_spdet cur = {c->snr, c->sample, c->width, 0, c->dm_index, 0, 0};
        if (better(x, &cur)) {
            c->snr = x->snr;
            c->sample = x->sample;
            c->width = x->width;
            c->dm_index = x->dm_index;
        }
    }
    for (size_t k = first; !st && k < out->n; k++) {
        out->c[k].time_s = (double)out->c[k].sample * tsamp;
        out->c[k].dm = dms[out->c[k].dm_index];
    }
    free(up);
    free(rep);
    if (!st)
        xc_spcandlist_sort(out);
    return st;
}

xc_status xc_spcands_write_csv(const xc_spcandlist *l, const char *path, xc_error *err)
{
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    int bad = fprintf(a.fp, "snr,time_s,sample,width,dm,dm_index,members,begin,end,dm_lo,dm_hi\n") < 0;
    for (size_t i = 0; i < l->n && !bad; i++) {
        const xc_spcand *c = &l->c[i];
        bad = fprintf(a.fp, "%.6f,%.9f,%lld,%d,%.6f,%d,%lld,%lld,%lld,%d,%d\n", c->snr, c->time_s,
                      (long long)c->sample, (int)c->width, c->dm, (int)c->dm_index, (long long)c->members,
                      (long long)c->begin, (long long)c->end, (int)c->dm_lo, (int)c->dm_hi) < 0;
    }
    if (bad) {
        int e = errno;
        xc_atomic_abort(&a);
        return xc_error_set(err, XC_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    return xc_atomic_commit(&a, err);
}
