/* The CUDA accel searcher's templates, made on the host: the exact double
 * responses of core (xc_accel_template), rounded to float and placed for the
 * device's batched FFT, OpenMP over templates as the CPU searcher's. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/accel_gpu.h"

xc_status xc_accel_gpu_fill(const xc_accel_plan *p, int t0, int cnt, int L, float *buf, xc_error *err)
{
    if (t0 < 0 || cnt < 0 || t0 + cnt > p->ntempl || L < 4 * p->hwmax + 1)
        return xc_error_set(err, XC_EINVAL, "accel gpu: templates %d..%d of %d, rows of %d points", t0, t0 + cnt - 1,
                            p->ntempl, L);
    xc_status st = XC_OK;
    int nth = p->o.threads > 0 ? p->o.threads : omp_get_max_threads();
    if (nth > cnt)
        nth = cnt > 0 ? cnt : 1;
#pragma omp parallel num_threads(nth)
    {
        double *Rt = malloc((size_t)(4 * p->hwmax + 1) * 2 * sizeof *Rt);
        xc_error e1;
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < cnt; i++) {
            xc_status seen;
#pragma omp atomic read
            seen = st;
            if (seen)
                continue;
            int t = t0 + i, hw = p->hw[t];
            xc_status s1 = Rt ? xc_accel_template(xc_accel_z_of(p, t % p->numz), xc_accel_w_of(p, t / p->numz), hw,
                                                  Rt, &e1)
                              : xc_error_set(&e1, XC_ENOMEM, "accel gpu: out of memory (templates)");
            if (s1) {
#pragma omp critical(xc_accel_gpu_err)
                if (!st) {
                    *err = e1;
#pragma omp atomic write
                    st = s1;
                }
                continue;
            }
            float *k = buf + (size_t)i * 2 * (size_t)L;
            memset(k, 0, (size_t)L * 2 * sizeof *k);
            for (int j = -2 * hw; j <= 2 * hw; j++) {
                size_t q = j >= 0 ? (size_t)j : (size_t)L - (size_t)(-j);
                k[2 * q] = (float)Rt[2 * (j + 2 * hw)];
                k[2 * q + 1] = (float)Rt[2 * (j + 2 * hw) + 1];
            }
        }
        free(Rt);
    }
    return st;
}
