/* xc_approx_zloss.h: detections lost on a synthetic set of accelerated
 * pulsars (measurement 3 of xc_approx.h) under the z sampling, peak modes,
 * normalisation and ln p forms of xc_approx_mode, against the exact search.
 * The pulsars are synthesized, transformed and searched in memory. */
#ifndef XC_APPROX_ZLOSS_H
#define XC_APPROX_ZLOSS_H

#include <stddef.h>
#include <stdint.h>

#include "compare/xc_cmpcands.h"
#include "core/base/xc_error.h"
#include "core/search/xc_search.h"
#include "synth/model/xc_synth.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    XC_APPROX_EXACT = 0,   /* (a) every z (zstep 1), local maxima, exact median, exact ln p */
    XC_APPROX_ZLOG,        /* (b) z in {0, 1, 2, 4, ...} */
    XC_APPROX_RBLOCK,      /* (c) one peak per R-block and width (Pulscan's) */
    XC_APPROX_ZLOG_RBLOCK, /* (d) both */
    XC_APPROX_MOM,         /* (e) median-of-medians normalisation */
    XC_APPROX_POLY,        /* (f) the appendix polynomial for ln p (and so sigma) */
    XC_APPROX_GPU,         /* (g) all of b-f together, as the GPU version */
    XC_APPROX_NMODES
} xc_approx_mode;

/* "a", "b", ... and a short description. */
const char *xc_approx_mode_key(xc_approx_mode m);
const char *xc_approx_mode_desc(xc_approx_mode m);

typedef struct {
    /* the observation (a filterbank at DM 0, summed over channels: dispersion plays no part) */
    int nchans, nbits;
    double tsamp, tobs;       /* s; tobs/tsamp should be even (the FFT needs it) */
    double width_pct;         /* duty cycle of the top-hat pulses */
    /* the search */
    int zmax, numharm;
    size_t normwidth;         /* every mode (the GPU's 4096, so that (e) differs only by the estimator) */
    /* a bright unaccelerated pulsar (noiseless, top hat of the same duty
     * cycle) added to every spectrum, so that R-block mode has a stronger
     * signal in the block to lose the faint one to: its fundamental's
     * normalised power (0: none) and frequency (0: r = 0.95 x 32768, Pulscan's
     * default chunkwidth, so it shares the first R-block with every pulsar
     * below that) */
    double bright_power, bright_f_hz;
    double sigma_det;         /* detection: a candidate with sigma > this ... */
    double ftol;              /* ... within ftol (relative) of the mean apparent frequency */
    int threads;
} xc_zloss_opts;

/* 64 channels, 8 bits, 128 us, 2^18 samples (33.55 s), 5 % duty cycle,
 * zmax 200, numharm 1, normwidth 4096, no bright pulsar, sigma_det 6 and
 * ftol 0.01 (the paper's), threads 0 (OpenMP default). */
void xc_zloss_opts_init(xc_zloss_opts *o);

typedef struct {
    double f_hz;              /* mean apparent spin frequency */
    double z;                 /* drift in bins over the observation (sign: of fdot) */
    double target_sigma;      /* the design sigma of the mode (a) fundamental */
    double snrpeak;           /* xc_zloss_snrpeak of the above */
    uint64_t seed;            /* noise seed of its observation */
} xc_zloss_spec;

/* The snrpeak (band-summed S/N of an on-pulse sample) for which the expected
 * stage-1 boxcar of width |z| + 1, dof + P, has sigma = target_sigma with the
 * search's trials, P = 2 N (a sin(pi d) / pi)^2 being the fundamental's
 * normalised power (a = snrpeak x the quantiser's gain/rms, d the duty cycle,
 * N the samples).  NAN if the target cannot be met. */
double xc_zloss_snrpeak(const xc_zloss_opts *o, double z, double target_sigma);
/* The snrpeak whose fundamental has normalised power P (the relation above). */
double xc_zloss_snrpeak_for_power(const xc_zloss_opts *o, double P);
/* The bright pulsar's frequency under o (bright_f_hz, or its default). */
double xc_zloss_bright_f(const xc_zloss_opts *o);

/* npsr pulsars drawn from `seed`: f uniform in [f_lo, f_hi] Hz, |z| uniform in
 * [0, zmax] with a random sign, target sigma uniform in [s_lo, s_hi], noise
 * seeds from the same stream.  XC_EINVAL for empty ranges. */
xc_status xc_zloss_draw(const xc_zloss_opts *o, uint64_t seed, size_t npsr, double f_lo, double f_hi, double s_lo,
                        double s_hi, xc_zloss_spec *out, xc_error *err);

#define XC_APPROX_NZBIN 5      /* |z| bins of width zmax/5 for the detection fraction */

typedef struct {
    xc_zloss_spec spec;
    double r_true, z_true;                 /* xc_approx_synth_truth (z_true signed) */
    double sigma[XC_APPROX_NMODES];        /* best candidate within ftol of f: its sigma (0: none) */
    double r[XC_APPROX_NMODES], z[XC_APPROX_NMODES];
    int det[XC_APPROX_NMODES];             /* sigma > sigma_det */
    int harm[XC_APPROX_NMODES];            /* a harmonic or subharmonic above sigma_det */
} xc_zloss_psr;

typedef struct {
    size_t npsr;
    xc_zloss_psr *psr;                     /* owned */
    size_t ndet[XC_APPROX_NMODES];
    size_t nlost[XC_APPROX_NMODES];        /* detected by (a), not by this mode */
    size_t ngained[XC_APPROX_NMODES];      /* detected by this mode, not by (a) */
    size_t nharm[XC_APPROX_NMODES];        /* pulsars with a harmonic above sigma_det */
    double frac[XC_APPROX_NMODES];         /* ndet / npsr */
    double sigma_loss[XC_APPROX_NMODES];   /* mean sigma(a) - sigma(mode) over (a)'s detections */
    double sigma_loss_both[XC_APPROX_NMODES];  /* the same over pulsars both detect */
    double mean_abs_dr[XC_APPROX_NMODES], mean_abs_dz[XC_APPROX_NMODES];  /* over its detections */
    double zedge[XC_APPROX_NZBIN + 1];
    size_t zcount[XC_APPROX_NZBIN];
    double zfrac[XC_APPROX_NMODES][XC_APPROX_NZBIN];   /* NAN for an empty bin */
} xc_zloss_result;

/* Synthesizes each pulsar (xc_approx_synth_dm0 of the filterbank o describes,
 * plus the bright pulsar, drawn once per run, when o->bright_power > 0),
 * transforms it (single precision, as `crosscheck fft`), searches it with
 * `searcher` under every mode, o->threads pulsars at once (one thread each,
 * so the searcher must be safe to run concurrently; FFTW's planning is
 * serialised), and matches the candidates against its truth
 * (xc_cands_match_truth with f0 = the mean apparent frequency r/T, so that a
 * drift of up to zmax bins never moves a detection out of the window).  res
 * is overwritten; free with xc_zloss_result_free.  XC_EINVAL (no searcher,
 * bad options), XC_ENOMEM, or the steps' errors, naming the first pulsar
 * that failed. */
xc_status xc_zloss_run(const xc_zloss_opts *o, const xc_searcher *searcher, const xc_zloss_spec *specs, size_t n,
                       xc_zloss_result *res, xc_error *err);
void xc_zloss_result_free(xc_zloss_result *res);
/* The search options of a mode. */
void xc_zloss_mode_opts(const xc_zloss_opts *zo, xc_approx_mode m, xc_psopts *o);

/* ---- the in-memory observation (approx/pulscan/approx_synth.c) ------------------- */

/* The time series that dedispersing p's filterbank at DM 0 gives, made in
 * memory: xc_synth_stream's spectra, each summed over its channels (no delays
 * at DM 0) and scaled by the convention as every dedisperser scales it
 * (xc_scale_int for integer samples, xc_scale_real for nbits 32).  *x gets
 * *n = xc_synth_nsamp(p) floats (caller frees).  XC_EINVAL when the pulsar or
 * a single pulse has a DM other than 0, or from xc_synth_params_check;
 * XC_ENOMEM. */
xc_status xc_approx_synth_dm0(const xc_synth_params *p, float **x, size_t *n, xc_error *err);
/* What the truth file of p would hold for a series of xc_synth_nsamp(p)
 * samples (f0 at t = 0, the mid-observation r and z of the phase model over
 * T = nsamp tsamp: xc_search_truth_compute), as xc_truth_read reads it.
 * XC_EINVAL when p has no pulsar; the timing model's errors. */
xc_status xc_approx_synth_truth(const xc_synth_params *p, xc_truth *t, xc_error *err);
/* The spectrum of x[0..n-1] sampled every tsamp s: xc_realfft_forward in
 * single precision (as `crosscheck fft`) into newly allocated data that sp
 * owns.  FFTW's planner is not thread safe: the transform runs inside one
 * OpenMP critical section shared by every caller of this function.
 * XC_EINVAL for odd or zero n; XC_ENOMEM. */
xc_status xc_approx_spectrum(const float *x, size_t n, double tsamp, xc_spectrum *sp, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
