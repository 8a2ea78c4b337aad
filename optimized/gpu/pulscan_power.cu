/* GPU Pulscan, the element-wise stages: separate (complex parts into two
 * arrays, only for normalisation blocks too large to stage in shared memory),
 * power (normalised powers, the CPU's double operations in its order, with
 * stage 1's float copy and the input's finiteness check on the way) and
 * decimate (float copies of the harmonic stages 2..numharm).
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

/* P from the interleaved input; Sf1 (may be NULL) gets stage 1's float copy
 * (S_1[x] = 0 + P[x] = P[x] exactly; -inf at DC).  A value that is not finite
 * lowers *bad to its float index (2k real, 2k+1 imaginary), so the host can
 * name the first one as xc_pulscan_check_input does, without reading the
 * spectrum twice. */
__global__ void k_power(const float2 *in, size_t nbins, size_t normwidth, size_t nb, const double *med,
                        const double *scale, double *P, float *Sf1, unsigned long long *bad)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nbins; k += (size_t)gridDim.x * blockDim.x) {
        const float2 v = in[k];
        if (!isfinite(v.x) || !isfinite(v.y))
            atomicMin(bad, (unsigned long long)(2 * k + (isfinite(v.x) ? 1 : 0)));
        if (k == 0) {
            P[0] = 0;
            if (Sf1)
                Sf1[0] = -INFINITY;
            continue;
        }
        /* 32-bit division: a spectrum has at most 2^31 - 1 bins
         * (XC_SPECTRUM_MAX_BINS), and a 64-bit one is a long software
         * sequence per bin */
        size_t b = (unsigned)(k - 1) / (unsigned)normwidth;
        if (b >= nb)
            b = nb - 1;
        double r = __ddiv_rn(__dsub_rn((double)v.x, med[2 * b]), scale[2 * b]);
        double i = __ddiv_rn(__dsub_rn((double)v.y, med[2 * b + 1]), scale[2 * b + 1]);
        double p = __dadd_rn(__dmul_rn(r, r), __dmul_rn(i, i));
        P[k] = p;
        if (Sf1)
            Sf1[k] = (float)p;
    }
}

/* Float copies of stages 2..nh in one pass over P: S_h[x] is S_{h-1}[x] plus
 * harmonic h's bins, the same additions in the same order as
 * xc_pulscan_sh's from-scratch sum, so each stage's double is that sum's bits
 * and each harmonic's bins are read once.  -inf at x = 0 (DC). */
__global__ void k_decimate(const double *P, stage_set S, int nh)
{
    for (size_t x = blockIdx.x * (size_t)blockDim.x + threadIdx.x; x < S.L[1]; x += (size_t)gridDim.x * blockDim.x) {
        double s = P[x];
        for (int h = 2; h <= nh && x < S.L[h - 1]; h++) {
            const double *p = P + (size_t)h * x;
            for (int j = 0; j < h; j++)
                s += p[j];
            S.Sf[h - 1][x] = x == 0 ? -INFINITY : (float)s;
        }
    }
}

} // namespace xcps
