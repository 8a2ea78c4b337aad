/* xc_compare.h: compare a candidate DM-time plane A with a reference plane B.
 *
 * The planes must describe the same trials: same number of ranges, and per
 * range the same ds, number of DM trials, samples per trial and DM values
 * (equal within 1e-9 relative).  Anything else is refused with XC_EMISMATCH,
 * because a number computed over misaligned trials would mean nothing.
 *
 * Tolerance classes:
 *  - "exact": both planes come from integer input (nbits != 32) and the caller
 *    gave neither rtol nor atol.  Integer sums are exact, so every sample must
 *    be equal (xc_dedisperse.h).
 *  - "bound": |a - b| <= rtol * max|B_k| + atol for every sample of range k.
 *    The default rtol is N * 2^-24 with N = nchans_used * ds of that range,
 *    the worst-case relative error of a float sum of N terms (Higham's gamma_N
 *    to first order); the default atol is 0.
 *
 * Besides the verdict the result holds what a person needs to see where planes
 * differ: max absolute / relative / RMS difference, the count and the first
 * differing sample, each plane's peak (the sample of highest S/N, each
 * trial against its own mean and standard deviation, so that a downsampled
 * range's larger sums do not win by size) with its S/N, and the percentage
 * difference along one DM trial as in the AstroAccelerate paper (Novotny et al.
 * 2023, figures 13-14): 100 * (a - b) / max|b| over that trial's row. */
#ifndef XC_COMPARE_H
#define XC_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/base/xc_error.h"
#include "core/dedisp/run/xc_planefile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One side of a comparison; nothing is copied, all must outlive the call. */
typedef struct {
    const char *name;            /* used in messages, e.g. the .json path */
    const xc_plane *plane;
    const xc_planemeta *meta;    /* nbits and nchans_used decide the class */
    const xc_dmplan *plan;       /* the DM values of plane's trials */
} xc_cmpside;

typedef struct {
    double rtol;                 /* < 0: default N * 2^-24 per range */
    double atol;                 /* < 0: default 0 */
    double dm;                   /* DM for the per-trial percentage; NaN: B's peak DM */
} xc_cmpopts;

typedef enum { XC_CLASS_EXACT, XC_CLASS_BOUND } xc_cmpclass;

/* A sample of the plane. */
typedef struct {
    int range;
    size_t idm;                  /* trial index within the range */
    double dm;
    size_t t;                    /* sample index within the trial (units of ds) */
    double a, b;                 /* the two values there */
} xc_cmploc;

typedef struct {
    int found;                   /* 0 when the plane holds no finite value */
    int range;
    size_t idm;
    double dm;
    size_t t;
    double value;
    double snr;                  /* (value - row mean) / row std; 0 for a flat row */
} xc_cmppeak;

typedef struct {
    int ds;
    size_t ndm, nsamp;
    double n_terms;              /* N = nchans_used * ds */
    double max_abs_b;            /* max |B| over the range */
    double rtol, bound;          /* bound = rtol * max_abs_b + atol (bound class) */
    double max_abs;              /* max |A - B| over the range */
    uint64_t n_diff, n_over;
} xc_cmprange;

typedef struct {
    char name_a[1024], name_b[1024];
    char impl_a[64], impl_b[64];
    char conv_a[32], conv_b[32];
    int nbits_a, nbits_b;

    xc_cmpclass cls;
    double atol;                 /* atol in force (0 unless given) */
    int rtol_given;              /* 1 when rtol came from the caller */

    int nranges;
    xc_cmprange *r;              /* nranges entries (owned) */

    uint64_t n_total;            /* samples compared */
    uint64_t n_diff;             /* samples with a != b (two NaNs count as equal) */
    uint64_t n_over;             /* samples outside the bound (== n_diff for exact) */
    uint64_t n_nonfinite;        /* differing samples whose difference is not finite */
    uint64_t n_trials_diff;      /* DM trials with at least one differing sample */
    double max_abs;              /* max |a - b|; infinite if a difference is */
    double max_rel;              /* max |a - b| / |b| over |b| > 0 */
    double rms;                  /* sqrt(mean (a - b)^2) over finite differences */
    xc_cmploc first;             /* first differing sample (valid if n_diff > 0) */
    xc_cmploc worst;             /* where max_abs occurs (valid if n_diff > 0) */
    xc_cmppeak peak_a, peak_b;

    /* The chosen DM trial (valid if has_dm). */
    int has_dm;
    double dm_asked;
    xc_cmploc dmrow;             /* range, idm, dm of the nearest trial (t, a, b unused) */
    double dm_max_abs_b;         /* max |b| along that trial */
    double pct_max;              /* max |100 (a - b) / max|b|| along the trial */
    double pct_rms;              /* rms of 100 (a - b) / max|b| along the trial */

    int agree;                   /* the verdict (0 when no sample was compared) */
} xc_cmpresult;

/* rtol and atol unset (-1), dm NaN. */
void xc_cmpopts_init(xc_cmpopts *o);

/* Compares A (candidate) against B (reference) and fills res (free it with
 * xc_cmpresult_free, also after an error).  A disagreement is not an error:
 * it returns XC_OK with res->agree == 0.
 * Errors: XC_EMISMATCH when the planes' shapes or DM values differ (the message
 * names the range, trial and both values), XC_EINVAL for a side without plane,
 * meta or plan, a plan that does not match its own plane, or a bound class
 * whose default rtol cannot be formed (nchans_used unknown), XC_ENOMEM. */
xc_status xc_compare_planes(const xc_cmpside *a, const xc_cmpside *b, const xc_cmpopts *o,
                            xc_cmpresult *res, xc_error *err);
void xc_cmpresult_free(xc_cmpresult *res);

const char *xc_cmpclass_name(xc_cmpclass c);

/* How row a (one DM trial of an output, n samples) differs from the
 * reference's row b, in words, when simply: a shift, a[t] = b[t + s] within
 * tol wherever both exist, 1 <= |s| <= maxshift ("the reference's series
 * shifted by 1 sample: output sample t is reference sample t+1 (its
 * features come 1 sample early)"); a scale, a = c b within tol ("... times 0.5
 * (amplitude ratio 0.5)"); else the ratio of the rows' largest |values| when
 * it is more than 1 % from 1.  "" when none applies. */
void xc_cmp_describe_row(const float *a, const float *b, size_t n, double tol, int maxshift, char *out, size_t nout);
/* xc_cmp_describe_row (shifts up to 8 samples, the result's tolerance) for
 * the first DM trial outside it, as "; DM d (trial j) is ..."; "" when the
 * planes agree or that trial differs otherwise. */
void xc_cmpresult_describe(const xc_cmpresult *res, const xc_cmpside *a, const xc_cmpside *b, char *out, size_t nout);

/* Writes the result as a readable text report.  XC_EIO if the stream fails. */
xc_status xc_cmpresult_print(const xc_cmpresult *res, FILE *fp, xc_error *err);
/* Adds the result's fields to the JSON object obj (non-finite numbers as null). */
xc_status xc_cmpresult_json(const xc_cmpresult *res, json_t *obj, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
