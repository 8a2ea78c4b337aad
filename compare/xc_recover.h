/* xc_recover.h: does a dedispersed plane show the signals the truth file says
 * were injected?  Single pulses are looked for with a boxcar matched filter;
 * periodic signals with a power spectrum.
 *
 * S/N of a boxcar of w samples at DM row d:  sum_{w}(x - median_d) / (sigma_d sqrt(w)),
 * sigma_d = 1.4826 * MAD of the row (robust against the pulse itself). */
#ifndef XC_RECOVER_H
#define XC_RECOVER_H

#include <stddef.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int found;
    int range;
    size_t idm;
    double dm;
    double dm_step;    /* spacing of the trials around the found DM */
    double t_s;        /* start of the best boxcar at the highest channel, s */
    int width;         /* boxcar width in samples of its range */
    double snr;
} xc_pulsefind;

/* Searches every trial for the best boxcar (widths 1 .. 2*width_s/(tsamp*ds)+1)
 * whose window lies within [t_s - window_s, t_s + window_s] (times at the
 * highest channel).  XC_EINVAL for an empty plane. */
xc_status xc_recover_pulse(const xc_plane *pl, const xc_dmplan *plan, double tsamp, double t_s,
                           double width_s, double window_s, xc_pulsefind *out, xc_error *err);

/* S/N of every trial of range k for a boxcar centred on t_s (best width and
 * position within +-window_s), for S/N-versus-DM curves: snr[ndm]. */
xc_status xc_recover_snr_curve(const xc_plane *pl, const xc_dmplan *plan, int k, double tsamp,
                               double t_s, double width_s, double window_s, double *snr, xc_error *err);

typedef struct {
    double f_hz;       /* frequency of the strongest bin above fmin */
    double bin_hz;     /* 1/T */
    double power;      /* its normalised power: P / (median P / ln 2), mean 1 for noise */
    size_t nbins;
} xc_powerpeak;

/* Power spectrum of a series (mean removed, FFTW double, N = n samples):
 * finds the strongest bin with frequency >= fmin_hz.  If spec is not NULL it
 * gets a malloc'd array of the normalised powers of bins 0..n/2 (caller frees). */
xc_status xc_power_peak(const float *x, size_t n, double tsamp, double fmin_hz, xc_powerpeak *out,
                        double **spec, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
