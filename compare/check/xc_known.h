/* xc_known.h: signals known to be in a real file, which a run spec declares
 * ("known": [...] of a periodicity, accel or real entry, compare/
 * xc_runspec.h) and the searches must find:
 *
 *   {"kind": "pulsar", "name": "J1807-0847", "f_hz": 6.1, "ftol_hz": 0.05, "dm": 112.38}
 *   {"kind": "birdie", "f_hz": 60, "sigma": 5}
 *   {"kind": "burst", "dm": 565, "t_s": 1.2}
 *
 * A pulsar or a birdie is judged on each periodicity search's candidate list
 * of the file: without "sigma", the strongest candidate must lie within
 * ftol_hz of f_hz or of one of its first maxharm harmonics or
 * sub-harmonics (n f or f / n, as PRESTO's sifting relates candidates);
 * with "sigma", some candidate with sigma above it must lie within ftol_hz
 * of f_hz (or a harmonic up to maxharm).  A pulsar's DM is judged against
 * the DM the series was dedispersed at (its .inf): within dmtol.  A burst
 * (DM and arrival time of a single pulse at the top of the band) is judged
 * on each single-pulse searcher's cluster list (xc_check_known_sp): the
 * brightest cluster whose box centre lies within ttol_s of t_s must be at
 * the DM within one DM step of the plan (within dmtol on a series of one
 * DM) and its box centre within one box width of t_s.  Where no search ran
 * it is a skipped row, never a pass. */
#ifndef XC_KNOWN_H
#define XC_KNOWN_H

#include <stddef.h>

#include "compare/check/xc_checks.h"
#include "core/base/xc_error.h"
#include "core/search/xc_cands.h"
#include "core/sp/xc_spcands.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { XC_KNOWN_PULSAR, XC_KNOWN_BIRDIE, XC_KNOWN_BURST } xc_known_kind;

typedef struct {
    const char *kind_name;     /* "pulsar", "birdie" or "burst" (required) */
    xc_known_kind kind;        /* from kind_name */
    const char *name;          /* shown in the check; default the kind */
    double f_hz;               /* pulsar, birdie: required */
    double ftol_hz;            /* default: one Fourier bin of the searched spectrum (NaN) */
    int maxharm;               /* harmonics and sub-harmonics that count (default 1: f itself) */
    double sigma;              /* NaN (default): the strongest candidate must be the signal */
    double dm, dmtol;          /* pulsar: required DM; tolerance default 1 pc cm^-3.  burst: required */
    double t_s, ttol_s;        /* burst: required arrival time; the window searched around it, default 0.01 s */
} xc_known;

/* Sets the defaults (every number NaN but maxharm 1, dmtol 1, ttol_s 0.01). */
void xc_known_init(xc_known *k);

/* Turns kind_name into kind and checks that the fields the kind needs are
 * there and those it does not take are not (where names the entry, "FILE:
 * known[0]").  XC_EINVAL. */
xc_status xc_known_check(xc_known *k, const char *where, xc_error *err);

/* The rows of one known signal against one search's list c (of a spectrum
 * dedispersed at series_dm, NaN when unknown): "known pulsar NAME at F Hz"
 * (and "... at DM D" for a pulsar with a known series DM).  A burst adds one
 * skipped row.  XC_ENOMEM, XC_EINVAL for a list without T. */
xc_status xc_check_known(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c, const xc_known *k,
                         double series_dm, xc_error *err);

/* The row of burst k against a single-pulse searcher's list c (sorted,
 * tsamp set): "known burst NAME at DM D, T s", PASS as the header says; plan
 * is the DM plan of the plane searched, NULL for a series of one DM (then
 * the DM tolerance is k->dmtol).  observed is the cluster's DM, expected
 * k->dm.  XC_EINVAL for a k that is no burst, XC_ENOMEM.
 * (compare/check/check_sp.c) */
xc_status xc_check_known_sp(xc_checks *l, const char *obs, const char *impl, const xc_spcandlist *c,
                            const xc_dmplan *plan, const xc_known *k, xc_error *err);

/* The row of a burst where no single-pulse search ran (a skipped check
 * naming what would judge it). */
xc_status xc_check_known_burst(xc_checks *l, const char *obs, const xc_known *k, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
