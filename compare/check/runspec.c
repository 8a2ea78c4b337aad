/* The run specification of xc_runspec.h, read through one table of fields. */
#include "compare/check/xc_runspec.h"
#include "core/base/xc_spec.h"
#include "core/base/xc_grow.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/plan/xc_dmplan.h"
#include "core/search/xc_search.h"
#include "synth/model/xc_synth.h"

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

static void known_init(void *p) { xc_known_init(p); }

#define S XC_SPEC_S
#define I(T, key, field, lo, hi) XC_SPEC_I(T, key, 0, field, lo, hi)
#define N XC_SPEC_N
#define O XC_SPEC_O
#define IGNORED XC_SPEC_IGNORED
#define END XC_SPEC_END

static const xc_spec_field known_fields[] = {
    S(xc_known, "kind", 1, kind_name, NULL),
    S(xc_known, "name", 0, name, NULL),
    N(xc_known, "f_hz", 0, f_hz, 1e-9, 1e9),
    N(xc_known, "ftol_hz", 0, ftol_hz, 0, 1e9),
    I(xc_known, "maxharm", maxharm, 1, 64),
    N(xc_known, "sigma", 0, sigma, 0, 1e6),
    N(xc_known, "dm", 0, dm, 0, 1e6),
    N(xc_known, "dmtol", 0, dmtol, 0, 1e6),
    N(xc_known, "t_s", 0, t_s, 0, 1e9),
    N(xc_known, "ttol_s", 0, ttol_s, 0, 1e9),
    IGNORED("note"),
    END,
};

/* "known" in an entry of type T. */
#define KNOWN(T) \
    {"known", XC_SPEC_ARRAY, 0, offsetof(T, known), 0, 0, known_fields, sizeof(xc_known), offsetof(T, nknown), \
     known_init, NULL}

static const xc_spec_field synthetic_fields[] = {
    S(xc_rs_synthetic, "name", 0, name, NULL),
    S(xc_rs_synthetic, "dmplan", 1, dmplan, check_dmplan),
    O(xc_rs_synthetic, "synth", 1, synth, check_synth),
    I(xc_rs_synthetic, "approximate", approximate, 0, 1),
    END,
};

static const xc_spec_field line_fields[] = {
    N(xc_rs_real, "dm", 1, line_dm, 0, 1e6),
    N(xc_rs_real, "freq_hz", 1, line_freq_hz, 1e-9, 1e9),
    END,
};

static const xc_spec_field prepsubband_fields[] = {
    S(xc_rs_real, "dmplan", 1, ps_dmplan, check_dmplan),
    S(xc_rs_real, "root", 1, ps_root, NULL),
    I(xc_rs_real, "nsub", ps_nsub, 1, 65536),
    N(xc_rs_real, "dmsub", 0, ps_dmsub, 0, 1e6),
    END,
};

static const xc_spec_field real_fields[] = {
    S(xc_rs_real, "name", 0, name, NULL),
    S(xc_rs_real, "file", 1, file, NULL),
    S(xc_rs_real, "dmplan", 1, dmplan, check_dmplan),
    XC_SPEC_T("line", 0, line_fields),
    I(xc_rs_real, "approximate", approximate, 0, 1),
    XC_SPEC_T("prepsubband", 0, prepsubband_fields),
    KNOWN(xc_rs_real),
    IGNORED("note"),
    END,
};

/* What a search entry of type T (periodicity, accel) starts with: its name
 * and its spectrum, from a file (fft) or synthesized. */
#define SEARCH_INPUT(T) \
    S(T, "name", 0, name, NULL), S(T, "fft", 0, fft, NULL), O(T, "synth", 0, synth, check_synth)

/* zmax and numharm within xc_psopts_check's bounds. */
static const xc_spec_field periodicity_fields[] = {
    SEARCH_INPUT(xc_rs_periodicity),
    I(xc_rs_periodicity, "zmax", zmax, 0, 100000),
    I(xc_rs_periodicity, "numharm", numharm, 1, 8),
    N(xc_rs_periodicity, "sigma", 0, sigma, 0, 1e6),
    N(xc_rs_periodicity, "f_hz", 0, f_hz, 1e-9, 1e9),
    KNOWN(xc_rs_periodicity),
    IGNORED("note"),
    END,
};

static const xc_spec_field accel_truth_fields[] = {
    N(xc_rs_accel, "r", 1, truth_r, 0, 1e15),
    N(xc_rs_accel, "z", 0, truth_z, -1e6, 1e6),
    N(xc_rs_accel, "w", 0, truth_w, -1e6, 1e6),
    END,
};

/* zmax, wmax and numharm within xc_accel_opts_check's bounds. */
static const xc_spec_field accel_fields[] = {
    SEARCH_INPUT(xc_rs_accel),
    I(xc_rs_accel, "zmax", zmax, 0, 1200),
    I(xc_rs_accel, "wmax", wmax, 0, 4000),
    I(xc_rs_accel, "numharm", numharm, 1, 32),
    N(xc_rs_accel, "sigma", 0, sigma, 0, 1e6),
    N(xc_rs_accel, "rlo", 0, rlo, 1, 1e15),
    N(xc_rs_accel, "rhi", 0, rhi, 1, 1e15),
    XC_SPEC_T("truth", 0, accel_truth_fields),
    N(xc_rs_accel, "dr", 0, dr, 0, 1e6),
    N(xc_rs_accel, "dz", 0, dz, 0, 1e6),
    N(xc_rs_accel, "dw", 0, dw, 0, 1e6),
    S(xc_rs_accel, "accelsearch", 0, accelsearch, NULL),
    KNOWN(xc_rs_accel),
    IGNORED("note"),
    END,
};

static const xc_spec_field top_fields[] = {
    IGNORED("description"),
    S(xc_runspec, "convention", 0, convention, check_convention),
    {"synthetic", XC_SPEC_ARRAY, 0, offsetof(xc_runspec, syn), 0, 0, synthetic_fields, sizeof(xc_rs_synthetic),
     offsetof(xc_runspec, nsyn), syn_init, NULL},
    {"real", XC_SPEC_ARRAY, 0, offsetof(xc_runspec, real), 0, 0, real_fields, sizeof(xc_rs_real),
     offsetof(xc_runspec, nreal), real_init, NULL},
    {"periodicity", XC_SPEC_ARRAY, 0, offsetof(xc_runspec, per), 0, 0, periodicity_fields, sizeof(xc_rs_periodicity),
     offsetof(xc_runspec, nper), per_init, NULL},
    {"accel", XC_SPEC_ARRAY, 0, offsetof(xc_runspec, acc), 0, 0, accel_fields, sizeof(xc_rs_accel),
     offsetof(xc_runspec, nacc), acc_init, NULL},
    END,
};

/* ---- the reader ------------------------------------------------------------ */

static void clear(xc_runspec *s)
{
    memset(s, 0, sizeof *s);
    s->convention = "crosscheck";
}

/* An entry's known signals: each complete for its kind; a spectrum entry
 * (periodicity, accel) takes pulsars and birdies of a file, and bursts (of
 * the PRESTO series beside it), a filterbank entry (real) bursts. */
static xc_status check_known(const xc_runspec *s, const char *sec, size_t i, xc_known *k, size_t n, int synth,
                             xc_error *err)
{
    char where[1200];
    for (size_t j = 0; j < n; j++) {
        snprintf(where, sizeof where, "%s: %s[%zu].known[%zu]", s->source, sec, i, j);
        xc_status st = xc_known_check(&k[j], where, err);
        if (st)
            return st;
        if (synth)
            return xc_error_set(err, XC_EINVAL, "%s: a synthesized entry's signals are its truth file's", where);
        if (k[j].kind != XC_KNOWN_BURST && !strcmp(sec, "real"))
            return xc_error_set(err, XC_EINVAL, "%s: a %s belongs to a periodicity or accel entry (a spectrum)",
                                where, k[j].kind_name);
    }
    return XC_OK;
}

xc_status xc_runspec_from_json(xc_runspec *s, json_t *root, const char *source, xc_error *err)
{
    clear(s);
    snprintf(s->source, sizeof s->source, "%s", source ? source : "run spec");
    if (!json_is_object(root))
        return xc_error_set(err, XC_EINVAL, "%s: expected an object at the top", s->source);
    s->root = json_incref(root);
    xc_status st = xc_spec_read(root, s->source, "", top_fields, s, err);
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
    for (size_t i = 0; !st && i < s->nreal; i++)
        st = check_known(s, "real", i, s->real[i].known, s->real[i].nknown, 0, err);
    for (size_t i = 0; !st && i < s->nper; i++)
        st = check_known(s, "periodicity", i, s->per[i].known, s->per[i].nknown, !s->per[i].fft, err);
    for (size_t i = 0; !st && i < s->nacc; i++)
        st = check_known(s, "accel", i, s->acc[i].known, s->acc[i].nknown, !s->acc[i].fft, err);
    if (st)
        xc_runspec_free(s);
    return st;
}

xc_status xc_runspec_load(xc_runspec *s, const char *path, xc_error *err)
{
    clear(s);
    json_t *root;
    xc_status st = xc_spec_load(path, 0, &root, err);
    if (st)
        return st;
    st = xc_runspec_from_json(s, root, path, err);
    json_decref(root);
    return st;
}

void xc_runspec_free(xc_runspec *s)
{
    for (size_t i = 0; s->real && i < s->nreal; i++)
        free(s->real[i].known);
    for (size_t i = 0; s->per && i < s->nper; i++)
        free(s->per[i].known);
    for (size_t i = 0; s->acc && i < s->nacc; i++)
        free(s->acc[i].known);
    xc_free_each(4, s->syn, s->real, s->per, s->acc);
    json_decref(s->root);
    clear(s);
}
