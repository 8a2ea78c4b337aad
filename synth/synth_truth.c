/* The truth file: everything a comparator needs to score a search of the synthetic data. */
#include "xc_synth.h"
#include "synth_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Setters that remember a failed allocation instead of checking every call. */
typedef struct {
    int bad;
} jb;

static void put(jb *b, json_t *o, const char *k, json_t *v)
{
    if (!v || json_object_set_new(o, k, v))
        b->bad = 1;
}

static void put_real(jb *b, json_t *o, const char *k, double v) { put(b, o, k, json_real(v)); }
static void put_int(jb *b, json_t *o, const char *k, int64_t v) { put(b, o, k, json_integer((json_int_t)v)); }

/* A seed above 2^63-1 does not fit a jansson integer; it is written as a
 * string of digits, which xc_synth_params_load also accepts. */
static json_t *seed_json(uint64_t seed)
{
    if (seed <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)seed);
    char s[24];
    snprintf(s, sizeof s, "%llu", (unsigned long long)seed);
    return json_string(s);
}

static json_t *pulse_params(jb *b, const xc_synth_pulse *pl)
{
    json_t *o = json_object();
    if (!o) {
        b->bad = 1;
        return NULL;
    }
    put_real(b, o, "t_s", pl->t_s);
    put_real(b, o, "dm", pl->dm);
    put_real(b, o, "width_ms", pl->width_ms);
    put_real(b, o, "snr", pl->snr);
    return o;
}

/* The inputs under the names xc_synth_params_load reads, so that
 * xc_synth_params_load(p, truth, "params") rebuilds the same parameters. */
static json_t *params_json(jb *b, const xc_synth_params *p)
{
    json_t *o = json_object(), *pls = json_array();
    if (!o || !pls) {
        json_decref(o);
        json_decref(pls);
        b->bad = 1;
        return NULL;
    }
    put_int(b, o, "nchans", p->nchans);
    put_int(b, o, "nbits", p->nbits);
    put_real(b, o, "tsamp_us", p->tsamp * 1e6);
    put_real(b, o, "tobs_s", p->tobs);
    put_real(b, o, "fch1", p->fch1);
    put_real(b, o, "foff", p->foff);
    put_real(b, o, "tstart", p->tstart);
    put(b, o, "seed", seed_json(p->seed));
    put(b, o, "convention", json_string(p->convention->name));
    put(b, o, "smear", json_boolean(p->smear));
    put(b, o, "noise", json_boolean(p->noise));
    put(b, o, "bitorder", json_string(p->bitorder == XC_BITORDER_MSB ? "msb" : "lsb"));
    put_real(b, o, "period_ms", p->psr.period_ms);
    put_real(b, o, "width_pct", p->psr.width_pct);
    put_real(b, o, "snrpeak", p->psr.snrpeak);
    put_real(b, o, "dm", p->psr.dm);
    for (size_t i = 0; i < p->npulses; i++) {
        json_t *x = pulse_params(b, &p->pulses[i]);
        if (!x || json_array_append_new(pls, x))
            b->bad = 1;
    }
    put(b, o, "pulses", pls);
    return o;
}

static json_t *pulsar_json(jb *b, const xc_synth_params *p)
{
    if (!(p->psr.period_ms > 0))
        return json_null();
    json_t *o = json_object();
    if (!o)
        return NULL;
    double P = p->psr.period_ms * 1e-3;
    put_real(b, o, "period_ms", p->psr.period_ms);
    put_real(b, o, "period_s", P);
    put_real(b, o, "f0_hz", 1.0 / P);
    put_real(b, o, "dm", p->psr.dm);
    put_real(b, o, "width_pct", p->psr.width_pct);
    put_real(b, o, "width_s", p->psr.width_pct / 100.0 * P);
    put_real(b, o, "snrpeak", p->psr.snrpeak);
    put_real(b, o, "amplitude_per_channel", p->psr.snrpeak / sqrt((double)p->nchans));
    /* Pulse k is centred at (k + 0.5)*P at fch1: phase 0.5 as in fake. */
    put_real(b, o, "first_pulse_centre_s", 0.5 * P);
    return o;
}

static json_t *pulses_json(jb *b, const xc_synth_params *p)
{
    json_t *a = json_array();
    if (!a)
        return NULL;
    const double flow = p->fch1 + (p->nchans - 1) * xc_synth_foff(p);
    for (size_t i = 0; i < p->npulses; i++) {
        const xc_synth_pulse *pl = &p->pulses[i];
        json_t *o = pulse_params(b, pl);
        if (!o || json_array_append_new(a, o)) {
            b->bad = 1;
            continue;
        }
        double wsamp = pl->width_ms * 1e-3 / p->tsamp;
        put_int(b, o, "arrival_sample", (int64_t)floor(pl->t_s / p->tsamp));
        put_real(b, o, "width_samples", wsamp);
        put_real(b, o, "amplitude_per_channel", pl->snr / sqrt((double)p->nchans));
        put_real(b, o, "delay_lowest_channel_s", xc_synth_delay(p, pl->dm, flow));
        /* A boxcar matched to W >= 1 samples sums W samples of S/N snr over
         * sqrt(W) noise; a pulse narrower than a sample puts its whole energy,
         * snr*W, into one sample. */
        put_real(b, o, "expected_boxcar_snr", wsamp >= 1 ? pl->snr * sqrt(wsamp) : pl->snr * wsamp);
    }
    return a;
}

char *xc_synth_truth_text(const xc_synth_params *p, const char *path, const char *cmdline, xc_error *err)
{
    jb b = {0};
    json_t *root = json_object(), *cv = json_object(), *model = json_object();
    if (!root || !cv || !model) {
        json_decref(root);
        json_decref(cv);
        json_decref(model);
        xc_error_set(err, XC_ENOMEM, "%s: out of memory building the truth file", path);
        return NULL;
    }
    put(&b, root, "generator", json_string("crosscheck synth"));
    put(&b, root, "command_line", cmdline ? json_string(cmdline) : json_null());
    put(&b, root, "file", json_string(path));
    put(&b, root, "params", params_json(&b, p));
    put(&b, cv, "name", json_string(p->convention->name));
    put_real(&b, cv, "kdm", p->convention->kdm);
    put(&b, root, "convention", cv);
    put(&b, root, "seed", seed_json(p->seed));
    put_int(&b, root, "nsamp", (int64_t)xc_synth_nsamp(p));
    put_real(&b, root, "tsamp_s", p->tsamp);
    put_real(&b, root, "foff_written", xc_synth_foff(p));

    put(&b, model, "time_origin", json_string("t = 0 at the start of sample 0; sample i covers [i*tsamp, (i+1)*tsamp)"));
    put(&b, model, "reference_frequency", json_string("fch1, the highest channel; delay = kdm*dm*(1/f^2 - 1/fch1^2)"));
    put(&b, model, "amplitude", json_string("snr/sqrt(nchans) noise sigmas per channel, times the fraction of "
                                            "each sample the top hat covers"));
    put_int(&b, model, "smear_subchannels", p->smear ? XC_SYNTH_NSUB : 1);
    put(&b, model, "noise", json_string(p->noise ? "N(0,1): Philox4x32-10 (key seed, counter sample and channel "
                                                   "pair) + Box-Muller"
                                                 : "none"));
    put(&b, model, "quantisation",
        json_string(p->nbits == 32 ? "float32"
                    : p->nbits == 1 ? "bit = x > 0"
                                    : "rint((x + 4)*(2^nbits - 1)/8) clipped to [0, 2^nbits - 1]"));
    put(&b, root, "model", model);
    put(&b, root, "pulsar", pulsar_json(&b, p));
    put(&b, root, "pulses", pulses_json(&b, p));
    char *s = b.bad ? NULL : json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    if (!s)
        xc_error_set(err, XC_ENOMEM, "%s: out of memory building the truth file", path);
    return s;
}
