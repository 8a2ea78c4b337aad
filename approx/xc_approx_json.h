/* xc_approx_json.h: the results of the approximation measurements
 * (xc_approx.h) as JSON objects, under the names `crosscheck check
 * approximations -json` writes.  Each returns a new reference, NULL when out
 * of memory; a number that is not finite is written as null. */
#ifndef XC_APPROX_JSON_H
#define XC_APPROX_JSON_H

#include <stddef.h>

#include <jansson.h>

#include "approx/xc_approx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* {"mean", "sd", "n"} */
json_t *xc_meansd_json(const xc_meansd *m);
/* One block size of measurement 1, with its prediction. */
json_t *xc_mom_blocks_json(const xc_mom_blocks *b);
/* The normalised powers of measurement 1; pred_exact and pred_mom are
 * xc_approx_mean_power_pred under each estimator. */
json_t *xc_mom_powers_json(const xc_mom_powers *p, double pred_exact, double pred_mom);
/* Measurement 2: the grid's errors and the curves. */
json_t *xc_logp_check_json(const xc_logp_check *l);
/* Measurement 3: per mode and per pulsar. */
json_t *xc_zloss_json(const xc_zloss_opts *o, const xc_zloss_result *r);
/* Measurement 4: one boxcar test of seed number seed_index, one false-alarm
 * threshold for spectra of nbins bins. */
json_t *xc_noise_ks_json(const xc_noise_ks *k, int seed_index);
json_t *xc_noise_fa_json(const xc_noise_fa *f, size_t nbins);

#ifdef __cplusplus
}
#endif
#endif
