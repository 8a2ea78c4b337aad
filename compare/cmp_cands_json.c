/* cmp_cands_json.c: the JSON forms of xc_cmpcands.h's results: the comparison of two
 * candidate lists and the match against a synthetic pulsar's truth. */
#include "compare/xc_cmpcands.h"

#include <math.h>
#include <stddef.h>

/* ---- JSON ----------------------------------------------------------------- */

typedef struct {
    int bad;
} jb;

/* Sets o[k] = v (taking v); any failure, a NULL o or v included, marks b bad. */
static void put(jb *b, json_t *o, const char *k, json_t *v)
{
    if (!v || json_object_set_new(o, k, v))
        b->bad = 1;
}

/* A new object; NULL marks b bad (and put into it then only marks it again). */
static json_t *new_obj(jb *b)
{
    json_t *o = json_object();
    if (!o)
        b->bad = 1;
    return o;
}

/* root when everything went in, else NULL (root released). */
static json_t *finish(jb *b, json_t *root)
{
    if (b->bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* NaN and infinities are not JSON: they become null. */
static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* One member of a result struct and the JSON value it becomes. */
typedef enum { F_NUM, F_COUNT, F_INT, F_BOOL, F_STAT } fkind;
typedef struct {
    const char *key;
    fkind kind;
    size_t off;
} field;

#define FIELD(type, key, kind, member) {key, kind, offsetof(type, member)}

static const field stat_fields[] = {
    FIELD(xc_diffstat, "max_abs", F_NUM, max_abs),
    FIELD(xc_diffstat, "mean", F_NUM, mean),
    FIELD(xc_diffstat, "rms", F_NUM, rms),
};

static const field cmp_fields[] = {
    FIELD(xc_cmpcands_result, "na", F_COUNT, na),
    FIELD(xc_cmpcands_result, "nb", F_COUNT, nb),
    FIELD(xc_cmpcands_result, "na_above", F_COUNT, na_above),
    FIELD(xc_cmpcands_result, "nb_above", F_COUNT, nb_above),
    FIELD(xc_cmpcands_result, "matched", F_COUNT, npairs),
    FIELD(xc_cmpcands_result, "only_a", F_COUNT, na_only),
    FIELD(xc_cmpcands_result, "only_b", F_COUNT, nb_only),
    FIELD(xc_cmpcands_result, "only_a_failing", F_COUNT, na_only_fail),
    FIELD(xc_cmpcands_result, "only_b_failing", F_COUNT, nb_only_fail),
    FIELD(xc_cmpcands_result, "power_outside", F_COUNT, npower_bad),
    FIELD(xc_cmpcands_result, "sigma_outside", F_COUNT, nsigma_bad),
    FIELD(xc_cmpcands_result, "dr", F_STAT, dr),
    FIELD(xc_cmpcands_result, "dz", F_STAT, dz),
    FIELD(xc_cmpcands_result, "dsigma", F_STAT, dsigma),
    FIELD(xc_cmpcands_result, "dpower_rel", F_STAT, dpower_rel),
    FIELD(xc_cmpcands_result, "agree", F_BOOL, agree),
};

/* Every detection; then, when found, the candidate's. */
static const field det_fields[] = {
    FIELD(xc_detection, "found", F_BOOL, found),
    FIELD(xc_detection, "count", F_COUNT, count),
};
static const field det_found_fields[] = {
    FIELD(xc_detection, "index", F_COUNT, index),
    FIELD(xc_detection, "n", F_INT, n),
    FIELD(xc_detection, "sigma", F_NUM, sigma),
    FIELD(xc_detection, "r", F_NUM, r),
    FIELD(xc_detection, "z", F_NUM, z),
    FIELD(xc_detection, "f_hz", F_NUM, f_hz),
    FIELD(xc_detection, "r_error", F_NUM, dr),
    FIELD(xc_detection, "absz_error", F_NUM, dz),
    FIELD(xc_detection, "f_rel_error", F_NUM, df_rel),
};

static const field truth_fields[] = {
    FIELD(xc_truth, "f0_hz", F_NUM, f0_hz),
    FIELD(xc_truth, "r", F_NUM, r),
    FIELD(xc_truth, "z", F_NUM, z),
    FIELD(xc_truth, "T_s", F_NUM, T),
    FIELD(xc_truth, "rz_from_file", F_BOOL, have_rz),
};

static const field match_fields[] = {
    FIELD(xc_truthmatch, "above", F_COUNT, nabove),
    FIELD(xc_truthmatch, "unrelated", F_COUNT, nother),
    FIELD(xc_truthmatch, "detected", F_BOOL, pass),
};

#define NFIELDS(t) (sizeof t / sizeof *t)

/* Puts the n fields f of the struct at base into o, in order. */
static void put_fields(jb *b, json_t *o, const void *base, const field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = (const char *)base + f[i].off;
        json_t *v = NULL;
        switch (f[i].kind) {
        case F_NUM:
            v = num(*(const double *)p);
            break;
        case F_COUNT:
            v = json_integer((json_int_t)(*(const size_t *)p));
            break;
        case F_INT:
            v = json_integer(*(const int *)p);
            break;
        case F_BOOL:
            v = json_boolean(*(const int *)p);
            break;
        case F_STAT:
            v = new_obj(b);
            put_fields(b, v, p, stat_fields, NFIELDS(stat_fields));
            break;
        }
        put(b, o, f[i].key, v);
    }
}

json_t *xc_cmpcands_json(const xc_cmpcands_result *r, const xc_cmpcands_opts *o)
{
    jb b = {0};
    json_t *root = new_obj(&b), *tol = new_obj(&b);
    put(&b, tol, "dr_bins", num(o->dr));
    put(&b, tol, "dz_bins", num(o->dz));
    put(&b, tol, "same_numharm", json_boolean(!o->anyharm));
    put(&b, tol, "signed_z", json_boolean(r->signed_z));
    put(&b, tol, "sigma_min", num(o->sigma_min));
    put(&b, tol, "rtol_power", num(o->rtol_power));
    put(&b, tol, "dsigma", num(o->dsigma));
    put(&b, root, "tolerances", tol);
    put_fields(&b, root, r, cmp_fields, NFIELDS(cmp_fields));
    return finish(&b, root);
}

static json_t *det_json(jb *b, const xc_detection *d)
{
    json_t *o = new_obj(b);
    put_fields(b, o, d, det_fields, NFIELDS(det_fields));
    if (d->found)
        put_fields(b, o, d, det_found_fields, NFIELDS(det_found_fields));
    return o;
}

json_t *xc_truthmatch_json(const xc_truth *t, const xc_truthmatch *m)
{
    jb b = {0};
    json_t *root = new_obj(&b);
    put_fields(&b, root, t, truth_fields, NFIELDS(truth_fields));
    put(&b, root, "fundamental", det_json(&b, &m->fund));
    put(&b, root, "harmonic", det_json(&b, &m->harm));
    put(&b, root, "subharmonic", det_json(&b, &m->sub));
    put_fields(&b, root, m, match_fields, NFIELDS(match_fields));
    return finish(&b, root);
}
