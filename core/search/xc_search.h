/* xc_search.h: the periodicity-search (Pulscan boxcar) interface: options,
 * spectra, peaks, the stages an implementation supplies and the pipeline core
 * drives around them.
 *
 * Every searcher reads the same spectrum and options and must return the same
 * candidate list as the reference.  The pipeline (the Pulscan paper's, with the
 * defects measured in Pulscan's code fixed; see docs/REFERENCE.md):
 *
 *  1. Normalise.  Bins 1..nbins-1 (bin 0 packs DC and Nyquist and is never
 *     used) are cut into blocks of `normwidth` bins; a remainder shorter than a
 *     block joins the last full block, so the last block holds normwidth to
 *     2*normwidth-1 bins (nbins-1 < normwidth gives one block).  In each block
 *     the real and the imaginary parts are normalised separately:
 *     x' = (x - med) / (MAD * 1.482602218505602), 1.4826.. = 1/Phi^-1(3/4);
 *     med is the exact median (mean of the two middle values for even n) or,
 *     with XC_NORM_MOM, the GPU version's median of medians of 4.  A block
 *     whose MAD is 0 (more than half of its values equal) borrows med and MAD
 *     of the nearest block with a non-zero MAD (the lower one at equal
 *     distance); a part whose MAD is 0 in every block is refused (XC_EINVAL).
 *     The block size does not depend on zmax.
 *  2. Power.  P[k] = re'^2 + im'^2 (chi-square, 2 dof, for noise); P[0] = 0.
 *  3. Harmonic stage h = 1..numharm (each searched on its own):
 *     S_h[i] = sum_{k=1..h} sum_{j=0..k-1} P[k*i + j],  i = 0..floor(nbins/h)-1,
 *     harmonic k adding the k adjacent bins that can hold k*r for r in bin i;
 *     h(h+1)/2 bins, so 2*h(h+1)/2 dof per S_h value.
 *  4. Boxcar: B_{h,w}[i] = sum_{m=0..w-1} S_h[i + m], widths w = 1..zmax+1
 *     (z = w - 1 bins drifted), so harmonic k adds bins k*i .. k*(i+w)-1.
 *     A boxcar exists only for starts i >= max(1, (h-1)*w) that keep it
 *     inside S_h (i + w - 1 <= floor(nbins/h) - 1): below (h-1)*w the bins
 *     of harmonics k and k+1 overlap (k*(i+w)-1 >= (k+1)*i for some k < h),
 *     bins would be counted twice and the sum would not be chi-square with
 *     the dof of 6.  A boxcar that does not exist is -infinity: never a peak,
 *     never above a threshold.  Widths searched: z % zstep == 0,
 *     or with zlog z in {0, 1, 2, 4, 8, ...}; z <= zmax always.
 *  5. Peaks, per stage: boxcars above the power at which sigma = `sigma` for
 *     their width, and
 *     rblock = 0: a filled boxcar (xc_pulscan_filled) that is a local
 *       maximum of the score over the grid of starts and searched widths:
 *       score(i,w) > score(i-1,w) and score(i-1..i+1, w-), score(i,w) >=
 *       score(i+1,w) and score(i-1..i+1, w+), w- and w+ being the neighbouring
 *       searched widths.  score = xc_pulscan_score of the power for filled
 *       boxcars (widths are compared by significance, as a wider boxcar always
 *       holds more power), -infinity for unfilled ones, for boxcars that do
 *       not exist (step 4) and for widths outside the searched range; ties
 *       go to the first in (width, start) order;
 *     rblock = 1: Pulscan's search: per width, the largest B over the
 *       existing boxcars (step 4) among the starts of each R-block
 *       [c*chunkwidth, (c+1)*chunkwidth) (first one on ties), at its exact r;
 *       a block with no existing boxcar of a width gives none.
 *  6. Significance: power = B, dof = 2*w*h(h+1)/2, logp = ln Q_chi2(power; dof)
 *     (single trial), sigma = xc_candidate_sigma(power, dof, ntrials) with
 *     ntrials = (floor(nbins/h) - 1) * (1 + zmax/6.95) independent trials per
 *     stage (fundamental bins searched, times the z = 0 trial plus Pulscan's
 *     zmax/6.95 from Andersen & Ransom 2018; independent of zstep/zlog so that
 *     sigmas do not change with the z sampling).  Kept if sigma > `sigma`.
 *  7. Reported r = i + (w - 1)/2, the boxcar's centre in Fourier bins of the
 *     fundamental (the mid-observation average, as PRESTO); z = w - 1.
 *  8. Low-frequency cut: candidates whose boxcar starts below
 *     xc_pulscan_rlo (floor(flo T), flo = 1 Hz by default, as accelsearch's
 *     -flo) are dropped, before sifting, so that red noise near DC neither
 *     leads the list nor sifts real signals away as their "harmonics".
 *     The trials of step 6 still count every fundamental bin (a cut after
 *     the search: sigmas do not change with flo).  R-block peaks are the
 *     maxima of whole R-blocks, the cut applying to the peak found.
 *  9. Sifting (unless nosift): R-block peaks that are not filled are dropped,
 *     then xc_pulscan_sift.
 *
 * With rednoise = 1 the spectrum is first dereddened (xc_spectrum_deredden,
 * PRESTO's method), in core, before any implementation's stages, so every
 * implementation searches the same values.
 */
#ifndef XC_SEARCH_H
#define XC_SEARCH_H

#include <stddef.h>

#include <math.h>

#include "core/search/xc_cands.h"
#include "core/base/xc_error.h"
#include "core/base/xc_hd.h"
#include "core/base/xc_impl.h"
#include "core/base/xc_progress.h"
#include "core/search/xc_spectrum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1/Phi^-1(3/4): turns a MAD into a Gaussian standard deviation. */
#define XC_MAD_TO_SIGMA 1.482602218505602

typedef enum { XC_NORM_EXACT = 0, XC_NORM_MOM } xc_norm_mode;
typedef enum { XC_LOGP_EXACT = 0, XC_LOGP_POLY } xc_logp_mode;

typedef struct {
    XC_GROWN(front)
    int zmax;              /* largest z = width - 1 (default 200) */
    int numharm;           /* harmonic stages 1..numharm, 1..8 (default 1) */
    double sigma;          /* keep sigma > this, >= 0 (default 2.0) */
    int zstep;             /* search z with z % zstep == 0 (default 2, as Pulscan) */
    int zlog;              /* 1: z in {0, 1, 2, 4, ...} instead of zstep */
    size_t chunkwidth;     /* R-block width in starts (default 32768) */
    size_t normwidth;      /* normalisation block in bins (default 6000) */
    int rblock;            /* 1: one peak per R-block per width per stage */
    int nosift;            /* 1: keep every peak above the threshold */
    xc_norm_mode norm;     /* exact median/MAD or median of medians */
    xc_logp_mode logp;     /* exact or the paper's polynomial (logp and sigma only) */
    int threads;           /* 0: OpenMP default */
    int tile;              /* cpu: starts per cache tile (0: 1024) */
    double flo;            /* lowest fundamental frequency kept, Hz (default 1, as accelsearch's -flo) */
    double rlo;            /* the same in bins; NAN (default): floor(flo T); given, it overrides flo */
    int rednoise;          /* 1: deredden the spectrum first (core/search/spectrum/xc_rednoise.h) */
    /* Who hears how far the peak search has got (xc_pulscan_session_progress,
     * xc_psearch_progress set it): "pulscan" with work done and the total
     * (the reference: boxcar widths of every stage; cpu: R-blocks of every
     * stage; a searcher may say nothing).  Not a search parameter: the
     * candidates do not depend on it.  Default: nobody listens. */
    xc_progress_cb progress;
    XC_GROWN(back)
} xc_psopts;

void xc_psopts_default(xc_psopts *o);
/* XC_EINVAL naming the option and value when an option is out of range. */
xc_status xc_psopts_check(const xc_psopts *o, xc_error *err);

/* The spectrum searched: core/search/xc_spectrum.h. */

/* A raw peak: stage h, width w, boxcar start i, summed power.  A searcher
 * that scores its peaks itself (the GPU's log p stage) fills logp and filled;
 * xc_pspeaks_push leaves logp = NAN and filled = -1, and xc_pulscan_finish
 * then computes them. */
typedef struct {
    size_t i;
    int width, numharm;
    double power;
    double logp;           /* single-trial ln p, NAN: not computed */
    int filled;            /* xc_pulscan_filled result, -1: not computed */
} xc_pspeak;

typedef struct {
    xc_pspeak *p;
    size_t n, cap;
} xc_pspeaks;

void xc_pspeaks_init(xc_pspeaks *l);
void xc_pspeaks_free(xc_pspeaks *l);
xc_status xc_pspeaks_push(xc_pspeaks *l, size_t i, int width, int numharm, double power, xc_error *err);
/* qsort order of raw peaks: harmonic stage, then width, then start bin
 * (one peak per key), so two lists can be compared one for one. */
int xc_pspeak_cmp(const void *a, const void *b);
/* Moves src's peaks onto the end of dst (src is emptied). */
xc_status xc_pspeaks_move(xc_pspeaks *dst, xc_pspeaks *src, xc_error *err);

/* ---- the pieces every searcher shares (core/xc_search.c) ---------------- */

/* Checks the options (xc_psopts_check) and the spectrum: at least 2 bins and
 * every value finite (XC_EFORMAT naming the bin and its byte offset). */
xc_status xc_pulscan_check_input(const xc_spectrum *sp, const xc_psopts *o, xc_error *err);
/* The spectrum's shape only (bins and T, the same errors), without the pass
 * over its values: for a searcher that names the first non-finite value
 * itself (xc_searcher.checks_finite). */
xc_status xc_pulscan_check_shape(const xc_spectrum *sp, xc_error *err);

/* Normalisation blocks over bins 1..nbins-1 (see 1. above): xc_pulscan_nblocks
 * and xc_pulscan_block of core/search/xc_spectrum.h. */
/* Fills in blocks with MAD 0 (see 1. above): med and mad hold [2*b + part]
 * for nb blocks (part 0 real, 1 imaginary).  XC_EINVAL if a part has MAD 0 in
 * every block. */
xc_status xc_pulscan_borrow(double *med, double *mad, size_t nb, size_t nbins, xc_error *err);
/* Median of medians of 4 (the GPU version's estimator) of buf[0..n-1], n >= 1;
 * buf is overwritten.  Each level takes groups {t, t+s, t+2s, t+3s} with
 * s = floor(n/4) (the GPU's strided reduction) and the exact median of the
 * 1..3 values left over, until one value remains; the median of a group of 4
 * is (a+b+c+d-min-max)/2. */
double xc_median_of_medians(double *buf, size_t n);
/* The significance score that compares boxcars of different widths in the
 * local-maximum test: the signed root of the chi-square deviance,
 * sign(x-1) sqrt(dof (x - 1 - ln x)), x = power/dof, which is close to the
 * Gaussian-equivalent single-trial sigma (Temme's uniform asymptotics) and
 * costs one log.  -infinity for power = -infinity. */
double xc_pulscan_score(double power, double dof);
/* Its body, inline for the GPU's exact pass as well. */
XC_HD static inline double xc_pulscan_score_inline(double power, double dof)
{
    if (power == -INFINITY)
        return -INFINITY;
    if (!(power > 0))
        return -sqrt(dof * 1e300);
    double x = power / dof, dev = dof * (x - 1 - log(x));
    double r = sqrt(dev > 0 ? dev : 0);
    return x < 1 ? -r : r;
}
/* S_h[x] from the powers, summed in this order by every implementation
 * (the GPU's included: it is compiled for the device too). */
XC_HD static inline double xc_pulscan_sh(const double *P, int h, size_t x)
{
    double s = 0;
    for (size_t k = 1; k <= (size_t)h; k++)
        for (size_t j = 0; j < k; j++)
            s += P[k * x + j];
    return s;
}
/* Prefix sums of stage h: C[0] = C[1] = 0, C[x+1] = C[x] + S_h[x] for
 * x = 1..L-1 (L = floor(nbins/h); S_h[0], holding DC, is left out); C has L+1
 * entries. */
void xc_pulscan_prefix(const double *P, size_t nbins, int h, double *C);
/* The fill test: 1 if the boxcar (start i, width w, stage h, power) is
 * filled the way a drifting signal fills it.  Widths below 4 always pass;
 * otherwise each quarter [i + floor(q*w/4), i + floor((q+1)*w/4)) must hold
 * at least 1/16 of the boxcar's excess power (power - dof; an even spread
 * gives each quarter 1/4).  A wide boxcar that owes its power to a few narrow
 * peaks (a pulsar's fundamental and second harmonic inside one boxcar, or one
 * spike with weak wings) fails, which leaves the narrower boxcars to stand
 * for the place.  0 for power = -infinity.  C from xc_pulscan_prefix. */
int xc_pulscan_filled(const double *C, size_t i, int width, int numharm, double power);
/* Fundamental bins of stage h: floor(nbins/h) S_h values. */
size_t xc_pulscan_nfund(size_t nbins, int h);
/* Bonferroni trials of stage h (see 6. above). */
double xc_pulscan_ntrials(size_t nbins, int h, int zmax);
/* 1 if width w (z = w - 1) is searched under the options. */
int xc_pulscan_width_searched(const xc_psopts *o, int w);
/* Thresholds for every stage and width: thr[(h-1)*(zmax+2) + w] (xc_power_threshold of
 * core/search/stats/xc_signif.h); caller frees. */
xc_status xc_pulscan_thresholds(const xc_psopts *o, size_t nbins, double **thr, xc_error *err);
/* Turns raw peaks into candidates: sigma and logp (exact or polynomial;
 * a logp already in the peak is used as it is, sigma then following from it
 * and the trials as in xc_candidate_sigma),
 * the sigma cut, r/z/f, sifting unless o->nosift, sorted by xc_candlist_sort.
 * Peaks are reordered; the result does not depend on their input order.
 * P may be NULL when every R-block peak carries its fill test (filled >= 0). */
xc_status xc_pulscan_finish(const xc_psopts *o, const xc_spectrum *sp, const double *P, xc_pspeaks *pk,
                            xc_candlist *out, xc_error *err);
/* Sifting, on candidates in any order (result sorted by xc_candlist_sort):
 *  - clusters: going down in sigma, a candidate is dropped when a kept one
 *    has |dr| <= max(2, (width_a + width_c)/2) (their boxcars touch), across
 *    widths and stages;
 *  - harmonics: then, going down in sigma, c is related to a stronger kept
 *    a when |r_c - q r_a| <= 1.1 (1 + q) for a ratio q = n/m != 1 (n, m
 *    coprime) that a harmonic sum can produce: c's m-th harmonic, m <= c's
 *    stages (numharm), on a's n-th, n <= 16.  Each r is taken as uncertain
 *    by 1.1 bins, a's q-th multiple by q times that (PRESTO sifting.py's
 *    r_err = 1.1; its and accelsearch's eliminate_harmonics' factors 1..16).
 *    The tolerance does not grow with either boxcar's width: a drifting
 *    signal's mean frequency r is known to about a bin whatever its drift.
 *    A related c is dropped, except when c's fundamental is a's n-th
 *    harmonic (m = 1) summed by a (n <= a's stages) and a is only c's echo:
 *    no candidate of a stage below n (a sum that does not reach c) touches
 *    a's boxcar.  Then c replaces a: a candidate is never replaced by a
 *    sub-harmonic that holds nothing but its own power.  At numharm 1
 *    (every candidate of stage 1) only integer ratios n = 2..16 relate. */
xc_status xc_pulscan_sift(xc_candlist *l, xc_error *err);
/* The first boxcar start kept by the low-frequency cut (step 8): o->rlo
 * when given, else floor(flo T); at least 1. */
double xc_pulscan_rlo(const xc_psopts *o, double T);

/* ---- searchers and the pipeline core drives ------------------------------ */

/* A searcher (family XC_FAMILY_PULSCAN): the common head, then its stages.
 * Core drives the pipeline (xc_pulscan_run): input checks, thresholds, the
 * implementation's powers and peaks stages, then xc_pulscan_finish and
 * sifting, the same code for every implementation.
 *  - powers: steps 1-2, P[0..nbins-1] on the host (input already checked);
 *  - peaks: steps 3-5, the raw peaks above thr (from xc_pulscan_thresholds)
 *    appended to pk, from the host powers P, or, with own_powers = 1, from
 *    powers the stage computes where it runs (a device), P then being NULL;
 *    such a stage must fill every peak's logp and filled.
 * impl.tol: XC_TOL_EXACT (bit-identical candidates) or XC_TOL_RELATIVE with
 * value v: same r, width and stage, power and sigma within v relative. */
typedef struct xc_searcher {
    xc_impl impl;
    /* Every method gets its descriptor first (self). */
    xc_status (*powers)(const struct xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, double *P,
                        xc_error *err);
    xc_status (*peaks)(const struct xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                       const double *thr, xc_pspeaks *pk, xc_error *err);
    int own_powers;
    /* Optional (NULL: none), for core's sessions below: state made once for
     * spectra of nbins bins searched with options o (a device's buffers,
     * thresholds and widths: what does not depend on the data), peaks_in
     * with it (peaks' semantics; P is NULL with own_powers), destroy.  Not
     * taken from plugins (the host wraps their searchers). */
    xc_status (*plan)(const struct xc_searcher *self, size_t nbins, const xc_psopts *o, void **state, xc_error *err);
    xc_status (*peaks_in)(const struct xc_searcher *self, void *state, const xc_spectrum *sp, const xc_psopts *o,
                          const double *P, const double *thr, xc_pspeaks *pk, xc_error *err);
    void (*destroy)(const struct xc_searcher *self, void *state);
    /* Optional: the bytes steps 3-5 hold beside the powers for a search of
     * nbins bins with options o (NULL: the reference's, a few rows of nbins
     * doubles), for xc_pulscan_memory. */
    double (*stage_bytes)(const struct xc_searcher *self, size_t nbins, const xc_psopts *o);
    /* 1: peaks_in reports a non-finite input value itself, the first one
     * with xc_pulscan_check_input's error, so that a session (without red
     * noise removal) spares the host its pass over the spectrum. */
    int checks_finite;
    /* Optional, with plan: the state made again for spectra of nbins bins
     * (o as at plan; thr xc_pulscan_thresholds(o, nbins)), the plan would
     * make, keeping what does not depend on the length (a device's buffers
     * while large enough, its stream), so that a session moves to the next
     * length without freeing device memory (a cudaFree waits for the whole
     * device).  On failure the state is fit only for destroy. */
    xc_status (*replan)(const struct xc_searcher *self, void *state, size_t nbins, const xc_psopts *o,
                        const double *thr, xc_error *err);
} xc_searcher;

/* The descriptor behind a registry entry; NULL if impl is of another family. */
const xc_searcher *xc_searcher_of(const xc_impl *impl);

/* The whole search with searcher s: candidates into out (initialised by the
 * caller, e.g. xc_candlist_init).  An implementation without XC_CAP_THREADED
 * also gets one thread for significance and sifting. */
xc_status xc_pulscan_run(const xc_searcher *s, const xc_spectrum *sp, const xc_psopts *o, xc_candlist *out,
                         xc_error *err);
/* Steps 1-2 only (checked input), for the statistics and conformance tests. */
xc_status xc_pulscan_powers(const xc_searcher *s, const xc_spectrum *sp, const xc_psopts *o, double *P,
                            xc_error *err);
/* Steps 1-5 only: the raw peaks, before significance. */
xc_status xc_pulscan_peaks(const xc_searcher *s, const xc_spectrum *sp, const xc_psopts *o, xc_pspeaks *pk,
                           xc_error *err);

/* A session (core/search/pulscan/xc_ps_session.c): many searches of spectra of one length
 * with one searcher and one set of options (a study's pulsars): the
 * thresholds, and the searcher's plan where it has one, are made once.  The
 * candidates equal xc_pulscan_run's bit for bit (the same thresholds and
 * stages).  A spectrum of another length is refused (XC_EINVAL naming both
 * lengths).  Not thread safe: one caller at a time per session. */
typedef struct xc_pulscan_session xc_pulscan_session;
xc_status xc_pulscan_session_open(const xc_searcher *s, size_t nbins, const xc_psopts *o, xc_pulscan_session **ss,
                                  xc_error *err);
xc_status xc_pulscan_session_run(xc_pulscan_session *ss, const xc_spectrum *sp, xc_candlist *out, xc_error *err);
size_t xc_pulscan_session_nbins(const xc_pulscan_session *ss);
/* The session moved to spectra of nbins bins: the thresholds made again
 * and the searcher's plan made again (its replan, keeping its buffers, or
 * destroy and plan); the candidates are then those of a session opened for
 * nbins, bit for bit.  On failure the session is fit only for close. */
xc_status xc_pulscan_session_refit(xc_pulscan_session *ss, size_t nbins, xc_error *err);
/* The listener of the session's runs from now on (xc_psopts.progress). */
void xc_pulscan_session_progress(xc_pulscan_session *ss, xc_progress_cb cb);
void xc_pulscan_session_close(xc_pulscan_session *ss);
/* The bytes a search by s of nbins bins at o holds at its peak beside the
 * spectrum: thresholds, powers, a dereddened copy, and a stage's arrays of
 * at most the reference's size (5 doubles a bin); candidates not counted. */
double xc_pulscan_memory(const xc_searcher *s, size_t nbins, const xc_psopts *o);

#ifdef __cplusplus
}
#endif
#endif
