/* A study's searcher options: the JSON names are the command-line names of
 * `crosscheck pulscan` and `crosscheck accel` (which follow PRESTO's), and
 * each value is checked as the command checks it. */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "study/spec/study_internal.h"

typedef enum { K_INT, K_NUM, K_BOOL, K_CHOICE, K_BINS } kind;

/* How the checked value is stored: int, size_t, double, or the enum value
 * e[0] or e[1] for choice (or boolean) 0 or 1. */
typedef enum { S_INT, S_SIZE, S_NUM, S_ENUM } store;

typedef struct {
    xc_family f;
    const char *name;
    kind k;
    long lo, hi;            /* K_INT, K_BINS */
    const char *choices;    /* K_CHOICE: "a|b" */
    size_t off;             /* of the member in xc_psopts or xc_accel_opts */
    store s;
    int e[2];               /* S_ENUM */
} optdef;

#define PS(m) offsetof(xc_psopts, m)
#define AC(m) offsetof(xc_accel_opts, m)

/* Per family, order = the order of a configuration's label. */
static const optdef opts[] = {
    {XC_FAMILY_PULSCAN, "zmax", K_INT, 0, 100000, NULL, PS(zmax), S_INT, {0, 0}},
    {XC_FAMILY_PULSCAN, "numharm", K_INT, 1, 8, NULL, PS(numharm), S_INT, {0, 0}},
    {XC_FAMILY_PULSCAN, "sigma", K_NUM, 0, 0, NULL, PS(sigma), S_NUM, {0, 0}},
    {XC_FAMILY_PULSCAN, "zstep", K_INT, 1, 100000, NULL, PS(zstep), S_INT, {0, 0}},
    {XC_FAMILY_PULSCAN, "zlog", K_BOOL, 0, 0, NULL, PS(zlog), S_INT, {0, 0}},
    {XC_FAMILY_PULSCAN, "chunkwidth", K_BINS, 1, 1L << 40, NULL, PS(chunkwidth), S_SIZE, {0, 0}},
    {XC_FAMILY_PULSCAN, "normalizechunkwidth", K_BINS, 16, 1L << 40, NULL, PS(normwidth), S_SIZE, {0, 0}},
    {XC_FAMILY_PULSCAN, "rblock", K_BOOL, 0, 0, NULL, PS(rblock), S_INT, {0, 0}},
    {XC_FAMILY_PULSCAN, "nosift", K_BOOL, 0, 0, NULL, PS(nosift), S_INT, {0, 0}},
    {XC_FAMILY_PULSCAN, "norm", K_CHOICE, 0, 0, "exact|mom", PS(norm), S_ENUM, {XC_NORM_EXACT, XC_NORM_MOM}},
    {XC_FAMILY_PULSCAN, "logp", K_CHOICE, 0, 0, "exact|poly", PS(logp), S_ENUM, {XC_LOGP_EXACT, XC_LOGP_POLY}},
    {XC_FAMILY_ACCEL, "zmax", K_INT, 0, 1200, NULL, AC(zmax), S_INT, {0, 0}},
    {XC_FAMILY_ACCEL, "wmax", K_INT, 0, 4000, NULL, AC(wmax), S_INT, {0, 0}},
    {XC_FAMILY_ACCEL, "numharm", K_INT, 1, 32, NULL, AC(numharm), S_INT, {0, 0}},
    {XC_FAMILY_ACCEL, "sigma", K_NUM, 0, 0, NULL, AC(sigma), S_NUM, {0, 0}},
    {XC_FAMILY_ACCEL, "flo", K_NUM, 0, 0, NULL, AC(flo), S_NUM, {0, 0}},
    {XC_FAMILY_ACCEL, "fhi", K_NUM, 0, 0, NULL, AC(fhi), S_NUM, {0, 0}},
    {XC_FAMILY_ACCEL, "rlo", K_NUM, 0, 0, NULL, AC(rlo), S_NUM, {0, 0}},
    {XC_FAMILY_ACCEL, "rhi", K_NUM, 0, 0, NULL, AC(rhi), S_NUM, {0, 0}},
    {XC_FAMILY_ACCEL, "preset", K_CHOICE, 0, 0, "exact|presto", AC(preset), S_ENUM, {XC_ACCEL_EXACT, XC_ACCEL_PRESTO}},
    {XC_FAMILY_ACCEL, "normwidth", K_BINS, 16, 1L << 32, NULL, AC(normwidth), S_SIZE, {0, 0}},
    {XC_FAMILY_ACCEL, "highacc", K_BOOL, 0, 0, NULL, AC(acc), S_ENUM, {XC_ACCEL_LOWACC, XC_ACCEL_HIGHACC}},
};

#define NOPTS (sizeof opts / sizeof *opts)

/* Family f's option name and its rank among f's options; NULL if none. */
static const optdef *find_opt(xc_family f, const char *name, int *rank)
{
    int r = 0;
    for (size_t i = 0; i < NOPTS; i++) {
        if (opts[i].f != f)
            continue;
        if (!strcmp(opts[i].name, name)) {
            *rank = r;
            return &opts[i];
        }
        r++;
    }
    *rank = -1;
    return NULL;
}

int xc_study_opt_rank(xc_family f, const char *name)
{
    if (f == XC_FAMILY_SINGLEPULSE)
        return xc_study_spopt_rank(name);
    int r;
    find_opt(f, name, &r);
    return r;
}

/* The names, for messages. */
static void names(xc_family f, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < NOPTS && len < n; i++)
        if (opts[i].f == f)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", opts[i].name);
}

static int choice_index(const char *choices, const char *v)
{
    int i = 0;
    const char *p = choices;
    size_t lv = strlen(v);
    while (*p) {
        const char *e = strchr(p, '|');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == lv && !strncmp(p, v, l))
            return i;
        i++;
        if (!e)
            break;
        p = e + 1;
    }
    return -1;
}

xc_status xc_study_opt_apply(xc_family f, const char *name, const json_t *v, const char *where,
                             xc_study_config *c, char *text, size_t ntext, xc_error *err)
{
    if (f == XC_FAMILY_SINGLEPULSE)
        return xc_study_spopt_apply(name, v, where, &c->sp, text, ntext, err);
    int k;
    const optdef *d = find_opt(f, name, &k);
    if (!d) {
        char list[400];
        names(f, list, sizeof list);
        return xc_error_set(err, XC_EINVAL, "%s: unknown %s option (expected one of %s)", where,
                            xc_family_name(f), list);
    }
    long iv = 0;
    double dv = 0;
    switch (d->k) {
    case K_INT:
    case K_BINS:
        if (!json_is_integer(v) || json_integer_value(v) < d->lo || json_integer_value(v) > d->hi)
            return xc_error_set(err, XC_EINVAL, "%s: must be an integer in %ld..%ld", where, d->lo, d->hi);
        iv = (long)json_integer_value(v);
        snprintf(text, ntext, "%ld", iv);
        break;
    case K_NUM:
        if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
            return xc_error_set(err, XC_EINVAL, "%s: must be a finite number >= 0", where);
        dv = json_number_value(v);
        snprintf(text, ntext, "%.10g", dv);
        break;
    case K_BOOL:
        if (!json_is_boolean(v))
            return xc_error_set(err, XC_EINVAL, "%s: must be true or false", where);
        iv = json_is_true(v);
        snprintf(text, ntext, "%s", iv ? "true" : "false");
        break;
    case K_CHOICE:
        if (!json_is_string(v) || (iv = choice_index(d->choices, json_string_value(v))) < 0)
            return xc_error_set(err, XC_EINVAL, "%s: must be one of the strings %s", where, d->choices);
        snprintf(text, ntext, "%s", json_string_value(v));
        break;
    }
    char *m = (f == XC_FAMILY_PULSCAN ? (char *)&c->opts.ps : (char *)&c->opts.ac) + d->off;
    switch (d->s) {
    case S_INT:
        *(int *)m = (int)iv;
        break;
    case S_SIZE:
        *(size_t *)m = (size_t)iv;
        break;
    case S_NUM:
        *(double *)m = dv;
        break;
    case S_ENUM:
        *(int *)m = d->e[iv ? 1 : 0];
        break;
    }
    xc_psearch_opts_get(&c->opts, &c->zmax, &c->numharm, NULL);
    return XC_OK;
}

void xc_study_config_init(xc_family f, xc_study_config *c)
{
    memset(c, 0, sizeof *c);
    if (f == XC_FAMILY_SINGLEPULSE) {
        xc_study_spconf_init(&c->sp);
        return;
    }
    xc_psearch_opts_default(&c->opts, f);
    xc_psearch_opts_get(&c->opts, &c->zmax, &c->numharm, NULL);
}

xc_status xc_study_config_check(const xc_study_config *c, const char *where, xc_error *err)
{
    xc_error e;
    xc_error_clear(&e);
    xc_status st = xc_psearch_opts_check(&c->opts, &e);
    if (st)
        return xc_error_set(err, st, "%s (%s): %s", where, c->label[0] ? c->label : "defaults", e.msg);
    return XC_OK;
}
