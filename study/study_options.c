/* A study's searcher options: the JSON names are the command-line names of
 * `crosscheck pulscan` and `crosscheck accel` (which follow PRESTO's), and
 * each value is checked as the command checks it. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "study/study_internal.h"

typedef enum { K_INT, K_NUM, K_BOOL, K_CHOICE, K_BINS } kind;

typedef struct {
    const char *name;
    kind k;
    long lo, hi;            /* K_INT, K_BINS */
    const char *choices;    /* K_CHOICE: "a|b" */
} optdef;

/* Order = the order of a configuration's label. */
static const optdef ps_opts[] = {
    {"zmax", K_INT, 0, 100000, NULL},      {"numharm", K_INT, 1, 8, NULL},
    {"sigma", K_NUM, 0, 0, NULL},          {"zstep", K_INT, 1, 100000, NULL},
    {"zlog", K_BOOL, 0, 0, NULL},          {"chunkwidth", K_BINS, 1, 1L << 40, NULL},
    {"normalizechunkwidth", K_BINS, 16, 1L << 40, NULL},
    {"rblock", K_BOOL, 0, 0, NULL},        {"nosift", K_BOOL, 0, 0, NULL},
    {"norm", K_CHOICE, 0, 0, "exact|mom"}, {"logp", K_CHOICE, 0, 0, "exact|poly"},
    {NULL, K_INT, 0, 0, NULL},
};

static const optdef ac_opts[] = {
    {"zmax", K_INT, 0, 1200, NULL},   {"wmax", K_INT, 0, 4000, NULL},  {"numharm", K_INT, 1, 32, NULL},
    {"sigma", K_NUM, 0, 0, NULL},     {"flo", K_NUM, 0, 0, NULL},      {"fhi", K_NUM, 0, 0, NULL},
    {"rlo", K_NUM, 0, 0, NULL},       {"rhi", K_NUM, 0, 0, NULL},
    {"preset", K_CHOICE, 0, 0, "exact|presto"}, {"normwidth", K_BINS, 16, 1L << 32, NULL},
    {"highacc", K_BOOL, 0, 0, NULL},
    {NULL, K_INT, 0, 0, NULL},
};

static const optdef *table(xc_family f) { return f == XC_FAMILY_ACCEL ? ac_opts : ps_opts; }

int xc_study_opt_rank(xc_family f, const char *name)
{
    const optdef *t = table(f);
    for (int i = 0; t[i].name; i++)
        if (!strcmp(t[i].name, name))
            return i;
    return -1;
}

/* The names, for messages. */
static void names(xc_family f, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (const optdef *d = table(f); d->name && len < n; d++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", d->name);
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
    int k = xc_study_opt_rank(f, name);
    if (k < 0) {
        char list[400];
        names(f, list, sizeof list);
        return xc_error_set(err, XC_EINVAL, "%s: unknown %s option (expected one of %s)", where,
                            xc_family_name(f), list);
    }
    const optdef *d = &table(f)[k];
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
    if (f == XC_FAMILY_PULSCAN) {
        xc_psopts *o = &c->opts.ps;
        if (!strcmp(name, "zmax"))
            o->zmax = (int)iv;
        else if (!strcmp(name, "numharm"))
            o->numharm = (int)iv;
        else if (!strcmp(name, "sigma"))
            o->sigma = dv;
        else if (!strcmp(name, "zstep"))
            o->zstep = (int)iv;
        else if (!strcmp(name, "zlog"))
            o->zlog = (int)iv;
        else if (!strcmp(name, "chunkwidth"))
            o->chunkwidth = (size_t)iv;
        else if (!strcmp(name, "normalizechunkwidth"))
            o->normwidth = (size_t)iv;
        else if (!strcmp(name, "rblock"))
            o->rblock = (int)iv;
        else if (!strcmp(name, "nosift"))
            o->nosift = (int)iv;
        else if (!strcmp(name, "norm"))
            o->norm = iv ? XC_NORM_MOM : XC_NORM_EXACT;
        else if (!strcmp(name, "logp"))
            o->logp = iv ? XC_LOGP_POLY : XC_LOGP_EXACT;
        c->zmax = o->zmax;
        c->numharm = o->numharm;
    } else {
        xc_accel_opts *o = &c->opts.ac;
        if (!strcmp(name, "zmax"))
            o->zmax = (int)iv;
        else if (!strcmp(name, "wmax"))
            o->wmax = (int)iv;
        else if (!strcmp(name, "numharm"))
            o->numharm = (int)iv;
        else if (!strcmp(name, "sigma"))
            o->sigma = dv;
        else if (!strcmp(name, "flo"))
            o->flo = dv;
        else if (!strcmp(name, "fhi"))
            o->fhi = dv;
        else if (!strcmp(name, "rlo"))
            o->rlo = dv;
        else if (!strcmp(name, "rhi"))
            o->rhi = dv;
        else if (!strcmp(name, "preset"))
            o->preset = iv ? XC_ACCEL_PRESTO : XC_ACCEL_EXACT;
        else if (!strcmp(name, "normwidth"))
            o->normwidth = (size_t)iv;
        else if (!strcmp(name, "highacc"))
            o->acc = iv ? XC_ACCEL_HIGHACC : XC_ACCEL_LOWACC;
        c->zmax = o->zmax;
        c->numharm = o->numharm;
    }
    return XC_OK;
}

void xc_study_config_init(xc_family f, xc_study_config *c)
{
    memset(c, 0, sizeof *c);
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
