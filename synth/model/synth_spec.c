/* Synthesizer parameters from a JSON spec (jansson). */
#include "synth/model/xc_synth.h"
#include "synth/model/synth_params.h"
#include "synth/model/synth_spec.h"

#include "core/base/xc_spec.h"

#include <errno.h>
#include <float.h>
#include <stddef.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The JSON text of v for a message, shortened so one bad value cannot flood it. */
static void jtext(const json_t *v, char *buf, size_t n)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (s && strlen(s) > 60)
        snprintf(buf, n, "%.57s...", s);
    else
        snprintf(buf, n, "%s", s ? s : "?");
    free(s);
}

static xc_status bad_type(const char *path, const char *field, const json_t *v, const char *want, xc_error *err)
{
    char t[64];
    jtext(v, t, sizeof t);
    return xc_error_set(err, XC_EINVAL, "%s: field %s = %s: must be %s", path, field, t, want);
}

/* ---- the fields' own stores: each value is checked as it is read, so the
 * message names the source, the field and the value ---- */

/* A number field: its destination, the factor to it (tsamp_us -> s), and its
 * check: one of the source-and-value checks, or one that also names the
 * field and its command-line option. */
typedef struct {
    double scale;
    xc_status (*chk)(const char *src, double v, xc_error *err);
    xc_status (*chk_named)(const char *src, const char *field, const char *opt, double v, xc_error *err);
    const char *opt;
} numfield;

static xc_status set_num(void *dest, const json_t *v, const char *src, const xc_spec_field *f, xc_error *err)
{
    const numfield *nf = f->data;
    double d = json_number_value(v) * nf->scale;
    xc_status st = nf->chk ? nf->chk(src, d, err) : nf->chk_named(src, f->key, nf->opt, d, err);
    if (!st)
        *(double *)((char *)dest + f->off) = d;
    return st;
}

/* nchans and nbits: an int, through its check. */
typedef struct {
    xc_status (*chk)(const char *src, long v, xc_error *err);
} intfield;

static xc_status set_int(void *dest, const json_t *v, const char *src, const xc_spec_field *f, xc_error *err)
{
    const intfield *inf = f->data;
    long l = (long)json_integer_value(v);
    xc_status st = inf->chk(src, l, err);
    if (!st)
        *(int *)((char *)dest + f->off) = (int)l;
    return st;
}

/* A seed is a JSON integer, or a string of decimal digits for values beyond
 * 2^63 (a JSON integer is signed 64-bit in jansson). */
static xc_status set_seed(void *dest, const json_t *v, const char *src, const xc_spec_field *f, xc_error *err)
{
    (void)f;
    uint64_t *out = &((xc_synth_params *)dest)->seed;
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return XC_OK;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        errno = 0;
        unsigned long long u = strtoull(s, &end, 10);
        if (s[0] >= '0' && s[0] <= '9' && !*end && !errno) {
            *out = (uint64_t)u;
            return XC_OK;
        }
    }
    return bad_type(src, "seed", v, "an integer >= 0 (or a string of decimal digits)", err);
}

static xc_status set_convention(void *dest, const json_t *v, const char *src, const xc_spec_field *f, xc_error *err)
{
    const xc_convention *cv = xc_convention_get(json_string_value(v));
    if (!cv)
        return bad_type(src, f->key, v,
                        "one of \"crosscheck\", \"sigproc\", \"presto\", \"dedisp\", \"astroaccelerate\"", err);
    ((xc_synth_params *)dest)->convention = cv;
    return XC_OK;
}

/* bitorder, noise_gen and profile: one of two strings (data: the two), stored as 0 or 1. */
static xc_status set_either(void *dest, const json_t *v, const char *src, const xc_spec_field *f, xc_error *err)
{
    const char *const *two = f->data, *s = json_string_value(v);
    if (strcmp(s, two[0]) && strcmp(s, two[1])) {
        char want[64];
        snprintf(want, sizeof want, "\"%s\" or \"%s\"", two[0], two[1]);
        return bad_type(src, f->key, v, want, err);
    }
    int second = strcmp(s, two[0]) != 0;
    if (!strcmp(f->key, "bitorder"))
        ((xc_synth_params *)dest)->bitorder = second ? XC_BITORDER_MSB : XC_BITORDER_LSB;
    else if (!strcmp(f->key, "noise_gen"))
        ((xc_synth_params *)dest)->noise_gen = second ? XC_NOISE_EXACT : XC_NOISE_BOXMULLER;
    else
        ((xc_synth_params *)dest)->profile = second ? XC_PROFILE_GAUSSIAN : XC_PROFILE_TOPHAT;
    return XC_OK;
}

static const xc_spec_field pulse_fields[] = {
    XC_SPEC_N(xc_synth_pulse, "t_s", 1, t_s, -DBL_MAX, DBL_MAX),
    XC_SPEC_N(xc_synth_pulse, "dm", 1, dm, -DBL_MAX, DBL_MAX),
    XC_SPEC_N(xc_synth_pulse, "width_ms", 1, width_ms, -DBL_MAX, DBL_MAX),
    XC_SPEC_N(xc_synth_pulse, "snr", 0, snr, -DBL_MAX, DBL_MAX),
    XC_SPEC_N(xc_synth_pulse, "fluence_jyms", 0, fluence_jyms, -DBL_MAX, DBL_MAX),
    XC_SPEC_N(xc_synth_pulse, "tau_ms", 0, tau_ms, -DBL_MAX, DBL_MAX),
    XC_SPEC_N(xc_synth_pulse, "tau_ref_mhz", 0, tau_ref_mhz, -DBL_MAX, DBL_MAX),
    XC_SPEC_N(xc_synth_pulse, "tau_index", 0, tau_index, -DBL_MAX, DBL_MAX),
    XC_SPEC_N(xc_synth_pulse, "alpha", 0, alpha, -DBL_MAX, DBL_MAX),
    XC_SPEC_END,
};

/* pulses: each {"t_s", "dm", "width_ms"} and "snr" or "fluence_jyms", with
 * the burst's optional members, checked and appended. */
static xc_status set_pulses(void *dest, const json_t *v, const char *src, const xc_spec_field *f, xc_error *err)
{
    (void)f;
    xc_synth_params *p = dest;
    for (size_t i = 0; i < json_array_size(v); i++) {
        char where[64];
        snprintf(where, sizeof where, "pulses[%zu]", i);
        xc_synth_pulse pl;
        xc_synth_pulse_init(&pl, 0, 0, 0, NAN);
        xc_status st;
        if ((st = xc_spec_read(json_array_get(v, i), src, where, pulse_fields, &pl, err)))
            return st;
        if (isnan(pl.snr) && !(pl.fluence_jyms > 0))
            return xc_error_set(err, XC_EINVAL, "%s: %s: needs \"snr\" or a \"fluence_jyms\" > 0", src, where);
        if (isnan(pl.snr))
            pl.snr = 0;
        if (
            (st = xc_synth_check_pulse(src, i, &pl, err)) || (st = xc_synth_params_add_pulse(p, &pl, err)))
            return st;
    }
    return XC_OK;
}

static const numfield NF_TSAMP = {1e-6, xc_synth_check_tsamp, NULL, NULL},
                      NF_TOBS = {1, xc_synth_check_tobs, NULL, NULL},
                      NF_FCH1 = {1, xc_synth_check_fch1, NULL, NULL},
                      NF_FOFF = {1, xc_synth_check_foff, NULL, NULL},
                      NF_PERIOD = {1, xc_synth_check_period, NULL, NULL},
                      NF_WIDTH = {1, xc_synth_check_width_pct, NULL, NULL},
                      NF_ECC = {1, xc_synth_check_ecc, NULL, NULL},
                      NF_TSTART = {1, NULL, xc_synth_check_finite, "-tstart"},
                      NF_SNRPEAK = {1, NULL, xc_synth_check_finite, "-snrpeak"},
                      NF_DM = {1, NULL, xc_synth_check_dm, "-dm"},
                      NF_PDOT = {1, NULL, xc_synth_check_finite, "-pdot"},
                      NF_ACCN = {1, NULL, xc_synth_check_finite, "-accn"},
                      NF_BINC = {1, NULL, xc_synth_check_finite, "-binc"},
                      NF_BOMEGA = {1, NULL, xc_synth_check_finite, "-bomega"},
                      NF_BPHASE = {1, NULL, xc_synth_check_finite, "-bphase"},
                      NF_BPER = {1, NULL, xc_synth_check_positive, "-bper"},
                      NF_BPMASS = {1, NULL, xc_synth_check_positive, "-bpmass"},
                      NF_BCMASS = {1, NULL, xc_synth_check_positive, "-bcmass"};
static const numfield NF_SEFD = {1, NULL, xc_synth_check_positive, "-sefd"};
static const intfield IF_NCHANS = {xc_synth_check_nchans}, IF_NBITS = {xc_synth_check_nbits},
                      IF_NPOL = {xc_synth_check_npol};
static const char *const BITORDERS[2] = {"lsb", "msb"}, *const PROFILES[2] = {"tophat", "gaussian"};
static const char *const NOISE_GENS[2] = {"boxmuller", "exact"};

#define P xc_synth_params
#define NUM(key, field, nf) \
    {key, XC_SPEC_NUMBER, 0, offsetof(P, field), -DBL_MAX, DBL_MAX, NULL, 0, 0, NULL, NULL, set_num, &nf}
#define INT(key, field, inf) \
    {key, XC_SPEC_INT, 0, offsetof(P, field), -1e18, 1e18, NULL, 0, 0, NULL, NULL, set_int, &inf}
#define OWN(key, type, fn, data) {key, type, 0, XC_SPEC_NOWHERE, 0, 0, NULL, 0, 0, NULL, NULL, fn, data}

/* The synthesizer's fields, in the order of its options. */
static const xc_spec_field synth_fields[] = {
    INT("nchans", nchans, IF_NCHANS),
    INT("nbits", nbits, IF_NBITS),
    NUM("tsamp_us", tsamp, NF_TSAMP),
    NUM("tobs_s", tobs, NF_TOBS),
    NUM("fch1", fch1, NF_FCH1),
    NUM("foff", foff, NF_FOFF),
    NUM("tstart", tstart, NF_TSTART),
    OWN("seed", XC_SPEC_ANY, set_seed, NULL),
    OWN("convention", XC_SPEC_STRING, set_convention, NULL),
    XC_SPEC_B(P, "smear", 0, smear),
    XC_SPEC_B(P, "noise", 0, noise),
    OWN("noise_gen", XC_SPEC_STRING, set_either, NOISE_GENS),
    OWN("bitorder", XC_SPEC_STRING, set_either, BITORDERS),
    NUM("period_ms", psr.period_ms, NF_PERIOD),
    NUM("width_pct", psr.width_pct, NF_WIDTH),
    NUM("snrpeak", psr.snrpeak, NF_SNRPEAK),
    NUM("dm", psr.dm, NF_DM),
    NUM("pdot", psr.pdot, NF_PDOT),
    NUM("accn", psr.accn, NF_ACCN),
    XC_SPEC_B(P, "binary", 0, psr.bin.on),
    NUM("bper_h", psr.bin.pb_h, NF_BPER),
    NUM("becc", psr.bin.ecc, NF_ECC),
    NUM("binc_deg", psr.bin.inc_deg, NF_BINC),
    NUM("bomega_deg", psr.bin.omega_deg, NF_BOMEGA),
    NUM("bphase", psr.bin.phase, NF_BPHASE),
    NUM("bpmass", psr.bin.mp, NF_BPMASS),
    NUM("bcmass", psr.bin.mc, NF_BCMASS),
    OWN("profile", XC_SPEC_STRING, set_either, PROFILES),
    XC_SPEC_B(P, "fake_phase", 0, fake_phase),
    OWN("pulses", XC_SPEC_LIST, set_pulses, NULL),
    NUM("sefd_jy", sefd_jy, NF_SEFD),
    INT("npol", npol, IF_NPOL),
    XC_SPEC_END,
};
#undef P
#undef NUM
#undef INT
#undef OWN

xc_status xc_synth_params_from_json(xc_synth_params *p, const struct json_t *obj, const char *source,
                                    xc_error *err)
{
    if (!json_is_object(obj))
        return bad_type(source, "(top level)", obj, "an object", err);
    /* On error p is left as it was: scalars restored, appended pulses dropped. */
    xc_synth_params save = *p;
    xc_status st = xc_spec_read(obj, source, "", synth_fields, p, err);
    if (st) {
        xc_synth_pulse *pl = p->pulses;
        size_t cap = p->pulses_cap;
        *p = save;
        p->pulses = pl;
        p->pulses_cap = cap;
    }
    return st;
}

xc_status xc_synth_params_load(xc_synth_params *p, const char *path, const char *key, xc_error *err)
{
    json_t *root;
    xc_status st = xc_spec_load(path, 0, &root, err);
    if (st)
        return st;
    const json_t *obj = key ? json_object_get(root, key) : root;
    if (!obj)
        st = xc_error_set(err, XC_EINVAL, "%s: no field \"%s\" at the top level", path, key);
    else if (key && !json_is_object(obj))
        st = bad_type(path, key, obj, "an object", err);
    else
        st = xc_synth_params_from_json(p, obj, path, err);
    json_decref(root);
    return st;
}

json_t *xc_synth_seed_json(uint64_t seed)
{
    if (seed <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)seed);
    char s[24];
    snprintf(s, sizeof s, "%llu", (unsigned long long)seed);
    return json_string(s);
}

json_t *xc_synth_params_to_json(const xc_synth_params *p)
{
    json_t *o = json_object(), *pls = json_array();
    int bad = !o || !pls, bursts = 0;
#define PUT(k, v) (bad |= json_object_set_new(o, (k), (v)) != 0)
    PUT("nchans", json_integer(p->nchans));
    PUT("nbits", json_integer(p->nbits));
    PUT("tsamp_us", json_real(p->tsamp * 1e6));
    PUT("tobs_s", json_real(p->tobs));
    PUT("fch1", json_real(p->fch1));
    PUT("foff", json_real(p->foff));
    PUT("tstart", json_real(p->tstart));
    PUT("seed", xc_synth_seed_json(p->seed));
    PUT("convention", json_string(p->convention ? p->convention->name : "crosscheck"));
    PUT("smear", json_boolean(p->smear));
    PUT("noise", json_boolean(p->noise));
    if (p->noise_gen != XC_NOISE_BOXMULLER)   /* the default generator's specs read as before */
        PUT("noise_gen", json_string(NOISE_GENS[p->noise_gen]));
    PUT("bitorder", json_string(p->bitorder == XC_BITORDER_MSB ? "msb" : "lsb"));
    PUT("period_ms", json_real(p->psr.period_ms));
    PUT("width_pct", json_real(p->psr.width_pct));
    PUT("snrpeak", json_real(p->psr.snrpeak));
    PUT("dm", json_real(p->psr.dm));
    PUT("pdot", json_real(p->psr.pdot));
    PUT("accn", json_real(p->psr.accn));
    PUT("binary", json_boolean(p->psr.bin.on));
    PUT("bper_h", json_real(p->psr.bin.pb_h));
    PUT("becc", json_real(p->psr.bin.ecc));
    PUT("binc_deg", json_real(p->psr.bin.inc_deg));
    PUT("bomega_deg", json_real(p->psr.bin.omega_deg));
    PUT("bphase", json_real(p->psr.bin.phase));
    PUT("bpmass", json_real(p->psr.bin.mp));
    PUT("bcmass", json_real(p->psr.bin.mc));
    PUT("profile", json_string(p->profile == XC_PROFILE_GAUSSIAN ? "gaussian" : "tophat"));
    PUT("fake_phase", json_boolean(p->fake_phase));
    for (size_t i = 0; !bad && i < p->npulses; i++) {
        const xc_synth_pulse *pl = &p->pulses[i];
        json_t *x = json_pack("{s:f, s:f, s:f, s:f}", "t_s", pl->t_s, "dm", pl->dm, "width_ms", pl->width_ms, "snr",
                              pl->snr);
        /* a burst's members only where it has them: a plain pulse reads as before */
        if (x && xc_synth_pulse_is_burst(pl)) {
            bursts = 1;
            bad |= json_object_set_new(x, "fluence_jyms", json_real(pl->fluence_jyms)) != 0;
            bad |= json_object_set_new(x, "tau_ms", json_real(pl->tau_ms)) != 0;
            bad |= json_object_set_new(x, "tau_ref_mhz", json_real(pl->tau_ref_mhz)) != 0;
            bad |= json_object_set_new(x, "tau_index", json_real(pl->tau_index)) != 0;
            bad |= json_object_set_new(x, "alpha", json_real(pl->alpha)) != 0;
        }
        bad |= !x || json_array_append_new(pls, x) != 0;
    }
    if (bursts) {
        PUT("sefd_jy", json_real(p->sefd_jy));
        PUT("npol", json_integer(p->npol));
    }
    if (pls) {
        PUT("pulses", pls);
        pls = NULL;
    }
#undef PUT
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
