/* Reading a study spec (xc_study.h): strict, every error names the file and
 * the JSON path of the field. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_hash.h"
#include "core/base/xc_spec.h"
#include "study/spec/study_internal.h"

/* ---- the tables ---------------------------------------------------------- */

typedef struct {
    const json_t *population, *data, *searchers, *detection, *baseline;
} study_top;

static const xc_spec_field top_fields[] = {
    XC_SPEC_IGNORED("description"),
    XC_SPEC_O(study_top, "population", 1, population, NULL),
    XC_SPEC_J(study_top, "data", 0, data),
    XC_SPEC_L(study_top, "searchers", 1, searchers),
    XC_SPEC_O(study_top, "detection", 0, detection, NULL),
    XC_SPEC_O(study_top, "baseline", 0, baseline, NULL),
    XC_SPEC_END,
};

typedef struct {
    const char *spec;
    uint64_t n, seed;
    const json_t *fixed, *draw;
} study_pop;

static const xc_spec_field pop_fields[] = {
    XC_SPEC_S(study_pop, "spec", 1, spec, NULL),
    XC_SPEC_U(study_pop, "n", 1, n, 1, 9.2e18),
    XC_SPEC_U(study_pop, "seed", 0, seed, 0, 9.2e18),
    XC_SPEC_O(study_pop, "fixed", 0, fixed, NULL),
    XC_SPEC_O(study_pop, "draw", 0, draw, NULL),
    XC_SPEC_END,
};

static const xc_spec_field det_fields[] = {
    XC_SPEC_N(xc_study, "sigma", 0, det_sigma, 0, 1e6),
    XC_SPEC_N(xc_study, "ftol", 0, det_ftol, 1e-9, 0.5),
    XC_SPEC_B(xc_study, "harmonics", 0, det_harmonics),
    XC_SPEC_I(xc_study, "bins", 0, bins, 2, 100),
    XC_SPEC_END,
};

/* A searcher entry, or the baseline (no name or sweep; its own sigma). */
typedef struct {
    const char *name, *family;
    const json_t *impl, *options, *sweep;
    double sigma;
} study_entry;

static const xc_spec_field srch_fields[] = {
    XC_SPEC_S(study_entry, "name", 1, name, NULL),
    XC_SPEC_S(study_entry, "family", 1, family, NULL),
    XC_SPEC_J(study_entry, "impl", 0, impl),
    XC_SPEC_O(study_entry, "options", 0, options, NULL),
    XC_SPEC_O(study_entry, "sweep", 0, sweep, NULL),
    XC_SPEC_END,
};

static const xc_spec_field base_fields[] = {
    XC_SPEC_S(study_entry, "family", 1, family, NULL),
    XC_SPEC_J(study_entry, "impl", 0, impl),
    XC_SPEC_O(study_entry, "options", 0, options, NULL),
    XC_SPEC_N(study_entry, "sigma", 0, sigma, 0, 1e6),
    XC_SPEC_END,
};

typedef struct {
    const json_t *filterbank, *impl;
} study_data;

static const xc_spec_field data_fields[] = {
    XC_SPEC_O(study_data, "filterbank", 1, filterbank, NULL),
    XC_SPEC_END,
};

static const xc_spec_field fb_fields[] = {
    XC_SPEC_J(study_data, "impl", 0, impl),
    XC_SPEC_END,
};

static xc_status family_of(const char *s, const char *file, const char *where, xc_family *f, xc_error *err)
{
    if (s && !strcmp(s, "pulscan"))
        *f = XC_FAMILY_PULSCAN;
    else if (s && !strcmp(s, "accel"))
        *f = XC_FAMILY_ACCEL;
    else if (s && !strcmp(s, "singlepulse"))
        *f = XC_FAMILY_SINGLEPULSE;
    else
        return xc_error_set(err, XC_EINVAL, "%s: %s: must be \"pulscan\", \"accel\" or \"singlepulse\"", file,
                            where);
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

/* The options every label of family f names first: the axes searchers are
 * compared on (zmax, numharm and a jerk search's wmax; a single-pulse
 * searcher's preset and threshold). */
static int in_label(xc_family f, const char *name)
{
    if (f == XC_FAMILY_SINGLEPULSE)
        return !strcmp(name, "preset") || !strcmp(name, "threshold");
    return !strcmp(name, "zmax") || !strcmp(name, "numharm") || !strcmp(name, "wmax");
}

/* cf's label: those options, then the other swept ones (rest); 1 when too long. */
static int make_label(xc_family f, xc_study_config *cf, const char *rest)
{
    int n;
    if (f == XC_FAMILY_SINGLEPULSE) {
        const xc_spopts *o = &cf->sp.o;
        double thr = o->threshold > 0 ? o->threshold : o->preset == XC_SP_PRESTO ? 5.0 : 6.0;
        n = snprintf(cf->label, sizeof cf->label, "preset=%s threshold=%.10g%s", xc_sp_preset_name(o->preset), thr,
                     rest);
    } else {
        int wm = f == XC_FAMILY_ACCEL ? cf->opts.ac.wmax : 0;
        char wtxt[32] = "";
        if (wm > 0)
            snprintf(wtxt, sizeof wtxt, " wmax=%d", wm);
        n = snprintf(cf->label, sizeof cf->label, "zmax=%d numharm=%d%s%s", cf->zmax, cf->numharm, wtxt, rest);
    }
    return n < 0 || n >= (int)sizeof cf->label;
}

/* One searcher entry (or the baseline, sweep NULL, its sigma into *sigma). */
static xc_status load_searcher(xc_study_searcher *s, const json_t *o, const xc_registry *reg, const char *file,
                               const char *where, double *sigma, xc_error *err)
{
    char w[300];
    const int baseline = sigma != NULL;
    study_entry e = {NULL, NULL, NULL, NULL, NULL, baseline ? *sigma : 0};
    xc_status st = xc_spec_read(o, file, where, baseline ? base_fields : srch_fields, &e, err);
    if (st)
        return st;
    if (baseline)
        *sigma = e.sigma;
    s->baseline = baseline;
    if (baseline) {
        snprintf(s->name, sizeof s->name, "baseline");
    } else {
        const char *name = e.name;
        if (!name || !name[0] || strlen(name) >= sizeof s->name || strpbrk(name, ",\"\n\r\t"))
            return xc_error_set(err, XC_EINVAL, "%s: %s.name: required, 1-31 characters, no comma or quote", file,
                                where);
        if (!strcmp(name, "baseline"))
            return xc_error_set(err, XC_EINVAL, "%s: %s.name: \"baseline\" is the baseline's name", file, where);
        snprintf(s->name, sizeof s->name, "%s", name);
    }
    snprintf(w, sizeof w, "%s.family", where);
    if ((st = family_of(e.family, file, w, &s->family, err)))
        return st;
    s->signed_z = s->family == XC_FAMILY_ACCEL;
    snprintf(w, sizeof w, "%s.impl", where);
    s->impl_named = e.impl != NULL;
    if ((st = pick_impl(reg, s->family, e.impl, file, w, &s->impl, err)))
        return st;

    xc_study_config base;
    xc_study_config_init(s->family, &base);
    const json_t *opts = e.options;
    if (opts) {
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
    const json_t *sweep = e.sweep;
    if (sweep) {
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
            if (!in_label(s->family, keys[q].name))
                len += (size_t)snprintf(rest + len, sizeof rest - (len < sizeof rest ? len : sizeof rest), " %s=%s",
                                        keys[q].name, text);
        }
        if (len >= sizeof rest || make_label(s->family, cf, rest))
            return xc_error_set(err, XC_EINVAL, "%s: %s.sweep: configuration label too long", file, where);
        snprintf(w, sizeof w, "%s: %s", file, where);
        if (s->family == XC_FAMILY_SINGLEPULSE) {
            snprintf(w, sizeof w, "%s.ddimpl", where);
            json_t *dn = cf->sp.ddimpl[0] ? json_string(cf->sp.ddimpl) : NULL;
            st = pick_impl(reg, XC_FAMILY_DEDISPERSE, dn, file, w, &cf->sp.dd, err);
            json_decref(dn);
            snprintf(w, sizeof w, "%s: %s", file, where);
            if (st || (st = xc_study_spconf_check(&cf->sp, w, cf->label, err)))
                return st;
        } else if ((st = xc_study_config_check(cf, w, err))) {
            return st;
        }
    }
    for (size_t a = 0; a < ncfg; a++)
        for (size_t b = a + 1; b < ncfg; b++)
            if (!strcmp(s->cfg[a].label, s->cfg[b].label))
                return xc_error_set(err, XC_EINVAL, "%s: %s.sweep: configuration %s twice", file, where,
                                    s->cfg[a].label);
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

/* The population: its spec (a path relative to the study spec's folder),
 * with the study's fixed and drawn overrides; *ppath gets the spec's path. */
static xc_status load_population(xc_study *st, const json_t *pop, const char *path, char *ppath, size_t np,
                                 xc_error *err)
{
    study_pop sp = {NULL, 0, 1, NULL, NULL};
    xc_status e = xc_spec_read(pop, path, "population", pop_fields, &sp, err);
    if (e)
        return e;
    st->n = sp.n;
    st->seed = sp.seed;
    const char *slash = strrchr(path, '/');
    if (sp.spec[0] == '/' || !slash)
        snprintf(ppath, np, "%s", sp.spec);
    else
        snprintf(ppath, np, "%.*s/%s", (int)(slash - path), path, sp.spec);
    xc_error pe;
    xc_error_clear(&pe);
    if ((e = xc_popspec_load_override(&st->pop, ppath, sp.fixed, sp.draw, &pe)))
        xc_error_set(err, e, "%s: population: %s", path, pe.msg);
    return e;
}

/* The data searched: "dedispersed" (the synthesizer's fast path, the
 * default) or {"filterbank": {"impl": NAME}} (a dedisperser of the filterbank;
 * by default an exact threaded one). */
static xc_status load_data(xc_study *st, const json_t *data, const xc_registry *reg, const char *path,
                           xc_error *err)
{
    if (!data || (json_is_string(data) && !strcmp(json_string_value(data), "dedispersed")))
        return XC_OK;
    if (!json_is_object(data) || !json_object_get(data, "filterbank"))
        return xc_error_set(err, XC_EINVAL, "%s: data: must be \"dedispersed\" (the series at the true DM, made "
                            "by the synthesizer's fast path) or {\"filterbank\": {\"impl\": NAME}}", path);
    study_data d = {NULL, NULL};
    xc_status e;
    if ((e = xc_spec_read(data, path, "data", data_fields, &d, err)) ||
        (e = xc_spec_read(d.filterbank, path, "data.filterbank", fb_fields, &d, err)))
        return e;
    if (d.impl)
        return pick_impl(reg, XC_FAMILY_DEDISPERSE, d.impl, path, "data.filterbank.impl", &st->dedisperser, err);
    /* exact ones only: an approximate dedisperser would change the data searched */
    st->dedisperser = xc_registry_pick(reg, XC_FAMILY_DEDISPERSE, XC_CAP_THREADED, XC_CAP_DEVICE | XC_CAP_APPROXIMATE);
    if (!st->dedisperser)
        st->dedisperser = xc_registry_pick(reg, XC_FAMILY_DEDISPERSE, XC_CAP_REFERENCE, 0);
    if (!st->dedisperser)
        return xc_error_set(err, XC_EINVAL, "%s: data.filterbank: no dedisperser is available", path);
    return XC_OK;
}

/* The searchers, then the baseline (the last entry). */
static xc_status load_searchers(xc_study *st, const json_t *srch, const json_t *base, const xc_registry *reg,
                                const char *path, xc_error *err)
{
    if (json_array_size(srch) == 0 || json_array_size(srch) >= XC_STUDY_MAX_SEARCHERS)
        return xc_error_set(err, XC_EINVAL, "%s: searchers: required, a list of 1..%d searchers", path,
                            XC_STUDY_MAX_SEARCHERS - 1);
    st->s = calloc(json_array_size(srch) + 1, sizeof *st->s);
    if (!st->s)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    xc_status e;
    for (size_t i = 0; i < json_array_size(srch); i++) {
        char where[64];
        snprintf(where, sizeof where, "searchers[%zu]", i);
        st->ns = i + 1;
        if ((e = load_searcher(&st->s[i], json_array_get(srch, i), reg, path, where, NULL, err)))
            return e;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(st->s[j].name, st->s[i].name))
                return xc_error_set(err, XC_EINVAL, "%s: %s.name: \"%s\" twice", path, where, st->s[i].name);
    }
    st->base_sigma = st->det_sigma;
    if (base) {
        st->ns++;
        if ((e = load_searcher(&st->s[st->ns - 1], base, reg, path, "baseline", &st->base_sigma, err)))
            return e;
        st->has_baseline = 1;
    }
    return XC_OK;
}

/* The canonical spec: what makes two runs the same study (n excluded:
 * pulsar i does not depend on it), with the population spec's bytes; and
 * the copy a study directory keeps, so -merge needs nothing else. */
static xc_status canonical(xc_study *st, json_t *root, const char *path, const char *ppath, xc_error *err)
{
    json_t *canon = json_deep_copy(root);
    json_t *cpop = canon ? json_object_get(canon, "population") : NULL;
    FILE *pf = fopen(ppath, "rb");
    uint64_t ph = 0, pbytes = 0;
    xc_error he;
    xc_error_clear(&he);
    int hbad = !pf || xc_hash_stream(pf, ppath, &ph, &pbytes, &he);
    if (pf)
        fclose(pf);
    if (!cpop || hbad) {
        json_decref(canon);
        return xc_error_set(err, hbad ? XC_EIO : XC_ENOMEM, "%s: cannot hash the population spec %s", path, ppath);
    }
    json_object_del(cpop, "n");
    json_object_del(cpop, "spec");   /* where it is does not matter; its bytes (spec_hash) do */
    json_object_del(canon, "description");
    char hx[20];
    snprintf(hx, sizeof hx, "%016llx", (unsigned long long)ph);
    st->pop_hash = ph;
    json_object_set_new(cpop, "spec_hash", json_string(hx));
    json_t *impls = json_object();
    for (size_t k = 0; k < st->ns; k++) {
        json_object_set_new(impls, st->s[k].name, json_string(st->s[k].impl->name));
        /* a single-pulse searcher's dedisperser chosen by capability */
        for (size_t c = 0; st->s[k].family == XC_FAMILY_SINGLEPULSE && c < st->s[k].ncfg; c++)
            if (!st->s[k].cfg[c].sp.ddimpl[0]) {
                char key[48];
                snprintf(key, sizeof key, "%s.ddimpl", st->s[k].name);
                json_object_set_new(impls, key, json_string(st->s[k].cfg[c].sp.dd->name));
            }
    }
    if (st->dedisperser)
        json_object_set_new(impls, "dedisperser", json_string(st->dedisperser->name));
    json_object_set_new(canon, "implementations", impls);
    st->canonical = json_dumps(canon, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(canon);
    if (!st->canonical)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    st->hash = xc_hash64(XC_HASH_INIT, st->canonical, strlen(st->canonical));
    snprintf(st->pop_path, sizeof st->pop_path, "%s", ppath);
    json_object_set_new(json_object_get(root, "population"), "spec", json_string("population.json"));
    st->spec_copy = json_dumps(root, JSON_INDENT(2));
    if (!st->spec_copy)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    return XC_OK;
}

/* An FRB study: single-pulse searchers only, over a population with an
 * "frb" object, without a baseline or a data path (each searcher dedisperses
 * the burst's filterbank with its own plan) or a periodicity detection. */
static xc_status check_frb(xc_study *st, const study_top *top, const char *path, xc_error *err)
{
    size_t nsp = 0;
    for (size_t k = 0; k < st->ns; k++)
        nsp += st->s[k].family == XC_FAMILY_SINGLEPULSE;
    st->frb = nsp > 0;
    if (!nsp)
        return XC_OK;
    static const char *const pulsar_only[] = {"sigma", "ftol", "harmonics"};
    for (size_t i = 0; top->detection && i < 3; i++)
        if (json_object_get(top->detection, pulsar_only[i]))
            return xc_error_set(err, XC_EINVAL, "%s: detection.%s: a periodicity search's; a single-pulse "
                                "searcher's threshold is its option \"threshold\"", path, pulsar_only[i]);
    if (nsp != st->ns || top->baseline)
        return xc_error_set(err, XC_EINVAL, "%s: %s: a study of single-pulse searchers takes only family "
                            "\"singlepulse\" searchers and no baseline", path, top->baseline ? "baseline" : "searchers");
    if (top->data)
        return xc_error_set(err, XC_EINVAL, "%s: data: a single-pulse study makes each burst's filterbank and "
                            "dedisperses it with each searcher's ddimpl and plan; remove \"data\"", path);
    if (!st->pop.frb.on)
        return xc_error_set(err, XC_EINVAL, "%s: population: single-pulse searchers need a population spec with an "
                            "\"frb\" object (one burst per file)", path);
    return XC_OK;
}

xc_status xc_study_load(xc_study *st, const char *path, const xc_registry *reg, xc_error *err)
{
    memset(st, 0, sizeof *st);
    snprintf(st->path, sizeof st->path, "%s", path);
    json_t *root;
    xc_status e = xc_spec_load(path, JSON_REJECT_DUPLICATES, &root, err);
    if (e)
        return e;
    study_top top = {NULL, NULL, NULL, NULL, NULL};
    char ppath[2200];
    st->det_sigma = 6.0;
    st->det_ftol = 0.01;
    st->bins = 8;
    if (!(e = xc_spec_read(root, path, "", top_fields, &top, err)) &&
        !(e = load_population(st, top.population, path, ppath, sizeof ppath, err)) &&
        !(e = load_data(st, top.data, reg, path, err)) &&
        !(e = top.detection ? xc_spec_read(top.detection, path, "detection", det_fields, st, err) : XC_OK) &&
        !(e = load_searchers(st, top.searchers, top.baseline, reg, path, err)) &&
        !(e = check_frb(st, &top, path, err)))
        e = canonical(st, root, path, ppath, err);
    json_decref(root);
    if (e)
        xc_study_free(st);
    return e;
}
