/* xc_checks.h: the cross-checks `crosscheck run` makes, as functions that
 * append verdict rows to a list.  Each function judges one thing (a plane
 * against the reference's, one thread against many, an injected pulse, the
 * strongest line, candidate lists, the truth of a synthetic pulsar) with the
 * comparators of xc_compare.h, xc_cmpcands.h and xc_recover.h, and says in
 * the row what it observed, what it expected and why it passed or failed.
 *
 * A verdict is not an error: a plane that differs, or that cannot even be
 * compared (shapes differ), is a row with state XC_CHECK_FAIL and the
 * function returns XC_OK.  Errors (XC_EINVAL for a missing argument,
 * XC_ENOMEM) leave the list as it was and carry a message.  Nothing here
 * prints or exits; the caller shows the rows.
 *
 * A skipped check (XC_CHECK_SKIP: an implementation not available here) is
 * counted apart and never as a pass. */
#ifndef XC_CHECKS_H
#define XC_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "compare/xc_cmpcands.h"
#include "compare/xc_compare.h"
#include "compare/xc_recover.h"
#include "core/search/xc_cands.h"
#include "core/sp/xc_spcands.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { XC_CHECK_PASS, XC_CHECK_FAIL, XC_CHECK_SKIP } xc_check_state;

/* One verdict row. */
typedef struct {
    char check[256];       /* "OBS: what is checked", e.g. "crab-8bit: plane vs reference" */
    char impl[64];         /* the implementation judged ("-" for the spec itself) */
    xc_check_state state;
    double observed;       /* the number the verdict turns on; NaN when there is none (an error) */
    double expected;       /* the value it is held to (a truth, or a bound); NaN when none */
    char measured[512];    /* the message: the observation as text, or why it could not be made */
    char bound[512];       /* the rule as text */
} xc_check_row;

/* A growing list of rows with its counts. */
typedef struct {
    xc_check_row *row;
    size_t n, cap;
    size_t npass, nfail, nskip;
} xc_checks;

/* ---- the list (compare/check/check_verdict.c) ------------------------------------ */

void xc_checks_init(xc_checks *l);
void xc_checks_free(xc_checks *l);
const char *xc_check_state_name(xc_check_state s);     /* "PASS", "FAIL", "SKIP" */

/* Appends a row "obs: check" (just "check" when obs is NULL) whose message is
 * printf(fmt, ...).  bound NULL is "-".  XC_ENOMEM. */
xc_status xc_checks_addf(xc_checks *l, const char *obs, const char *impl, const char *check, xc_check_state state,
                         double observed, double expected, const char *bound, xc_error *err, const char *fmt, ...)
    __attribute__((format(printf, 10, 11)));
/* A failure with no number: "could not do it" rows (dedisperse failed, bad spec). */
xc_status xc_checks_fail(xc_checks *l, const char *obs, const char *impl, const char *check, const char *why,
                         const char *bound, xc_error *err);
/* After a comparison that returned st with message e: 0 when it succeeded
 * (the caller goes on to judge its result); otherwise 1, with *ret set to what
 * the check returns: XC_ENOMEM passed up through err, any other error a failed
 * row (inputs that cannot be compared cannot agree). */
int xc_checks_failed_call(xc_checks *l, const char *obs, const char *impl, const char *check, xc_status st,
                          const xc_error *e, const char *bound, xc_status *ret, xc_error *err);

/* ---- series of another tool (compare/check/check_series.c) -------------------------- */

/* "check": got (ngot samples) equals want (nwant) sample for sample over
 * want's length, bit for bit (bound 0): PASS; a difference, an empty want
 * or a want longer than got: FAIL, naming the largest difference and where.
 * XC_ENOMEM only. */
xc_status xc_check_series_equal(xc_checks *l, const char *obs, const char *impl, const char *check, const float *got,
                                size_t ngot, const float *want, size_t nwant, xc_error *err);

/* ---- planes (compare/check/check_planes.c) ---------------------------------------- */

/* "plane vs reference": xc_compare_planes with its default class (exact for
 * integer input, N*2^-24*max|ref| per range for float input).  observed is
 * the largest |a - ref|, expected the bound of range 0 (0 when exact).
 * Planes that cannot be compared are a failed row with the comparator's
 * message.  XC_ENOMEM. */
xc_status xc_check_plane(xc_checks *l, const char *obs, const char *impl, const xc_cmpside *a,
                         const xc_cmpside *ref, xc_error *err);

/* "1 thread vs many": the same bytes from one thread as from nthreads (a
 * threaded integer dedisperser sums in a fixed order, so any difference is a
 * race).  observed is the count of differing samples, expected 0; planes of
 * different shape fail.  XC_EINVAL for a NULL plane. */
xc_status xc_check_threads(xc_checks *l, const char *obs, const char *impl, const xc_plane *one,
                           const xc_plane *many, int nthreads, xc_error *err);

/* ---- approximate dedispersers (compare/check/check_smear.c) ---------------------- */
/* "approximate vs its reference (bit for bit)": an approximate implementation
 * must equal the reference of its own algorithm bit for bit on integer input.
 * The reference is found by behaviour, not by name: refs[0..nref) are the
 * planes of every REFERENCE|APPROXIMATE entry of the family (ref_names their
 * names, for the message), and the row passes when one of them equals a
 * sample for sample (same shape, same bits).  observed is the fewest differing
 * samples over the candidates (the whole plane when none has a's shape),
 * expected 0.  No candidate is a failed row.  XC_ENOMEM. */
xc_status xc_check_approx_ref(xc_checks *l, const char *obs, const char *impl, const xc_plane *a,
                              const xc_plane *const *refs, const char *const *ref_names, int nref, xc_error *err);
/* "S/N loss within the declared bound": rows[0..n) are compare/xc_smear.h's
 * measurements (each injected pulse against direct dedispersion at the same
 * trial, with the bound the implementation derives for that trial); the row
 * passes when every one is within its bound.  observed is the loss of the
 * worst row (largest loss minus bound), expected its bound.  No measurement
 * (n 0) is a failed row.  XC_ENOMEM. */
struct xc_smear_row;
xc_status xc_check_smear(xc_checks *l, const char *obs, const char *impl, const struct xc_smear_row *rows, size_t n,
                         xc_error *err);

/* ---- single pulses (compare/check/check_pulse.c) --------------------------------- */

/* What was injected, and how near the search must come. */
typedef struct {
    size_t index;          /* the pulse's number in the observation */
    double t_s, dm;        /* arrival at the highest channel, pc cm^-3 */
    double width_s;
    double snr_expected;   /* boxcar S/N of the injected pulse */
    double window_s;       /* the search window around t_s */
    double dm_steps;       /* |found - true DM| <= dm_steps trial steps (1) */
    double snr_rtol;       /* |found - expected S/N| <= snr_rtol * expected (0.10) */
} xc_pulse_truth;

/* From the synthesiser's parameters: snr is the per-sample S/N of a pulse of
 * width_s in samples of tsamp, so a matched boxcar gives snr sqrt(width_s /
 * tsamp); the window is the width plus 5 ms. */
void xc_pulse_truth_init(xc_pulse_truth *t, size_t index, double t_s, double dm, double width_s, double snr,
                         double tsamp);

/* "pulse N (DM d at t s)": xc_recover_pulse must find its best boxcar within
 * dm_steps trial steps of the true DM with S/N within snr_rtol of expected.
 * observed is the found DM, expected the true one.  XC_ENOMEM. */
xc_status xc_check_pulse(xc_checks *l, const char *obs, const char *impl, const xc_plane *pl,
                         const xc_dmplan *plan, double tsamp, const xc_pulse_truth *t, xc_error *err);

/* ---- the single-pulse search (compare/check/check_sp.c) ------------------------- */

/* "single-pulse search: pulse N": the brightest candidate of c whose box
 * centre ((sample + width/2) tsamp) is within t->window_s of t->t_s and whose
 * DM is within t->dm_steps of the plan's step at its trial must have a box
 * b within a factor 2 of the pulse's width W (samples) and an S/N within
 * t->snr_rtol of what a top hat gives in that box, t->snr_expected x
 * min(sqrt(b/W), sqrt(W/b)).  observed is its DM, expected the true one.
 * XC_ENOMEM. */
xc_status xc_check_sp_pulse(xc_checks *l, const char *obs, const char *impl, const xc_spcandlist *c,
                            const xc_dmplan *plan, const xc_pulse_truth *t, xc_error *err);
/* "single-pulse candidates vs reference": a and ref, both sorted
 * (xc_spcandlist_sort), hold the same clusters in the same order (sample,
 * width, DM trial, members) with S/N within rtol relative.  observed is the
 * count that differ (plus the difference in length), expected 0. */
xc_status xc_check_sp_same(xc_checks *l, const char *obs, const char *impl, const xc_spcandlist *a,
                           const xc_spcandlist *ref, double rtol, xc_error *err);

/* ---- periodic lines (compare/check/check_line.c) --------------------------------- */

/* "strongest line at DM d": the strongest bin above fmin_hz of the power
 * spectrum of the trial at DM dm must be within one bin of f0_hz.  observed
 * is the found frequency, expected f0_hz.  A DM not in the plan fails.  If
 * spec is not NULL it gets the normalised powers (xc_power_peak; the caller
 * frees) and peak the peak, for plots.  XC_ENOMEM. */
xc_status xc_check_line(xc_checks *l, const char *obs, const char *impl, const xc_plane *pl, const xc_dmplan *plan,
                        double tsamp, double dm, double f0_hz, double fmin_hz, double **spec, xc_powerpeak *peak,
                        xc_error *err);

/* "top candidate is the pulsar": the strongest candidate of the list
 * (Pulscan's, sorted by sigma) is at n f0 or f0 / n, n <= maxharm, within one
 * Fourier bin (1/T).  observed is its frequency, expected f0_hz.  An empty
 * list fails.  XC_EINVAL for a list without T. */
xc_status xc_check_top_cand(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c, double f0_hz,
                            int maxharm, xc_error *err);

/* ---- candidate lists (compare/check/check_cands.c) ------------------------------- */

/* "candidates vs reference": xc_compare_cands(a, ref, o) agrees.  observed is
 * the count of candidates at fault (unmatched above the threshold, or
 * matched outside the power or sigma tolerance), expected 0.  XC_ENOMEM. */
xc_status xc_check_cands(xc_checks *l, const char *obs, const char *impl, const xc_candlist *a,
                         const xc_candlist *ref, const xc_cmpcands_opts *o, xc_error *err);

/* "recovers truth r, z": xc_cands_match_truth(c, t, o) passes (set
 * o->fundamental, truth_dr, truth_dz, truth_signed_z for the rule).  observed
 * is the r of the fundamental detection (NaN when none), expected the true r
 * at the list's T; the message gives both errors and the frequency.  XC_ENOMEM. */
xc_status xc_check_truth(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c,
                         const xc_truth *t, const xc_cmpcands_opts *o, xc_error *err);

/* "r and f_hz agree": every candidate with a finite f_hz has |r - f_hz T| <=
 * tol bins at the observation length T the caller knows (tol: the columns'
 * rounding), so that a list cannot be judged by one column while the other is
 * wrong.  observed the largest |r - f_hz T|,
 * expected tol; the message names the worst candidate.  XC_EINVAL for no list,
 * T <= 0 or tol < 0. */
xc_status xc_check_cands_rf(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c, double T,
                            double tol, xc_error *err);

/* "power and sigma vs reference": each candidate of ref above sigma_min and
 * its pair in got (within dr in r and dz in z, signed or |z|, the same
 * numharm) must agree in power and in sigma within rtol (relative), each
 * column judged where got carries it (finite).  observed the largest
 * relative difference, expected rtol; the message names the worst pair.  A
 * list with nothing to judge (no pair, or neither column) is a skipped row.
 * XC_EINVAL for no list or a negative tolerance. */
typedef struct {
    double sigma_min, dr, dz;
    int signed_z;
    double rtol;
} xc_powercheck;

xc_status xc_check_cands_power(xc_checks *l, const char *obs, const char *impl, const xc_candlist *got,
                               const xc_candlist *ref, const xc_powercheck *pc, xc_error *err);

/* ---- borderline decisions (compare/check/check_noise.c) --------------------------- */

/* "pure noise at sigma 0 vs reference": a searcher (Pulscan or accel family)
 * and its family's reference on nsp pure-noise spectra (seeds seed...)
 * searched at sigma 0, where most of what is kept sits at its threshold:
 * the raw peaks (Pulscan) or candidate lists (accel) one for one, by the
 * implementation's class (xc_conform_searcher_noise, xc_conform_accel_noise).
 * A screen, rounding or selection that decides one borderline case otherwise
 * fails.  observed the failing cases, expected 0; the message names the
 * first difference.  XC_EINVAL for searchers of two families. */
xc_status xc_check_noise_search(xc_checks *l, const char *obs, const xc_impl *impl, const xc_impl *ref, size_t nsp,
                                uint64_t seed, xc_error *err);

/* ---- the accel search (compare/check/check_accel.c) ------------------------------ */

/* "finds truth r, z, w": the strongest candidate with sigma > sigma_min within
 * dr of r, dz of z and dw of w (signed; z or w NaN: not checked); observed its
 * r, expected r.  FAIL naming the strongest candidate when none is. */
xc_status xc_check_accel_truth(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c, double r,
                               double z, double w, double dr, double dz, double dw, double sigma_min, xc_error *err);
/* "candidates vs accelsearch": both ways, each of the strongest maxn
 * candidates (SIZE_MAX: all) with sigma > smin and r in [rlo, rhi] has a
 * counterpart (same numharm, |dr| <= 0.5, |dz| <= 2, |dw| <= 20, |dsigma| <=
 * 0.2); observed the number unmatched.  table names
 * accelsearch's file in the message. */
xc_status xc_check_accel_vs_accelsearch(xc_checks *l, const char *obs, const char *impl, const xc_candlist *ours,
                                        const xc_candlist *theirs, const char *table, double smin, double rlo,
                                        double rhi, size_t maxn, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
