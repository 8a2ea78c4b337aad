/* xc_smear.h: the "approximate" comparator: an approximate dedisperser's
 * output trials against direct dedispersion at the same DM, judged by the
 * S/N lost on injected pulses against the bound it declares for that trial.
 *
 * Pulses: noise-free boxcars of W samples (of the range), one per trial
 * measured, placed so that direct dedispersion at that trial lines every
 * channel up exactly (at the direct delays); the pulses of different trials
 * are spaced by more than the plan's largest delay, so each is measured alone.
 * S/N: the best boxcar (widths 1 .. W + bound + 2) over a window around the
 * pulse, sum / sqrt(width), the matched filter of a boxcar search; with the
 * same white noise in both planes (each output sample sums every channel once)
 * the noise cancels in the ratio, so the loss 1 - S/N_approx / S/N_direct is
 * the expected loss without the scatter of one noise draw.
 * Bound: core/dedisp/approx/xc_ddbound.h (core/dedisp/approx/xc_subband.h, core/dedisp/approx/xc_tree.h), loss <= 1 - sqrt(W / (W + S)) with S the trial's
 * bound in samples (scaled by bound_scale: a test plants a tighter, wrong one). */
#ifndef XC_SMEAR_H
#define XC_SMEAR_H

#include <stddef.h>

#include "core/dedisp/approx/xc_ddbound.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xc_smear_row {
    int range;
    size_t trial;
    double dm, nominal;         /* trial DM and the nominal DM that served it */
    int width;                  /* samples of the range */
    double width_us;
    double snr_direct, snr_approx, snr_loss;
    double smear;               /* S_cont, samples */
    int bound_samples;          /* S */
    double bound;               /* loss bound 1 - sqrt(W/(W + S)) (x bound_scale on S) */
    double expected;            /* quadrature estimate 1 - sqrt(W/sqrt(W^2 + S_cont^2)) */
    int pass;                   /* snr_loss <= bound (+1e-12) */
} xc_smear_row;

typedef struct {
    int nchans;
    double fch1, foff, tsamp;   /* MHz, MHz, s */
    const char *plan;           /* "lo:hi:step:ds,..." */
    const char *convention;     /* preset name (NULL: crosscheck) */
    const int *widths;          /* samples of each range */
    int nwidths;
    size_t every;               /* measure every `every`-th trial of each range (0: 1) */
    double bound_scale;         /* 1 for the derived bound; < 1 plants a wrong one */
} xc_smear_cfg;

/* Runs approx (an approximate dedisperser, judged by the bound its descriptor
 * declares; its options in opts) and direct on the pulses of cfg and appends
 * one row per (trial, width) to *rows (realloc'd; *n rows).  XC_EINVAL (bad
 * plan or convention, a plan the algorithm refuses, no declared bound),
 * XC_ENOMEM, or the implementations' errors. */
xc_status xc_smear_measure(const xc_dedisperser *approx, const xc_dedisperser *direct, const xc_ddopts *opts,
                           const xc_smear_cfg *cfg, xc_smear_row **rows, size_t *n, xc_error *err);
/* The same for any approximate dedisperser, judged by the per-trial bounds
 * `bounds` makes for the job, called with approx as self (the descriptor's bound member gives a
 * built-in one's).  XC_EINVAL if bounds is NULL. */
xc_status xc_smear_measure_bounds(const xc_dedisperser *approx, xc_ddbound_fn bounds, const xc_dedisperser *direct,
                                  const xc_ddopts *opts, const xc_smear_cfg *cfg, xc_smear_row **rows, size_t *n,
                                  xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
