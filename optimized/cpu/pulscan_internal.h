/* pulscan_internal.h: what the CPU Pulscan files share and nobody else needs. */
#ifndef XC_PULSCAN_INTERNAL_H
#define XC_PULSCAN_INTERNAL_H

#include "core/search/xc_search.h"

/* xc_pulscan_powers_cpu without the input check, for callers that made it. */
xc_status xc_pulscan_powers_cpu_checked(const xc_spectrum *sp, const xc_psopts *o, double *P, xc_error *err);

#endif
