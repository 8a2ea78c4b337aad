/* The CUDA accel searcher's templates, made on the host: the exact double
 * responses of core (xc_accel_template), rounded to float and placed for the
 * device's batched FFT by core's xc_accel_template_rows, as the CPU searcher's. */
#include "optimized/gpu/accel_gpu.h"

xc_status xc_accel_gpu_fill(const xc_accel_plan *p, int t0, int cnt, int L, float *buf, xc_error *err)
{
    return xc_accel_template_rows(p, t0, cnt, L, buf, NULL, NULL, "accel gpu", err);
}
