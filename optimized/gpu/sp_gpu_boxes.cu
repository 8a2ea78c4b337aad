/* GPU single-pulse search, the boxes (sp_gpu.h): every box's S/N from the
 * prefix sums, and each maximal run of snr >= threshold walked by the thread
 * at its first sample, which appends the run's best box.  The S/N is the
 * reference's formula evaluated operation for operation. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "optimized/gpu/sp_gpu.h"

namespace xcsp {

namespace {

/* xc_sp_box_baseline: over the blocks the box [t, t+w) overlaps, in
 * increasing order, (its samples in the block) x m[b], summed from 0.0. */
__device__ inline double box_baseline(const double *m, size_t n, size_t L, size_t nb, size_t t, size_t w)
{
    size_t end = t + w, b = t / L < nb ? t / L : nb - 1;
    double B = 0.0;
    for (; b < nb && b * L < end; b++) {
        size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
        size_t a = t > lo ? t : lo, z = end < hi ? end : hi;
        B = __dadd_rn(B, __dmul_rn((double)(z - a), m[b]));
    }
    return B;
}

/* snr = (S - B) / (s sqrt(w)), S = P[t + w] - P[t]. */
__device__ inline double box_snr(const double *P, const double *m, size_t n, size_t L, size_t nb, double s, size_t t,
                                 size_t w)
{
    double S = __dsub_rn(P[t + w], P[t]);
    return __ddiv_rn(__dsub_rn(S, box_baseline(m, n, L, nb, t, w)), __dmul_rn(s, __dsqrt_rn((double)w)));
}

} // namespace

__global__ void __launch_bounds__(SP_THREADS) k_sp_boxes(const double *Pall, size_t pstride, size_t n,
                                                         const double *M, size_t mstride, size_t L, size_t nb,
                                                         const double *S, const int32_t *widths, double thr,
                                                         int32_t row0, xc_spdet *out, unsigned long long *count,
                                                         unsigned long long cap)
{
    const size_t r = blockIdx.z, k = blockIdx.y, w = (size_t)widths[k];
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const double s = S[r];
    if (!(s > 0) || w > n || t + w > n)
        return;
    const double *P = Pall + r * pstride, *m = M + r * mstride;
    double best = box_snr(P, m, n, L, nb, s, t, w);
    if (!(best >= thr) || (t > 0 && box_snr(P, m, n, L, nb, s, t - 1, w) >= thr))
        return;   /* not above threshold, or not the run's first sample */
    size_t at = t, u = t + 1;
    for (; u + w <= n; u++) {
        double v = box_snr(P, m, n, L, nb, s, u, w);
        if (!(v >= thr))
            break;
        if (v > best) {
            best = v;
            at = u;
        }
    }
    unsigned long long i = atomicAdd(count, 1ull);
    if (i < cap)
        out[i] = xc_spdet{best, (int64_t)at, (int32_t)w, (int32_t)k, row0 + (int32_t)r, (int64_t)t,
                          (int64_t)(u - 1 + w)};
}

} // namespace xcsp
