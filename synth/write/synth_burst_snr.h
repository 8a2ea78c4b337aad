/* synth_burst_snr.h: the S/N a matched boxcar search should reach on a burst (not installed API). */
#ifndef XC_SYNTH_BURST_SNR_H
#define XC_SYNTH_BURST_SNR_H

#include <stdint.h>

#include "core/base/xc_error.h"
#include "synth/model/xc_synth.h"

/* The best box on the burst's noiseless dedispersed series: the band sum of
 * its channels, each as the synthesizer draws it (scattering, smearing,
 * spectral weight, integration over samples), shifted back by the rounded
 * delay a dedisperser of p's convention uses at the burst's own DM.  A box
 * of w samples starting at sample `start` (at fch1) has
 *     S/N = sum of the box / sqrt(nchans * w),
 * the band sum's noise being N(0, nchans) per sample before quantisation.
 * "best" is the largest over widths 1..32 and then steps of 10 % (every
 * start); "pow2" over the widths 1, 2, 4, ... (the single-pulse searches'
 * default list). */
typedef struct {
    double snr;
    int64_t width, start;
    double snr_pow2;
    int64_t width_pow2, start_pow2;
    double peak;   /* the largest sample's S/N (box of 1) */
} xc_burst_box;

/* XC_EINVAL (a burst whose series would exceed 2^22 samples), XC_ENOMEM. */
xc_status xc_burst_box_snr(const xc_synth_params *p, const xc_synth_pulse *pl, xc_burst_box *out, xc_error *err);

#endif
