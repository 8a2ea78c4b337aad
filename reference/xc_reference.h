/* xc_reference.h: the reference implementations, which define the semantics
 * every other implementation is compared with (double precision or exact
 * integer sums, the obvious loops, no tricks).  The descriptors are listed in
 * the table of built-in implementations (optimized/xc_impls.h); the entry
 * points are for the tests and tools that need one stage. */
#ifndef XC_REFERENCE_H
#define XC_REFERENCE_H

#include "core/dedisp/xc_dedisperse.h"
#include "core/search/xc_search.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const xc_dedisperser xc_dd_reference;
extern const xc_dedisperser xc_dd_subband_reference;   /* subband_ref.c */
extern const xc_dedisperser xc_dd_tree_reference;      /* tree_ref.c */
extern const xc_dedisperser xc_dd_tree_padded_reference;
extern const xc_searcher xc_ps_reference;

/* Direct loops, exact sums (uint64 for integer input, double for float). */
xc_status xc_dedisperse_reference(const xc_ddjob *job, xc_plane *out, xc_error *err);
/* Exact value of input sample (scrunched sample j, channel c) as a double;
 * for integer input the double holds an exact integer (< 2^53). */
double xc_ref_scrunched(const xc_block *in, size_t j, int c, int ds);

/* The Pulscan searcher's stages run through core's pipeline:
 * xc_pulscan_run / xc_pulscan_powers / xc_pulscan_peaks(&xc_ps_reference, ...). */

#ifdef __cplusplus
}
#endif
#endif
