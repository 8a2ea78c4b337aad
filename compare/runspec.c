/* The run specification of xc_runspec.h, read through one table of fields. */
#include "compare/xc_runspec.h"
#include "core/base/xc_fmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/xc_dmplan.h"
#include "core/search/xc_search.h"
#include "synth/xc_synth.h"

typedef enum { RS_STRING, RS_INT, RS_NUMBER, RS_OBJECT, RS_TABLE, RS_ARRAY } rstype;

typedef struct rsfield {
    const char *key;
    rstype type;
    int required;
    size_t off;                   /* destination in the struct being filled */
    double lo, hi;                /* RS_INT, RS_NUMBER: inclusive bounds */
    const struct rsfield *sub;    /* RS_TABLE (same struct), RS_ARRAY (each element's) */
    size_t elem_size, count_off;  /* RS_ARRAY: element struct, where the count goes */
    void (*elem_init)(void *elem);
    /* a further check of the value (a DM plan, a synth object, a convention) */
    xc_status (*check)(const json_t *v, const char *where, xc_error *err);
} rsfield;

/* ---- value checks ---------------------------------------------------------- */

static xc_status check_dmplan(const json_t *v, const char *where, xc_error *err)
{
    xc_dmplan p;
    xc_dmplan_init(&p);
    xc_status st = xc_dmplan_parse(&p, json_string_value(v), where, err);
    xc_dmplan_free(&p);
    return st;
}

static xc_status check_synth(const json_t *v, const char *where, xc_error *err)
{
    xc_synth_params p;
    xc_synth_params_init(&p);
    xc_status st = xc_synth_params_from_json(&p, v, where, err);
    if (!st)
        st = xc_synth_params_check(&p, where, err);
    xc_synth_params_free(&p);
    return st;
}

static xc_status check_convention(const json_t *v, const char *where, xc_error *err)
{
    if (!xc_convention_get(json_string_value(v)))
        return xc_error_set(err, XC_EINVAL, "%s: '%s' is not a known preset", where, json_string_value(v));
    return XC_OK;
}

/* ---- the table ------------------------------------------------------------- */

static void syn_init(void *p)
{
    xc_rs_synthetic *s = p;
    memset(s, 0, sizeof *s);
    s->name = "synthetic";
}

static void real_init(void *p)
{
    xc_rs_real *r = p;
    memset(r, 0, sizeof *r);
    r->name = "real";
    r->line_dm = r->line_freq_hz = NAN;
    r->ps_nsub = 32;
}

static void per_init(void *p)
{
    xc_rs_periodicity *r = p;
    memset(r, 0, sizeof *r);
    r->name = "periodicity";
    xc_psopts o;
    xc_psopts_default(&o);
    r->zmax = o.zmax;
    r->numharm = o.numharm;
    r->sigma = o.sigma;
    r->f_hz = NAN;
}

static void acc_init(void *p)
{
    xc_rs_accel *r = p;
    memset(r, 0, sizeof *r);
    r->name = "accel";
    r->numharm = 1;
    r->sigma = 2.0;
    r->rlo = r->rhi = NAN;
    r->truth_r = r->truth_z = r->truth_w = NAN;
    r->dr = 1.0;
    r->dz = 2.0;
    r->dw = 20.0;
}

#define S(T, key, req, field, chk) {key, RS_STRING, req, offsetof(T, field), 0, 0, NULL, 0, 0, NULL, chk}
#define I(T, key, field, lo, hi) {key, RS_INT, 0, offsetof(T, field), lo, hi, NULL, 0, 0, NULL, NULL}
#define N(T, key, req, field, lo, hi) {key, RS_NUMBER, req, offsetof(T, field), lo, hi, NULL, 0, 0, NULL, NULL}
#define O(T, key, req, field, chk) {key, RS_OBJECT, req, offsetof(T, field), 0, 0, NULL, 0, 0, NULL, chk}
#define IGNORED(key) {key, RS_STRING, 0, (size_t)-1, 0, 0, NULL, 0, 0, NULL, NULL}
#define END {NULL, RS_STRING, 0, 0, 0, 0, NULL, 0, 0, NULL, NULL}

static const rsfield synthetic_fields[] = {
    S(xc_rs_synthetic, "name", 0, name, NULL),
    S(xc_rs_synthetic, "dmplan", 1, dmplan, check_dmplan),
    O(xc_rs_synthetic, "synth", 1, synth, check_synth),
    I(xc_rs_synthetic, "approximate", approximate, 0, 1),
    END,
};

static const rsfield line_fields[] = {
    N(xc_rs_real, "dm", 1, line_dm, 0, 1e6),
    N(xc_rs_real, "freq_hz", 1, line_freq_hz, 1e-9, 1e9),
    END,
};

static const rsfield prepsubband_fields[] = {
    S(xc_rs_real, "dmplan", 1, ps_dmplan, check_dmplan),
    S(xc_rs_real, "root", 1, ps_root, NULL),
    I(xc_rs_real, "nsub", ps_nsub, 1, 65536),
    N(xc_rs_real, "dmsub", 0, ps_dmsub, 0, 1e6),
    END,
};

static const rsfield real_fields[] = {
    S(xc_rs_real, "name", 0, name, NULL),
    S(xc_rs_real, "file", 1, file, NULL),
    S(xc_rs_real, "dmplan", 1, dmplan, check_dmplan),
    {"line", RS_TABLE, 0, 0, 0, 0, line_fields, 0, 0, NULL, NULL},
    I(xc_rs_real, "approximate", approximate, 0, 1),
    {"prepsubband", RS_TABLE, 0, 0, 0, 0, prepsubband_fields, 0, 0, NULL, NULL},
    END,
};

/* zmax and numharm within xc_psopts_check's bounds. */
static const rsfield periodicity_fields[] = {
    S(xc_rs_periodicity, "name", 0, name, NULL),
    S(xc_rs_periodicity, "fft", 0, fft, NULL),
    O(xc_rs_periodicity, "synth", 0, synth, check_synth),
    I(xc_rs_periodicity, "zmax", zmax, 0, 100000),
    I(xc_rs_periodicity, "numharm", numharm, 1, 8),
    N(xc_rs_periodicity, "sigma", 0, sigma, 0, 1e6),
    N(xc_rs_periodicity, "f_hz", 0, f_hz, 1e-9, 1e9),
    IGNORED("note"),
    END,
};

static const rsfield accel_truth_fields[] = {
    N(xc_rs_accel, "r", 1, truth_r, 0, 1e15),
    N(xc_rs_accel, "z", 0, truth_z, -1e6, 1e6),
    N(xc_rs_accel, "w", 0, truth_w, -1e6, 1e6),
    END,
};

/* zmax, wmax and numharm within xc_accel_opts_check's bounds. */
static const rsfield accel_fields[] = {
    S(xc_rs_accel, "name", 0, name, NULL),
    S(xc_rs_accel, "fft", 0, fft, NULL),
    O(xc_rs_accel, "synth", 0, synth, check_synth),
    I(xc_rs_accel, "zmax", zmax, 0, 1200),
    I(xc_rs_accel, "wmax", wmax, 0, 4000),
    I(xc_rs_accel, "numharm", numharm, 1, 32),
    N(xc_rs_accel, "sigma", 0, sigma, 0, 1e6),
    N(xc_rs_accel, "rlo", 0, rlo, 1, 1e15),
    N(xc_rs_accel, "rhi", 0, rhi, 1, 1e15),
    {"truth", RS_TABLE, 0, 0, 0, 0, accel_truth_fields, 0, 0, NULL, NULL},
    N(xc_rs_accel, "dr", 0, dr, 0, 1e6),
    N(xc_rs_accel, "dz", 0, dz, 0, 1e6),
    N(xc_rs_accel, "dw", 0, dw, 0, 1e6),
    S(xc_rs_accel, "accelsearch", 0, accelsearch, NULL),
    IGNORED("note"),
    END,
};

static const rsfield top_fields[] = {
    IGNORED("description"),
    S(xc_runspec, "convention", 0, convention, check_convention),
    {"synthetic", RS_ARRAY, 0, offsetof(xc_runspec, syn), 0, 0, synthetic_fields, sizeof(xc_rs_synthetic),
     offsetof(xc_runspec, nsyn), syn_init, NULL},
    {"real", RS_ARRAY, 0, offsetof(xc_runspec, real), 0, 0, real_fields, sizeof(xc_rs_real),
     offsetof(xc_runspec, nreal), real_init, NULL},
    {"periodicity", RS_ARRAY, 0, offsetof(xc_runspec, per), 0, 0, periodicity_fields, sizeof(xc_rs_periodicity),
     offsetof(xc_runspec, nper), per_init, NULL},
    {"accel", RS_ARRAY, 0, offsetof(xc_runspec, acc), 0, 0, accel_fields, sizeof(xc_rs_accel),
     offsetof(xc_runspec, nacc), acc_init, NULL},
    END,
};

/* ---- the reader ------------------------------------------------------------ */

static const char *type_name(rstype t)
{
    static const char *n[] = {"string", "integer", "number", "object", "object", "array of objects"};
    return n[t];
}

/* What a value is, for "expected X, got Y". */
static void describe(const json_t *v, char *buf, size_t n)
{
    switch (json_typeof(v)) {
    case JSON_STRING: snprintf(buf, n, "string \"%.60s\"", json_string_value(v)); break;
    case JSON_INTEGER: snprintf(buf, n, "integer %lld", (long long)json_integer_value(v)); break;
    case JSON_REAL: snprintf(buf, n, "number %g", json_real_value(v)); break;
    case JSON_TRUE: snprintf(buf, n, "boolean true"); break;
    case JSON_FALSE: snprintf(buf, n, "boolean false"); break;
    case JSON_NULL: snprintf(buf, n, "null"); break;
    case JSON_ARRAY: snprintf(buf, n, "array"); break;
    default: snprintf(buf, n, "object"); break;
    }
}

static int type_ok(rstype t, const json_t *v)
{
    switch (t) {
    case RS_STRING: return json_is_string(v);
    case RS_INT: return json_is_integer(v);
    case RS_NUMBER: return json_is_number(v);
    case RS_OBJECT:
    case RS_TABLE: return json_is_object(v);
    default: return json_is_array(v);
    }
}

static xc_status parse_object(const json_t *obj, const char *src, const char *path, const rsfield *tab, void *dest,
                              xc_error *err);

static xc_status parse_array(const json_t *arr, const char *src, const char *where, const rsfield *f, void *dest,
                             xc_error *err)
{
    size_t n = json_array_size(arr);
    char *elems = n ? calloc(n, f->elem_size) : NULL;
    if (n && !elems)
        return xc_error_set(err, XC_ENOMEM, "%s: %s: out of memory for %zu entries", src, where, n);
    *(void **)((char *)dest + f->off) = elems;
    *(size_t *)((char *)dest + f->count_off) = n;
    for (size_t i = 0; i < n; i++) {
        const json_t *el = json_array_get(arr, i);
        char at[512];
        xc_fmt(at, sizeof at, "%s[%zu]", where, i);
        if (!json_is_object(el)) {
            char got[128];
            describe(el, got, sizeof got);
            return xc_error_set(err, XC_EINVAL, "%s: %s: expected object, got %s", src, at, got);
        }
        f->elem_init(elems + i * f->elem_size);
        xc_status st = parse_object(el, src, at, f->sub, elems + i * f->elem_size, err);
        if (st)
            return st;
    }
    return XC_OK;
}

static xc_status parse_field(const json_t *v, const char *src, const char *where, const rsfield *f, void *dest,
                             xc_error *err)
{
    if (!type_ok(f->type, v)) {
        char got[128];
        describe(v, got, sizeof got);
        return xc_error_set(err, XC_EINVAL, "%s: %s: expected %s, got %s", src, where, type_name(f->type), got);
    }
    if (f->type == RS_INT || f->type == RS_NUMBER) {
        double x = json_number_value(v);
        if (!(x >= f->lo && x <= f->hi))
            return xc_error_set(err, XC_EINVAL, "%s: %s: %g is outside %g..%g", src, where, x, f->lo, f->hi);
    }
    if (f->check) {
        char at[1100];
        xc_fmt(at, sizeof at, "%s: %s", src, where);
        xc_status st = f->check(v, at, err);
        if (st)
            return st;
    }
    if (f->off == (size_t)-1)
        return XC_OK;          /* a comment, read and checked, kept nowhere */
    char *d = (char *)dest + f->off;
    switch (f->type) {
    case RS_STRING: *(const char **)d = json_string_value(v); break;
    case RS_INT: *(int *)d = (int)json_integer_value(v); break;
    case RS_NUMBER: *(double *)d = json_number_value(v); break;
    case RS_OBJECT: *(const json_t **)d = v; break;
    case RS_TABLE: return parse_object(v, src, where, f->sub, dest, err);
    case RS_ARRAY: return parse_array(v, src, where, f, dest, err);
    }
    return XC_OK;
}

static xc_status parse_object(const json_t *obj, const char *src, const char *path, const rsfield *tab, void *dest,
                              xc_error *err)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        const rsfield *f = tab;
        while (f->key && strcmp(f->key, key))
            f++;
        char where[512];
        xc_fmt(where, sizeof where, "%s%s%s", path, *path ? "." : "", key);
        if (!f->key) {
            char known[512] = "";
            for (const rsfield *g = tab; g->key; g++)
                xc_fmt(known + strlen(known), sizeof known - strlen(known), "%s%s", g == tab ? "" : ", ", g->key);
            return xc_error_set(err, XC_EINVAL, "%s: %s: unknown field (known here: %s)", src, where, known);
        }
        xc_status st = parse_field(v, src, where, f, dest, err);
        if (st)
            return st;
    }
    for (const rsfield *f = tab; f->key; f++)
        if (f->required && !json_object_get(obj, f->key))
            return xc_error_set(err, XC_EINVAL, "%s: %s%s%s: missing (a %s is required)", src, path, *path ? "." : "",
                                f->key, type_name(f->type));
    return XC_OK;
}

static void clear(xc_runspec *s)
{
    memset(s, 0, sizeof *s);
    s->convention = "crosscheck";
}

xc_status xc_runspec_from_json(xc_runspec *s, json_t *root, const char *source, xc_error *err)
{
    clear(s);
    snprintf(s->source, sizeof s->source, "%s", source ? source : "run spec");
    if (!json_is_object(root))
        return xc_error_set(err, XC_EINVAL, "%s: expected an object at the top", s->source);
    s->root = json_incref(root);
    xc_status st = parse_object(root, s->source, "", top_fields, s, err);
    for (size_t i = 0; !st && i < s->nper; i++) {
        const xc_rs_periodicity *p = &s->per[i];
        if (!p->fft == !p->synth)
            st = xc_error_set(err, XC_EINVAL, "%s: periodicity[%zu]: give exactly one of fft and synth", s->source,
                              i);
    }
    for (size_t i = 0; !st && i < s->nacc; i++) {
        const xc_rs_accel *a = &s->acc[i];
        if (!a->fft == !a->synth)
            st = xc_error_set(err, XC_EINVAL, "%s: accel[%zu]: give exactly one of fft and synth", s->source, i);
        else if (a->synth && !isnan(a->truth_r))
            st = xc_error_set(err, XC_EINVAL, "%s: accel[%zu].truth: a synthesized pulsar's truth is its truth file's",
                              s->source, i);
        else if (!isnan(a->rlo) && !isnan(a->rhi) && !(a->rhi > a->rlo))
            st = xc_error_set(err, XC_EINVAL, "%s: accel[%zu]: rlo %g is not below rhi %g", s->source, i, a->rlo,
                              a->rhi);
    }
    if (st)
        xc_runspec_free(s);
    return st;
}

xc_status xc_runspec_load(xc_runspec *s, const char *path, xc_error *err)
{
    clear(s);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) {
        if (je.line < 0)    /* jansson: -1 when the file could not be opened */
            return xc_error_set(err, XC_EIO, "%s: %s", path, je.text);
        return xc_error_set(err, XC_EFORMAT, "%s: line %d column %d: %s", path, je.line, je.column, je.text);
    }
    xc_status st = xc_runspec_from_json(s, root, path, err);
    json_decref(root);
    return st;
}

void xc_runspec_free(xc_runspec *s)
{
    free(s->syn);
    free(s->real);
    free(s->per);
    free(s->acc);
    json_decref(s->root);
    clear(s);
}
