/* GPU Pulscan, the element-wise stages: separate (complex parts into two
 * arrays), power (normalised powers, the CPU's double operations in its
 * order) and decimate (float copies of every harmonic stage's S_h).
 * Exactness as pulscan_gpu.h states. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "optimized/gpu/pulscan_gpu.h"

namespace xcps {

/* ---- separate --------------------------------------------------------- */

__global__ void k_separate(const float2 *in, float *re, float *im, size_t n)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        float2 v = in[k];
        re[k] = v.x;
        im[k] = v.y;
    }
}

/* ---- power, decimate -------------------------------------------------- */

__global__ void k_power(const float *re, const float *im, size_t nbins, size_t normwidth, size_t nb,
                        const double *med, const double *scale, double *P)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nbins; k += (size_t)gridDim.x * blockDim.x) {
        if (k == 0) {
            P[0] = 0;
            continue;
        }
        size_t b = (k - 1) / normwidth;
        if (b >= nb)
            b = nb - 1;
        double r = __ddiv_rn(__dsub_rn((double)re[k], med[2 * b]), scale[2 * b]);
        double i = __ddiv_rn(__dsub_rn((double)im[k], med[2 * b + 1]), scale[2 * b + 1]);
        P[k] = __dadd_rn(__dmul_rn(r, r), __dmul_rn(i, i));
    }
}

/* Float copies of every stage's S_h (-inf for S_h[0], which holds DC), one
 * pass over P for all stages; the double values are recomputed from P where
 * the exact pass needs them. */
__global__ void k_decimate(const double *P, stage_set S, int nh)
{
    for (size_t x = blockIdx.x * (size_t)blockDim.x + threadIdx.x; x < S.L[0]; x += (size_t)gridDim.x * blockDim.x)
        for (int h = 1; h <= nh && x < S.L[h - 1]; h++)
            S.Sf[h - 1][x] = x == 0 ? -INFINITY : (float)sh(P, h, x);
}

} // namespace xcps
