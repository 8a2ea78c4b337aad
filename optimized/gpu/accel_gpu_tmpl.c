/* The CUDA accel searcher's host-side helpers in C: its templates, made on
 * the host (the exact double responses of core, xc_accel_template, rounded
 * to float and placed for the device's batched FFT by core's
 * xc_accel_template_rows, as the CPU searcher's), and the spectrum's
 * normalised amplitudes as floats for the upload. */
#include <omp.h>

#include "optimized/gpu/accel_gpu.h"

xc_status xc_accel_gpu_fill(const xc_accel_plan *p, int t0, int cnt, int L, float *buf, xc_error *err)
{
    return xc_accel_template_rows(p, t0, cnt, L, buf, NULL, NULL, "accel gpu", err);
}

void xc_accel_gpu_amps(const xc_accel_amps *a, float *out, int threads)
{
    /* chunks of bins, each element-wise: any thread count gives the same
     * values */
    const long n = (long)a->nbins, chunk = 1 << 16, nc = (n + chunk - 1) / chunk;
    const int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1 && nc > 1)
    for (long c = 0; c < nc; c++) {
        const long lo = c * chunk, m = n - lo < chunk ? n - lo : chunk;
        xc_accel_amps_get(a, lo, (size_t)m, out + 2 * lo);
    }
}
