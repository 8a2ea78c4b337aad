/* xc_impls.h: the table of built-in implementations, above core, reference/
 * and optimized/ (FFTW keeps its solver list in dft/conf.c the same way). */
#ifndef XC_IMPLS_H
#define XC_IMPLS_H

#include "core/base/xc_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adds every built-in implementation to reg, in table order (the reference
 * first in each family). */
xc_status xc_registry_add_builtin(xc_registry *reg, xc_error *err);
/* A new registry holding the built-in implementations. */
xc_status xc_registry_builtin(xc_registry **reg, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
