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

static json_t *stat_json(jb *b, const xc_diffstat *s)
{
    json_t *o = new_obj(b);
    put(b, o, "max_abs", num(s->max_abs));
    put(b, o, "mean", num(s->mean));
    put(b, o, "rms", num(s->rms));
    return o;
}

/* One member of a result struct, the object it goes in (group) and the JSON
 * value it becomes, in the objects' order. */
typedef enum { G_CMP, G_DET, G_DET_FOUND, G_TRUTH, G_MATCH } group;
typedef enum { F_NUM, F_COUNT, F_INT, F_BOOL, F_STAT } fkind;
typedef struct {
    group g;
    const char *key;
    fkind kind;
    size_t off;
} field;

#define FIELD(g, type, key, kind, member) {g, key, kind, offsetof(type, member)}

static const field fields[] = {
    FIELD(G_CMP, xc_cmpcands_result, "na", F_COUNT, na),
    FIELD(G_CMP, xc_cmpcands_result, "nb", F_COUNT, nb),
    FIELD(G_CMP, xc_cmpcands_result, "na_above", F_COUNT, na_above),
    FIELD(G_CMP, xc_cmpcands_result, "nb_above", F_COUNT, nb_above),
    FIELD(G_CMP, xc_cmpcands_result, "matched", F_COUNT, npairs),
    FIELD(G_CMP, xc_cmpcands_result, "only_a", F_COUNT, na_only),
    FIELD(G_CMP, xc_cmpcands_result, "only_b", F_COUNT, nb_only),
    FIELD(G_CMP, xc_cmpcands_result, "only_a_failing", F_COUNT, na_only_fail),
    FIELD(G_CMP, xc_cmpcands_result, "only_b_failing", F_COUNT, nb_only_fail),
    FIELD(G_CMP, xc_cmpcands_result, "power_outside", F_COUNT, npower_bad),
    FIELD(G_CMP, xc_cmpcands_result, "sigma_outside", F_COUNT, nsigma_bad),
    FIELD(G_CMP, xc_cmpcands_result, "dr", F_STAT, dr),
    FIELD(G_CMP, xc_cmpcands_result, "dz", F_STAT, dz),
    FIELD(G_CMP, xc_cmpcands_result, "dsigma", F_STAT, dsigma),
    FIELD(G_CMP, xc_cmpcands_result, "dpower_rel", F_STAT, dpower_rel),
    FIELD(G_CMP, xc_cmpcands_result, "agree", F_BOOL, agree),
    FIELD(G_DET, xc_detection, "found", F_BOOL, found),
    FIELD(G_DET, xc_detection, "count", F_COUNT, count),
    FIELD(G_DET_FOUND, xc_detection, "index", F_COUNT, index),
    FIELD(G_DET_FOUND, xc_detection, "n", F_INT, n),
    FIELD(G_DET_FOUND, xc_detection, "sigma", F_NUM, sigma),
    FIELD(G_DET_FOUND, xc_detection, "r", F_NUM, r),
    FIELD(G_DET_FOUND, xc_detection, "z", F_NUM, z),
    FIELD(G_DET_FOUND, xc_detection, "f_hz", F_NUM, f_hz),
    FIELD(G_DET_FOUND, xc_detection, "r_error", F_NUM, dr),
    FIELD(G_DET_FOUND, xc_detection, "absz_error", F_NUM, dz),
    FIELD(G_DET_FOUND, xc_detection, "f_rel_error", F_NUM, df_rel),
    FIELD(G_TRUTH, xc_truth, "f0_hz", F_NUM, f0_hz),
    FIELD(G_TRUTH, xc_truth, "r", F_NUM, r),
    FIELD(G_TRUTH, xc_truth, "z", F_NUM, z),
    FIELD(G_TRUTH, xc_truth, "T_s", F_NUM, T),
    FIELD(G_TRUTH, xc_truth, "rz_from_file", F_BOOL, have_rz),
    FIELD(G_MATCH, xc_truthmatch, "above", F_COUNT, nabove),
    FIELD(G_MATCH, xc_truthmatch, "unrelated", F_COUNT, nother),
    FIELD(G_MATCH, xc_truthmatch, "detected", F_BOOL, pass),
};

/* Puts group g's fields of the struct at base into o, in order. */
static void put_fields(jb *b, json_t *o, const void *base, group g)
{
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        const field *f = &fields[i];
        if (f->g != g)
            continue;
        const char *p = (const char *)base + f->off;
        json_t *v = NULL;
        switch (f->kind) {
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
            v = stat_json(b, (const xc_diffstat *)p);
            break;
        }
        put(b, o, f->key, v);
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
    put_fields(&b, root, r, G_CMP);
    return finish(&b, root);
}

static json_t *det_json(jb *b, const xc_detection *d)
{
    json_t *o = new_obj(b);
    put_fields(b, o, d, G_DET);
    if (d->found)
        put_fields(b, o, d, G_DET_FOUND);
    return o;
}

json_t *xc_truthmatch_json(const xc_truth *t, const xc_truthmatch *m)
{
    jb b = {0};
    json_t *root = new_obj(&b);
    put_fields(&b, root, t, G_TRUTH);
    put(&b, root, "fundamental", det_json(&b, &m->fund));
    put(&b, root, "harmonic", det_json(&b, &m->harm));
    put(&b, root, "subharmonic", det_json(&b, &m->sub));
    put_fields(&b, root, m, G_MATCH);
    return finish(&b, root);
}
