/* xc_ddapprox.h: core's approximate dedispersion algorithms (subband,
 * piecewise-linear tree, frequency-padded tree) as the constants a
 * descriptor's impl.data points at.  One plan per backend serves the three:
 * it reads the algorithm from self (xc_ddapprox_of), and every such entry
 * declares its smearing bound with the one bound method below. */
#ifndef XC_DDAPPROX_H
#define XC_DDAPPROX_H

#include "core/dedisp/xc_ddbound.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    XC_DDAPPROX_SUBBAND = 0,     /* core/dedisp/xc_subband.h */
    XC_DDAPPROX_TREE = 1,        /* core/dedisp/xc_tree.h, piecewise */
    XC_DDAPPROX_TREE_PADDED = 2  /* core/dedisp/xc_tree.h, padded */
} xc_ddapprox_algo;

typedef struct {
    xc_ddapprox_algo algo;
    int tree_kind;               /* xc_tree_kind of the tree algorithms (0 for subband) */
    const char *path;            /* what xc_ddplan_stats says ran: "subband", "tree", "tree-padded" */
} xc_ddapprox;

extern const xc_ddapprox xc_ddapprox_subband, xc_ddapprox_tree, xc_ddapprox_tree_padded;

/* The bound method (xc_ddbound_fn) of every entry whose data is an xc_ddapprox. */
xc_status xc_ddapprox_bounds(const xc_dedisperser *self, const xc_ddjob *job, xc_ddbound ***b, xc_error *err);
/* self's algorithm: its data when its bound is xc_ddapprox_bounds, else NULL. */
const xc_ddapprox *xc_ddapprox_of(const xc_dedisperser *self);

#ifdef __cplusplus
}
#endif
#endif
