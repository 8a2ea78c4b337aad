/* xc_spfile_csv.c: the single-pulse CSV reader (xc_spfiles.h); the writer
 * is xc_spcands_write_csv. */
#include <stdio.h>
#include <string.h>

#include "core/sp/files/xc_spfile_util.h"

static const char *const cols[] = {"snr", "time_s", "sample", "width", "dm", "dm_index",
                                   "members", "begin", "end", "dm_lo", "dm_hi"};
#define NCOLS 11
#define NREQUIRED 7

/* Which named column each field of a row is (from the header). */
typedef struct {
    int ncol;
    int col_of_field[NCOLS];
    int have[NCOLS];
} csv_layout;

static xc_status header(const char *path, char *line, csv_layout *lay, xc_error *err)
{
    char *tok[NCOLS + 1];
    int n = xc_spsplit_(line, ",", tok, NCOLS + 1);
    if (n > NCOLS)
        return xc_error_set(err, XC_EFORMAT, "%s: line 1: header has %d columns, at most %d (snr,time_s,sample,"
                            "width,dm,dm_index,members,begin,end,dm_lo,dm_hi)", path, n, NCOLS);
    memset(lay, 0, sizeof *lay);
    lay->ncol = n;
    for (int f = 0; f < n; f++) {
        int k = 0;
        while (k < NCOLS && strcmp(tok[f], cols[k]))
            k++;
        if (k == NCOLS)
            return xc_error_set(err, XC_EFORMAT, "%s: line 1: column %d: '%.40s' is not a single-pulse column "
                                "(snr,time_s,sample,width,dm,dm_index,members,begin,end,dm_lo,dm_hi)", path, f + 1,
                                tok[f]);
        if (lay->have[k])
            return xc_error_set(err, XC_EFORMAT, "%s: line 1: column '%s' appears twice", path, cols[k]);
        lay->have[k] = 1;
        lay->col_of_field[f] = k;
    }
    for (int k = 0; k < NREQUIRED; k++)
        if (!lay->have[k])
            return xc_error_set(err, XC_EFORMAT, "%s: line 1: header lacks the column '%s' (needed: snr,time_s,"
                                "sample,width,dm,dm_index,members)", path, cols[k]);
    if ((lay->have[7] != lay->have[8]) || (lay->have[9] != lay->have[10]))
        return xc_error_set(err, XC_EFORMAT, "%s: line 1: begin and end (and dm_lo and dm_hi) come in pairs", path);
    return XC_OK;
}

/* The field of column k into c. */
static xc_status field(const char *path, int lineno, int k, const char *s, xc_spcand *c, xc_error *err)
{
    switch (k) {
    case 0: return xc_spfield_double_(path, lineno, cols[k], s, &c->snr, err);
    case 1: return xc_spfield_double_(path, lineno, cols[k], s, &c->time_s, err);
    case 2: return xc_spfield_int64_(path, lineno, cols[k], s, &c->sample, err);
    case 3: return xc_spfield_int32_(path, lineno, cols[k], s, &c->width, err);
    case 4: return xc_spfield_double_(path, lineno, cols[k], s, &c->dm, err);
    case 5: return xc_spfield_int32_(path, lineno, cols[k], s, &c->dm_index, err);
    case 6: return xc_spfield_int64_(path, lineno, cols[k], s, &c->members, err);
    case 7: return xc_spfield_int64_(path, lineno, cols[k], s, &c->begin, err);
    case 8: return xc_spfield_int64_(path, lineno, cols[k], s, &c->end, err);
    case 9: return xc_spfield_int32_(path, lineno, cols[k], s, &c->dm_lo, err);
    default: return xc_spfield_int32_(path, lineno, cols[k], s, &c->dm_hi, err);
    }
}

static xc_status csv_line(xc_spreader *rd, char *line, int lineno, xc_error *err)
{
    csv_layout *lay = rd->user;
    if (lineno == 1)
        return header(rd->path, line, lay, err);
    if (!*line)
        return XC_OK;   /* a blank line (one at the end, say) */
    char *tok[NCOLS + 1];
    int n = xc_spsplit_(line, ",", tok, NCOLS + 1);
    if (n != lay->ncol)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: %d columns, the header has %d", rd->path, lineno, n,
                            lay->ncol);
    xc_spcand c;
    memset(&c, 0, sizeof c);
    for (int f = 0; f < n; f++) {
        xc_status st = field(rd->path, lineno, lay->col_of_field[f], tok[f], &c, err);
        if (st)
            return st;
    }
    if (!lay->have[7]) {
        c.begin = c.sample;
        c.end = c.sample + c.width;
    }
    if (!lay->have[9])
        c.dm_lo = c.dm_hi = c.dm_index;
    return xc_spadd_checked_(rd->l, &c, rd->path, lineno, err);
}

xc_status xc_spcands_read_csv(xc_spcandlist *l, const char *path, xc_error *err)
{
    csv_layout lay;
    memset(&lay, 0, sizeof lay);
    xc_spreader rd = {.l = l, .path = path, .line = csv_line, .user = &lay};
    xc_status st = xc_spread_lines_(&rd, "crosscheck", err);
    if (!st && lay.ncol == 0) {
        st = xc_error_set(err, XC_EFORMAT, "%s: empty file (no header line)", path);
        l->n = 0;
    }
    /* time_s is written with 9 decimals: within 2 ns of sample * tsamp */
    if (!st)
        xc_spfinish_(l, 0, 2e-9, 1e-12);
    return st;
}
