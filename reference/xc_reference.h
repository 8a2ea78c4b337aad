/* xc_reference.h: the reference implementations, which define the semantics
 * every other implementation is compared with (double precision or exact
 * integer sums, the obvious loops, no tricks).  The descriptors are listed in
 * the table of built-in implementations (optimized/xc_impls.h); the entry
 * points are for the tests and tools that need one stage. */
#ifndef XC_REFERENCE_H
#define XC_REFERENCE_H

#include "core/xc_dedisperse.h"
#include "core/xc_search.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const xc_dedisperser xc_dd_reference;
extern const xc_searcher xc_ps_reference;

/* Direct loops, exact sums (uint64 for integer input, double for float). */
xc_status xc_dedisperse_reference(const xc_ddjob *job, xc_plane *out, xc_error *err);

/* Full-sort medians, direct sums in double for every width. */
xc_status xc_pulscan_reference(const xc_spectrum *sp, const xc_psopts *o, xc_candlist *out, xc_error *err);
/* The normalised powers P[0..nbins-1] (steps 1-2). */
xc_status xc_pulscan_powers_reference(const xc_spectrum *sp, const xc_psopts *o, double *P, xc_error *err);
/* The raw peaks (steps 1-5, before significance). */
xc_status xc_pulscan_peaks_reference(const xc_spectrum *sp, const xc_psopts *o, xc_pspeaks *pk, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
