/* xc_conform.h: a conformance suite for any implementation of a kernel
 * family, run against the family's reference and judged by the tolerance
 * class the implementation declares (xc_impl.tol).  Built for CI gates: a
 * user's own kernel, wrapped in an xc_dedisperser or xc_searcher, goes
 * through the same cases as the built-in ones.  The library never prints; it
 * fills a report with one row per case (its name, pass or fail, what was
 * observed, what was expected and the tolerance applied).
 *
 * Tolerance classes (core/base/xc_impl.h):
 *  - dedispersers: XC_TOL_EXACT (every plane bit for bit), XC_TOL_ROUNDING
 *    with value v (integer input bit for bit; float input within
 *    v * N * 2^-24 * max|ref| per range, N = unmasked channels * ds), or
 *    XC_TOL_SIGNAL_LOSS with value v (approximate algorithms: the peak S/N of
 *    an injected dispersed pulse at most a fraction v below the reference's;
 *    their planes must still hold finite values only, and stay linear and
 *    time invariant up to float rounding).
 *  - searchers: XC_TOL_EXACT (candidates, powers and raw peaks bit for bit)
 *    or XC_TOL_RELATIVE with value v (same candidates and peaks, power, sigma
 *    and ln p within v relative).
 * A class the family does not define is reported as a failing row "class".
 *
 * Cases: see conform_dedisperse.c and conform_search.c; every row's name
 * starts with its case ("hand/", "linearity/", "raw-peaks/", ...). */
#ifndef XC_CONFORM_H
#define XC_CONFORM_H

#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_error.h"
#include "core/search/xc_search.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One case's verdict. */
typedef struct {
    char name[96];          /* "hand/4ch-crosscheck", "raw-peaks/noise-sigma0-every-box", ... */
    int pass;
    char observed[256];
    char expected[256];
    char tolerance[192];
} xc_conform_row;

typedef struct {
    char impl[64], ref[64]; /* names of the implementation judged and of the reference */
    xc_conform_row *rows;
    size_t n, cap;
    size_t nfail;           /* rows with pass == 0 */
} xc_conform_report;

void xc_conform_report_init(xc_conform_report *r);
void xc_conform_report_free(xc_conform_report *r);
/* Appends a row (the texts are cut to their fields' sizes); NULL texts are
 * empty.  XC_ENOMEM. */
xc_status xc_conform_report_add(xc_conform_report *r, int pass, const char *name, const char *observed,
                                const char *expected, const char *tolerance, xc_error *err);
/* The first failing row whose name starts with prefix ("" or NULL: any);
 * NULL if none. */
const xc_conform_row *xc_conform_report_failed(const xc_conform_report *r, const char *prefix);
/* Appends the row "class": passes if impl declares a tolerance class its
 * family defines (see above) with a usable value: rounding v >= 0,
 * relative v >= 0, signal-loss 0 <= v < 1, all finite; *pass gets the
 * verdict.  XC_ENOMEM. */
xc_status xc_conform_check_class(const xc_impl *impl, xc_conform_report *rep, int *pass, xc_error *err);
/* What a conformance run checks before it starts: the reference is exact
 * (XC_EINVAL) and both are available here (XC_EUNAVAIL); then names both in
 * rep. */
xc_status xc_conform_check_pair(const xc_impl *impl, const xc_impl *ref, xc_conform_report *rep, xc_error *err);

/* A search configuration: a spectrum size and the options searched with. */
typedef struct {
    size_t nbins;
    xc_psopts opts;
} xc_conform_pscfg;

typedef struct {
    uint64_t seed;                       /* all test data derive from it (default 1) */
    int threads;                         /* handed to the implementation (0: its default) */
    double alpha;                        /* false-alarm rate of each statistical check (default 1e-3) */
    /* Searchers: the configurations of the candidate, power and raw-peak
     * comparisons (NULL: three small built-in ones; keep nbins modest, the
     * reference sums every boxcar directly). */
    const xc_conform_pscfg *ps_configs;
    size_t n_ps_configs;
    int noise_spectra;                   /* pure-noise spectra per borderline raw-peak case (default 12;
                                            0 leaves those cases out) */
} xc_conform_opts;

void xc_conform_opts_default(xc_conform_opts *o);

/* Runs every dedispersion case on impl, with ref (a descriptor of class
 * XC_TOL_EXACT, normally the registry's XC_CAP_REFERENCE entry) defining
 * the expected planes, and appends the rows to rep (initialised by the
 * caller).  o NULL: defaults.  An implementation that returns an error on a
 * valid case fails that row; the call itself returns XC_OK once every case
 * ran.  Errors: XC_EINVAL for a missing or wrong-family descriptor or a
 * reference that is not exact, XC_EUNAVAIL (with the implementation's
 * reason) if impl or ref is not available here, XC_ENOMEM. */
xc_status xc_conform_dedisperser(const xc_dedisperser *impl, const xc_dedisperser *ref, const xc_conform_opts *o,
                                 xc_conform_report *rep, xc_error *err);

/* The same for searchers (the whole pipeline through xc_pulscan_run, the
 * powers through xc_pulscan_powers, the raw peaks through xc_pulscan_peaks). */
xc_status xc_conform_searcher(const xc_searcher *impl, const xc_searcher *ref, const xc_conform_opts *o,
                              xc_conform_report *rep, xc_error *err);

/* The borderline cases alone, as `crosscheck run` and `gate` add them for
 * every searcher: nsp pure-noise spectra (seeds seed, seed + 1, ...)
 * searched at sigma 0, their raw peaks against the reference's one for one
 * (rows raw-peaks/noise-sigma0-every-box and -local-max).  Errors as
 * xc_conform_searcher's. */
xc_status xc_conform_searcher_noise(const xc_searcher *impl, const xc_searcher *ref, size_t nsp, uint64_t seed,
                                    xc_conform_report *rep, xc_error *err);

/* ---- building blocks of the cases, for a user's own cases too ------------ */

/* xorshift64* (state owned by the caller, never 0) and a standard normal
 * deviate from it (Box-Muller). */
uint64_t xc_conform_rng_next(uint64_t *s);
double xc_conform_rng_gauss(uint64_t *s);

/* A dedispersion input: geometry, DM plan, convention, block and kill mask,
 * all owned. */
typedef struct {
    xc_geometry g;
    xc_dmplan plan;
    const xc_convention *cv;
    xc_block blk;
    uint16_t *u16;         /* nbits 1..16 */
    float *f32;            /* nbits 32 */
    uint8_t *mask;         /* NULL: every channel */
    int64_t maxd;          /* the plan's largest delay */
} xc_conform_ddinput;

/* max_delay + nout spectra of zeros, channel c at fch1 + c foff MHz, under
 * plan ("lo:hi:step:ds,...") and a convention preset.  XC_EINVAL (unknown
 * preset, bad plan), XC_ENOMEM.  Free it with xc_conform_ddinput_free also
 * after an error. */
xc_status xc_conform_ddinput_make(xc_conform_ddinput *in, int nchans, int nbits, double fch1, double foff,
                                  double tsamp, const char *plan, const char *preset, size_t nout, xc_error *err);
/* Integer data uniform in [0, 2^nbits), float data in [0, 100). */
void xc_conform_ddinput_random(xc_conform_ddinput *in, uint64_t seed);
/* Sets the kill mask: kill 0 none, 'q' about a quarter at random, 'm' all
 * but the middle channel, 'a' every channel, 'e' the two end ones.  XC_ENOMEM. */
xc_status xc_conform_ddinput_mask(xc_conform_ddinput *in, char kill, uint64_t seed, xc_error *err);
void xc_conform_ddinput_free(xc_conform_ddinput *in);
/* Channels the mask keeps. */
int xc_conform_ddinput_nkept(const xc_conform_ddinput *in);

/* Dedisperses the whole block with d through one plan (xc_ddplan_create,
 * execute, destroy) into pl, allocated here and filled with NaN before the
 * run so that a value never written cannot pass.  pl is empty on failure;
 * the implementation's own errors are returned as they are. */
xc_status xc_conform_dd_run(const xc_dedisperser *d, const xc_conform_ddinput *in, const xc_ddopts *opts,
                            xc_plane *pl, xc_error *err);
/* The same with backend tuning (NULL: defaults). */
xc_status xc_conform_dd_run_tuned(const xc_dedisperser *d, const xc_conform_ddinput *in, const xc_ddopts *opts,
                                  const xc_ddtune *tune, xc_plane *pl, xc_error *err);
/* A zero plane of shape's shape.  XC_ENOMEM. */
xc_status xc_conform_plane_like(const xc_plane *shape, xc_plane *pl, xc_error *err);
/* Judges got against want (same shapes, from input in) by impl's class and
 * fills row's verdict and texts (not its name); returns the pass.
 * self = 0: want is the reference's: exact class bit for bit, rounding
 * class v integer input bit for bit and float within v * N 2^-24 max|want|,
 * signal-loss class every value finite.  self = 1: want comes from the
 * implementation itself (a property: linearity, shift, gulps): as above,
 * but the signal-loss class is held to v = 1 for integer and float input
 * alike.  mult scales the float bound when both sides carry rounding. */
int xc_conform_dd_judge(const xc_impl *impl, int self, const xc_conform_ddinput *in, const xc_plane *want,
                        const xc_plane *got, double mult, xc_conform_row *row);

#ifdef __cplusplus
}
#endif
#endif
