/* xc_ddapprox.h: core's approximate dedispersion algorithms (subband,
 * piecewise-linear tree, frequency-padded tree) as the constants a
 * descriptor's impl.data points at.  One plan per backend serves the three:
 * it reads the algorithm from self (xc_ddapprox_of), and every such entry
 * declares its smearing bound with the one bound method below. */
#ifndef XC_DDAPPROX_H
#define XC_DDAPPROX_H

#include "core/dedisp/approx/xc_ddbound.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/approx/xc_subband.h"
#include "core/dedisp/approx/xc_tree.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    XC_DDAPPROX_SUBBAND = 0,     /* core/dedisp/approx/xc_subband.h */
    XC_DDAPPROX_TREE = 1,        /* core/dedisp/approx/xc_tree.h, piecewise */
    XC_DDAPPROX_TREE_PADDED = 2  /* core/dedisp/approx/xc_tree.h, padded */
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

/* Core's plan of an approximate algorithm: sp for the subband algorithm, tp
 * for the trees (the other one zeroed). */
typedef struct {
    const xc_ddapprox *a;
    xc_subplan sp;
    xc_treeplan tp;
} xc_ddapprox_plan;

/* Makes the plan of self's algorithm for a prepared job (xc_subplan_make,
 * xc_treeplan_make); XC_EINVAL when self has none. */
xc_status xc_ddapprox_plan_make(xc_ddapprox_plan *p, const xc_dedisperser *self, const xc_ddjob *job,
                                xc_error *err);
void xc_ddapprox_plan_free(xc_ddapprox_plan *p);
/* Range k of the plan: its downsample factor; *ndm: its trials. */
int xc_ddapprox_plan_range(const xc_ddapprox_plan *p, int k, size_t *ndm);

/* The plan and destroy methods of a backend whose state is that plan alone,
 * allocated (the reference dedispersers). */
xc_status xc_ddapprox_plan_new(const xc_dedisperser *self, const xc_ddjob *proto, void **state, xc_error *err);
void xc_ddapprox_plan_delete(const xc_dedisperser *self, void *state);

#ifdef __cplusplus
}
#endif
#endif
