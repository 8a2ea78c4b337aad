/* xc_spfile_util.c: the line loop, fields and checks every single-pulse
 * file reader shares (core/sp/files/xc_spfile_util.h). */
#include "core/sp/files/xc_spfile_util.h"

#include "core/base/xc_lines.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reset(xc_spcandlist *l, const char *source)
{
    l->n = 0;
    l->tsamp = 0;
    snprintf(l->source, sizeof l->source, "%s", source);
}

/* One line for rd->line, trailing blanks removed. */
static xc_status one_line(void *user, char *line, int lineno, xc_error *err)
{
    xc_spreader *rd = user;
    size_t len = strlen(line);
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
        line[--len] = '\0';
    return rd->line(rd, line, lineno, err);
}

xc_status xc_spread_lines_(xc_spreader *rd, const char *source, xc_error *err)
{
    reset(rd->l, source);
    xc_status st = xc_lines_each(rd->path, one_line, rd, NULL, err);
    if (st)
        reset(rd->l, source);
    return st;
}

xc_status xc_spcolumns_(const xc_spreader *rd, char *line, int lineno, char **tok, int ncol, const char *what,
                        xc_error *err)
{
    int n = xc_spsplit_ws_(line, tok, ncol);
    if (n != ncol)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: %d columns, %s", rd->path, lineno, n, what);
    return XC_OK;
}

int xc_spsplit_(char *s, const char *seps, char **tok, int max)
{
    int n = 0;
    for (char *p = s;;) {
        if (n < max)
            tok[n] = p;
        n++;
        p += strcspn(p, seps);
        if (!*p)
            break;
        *p++ = '\0';
    }
    return n;
}

int xc_spsplit_ws_(char *s, char **tok, int max)
{
    int n = 0;
    for (char *p = s + strspn(s, " \t"); *p; p += strspn(p, " \t")) {
        if (n < max)
            tok[n] = p;
        n++;
        p += strcspn(p, " \t");
        if (*p)
            *p++ = '\0';
    }
    return n;
}

xc_status xc_spfield_double_(const char *path, int lineno, const char *col, const char *s, double *out,
                             xc_error *err)
{
    char *end;
    errno = 0;
    double v = *s ? strtod(s, &end) : 0;
    if (!*s || *end || !isfinite(v))
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: column %s: '%.40s' is not a finite number", path, lineno,
                            col, s);
    *out = v;
    return XC_OK;
}

xc_status xc_spfield_int64_(const char *path, int lineno, const char *col, const char *s, int64_t *out,
                            xc_error *err)
{
    char *end;
    errno = 0;
    long long v = *s ? strtoll(s, &end, 10) : 0;
    if (!*s || *end || errno)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: column %s: '%.40s' is not an integer%s", path, lineno, col,
                            s, errno == ERANGE ? " in range" : "");
    *out = v;
    return XC_OK;
}

xc_status xc_spfield_int32_(const char *path, int lineno, const char *col, const char *s, int32_t *out,
                            xc_error *err)
{
    int64_t v;
    xc_status st = xc_spfield_int64_(path, lineno, col, s, &v, err);
    if (st)
        return st;
    if (v < INT32_MIN || v > INT32_MAX)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: column %s: %lld is outside the 32-bit range", path, lineno,
                            col, (long long)v);
    *out = (int32_t)v;
    return XC_OK;
}

xc_status xc_spcand_check(const xc_spcand *c, const char *where, xc_error *err)
{
    if (!isfinite(c->snr) || fabs(c->snr) > 1e7)
        return xc_error_set(err, XC_EFORMAT, "%s: snr: %g is outside -1e7..1e7", where, c->snr);
    if (!isfinite(c->time_s) || fabs(c->time_s) > 1e9)
        return xc_error_set(err, XC_EFORMAT, "%s: time: %g s is outside -1e9..1e9 s", where, c->time_s);
    if (c->width < 1 || c->width > (1 << 30))
        return xc_error_set(err, XC_EFORMAT, "%s: width: %d is outside 1..2^30 samples", where, (int)c->width);
    /* a box may start before the data (PRESTO pads the first chunk with zeros) */
    if (c->sample < -(int64_t)c->width || c->sample > ((int64_t)1 << 53))
        return xc_error_set(err, XC_EFORMAT, "%s: sample: %lld is outside -width..2^53", where, (long long)c->sample);
    if (!isfinite(c->dm) || c->dm < -1e4 || c->dm > 1e6)
        return xc_error_set(err, XC_EFORMAT, "%s: dm: %g is outside -1e4..1e6 pc cm^-3", where, c->dm);
    if (c->dm_index < 0)
        return xc_error_set(err, XC_EFORMAT, "%s: dm_index: %d is negative", where, (int)c->dm_index);
    if (c->members < 1)
        return xc_error_set(err, XC_EFORMAT, "%s: members: %lld is below 1", where, (long long)c->members);
    if (c->begin < c->sample - ((int64_t)1 << 40) || c->begin > c->sample || c->end < c->sample + c->width ||
        c->end > c->sample + ((int64_t)1 << 40))
        return xc_error_set(err, XC_EFORMAT, "%s: begin..end: %lld..%lld does not hold the box %lld..%lld", where,
                            (long long)c->begin, (long long)c->end, (long long)c->sample,
                            (long long)(c->sample + c->width));
    if (c->dm_lo > c->dm_index || c->dm_hi < c->dm_index || c->dm_lo < 0)
        return xc_error_set(err, XC_EFORMAT, "%s: dm_lo..dm_hi: %d..%d does not hold dm_index %d", where,
                            (int)c->dm_lo, (int)c->dm_hi, (int)c->dm_index);
    return XC_OK;
}

xc_status xc_spadd_checked_(xc_spcandlist *l, const xc_spcand *c, const char *path, int lineno, xc_error *err)
{
    char where[320];
    snprintf(where, sizeof where, "%s: line %d", path, lineno);
    xc_status st = xc_spcand_check(c, where, err);
    return st ? st : xc_spcandlist_add(l, c, err);
}

static int64_t ref_sample(const xc_spcand *c, int centred)
{
    return c->sample + (centred ? c->width / 2 : 0);
}

void xc_spfinish_(xc_spcandlist *l, int centred, double tol_abs, double tol_rel)
{
    l->tsamp = 0;
    const xc_spcand *best = NULL;
    for (size_t i = 0; i < l->n; i++)
        if (ref_sample(&l->c[i], centred) > 0 && (!best || ref_sample(&l->c[i], centred) > ref_sample(best, centred)))
            best = &l->c[i];
    double dt = best ? best->time_s / (double)ref_sample(best, centred) : 0;
    int same = best != NULL;
    for (size_t i = 0; i < l->n && same; i++) {
        const xc_spcand *c = &l->c[i];
        same = fabs(c->time_s - (double)ref_sample(c, centred) * dt) <= tol_abs + tol_rel * fabs(c->time_s);
    }
    l->tsamp = same ? dt : 0;
    if (!centred)
        return;
    for (size_t i = 0; i < l->n; i++) {
        xc_spcand *c = &l->c[i];
        int64_t centre = ref_sample(c, 1);
        if (l->tsamp > 0)
            c->time_s = (double)c->sample * l->tsamp;
        else if (centre > 0)
            c->time_s *= (double)c->sample / (double)centre;
    }
}

double xc_spcentre_time_(const xc_spcandlist *l, const xc_spcand *c)
{
    const int64_t centre = c->sample + c->width / 2;
    if (l->tsamp > 0)
        return (double)centre * l->tsamp;
    return c->sample > 0 ? c->time_s * (double)centre / (double)c->sample : c->time_s;
}
