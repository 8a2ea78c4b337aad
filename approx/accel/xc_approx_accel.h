/* xc_approx_accel.h: measurements of the matched-filter accel search
 * (core/search/xc_accel.h) for `crosscheck check approximations`, section 5: its
 * statistics on noise, and accelsearch's own shortcuts measured against the
 * reference searcher.  As xc_approx.h: numbers in structs, nothing printed or
 * written; random numbers from GSL's MT19937 seeded by the caller, reductions
 * in a fixed order, so the numbers depend on the seed only, never on the
 * thread count; the searchers are arguments (the library never picks one).
 *
 *  1. Noise (approx/accel/approx_accel_noise.c): normalised plane powers at zmax 0
 *     and zmax > 0 and harmonic sums of 2 and 4 against chi-square with 2H
 *     dof (KS, Pearson), the mean against the template energy, and the
 *     points above single-trial thresholds against binomial bounds.
 *  2. The half-bin grid against a full-bin one: power lost to the grid
 *     (approx/accel/approx_accel_grid.c).
 *  3. The templates' half-widths (LOWACC, HIGHACC) against a long template
 *     (approx/accel/approx_accel_trunc.c).
 *  4. The float (FFT overlap-save) plane against the reference's double
 *     direct one (approx/accel/approx_accel_float.c).
 *  5. accelsearch's effective trial count against all grid points: sigma
 *     (approx/accel/approx_accel_trials.c).
 *  6. The same counts on noise: how often a whole noise plane's largest
 *     power passes the threshold each count puts at a given family-wise
 *     rate (approx/accel/approx_accel_maxfa.c).
 * Rows, verdicts and JSON: approx/accel/approx_accel_table.c. */
#ifndef XC_APPROX_ACCEL_H
#define XC_APPROX_ACCEL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "approx/xc_approx_table.h"
#include "compare/xc_stats.h"
#include "core/search/xc_accel.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the plane of a block (approx/accel/approx_accel_plane.c) ----------------- */

/* The rows t with want[t] != 0 of p's plane over half-bin indices
 * [i0, i0 + nr), from normalised amplitudes amp (re, im) of bins
 * 0..nbins-1 (zero outside), made by s's plane stage (state from s->create
 * on p) in blocks; out[k nr + j] for the k-th wanted row (in t order).
 * XC_ENOMEM, the searcher's errors. */
xc_status xc_approx_accel_plane(const xc_accel_searcher *s, void *state, const xc_accel_plan *p, const double *amp,
                                size_t nbins, long i0, size_t nr, const unsigned char *want, float *out, xc_error *err);

/* The plan the measurements search with: one harmonic over bins 1..nbins-1
 * of a T = 1 s spectrum, zmax, wmax, the default half-widths, normwidth (0:
 * the default). */
xc_status xc_approx_accel_plan1(xc_accel_plan *p, size_t nbins, int zmax, int wmax, int threads, size_t normwidth,
                                xc_error *err);

/* The signal sweeps' (grid, truncation) plan: one harmonic over bins
 * 1..2^20 of a 2^20-bin T = 1 s spectrum, zmax, half-widths acc. */
xc_status xc_approx_accel_sweep_plan(xc_accel_plan *p, int zmax, xc_accel_acc acc, int threads, xc_error *err);

/* The signal sweeps' arguments: a searcher with a plane stage, zmax >= 4 and
 * nsig >= 10; else XC_EINVAL, named what, "need" ending the message. */
xc_status xc_approx_accel_sweep_check(const xc_accel_searcher *s, int zmax, size_t nsig, const char *what,
                                      const char *need, xc_error *err);

/* ---- 1. noise ----------------------------------------------------------------- */

/* A spectrum of nbins complex Gaussian bins, zero mean (as a real series'
 * transform: the accel normalisation divides by the median power with no
 * location, so an offset would make powers non-central), real and imaginary
 * parts XC_APPROX_NOISE_SIGMA N(0,1) rounded to float32 from GSL's MT19937
 * seeded with `seed`; T = 1 s.  XC_ENOMEM. */
xc_status xc_approx_accel_noise_spectrum(xc_spectrum *sp, size_t nbins, uint64_t seed, xc_error *err);

#define XC_ACCEL_NOISE_NFA 2   /* single-trial false-alarm probabilities 1e-2, 1e-3 */

typedef struct {
    size_t nbins, normwidth;
    int zmax;              /* of the plane (0: z = 0 only) */
    int z;                 /* the row tested (harmonic h takes xc_accel_required_z(h/H, z)) */
    int numharm;           /* 1: plane powers; 2, 4: harmonic sums */
    int threads;
    double alpha;          /* of the binomial bounds, two-sided */
    /* planted failures for the tests (1 and 0: none): every power times
     * plant_scale, and plant_dof added to the stated dof */
    double plant_scale;
    double plant_dof;
} xc_accel_noise_opts;

void xc_accel_noise_opts_init(xc_accel_noise_opts *o);

typedef struct {
    xc_accel_noise_opts o;
    double dof;            /* stated: 2 numharm (+ plant_dof) */
    double energy;         /* mean over the harmonics of sum |R(d)|^2 over the template's integer offsets
                              (1 at z = 0; a truncated template holds a little less) */
    size_t n;              /* independent sums tested */
    size_t step;           /* fundamental-plane bins between samples */
    xc_meansd mean;        /* of 2P summed (expected dof x energy) */
    xc_gof ks, gof;        /* against chi-square(dof), Pearson over 10 cells */
    double pfa[XC_ACCEL_NOISE_NFA], thr[XC_ACCEL_NOISE_NFA];   /* single-trial p and its 2P threshold */
    size_t count[XC_ACCEL_NOISE_NFA], lo[XC_ACCEL_NOISE_NFA], hi[XC_ACCEL_NOISE_NFA];
    double expect[XC_ACCEL_NOISE_NFA];
} xc_accel_noise;

/* One noise spectrum of o->nbins bins from `seed`, normalised as preset
 * exact (xc_accel_norm_scales, blocks of o->normwidth), its plane made by
 * s's plane stage (only the rows needed), harmonic sums with core's rounding
 * (sub-harmonic index (long)(i h/H + 0.5), z from xc_accel_required_z), at
 * integer fundamental r spaced so that no bin enters two sums: every H bins
 * at z = 0 (a z = 0 template at integer r is a delta), H (2 hw + 2) bins
 * otherwise, with the top r above (H-1)/H of the range so that harmonics
 * never share a bin.  XC_EINVAL for no searcher, fewer than 200 samples, a
 * stage other than 1, 2, 4 or |z| > zmax; XC_ENOMEM; the searcher's errors. */
xc_status xc_approx_accel_noise(const xc_accel_searcher *s, const xc_accel_noise_opts *o, uint64_t seed,
                                xc_accel_noise *out, xc_error *err);

/* ---- 2. the interpolation grid --------------------------------------------- */

typedef enum { XC_GRID_HALF = 0, XC_GRID_FULL, XC_GRID_N } xc_grid_kind;   /* dr = 1/2 (accelsearch), 1 */
typedef enum { XC_GRID_RONLY = 0, XC_GRID_RZ, XC_GRID_NCASE } xc_grid_case; /* z on the grid, z random */

typedef struct {
    int zmax;
    size_t nsig;
    /* power lost, 1 - P(best grid point) / P(matched at the true r, z), both
     * with the grid template's half-width (HIGHACC), so truncation cancels */
    double worst[XC_GRID_N][XC_GRID_NCASE], mean[XC_GRID_N][XC_GRID_NCASE], se[XC_GRID_N][XC_GRID_NCASE];
    /* theory: 1 - |R(dr; dz)|^2 maximised over the cell's corners (the
     * correlation of two responses is R of their difference, Parseval),
     * worst and mean over the cell on a 101 x 101 grid */
    double th_worst[XC_GRID_N][XC_GRID_NCASE], th_mean[XC_GRID_N][XC_GRID_NCASE];
    /* for comparison, interbinning (the half-bin value approximated as
     * pi/4 (A_k - A_k+1), no phases; Middleditch's, discussed by Ransom,
     * Eikenberry & Middleditch 2002): its worst case is where the bin and
     * the interbin amplitudes cross, dr = 1 - pi/4, amplitude sinc(1 - pi/4):
     * the loss in amplitude and in power */
    double th_interbin_amp, th_interbin_power;
} xc_accel_grid_loss;

/* nsig noiseless signals, r uniform in a bin and z uniform in
 * [-zmax + 2, zmax - 2] (or on the z grid), each correlated by s's plane
 * stage (HIGHACC templates) at the grid points around it.  XC_EINVAL for
 * zmax < 4 or nsig < 10; XC_ENOMEM; the searcher's errors. */
xc_status xc_approx_accel_grid(const xc_accel_searcher *s, int zmax, size_t nsig, uint64_t seed, int threads,
                               xc_accel_grid_loss *out, xc_error *err);

/* ---- 3. template truncation ---------------------------------------------------- */

#define XC_TRUNC_NZ 5          /* |z| bins of the table: 0, then zmax/4 wide */

typedef struct {
    int zmax;
    size_t nsig;
    int longhw;            /* the long template's extra half-width over the drift */
    /* power lost by a signal on the grid, 1 - P(hw) / P(long), per accuracy */
    double worst[2], mean[2];
    double worst_z[2][XC_TRUNC_NZ];   /* per |z| bin (NAN: no signal drawn there) */
    size_t count_z[XC_TRUNC_NZ];
    double zedge[XC_TRUNC_NZ + 1];
    /* theory at z = 0, r half-way between bins (the worst case there):
     * 1 - (1 - (2/pi^2) psi'(hw + 1/2))^2, the sinc tail beyond hw */
    double th_z0[2];
} xc_accel_trunc_loss;

/* nsig noiseless signals at grid r (half bins) and z (uniform over the
 * grid, |z| <= zmax), matched by s's plane stage with LOWACC and HIGHACC
 * half-widths, against the energy of the same signal within the drift plus
 * longhw bins (the long template's matched power, in double).  XC_EINVAL,
 * XC_ENOMEM, the searcher's errors. */
xc_status xc_approx_accel_trunc(const xc_accel_searcher *s, int zmax, size_t nsig, uint64_t seed, int threads,
                                xc_accel_trunc_loss *out, xc_error *err);

/* ---- 4. float against double ----------------------------------------------------- */

typedef struct {
    size_t nbins;
    int zmax, wmax;
    size_t npts;           /* plane points compared */
    double max_rel;        /* max |P_f - P_d| / P_d over points with P_d >= 1 (noise level and above) */
    double max_rel_at;     /* P_d there */
    double max_abs;        /* max |P_f - P_d| over every point (mean-1 units) */
    double peak_rel;       /* at the strongest point */
    double peak;           /* its P_d */
    double tol;            /* the float searcher's declared tolerance (impl.tol.value) */
} xc_accel_float_diff;

/* A normalised noise spectrum of nbins bins from `seed` with three tones
 * (powers about 30, 300 and 3000), its plane over every r by both searchers'
 * plane stages (zmax, wmax, LOWACC).  XC_EINVAL, XC_ENOMEM, their errors. */
xc_status xc_approx_accel_float(const xc_accel_searcher *fast, const xc_accel_searcher *ref, size_t nbins, int zmax,
                                int wmax, uint64_t seed, int threads, xc_accel_float_diff *out, xc_error *err);

/* ---- 5. the trial count ------------------------------------------------------------ */

#define XC_TRIALS_NSIG 4       /* candidate sigmas 3, 5, 8, 12 under accelsearch's count */
#define XC_TRIALS_NSTAGE 4     /* H = 1, 2, 4, 8 */

typedef struct {
    double nbins, T;
    int zmax, wmax;
    long rlo, rhi;
    int numz, numw;
    double n_eff[XC_TRIALS_NSTAGE], n_all[XC_TRIALS_NSTAGE];   /* accelsearch's; every grid point searched */
    double sig_eff[XC_TRIALS_NSIG];
    double power[XC_TRIALS_NSTAGE][XC_TRIALS_NSIG];     /* 2P giving sig_eff with n_eff */
    double sig_all[XC_TRIALS_NSTAGE][XC_TRIALS_NSIG];   /* the same power's sigma with n_all */
    double approx[XC_TRIALS_NSTAGE][XC_TRIALS_NSIG];    /* ln(n_all/n_eff)/sigma, the Gaussian tail's slope */
} xc_accel_trials_cmp;

/* The search of a spectrum of nbins bins over T s with accelsearch's
 * defaults (rlo = floor(1 Hz T), rhi = min(ceil(10 kHz T), nbins - 1)),
 * zmax and wmax: n_eff from xc_accel_ntrials, n_all = 2 (rhi - rlo) numz
 * numw per stage.  XC_EINVAL from the plan. */
xc_status xc_approx_accel_trials(size_t nbins, double T, int zmax, int wmax, xc_accel_trials_cmp *out, xc_error *err);

/* ---- 6. the trial count on noise (approx/accel/approx_accel_maxfa.c) ------------------ */

#define XC_MAXFA_NX 2          /* thresholds where accelsearch's count predicts family-wise rates 0.1, 0.5 */

typedef struct {
    int zmax;
    size_t nbins, nspec;
    double R;              /* integer bins searched */
    double n_eff, n_all;   /* accelsearch's count (xc_accel_ntrials, H 1); every half-bin point, 2 R numz */
    double alpha;          /* of the bounds, two-sided */
    double pred[XC_MAXFA_NX], p_all[XC_MAXFA_NX];   /* family-wise rates 1 - exp(-n e^{-x/2}) */
    double x[XC_MAXFA_NX];                          /* the 2P thresholds */
    size_t count[XC_MAXFA_NX];                      /* spectra whose largest 2P exceeds x */
    size_t lo_eff[XC_MAXFA_NX], hi_eff[XC_MAXFA_NX], lo_all[XC_MAXFA_NX], hi_all[XC_MAXFA_NX];
    double n_hat[XC_MAXFA_NX];                      /* -ln(1 - count/nspec) e^{x/2}: the count the data show */
} xc_accel_maxfa;

/* nspec noise spectra of nbins bins (seeds seed0, seed0 + 1, ...),
 * normalised as preset exact, their whole plane (zmax, H 1, every half-bin r
 * away from the edges) made by s's plane stage; each spectrum's largest 2P
 * against the thresholds at which accelsearch's trial count predicts a
 * family-wise false-alarm rate of 0.1 and 0.5, with binomial bounds under
 * that count and under every grid point.  XC_EINVAL, XC_ENOMEM, the
 * searcher's errors. */
xc_status xc_approx_accel_maxfa(const xc_accel_searcher *s, size_t nbins, int zmax, size_t nspec, uint64_t seed0,
                                double alpha, int threads, xc_accel_maxfa *out, xc_error *err);

/* ---- rows, verdicts, JSON (approx/accel/approx_accel_table.c) ------------------------- */

void xc_accel_noise_row(const xc_accel_noise *r, xc_row *out);
/* Each test's KS and Pearson p above alpha / (2 ntests) (Bonferroni), its
 * mean within 4.5 SE of dof x energy, and every count within its binomial
 * bounds: 1 + XC_ACCEL_NOISE_NFA verdicts per test, in this order, written
 * to out; `impl` names the searcher.  Returns the number written. */
int xc_accel_noise_verdicts(const xc_accel_noise *r, int ntests, double alpha, const char *impl, xc_verdict *out);
/* Over n tests (several configurations and seeds), 2 verdicts: every KS and
 * Pearson p above alpha / (2 n) and every mean within 4.5 SE of dof x
 * energy; every false-alarm count within its bounds (each test's o.alpha,
 * which the caller sets Bonferroni-corrected). */
void xc_accel_noise_summary(const xc_accel_noise *r, int n, double alpha, const char *impl, xc_verdict out[2]);
json_t *xc_accel_noise_json(const xc_accel_noise *r);

/* Rows: one per grid and case (4). */
int xc_accel_grid_rows(const xc_accel_grid_loss *g, xc_row out[4]);
/* The half-bin grid's worst loss no more than the theory's (+ 0.5 % for
 * the residual truncation and finite draws) and at least 0.8 of it, its mean
 * within 4.5 SE + 0.5 % of the theory's: 2 verdicts (r-only; r and z). */
int xc_accel_grid_verdicts(const xc_accel_grid_loss *g, xc_verdict out[2]);
json_t *xc_accel_grid_json(const xc_accel_grid_loss *g);

/* Rows: one per accuracy (2). */
int xc_accel_trunc_rows(const xc_accel_trunc_loss *t, xc_row out[2]);
/* Each accuracy's worst loss at most its z = 0 half-way theory + 0.1 %
 * (the long template's own tail and float rounding), HIGHACC's below
 * LOWACC's: 2 verdicts. */
int xc_accel_trunc_verdicts(const xc_accel_trunc_loss *t, xc_verdict out[2]);
json_t *xc_accel_trunc_json(const xc_accel_trunc_loss *t);

void xc_accel_float_row(const xc_accel_float_diff *f, xc_row *out);
/* max_rel within the declared tolerance. */
void xc_accel_float_verdict(const xc_accel_float_diff *f, const char *impl, xc_verdict *out);
json_t *xc_accel_float_json(const xc_accel_float_diff *f);

/* One row per stage (XC_TRIALS_NSTAGE). */
int xc_accel_trials_rows(const xc_accel_trials_cmp *t, xc_row out[XC_TRIALS_NSTAGE]);
/* The sigma difference within 15 % of ln(n_all/n_eff)/sigma for sigma >= 5,
 * and positive everywhere (fewer trials, higher sigma): 1 verdict. */
void xc_accel_trials_verdict(const xc_accel_trials_cmp *t, xc_verdict *out);
json_t *xc_accel_trials_json(const xc_accel_trials_cmp *t);

/* One row per threshold (XC_MAXFA_NX). */
int xc_accel_maxfa_rows(const xc_accel_maxfa *m, xc_row out[XC_MAXFA_NX]);
/* At the rate-0.5 threshold: the spectra above it at least accelsearch's
 * lower bound and at most every point's upper bound (the effective count
 * lies between the two): 1 verdict. */
void xc_accel_maxfa_verdict(const xc_accel_maxfa *m, const char *impl, xc_verdict *out);
json_t *xc_accel_maxfa_json(const xc_accel_maxfa *m);

#ifdef __cplusplus
}
#endif
#endif
