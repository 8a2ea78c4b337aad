/* xc_psearch.h: one contract for the periodicity searches, whichever family
 * the implementation is of: the Pulscan boxcar search (core/search/
 * xc_search.h) and the matched-filter accel/jerk search (core/search/
 * xc_accel.h).  A spectrum and options in, a candidate list out, over many
 * spectra of one length:
 *
 *   xc_psearch *s;
 *   xc_psearch_open(&s, impl, nbins, T, opts, n, &err);  n configurations
 *   xc_psearch_run(s, &spectrum, lists, &err);           lists[0..n-1]
 *   xc_psearch_close(s);
 *
 * Each configuration carries its family's options, tagged with the family
 * (xc_psearch_opts); all of them must be of the implementation's family.
 * Open makes what does not depend on the data once (thresholds, plans,
 * templates, a device's buffers) through the family's sessions, which stay
 * the engine: a Pulscan search opens one xc_pulscan_session per
 * configuration; an accel search opens one xc_accel_session over all n,
 * which searches the configurations that nest (zmax and numharm of preset
 * exact, every other option equal) as one search, the cost of about the
 * largest (xc_accel_run_sweep).  The lists equal the families' one-off
 * searches bit for bit: xc_pulscan_run per configuration; xc_accel_run for
 * n = 1 and xc_accel_run_sweep for n > 1 (whose lists differ from n
 * separate searches by the plane's float rounding: see xc_psearch_joint).
 * One caller at a time per search. */
#ifndef XC_PSEARCH_H
#define XC_PSEARCH_H

#include <stddef.h>

#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"
#include "core/search/xc_accel.h"
#include "core/search/xc_cands.h"
#include "core/search/xc_search.h"
#include "core/search/xc_spectrum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One configuration: the options of the family named by the tag. */
typedef struct {
    xc_family family;      /* XC_FAMILY_PULSCAN: ps; XC_FAMILY_ACCEL: ac */
    union {
        xc_psopts ps;
        xc_accel_opts ac;
    };
} xc_psearch_opts;

/* The family's defaults (those of `crosscheck pulscan` / `crosscheck accel`);
 * another family gets a tag no search takes. */
void xc_psearch_opts_default(xc_psearch_opts *o, xc_family family);
/* The family's own checks (xc_psopts_check, xc_accel_opts_check). */
xc_status xc_psearch_opts_check(const xc_psearch_opts *o, xc_error *err);
/* The options every family has: the largest z, the harmonics summed, the
 * sigma kept above; and the OpenMP threads (0: the default). */
void xc_psearch_opts_set(xc_psearch_opts *o, int zmax, int numharm, double sigma);
void xc_psearch_opts_get(const xc_psearch_opts *o, int *zmax, int *numharm, double *sigma);
void xc_psearch_opts_threads(xc_psearch_opts *o, int threads);
/* The low frequencies, which every family handles as accelsearch: the cut
 * flo in Hz (default 1; the Pulscan search drops candidates whose boxcar
 * starts below floor(flo T), the accel search, as accelsearch, searches
 * from floor(flo T) in the plane of the highest harmonic summed), and
 * rednoise = 1 to deredden the spectrum first by PRESTO's rednoise method
 * (core/search/spectrum/xc_rednoise.h; default 0, as accelsearch for a .fft). */
void xc_psearch_opts_lowfreq(xc_psearch_opts *o, double flo, int rednoise);

/* 1 when n configurations of impl's family are searched as one (the accel
 * sweep): their lists then depend, by rounding, on the set searched
 * together, and a caller that wants each alone opens one search per
 * configuration.  0 when each configuration is its own search whatever the
 * set (Pulscan), or n < 2. */
int xc_psearch_joint(const xc_impl *impl, size_t n);

typedef struct xc_psearch xc_psearch;

/* A search of spectra of nbins bins and length T s by impl (a Pulscan or
 * accel implementation) at o[0..n-1].  XC_EINVAL for an implementation of
 * another family, options of another family than impl's, n = 0, or what the
 * family's session refuses (its options' checks, naming them). */
xc_status xc_psearch_open(xc_psearch **s, const xc_impl *impl, size_t nbins, double T, const xc_psearch_opts *o,
                          size_t n, xc_error *err);
/* Searches sp: configuration c's candidates into out[c] (n lists,
 * initialised by the caller).  A spectrum the search does not fit
 * (xc_psearch_fits) is refused (XC_EINVAL naming both). */
xc_status xc_psearch_run(xc_psearch *s, const xc_spectrum *sp, xc_candlist *out, xc_error *err);
/* The listener of s's runs from now on (core/base/xc_progress.h): each
 * configuration's search reports its label ("pulscan", "accel"), the work
 * done and the total; the library never prints. */
void xc_psearch_progress(xc_psearch *s, xc_progress_cb cb);
/* 1 when run takes sp: the length the search was opened for (the accel
 * search: and its T, on which its grid depends). */
int xc_psearch_fits(const xc_psearch *s, const xc_spectrum *sp);
void xc_psearch_close(xc_psearch *s);
/* s moved to sp's length and T where it does not fit them: the family's
 * sessions made again for them, keeping what does not depend on the length
 * (a device searcher's plan and buffers, where it says so); the lists are
 * then those of a search opened for sp, bit for bit.  On failure s is fit
 * only for close. */
xc_status xc_psearch_refit(xc_psearch *s, const xc_spectrum *sp, xc_error *err);
/* The caller's slots for s's device memory from now on (core/base/
 * xc_devgate.h): 1 when every session's searcher takes them itself (the GPU
 * accel searcher, around its plane), else 0, and the caller bounds the
 * device's memory around the whole search. */
int xc_psearch_gate(xc_psearch *s, const xc_devgate *g);

/* The bytes the search of spectra of nbins bins and length T by impl at
 * o[0..n-1] holds at its peak beside the spectrum: the largest
 * configuration's (xc_pulscan_memory, xc_accel_memory); computed before
 * anything is allocated.  XC_EINVAL as xc_psearch_open and for options the
 * plan refuses. */
xc_status xc_psearch_memory(const xc_impl *impl, size_t nbins, double T, const xc_psearch_opts *o, size_t n,
                            double *bytes, xc_error *err);
/* Open for sp's length and T, run on sp, close: one spectrum's search. */
xc_status xc_psearch_once(const xc_impl *impl, const xc_spectrum *sp, const xc_psearch_opts *o, size_t n,
                          xc_candlist *out, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
