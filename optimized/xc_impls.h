/* xc_impls.h: the table of built-in implementations, above core, reference/
 * and optimized/ (FFTW keeps its solver list in dft/conf.c the same way). */
#ifndef XC_IMPLS_H
#define XC_IMPLS_H

#include "core/xc_ddbound.h"
#include "core/xc_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adds every built-in implementation to reg, in table order (the reference
 * first in each family). */
xc_status xc_registry_add_builtin(xc_registry *reg, xc_error *err);
/* A new registry holding the built-in implementations. */
xc_status xc_registry_builtin(xc_registry **reg, xc_error *err);
/* The per-trial smearing bound a built-in approximate dedisperser declares
 * (core/xc_ddbound.h); NULL for the others. */
xc_ddbound_fn xc_dd_bound_of(const xc_impl *impl);

#ifdef __cplusplus
}
#endif
#endif
