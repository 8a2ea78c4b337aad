/* xc_ddrecord.h: what an approximate dedisperser made its plan with, as the
 * plane file records it ("approximate" in OUT.json, core/dedisp/run/xc_planefile.h):
 * the algorithm and every parameter as resolved (given or chosen from the
 * geometry), the loss limit and width (core/dedisp/approx/xc_ddloss.h), the worst
 * declared loss, and per range the per-trial bound: nominal DM, S_cont
 * (smear_samples), S (bound_samples) and the loss bound at the width. */
#ifndef XC_DDRECORD_H
#define XC_DDRECORD_H

#include <stddef.h>

#include <jansson.h>

#include "core/dedisp/approx/xc_ddloss.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The record of self (an entry with a bound method) for a prepared job:
 * *out a new JSON object, *loss the worst declared loss, and setup (n
 * bytes) the parameters in words for messages ("nsub 2 (given), ..."). */
xc_status xc_ddapprox_record(const xc_dedisperser *self, const xc_ddjob *job, json_t **out, xc_ddloss *loss,
                             char *setup, size_t n, xc_error *err);
/* The record, then xc_ddloss_check with a remedy fitting self's algorithm:
 * XC_EINVAL (and *out NULL) when the declared loss is above the job's limit. */
xc_status xc_ddapprox_record_checked(const xc_dedisperser *self, const xc_ddjob *job, json_t **out, xc_ddloss *loss,
                                     xc_error *err);
/* Both: XC_EINVAL if self declares no bound; XC_ENOMEM. */

#ifdef __cplusplus
}
#endif
#endif
