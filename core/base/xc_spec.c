/* The table-driven JSON spec reader of xc_spec.h. */
#include "core/base/xc_spec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_fmt.h"

static const char *type_name(xc_spec_type t)
{
    static const char *const n[] = {"string", "integer",          "number", "object", "object",
                                    "array of objects", "boolean", "integer", "array", "value"};
    return n[t];
}

void xc_spec_describe(const json_t *v, char *buf, size_t n)
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

static int type_ok(xc_spec_type t, const json_t *v)
{
    switch (t) {
    case XC_SPEC_STRING: return json_is_string(v);
    case XC_SPEC_INT:
    case XC_SPEC_U64: return json_is_integer(v);
    case XC_SPEC_NUMBER: return json_is_number(v);
    case XC_SPEC_OBJECT:
    case XC_SPEC_TABLE: return json_is_object(v);
    case XC_SPEC_BOOL: return json_is_boolean(v);
    case XC_SPEC_ANY: return 1;
    default: return json_is_array(v);
    }
}

static xc_status read_array(const json_t *arr, const char *src, const char *where, const xc_spec_field *f,
                            void *dest, xc_error *err)
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
            xc_spec_describe(el, got, sizeof got);
            return xc_error_set(err, XC_EINVAL, "%s: %s: expected object, got %s", src, at, got);
        }
        if (f->elem_init)
            f->elem_init(elems + i * f->elem_size);
        xc_status st = xc_spec_read(el, src, at, f->sub, elems + i * f->elem_size, err);
        if (st)
            return st;
    }
    return XC_OK;
}

static xc_status read_field(const json_t *v, const char *src, const char *where, const xc_spec_field *f, void *dest,
                            xc_error *err)
{
    if (!type_ok(f->type, v)) {
        char got[128];
        xc_spec_describe(v, got, sizeof got);
        return xc_error_set(err, XC_EINVAL, "%s: %s: expected %s, got %s", src, where, type_name(f->type), got);
    }
    if (f->type == XC_SPEC_INT || f->type == XC_SPEC_NUMBER || f->type == XC_SPEC_U64) {
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
    if (f->set)
        return f->set(dest, v, src, f, err);
    if (f->off == XC_SPEC_NOWHERE)
        return XC_OK;          /* a comment, read and checked, kept nowhere */
    char *d = (char *)dest + f->off;
    switch (f->type) {
    case XC_SPEC_STRING: *(const char **)d = json_string_value(v); break;
    case XC_SPEC_INT: *(int *)d = (int)json_integer_value(v); break;
    case XC_SPEC_U64: *(uint64_t *)d = (uint64_t)json_integer_value(v); break;
    case XC_SPEC_NUMBER: *(double *)d = json_number_value(v); break;
    case XC_SPEC_BOOL: *(int *)d = json_is_true(v); break;
    case XC_SPEC_OBJECT:
    case XC_SPEC_LIST:
    case XC_SPEC_ANY: *(const json_t **)d = v; break;
    case XC_SPEC_TABLE: return xc_spec_read(v, src, where, f->sub, dest, err);
    case XC_SPEC_ARRAY: return read_array(v, src, where, f, dest, err);
    }
    return XC_OK;
}

xc_status xc_spec_read(const json_t *obj, const char *src, const char *path, const xc_spec_field *tab, void *dest,
                       xc_error *err)
{
    if (!json_is_object(obj)) {
        char got[128];
        xc_spec_describe(obj, got, sizeof got);
        return xc_error_set(err, XC_EINVAL, "%s: %s: expected object, got %s", src, *path ? path : "(top level)",
                            got);
    }
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        const xc_spec_field *f = tab;
        while (f->key && strcmp(f->key, key))
            f++;
        char where[512];
        xc_fmt(where, sizeof where, "%s%s%s", path, *path ? "." : "", key);
        if (!f->key) {
            char known[512] = "";
            for (const xc_spec_field *g = tab; g->key; g++)
                xc_fmt(known + strlen(known), sizeof known - strlen(known), "%s%s", g == tab ? "" : ", ", g->key);
            return xc_error_set(err, XC_EINVAL, "%s: %s: unknown field (known here: %s)", src, where, known);
        }
        xc_status st = read_field(v, src, where, f, dest, err);
        if (st)
            return st;
    }
    for (const xc_spec_field *f = tab; f->key; f++)
        if (f->required && !json_object_get(obj, f->key))
            return xc_error_set(err, XC_EINVAL, "%s: %s%s%s: missing: \"%s\" is required (%s %s)", src, path,
                                *path ? "." : "", f->key, f->key, strchr("aeiou", type_name(f->type)[0]) ? "an" : "a",
                                type_name(f->type));
    return XC_OK;
}

xc_status xc_spec_load(const char *path, size_t flags, json_t **root, xc_error *err)
{
    json_error_t je;
    *root = json_load_file(path, flags, &je);
    if (*root)
        return XC_OK;
    if (je.line < 0)    /* jansson: -1 when the file could not be opened */
        return xc_error_set(err, XC_EIO, "%s: %s", path, je.text);
    return xc_error_set(err, XC_EFORMAT, "%s:%d:%d: invalid JSON: %s", path, je.line, je.column, je.text);
}
