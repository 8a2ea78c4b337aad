/* The periodicity-searcher registry: adding an implementation is one entry here. */
#include <string.h>

#include "core/xc_search.h"
#ifdef XC_HAVE_CUDA
#include "optimized/gpu/xc_gpu.h"
#endif

static int always(char *why, size_t n)
{
    (void)why;
    (void)n;
    return 1;
}

static const xc_searcher reference = {
    "reference", "full-sort medians, direct double sums for every boxcar width, exact significance", 0.0, always,
    xc_pulscan_reference};

/* Bit-identical by construction: the same values summed in double in the same order. */
static const xc_searcher cpu = {
    "cpu", "quickselect, recursive boxcar in double with cache tiles, OpenMP over R-blocks", 0.0, always,
    xc_pulscan_cpu};

#ifdef XC_HAVE_CUDA
/* Powers and boxcars bit-identical; log p computed on the device (ulps from
 * the host's libm), hence sigma within 1e-9 rather than equal. */
static const xc_searcher gpu = {
    "gpu", "CUDA: Pulscan's GPU stages, float screen + exact double boxcars, device log p", 1e-9,
    xc_gpu_available, xc_pulscan_gpu};
#endif

static const xc_searcher *const registry[] = {&reference, &cpu,
#ifdef XC_HAVE_CUDA
                                              &gpu,
#endif
                                              NULL};

const xc_searcher *const *xc_searcher_list(void) { return registry; }

const xc_searcher *xc_searcher_get(const char *name)
{
    for (size_t i = 0; registry[i]; i++)
        if (name && !strcmp(registry[i]->name, name))
            return registry[i];
    return NULL;
}
