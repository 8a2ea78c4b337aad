/* The table of built-in implementations: adding one is its descriptor, next to
 * its code, plus one line here (docs/ARCHITECTURE.md shows the diff). */
#include "optimized/xc_impls.h"

#include "optimized/cpu/xc_accel_cpu.h"
#include "optimized/cpu/xc_cpu.h"
#include "optimized/cpu/xc_sp_cpu.h"
#include "reference/xc_accel_ref.h"
#include "reference/xc_reference.h"
#include "reference/xc_sp_ref.h"
#ifdef XC_HAVE_CUDA
#include "optimized/gpu/xc_gpu.h"
#endif

static const xc_impl *const builtin[] = {
    &xc_dd_reference.impl,
    &xc_dd_cpu.impl,
#ifdef XC_HAVE_CUDA
    &xc_dd_gpu.impl,
    &xc_dd_gpu_direct.impl,
#endif
    &xc_dd_subband_reference.impl,
    &xc_dd_subband_cpu.impl,
    &xc_dd_tree_reference.impl,
    &xc_dd_tree_cpu.impl,
    &xc_dd_tree_padded_reference.impl,
    &xc_dd_tree_padded_cpu.impl,
#ifdef XC_HAVE_CUDA
    &xc_dd_subband_gpu.impl,
    &xc_dd_tree_gpu.impl,
    &xc_dd_tree_padded_gpu.impl,
#endif
    &xc_ps_reference.impl,
    &xc_ps_cpu.impl,
#ifdef XC_HAVE_CUDA
    &xc_ps_gpu.impl,
#endif
    &xc_accel_reference.impl,
    &xc_accel_cpu.impl,
#ifdef XC_HAVE_CUDA
    &xc_accel_gpu.impl,
#endif
    &xc_sp_reference.impl,
    &xc_sp_cpu.impl,
#ifdef XC_HAVE_CUDA
    &xc_sp_gpu.impl,
#endif
};

xc_status xc_registry_add_builtin(xc_registry *reg, xc_error *err)
{
    for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++) {
        xc_status st = xc_registry_add(reg, builtin[i], err);
        if (st)
            return st;
    }
    return XC_OK;
}

xc_status xc_registry_builtin(xc_registry **reg, xc_error *err)
{
    xc_status st = xc_registry_create(reg, err);
    if (!st && (st = xc_registry_add_builtin(*reg, err))) {
        xc_registry_destroy(*reg);
        *reg = NULL;
    }
    return st;
}
