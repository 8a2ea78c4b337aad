/* Core's approximate algorithms as descriptor data (core/dedisp/xc_ddapprox.h). */
#include "core/dedisp/xc_ddapprox.h"
#include "core/dedisp/xc_subband.h"
#include "core/dedisp/xc_tree.h"

const xc_ddapprox xc_ddapprox_subband = {.algo = XC_DDAPPROX_SUBBAND, .tree_kind = 0, .path = "subband"};
const xc_ddapprox xc_ddapprox_tree = {.algo = XC_DDAPPROX_TREE, .tree_kind = XC_TREE_PIECEWISE, .path = "tree"};
const xc_ddapprox xc_ddapprox_tree_padded = {.algo = XC_DDAPPROX_TREE_PADDED, .tree_kind = XC_TREE_PADDED,
                                             .path = "tree-padded"};

const xc_ddapprox *xc_ddapprox_of(const xc_dedisperser *self)
{
    return self && self->bound == xc_ddapprox_bounds ? self->impl.data : NULL;
}

xc_status xc_ddapprox_bounds(const xc_dedisperser *self, const xc_ddjob *job, xc_ddbound ***b, xc_error *err)
{
    const xc_ddapprox *a = xc_ddapprox_of(self);
    if (!a)
        return xc_error_set(err, XC_EINVAL, "%s: no approximate algorithm in its descriptor", self->impl.name);
    return a->algo == XC_DDAPPROX_SUBBAND ? xc_subband_bounds(job, b, err) : xc_tree_bounds(job, a->tree_kind, b, err);
}
