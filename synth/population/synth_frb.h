/* synth_frb.h: FRB populations: one burst per file drawn from the "frb"
 * object of a population spec.
 *
 *   "frb": { "fluence_jyms": {"min": F0, "max": F1, "index": -1.5},
 *            "width_ms":     {"median": W, "sigma_ln": S},
 *            "dm":           {"dist": "uniform"|"loguniform", "lo": A, "hi": B},
 *            "tau_ms":       {"median": T, "sigma_ln": S},      (optional: none)
 *            "tau_ref_mhz": 1000, "tau_index": -4, "alpha": 0,  (optional)
 *            "t_frac":       {"lo": 0.25, "hi": 0.5} }          (optional)
 *
 * Fluences follow the cumulative power law N(>F) ~ F^index (-1.5: a
 * Euclidean population, the "logN-logS" of FRB surveys, e.g. James et al.
 * 2019) on [min, max] (max optional: no upper bound), drawn by the inverse
 * CDF F = (F0^g + u (F1^g - F0^g))^(1/g), g = index.  Widths and scattering
 * times are log-normal (ln X ~ N(ln median, sigma_ln^2)); the centre at fch1
 * is uniform in [lo, hi] * tobs.  Every value comes from its own Philox
 * counter (the population's draw stream, key seed, counter file id and
 * attempt), so a file's burst depends on neither N nor the other draws. */
#ifndef XC_SYNTH_FRB_H
#define XC_SYNTH_FRB_H

#include <stdint.h>

#include "core/base/xc_error.h"
#include "synth/model/xc_synth.h"

typedef struct {
    int on;
    double fmin, fmax, findex;   /* fmax 0: no upper bound */
    double w_median, w_sigma;
    int dm_log;
    double dm_lo, dm_hi;
    double tau_median, tau_sigma; /* tau_median 0: no scattering */
    double tau_ref_mhz, tau_index, alpha;
    double t_lo, t_hi;
} xc_frbdraw;

struct json_t;
/* Reads the "frb" object (obj) of spec `path`; errors name the field and the value.  XC_EINVAL. */
xc_status xc_frbdraw_read(xc_frbdraw *d, const struct json_t *obj, const char *path, xc_error *err);
/* Appends burst i (attempt a) of seed `seed` to p (its tobs, sefd and npol already set).  XC_ENOMEM. */
xc_status xc_frbdraw_add(const xc_frbdraw *d, uint64_t seed, uint64_t i, int a, xc_synth_params *p, xc_error *err);

#endif
