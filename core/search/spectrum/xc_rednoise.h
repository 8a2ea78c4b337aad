/* xc_rednoise.h: red-noise removal from a spectrum before a periodicity
 * search, by PRESTO's method (Ransom, PRESTO src/misc_utils.c dered_engine,
 * used by the `rednoise` program and by accelsearch for .dat input).
 *
 * Bins 1..nbins-1 are cut into consecutive blocks whose length grows
 * logarithmically with frequency: the first holds startwidth bins, each next
 * one (int)(startwidth * ln(b)) bins, b being the index of its first bin,
 * capped at endwidth, and endwidth from the first block that starts at or
 * above endfreq Hz (PRESTO compares in float: (float)b / (float)T).  The
 * local level of each block is median(|X|^2)/ln 2 (the mean of exponential
 * noise powers; the exact median, the two middle values averaged for an even
 * count); amplitudes are divided by the square root of that level,
 * interpolated linearly between the midpoints of neighbouring blocks (the
 * first half of the first block at its own level, the second half of the
 * last one on the last slope).  Noise powers then have mean 1 at every
 * frequency, whatever slope the red noise has.  Bin 0 (DC and the packed
 * Nyquist value, never searched) is left as it is; PRESTO sets it to 1.
 * Arithmetic in double (PRESTO: float and a fast inverse square root), so
 * values agree with PRESTO's to float rounding.
 *
 * The searches' parameters are accelsearch's for a .dat series
 * (src/accel_utils.c create_accelobs: deredden(fft, numbins, 6, 200,
 * 0.5/dt, T), the window growing all the way to Nyquist). */
#ifndef XC_REDNOISE_H
#define XC_REDNOISE_H

#include <stddef.h>

#include "core/base/xc_error.h"
#include "core/search/xc_spectrum.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XC_REDNOISE_STARTWIDTH 6
#define XC_REDNOISE_ENDWIDTH 200

/* Dereddens X (nbins complex float32, PRESTO .fft layout) in place.
 * XC_EINVAL for startwidth < 2, endwidth < startwidth, nbins < startwidth + 1
 * or T <= 0; XC_EINVAL naming the block where a block's median power is 0 or
 * not finite (nothing to divide by; X is then unchanged). */
xc_status xc_deredden(float *X, size_t nbins, int startwidth, int endwidth, double endfreq, double T,
                      xc_error *err);

/* The searches' step: *out is a dereddened copy of sp with accelsearch's
 * parameters (6, 200, Nyquist = nbins/T), owned (xc_spectrum_free). */
xc_status xc_spectrum_deredden(const xc_spectrum *sp, xc_spectrum *out, xc_error *err);
/* What a search reads: sp itself (*use = sp, *tmp emptied) when on = 0,
 * else its dereddened copy in *tmp (*use = tmp).  xc_spectrum_free(tmp)
 * afterwards in both cases. */
xc_status xc_spectrum_whiten(const xc_spectrum *sp, int on, xc_spectrum *tmp, const xc_spectrum **use,
                             xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
