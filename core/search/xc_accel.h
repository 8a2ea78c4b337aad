/* xc_accel.h: the matched-filter acceleration (FDAS) and jerk (FDJS) search,
 * PRESTO accelsearch-compatible: options, grid constants, templates,
 * normalisation, the searcher interface and the pipeline core drives.
 *
 * Method: Ransom, Eikenberry & Middleditch 2002, AJ 124, 1788 (f-fdot
 * correlation search); Andersen & Ransom 2018, ApJL 863, L13 (jerk search).
 * Constants and choices follow PRESTO's accelsearch (Ransom, PRESTO
 * src/accelsearch.c, src/accel_utils.c, src/responses.c, include/accel.h);
 * every place where we follow it, and where we depart from it, is said below
 * and in the .c files.
 *
 * Conventions (PRESTO's, FAQ.md): r = f T, z = fdot T^2, w = fdotdot T^3, all
 * AVERAGES over the observation: a signal with phase
 *   2 pi (r0 u + z0 u^2/2 + w u^3/6),  u = t/T in [0, 1],
 * has r = r0 + z0/2 + w/6 and z = z0 + w/2 (so r0 = r - z/2 + w/12,
 * z0 = z - w/2).  Its response in Fourier bin k (an unnormalised DFT of a
 * unit-amplitude complex exponential, divided by N) is R(k - r; z, w) with
 *   R(d; z, w) = int_0^1 exp(2 pi i [(-d - z/2 + w/12) u + (z - w/2) u^2/2 + w u^3/6]) du,
 * and sum over all integer d of |R|^2 = 1 (Parseval), so a matched filter
 * with R keeps the mean-1 scale of normalised noise powers.
 *
 * The search (steps, both presets):
 *  1. Grid: z = -zmax..zmax in steps of XC_ACCEL_DZ = 2 (zmax rounded UP to
 *     even), w = -wmax..wmax in steps of XC_ACCEL_DW = 20 (wmax rounded up to
 *     a multiple of 20), r on a half-bin grid (XC_ACCEL_NUMBETWEEN = 2), as
 *     accelsearch.  Searched fundamental-plane r: rlo..rhi with
 *     rlo = floor(flo T) (or -rlo), rhi = min(ceil(fhi T), nbins - 1) (or -rhi),
 *     flo = 1 Hz and fhi = 10 kHz by default, as accelsearch (whose -rlo and
 *     -rhi never take effect: its command-line parser marks -flo and -fhi as
 *     always given, and those win; here -rlo/-rhi do override; rlo is at
 *     least 1, bin 0 holding DC and Nyquist).  rlo/rhi refer
 *     to the plane of the HIGHEST harmonic summed (accelsearch's "fundamental
 *     plane"); a candidate's r is that plane's r divided by its numharm.
 *  2. Normalisation (median/ln 2): noise powers |X|^2 scaled to mean 1
 *     (the median of Exp(1) is ln 2).  preset exact: fixed blocks of
 *     normwidth bins over bins 1..nbins-1 (the remainder joins the last
 *     block), one scale per data bin whatever search block reads it, bin 0
 *     (DC + packed Nyquist) is zero.  preset presto: accelsearch's windows:
 *     for each search block the fftlen/2 bins from floor(startr) - hwmax get
 *     one scale from their own median (windows overlap; bins below 0 and at
 *     or beyond nbins are zero; bin 0 enters raw).  Defect of accelsearch:
 *     the same data bin gets different scales in neighbouring blocks (the
 *     plane jumps at block edges) and the windows change with zmax.
 *  3. Plane: P(r, z, w) = |sum_{k: |k - r| <= hw(z,w)} A_k conj(R(k - r; z, w))|^2,
 *     A the normalised amplitudes, hw = w_resp_halfwidth(z, w) LOWACC (or
 *     HIGHACC with acc) as accelsearch.  The implementation's stage.
 *     accelsearch's kernels hold 4 hw half-bin samples, offsets -hw+1/2..hw
 *     (one end short); ours are symmetric, 4 hw + 1 samples (the extra
 *     sample's |R|^2 is ~1/(pi hw)^2).
 *  4. Harmonic summing, stages H = 1, 2, 4, ... numharm: the top plane at
 *     half-bin index i adds, for each odd h < H (cumulatively over stages),
 *     the plane at index (int)(i h/H + 0.5) (accelsearch's in-memory
 *     rounding; its out-of-core path, taken with -wmax or a plane of 2 GB or
 *     more, uses rint, ties to even, and normalises each sub-harmonic block
 *     on its own window: preset presto follows whichever path accelsearch
 *     would take; preset exact rounds half up on both of its paths, which
 *     give the same values up to a float implementation's rounding), z -> NEAREST_INT(z h/H / 2) * 2 and
 *     w -> NEAREST_INT(w h/H / 20) * 20 (calc_required_z/w).  Each harmonic
 *     gives one power: the sum is chi-square with 2H dof (in 2 P units).
 *  5. Trials per stage (create_accelobs): (rhi - rlo)/H without z and w;
 *     (rhi - rlo)(numz + 1)(2/6.95)/H with z; times (numw + 1)(20/44.2) with w.
 *     accelsearch truncates to long long (preset presto does too).
 *  6. Candidates: every plane point of stage H with sigma > `sigma`,
 *     sigma = xc_candidate_sigma(2 P, 2 H, trials).  preset presto:
 *     accelsearch's insert_new_accelcand in its scan order (block by block,
 *     stage by stage, w, z, r), which keeps one candidate per 15 bins
 *     (ACCEL_CLOSEST_R) greedily and so depends on the order points arrive in;
 *     the last partial block is not searched (accelsearch's loop stops while
 *     startr + uselen/2 < highestbin).  preset exact: order-independent:
 *     points by descending sigma (ties: power, then ascending r, numharm,
 *     z, w), each kept unless a kept one is within 15 bins; every r up to rhi
 *     is searched.  Both: then sorted by sigma, and for numharm > 1 the
 *     harmonically related ones removed as accelsearch's eliminate_harmonics
 *     (within 1.5 bins of n r or r/n, n <= 16, or of 23 listed ratios).
 *  7. Reported: grid r, z, w (of the fundamental: plane values / H), summed
 *     power in our chi-square units (2 P; PRESTO prints P), dof = 2H, logp
 *     (single trial), sigma, trials.  accelsearch's optimisation
 *     (harmonic polishing) is not done: its fundamentals table prints the
 *     search values too.
 */
#ifndef XC_ACCEL_H
#define XC_ACCEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/xc_progress.h"
#include "core/base/xc_devgate.h"
#include "core/search/xc_cands.h"
#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"
#include "core/search/xc_spectrum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* accelsearch's grid constants (include/accel.h). */
#define XC_ACCEL_NUMBETWEEN 2
#define XC_ACCEL_DR 0.5
#define XC_ACCEL_DZ 2
#define XC_ACCEL_DW 20
#define XC_ACCEL_CLOSEST_R 15.0
#define XC_ACCEL_NUMFINTBINS 16   /* PRESTO include/presto.h */
#define XC_ACCEL_MAXHARM 32

typedef enum { XC_ACCEL_EXACT = 0, XC_ACCEL_PRESTO } xc_accel_preset;
typedef enum { XC_ACCEL_LOWACC = 0, XC_ACCEL_HIGHACC } xc_accel_acc;

typedef struct {
    int zmax;              /* 0..1200, rounded up to even (default 200) */
    int wmax;              /* 0..4000, rounded up to a multiple of 20; 0: no jerk search */
    int numharm;           /* 1, 2, 4, 8, 16 or 32 (default 8, as accelsearch) */
    double sigma;          /* keep sigma > this (default 2.0) */
    double flo, fhi;       /* Hz (defaults 1 and 10000, as accelsearch) */
    double rlo, rhi;       /* bins; NAN: from flo/fhi; given, they override flo/fhi */
    int threads;           /* 0: OpenMP default */
    xc_accel_preset preset;
    xc_accel_acc acc;      /* template half-widths (default LOWACC, as accelsearch) */
    size_t normwidth;      /* preset exact: normalisation block in bins (default 1024) */
    int outofcore;         /* numharm > 1: 1 computes each block's sub-harmonic blocks with it, -1 keeps
                              the whole plane in memory, 0 (default) chooses: preset exact per block
                              (less memory, and faster than writing a plane of GBs: the same
                              values, up to a float implementation's rounding), preset presto as accelsearch (in memory unless -wmax is
                              given or the plane needs 2 GB or more) */
    size_t devblock;       /* a searcher with its own sums (gpu): most bytes of plane per block it keeps
                              (0: its default, 1 GiB); at least one segment is always taken */
    int rednoise;          /* 1: deredden the spectrum first (core/search/spectrum/xc_rednoise.h), as accelsearch
                              does to a .dat series; 0 (default): as it does to a .fft */
} xc_accel_opts;

void xc_accel_opts_default(xc_accel_opts *o);
/* XC_EINVAL naming the option and its value. */
xc_status xc_accel_opts_check(const xc_accel_opts *o, xc_error *err);

/* ---- grid ---------------------------------------------------------------- */

/* PRESTO's z_resp_halfwidth / w_resp_halfwidth (src/responses.c). */
int xc_accel_z_halfwidth(double z, xc_accel_acc acc);
int xc_accel_w_halfwidth(double z, double w, xc_accel_acc acc);
/* accelsearch's fftlen_from_kernwidth (before its 2048 floor). */
int xc_accel_fftlen_from_kernwidth(int kernwidth);
/* accelsearch's next_good_fftlen (its sub-harmonics' FFT lengths). */
int xc_accel_next_good_fftlen(int n);
/* calc_required_z / calc_required_w: the sub-harmonic's grid z (w). */
int xc_accel_required_z(double frac, double z);
int xc_accel_required_w(double frac, double w);
/* The trials of stage H (see 5. above), not truncated. */
double xc_accel_ntrials(double rlo, double rhi, int numz, int numw, int H);

/* What core works out from the options and the spectrum, once. */
typedef struct {
    int zmax, wmax, numz, numw, ntempl;   /* ntempl = numz * numw; template t = iw * numz + iz */
    int numharm, nstages;
    int *hw;               /* per template */
    int hwmax;             /* the largest hw */
    int hwwin;             /* accelsearch's window offset: hw of (z = -zmax, w = -wmax) */
    int fftlen, uselen;    /* accelsearch's block geometry: uselen half-bins per block */
    long rlo, rhi;         /* searched fundamental-plane bins */
    size_t nbins;
    double T;
    double ntrials[6];     /* per stage (truncated with preset presto) */
    double thr[6];         /* P (mean-1 units) below which sigma <= sigma for sure */
    xc_accel_opts o;       /* as checked and rounded */
    /* Who hears how far the search has got (xc_accel_session_progress,
     * xc_psearch_progress set it): "accel" with the top plane's half-bins
     * searched and their total.  Not a search parameter.  Default: nobody. */
    xc_progress_cb progress;
    /* The slots a searcher that says so (xc_accel_searcher.takes_gate)
     * takes around its device memory (core/base/xc_devgate.h;
     * xc_accel_session_gate sets it).  Not a search parameter.  Default
     * (take NULL): none, the searcher allocates and frees its own. */
    xc_devgate gate;
} xc_accel_plan;

xc_status xc_accel_plan_make(xc_accel_plan *p, const xc_accel_opts *o, size_t nbins, double T, xc_error *err);
void xc_accel_plan_free(xc_accel_plan *p);
static inline int xc_accel_z_of(const xc_accel_plan *p, int iz) { return -p->zmax + XC_ACCEL_DZ * iz; }
static inline int xc_accel_w_of(const xc_accel_plan *p, int iw) { return -p->wmax + XC_ACCEL_DW * iw; }
/* The template of the sub-harmonic frac = h/H that top template t reads:
 * (required_w, required_z) of t's w and z. */
int xc_accel_sub_template(const xc_accel_plan *p, int t, double frac);
/* Preset exact's top-plane block, half-bins: accelsearch's uselen, or more
 * (4 M plane points, at most 65536 half-bins) where that is larger; any
 * length gives the same top plane, but the sub-harmonic blocks (out of
 * core) and so the last bits of their values follow it. */
long xc_accel_exact_block(const xc_accel_plan *p);

/* ---- templates (core/search/accel/xc_accel_resp.c) ----------------------------------- */

/* Fresnel integrals C(x) + i S(x) = int_0^x exp(i pi t^2 / 2) dt, double
 * precision (power series for |x| < 1.5, the complex erfc continued fraction
 * beyond; relative error ~1e-14). */
void xc_fresnel(double x, double *C, double *S);
/* R(d; z, 0) by Fresnel integrals (z = 0: exp(-i pi d) sin(pi d)/(pi d)). */
void xc_accel_resp_z(double d, double z, double out[2]);
/* R(d; z, w) by composite Gauss-Legendre quadrature (20 points per panel,
 * panels of at most 1/4 cycle): slow, independent, ~1e-13. */
void xc_accel_resp_quad(double d, double z, double w, double out[2]);
/* The template of (z, w): R(j/2; z, w) for j = -2hw..2hw into
 * out[2(j + 2hw)], out[2(j + 2hw) + 1].  w = 0: Fresnel.  w != 0: the
 * trapezoid rule on M points (M = power of 2 >= 32 x the largest frequency
 * in cycles, >= 1024) with Euler-Maclaurin end corrections to h^4, all
 * offsets at once by one double FFT of length 2M; error below 1e-10
 * (tests compare it with xc_accel_resp_quad). */
xc_status xc_accel_template(double z, double w, int hw, double *out, xc_error *err);
/* Templates t0..t0+cnt-1 of p as rows of L complex points (interleaved float
 * pairs, rows + i*2L): each xc_accel_template rounded to float and wrapped
 * (offset j at index j mod L), zeros elsewhere; then post(ctx, row) when post
 * is non-NULL.  OpenMP over templates (p->o.threads, 0: all), the same values
 * whichever thread makes them; post runs on the making thread.  who names the
 * searcher in messages.  The first error stops the rest. */
xc_status xc_accel_template_rows(const xc_accel_plan *p, int t0, int cnt, int L, float *rows,
                                 void (*post)(void *ctx, float *row), void *ctx, const char *who, xc_error *err);

/* ---- normalisation (core/search/accel/xc_accel_norm.c) ------------------------------- */

/* preset exact: per-bin scales s[k], k = 0..nbins-1 (s[0] = 0). */
xc_status xc_accel_norm_scales(const float *X, size_t nbins, size_t normwidth, double *s, xc_error *err);
/* The same on `threads` OpenMP threads (0: the default); the same values. */
xc_status xc_accel_norm_scales_threads(const float *X, size_t nbins, size_t normwidth, int threads, double *s,
                                       xc_error *err);
/* The same as one scale per normalisation block (xc_pulscan_nblocks(nbins,
 * normwidth) of them, block b over xc_pulscan_block's bins): s[k] of the
 * above is bs[b] for each bin k >= 1 of block b. */
xc_status xc_accel_norm_block_scales(const float *X, size_t nbins, size_t normwidth, int threads, double *bs,
                                     xc_error *err);

/* preset exact's normalised amplitudes without an array of them: bin k's
 * are X[2k] s and X[2k+1] s, each product in double, s the scale of k's
 * block (bin 0: s = 0), as xc_accel_norm_scales' s[k] times X. */
typedef struct {
    const float *X;          /* the spectrum: re, im of each bin */
    size_t nbins, normwidth;
    const double *bscale;    /* xc_accel_norm_block_scales */
} xc_accel_amps;
/* Bins [lo, lo + n) (inside [0, nbins)), each product rounded to float:
 * out[2j], out[2j + 1] for bin lo + j. */
void xc_accel_amps_get(const xc_accel_amps *a, long lo, size_t n, float *out);

/* preset presto: the scale of the window [lobin, lobin + n) (zero outside the
 * spectrum), 1/sqrt(median(|X|^2)/ln 2) with float powers. */
double xc_accel_norm_window(const float *X, size_t nbins, long lobin, size_t n, double *buf);

/* ---- searchers ----------------------------------------------------------- */

/* A block of the plane to compute: amp holds the normalised amplitudes of
 * bins lo..lo+n-1 (re, im doubles), covering at least every bin within hwmax
 * of the output r; out[t * nr + j] gets P at half-bin index i0 + j (r = i/2)
 * for template t. */
typedef struct {
    long lo;
    size_t n;
    const double *amp;
    long i0;
    size_t nr;
    float *out;
    const unsigned char *want;   /* NULL: every template; else only rows t with want[t] != 0 are needed
                                    (a sub-harmonic's block: its z and w ranges are narrower) */
} xc_accel_block;

/* A point of the top plane whose harmonic sum at stage s (1 << s
 * harmonics) exceeds p->thr[s]: what a searcher with its own harmonic sums
 * hands back (see search below). */
typedef struct {
    long i;       /* top-plane half-bin index (r = i/2 in the top plane) */
    int t;        /* top-plane template (t = iw * numz + iz) */
    int stage;    /* s */
    double P;     /* the sum, mean-1 units */
} xc_accel_hit;

/* Takes n hits (in any order); a non-zero status stops the search. */
typedef xc_status (*xc_accel_emit_fn)(void *ctx, const xc_accel_hit *h, size_t n, xc_error *err);

/* Top template t's rows of group g for a searcher's rows method (below):
 * rows[0] the top block's, rows[1 + e] sub-harmonic entry e's; non-zero
 * stops the search. */
typedef int (*xc_accel_rows_fn)(void *ctx, int g, int t, const float *const *rows);

/* Family XC_FAMILY_ACCEL.  create: state for a plan (templates, FFT plans),
 * made once; plane: one block (must give identical output at any thread
 * count); destroy.  impl.tol: XC_TOL_EXACT or XC_TOL_RELATIVE (candidate
 * power and sigma within value, same r, z, w).
 *
 * search (optional; NULL: core sums on the host from plane's blocks): the
 * harmonic sums and thresholds of preset exact on the implementation's side,
 * for a device that should keep the plane where it was made.  amp holds the
 * normalised amplitudes of every bin (re, im doubles; bin k at 2k; zero
 * outside [0, nbins)); the searcher covers top-plane indices [ilo, iend) in
 * blocks of its choosing, with the semantics of core's exact path
 * (core/search/accel/xc_accel_pipeline.c): stage s adds, for each odd h < H = 1 << s, the
 * plane at index (long)(i h/H + 0.5) and template (required_w, required_z of
 * the top one's w and z, h/H) to the sums of the earlier stages, and every
 * (i, t) whose sum exceeds p->thr[s] goes to emit, whatever the order.  Core
 * then applies sigma and preset exact's selection, which does not depend on
 * the order points arrive in.  The values may differ from core's sums by the
 * implementation's stated tolerance (e.g. float sums). */
typedef struct xc_accel_searcher {
    xc_impl impl;
    /* Every method gets its descriptor first (self). */
    xc_status (*create)(const struct xc_accel_searcher *self, const xc_accel_plan *p, void **state, xc_error *err);
    xc_status (*plane)(const struct xc_accel_searcher *self, void *state, const xc_accel_plan *p,
                       const xc_accel_block *b, xc_error *err);
    void (*destroy)(const struct xc_accel_searcher *self, void *state);
    xc_status (*search)(const struct xc_accel_searcher *self, void *state, const xc_accel_plan *p, const double *amp,
                        size_t nbins, long ilo, long iend, xc_accel_emit_fn emit, void *ctx, xc_error *err);
    /* search_amps (optional; taken instead of search where given): the
     * same, the amplitudes read through xc_accel_amps_get as the searcher
     * needs them (a host searcher, a segment's bins at a time), so that no
     * array of them (16 bytes a bin) is held beside the spectrum. */
    xc_status (*search_amps)(const struct xc_accel_searcher *self, void *state, const xc_accel_plan *p,
                             const xc_accel_amps *a, long ilo, long iend, xc_accel_emit_fn emit, void *ctx,
                             xc_error *err);
    /* rows (optional): ng groups of per blocks (b[g per] a top block,
     * b[g per + 1 + e] its sub-harmonic entry e's block), each row as plane
     * would make it, handed to fn top template by top template (each (g, t)
     * once, in any order, from any thread) with the sub-harmonic rows that
     * template's sums read (entry e's template tsub[e ntempl + t]), so that
     * the sums read rows still in cache and no plane is written; core uses
     * it out of core, a few top blocks at a time.  Rows have 8 readable
     * floats past their nr.  fn's non-zero return stops it (XC_ENOMEM). */
    xc_status (*rows)(const struct xc_accel_searcher *self, void *state, const xc_accel_plan *p,
                      const xc_accel_block *b, int ng, int per, const int *tsub, xc_accel_rows_fn fn, void *ctx,
                      xc_error *err);
    /* keeps (optional): 1 when state, made for a plan of the same
     * templates (zmax, wmax, acc: core checks them), also serves p, a plan
     * for spectra of another length or T; a session then keeps it from
     * one length to the next (xc_accel_session_refit).  NULL: made again. */
    int (*keeps)(const struct xc_accel_searcher *self, void *state, const xc_accel_plan *p);
    /* 1: search takes one of p->gate's slots around its device memory,
     * and holds none through its host side. */
    int takes_gate;
} xc_accel_searcher;

const xc_accel_searcher *xc_accel_searcher_of(const xc_impl *impl);

/* The whole search (core drives: checks, plan, normalisation, the stage,
 * harmonic sums, selection, sigma).  out initialised by the caller. */
xc_status xc_accel_run(const xc_accel_searcher *s, const xc_spectrum *sp, const xc_accel_opts *o,
                       xc_candlist *out, xc_error *err);

/* ---- candidates (core/search/accel/xc_accel_select.c) -------------------------------- */

typedef struct {
    double r, z, w;        /* fundamental */
    int numharm;
    double P;              /* summed power, mean-1 units */
    double sigma;
} xc_accel_peak;

typedef struct {
    xc_accel_peak *p;
    size_t n, cap;
} xc_accel_peaks;

xc_status xc_accel_peaks_push(xc_accel_peaks *l, const xc_accel_peak *pk, xc_error *err);

/* The harmonic sums' row loops (core/search/accel/xc_accel_rows.c), vectorised with the
 * scalar loops' results: row = f; row += sub[ri] with every index inside
 * (INSIDE), with ri < 0 adding 0 (CLIPPED), or the sum rounded to float after
 * each add as accelsearch's float plane (PRESTO, ri < 0 adding 0); the first
 * j in [from, m) with v[j] > thr, or m. */
enum { XC_ROW_ADD_INSIDE, XC_ROW_ADD_CLIPPED, XC_ROW_ADD_PRESTO };
void xc_accel_row_load(double *row, const float *f, size_t m);
void xc_accel_row_add(double *row, const float *sub, const int32_t *ri, size_t m, int mode);
size_t xc_accel_row_above(const double *v, size_t from, size_t m, double thr);
/* One stage's additions in one pass: sub[0][ri[0][j]], then sub[1][ri[1][j]]
 * .. added to row[j] as xc_accel_row_add's mode adds them (the order of a
 * stage's xc_accel_row_add calls, so the same sums); 1 if any sum then
 * exceeds thr.
 * Each sub[e] must be readable 7 floats past its largest index. */
int xc_accel_stage_add(double *row, const float *const *sub, const int32_t *const *ri, int nsub, size_t m, int mode,
                       double thr);
size_t xc_accel_rowf_above(const float *v, size_t from, size_t m, double thr);
void xc_accel_peaks_free(xc_accel_peaks *l);

/* The bytes a search by s at p holds at its peak beside the spectrum: the
 * pipeline's buffers (the normalisation, a block of the plane, the
 * sub-harmonics' plane or blocks, xc_accel_run_peaks) and a searcher
 * state of at most the in-tree CPU stages' size (a kernel per template);
 * the candidates found are not counted.  The same geometry as the search. */
double xc_accel_memory(const xc_accel_searcher *s, const xc_accel_plan *p);
/* The pieces of xc_accel_run, for the sweeps and sessions below: the
 * searcher and spectrum checks; the search of plan p into raw peaks (every
 * point above p->thr[s] whose sigma with p->ntrials[s] exceeds p->o.sigma,
 * before any selection; pk initialised by the caller), with the searcher's
 * state made for a plan of the same templates (state NULL: made and
 * destroyed here); then preset exact's selection, the sort and harmonic
 * sifting, and the candidates of plan p. */
xc_status xc_accel_check(const xc_accel_searcher *s, const xc_spectrum *sp, xc_error *err);
xc_status xc_accel_run_peaks(const xc_accel_searcher *s, void *state, const xc_spectrum *sp,
                             const xc_accel_plan *p, xc_accel_peaks *pk, xc_error *err);
xc_status xc_accel_finish(const xc_accel_plan *p, xc_accel_peaks *pk, double T, xc_candlist *out, xc_error *err);

/* ---- a zmax/numharm sweep of one spectrum (core/search/accel/xc_accel_sweep.c) -------- *
 * n searches of sp that differ only in zmax and numharm (preset exact, every
 * other option equal) nest: the plane of a smaller zmax is rows of the
 * largest one's (a template depends on its own z only), and the harmonic sums
 * of a smaller numharm are the larger one's first stages.  One search at the
 * largest zmax and numharm, with every stage's threshold and trials the
 * lowest any of the n has, gives a superset of every one's raw peaks; each
 * list is then that superset cut to its own templates, stages, thresholds
 * and sigmas and selected as xc_accel_run would.  The lists equal n separate
 * xc_accel_run calls' up to the plane stage's float rounding (an
 * implementation's segment length follows the largest template, so a
 * smaller zmax rounds differently; the reference's direct sums are the same
 * bits), at about the cost of the largest search.  The n are grouped: each
 * joins the first earlier one it nests with (preset exact, every option but
 * zmax, numharm and threads equal), and each group is one search; one that
 * nests with none (preset presto, say) is searched alone, as xc_accel_run
 * would.  out[0..n-1] initialised by the caller. */
xc_status xc_accel_run_sweep(const xc_accel_searcher *s, const xc_spectrum *sp, const xc_accel_opts *o, size_t n,
                             xc_candlist *out, xc_error *err);
/* The same for many spectra of nbins bins and length T (a study's pulsars):
 * a session makes the plans and the searcher's state (templates, FFT plans,
 * device buffers) once; every run gives xc_accel_run_sweep's lists bit for
 * bit (each group's state is kept).  A spectrum of another length or T is
 * refused (XC_EINVAL naming both).  One caller at a time per session. */
typedef struct xc_accel_session xc_accel_session;
xc_status xc_accel_session_open(const xc_accel_searcher *s, size_t nbins, double T, const xc_accel_opts *o, size_t n,
                                xc_accel_session **ss, xc_error *err);
xc_status xc_accel_session_run(xc_accel_session *ss, const xc_spectrum *sp, xc_candlist *out, xc_error *err);
/* 1 when sp has the session's length and T. */
int xc_accel_session_fits(const xc_accel_session *ss, const xc_spectrum *sp);
/* The session moved to spectra of nbins bins and length T: the plans made
 * again, each group's searcher state kept where the searcher's keeps says
 * it serves the new top plan (else made again); every run then gives a
 * session opened for nbins and T's lists bit for bit.  On failure the
 * session is fit only for close. */
xc_status xc_accel_session_refit(xc_accel_session *ss, size_t nbins, double T, xc_error *err);
/* The slots the session's searches take from now on (xc_accel_plan.gate),
 * when its searcher takes them (xc_accel_searcher.takes_gate): returns 1
 * then, else 0 (the caller bounds the device's memory around the whole
 * search itself). */
int xc_accel_session_gate(xc_accel_session *ss, const xc_devgate *g);
void xc_accel_session_close(xc_accel_session *ss);
/* The listener of the session's runs from now on (xc_accel_plan.progress;
 * several nested groups each report their own search). */
void xc_accel_session_progress(xc_accel_session *ss, xc_progress_cb cb);
/* 1 when all of o[0..n-1] nest (one group). */
int xc_accel_sweep_nests(const xc_accel_opts *o, size_t n);
/* The search of top-plane indices [ilo, iend) by a searcher's own `search`
 * (preset exact), its points given core's sigma and pushed to pk
 * (core/search/accel/xc_accel_hits.c).  scale_amp holds 2 nbins doubles, the
 * per-bin scales in its first nbins; it becomes the normalised amplitudes
 * (re, im of each bin) that the searcher reads, so the scales and the
 * amplitudes are never held side by side. */
xc_status xc_accel_search_own(const xc_accel_searcher *s, void *state, const xc_accel_plan *p,
                              const xc_spectrum *sp, double *scale_amp, long ilo, long iend,
                              xc_accel_peaks *pk, xc_error *err);

/* The same for a searcher's search_amps: bscale holds the normalisation
 * blocks' scales (xc_accel_norm_block_scales). */
xc_status xc_accel_search_own_amps(const xc_accel_searcher *s, void *state, const xc_accel_plan *p,
                                   const xc_spectrum *sp, const double *bscale, long ilo, long iend,
                                   xc_accel_peaks *pk, xc_error *err);

/* accelsearch's insert_new_accelcand: adds pk to the r-sorted list l. */
xc_status xc_accel_insert_presto(xc_accel_peaks *l, const xc_accel_peak *pk, xc_error *err);
/* preset exact's order-independent selection (see 6.), in place. */
xc_status xc_accel_select_exact(xc_accel_peaks *l, xc_error *err);
/* Sort by sigma (ties: power, as accelsearch; then r), then, numharm > 1,
 * eliminate_harmonics. */
void xc_accel_sort_sift(xc_accel_peaks *l, int numharm);

/* ---- output (core/search/accel/xc_accel_out.c) --------------------------------------- */

/* PRESTO's fundamentals table (output_fundamentals' columns and widths) for
 * `path` = ROOT_ACCEL_<Z>[_JERK_<W>], then the .inf text when infpath is
 * not NULL; written atomically. */
xc_status xc_accel_write_presto(const xc_candlist *l, int jerk, const char *infpath, const char *path,
                                xc_error *err);

#ifdef __cplusplus
}
#endif
/* Stage s of the harmonic sums (H = 2^s harmonics) adds the odd harmonics
 * h/H, entry e = H/2 - 1 + h/2 of the sub-harmonic rows (the even ones came
 * with the earlier stages): their rows sub[e] into sv and, from the index
 * table rind (nr indices a row), those of the chunk starting at j0 into rv.
 * Returns how many. */
static inline int xc_accel_stage_rows(int s, const float *const *sub, const int32_t *rind, size_t nr, size_t j0,
                                      const float **sv, const int32_t **rv)
{
    const int H = 1 << s;
    int ns = 0;
    for (int h = 1; s > 0 && h < H; h += 2) {
        const int e = H / 2 - 1 + h / 2;
        sv[ns] = sub[e];
        rv[ns++] = rind + (size_t)e * nr + j0;
    }
    return ns;
}

#endif
