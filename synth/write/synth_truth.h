/* synth_truth.h: the truth file's writer (not installed API). */
#ifndef XC_SYNTH_TRUTH_H
#define XC_SYNTH_TRUTH_H

#include "synth/model/xc_synth.h"
#include "synth/truth/xc_truth.h"

/* The truth file's text (JSON, caller frees), or NULL with err set (XC_ENOMEM).
 * `dedisp` (may be NULL) describes the .dat of the fast path. */
typedef struct {
    double dm;
    uint64_t nsamp;
    int64_t max_delay;
    double mean, sigma, gain;   /* of the noise and signal in the output units */
} xc_dedisp_info;
char *xc_synth_truth_text(const xc_synth_params *p, const char *path, const char *cmdline,
                          const xc_dedisp_info *dedisp, xc_error *err);
/* The same truth as a struct (what xc_truth_parse of that text gives, read
 * from the tree before it is written out): the in-memory synthesis. */
xc_status xc_synth_truth(const xc_synth_params *p, const char *label, const xc_dedisp_info *dedisp, xc_truth *t,
                         xc_error *err);
/* xc_synth_truth of the filterbank (no dedispersed series) with its single
 * pulses (an FRB study's bursts); release with xc_truth_free. */
xc_status xc_synth_truth_pulses(const xc_synth_params *p, const char *label, xc_truth *t, xc_error *err);

#endif
