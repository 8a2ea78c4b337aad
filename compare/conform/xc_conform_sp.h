/* xc_conform_sp.h: the conformance cases of single-pulse searchers
 * (core/sp/xc_spsearch.h), judged against the family's reference: planted
 * boxes of awkward widths on integer-valued planes of awkward shapes (lists
 * identical, S/N bit for bit), pure noise at threshold 3 (borderline boxes
 * many), float planes (S/N within the rounding bound of docs/SINGLEPULSE.md)
 * and one thread against three. */
#ifndef XC_CONFORM_SP_H
#define XC_CONFORM_SP_H

#include "compare/conform/xc_conform.h"
#include "core/sp/xc_spsearch.h"

#ifdef __cplusplus
extern "C" {
#endif

xc_status xc_conform_spsearcher(const xc_spsearcher *impl, const xc_spsearcher *ref, const xc_conform_opts *o,
                                xc_conform_report *rep, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
