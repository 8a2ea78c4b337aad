/* xc_cmpcands.h: compare two candidate lists, and score a list against the
 * truth of a synthetic pulsar.
 *
 * Lists are first read into our convention (xc_cands.h: r = mid-observation
 * Fourier frequency of the fundamental, z = bins drifted, power in chi-square
 * units), whatever file they came from.
 *
 * Matching A with B: a pair needs the same numharm (unless anyharm),
 * |rA - rB| <= dr, |zA - zB| <= dz and |wA - wB| <= dw.  z is compared as |z| unless both
 * lists come from matched filters (PRESTO, our accel search): a boxcar (ours,
 * Pulscan) cannot tell the sign of z.  Pairs
 * are formed greedily: A's candidates in descending sigma each take the
 * closest free B candidate, distance (dr/dr_tol)^2 + (dz/dz_tol)^2.
 *
 * Agreement: every candidate with sigma > sigma_min + dsigma in either list is
 * matched (one just above the threshold may sit just below it, and so be
 * absent, in the other list), and every matched pair with a sigma above
 * sigma_min has |pA - pB| <= rtol_power * |pB| and |sA - sB| <= dsigma.
 *
 * Truth (the Pulscan paper's section 3.3.1 definition): a detection is a
 * candidate with sigma > truth_sigma whose frequency is within ftol
 * (relative) of the true spin frequency f0; the highest-sigma one is reported
 * with its r and |z| errors.  Candidates within ftol of n*f0 (harmonics) or
 * f0/n (subharmonics), n = 2..maxharm, are counted separately. */
#ifndef XC_CMPCANDS_H
#define XC_CMPCANDS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "core/search/xc_cands.h"
#include "core/base/xc_error.h"
#include "synth/truth/xc_truth.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double dr;            /* Fourier bins (default 1) */
    double dz;            /* bins (default 2) */
    int anyharm;          /* 1: match across numharm (default 0) */
    double sigma_min;     /* candidates above must be matched (default 2, the tools' default cut) */
    double rtol_power;    /* relative power tolerance (default 1e-4) */
    double dsigma;        /* absolute sigma tolerance (default 1e-3) */
    double truth_sigma;   /* detection threshold (default 6, the paper's) */
    double ftol;          /* relative frequency window (default 0.01, the paper's 1 %) */
    int maxharm;          /* harmonics and subharmonics up to this n (default 16) */
    int fundamental;      /* 1: the truth verdict needs a fundamental detection (default 0) */
    double truth_dr;      /* > 0: the fundamental detection's |r error| must be <= this (default: none) */
    double truth_dz;      /* > 0: the fundamental detection's z error must be <= this (default: none) */
    int truth_signed_z;   /* 1: that z error is z - z_true (a matched filter knows the drift's sign); 0: |z| - |z_true| */
    double dw;            /* jerk searches: |wA - wB| <= dw (default 20, PRESTO's w step; w = 0 elsewhere) */
} xc_cmpcands_opts;

void xc_cmpcands_opts_init(xc_cmpcands_opts *o);

typedef struct {
    size_t ia, ib;
    double dr, dz;        /* rA - rB, zA - zB (|z| unless signed_z) */
    double dsigma;        /* sigmaA - sigmaB */
    double dpower_rel;    /* (pA - pB) / |pB| */
    int checked;          /* a sigma above sigma_min: tolerances apply */
    int power_ok, sigma_ok;
} xc_candpair;

typedef struct {
    double max_abs, mean, rms;
} xc_diffstat;

typedef struct {
    int signed_z;
    size_t na, nb, na_above, nb_above;    /* above: sigma > sigma_min */
    xc_candpair *pairs;
    size_t npairs;
    size_t *a_only, na_only;              /* unmatched candidates of A (indices) */
    size_t *b_only, nb_only;
    size_t na_only_fail, nb_only_fail;    /* unmatched with sigma > sigma_min + dsigma */
    size_t npower_bad, nsigma_bad;        /* checked pairs outside the tolerances */
    xc_diffstat dr, dz, dsigma, dpower_rel;   /* over all pairs */
    int agree;
} xc_cmpcands_result;

/* Compares A with B (indices refer to the lists as given). */
xc_status xc_compare_cands(const xc_candlist *a, const xc_candlist *b, const xc_cmpcands_opts *o,
                           xc_cmpcands_result *res, xc_error *err);
void xc_cmpcands_result_free(xc_cmpcands_result *res);

typedef struct {
    int found;
    size_t index;         /* of the highest-sigma candidate in this class */
    int n;                /* 1 fundamental; n for n*f0 (harmonic) or f0/n (subharmonic) */
    double sigma, r, z, f_hz;
    double dr;            /* r - r_true*n (or r_true/n), r_true taken to the list's T */
    double dz;            /* |z| - |z_true|*n (or /n); z - z_true*n with truth_signed_z */
    double df_rel;        /* f / (f0 n) - 1 (or f n / f0 - 1) */
    size_t count;         /* candidates above truth_sigma in this class */
} xc_detection;

typedef struct {
    xc_detection fund, harm, sub;
    size_t nabove;        /* candidates above truth_sigma */
    size_t nother;        /* of those, neither f0 nor a (sub)harmonic: false positives */
    double r_true, z_true; /* the truth's r and z at the list's T, as the errors were taken (z signed) */
    int pass;             /* the verdict (options fundamental, truth_dr, truth_dz) */
} xc_truthmatch;

xc_status xc_cands_match_truth(const xc_candlist *l, const xc_truth *t, const xc_cmpcands_opts *o,
                               xc_truthmatch *m, xc_error *err);

/* T for a candidate file from the PRESTO .inf beside it: NAME.inf for
 * NAME.pulscand, and ROOT.inf for Pulscan's ROOT_ZMAX_..._TURBO_t.pulscand.
 * XC_EIO naming the paths tried when there is none. */
xc_status xc_cands_T_from_inf(const char *path, double *T, xc_error *err);
/* xc_cands_read, with T for a .pulscand from xc_cands_T_from_inf when T <= 0. */
xc_status xc_cands_load(xc_candlist *l, const char *path, double T, xc_error *err);

/* Human-readable report (at most maxlist unmatched candidates listed per side). */
xc_status xc_cmpcands_print(const xc_candlist *a, const xc_candlist *b, const xc_cmpcands_result *r,
                            const xc_cmpcands_opts *o, size_t maxlist, FILE *fp, xc_error *err);
xc_status xc_truthmatch_print(const char *name, const xc_candlist *l, const xc_truth *t,
                              const xc_truthmatch *m, const xc_cmpcands_opts *o, FILE *fp,
                              xc_error *err);
/* JSON objects for the -json output (new references; NULL when out of memory). */
json_t *xc_cmpcands_json(const xc_cmpcands_result *r, const xc_cmpcands_opts *o);
json_t *xc_truthmatch_json(const xc_truth *t, const xc_truthmatch *m);

#ifdef __cplusplus
}
#endif
#endif
