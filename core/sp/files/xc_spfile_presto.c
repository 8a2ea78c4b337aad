/* xc_spfile_presto.c: PRESTO's .singlepulse files (bin/single_pulse_search.py;
 * xc_spfiles.h states the mapping of each column). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_atomic.h"
#include "core/sp/files/xc_spfile_util.h"

#define PRESTO_HEADER "# DM      Sigma      Time (s)     Sample    Downfact"

static const char *const cols[] = {"DM", "Sigma", "Time", "Sample", "Downfact"};
#define NCOLS 5

static xc_status sp_line(xc_spreader *rd, char *line, int lineno, xc_error *err)
{
    if (!*line || *line == '#')
        return XC_OK;
    char *tok[NCOLS];
    xc_spcand c = {0};
    int64_t bin;
    xc_status st;
    if ((st = xc_spcolumns_(rd, line, lineno, tok, NCOLS, "a PRESTO single pulse has 5 (DM Sigma Time Sample "
                            "Downfact)", err)) ||
        (st = xc_spfield_double_(rd->path, lineno, cols[0], tok[0], &c.dm, err)) ||
        (st = xc_spfield_double_(rd->path, lineno, cols[1], tok[1], &c.snr, err)) ||
        (st = xc_spfield_double_(rd->path, lineno, cols[2], tok[2], &c.time_s, err)) ||
        (st = xc_spfield_int64_(rd->path, lineno, cols[3], tok[3], &bin, err)) ||
        (st = xc_spfield_int32_(rd->path, lineno, cols[4], tok[4], &c.width, err)))
        return st;
    if (bin < 0 || bin > ((int64_t)1 << 53))
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: column Sample: %lld is outside 0..2^53", rd->path, lineno,
                            (long long)bin);
    if (c.width < 1 || c.width > (1 << 30))
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: column Downfact: %d is outside 1..2^30", rd->path, lineno,
                            (int)c.width);
    c.sample = bin - c.width / 2;
    c.members = 1;
    c.begin = c.sample;
    c.end = c.sample + c.width;
    return xc_spadd_checked_(rd->l, &c, rd->path, lineno, err);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* dm_index (and dm_lo, dm_hi) = the rank of each DM among the distinct DMs. */
static xc_status rank_dms(xc_spcandlist *l, xc_error *err)
{
    if (!l->n)
        return XC_OK;
    double *d = malloc(l->n * sizeof *d);
    if (!d)
        return xc_error_set(err, XC_ENOMEM, "single pulses: out of memory ranking %zu DMs", l->n);
    for (size_t i = 0; i < l->n; i++)
        d[i] = l->c[i].dm;
    qsort(d, l->n, sizeof *d, cmp_double);
    size_t nd = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!nd || d[i] != d[nd - 1])
            d[nd++] = d[i];
    for (size_t i = 0; i < l->n; i++) {
        const double *p = bsearch(&l->c[i].dm, d, nd, sizeof *d, cmp_double);
        l->c[i].dm_index = l->c[i].dm_lo = l->c[i].dm_hi = (int32_t)(p - d);
    }
    free(d);
    return XC_OK;
}

xc_status xc_spcands_read_presto(xc_spcandlist *l, const char *path, xc_error *err)
{
    xc_spreader rd = {.l = l, .path = path, .line = sp_line};
    xc_status st = xc_spread_lines_(&rd, "presto", err);
    if (!st && (st = rank_dms(l, err)))
        l->n = 0;
    /* Time (s) has 6 decimals: within 0.5 us, plus tsamp's own error */
    if (!st)
        xc_spfinish_(l, 1, 1.1e-6, 1e-12);
    return st;
}

/* By DM index, then sample: PRESTO's files are one per DM, sorted by bin. */
static int cmp_dm_sample(const void *a, const void *b)
{
    const xc_spcand *x = *(const xc_spcand *const *)a, *y = *(const xc_spcand *const *)b;
    if (x->dm_index != y->dm_index)
        return x->dm_index < y->dm_index ? -1 : 1;
    if (x->sample != y->sample)
        return x->sample < y->sample ? -1 : 1;
    if (x->width != y->width)
        return x->width < y->width ? -1 : 1;
    return (x->snr < y->snr) - (x->snr > y->snr);
}

xc_status xc_spcands_write_presto(const xc_spcandlist *l, const char *path, xc_error *err)
{
    const xc_spcand **order = malloc((l->n ? l->n : 1) * sizeof *order);
    if (!order)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory ordering %zu candidates", path, l->n);
    for (size_t i = 0; i < l->n; i++)
        order[i] = &l->c[i];
    qsort(order, l->n, sizeof *order, cmp_dm_sample);
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st) {
        free(order);
        return st;
    }
    int bad = fprintf(a.fp, "%s\n", PRESTO_HEADER) < 0;
    for (size_t i = 0; i < l->n && !bad; i++) {
        const xc_spcand *c = order[i];
        bad |= fprintf(a.fp, "%7.2f %7.2f %13.6f %10lld     %3d\n", c->dm, c->snr, xc_spcentre_time_(l, c),
                       (long long)(c->sample + c->width / 2), (int)c->width) < 0;
    }
    free(order);
    if (bad) {
        st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
        xc_atomic_abort(&a);
        return st;
    }
    return xc_atomic_commit(&a, err);
}
