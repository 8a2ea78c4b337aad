/* xc_ddbound.h: the per-trial smearing bound an approximate dedisperser
 * (XC_CAP_APPROXIMATE) declares, in the form the approximate comparator
 * (compare/xc_smear.h) judges it: for every output trial, the continuous
 * deviation of the approximated dispersion curve from the exact one (S_cont)
 * and the bound S on the integer spread, in samples of the trial's range,
 * that a pulse direct dedispersion lines up is spread over.  The S/N-loss
 * bound of a boxcar pulse of W samples is then 1 - sqrt(W / (W + S))
 * (xc_subband_loss_bound).  Derivations: core/dedisp/approx/xc_subband.h, core/dedisp/approx/xc_tree.h. */
#ifndef XC_DDBOUND_H
#define XC_DDBOUND_H

#include <stdint.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* xc_ddbound and xc_ddbound_fn: core/dedisp/xc_dedisperse.h (the descriptor holds one). */

/* Frees what an xc_ddbound_fn made. */
void xc_ddbound_free(xc_ddbound **b, int nranges);

/* 1 - sqrt(W/(W + S)): the bound on the matched-boxcar S/N loss of a boxcar
 * pulse of W samples spread over at most S more samples (0 for S <= 0): the
 * loss every approximate dedisperser declares (docs/SUBBAND.md). */
double xc_subband_loss_bound(double width, double spread);

#ifdef __cplusplus
}
#endif

#endif
