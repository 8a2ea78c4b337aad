/* xc_cands_util.c: what every candidate file reader shares: the list, the
 * check and derivation of a candidate, the order of a list, and the text
 * helpers (xc_cands_util.h), below the readers of each format. */
#include "core/search/cands/xc_cands_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_grow.h"

void xc_candlist_init(xc_candlist *l)
{
    memset(l, 0, sizeof *l);
}

void xc_candlist_free(xc_candlist *l)
{
    free(l->c);
    xc_candlist_init(l);
}

xc_status xc_candlist_add(xc_candlist *l, const xc_cand *c, xc_error *err)
{
    if (xc_grow_push(&l->c, &l->n, &l->cap, c, sizeof *c, 64))
        return xc_error_set(err, XC_ENOMEM, "candidate list: cannot grow past %zu candidates", l->n);
    return XC_OK;
}

xc_status xc_cand_check(const xc_cand *c, const char *where, xc_error *err)
{
    if (!isfinite(c->r) || c->r < 0 || c->r > XC_CAND_MAX_R)
        return xc_error_set(err, XC_EFORMAT, "%s: r: %g is outside 0..2^52 bins", where, c->r);
    if (!isfinite(c->z) || fabs(c->z) > XC_CAND_MAX_ZW)
        return xc_error_set(err, XC_EFORMAT, "%s: z: %g is outside -1e9..1e9", where, c->z);
    if (!isfinite(c->w) || fabs(c->w) > XC_CAND_MAX_ZW)
        return xc_error_set(err, XC_EFORMAT, "%s: w: %g is outside -1e9..1e9", where, c->w);
    if (c->numharm < 0 || c->numharm > 1024)
        return xc_error_set(err, XC_EFORMAT, "%s: numharm: %d is outside 0..1024", where, c->numharm);
    if (c->width < 0 || c->width > (1 << 30))
        return xc_error_set(err, XC_EFORMAT, "%s: width: %d is outside 0..2^30", where, c->width);
    return XC_OK;
}

/* NaN sigmas sort last; every remaining tie is broken so the order never
 * depends on qsort's algorithm. */
static int cmp_desc_nan_last(double a, double b)
{
    int na = isnan(a), nb = isnan(b);
    if (na || nb)
        return na - nb;
    return (a < b) - (a > b);
}

static int cmp_asc(double a, double b)
{
    int na = isnan(a), nb = isnan(b);
    if (na || nb)
        return na - nb;
    return (a > b) - (a < b);
}

static int cand_cmp(const void *pa, const void *pb)
{
    const xc_cand *a = pa, *b = pb;
    int c;
    if ((c = cmp_desc_nan_last(a->sigma, b->sigma)) || (c = cmp_asc(a->r, b->r)) ||
        (c = (a->numharm > b->numharm) - (a->numharm < b->numharm)) || (c = cmp_asc(a->z, b->z)) ||
        (c = cmp_desc_nan_last(a->power, b->power)) || (c = (a->width > b->width) - (a->width < b->width)))
        return c;
    return 0;
}

void xc_candlist_sort(xc_candlist *l)
{
    if (l->n > 1)
        qsort(l->c, l->n, sizeof *l->c, cand_cmp);
}

void xc_cand_derive(xc_cand *c, double T)
{
    if (!(T > 0) || !isfinite(T)) {
        c->f_hz = c->fdot_hz_s = c->accel_m_s2 = NAN;
        return;
    }
    c->f_hz = c->r / T;
    c->fdot_hz_s = c->z / (T * T);
    c->accel_m_s2 = c->f_hz != 0 ? c->fdot_hz_s * XC_SOL / c->f_hz : NAN;
}

void xc_cands_chomp_(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

/* Whole-string numbers; "nan", "-nan" and "inf" are accepted as strtod does. */
int xc_cands_parse_double_(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || (errno == ERANGE && fabs(v) > 1))
        return -1;
    *out = v;
    return 0;
}

int xc_cands_parse_long_(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno)
        return -1;
    *out = v;
    return 0;
}

int xc_cands_parse_int_(const char *s, int *out)
{
    long v;
    if (xc_cands_parse_long_(s, &v) || v < -2147483647L || v > 2147483647L)
        return -1;
    *out = (int)v;
    return 0;
}

/* T from a row's r and f (our CSV and PRESTO store f = r/T, not T itself). */
double xc_cands_T_from_rows_(const xc_candlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (isfinite(l->c[i].r) && isfinite(l->c[i].f_hz) && l->c[i].f_hz > 0 && l->c[i].r > 0)
            return l->c[i].r / l->c[i].f_hz;
    return 0;
}

void xc_cands_reset_(xc_candlist *l, const char *source)
{
    xc_candlist_free(l);
    snprintf(l->source, sizeof l->source, "%s", source);
}

/* Splits on blanks; returns the token count (at most max stored). */
int xc_cands_split_ws_(char *s, char **tok, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n < max)
            tok[n] = t;
        n++;
    }
    return n;
}
