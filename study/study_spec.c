/* Reading a study spec (xc_study.h): strict, every error names the file and
 * the JSON path of the field. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_hash.h"
#include "study/study_internal.h"

/* Every key of o must be in allowed (NULL-terminated). */
static xc_status only_keys(const json_t *o, const char *const *allowed, const char *file, const char *where,
                           xc_error *err)
{
    if (!json_is_object(o))
        return xc_error_set(err, XC_EINVAL, "%s: %s: must be an object", file, where);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        int ok = 0;
        for (size_t i = 0; allowed[i]; i++)
            ok |= !strcmp(k, allowed[i]);
        if (!ok) {
            char list[300];
            size_t len = 0;
            list[0] = 0;
            for (size_t i = 0; allowed[i] && len < sizeof list; i++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", allowed[i]);
            return xc_error_set(err, XC_EINVAL, "%s: %s%s%s: unknown field (expected %s)", file, where,
                                where[0] ? "." : "", k, list);
        }
    }
    return XC_OK;
}

static const char *const top_keys[] = {"description", "population", "data", "searchers", "detection", "baseline", NULL};
static const char *const pop_keys[] = {"spec", "n", "seed", "fixed", "draw", NULL};
static const char *const srch_keys[] = {"name", "family", "impl", "options", "sweep", NULL};
static const char *const base_keys[] = {"family", "impl", "options", "sigma", NULL};
static const char *const det_keys[] = {"sigma", "ftol", "harmonics", NULL};

static xc_status family_of(const json_t *v, const char *file, const char *where, xc_family *f, xc_error *err)
{
    const char *s = json_string_value(v);
    if (s && !strcmp(s, "pulscan"))
        *f = XC_FAMILY_PULSCAN;
    else if (s && !strcmp(s, "accel"))
        *f = XC_FAMILY_ACCEL;
    else
        return xc_error_set(err, XC_EINVAL, "%s: %s: must be \"pulscan\" or \"accel\"", file, where);
    return XC_OK;
}

static xc_status pick_impl(const xc_registry *reg, xc_family f, const json_t *name, const char *file,
                           const char *where, const xc_impl **out, xc_error *err)
{
    char why[256];
    if (name) {
        if (!json_is_string(name))
            return xc_error_set(err, XC_EINVAL, "%s: %s: must be a string", file, where);
        const xc_impl *i = xc_registry_find(reg, f, json_string_value(name));
        if (!i)
            return xc_error_set(err, XC_EINVAL, "%s: %s = \"%s\": not a registered %s implementation (crosscheck "
                                "list)", file, where, json_string_value(name), xc_family_name(f));
        if (!xc_impl_available(i, why, sizeof why))
            return xc_error_set(err, XC_EINVAL, "%s: %s = \"%s\": unavailable here: %s", file, where,
                                json_string_value(name), why);
        *out = i;
        return XC_OK;
    }
    /* By capability: a threaded CPU implementation, else the reference. */
    *out = xc_registry_pick(reg, f, XC_CAP_THREADED, XC_CAP_DEVICE | XC_CAP_APPROXIMATE);
    if (!*out)
        *out = xc_registry_pick(reg, f, XC_CAP_REFERENCE, 0);
    if (!*out)
        return xc_error_set(err, XC_EINVAL, "%s: %s: no %s implementation is available", file, where,
                            xc_family_name(f));
    return XC_OK;
}

typedef struct {
    const char *name;
    const json_t *values;   /* array */
    int rank;
} sweepkey;

static int sweep_cmp(const void *a, const void *b)
{
    return ((const sweepkey *)a)->rank - ((const sweepkey *)b)->rank;
}

/* One searcher entry (or the baseline, sweep NULL). */
static xc_status load_searcher(xc_study_searcher *s, const json_t *o, const xc_registry *reg, const char *file,
                               const char *where, int baseline, xc_error *err)
{
    char w[300];
    xc_status st = only_keys(o, baseline ? base_keys : srch_keys, file, where, err);
    if (st)
        return st;
    s->baseline = baseline;
    if (baseline) {
        snprintf(s->name, sizeof s->name, "baseline");
    } else {
        const char *name = json_string_value(json_object_get(o, "name"));
        if (!name || !name[0] || strlen(name) >= sizeof s->name || strpbrk(name, ",\"\n\r\t"))
            return xc_error_set(err, XC_EINVAL, "%s: %s.name: required, 1-31 characters, no comma or quote", file,
                                where);
        if (!strcmp(name, "baseline"))
            return xc_error_set(err, XC_EINVAL, "%s: %s.name: \"baseline\" is the baseline's name", file, where);
        snprintf(s->name, sizeof s->name, "%s", name);
    }
    snprintf(w, sizeof w, "%s.family", where);
    if ((st = family_of(json_object_get(o, "family"), file, w, &s->family, err)))
        return st;
    s->signed_z = s->family == XC_FAMILY_ACCEL;
    snprintf(w, sizeof w, "%s.impl", where);
    s->impl_named = json_object_get(o, "impl") != NULL;
    if ((st = pick_impl(reg, s->family, json_object_get(o, "impl"), file, w, &s->impl, err)))
        return st;

    xc_study_config base;
    xc_study_config_init(s->family, &base);
    const json_t *opts = json_object_get(o, "options");
    if (opts) {
        if (!json_is_object(opts))
            return xc_error_set(err, XC_EINVAL, "%s: %s.options: must be an object", file, where);
        const char *k;
        json_t *v;
        char text[64];
        json_object_foreach((json_t *)opts, k, v) {
            snprintf(w, sizeof w, "%s: %s.options.%s", file, where, k);
            if ((st = xc_study_opt_apply(s->family, k, v, w, &base, text, sizeof text, err)))
                return st;
        }
    }
    /* The sweep: the product of the lists, in label order, the last key fastest. */
    sweepkey keys[32];
    size_t nk = 0, ncfg = 1;
    const json_t *sweep = baseline ? NULL : json_object_get(o, "sweep");
    if (sweep) {
        if (!json_is_object(sweep))
            return xc_error_set(err, XC_EINVAL, "%s: %s.sweep: must be an object of lists", file, where);
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)sweep, k, v) {
            int rank = xc_study_opt_rank(s->family, k);
            if (rank < 0 || nk == 32) {
                snprintf(w, sizeof w, "%s: %s.sweep.%s", file, where, k);
                char t[8];
                return xc_study_opt_apply(s->family, k, v, w, &base, t, sizeof t, err);
            }
            if (!json_is_array(v) || json_array_size(v) == 0)
                return xc_error_set(err, XC_EINVAL, "%s: %s.sweep.%s: must be a non-empty list", file, where, k);
            if (opts && json_object_get(opts, k))
                return xc_error_set(err, XC_EINVAL, "%s: %s.sweep.%s: also in options", file, where, k);
            keys[nk++] = (sweepkey){k, v, rank};
            ncfg *= json_array_size(v);
            if (ncfg > XC_STUDY_MAX_CONFIGS)
                return xc_error_set(err, XC_EINVAL, "%s: %s.sweep: more than %d configurations", file, where,
                                    XC_STUDY_MAX_CONFIGS);
        }
        qsort(keys, nk, sizeof *keys, sweep_cmp);
    }
    s->cfg = calloc(ncfg, sizeof *s->cfg);
    if (!s->cfg)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    s->ncfg = ncfg;
    for (size_t c = 0; c < ncfg; c++) {
        xc_study_config *cf = &s->cfg[c];
        *cf = base;
        size_t rem = c, len = 0;
        size_t idx[32];
        for (size_t q = nk; q-- > 0;) {
            size_t m = json_array_size(keys[q].values);
            idx[q] = rem % m;
            rem /= m;
        }
        char rest[160] = "";
        for (size_t q = 0; q < nk; q++) {
            char text[64];
            snprintf(w, sizeof w, "%s: %s.sweep.%s[%zu]", file, where, keys[q].name, idx[q]);
            if ((st = xc_study_opt_apply(s->family, keys[q].name, json_array_get(keys[q].values, idx[q]), w, cf,
                                         text, sizeof text, err)))
                return st;
            if (strcmp(keys[q].name, "zmax") && strcmp(keys[q].name, "numharm") && strcmp(keys[q].name, "wmax"))
                len += (size_t)snprintf(rest + len, sizeof rest - (len < sizeof rest ? len : sizeof rest), " %s=%s",
                                        keys[q].name, text);
        }
        /* The label always names zmax and numharm (and a jerk search's wmax),
         * the axes searchers are compared on, then the other swept options. */
        int wm = s->family == XC_FAMILY_ACCEL ? cf->opts.ac.wmax : 0;
        char wtxt[32] = "";
        if (wm > 0)
            snprintf(wtxt, sizeof wtxt, " wmax=%d", wm);
        if (len >= sizeof rest ||
            snprintf(cf->label, sizeof cf->label, "zmax=%d numharm=%d%s%s", cf->zmax, cf->numharm, wtxt, rest) >=
                (int)sizeof cf->label)
            return xc_error_set(err, XC_EINVAL, "%s: %s.sweep: configuration label too long", file, where);
        snprintf(w, sizeof w, "%s: %s", file, where);
        if ((st = xc_study_config_check(cf, w, err)))
            return st;
    }
    for (size_t a = 0; a < ncfg; a++)
        for (size_t b = a + 1; b < ncfg; b++)
            if (!strcmp(s->cfg[a].label, s->cfg[b].label))
                return xc_error_set(err, XC_EINVAL, "%s: %s.sweep: configuration %s twice", file, where,
                                    s->cfg[a].label);
    return XC_OK;
}

static xc_status get_num(const json_t *o, const char *key, double lo, double hi, double *out, const char *file,
                         const char *where, xc_error *err)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        return XC_OK;
    if (!json_is_number(v) || !(json_number_value(v) >= lo && json_number_value(v) <= hi))
        return xc_error_set(err, XC_EINVAL, "%s: %s.%s: must be a number in [%g, %g]", file, where, key, lo, hi);
    *out = json_number_value(v);
    return XC_OK;
}

static xc_status get_u64(const json_t *o, const char *key, uint64_t lo, uint64_t *out, int required,
                         const char *file, const char *where, xc_error *err)
{
    const json_t *v = json_object_get(o, key);
    if (!v) {
        if (required)
            return xc_error_set(err, XC_EINVAL, "%s: %s.%s: required", file, where, key);
        return XC_OK;
    }
    if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)lo)
        return xc_error_set(err, XC_EINVAL, "%s: %s.%s: must be an integer >= %llu", file, where, key,
                            (unsigned long long)lo);
    *out = (uint64_t)json_integer_value(v);
    return XC_OK;
}

void xc_study_free(xc_study *st)
{
    xc_popspec_free(&st->pop);
    for (size_t k = 0; k < st->ns; k++)
        free(st->s[k].cfg);
    free(st->s);
    free(st->canonical);
    free(st->spec_copy);
    memset(st, 0, sizeof *st);
}

void xc_study_prefer(xc_study *st, const xc_registry *reg, unsigned want)
{
    for (size_t k = 0; k < st->ns; k++) {
        const xc_impl *i = st->s[k].impl_named ? NULL : xc_registry_pick(reg, st->s[k].family, want, 0);
        if (i)
            st->s[k].impl = i;
    }
}

size_t xc_study_nsearch(const xc_study *st)
{
    size_t n = 0;
    for (size_t k = 0; k < st->ns; k++)
        n += st->s[k].ncfg;
    return n;
}

size_t xc_study_search_index(const xc_study *st, int k, int c)
{
    size_t n = 0;
    for (int q = 0; q < k; q++)
        n += st->s[q].ncfg;
    return n + (size_t)c;
}

xc_status xc_study_load(xc_study *st, const char *path, const xc_registry *reg, xc_error *err)
{
    memset(st, 0, sizeof *st);
    snprintf(st->path, sizeof st->path, "%s", path);
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return xc_error_set(err, errno == ENOENT && je.line < 0 ? XC_EIO : XC_EFORMAT, "%s: line %d, column %d: %s",
                            path, je.line, je.column, je.text);
    xc_status st2 = only_keys(root, top_keys, path, "", err);
    json_t *canon = NULL;
    if (st2)
        goto fail;
    /* population */
    json_t *pop = json_object_get(root, "population");
    if (!pop) {
        st2 = xc_error_set(err, XC_EINVAL, "%s: population: required", path);
        goto fail;
    }
    if ((st2 = only_keys(pop, pop_keys, path, "population", err)))
        goto fail;
    const char *pspec = json_string_value(json_object_get(pop, "spec"));
    if (!pspec) {
        st2 = xc_error_set(err, XC_EINVAL, "%s: population.spec: required, the path of a population spec", path);
        goto fail;
    }
    st->seed = 1;
    if ((st2 = get_u64(pop, "n", 1, &st->n, 1, path, "population", err)) ||
        (st2 = get_u64(pop, "seed", 0, &st->seed, 0, path, "population", err)))
        goto fail;
    const json_t *ofixed = json_object_get(pop, "fixed"), *odraw = json_object_get(pop, "draw");
    if ((ofixed && !json_is_object(ofixed)) || (odraw && !json_is_object(odraw))) {
        st2 = xc_error_set(err, XC_EINVAL, "%s: population.%s: must be an object", path,
                           ofixed && !json_is_object(ofixed) ? "fixed" : "draw");
        goto fail;
    }
    char ppath[2200];
    const char *slash = strrchr(path, '/');
    if (pspec[0] == '/' || !slash)
        snprintf(ppath, sizeof ppath, "%s", pspec);
    else
        snprintf(ppath, sizeof ppath, "%.*s/%s", (int)(slash - path), path, pspec);
    xc_error pe;
    xc_error_clear(&pe);
    if ((st2 = xc_popspec_load_override(&st->pop, ppath, ofixed, odraw, &pe))) {
        xc_error_set(err, st2, "%s: population: %s", path, pe.msg);
        goto fail;
    }
    /* data */
    json_t *data = json_object_get(root, "data");
    if (data && !(json_is_string(data) && !strcmp(json_string_value(data), "dedispersed"))) {
        static const char *const data_keys[] = {"filterbank", NULL};
        static const char *const fb_keys[] = {"impl", NULL};
        json_t *fb = json_is_object(data) ? json_object_get(data, "filterbank") : NULL;
        if (!fb) {
            st2 = xc_error_set(err, XC_EINVAL, "%s: data: must be \"dedispersed\" (the series at the true DM, made "
                               "by the synthesizer's fast path) or {\"filterbank\": {\"impl\": NAME}}", path);
            goto fail;
        }
        if ((st2 = only_keys(data, data_keys, path, "data", err)) ||
            (st2 = only_keys(fb, fb_keys, path, "data.filterbank", err)))
            goto fail;
        json_t *dn = json_object_get(fb, "impl");
        if (dn) {
            if ((st2 = pick_impl(reg, XC_FAMILY_DEDISPERSE, dn, path, "data.filterbank.impl", &st->dedisperser, err)))
                goto fail;
        } else {
            /* exact ones only: an approximate dedisperser would change the data searched */
            st->dedisperser = xc_registry_pick(reg, XC_FAMILY_DEDISPERSE, XC_CAP_THREADED,
                                               XC_CAP_DEVICE | XC_CAP_APPROXIMATE);
            if (!st->dedisperser)
                st->dedisperser = xc_registry_pick(reg, XC_FAMILY_DEDISPERSE, XC_CAP_REFERENCE, 0);
            if (!st->dedisperser) {
                st2 = xc_error_set(err, XC_EINVAL, "%s: data.filterbank: no dedisperser is available", path);
                goto fail;
            }
        }
    }
    /* detection */
    st->det_sigma = 6.0;
    st->det_ftol = 0.01;
    json_t *det = json_object_get(root, "detection");
    if (det) {
        if ((st2 = only_keys(det, det_keys, path, "detection", err)) ||
            (st2 = get_num(det, "sigma", 0, 1e6, &st->det_sigma, path, "detection", err)) ||
            (st2 = get_num(det, "ftol", 1e-9, 0.5, &st->det_ftol, path, "detection", err)))
            goto fail;
        json_t *h = json_object_get(det, "harmonics");
        if (h && !json_is_boolean(h)) {
            st2 = xc_error_set(err, XC_EINVAL, "%s: detection.harmonics: must be true or false", path);
            goto fail;
        }
        st->det_harmonics = h && json_is_true(h);
    }
    /* searchers */
    json_t *srch = json_object_get(root, "searchers"), *base = json_object_get(root, "baseline");
    if (!json_is_array(srch) || json_array_size(srch) == 0 || json_array_size(srch) >= XC_STUDY_MAX_SEARCHERS) {
        st2 = xc_error_set(err, XC_EINVAL, "%s: searchers: required, a list of 1..%d searchers", path,
                           XC_STUDY_MAX_SEARCHERS - 1);
        goto fail;
    }
    st->s = calloc(json_array_size(srch) + 1, sizeof *st->s);
    if (!st->s) {
        st2 = xc_error_set(err, XC_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < json_array_size(srch); i++) {
        char where[64];
        snprintf(where, sizeof where, "searchers[%zu]", i);
        st->ns = i + 1;
        if ((st2 = load_searcher(&st->s[i], json_array_get(srch, i), reg, path, where, 0, err)))
            goto fail;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(st->s[j].name, st->s[i].name)) {
                st2 = xc_error_set(err, XC_EINVAL, "%s: %s.name: \"%s\" twice", path, where, st->s[i].name);
                goto fail;
            }
    }
    st->base_sigma = st->det_sigma;
    if (base) {
        st->ns++;
        if ((st2 = load_searcher(&st->s[st->ns - 1], base, reg, path, "baseline", 1, err)) ||
            (st2 = get_num(base, "sigma", 0, 1e6, &st->base_sigma, path, "baseline", err)))
            goto fail;
        st->has_baseline = 1;
    }
    /* The canonical spec: what makes two runs the same study (n excluded:
     * pulsar i does not depend on it), with the population spec's bytes. */
    canon = json_deep_copy(root);
    json_t *cpop = canon ? json_object_get(canon, "population") : NULL;
    FILE *pf = fopen(ppath, "rb");
    uint64_t ph = 0, pbytes = 0;
    xc_error he;
    xc_error_clear(&he);
    int hbad = !pf || xc_hash_stream(pf, ppath, &ph, &pbytes, &he);
    if (pf)
        fclose(pf);
    if (!cpop || hbad) {
        st2 = xc_error_set(err, hbad ? XC_EIO : XC_ENOMEM, "%s: cannot hash the population spec %s", path, ppath);
        goto fail;
    }
    json_object_del(cpop, "n");
    json_object_del(cpop, "spec");   /* where it is does not matter; its bytes (spec_hash) do */
    json_object_del(canon, "description");
    char hx[20];
    snprintf(hx, sizeof hx, "%016llx", (unsigned long long)ph);
    st->pop_hash = ph;
    json_object_set_new(cpop, "spec_hash", json_string(hx));
    json_t *impls = json_object();
    for (size_t k = 0; k < st->ns; k++)
        json_object_set_new(impls, st->s[k].name, json_string(st->s[k].impl->name));
    if (st->dedisperser)
        json_object_set_new(impls, "dedisperser", json_string(st->dedisperser->name));
    json_object_set_new(canon, "implementations", impls);
    st->canonical = json_dumps(canon, JSON_SORT_KEYS | JSON_COMPACT);
    if (!st->canonical) {
        st2 = xc_error_set(err, XC_ENOMEM, "out of memory");
        goto fail;
    }
    st->hash = xc_hash64(XC_HASH_INIT, st->canonical, strlen(st->canonical));
    /* The copy a study directory keeps, so -merge needs nothing else. */
    snprintf(st->pop_path, sizeof st->pop_path, "%s", ppath);
    json_object_set_new(pop, "spec", json_string("population.json"));
    st->spec_copy = json_dumps(root, JSON_INDENT(2));
    if (!st->spec_copy) {
        st2 = xc_error_set(err, XC_ENOMEM, "out of memory");
        goto fail;
    }
    json_decref(canon);
    json_decref(root);
    return XC_OK;
fail:
    json_decref(canon);
    json_decref(root);
    xc_study_free(st);
    return st2;
}
