/* xc_spec.h: one strict reader for the JSON specs (run, study, synth and
 * population specs), driven by a table of fields, in the manner of the
 * keyword table of core/io/xc_filterbank.c: each field has its JSON key, its
 * type, whether it is required, its bounds and where it goes.
 *
 * Types are strict: an integer field takes only a JSON integer, a number
 * field an integer or a real, a string field only a string, a boolean only
 * true or false.  An unknown key, a wrong type, a value out of bounds or a
 * missing required key is XC_EINVAL with a message naming the file, the
 * key's JSON path and the value, e.g.
 *   spec.json: periodicity[0].zmax: expected integer, got string "64" */
#ifndef XC_SPEC_H
#define XC_SPEC_H

#include <stddef.h>

#include <jansson.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    XC_SPEC_STRING,   /* const char * (into the JSON, which the caller keeps) */
    XC_SPEC_INT,      /* int, within [lo, hi] */
    XC_SPEC_NUMBER,   /* double, within [lo, hi] */
    XC_SPEC_OBJECT,   /* const json_t *, an object */
    XC_SPEC_TABLE,    /* an object whose fields (sub) go into the same struct */
    XC_SPEC_ARRAY,    /* an array of objects: a calloc'd array of elem_size structs (sub), count at count_off */
    XC_SPEC_BOOL,     /* int: 1 for true, 0 for false */
    XC_SPEC_U64,      /* uint64_t, an integer within [lo, hi] */
    XC_SPEC_LIST,     /* const json_t *, an array */
    XC_SPEC_ANY       /* const json_t *, any value (the check, if any, judges it) */
} xc_spec_type;

/* Where a field read and checked but kept nowhere goes (XC_SPEC_IGNORED:
 * a comment, a string). */
#define XC_SPEC_NOWHERE ((size_t)-1)

typedef struct xc_spec_field {
    const char *key;              /* NULL ends a table */
    xc_spec_type type;
    int required;
    size_t off;                   /* destination in the struct being filled, or XC_SPEC_NOWHERE */
    double lo, hi;                /* INT, NUMBER, U64: inclusive bounds */
    const struct xc_spec_field *sub;   /* TABLE (same struct), ARRAY (each element's) */
    size_t elem_size, count_off;  /* ARRAY: element struct, where the count (size_t) goes */
    void (*elem_init)(void *elem);
    /* a further check of the value (where: "FILE: PATH"), before it is stored */
    xc_status (*check)(const json_t *v, const char *where, xc_error *err);
    /* a store of its own (a conversion, a check that names the field its own
     * way) instead of the plain one: given the struct, the value (of the
     * right type, within the bounds), src and the field, with its data */
    xc_status (*set)(void *dest, const json_t *v, const char *src, const struct xc_spec_field *f, xc_error *err);
    const void *data;
} xc_spec_field;

/* Table rows: T the destination struct, key, required, member, bounds. */
#define XC_SPEC_S(T, key, req, field, chk) \
    {key, XC_SPEC_STRING, req, offsetof(T, field), 0, 0, NULL, 0, 0, NULL, chk}
#define XC_SPEC_I(T, key, req, field, lo, hi) \
    {key, XC_SPEC_INT, req, offsetof(T, field), lo, hi, NULL, 0, 0, NULL, NULL}
#define XC_SPEC_N(T, key, req, field, lo, hi) \
    {key, XC_SPEC_NUMBER, req, offsetof(T, field), lo, hi, NULL, 0, 0, NULL, NULL}
#define XC_SPEC_U(T, key, req, field, lo, hi) \
    {key, XC_SPEC_U64, req, offsetof(T, field), lo, hi, NULL, 0, 0, NULL, NULL}
#define XC_SPEC_B(T, key, req, field) \
    {key, XC_SPEC_BOOL, req, offsetof(T, field), 0, 0, NULL, 0, 0, NULL, NULL}
#define XC_SPEC_O(T, key, req, field, chk) \
    {key, XC_SPEC_OBJECT, req, offsetof(T, field), 0, 0, NULL, 0, 0, NULL, chk}
#define XC_SPEC_L(T, key, req, field) \
    {key, XC_SPEC_LIST, req, offsetof(T, field), 0, 0, NULL, 0, 0, NULL, NULL}
#define XC_SPEC_J(T, key, req, field) \
    {key, XC_SPEC_ANY, req, offsetof(T, field), 0, 0, NULL, 0, 0, NULL, NULL}
#define XC_SPEC_T(key, req, sub) \
    {key, XC_SPEC_TABLE, req, 0, 0, 0, sub, 0, 0, NULL, NULL}
#define XC_SPEC_IGNORED(key) \
    {key, XC_SPEC_STRING, 0, XC_SPEC_NOWHERE, 0, 0, NULL, 0, 0, NULL, NULL}
#define XC_SPEC_END {NULL, XC_SPEC_STRING, 0, 0, 0, 0, NULL, 0, 0, NULL, NULL}

/* Reads the object obj into dest through the table: src names the file,
 * path the object's JSON path ("" at the top).  Stops at the first error.
 * ARRAY fields allocate; the caller frees them (also after an error). */
xc_status xc_spec_read(const json_t *obj, const char *src, const char *path, const xc_spec_field *tab, void *dest,
                       xc_error *err);

/* Loads a JSON file (flags: jansson's, e.g. JSON_REJECT_DUPLICATES):
 * XC_EIO when it cannot be opened, XC_EFORMAT "FILE:LINE:COLUMN: invalid
 * JSON: ..." when it is not JSON. */
xc_status xc_spec_load(const char *path, size_t flags, json_t **root, xc_error *err);

/* What a value is, for "expected X, got Y": `string "abc"`, `integer 3`. */
void xc_spec_describe(const json_t *v, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
