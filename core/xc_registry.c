/* The dedisperser registry: adding an implementation is one entry here. */
#include <string.h>

#include "core/xc_dedisperse.h"
#ifdef XC_HAVE_CUDA
#include "optimized/gpu/xc_gpu.h"
#endif

static int always(char *why, size_t n)
{
    (void)why;
    (void)n;
    return 1;
}

static const xc_dedisperser reference = {
    "reference", "direct loops, exact sums (uint64 for integer input, double for float)", 0.0,
    always, xc_dedisperse_reference};

static const xc_dedisperser cpu = {
    "cpu", "tiled OpenMP/SIMD direct dedispersion (AstroAccelerate CPU algorithm)", 1.0,
    always, xc_dedisperse_cpu};

#ifdef XC_HAVE_CUDA
static const xc_dedisperser gpu = {
    "gpu", "CUDA shared-memory direct dedispersion (AstroAccelerate GPU algorithm)", 1.0,
    xc_gpu_available, xc_dedisperse_gpu};
#endif

static const xc_dedisperser *const registry[] = {&reference, &cpu,
#ifdef XC_HAVE_CUDA
                                                 &gpu,
#endif
                                                 NULL};

const xc_dedisperser *const *xc_dedisperser_list(void) { return registry; }

const xc_dedisperser *xc_dedisperser_get(const char *name)
{
    for (size_t i = 0; registry[i]; i++)
        if (name && !strcmp(registry[i]->name, name))
            return registry[i];
    return NULL;
}
