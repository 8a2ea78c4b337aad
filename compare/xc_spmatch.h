/* xc_spmatch.h: single-pulse candidate lists (core/sp/xc_spcands.h)
 * matched against each other and against a synthetic truth's pulses.
 *
 * Where a candidate is: its box centre, (sample + width/2) * dt seconds, dt
 * the list's tsamp (or, when that is unknown, the candidate's own
 * time_s / sample), the time every format can give (Heimdall and PRESTO
 * report centres, we report box starts).  Its width in seconds is width * dt
 * (in samples when dt is unknown).
 *
 * A DM step of a list at a DM: from the candidates' (dm_index, dm) pairs,
 * sorted by index, the step (dm_j - dm_i) / (j - i) of the neighbouring pair
 * that spans that DM (the nearest pair outside their range).  A PRESTO
 * list's indices are the ranks of its DMs, so there it is the gap between
 * neighbouring DMs that have candidates.  Unknown (0) with a single DM.
 *
 * A against B: a pair needs
 *   |centre A - centre B| <= tol_s    (0: one width, the wider box's),
 *   |dm A - dm B|         <= tol_dm   (0: one DM step, the larger of the two
 *                                      lists' steps at those DMs),
 *   max(wA, wB) / min(wA, wB) <= tol_width (2: one step of a power-of-two list).
 * A's candidates, in descending S/N, each take the closest free B candidate,
 * distance (dt/tol_s)^2 + (ddm/tol_dm)^2 + (ln(width ratio)/ln(tol_width))^2.
 * Agreement: every candidate of either list with S/N above
 * snr_min * (1 + rtol_snr) is matched (one just above snr_min may sit just
 * below it, and so be absent, in the other list), and every pair with an
 * S/N above snr_min has |snrA / snrB - 1| <= rtol_snr.
 *
 * A list against truth: a pulse is found when a candidate's centre is within
 * tol_s (0: max(the candidate's width, the pulse's width)) of the pulse's
 * t_s (its centre at the highest channel: where a dedispersed series has
 * it), and its DM within tol_dm (0: one DM step of the list at the pulse's
 * DM); the highest-S/N such candidate is reported with its S/N over the
 * truth's (the expected boxcar S/N when the truth has it, else the peak S/N
 * per sample).  The verdict: every pulse found, and, with truth_rtol_snr > 0,
 * each such ratio within 1 +- truth_rtol_snr. */
#ifndef XC_SPMATCH_H
#define XC_SPMATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "core/base/xc_error.h"
#include "core/sp/xc_spcands.h"
#include "synth/truth/xc_truth.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double tol_s;          /* s; 0: one width (default) */
    double tol_dm;         /* pc cm^-3; 0: one DM step (default) */
    double tol_width;      /* width ratio (default 2) */
    double snr_min;        /* candidates above must be matched (default 0: every one) */
    double rtol_snr;       /* relative S/N tolerance of pairs (default 0.1) */
    double truth_rtol_snr; /* > 0: found pulses' S/N ratio within 1 +- this (default 0: not checked) */
} xc_spmatch_opts;

void xc_spmatch_opts_init(xc_spmatch_opts *o);

typedef struct {
    size_t ia, ib;
    double dt_s, ddm;      /* centre A - centre B; dm A - dm B */
    double snr_ratio;      /* snr A / snr B */
    int checked, snr_ok;   /* checked: an S/N above snr_min */
} xc_sppair;

typedef struct {
    size_t n;
    double min, max, mean, rms;   /* of the values; rms about 1 for ratios */
} xc_spstat;

typedef struct {
    size_t na, nb;
    xc_sppair *pairs;
    size_t npairs;
    size_t *a_only, na_only, *b_only, nb_only;
    size_t na_only_fail, nb_only_fail;   /* unmatched above snr_min * (1 + rtol_snr) */
    size_t nsnr_bad;                     /* checked pairs outside rtol_snr */
    xc_spstat ratio;                     /* snr A / snr B over all pairs */
    double dt_max_s, ddm_max;            /* largest |dt| and |ddm| of the pairs */
    int agree;
} xc_spmatch_result;

/* The DM step of l at dm (above); 0 when unknown. */
double xc_spcands_dm_step(const xc_spcandlist *l, double dm);
/* Centre of c's box in seconds, and its width in seconds (samples when the
 * sampling time is unknown). */
double xc_spcand_centre_s(const xc_spcandlist *l, const xc_spcand *c);
double xc_spcand_width_s(const xc_spcandlist *l, const xc_spcand *c);

/* A against B.  XC_EINVAL when tol_dm is 0 and neither list tells its DM
 * step (naming both files, asking for -tol_dm); XC_ENOMEM. */
xc_status xc_spmatch(const xc_spcandlist *a, const xc_spcandlist *b, const char *name_a, const char *name_b,
                     const xc_spmatch_opts *o, xc_spmatch_result *r, xc_error *err);
void xc_spmatch_result_free(xc_spmatch_result *r);

typedef struct {
    int found;
    size_t index;          /* the candidate (highest S/N) */
    double snr, truth_snr, ratio;   /* truth_snr: expected boxcar S/N, else peak */
    double dt_s, ddm;      /* candidate - truth */
    double tol_s, tol_dm;  /* the tolerances applied */
    size_t count;          /* candidates within them */
    int snr_ok;
} xc_spburst;

typedef struct {
    xc_spburst *bursts;    /* one per truth pulse */
    size_t n, nfound;
    size_t nother;         /* candidates near no pulse */
    xc_spstat ratio;       /* over found pulses */
    int pass;
} xc_sptruth_result;

/* l against t's pulses (t read with xc_truth_load_pulses).  XC_EINVAL when
 * tol_dm is 0 and l's DM step is unknown (name names l). */
xc_status xc_spmatch_truth(const xc_spcandlist *l, const char *name, const xc_truth *t, const xc_spmatch_opts *o,
                           xc_sptruth_result *r, xc_error *err);
void xc_sptruth_result_free(xc_sptruth_result *r);

/* Human-readable reports (at most maxlist unmatched candidates per side). */
xc_status xc_spmatch_print(const xc_spcandlist *a, const xc_spcandlist *b, const xc_spmatch_result *r,
                           const xc_spmatch_opts *o, size_t maxlist, FILE *fp, xc_error *err);
xc_status xc_sptruth_print(const char *name, const xc_spcandlist *l, const xc_truth *t, const xc_sptruth_result *r,
                           const xc_spmatch_opts *o, FILE *fp, xc_error *err);
/* JSON objects for -json (new references; NULL when out of memory). */
json_t *xc_spmatch_json(const xc_spmatch_result *r, const xc_spmatch_opts *o);
json_t *xc_sptruth_json(const xc_truth *t, const xc_sptruth_result *r);

/* Shared by compare/spmatch*.c: the DM trials of a list by index (for
 * xc_spcands_dm_step), each candidate's DM step (a new array, NULL with err
 * set), and the running statistics. */
typedef struct {
    int32_t *idx;
    double *dm;
    size_t n;
} xc_spsteps;
xc_status xc_spsteps_init_(xc_spsteps *s, const xc_spcandlist *l, xc_error *err);
double xc_spsteps_at_(const xc_spsteps *s, double dm);
void xc_spsteps_free_(xc_spsteps *s);
double *xc_spsteps_of_(const xc_spcandlist *l, xc_error *err);
void xc_spstat_add_(xc_spstat *s, double v, double about);
void xc_spstat_end_(xc_spstat *s);

#ifdef __cplusplus
}
#endif
#endif
