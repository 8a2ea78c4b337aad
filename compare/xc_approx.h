/* xc_approx.h: measurements of the approximations the Pulscan paper's GPU
 * version makes, and of the search's statistics on noise (issue 4,
 * `crosscheck check approximations`).  Every function returns numbers in a
 * struct; nothing prints.  Every random number comes from GSL's MT19937
 * seeded with the caller's seed (or xc_synth's Philox for synthetic data), and
 * every reduction runs in a fixed order, so the numbers depend on the seed
 * only, never on the thread count.
 *
 *  1. Median of medians (xc_median_of_medians, the GPU's estimator) against
 *     the exact median and MAD on Gaussian blocks, with a semi-analytic
 *     prediction for blocks of 4^k values, and its effect on the normalised
 *     powers (mean, tail fractions, KS against chi-square with 2 dof).
 *  2. The appendix polynomial for ln p against the exact ln Q over a grid of
 *     power and dof (xc_logp_poly_error), and its relative error along chi2/dof.
 *  3. Detections lost on a synthetic set of accelerated pulsars under the z
 *     sampling, peak modes, normalisation and ln p forms of xc_approx_mode.
 *  4. Noise-only spectra: KS and chi-square goodness of fit of harmonic-sum
 *     boxcars against chi-square with their stated dof, and false-alarm
 *     counts against the trials-corrected expectation. */
#ifndef XC_APPROX_H
#define XC_APPROX_H

#include <stddef.h>
#include <stdint.h>

#include "core/xc_error.h"
#include "core/xc_search.h"
#include "core/xc_signif.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU version's normalisation block: 1024 threads x 4 values. */
#define XC_APPROX_GPU_BLOCK 4096

/* Mean, standard deviation (n - 1 denominator) and count of a sample. */
typedef struct {
    double mean, sd;
    size_t n;
} xc_approx_ms;

/* ---- small statistics shared by the measurements ------------------------ */

/* Location and Gaussian-equivalent scale (XC_MAD_TO_SIGMA * MAD) of x[0..n-1]
 * as the normalisation computes them: mode XC_NORM_EXACT the exact median (mean
 * of the two middle values for even n) and the median of |x - med|, XC_NORM_MOM
 * xc_median_of_medians of x and of |x - mom|.  work holds n doubles; x is not
 * changed.  n >= 1. */
void xc_approx_block_stats(const double *x, size_t n, xc_norm_mode mode, double *work, double *loc, double *scale);

/* Kolmogorov's survival function Q_KS(lambda) = 2 sum_k (-1)^(k-1) e^(-2 k^2 lambda^2). */
double xc_approx_kolmogorov_q(double lambda);
/* KS distance of x[0..n-1] (sorted in place) from chi-square(dof), and its
 * p-value from Q_KS((sqrt(n) + 0.12 + 0.11/sqrt(n)) D) (Stephens 1970). */
void xc_approx_ks_chi2(double *x, size_t n, double dof, double *d, double *p);
/* Pearson's statistic over `ncells` equiprobable cells of chi-square(dof) and
 * its p-value (ncells - 1 dof).  ncells 2..1000. */
void xc_approx_gof_chi2(const double *x, size_t n, double dof, int ncells, double *stat, double *p);
/* Two-sided bounds [lo, hi] holding a binomial(n, p) count with probability
 * >= 1 - alpha: lo the largest k with P(X < k) <= alpha/2, hi the smallest
 * with P(X > hi) <= alpha/2.  0 <= p <= 1, 0 < alpha < 1. */
void xc_approx_binom_bounds(size_t n, double p, double alpha, size_t *lo, size_t *hi);

/* ---- 1. median of medians ------------------------------------------------- */

typedef struct {
    size_t block;              /* values per block */
    int nseeds;
    xc_approx_ms dloc;         /* (mom - median) / sigma */
    xc_approx_ms med_loc;      /* median / sigma (true value 0) */
    xc_approx_ms mom_loc;      /* mom / sigma (true value 0) */
    xc_approx_ms med_scale;    /* 1.4826 MAD / sigma, exact (true value 1) */
    xc_approx_ms mom_scale;    /* 1.4826 MAD / sigma, median of medians */
    xc_approx_ms scale_ratio;  /* mom scale / exact scale, block by block */
    /* xc_approx_mom_predict for block = 4^k; NAN otherwise */
    double pred_loc_sd, pred_scale_mean, pred_scale_sd;
} xc_mom_blocks;

/* nblocks blocks of `block` N(0,1) values (rounded to float32, as spectra
 * hold them) for each seed seed0 .. seed0 + nseeds - 1.  XC_EINVAL for block
 * < 4, nblocks < 2 or nseeds < 1; XC_ENOMEM. */
xc_status xc_approx_mom_blocks(size_t block, size_t nblocks, uint64_t seed0, int nseeds, int threads,
                               xc_mom_blocks *out, xc_error *err);

typedef struct {
    int levels;                /* block = 4^levels */
    double loc_sd;             /* sd of the median of medians of N(0,1) values */
    double scale_mean;         /* mean of XC_MAD_TO_SIGMA * median of medians of |x - mom| */
    double scale_sd;
} xc_mom_prediction;

/* The median of medians of 4^levels independent N(0,1) values, by
 * propagating densities: one level of (a+b+c+d-min-max)/2 over 4 independent
 * values of density f maps f to g(m) = 48 int_{u<m} F(u) f(u) f(2m-u)
 * (1 - F(2m-u)) du (the joint density of the 2nd and 3rd of 4 order
 * statistics), evaluated on a 4001-point grid spanning +-10 sd, re-gridded
 * after each level.  The MAD's deviations |x - c| are taken as independent
 * folded normals about the estimated centre c, averaged over c by 3-point
 * Gauss-Hermite with the predicted location sd: this neglects the O(1/n)
 * dependence between c and the deviations (the exact MAD's own finite-n bias
 * is 0.8/n, Croux & Rousseeuw 1992).  levels 1..8; XC_EINVAL, XC_ENOMEM. */
xc_status xc_approx_mom_predict(int levels, xc_mom_prediction *out, xc_error *err);

#define XC_APPROX_NTHR 5      /* tail thresholds of the power table */
#define XC_APPROX_NCURVE 60   /* survival curve points, x = 0.5, 1, ..., 30 */

typedef struct {
    size_t nbins, normwidth;
    int nseeds;
    size_t n;                  /* powers measured (bins 1..nbins-1 of every seed) */
    double mean_exact, mean_mom, mean_se;   /* mean power (true value 2), 2/sqrt(n) */
    double thr[XC_APPROX_NTHR];             /* x */
    double expect[XC_APPROX_NTHR];          /* e^{-x/2}: chi-square(2) survival */
    size_t count_exact[XC_APPROX_NTHR], count_mom[XC_APPROX_NTHR];  /* powers > x */
    /* The survival predicted from the blocks' estimated scales alone:
     * mean over blocks of exp(-x / (a_re^2 + a_im^2)), a = true sigma / estimated scale. */
    double pred_exact[XC_APPROX_NTHR], pred_mom[XC_APPROX_NTHR];
    double ks_exact, ks_p_exact, ks_mom, ks_p_mom;   /* KS against chi-square(2), all powers */
    double curve_x[XC_APPROX_NCURVE];
    double curve_exact[XC_APPROX_NCURVE], curve_mom[XC_APPROX_NCURVE];  /* measured / e^{-x/2} */
    double curve_pred_mom[XC_APPROX_NCURVE];                              /* predicted / e^{-x/2} */
} xc_mom_powers;

/* The mean normalised power the block statistics predict, from
 * P = (re - m)^2/s^2 + ..: E[P] = 2 (1 + var(m)) E[1/s^2] with
 * E[1/s^2] = 1 - 2 (E s - 1) + 3 E[(s - 1)^2] (second order), m and s the
 * location and scale of the estimator `mode` measured in b. */
double xc_approx_mean_power_pred(const xc_mom_blocks *b, xc_norm_mode mode);

/* Spectra of nbins bins of complex Gaussian noise (offset 0.5, sigma 3 in each
 * part, float32), one per seed, normalised by xc_pulscan_powers_cpu with
 * blocks of normwidth under both estimators.  nbins >= 2 * normwidth + 1. */
xc_status xc_approx_mom_powers(size_t nbins, size_t normwidth, uint64_t seed0, int nseeds, int threads,
                               xc_mom_powers *out, xc_error *err);

/* ---- 2. the ln p polynomial ------------------------------------------------- */

#define XC_APPROX_NDOFCURVE 7
#define XC_APPROX_NRATIO 241

typedef struct {
    xc_logp_poly_grid grid;
    xc_logp_poly_err e1, e10;     /* the grid at rel_tol 1 % and 10 % */
    double dof[XC_APPROX_NDOFCURVE];
    double ratio[XC_APPROX_NRATIO];                          /* chi2/dof, log spaced */
    double relerr[XC_APPROX_NDOFCURVE][XC_APPROX_NRATIO];   /* |poly - exact| / |exact|; NAN outside */
    double abserr[XC_APPROX_NDOFCURVE][XC_APPROX_NRATIO];
    /* per curve dof: smallest ratio from which every larger one is within
     * 1 % / 10 % (NAN if the last is not) */
    double valid1[XC_APPROX_NDOFCURVE], valid10[XC_APPROX_NDOFCURVE];
} xc_logp_check;

/* The grid: dof 2..24020 (2 bins up to 10 harmonic bins x 1201 widths) in 40
 * log steps, chi2/dof 1..1000 in 301; curves at dof 2, 6, 20, 60, 200, 2000,
 * 24020 over chi2/dof 1..1000.  XC_EINVAL / XC_ENOMEM from xc_logp_poly_error. */
xc_status xc_approx_logp(xc_logp_check *out, xc_error *err);

/* ---- 3. detections lost on a synthetic set -------------------------------- */

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
    /* the observation (xc_synth_write_dedispersed at DM 0: dispersion plays no part) */
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
    const char *workdir;      /* where each pulsar's .dat/.inf/.fft/truth are written and removed */
} xc_zloss_opts;

/* 64 channels, 8 bits, 128 us, 2^18 samples (33.55 s), 5 % duty cycle,
 * zmax 200, numharm 1, normwidth 4096, no bright pulsar, sigma_det 6 and
 * ftol 0.01 (the paper's), threads 0 (OpenMP default), workdir "." */
void xc_zloss_opts_init(xc_zloss_opts *o);

typedef struct {
    double f_hz;              /* mean apparent spin frequency */
    double z;                 /* drift in bins over the observation (sign: of fdot) */
    double target_sigma;      /* the design sigma of the mode (a) fundamental */
    double snrpeak;           /* xc_zloss_snrpeak of the above */
    uint64_t seed;            /* noise seed of its file */
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
    double r_true, z_true;                 /* from the truth file (z_true signed) */
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

/* Synthesizes, FFTs (single precision, as `crosscheck fft`) and searches
 * (searcher "cpu") each pulsar under every mode, o->threads pulsars at once
 * (one thread each; FFTW's planning is serialised), and matches the candidates
 * against its truth (xc_cands_match_truth with f0 = the mean apparent
 * frequency r/T, so that a drift of up to zmax bins never moves a detection
 * out of the window).  res is overwritten; free with xc_zloss_result_free.
 * XC_EINVAL, XC_EIO, XC_ENOMEM from the steps, naming the pulsar. */
xc_status xc_zloss_run(const xc_zloss_opts *o, const xc_zloss_spec *specs, size_t n, xc_zloss_result *res,
                       xc_error *err);
void xc_zloss_result_free(xc_zloss_result *res);
/* The search options of a mode. */
void xc_zloss_mode_opts(const xc_zloss_opts *zo, xc_approx_mode m, xc_psopts *o);

/* ---- 4. statistics on noise-only spectra ------------------------------- */

typedef struct {
    int numharm, width;
    double dof;               /* 2 w h(h+1)/2 */
    size_t n;                 /* independent boxcars tested */
    double ks_d, ks_p;
    double gof, gof_p;        /* 10 equiprobable cells */
} xc_noise_ks;

/* One spectrum of nbins complex Gaussian bins from `seed`, normalised
 * (xc_pulscan_powers_cpu, exact, default block), and for each stage h and
 * width w the boxcars B = sum_{m<w} S_h[i+m] (xc_pulscan_prefix) at starts
 * i = i0, i0 + w, ... with i0 = ceil((h-1) L / h), L = floor(nbins/h): there
 * the bins k i + j of harmonic k lie in [k i0, k L), disjoint for different k,
 * so no bin is in two boxcars and the sample is independent.
 * out[a*nw + b] for harms[a], widths[b]. */
xc_status xc_approx_noise_ks(size_t nbins, uint64_t seed, const int *harms, int nh, const int *widths, int nw,
                             int threads, xc_noise_ks *out, xc_error *err);

typedef struct {
    int zmax, numharm;
    double S;                 /* threshold: sigma > S */
    size_t nspec;
    double ntrials;           /* of stage 1 per spectrum (xc_pulscan_ntrials) */
    /* Candidates above S over all spectra, against nspec * numharm * Q(S),
     * Q the Gaussian tail: what independent trials would give.  Local
     * maxima of one excursion cluster in (start, width), so this count is
     * over-dispersed and has no binomial bound. */
    size_t count;
    double expect;
    /* Spectra with at least one candidate above S: independent, so
     * binomial(nspec, p) exactly, p the family-wise rate; for ntrials
     * independent trials per stage, p = 1 - exp(-numharm Q(S)) (correlated
     * trials give less: the trials-corrected sigma is then conservative). */
    size_t nfam;
    double pfam;
    size_t lo, hi;            /* xc_approx_binom_bounds(nspec, pfam, alpha) */
} xc_noise_fa;

/* nspec noise spectra (nbins, seeds seed0, seed0+1, ...) searched by the
 * cpu searcher with zmax, numharm, zstep 1, local maxima, no sifting (each
 * stage is its own Bonferroni family), sigma > 0; for each S[k] the counts
 * above.  `threads` spectra are searched at once, one thread each.
 * XC_EINVAL for bad sizes or thresholds. */
xc_status xc_approx_false_alarms(size_t nbins, size_t nspec, uint64_t seed0, int zmax, int numharm, const double *S,
                                 int nS, double alpha, int threads, xc_noise_fa *out, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
