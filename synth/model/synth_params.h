/* synth_params.h: the synthesizer's checks of one field each (not installed API). */
#ifndef XC_SYNTH_PARAMS_H
#define XC_SYNTH_PARAMS_H

#include "synth/model/xc_synth.h"

#define XC_SYNTH_MAX_NCHANS (1 << 24)

/* Each checks one field; `src` (a file name or NULL) prefixes the message, which
 * names the JSON field, the CLI option and the value.  XC_EINVAL. */
xc_status xc_synth_check_nchans(const char *src, long v, xc_error *err);
xc_status xc_synth_check_nbits(const char *src, long v, xc_error *err);
xc_status xc_synth_check_tsamp(const char *src, double tsamp_s, xc_error *err);
xc_status xc_synth_check_tobs(const char *src, double v, xc_error *err);
xc_status xc_synth_check_fch1(const char *src, double v, xc_error *err);
xc_status xc_synth_check_foff(const char *src, double v, xc_error *err);
xc_status xc_synth_check_finite(const char *src, const char *field, const char *opt, double v, xc_error *err);
xc_status xc_synth_check_positive(const char *src, const char *field, const char *opt, double v, xc_error *err);
xc_status xc_synth_check_dm(const char *src, const char *field, const char *opt, double v, xc_error *err);
xc_status xc_synth_check_period(const char *src, double v, xc_error *err);
xc_status xc_synth_check_width_pct(const char *src, double v, xc_error *err);
xc_status xc_synth_check_ecc(const char *src, double v, xc_error *err);
xc_status xc_synth_check_npol(const char *src, long v, xc_error *err);
xc_status xc_synth_check_pulse(const char *src, size_t i, const xc_synth_pulse *pl, xc_error *err);

#endif
