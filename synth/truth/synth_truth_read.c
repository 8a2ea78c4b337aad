/* The one reader of truth files (synth/write/synth_truth.c writes them). */
#include "synth/truth/xc_truth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int get_num(const json_t *root, const char *key, double *out)
{
    static const char *const where[] = {NULL, "pulsar", "truth", "params"};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        const json_t *o = where[i] ? json_object_get(root, where[i]) : root;
        const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
        if (json_is_number(v)) {
            *out = json_number_value(v);
            return 1;
        }
    }
    return 0;
}

int xc_truth_has_pulsar(const xc_truth *t)
{
    return t->f0_hz > 0 && isfinite(t->f0_hz);
}

xc_status xc_truth_parse(xc_truth *t, const json_t *root, const char *src, double T, xc_error *err)
{
    memset(t, 0, sizeof *t);
    double f0 = NAN, p = NAN, r = NAN, z = NAN, tobs = NAN, nsamp = NAN, tsamp = NAN;
    if (!get_num(root, "f0_hz", &f0)) {
        if (get_num(root, "period_s", &p))
            f0 = 1.0 / p;
        else if (get_num(root, "period_ms", &p))
            f0 = 1e3 / p;
    }
    t->f0_hz = f0;
    if (!get_num(root, "tobs_s", &tobs) && get_num(root, "nsamp", &nsamp) && get_num(root, "tsamp_s", &tsamp))
        tobs = nsamp * tsamp;
    t->T = T > 0 && isfinite(T) ? T : (tobs > 0 && isfinite(tobs) ? tobs : 0);
    int hr = get_num(root, "r", &r), hz = get_num(root, "z", &z);
    if ((hr && !isfinite(r)) || (hz && !isfinite(z)))
        return xc_error_set(err, XC_EFORMAT, "%s: r %g / z %g must be finite", src, r, z);
    t->have_rz = hr;
    t->r = hr ? r : (t->T > 0 ? f0 * t->T : NAN);
    t->z = hz ? z : 0.0;
    if (xc_truth_has_pulsar(t) && !hr && t->T > 0 && !isfinite(t->r))
        return xc_error_set(err, XC_EFORMAT, "%s: r = f0 %g Hz x T %g s is not finite", src, f0, t->T);
    t->w = NAN;
    get_num(root, "w", &t->w);
    const json_t *ex = json_object_get(json_object_get(root, "pulsar"), "expected");
    const json_t *sf = json_object_get(ex, "snr_folded");
    t->snr_folded = json_is_number(sf) ? json_number_value(sf) : NAN;
    const json_t *dn = json_object_get(json_object_get(root, "dedispersed"), "nsamp");
    t->nsamp_dedispersed = json_is_integer(dn) && json_integer_value(dn) > 0 ? (uint64_t)json_integer_value(dn) : 0;
    return XC_OK;
}

xc_status xc_truth_load(xc_truth *t, const char *path, double T, xc_error *err)
{
    memset(t, 0, sizeof *t);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d, column %d: %s", path, je.line, je.column, je.text);
    xc_status st = xc_truth_parse(t, root, path, T, err);
    json_decref(root);
    return st;
}

xc_status xc_truth_read(xc_truth *t, const char *path, double T, xc_error *err)
{
    xc_status st = xc_truth_load(t, path, T, err);
    if (!st && !xc_truth_has_pulsar(t))
        st = xc_error_set(err, XC_EFORMAT, "%s: no positive spin frequency (f0_hz, period_s or period_ms; "
                          "\"pulsar\" may be null for a file without a pulsar): got %g", path, t->f0_hz);
    return st;
}

void xc_truth_free(xc_truth *t)
{
    free(t->pulses);
    t->pulses = NULL;
    t->npulses = 0;
}

/* o[key] as a finite number into *out; absent: *out = NaN and 0 (or, when
 * needed, XC_EFORMAT). */
static xc_status pulse_num(const json_t *o, const char *key, int needed, const char *src, size_t i, double *out,
                           xc_error *err)
{
    const json_t *v = json_object_get(o, key);
    *out = NAN;
    if (!v && !needed)
        return XC_OK;
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || fabs(json_number_value(v)) > 1e9)
        return xc_error_set(err, XC_EFORMAT, "%s: pulses[%zu].%s: %s", src, i, key,
                            v ? "not a finite number within -1e9..1e9" : "missing");
    *out = json_number_value(v);
    return XC_OK;
}

xc_status xc_truth_parse_pulses(xc_truth *t, const json_t *root, const char *src, xc_error *err)
{
    xc_truth_free(t);
    const json_t *a = json_object_get(root, "pulses");
    if (!a || json_is_null(a))
        return XC_OK;
    if (!json_is_array(a))
        return xc_error_set(err, XC_EFORMAT, "%s: \"pulses\" is not an array", src);
    size_t n = json_array_size(a);
    xc_truth_pulse *p = n ? calloc(n, sizeof *p) : NULL;
    if (n && !p)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory for %zu pulses", src, n);
    xc_status st = XC_OK;
    for (size_t i = 0; i < n && !st; i++) {
        const json_t *o = json_array_get(a, i);
        if (!json_is_object(o)) {
            st = xc_error_set(err, XC_EFORMAT, "%s: pulses[%zu] is not an object", src, i);
            break;
        }
        if ((st = pulse_num(o, "t_s", 1, src, i, &p[i].t_s, err)) ||
            (st = pulse_num(o, "dm", 1, src, i, &p[i].dm, err)) ||
            (st = pulse_num(o, "width_ms", 1, src, i, &p[i].width_ms, err)) ||
            (st = pulse_num(o, "snr", 0, src, i, &p[i].snr, err)) ||
            (st = pulse_num(o, "expected_boxcar_snr", 0, src, i, &p[i].expected_boxcar_snr, err)))
            break;
        if (p[i].width_ms < 0)
            st = xc_error_set(err, XC_EFORMAT, "%s: pulses[%zu].width_ms: %g is negative", src, i, p[i].width_ms);
    }
    if (st) {
        free(p);
        return st;
    }
    t->pulses = p;
    t->npulses = n;
    return XC_OK;
}

xc_status xc_truth_load_pulses(xc_truth *t, const char *path, xc_error *err)
{
    memset(t, 0, sizeof *t);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d, column %d: %s", path, je.line, je.column, je.text);
    xc_status st = xc_truth_parse(t, root, path, 0, err);
    if (!st)
        st = xc_truth_parse_pulses(t, root, path, err);
    if (!st && !t->npulses)
        st = xc_error_set(err, XC_EFORMAT, "%s: no single pulses (an empty or absent \"pulses\" array)", path);
    json_decref(root);
    if (st)
        xc_truth_free(t);
    return st;
}
