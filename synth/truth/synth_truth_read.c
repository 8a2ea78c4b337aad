/* The one reader of truth files (synth/write/synth_truth.c writes them). */
#include "synth/truth/xc_truth.h"

#include <math.h>
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
