/* xc_spfile_heimdall.c: Heimdall's .cand files (xc_spfiles.h states the
 * mapping of each column; heimdall-astro, Pipeline/pipeline: one line per
 * cluster, tab separated). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/base/xc_atomic.h"
#include "core/sp/files/xc_spfile_util.h"

static const char *const cols[] = {"snr", "sample", "time", "filter", "dm_trial", "dm", "members", "begin", "end"};
#define NCOLS 9

static xc_status cand_line(xc_spreader *rd, char *line, int lineno, xc_error *err)
{
    if (!*line || *line == '#')
        return XC_OK;
    char *tok[NCOLS];
    int64_t centre, begin, end;
    int32_t filter;
    xc_spcand c = {0};
    xc_status st;
    if ((st = xc_spcolumns_(rd, line, lineno, tok, NCOLS, "a Heimdall candidate has 9 (snr sample time filter "
                            "dm_trial dm members begin end)", err)) ||
        (st = xc_spfield_double_(rd->path, lineno, cols[0], tok[0], &c.snr, err)) ||
        (st = xc_spfield_int64_(rd->path, lineno, cols[1], tok[1], &centre, err)) ||
        (st = xc_spfield_double_(rd->path, lineno, cols[2], tok[2], &c.time_s, err)) ||
        (st = xc_spfield_int32_(rd->path, lineno, cols[3], tok[3], &filter, err)) ||
        (st = xc_spfield_int32_(rd->path, lineno, cols[4], tok[4], &c.dm_index, err)) ||
        (st = xc_spfield_double_(rd->path, lineno, cols[5], tok[5], &c.dm, err)) ||
        (st = xc_spfield_int64_(rd->path, lineno, cols[6], tok[6], &c.members, err)) ||
        (st = xc_spfield_int64_(rd->path, lineno, cols[7], tok[7], &begin, err)) ||
        (st = xc_spfield_int64_(rd->path, lineno, cols[8], tok[8], &end, err)))
        return st;
    if (filter < 0 || filter > 30)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: column filter: %d is outside 0..30 (log2 of the boxcar "
                            "width)", rd->path, lineno, (int)filter);
    if (centre < 0 || begin < 0 || end < 0 || centre > ((int64_t)1 << 53) || begin > ((int64_t)1 << 53) ||
        end > ((int64_t)1 << 53))
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: column sample/begin/end: %lld/%lld/%lld is outside "
                            "0..2^53", rd->path, lineno, (long long)centre, (long long)begin, (long long)end);
    c.width = (int32_t)1 << filter;
    const int64_t half = c.width / 2, up = c.width - half;   /* floor and ceil of width/2 */
    c.sample = centre - half;
    c.begin = begin - half;
    c.end = end + up - 1;
    c.dm_lo = c.dm_hi = c.dm_index;
    return xc_spadd_checked_(rd->l, &c, rd->path, lineno, err);
}

xc_status xc_spcands_read_heimdall(xc_spcandlist *l, const char *path, xc_error *err)
{
    xc_spreader rd = {.l = l, .path = path, .line = cand_line};
    xc_status st = xc_spread_lines_(&rd, "heimdall", err);
    /* Heimdall writes 6 significant digits (relative 5e-6); ours 9 decimals */
    if (!st)
        xc_spfinish_(l, 1, 2e-9, 1.1e-5);
    return st;
}

/* log2 of w, or -1 when w is not a power of two. */
static int ilog2_exact(int32_t w)
{
    if (w < 1 || (w & (w - 1)))
        return -1;
    int k = 0;
    while ((1 << k) < w)
        k++;
    return k;
}

xc_status xc_spcands_write_heimdall(const xc_spcandlist *l, const char *path, xc_error *err)
{
    for (size_t i = 0; i < l->n; i++)
        if (ilog2_exact(l->c[i].width) < 0)
            return xc_error_set(err, XC_EINVAL, "%s: candidate %zu (sample %lld, dm %g) has width %d samples: "
                                "Heimdall's .cand holds only power-of-two widths (its filter column is log2 of "
                                "the width); write CSV instead", path, i + 1, (long long)l->c[i].sample,
                                l->c[i].dm, (int)l->c[i].width);
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    int bad = 0;
    for (size_t i = 0; i < l->n && !bad; i++) {
        const xc_spcand *c = &l->c[i];
        const int64_t half = c->width / 2, up = c->width - half;
        const int64_t centre = c->sample + half;
        /* the centre's time, as Heimdall's samp_idx * dt */
        const double t = xc_spcentre_time_(l, c);
        bad |= fprintf(a.fp, "%.6f\t%lld\t%.9f\t%d\t%d\t%.6f\t%lld\t%lld\t%lld\n", c->snr, (long long)centre, t,
                       ilog2_exact(c->width), (int)c->dm_index, c->dm, (long long)c->members,
                       (long long)(c->begin + half), (long long)(c->end - up + 1)) < 0;
    }
    if (bad) {
        st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
        xc_atomic_abort(&a);
        return st;
    }
    return xc_atomic_commit(&a, err);
}
