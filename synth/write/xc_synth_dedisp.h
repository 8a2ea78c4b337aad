/* xc_synth_dedisp.h: the synthesizer's dedispersed series in memory, with its truth
 * (the fast path of xc_synth_write_dedispersed without a file). */
#ifndef XC_SYNTH_DEDISP_H
#define XC_SYNTH_DEDISP_H

#include <stdint.h>

#include "core/base/xc_error.h"
#include "synth/model/xc_synth.h"
#include "synth/truth/xc_truth.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The same series in memory, for the study runner: *x gets the *n samples
 * the .dat would hold (malloc'd, the caller frees), *truth what the truth
 * file would say (label: what it names as its file), the struct
 * xc_truth_read would give.  Nothing is written. */
xc_status xc_synth_dedispersed_series(const xc_synth_params *p, const char *label, float **x, uint64_t *n,
                                      xc_truth *truth, xc_error *err);

/* Where xc_synth_dedispersed_into writes: buffer(ctx, n) hands over room
 * for the series' n samples (NULL: out of memory), called once, before any
 * sample is made. */
typedef struct {
    float *(*buffer)(void *ctx, uint64_t n);
    void *ctx;
} xc_synth_dest;

/* The same series made straight into dest's buffer (the study's transform
 * input: no copy); *x gets that buffer (NULL if none was handed out; the
 * caller owns it, also on failure), *n and *truth as above.  The same bytes
 * as xc_synth_dedispersed_series. */
xc_status xc_synth_dedispersed_into(const xc_synth_params *p, const char *label, const xc_synth_dest *dest,
                                    float **x, uint64_t *n, xc_truth *truth, xc_error *err);

/* The truth of that series without making it: what a dedisperser of the
 * filterbank at the pulsar's DM (one trial, the convention's delays) gives
 * describes the same even count of samples (truth->nsamp_dedispersed). */
xc_status xc_synth_dedispersed_truth(const xc_synth_params *p, const char *label, xc_truth *t, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
