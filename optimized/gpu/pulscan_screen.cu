/* GPU Pulscan, the boxcar stage's float screen: every (start, width) of every
 * harmonic stage against its width's lowered threshold, one flag per group of
 * 8 starts for the exact pass (pulscan_peaks.cu).  Exactness as pulscan_gpu.h
 * states. */
#include <cuda_runtime.h>
#include <math.h>
#include <limits.h>
#include <stdint.h>

#include "optimized/gpu/pulscan_gpu.h"

namespace xcps {

/* ---- boxcar: the float screen ----------------------------------------- */

/* Thread t of a block owns starts b0 + 8t .. b0 + 8t + 7 (one group) and
 * runs the recursion along widths with its 8 sums in registers.  Width
 * chunk c (widths 8c+1 .. 8c+8) reads the window b0 + 8(t+c) + 0..15, two
 * 8-value segments of shared memory; segments are stored 9 floats apart so
 * that a warp's 32 threads reading segment t+c hit 32 different banks.  One
 * segment load serves 64 additions.  A group is flagged when any of its
 * boxcars beats its width's (lowered) threshold, tested at every searched
 * width (widths not searched have +infinity).  (Testing once per chunk
 * against the chunk's lowest threshold, which the growing sums would allow,
 * passes far too much noise: seven more bins raise the mean of a stage-h sum
 * by 7 h(h+1), as much as a threshold's margin over its mean.)
 * One launch covers every stage: S.tile0[h-1] is the first block of stage h. */
/* ex keeps the largest excess over threshold seen (a number, not a flag: a
 * bool costs five conversion instructions per test).
 * The sums are >= 0 or -inf, so as int bits they order as floats (-inf's
 * bits are a negative int) and Hopper's three-input integer maximum (DPX)
 * takes three at a time: the maximum of the 8 sums and the test take 6
 * instructions per tested width, against 9 with float maxima.  th holds the
 * chunk's threshold keys (threshold_key): m - key > 0 exactly when the float
 * sum m beats the float threshold, and cannot overflow; NO_WIDTH (+inf's
 * bits) never passes.
 * STEP 2 (zstep 2, the default: the widths 8c+1, 8c+3, ... are searched) and
 * STEP 1 (every width) test their widths unconditionally, the keys read in
 * one or two 16-byte loads (STEP 2 keeps the searched widths' keys in the
 * chunk's first four slots); STEP 0 (any other z set) reads each width's key
 * and tests only searched widths.  (bench gpu-pulscan on an H200, screen:
 * 0.114 ms with float maxima and a key check per width, 0.107 with DPX.) */
template <int STEP>
__device__ __forceinline__ void screen_chunk(float *acc, const float *a, const float *b, const int *th, int &ex)
{
    int key[8];
#pragma unroll
    for (int u = 0; u < 8; u++)
        key[u] = NO_WIDTH;
    if (STEP == 2) {
        const int4 k = *(const int4 *)th;
        key[0] = k.x, key[2] = k.y, key[4] = k.z, key[6] = k.w;
    } else if (STEP == 1) {
        const int4 k0 = ((const int4 *)th)[0], k1 = ((const int4 *)th)[1];
        key[0] = k0.x, key[1] = k0.y, key[2] = k0.z, key[3] = k0.w;
        key[4] = k1.x, key[5] = k1.y, key[6] = k1.z, key[7] = k1.w;
    }
#pragma unroll
    for (int u = 0; u < 8; u++) {
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[j] += j + u < 8 ? a[j + u] : b[j + u - 8];
        if (STEP == 2 && (u & 1))
            continue;
        const int ti = STEP ? key[u] : th[u];
        if (STEP || ti != NO_WIDTH) {
            int m1 = __vimax3_s32(__float_as_int(acc[0]), __float_as_int(acc[1]), __float_as_int(acc[2]));
            int m2 = __vimax3_s32(__float_as_int(acc[3]), __float_as_int(acc[4]), __float_as_int(acc[5]));
            int m3 = __vimax3_s32(__float_as_int(acc[6]), __float_as_int(acc[7]), m1);
            ex = __vimax3_s32(ex, m2 - ti, m3 - ti);
        }
    }
}

template <int STEP>
__global__ void __launch_bounds__(PS_THREADS) k_screen(stage_set S, int nh, const int *thk, int zstride,
                                                        unsigned long long *list, unsigned cap, unsigned *count)
{
    extern __shared__ __align__(16) float sm[];
    int *sth = (int *)sm;                    /* PS_PHASE threshold keys (+8 of padding) */
    float *win = sm + PS_PHASE + 8;          /* (PS_THREADS + PS_PHASE/8 + 2) segments of 9 */
    int h = 1;
    while (h < nh && blockIdx.x >= S.tile0[h])
        h++;
    const float *Sf = S.Sf[h - 1];
    const size_t L = S.L[h - 1];
    const int wmax = S.wmax[h - 1];
    const int *th_h = thk + (size_t)(h - 1) * zstride;
    const int t = threadIdx.x;
    const size_t b0 = 1 + (size_t)(blockIdx.x - S.tile0[h - 1]) * PS_TILE;
    float acc[8];
#pragma unroll
    for (int j = 0; j < 8; j++)
        acc[j] = 0.f;
    int ex = INT_MIN;
    const int nchunk = (wmax + 7) / 8;
    for (int c0 = 0; c0 < nchunk; c0 += PS_PHASE / 8) {
        /* an even number of chunks (the last one's widths past wmax have
         * +infinity thresholds), so the loop below can alternate roles */
        const int nc = (min(nchunk - c0, PS_PHASE / 8) + 1) & ~1;
        const int ne = (PS_THREADS + nc + 1) * 8;
        __syncthreads();
        for (int e = t; e < ne; e += PS_THREADS) {
            size_t x = b0 + 8 * (size_t)c0 + (size_t)e;
            win[e + (e >> 3)] = x < L ? Sf[x] : -INFINITY;
        }
        for (int e = t; e < nc * 8; e += PS_THREADS) {
            const int i = e % 8;
            const int w = 8 * (c0 + e / 8) + 1 + (STEP == 2 ? (i < 4 ? 2 * i : 2 * (i - 4) + 1) : i);
            sth[e] = w <= wmax ? th_h[w] : NO_WIDTH;
        }
        __syncthreads();
        float p[8], q[8];
#pragma unroll
        for (int k = 0; k < 8; k++)
            p[k] = win[t * 9 + k];
        for (int cc = 0; cc < nc; cc += 2) {
#pragma unroll
            for (int k = 0; k < 8; k++)
                q[k] = win[(t + cc + 1) * 9 + k];
            screen_chunk<STEP>(acc, p, q, sth + cc * 8, ex);
#pragma unroll
            for (int k = 0; k < 8; k++)
                p[k] = win[(t + cc + 2) * 9 + k];
            screen_chunk<STEP>(acc, q, p, sth + (cc + 1) * 8, ex);
        }
    }
    if (ex > 0) {
        unsigned idx = atomicAdd(count, 1u);
        if (idx < cap)
            list[idx] = ((unsigned long long)((b0 - 1) / 8 + t) << 4) | (unsigned long long)(h - 1);
    }
}

cudaError_t launch_screen(int step, unsigned grid, size_t smem, cudaStream_t st, stage_set S, int nh, const int *thk,
                          int zstride, unsigned long long *list, unsigned cap, unsigned *count)
{
    if (step == 2)
        k_screen<2><<<grid, PS_THREADS, smem, st>>>(S, nh, thk, zstride, list, cap, count);
    else if (step == 1)
        k_screen<1><<<grid, PS_THREADS, smem, st>>>(S, nh, thk, zstride, list, cap, count);
    else
        k_screen<0><<<grid, PS_THREADS, smem, st>>>(S, nh, thk, zstride, list, cap, count);
    return cudaGetLastError();
}

} // namespace xcps
