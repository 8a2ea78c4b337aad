/* The rows of a study: detections.csv's columns, a row read back from a
 * journal, the rows sorted and merged, the numbers as the study's CSV files
 * write them, and the one writer of the study's text files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_atomic.h"
#include "study/spec/study_internal.h"

/* The columns of detections.csv.  Measured values of a pulsar not detected,
 * and w of a searcher without a jerk axis, are "nan". */
static const char header[] =
    "pulsar,searcher,config,detected,sigma,numharm,match,harm_n,r,z,w,r_err,z_err,w_err,f_hz,"
    "truth_f0_hz,truth_r,truth_z,truth_w,truth_snr_folded,period_ms,width_pct,snrpeak,dm,bper_h,becc,bphase,"
    "bpmass,bcmass,ncands_above";
enum { COL_SIGMA = 4, COL_HARMN = 7, COL_Z = 9, COL_TZ = 17, COL_TW = 18, COL_SNRPEAK = 22, NCOLS = 30 };

const char *xc_study_header(void) { return header; }

void xc_study_rows_free(xc_study_rows *rows)
{
    for (size_t i = 0; i < rows->n; i++)
        free(rows->r[i].line);
    free(rows->r);
    memset(rows, 0, sizeof *rows);
}

xc_status xc_study_rows_push(xc_study_rows *rows, const xc_study_row *r, xc_error *err)
{
    if (rows->n == rows->cap) {
        size_t cap = rows->cap ? 2 * rows->cap : 64;
        xc_study_row *p = realloc(rows->r, cap * sizeof *p);
        if (!p)
            return xc_error_set(err, XC_ENOMEM, "out of memory for %zu study rows", cap);
        rows->r = p;
        rows->cap = cap;
    }
    rows->r[rows->n++] = *r;
    return XC_OK;
}

int xc_study_split(char *buf, char **col, int max)
{
    int n = 0;
    for (char *p = buf; n <= max;) {
        col[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = 0;
        p = c + 1;
    }
    return n;
}

xc_status xc_study_row_key(const xc_study *st, const char *name, const char *label, xc_study_row *row,
                           const char *where, xc_error *err)
{
    row->searcher = row->config = -1;
    for (size_t k = 0; k < st->ns; k++)
        if (!strcmp(st->s[k].name, name)) {
            row->searcher = (int)k;
            for (size_t c = 0; c < st->s[k].ncfg; c++)
                if (!strcmp(st->s[k].cfg[c].label, label))
                    row->config = (int)c;
        }
    if (row->searcher < 0 || row->config < 0)
        return xc_error_set(err, XC_EFORMAT, "%s: searcher \"%s\" configuration \"%s\" is not in the study %s", where,
                            name, label, st->path);
    return XC_OK;
}

xc_status xc_study_row_parse(const xc_study *st, const char *line, xc_study_row *row, const char *where,
                             xc_error *err)
{
    if (st->frb)
        return xc_study_frb_row_parse(st, line, row, where, err);
    char buf[4096];
    char *col[NCOLS + 1];
    xc_status e = xc_study_row_head(st, line, buf, sizeof buf, col, NCOLS, row, where, err);
    if (e)
        return e;
    row->harm_n = atoi(col[COL_HARMN]);
    const int num[] = {COL_SIGMA, COL_Z, COL_TZ, COL_TW, COL_SNRPEAK};
    double *const dst[] = {&row->sigma, &row->z, &row->z_true, &row->w_true, &row->snrpeak};
    return xc_study_row_nums(col, num, dst, 5, where, err);
}

xc_status xc_study_row_head(const xc_study *st, const char *line, char *buf, size_t nbuf, char **col, int ncols,
                            xc_study_row *row, const char *where, xc_error *err)
{
    memset(row, 0, sizeof *row);
    if (strlen(line) >= nbuf)
        return xc_error_set(err, XC_EFORMAT, "%s: row too long", where);
    snprintf(buf, nbuf, "%s", line);
    int n = xc_study_split(buf, col, ncols);
    if (n != ncols)
        return xc_error_set(err, XC_EFORMAT, "%s: %d columns, expected %d", where, n, ncols);
    char *end;
    unsigned long long id = strtoull(col[0], &end, 10);
    if (*end || !col[0][0])
        return xc_error_set(err, XC_EFORMAT, "%s: pulsar \"%s\": not an integer", where, col[0]);
    row->id = id;
    xc_status e = xc_study_row_key(st, col[1], col[2], row, where, err);
    if (e)
        return e;
    row->detected = !strcmp(col[3], "1");
    if (!row->detected && strcmp(col[3], "0"))
        return xc_error_set(err, XC_EFORMAT, "%s: detected \"%s\": must be 0 or 1", where, col[3]);
    return XC_OK;
}

xc_status xc_study_row_nums(char *const *col, const int *idx, double *const *dst, int n, const char *where,
                            xc_error *err)
{
    for (int k = 0; k < n; k++) {
        char *end;
        *dst[k] = strtod(col[idx[k]], &end);
        if (*end || !col[idx[k]][0])
            return xc_error_set(err, XC_EFORMAT, "%s: column %d \"%s\": not a number", where, idx[k] + 1,
                                col[idx[k]]);
    }
    return XC_OK;
}

static int row_cmp(const void *a, const void *b)
{
    const xc_study_row *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->searcher != y->searcher)
        return x->searcher - y->searcher;
    return x->config - y->config;
}

xc_status xc_study_rows_sort(xc_study_rows *rows, xc_error *err)
{
    if (!rows->n)
        return XC_OK;
    qsort(rows->r, rows->n, sizeof *rows->r, row_cmp);
    size_t w = 0;
    for (size_t i = 0; i < rows->n; i++) {
        if (w && !row_cmp(&rows->r[w - 1], &rows->r[i])) {
            if (strcmp(rows->r[w - 1].line, rows->r[i].line))
                return xc_error_set(err, XC_EINVAL, "pulsar %llu, searcher %d, configuration %d: two different rows "
                                    "(journals of different runs?):\n  %s\n  %s",
                                    (unsigned long long)rows->r[i].id, rows->r[i].searcher, rows->r[i].config,
                                    rows->r[w - 1].line, rows->r[i].line);
            free(rows->r[i].line);
            continue;
        }
        rows->r[w++] = rows->r[i];
    }
    rows->n = w;
    return XC_OK;
}

/* A number as the study's CSV files write it: %.*g, "nan" when not finite. */
void xc_study_fmt_num(char *out, size_t n, double v, int digits)
{
    if (isfinite(v))
        snprintf(out, n, "%.*g", digits, v);
    else
        snprintf(out, n, "nan");
}

/* Through a temporary, renamed when complete (core/base/xc_atomic.h). */
xc_status xc_study_write_text(const char *path, const char *text, size_t len, xc_error *err)
{
    return xc_atomic_write(path, text, len, err);
}
