/* FRB populations: the "frb" object of a population spec and its draws. */
#include "synth/population/synth_frb.h"
#include "synth/noise/synth_noise.h"
#include "core/base/xc_spec.h"

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const json_t *fl, *w, *dm, *tau, *t;
    double tau_ref, tau_index, alpha;
} frb_top;

static const xc_spec_field top_fields[] = {
    XC_SPEC_O(frb_top, "fluence_jyms", 1, fl, NULL),
    XC_SPEC_O(frb_top, "width_ms", 1, w, NULL),
    XC_SPEC_O(frb_top, "dm", 1, dm, NULL),
    XC_SPEC_O(frb_top, "tau_ms", 0, tau, NULL),
    XC_SPEC_O(frb_top, "t_frac", 0, t, NULL),
    XC_SPEC_N(frb_top, "tau_ref_mhz", 0, tau_ref, 1e-300, DBL_MAX),
    XC_SPEC_N(frb_top, "tau_index", 0, tau_index, -DBL_MAX, DBL_MAX),
    XC_SPEC_N(frb_top, "alpha", 0, alpha, -DBL_MAX, DBL_MAX),
    XC_SPEC_END,
};

typedef struct {
    double min, max, index;
} law;
static const xc_spec_field law_fields[] = {
    XC_SPEC_N(law, "min", 1, min, 1e-300, DBL_MAX),
    XC_SPEC_N(law, "max", 0, max, 0, DBL_MAX),
    XC_SPEC_N(law, "index", 0, index, -DBL_MAX, -1e-300),
    XC_SPEC_END,
};

typedef struct {
    double median, sigma;
} lognormal;
static const xc_spec_field logn_fields[] = {
    XC_SPEC_N(lognormal, "median", 1, median, 1e-300, DBL_MAX),
    XC_SPEC_N(lognormal, "sigma_ln", 1, sigma, 0, DBL_MAX),
    XC_SPEC_END,
};

typedef struct {
    const char *dist;
    double lo, hi;
} range;
static const xc_spec_field range_fields[] = {
    XC_SPEC_S(range, "dist", 0, dist, NULL),
    XC_SPEC_N(range, "lo", 1, lo, 0, DBL_MAX),
    XC_SPEC_N(range, "hi", 1, hi, 0, DBL_MAX),
    XC_SPEC_END,
};

xc_status xc_frbdraw_read(xc_frbdraw *d, const json_t *obj, const char *path, xc_error *err)
{
    memset(d, 0, sizeof *d);
    frb_top t = {NULL, NULL, NULL, NULL, NULL, XC_SYNTH_TAU_REF_MHZ, XC_SYNTH_TAU_INDEX, 0};
    law fl = {0, 0, -1.5};
    lognormal w = {0, 0}, tau = {0, 0};
    range dm = {"uniform", 0, 0}, tf = {NULL, 0.25, 0.5};
    xc_status st;
    if ((st = xc_spec_read(obj, path, "frb", top_fields, &t, err)) ||
        (st = xc_spec_read(t.fl, path, "frb.fluence_jyms", law_fields, &fl, err)) ||
        (st = xc_spec_read(t.w, path, "frb.width_ms", logn_fields, &w, err)) ||
        (st = xc_spec_read(t.dm, path, "frb.dm", range_fields, &dm, err)) ||
        (t.tau && (st = xc_spec_read(t.tau, path, "frb.tau_ms", logn_fields, &tau, err))) ||
        (t.t && (st = xc_spec_read(t.t, path, "frb.t_frac", range_fields, &tf, err))))
        return st;
    if (fl.max != 0 && !(fl.max > fl.min))
        return xc_error_set(err, XC_EINVAL, "%s: frb.fluence_jyms.max = %.15g: must be above min = %.15g (or absent)",
                            path, fl.max, fl.min);
    int dlog = !strcmp(dm.dist, "loguniform");
    if (!dlog && strcmp(dm.dist, "uniform"))
        return xc_error_set(err, XC_EINVAL, "%s: frb.dm.dist = \"%s\": must be \"uniform\" or \"loguniform\"", path,
                            dm.dist);
    if (!(dm.lo <= dm.hi) || (dlog && !(dm.lo > 0)))
        return xc_error_set(err, XC_EINVAL, "%s: frb.dm: lo = %.15g, hi = %.15g: must have lo <= hi%s", path, dm.lo,
                            dm.hi, dlog ? " and lo > 0" : "");
    if (!(tf.lo <= tf.hi) || !(tf.hi < 1))
        return xc_error_set(err, XC_EINVAL, "%s: frb.t_frac: lo = %.15g, hi = %.15g: must have 0 <= lo <= hi < 1",
                            path, tf.lo, tf.hi);
    *d = (xc_frbdraw){1,      fl.min,     fl.max,     fl.index, w.median, w.sigma, dlog,  dm.lo,
                      dm.hi,  tau.median, tau.sigma,  t.tau_ref, t.tau_index, t.alpha, tf.lo, tf.hi};
    return XC_OK;
}

/* Uniform in [0, 1) of value k of burst i, attempt a: its own counter. */
static double u01(uint64_t seed, uint64_t i, int a, int k)
{
    uint32_t w[4];
    xc_synth_words(seed, XC_STREAM_DRAW, i, 0x46524200u + 16u * (uint32_t)a + (uint32_t)k, w);
    return (double)((((uint64_t)w[0] << 32) | w[1]) >> 11) * 0x1p-53;
}

/* exp(ln median + sigma z), z ~ N(0, 1) by Box-Muller from values k and k+1. */
static double lognormal_draw(double median, double sigma, uint64_t seed, uint64_t i, int a, int k)
{
    double u1 = 1.0 - u01(seed, i, a, k), u2 = u01(seed, i, a, k + 1);
    return median * exp(sigma * sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2));
}

xc_status xc_frbdraw_add(const xc_frbdraw *d, uint64_t seed, uint64_t i, int a, xc_synth_params *p, xc_error *err)
{
    const double g = d->findex, u = u01(seed, i, a, 0);
    /* inverse CDF of N(>F) ~ F^g: the upper bound's term vanishes without one */
    const double fhi = d->fmax > 0 ? pow(d->fmax, g) : 0.0;
    const double f = pow(pow(d->fmin, g) + u * (fhi - pow(d->fmin, g)), 1.0 / g);
    const double ud = u01(seed, i, a, 1);
    const double dm = d->dm_log ? exp(log(d->dm_lo) + ud * (log(d->dm_hi) - log(d->dm_lo)))
                                : d->dm_lo + ud * (d->dm_hi - d->dm_lo);
    xc_synth_pulse pl;
    xc_synth_pulse_init(&pl, (d->t_lo + u01(seed, i, a, 2) * (d->t_hi - d->t_lo)) * p->tobs, dm,
                        lognormal_draw(d->w_median, d->w_sigma, seed, i, a, 3), 0);
    pl.fluence_jyms = f;
    pl.tau_ms = d->tau_median > 0 ? lognormal_draw(d->tau_median, d->tau_sigma, seed, i, a, 5) : 0.0;
    pl.tau_ref_mhz = d->tau_ref_mhz;
    pl.tau_index = d->tau_index;
    pl.alpha = d->alpha;
    return xc_synth_params_add_pulse(p, &pl, err);
}
