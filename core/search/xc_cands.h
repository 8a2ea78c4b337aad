/* xc_cands.h: periodicity-search candidates and the files other tools read.
 *
 * Our convention (documented in docs/REFERENCE.md, and what every reader translates to):
 *   r      Fourier frequency of the candidate's fundamental, in bins, at the
 *          CENTRE of the boxcar (the average over the observation, as PRESTO's
 *          r = f*T); f_hz = r / T.
 *   z      bins drifted over the observation = boxcar width - 1 (fdot = z / T^2),
 *          PRESTO's z = fdot*T^2.
 *   power  summed normalised power: with real and imaginary parts normalised to
 *          unit variance, each bin's power re^2 + im^2 is chi-square with 2 degrees
 *          of freedom, and a sum over n bins has dof = 2n.
 *   logp   ln of the single-trial tail probability of `power` with `dof`
 *          (the same dof as the sigma).
 *   sigma  Gaussian-equivalent significance after a Bonferroni correction by
 *          `ntrials` (stated in every file).
 *
 * CSV (ours): a header line, then one row per candidate, sorted by descending sigma:
 *   r,f_hz,z,width,numharm,power,dof,logp,sigma,fdot_hz_s,accel_m_s2,ntrials
 * .pulscand: Pulscan's CPU columns (sigma power period_ms frequency_hz rbin f-dot z
 *   acceleration logp harmonic), with Pulscan's own r/z convention
 *   (rbin = start - 1 + floor(z/2), z = width - 1) so its users can diff.
 * PRESTO _ACCEL_<zmax>[_JERK_<wmax>]: the fundamentals table is read, w too (r, z, w already PRESTO
 *   averages; power is PRESTO's mean-1 normalisation, doubled to ours).
 */
#ifndef XC_CANDS_H
#define XC_CANDS_H

#include <stddef.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double r, z;
    int width;          /* boxcar width in bins (z + 1); 0 if unknown (PRESTO) */
    int numharm;
    double f_hz, fdot_hz_s, accel_m_s2;
    double power, dof;
    double logp, sigma;
    double ntrials;
    double w;           /* matched-filter jerk search: bins of fdot change, w = fdotdot T^3 (0 otherwise) */
} xc_cand;

typedef struct {
    xc_cand *c;
    size_t n, cap;
    double T;           /* observation length, s */
    char source[64];    /* "crosscheck", "pulscan", "presto" */
} xc_candlist;

void xc_candlist_init(xc_candlist *l);
void xc_candlist_free(xc_candlist *l);
xc_status xc_candlist_add(xc_candlist *l, const xc_cand *c, xc_error *err);
/* The ranges a candidate read from a file must be in for every use here
 * (writers, comparisons, the .pulscand rbin): r finite in 0..XC_CAND_MAX_R
 * (2^52: integer bins exact in a double and in a long), z and w finite with
 * |z|, |w| <= XC_CAND_MAX_ZW, numharm 0..1024, width
 * 0..2^30.  XC_EFORMAT naming `where` (file and line), the field and value. */
#define XC_CAND_MAX_R 4503599627370496.0
#define XC_CAND_MAX_ZW 1e9
xc_status xc_cand_check(const xc_cand *c, const char *where, xc_error *err);
/* Sorts by descending sigma, ties by ascending r then numharm then z (deterministic). */
void xc_candlist_sort(xc_candlist *l);

/* Fills f_hz, fdot_hz_s and accel_m_s2 (c = 299792458 m/s) from r, z and T. */
void xc_cand_derive(xc_cand *c, double T);

/* The readers replace l's contents (l must be initialised) and leave it empty
 * on error; messages name the file, the line, the column and the value. */
xc_status xc_cands_write_csv(const xc_candlist *l, const char *path, xc_error *err);
/* The accel (matched-filter) search's CSV: the same columns with w after z.
 * xc_cands_read_csv reads both (w = 0 for the first). */
xc_status xc_cands_write_csv_w(const xc_candlist *l, const char *path, xc_error *err);
xc_status xc_cands_read_csv(xc_candlist *l, const char *path, xc_error *err);
xc_status xc_cands_write_pulscand(const xc_candlist *l, const char *path, xc_error *err);
/* Reads Pulscan's .pulscand and converts r (rbin + 1 - floor(z/2) + (width-1)/2) and z to ours. */
xc_status xc_cands_read_pulscand(xc_candlist *l, const char *path, double T, xc_error *err);
/* Reads the fundamentals table of a PRESTO _ACCEL_<zmax> file. */
xc_status xc_cands_read_accel(xc_candlist *l, const char *path, xc_error *err);
/* Reads any of the three, chosen by the file name (.csv, .pulscand, _ACCEL_). */
xc_status xc_cands_read(xc_candlist *l, const char *path, double T, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
