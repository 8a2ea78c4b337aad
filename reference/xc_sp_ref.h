/* xc_sp_ref.h: the reference single-pulse searcher (reference/sp_ref.c),
 * which defines the semantics of core/sp/xc_spsearch.h. */
#ifndef XC_SP_REF_H
#define XC_SP_REF_H

#include "core/sp/xc_spsearch.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const xc_spsearcher xc_sp_reference;

#ifdef __cplusplus
}
#endif
#endif
