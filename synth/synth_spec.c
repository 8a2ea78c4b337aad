/* Synthesizer parameters from a JSON spec (jansson). */
#include "synth/xc_synth.h"
#include "synth/synth_internal.h"

#include "core/base/xc_spec.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
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

static xc_status get_int(const char *path, const char *field, const json_t *v, long *out, xc_error *err)
{
    if (!json_is_integer(v))
        return bad_type(path, field, v, "an integer", err);
    json_int_t i = json_integer_value(v);
    if (i < LONG_MIN / 2 || i > LONG_MAX / 2)
        return bad_type(path, field, v, "a smaller integer", err);
    *out = (long)i;
    return XC_OK;
}

static xc_status get_num(const char *path, const char *field, const json_t *v, double *out, xc_error *err)
{
    if (!json_is_number(v))
        return bad_type(path, field, v, "a number", err);
    *out = json_number_value(v);
    return XC_OK;
}

static xc_status get_bool(const char *path, const char *field, const json_t *v, int *out, xc_error *err)
{
    if (!json_is_boolean(v))
        return bad_type(path, field, v, "true or false", err);
    *out = json_is_true(v);
    return XC_OK;
}

/* A field that is one of two strings: *second is 0 for `first`, 1 for `second_name`. */
static xc_status get_either(const char *path, const char *field, const json_t *v, const char *first,
                            const char *second_name, int *second, xc_error *err)
{
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    if (strcmp(s, first) && strcmp(s, second_name)) {
        char want[64];
        snprintf(want, sizeof want, "\"%s\" or \"%s\"", first, second_name);
        return bad_type(path, field, v, want, err);
    }
    *second = strcmp(s, first) != 0;
    return XC_OK;
}

/* A seed is a JSON integer, or a string of decimal digits for values beyond
 * 2^63 (a JSON integer is signed 64-bit in jansson). */
static xc_status get_seed(const char *path, const json_t *v, uint64_t *out, xc_error *err)
{
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
    return bad_type(path, "seed", v, "an integer >= 0 (or a string of decimal digits)", err);
}

static xc_status load_pulse(const char *path, size_t i, const json_t *o, xc_synth_pulse *pl, xc_error *err)
{
    static const char *const names[4] = {"t_s", "dm", "width_ms", "snr"};
    double *dst[4] = {&pl->t_s, &pl->dm, &pl->width_ms, &pl->snr};
    char field[64];
    snprintf(field, sizeof field, "pulses[%zu]", i);
    if (!json_is_object(o))
        return bad_type(path, field, o, "an object {\"t_s\":..,\"dm\":..,\"width_ms\":..,\"snr\":..}", err);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        int j = 0;
        while (j < 4 && strcmp(k, names[j]))
            j++;
        if (j == 4)
            return xc_error_set(err, XC_EINVAL, "%s: field %s.%s: unknown (expected t_s, dm, width_ms, snr)", path,
                                field, k);
    }
    for (int j = 0; j < 4; j++) {
        json_t *f = json_object_get(o, names[j]);
        char name[96];
        snprintf(name, sizeof name, "%s.%s", field, names[j]);
        if (!f)
            return xc_error_set(err, XC_EINVAL, "%s: field %s: missing", path, name);
        xc_status st = get_num(path, name, f, dst[j], err);
        if (st)
            return st;
    }
    return xc_synth_check_pulse(path, i, pl, err);
}

/* Sets one field; every value is checked as it is read so the message names
 * the file and the field. */
/* The true/false field k of p, or NULL when k is not one. */
static int *bool_field(xc_synth_params *p, const char *k)
{
    return !strcmp(k, "smear")        ? &p->smear
           : !strcmp(k, "noise")      ? &p->noise
           : !strcmp(k, "binary")     ? &p->psr.bin.on
           : !strcmp(k, "fake_phase") ? &p->fake_phase
                                      : NULL;
}

static xc_status load_field(xc_synth_params *p, const char *path, const char *k, const json_t *v, xc_error *err)
{
    xc_status st;
    long l = 0;
    double d = 0;
    int *flag = bool_field(p, k);
    if (flag) {
        return get_bool(path, k, v, flag, err);
    } else if (!strcmp(k, "nchans")) {
        if ((st = get_int(path, k, v, &l, err)) || (st = xc_synth_check_nchans(path, l, err)))
            return st;
        p->nchans = (int)l;
    } else if (!strcmp(k, "nbits")) {
        if ((st = get_int(path, k, v, &l, err)) || (st = xc_synth_check_nbits(path, l, err)))
            return st;
        p->nbits = (int)l;
    } else if (!strcmp(k, "tsamp_us")) {
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_tsamp(path, d * 1e-6, err)))
            return st;
        p->tsamp = d * 1e-6;
    } else if (!strcmp(k, "tobs_s")) {
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_tobs(path, d, err)))
            return st;
        p->tobs = d;
    } else if (!strcmp(k, "fch1")) {
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_fch1(path, d, err)))
            return st;
        p->fch1 = d;
    } else if (!strcmp(k, "foff")) {
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_foff(path, d, err)))
            return st;
        p->foff = d;
    } else if (!strcmp(k, "tstart")) {
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_finite(path, k, "-tstart", d, err)))
            return st;
        p->tstart = d;
    } else if (!strcmp(k, "seed")) {
        return get_seed(path, v, &p->seed, err);
    } else if (!strcmp(k, "convention")) {
        const xc_convention *cv = json_is_string(v) ? xc_convention_get(json_string_value(v)) : NULL;
        if (!cv)
            return bad_type(path, k, v, "one of \"crosscheck\", \"sigproc\", \"presto\", \"dedisp\", \"astroaccelerate\"",
                            err);
        p->convention = cv;
    } else if (!strcmp(k, "bitorder") || !strcmp(k, "profile")) {
        int bitorder = !strcmp(k, "bitorder"), second = 0;
        if ((st = get_either(path, k, v, bitorder ? "lsb" : "tophat", bitorder ? "msb" : "gaussian", &second, err)))
            return st;
        if (bitorder)
            p->bitorder = second ? XC_BITORDER_MSB : XC_BITORDER_LSB;
        else
            p->profile = second ? XC_PROFILE_GAUSSIAN : XC_PROFILE_TOPHAT;
    } else if (!strcmp(k, "period_ms")) {
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_period(path, d, err)))
            return st;
        p->psr.period_ms = d;
    } else if (!strcmp(k, "width_pct")) {
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_width_pct(path, d, err)))
            return st;
        p->psr.width_pct = d;
    } else if (!strcmp(k, "snrpeak")) {
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_finite(path, k, "-snrpeak", d, err)))
            return st;
        p->psr.snrpeak = d;
    } else if (!strcmp(k, "dm")) {
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_dm(path, k, "-dm", d, err)))
            return st;
        p->psr.dm = d;
    } else if (!strcmp(k, "pdot") || !strcmp(k, "accn") || !strcmp(k, "binc_deg") || !strcmp(k, "bomega_deg") ||
               !strcmp(k, "bphase")) {
        static const struct {
            const char *name, *opt;
        } f[5] = {{"pdot", "-pdot"}, {"accn", "-accn"}, {"binc_deg", "-binc"}, {"bomega_deg", "-bomega"},
                  {"bphase", "-bphase"}};
        double *dst[5] = {&p->psr.pdot, &p->psr.accn, &p->psr.bin.inc_deg, &p->psr.bin.omega_deg,
                          &p->psr.bin.phase};
        int j = 0;
        while (strcmp(k, f[j].name))
            j++;
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_finite(path, k, f[j].opt, d, err)))
            return st;
        *dst[j] = d;
    } else if (!strcmp(k, "bper_h") || !strcmp(k, "bpmass") || !strcmp(k, "bcmass")) {
        const char *opt = !strcmp(k, "bper_h") ? "-bper" : !strcmp(k, "bpmass") ? "-bpmass" : "-bcmass";
        double *dst = !strcmp(k, "bper_h") ? &p->psr.bin.pb_h : !strcmp(k, "bpmass") ? &p->psr.bin.mp
                                                                                     : &p->psr.bin.mc;
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_positive(path, k, opt, d, err)))
            return st;
        *dst = d;
    } else if (!strcmp(k, "becc")) {
        if ((st = get_num(path, k, v, &d, err)) || (st = xc_synth_check_ecc(path, d, err)))
            return st;
        p->psr.bin.ecc = d;
    } else if (!strcmp(k, "pulses")) {
        if (!json_is_array(v))
            return bad_type(path, k, v, "an array of pulses", err);
        for (size_t i = 0; i < json_array_size(v); i++) {
            xc_synth_pulse pl;
            if ((st = load_pulse(path, i, json_array_get(v, i), &pl, err)) ||
                (st = xc_synth_params_add_pulse(p, &pl, err)))
                return st;
        }
    } else {
        return xc_error_set(err, XC_EINVAL,
                            "%s: field %s: unknown (expected nchans, nbits, tsamp_us, tobs_s, fch1, foff, tstart, "
                            "seed, convention, smear, noise, bitorder, period_ms, width_pct, snrpeak, dm, pdot, accn, "
                            "binary, bper_h, becc, binc_deg, bomega_deg, bphase, bpmass, bcmass, profile, "
                            "fake_phase, pulses)",
                            path, k);
    }
    return XC_OK;
}

xc_status xc_synth_params_from_json(xc_synth_params *p, const struct json_t *obj, const char *source,
                                    xc_error *err)
{
    if (!json_is_object(obj))
        return bad_type(source, "(top level)", obj, "an object", err);
    /* On error p is left as it was: scalars restored, appended pulses dropped. */
    xc_synth_params save = *p;
    xc_status st = XC_OK;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        if ((st = load_field(p, source, k, v, err)))
            break;
    }
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
    int bad = !o || !pls;
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
        bad |= !x || json_array_append_new(pls, x) != 0;
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
