/* The tree's fused kernels (dd_approx.h): level 0 and every butterfly step
 * of a tile of time in shared memory, and a stage 2 that adds four outputs a
 * thread.  Nsight Compute on one H200 (docs/SUBBAND.md, "Where the time
 * goes") found the unfused tree spending most of its time passing its rows
 * through device memory once per butterfly step, and its stage 2 bound by
 * the instructions that find each row (two table loads and a 64-bit address
 * per add); these make the same sums, so the planes are the same bit for
 * bit: integer sums are exact in any order, and for float input each output
 * still adds the same two values per step and its subbands in ascending
 * order.
 *
 * A tile of TF = 257 - M outputs takes M - 1 samples more of level 0 (the
 * lines reach at most M - 1 samples ahead: step h shifts by at most h, and
 * 1 + 2 + ... + M/2 = M - 1), so one block of 256 threads holds one column
 * each; a column past the tile reads 0 where the unfused kernels read a
 * value, but no output of the tile depends on it. */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include "optimized/gpu/dd_approx.h"
#include "optimized/gpu/gpu_check.h"

namespace xc_apt {

const int TN = 256;   /* threads per block: the columns of a fused tile */
const int X4 = 4;     /* outputs per thread of stage 2, TN apart */

unsigned cap16t(size_t n) { return n < 1 ? 1u : n > 65535 ? 65535u : (unsigned)n; }

template <typename TY, typename TA, typename TB>
__global__ void __launch_bounds__(256) k_tree_fused(const TY *Y, size_t pitch, size_t nsd, const int *prow, int M,
                                                    const int *qs, const int *qj, const int64_t *lo, int q0, int nq,
                                                    size_t t0, size_t W, TB *buf)
{
    extern __shared__ int4 apt_sm[];
    TA *a = reinterpret_cast<TA *>(apt_sm), *b = a + (size_t)M * TN;
    const int qq = (int)(blockIdx.x % (unsigned)nq), q = q0 + qq, x = threadIdx.x;
    const int tf = TN + 1 - M;
    const size_t w0 = (size_t)(blockIdx.x / (unsigned)nq) * (size_t)tf, w = w0 + (size_t)x;
    const size_t base = t0 + (size_t)lo[q] + w;
    const int s = qs[q];
    const size_t j = (size_t)qj[q];
    for (int u = 0; u < M; u++) {
        const int r = prow[(size_t)s * (size_t)M + (size_t)u];
        const size_t t = base + j * (size_t)u;
        a[u * TN + x] = r >= 0 && w < W && t < nsd ? (TA)Y[(size_t)r * pitch + t] : (TA)0;
    }
    for (int h = 1; h < M; h *= 2) {
        __syncthreads();
        for (int y = 0; y < M; y++) {
            const int g = (y / (2 * h)) * (2 * h), n = y % (2 * h), sh = n / 2 + n % 2;
            const TA v = a[(g + n / 2) * TN + x];
            const TA z = x + sh < TN ? a[(g + h + n / 2) * TN + x + sh] : (TA)0;
            b[y * TN + x] = v + z;
        }
        TA *sw = a;
        a = b;
        b = sw;
    }
    if (x < tf && w < W)
        for (int y = 0; y < M; y++)
            buf[((size_t)qq * (size_t)M + (size_t)y) * W + w] = (TB)a[y * TN + x];
}

/* (float)v as dd_approx_kernels.cu's to_f */
__device__ __forceinline__ float to_ft(uint32_t v) { return __uint2float_rn(v); }
__device__ __forceinline__ float to_ft(unsigned long long v) { return __ull2float_rn(v); }
__device__ __forceinline__ float to_ft(double v) { return __double2float_rn(v); }

template <typename TB, typename TA>
__global__ void __launch_bounds__(256) k_stage2_x4(const TB *buf, size_t W, const int32_t *rowid, const int32_t *shift,
                                                   int nsub, int s0, int s1, int64_t rbase, size_t i0, size_t ntr,
                                                   size_t nt, int mode, TA *acc, size_t Tc, float *out, size_t opitch,
                                                   size_t col)
{
    const size_t i = i0 + blockIdx.x % ntr;
    const size_t w = (blockIdx.x / ntr) * (size_t)(TN * X4) + threadIdx.x;
    if (w >= nt)
        return;
    const int32_t *rid = rowid + i * (size_t)nsub, *sft = shift + i * (size_t)nsub;
    TA v[X4];
#pragma unroll
    for (int k = 0; k < X4; k++)
        v[k] = mode == 1 && w + (size_t)(k * TN) < nt ? acc[i * Tc + w + (size_t)(k * TN)] : (TA)0;
    if (w + (size_t)((X4 - 1) * TN) < nt) {
        for (int s = s0; s < s1; s++) {
            const TB *p = buf + (size_t)((int64_t)rid[s] - rbase) * W + (size_t)sft[s] + w;
#pragma unroll
            for (int k = 0; k < X4; k++)
                v[k] += (TA)p[k * TN];
        }
    } else {
        for (int s = s0; s < s1; s++) {
            const TB *p = buf + (size_t)((int64_t)rid[s] - rbase) * W + (size_t)sft[s] + w;
#pragma unroll
            for (int k = 0; k < X4; k++)
                if (w + (size_t)(k * TN) < nt)
                    v[k] += (TA)p[k * TN];
        }
    }
#pragma unroll
    for (int k = 0; k < X4; k++) {
        const size_t wk = w + (size_t)(k * TN);
        if (wk < nt) {
            if (mode == 2)
                out[i * opitch + col + wk] = to_ft(v[k]);
            else
                acc[i * Tc + wk] = v[k];
        }
    }
}

/* Calls f(TY(), TA()) with the sample and sum types of t (as
 * dd_approx_kernels.cu's with_types). */
template <typename F> void with_types_t(int t, F f)
{
    switch (t) {
    case AP_U32_U32: f(uint32_t(), uint32_t()); break;
    case AP_U32_U64: f(uint32_t(), 0ull); break;
    case AP_U64_U64: f(0ull, 0ull); break;
    default: f(0.0, 0.0); break;
    }
}

/* Launches f(p, k, blocks) for rows [p, p + k) of n, tiles blocks a row, at
 * most 2^31 - 1 blocks a launch; the first launch error stops it. */
template <typename F> cudaError_t rows_in_pieces(size_t tiles, size_t n, F f)
{
    const size_t most = (size_t)INT_MAX / (tiles ? tiles : 1), per = most < 1 ? 1 : most < n ? most : n;
    for (size_t p = 0; p < n; p += per) {
        const size_t k = n - p < per ? n - p : per;
        f(p, k, (unsigned)(tiles * k));
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

} // namespace xc_apt

size_t ap_tree_fused_smem(int t, int M)
{
    return 2 * (size_t)M * (size_t)xc_apt::TN * ap_abytes(t);
}

cudaError_t ap_launch_tree_fused(int t, int b16, const void *Y, size_t pitch, size_t nsd, const int *prow, int M,
                                 const int *qs, const int *qj, const int64_t *lo, int q0, int nq, size_t t0, size_t W,
                                 void *buf, cudaStream_t st)
{
    if (W == 0 || nq == 0)
        return cudaSuccess;
    if (M < 1 || M > xc_apt::TN || (b16 && t != AP_U32_U32))
        return cudaErrorInvalidValue;
    const size_t tf = (size_t)(xc_apt::TN + 1 - M), tiles = (W + tf - 1) / tf, smem = ap_tree_fused_smem(t, M);
    cudaError_t e = cudaSuccess;
    xc_apt::with_types_t(t, [&](auto ty, auto ta) {
        using TY = decltype(ty);
        using TA = decltype(ta);
        e = b16 ? xc_gpu_smem_optin(xc_apt::k_tree_fused<TY, TA, uint16_t>)
                : xc_gpu_smem_optin(xc_apt::k_tree_fused<TY, TA, TA>);
        if (e != cudaSuccess)
            return;
        e = xc_apt::rows_in_pieces(tiles, (size_t)nq, [&](size_t p, size_t k, unsigned blocks) {
            const size_t off = p * (size_t)M * W;
            if (b16)
                xc_apt::k_tree_fused<TY, TA, uint16_t><<<blocks, xc_apt::TN, smem, st>>>(
                    (const TY *)Y, pitch, nsd, prow, M, qs, qj, lo, q0 + (int)p, (int)k, t0, W, (uint16_t *)buf + off);
            else
                xc_apt::k_tree_fused<TY, TA, TA><<<blocks, xc_apt::TN, smem, st>>>(
                    (const TY *)Y, pitch, nsd, prow, M, qs, qj, lo, q0 + (int)p, (int)k, t0, W, (TA *)buf + off);
        });
    });
    return e;
}

cudaError_t ap_launch_stage2_x4(int t, int b16, const void *buf, size_t W, const int32_t *rowid, const int32_t *shift,
                                int nsub, int s0, int s1, int64_t rbase, size_t i0, size_t ntr, size_t nt, int mode,
                                void *acc, size_t Tc, float *out, size_t opitch, size_t col, cudaStream_t st)
{
    if (nt == 0 || ntr == 0)
        return cudaSuccess;
    if (b16 && t != AP_U32_U32)
        return cudaErrorInvalidValue;
    const size_t tiles = (nt + (size_t)(xc_apt::TN * xc_apt::X4) - 1) / (size_t)(xc_apt::TN * xc_apt::X4);
    cudaError_t e = cudaSuccess;
    xc_apt::with_types_t(t, [&](auto, auto ta) {
        using TA = decltype(ta);
        e = xc_apt::rows_in_pieces(tiles, ntr, [&](size_t p, size_t k, unsigned blocks) {
            if (b16)
                xc_apt::k_stage2_x4<uint16_t, TA><<<blocks, xc_apt::TN, 0, st>>>(
                    (const uint16_t *)buf, W, rowid, shift, nsub, s0, s1, rbase, i0 + p, k, nt, mode, (TA *)acc, Tc,
                    out, opitch, col);
            else
                xc_apt::k_stage2_x4<TA, TA><<<blocks, xc_apt::TN, 0, st>>>((const TA *)buf, W, rowid, shift, nsub, s0,
                                                                          s1, rbase, i0 + p, k, nt, mode, (TA *)acc,
                                                                          Tc, out, opitch, col);
        });
    });
    return e;
}
