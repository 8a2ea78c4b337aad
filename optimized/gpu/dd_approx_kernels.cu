/* The kernels of the GPU subband and tree dedispersers (dd_approx.h): corner
 * turn + scrunch, subband stage 1, the tree's level 0 and butterfly steps,
 * and the stage 2 they share.  Sums are exact (u32 where every sum of a trial
 * fits, else u64; double for float input) and made in the CPU versions'
 * order, so the planes are the references' bit for bit on integer input
 * (optimized/cpu/subband_cpu.c, tree_cpu.c say why that order is the
 * reference's where it matters). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include "optimized/gpu/dd_approx.h"
#include "optimized/gpu/gpu_check.h"

namespace {

const int NT = 256;   /* threads per block along time */

/* Grid sizes: at most 65535 along y and z; the kernels loop over the rest. */
unsigned cap16(size_t n) { return n < 1 ? 1u : n > 65535 ? 65535u : (unsigned)n; }
unsigned blocks_for(size_t n) { return (unsigned)((n + NT - 1) / NT); }
/* How many of n rows (groups, pairs, trials) one launch takes when each has
 * blocks_for(w) blocks along x (at most 2^31 - 1 blocks). */
int per_launch(size_t w, int n)
{
    const size_t most = (size_t)INT_MAX / (blocks_for(w) ? blocks_for(w) : 1);
    return most < 1 ? 1 : most < (size_t)n ? (int)most : n;
}

template <typename TY>
__global__ void __launch_bounds__(256) k_scrunch(const void *raw, int raw_f32, size_t nc, const int *chan, int nuse,
                                                 int ds, size_t nsd, size_t np, TY *Y, size_t pitch)
{
    __shared__ TY tile[32][33];
    const size_t u0 = (size_t)blockIdx.x * 32;
    for (size_t r0 = (size_t)blockIdx.y * 32; r0 < (size_t)nuse; r0 += (size_t)gridDim.y * 32) {
        const size_t r = r0 + threadIdx.x;
        for (int k = threadIdx.y; k < 32; k += 8) {
            const size_t u = u0 + (size_t)k;
            TY v = 0;
            if (r < (size_t)nuse && u < nsd) {
                const size_t base = u * (size_t)ds * nc + (size_t)chan[r];
                for (int q = 0; q < ds; q++) {
                    const size_t idx = base + (size_t)q * nc;
                    if (raw_f32)
                        v += (TY)((const float *)raw)[idx];
                    else
                        v += (TY)((const uint16_t *)raw)[idx];
                }
            }
            tile[k][threadIdx.x] = v;
        }
        __syncthreads();
        for (int k = threadIdx.y; k < 32; k += 8) {
            const size_t rr = r0 + (size_t)k, u = u0 + threadIdx.x;
            if (rr < (size_t)nuse && u < np)
                Y[rr * pitch + u] = tile[threadIdx.x][k];
        }
        __syncthreads();
    }
}

/* Grids put the group (subband), pair (tree) or trial (stage 2) fastest in
 * blockIdx.x, the time block after it: blocks that run together then read
 * the same rows at nearby offsets, so those reads hit L2 instead of memory. */
template <typename TY, typename TA>
__global__ void __launch_bounds__(256) k_sub1(const TY *Y, size_t pitch, size_t nsd, const int *row,
                                              const int *sub_first, int nsub, int nchans, const int32_t *a,
                                              const int64_t *lo, int j0, int ng, size_t t0, size_t W, TA *buf)
{
    const int jj = (int)(blockIdx.x % (unsigned)ng);
    const size_t w = (size_t)(blockIdx.x / (unsigned)ng) * NT + threadIdx.x;
    if (w >= W)
        return;
    const int j = j0 + jj;
    const int32_t *aj = a + (size_t)j * (size_t)nchans;
    for (int s = blockIdx.y; s < nsub; s += gridDim.y) {
        const size_t base = t0 + (size_t)lo[(size_t)j * (size_t)nsub + (size_t)s] + w;
        TA v = 0;
        for (int c = sub_first[s]; c < sub_first[s + 1]; c++) {
            const int r = row[c];
            const size_t u = base + (size_t)aj[c];
            if (r >= 0 && u < nsd)
                v += (TA)Y[(size_t)r * pitch + u];
        }
        buf[((size_t)jj * (size_t)nsub + (size_t)s) * W + w] = v;
    }
}

template <typename TY, typename TA>
__global__ void __launch_bounds__(256) k_tree0(const TY *Y, size_t pitch, size_t nsd, const int *prow, int M,
                                               const int *qs, const int *qj, const int64_t *lo, int q0, int nq,
                                               size_t t0, size_t W, TA *buf)
{
    const int qq = (int)(blockIdx.x % (unsigned)nq), q = q0 + qq;
    const size_t w = (size_t)(blockIdx.x / (unsigned)nq) * NT + threadIdx.x;
    if (w >= W)
        return;
    for (int u = blockIdx.y; u < M; u += gridDim.y) {
        const int r = prow[(size_t)qs[q] * (size_t)M + (size_t)u];
        const size_t t = t0 + (size_t)lo[q] + (size_t)qj[q] * (size_t)u + w;
        buf[((size_t)qq * (size_t)M + (size_t)u) * W + w] = r >= 0 && t < nsd ? (TA)Y[(size_t)r * pitch + t] : (TA)0;
    }
}

template <typename TA>
__global__ void __launch_bounds__(256) k_tree_step(const TA *in, TA *out, int M, int h, int nq, size_t W)
{
    const int qq = (int)(blockIdx.x % (unsigned)nq);
    const size_t w = (size_t)(blockIdx.x / (unsigned)nq) * NT + threadIdx.x;
    if (w >= W)
        return;
    const TA *t = in + (size_t)qq * (size_t)M * W;
    for (int y = blockIdx.y; y < M; y += gridDim.y) {
        const int g = (y / (2 * h)) * (2 * h), n = y % (2 * h);
        const size_t sh = (size_t)(n / 2 + n % 2);
        const TA x = t[(size_t)(g + n / 2) * W + w];
        const TA z = w + sh < W ? t[(size_t)(g + h + n / 2) * W + w + sh] : (TA)0;
        out[((size_t)qq * (size_t)M + (size_t)y) * W + w] = x + z;
    }
}

/* (float)v as xc_scale_real's first step: u64 below 2^53 converts to double
 * exactly, so one correctly rounded conversion gives the same float. */
__device__ __forceinline__ float to_f(uint32_t v) { return __uint2float_rn(v); }
__device__ __forceinline__ float to_f(unsigned long long v) { return __ull2float_rn(v); }
__device__ __forceinline__ float to_f(double v) { return __double2float_rn(v); }

template <typename TA>
__global__ void __launch_bounds__(256) k_stage2(const TA *buf, size_t W, const int32_t *rowid, const int32_t *shift,
                                                int nsub, int s0, int s1, int64_t rbase, size_t i0, size_t ntr,
                                                size_t nt, int mode, TA *acc, size_t Tc, float *out, size_t opitch,
                                                size_t col)
{
    const size_t i = i0 + blockIdx.x % ntr;
    const size_t w = (blockIdx.x / ntr) * NT + threadIdx.x;
    if (w >= nt)
        return;
    const int32_t *rid = rowid + i * (size_t)nsub, *sft = shift + i * (size_t)nsub;
    TA v = mode == 1 ? acc[i * Tc + w] : (TA)0;
    for (int s = s0; s < s1; s++)
        v += buf[(size_t)((int64_t)rid[s] - rbase) * W + (size_t)sft[s] + w];
    if (mode == 2)
        out[i * opitch + col + w] = to_f(v);
    else
        acc[i * Tc + w] = v;
}

/* Subband stage 2 through shared memory: one block per (group, tile of TT2
 * outputs) stages the group's nsub rows over the tile plus the group's span
 * of shifts once, then every thread adds its output sample of each of the
 * group's trials from there (the trials of a group read the same rows at
 * nearby offsets: one load from L2 serves them all).  Same additions, same
 * order (s ascending from 0) as k_stage2. */
const int TT2 = 256;

template <typename TA>
__global__ void __launch_bounds__(256) k_stage2_grp(const TA *buf, size_t W, const int32_t *shift, int nsub,
                                                    const unsigned long long *first, const int32_t *gspan, int j0,
                                                    int ng, size_t nt, float *out, size_t opitch, size_t col)
{
    extern __shared__ unsigned char smraw[];
    TA *sm = reinterpret_cast<TA *>(smraw);
    const size_t t0 = (size_t)blockIdx.x * TT2;
    if (t0 >= nt)
        return;
    const size_t tn = nt - t0 < (size_t)TT2 ? nt - t0 : (size_t)TT2;
    for (int jj = blockIdx.y; jj < ng; jj += gridDim.y) {
        const int j = j0 + jj;
        const size_t len = tn + (size_t)gspan[j], pitch = (size_t)TT2 + (size_t)gspan[j];
        __syncthreads();   /* the previous group's reads are done */
        for (int s = 0; s < nsub; s++) {
            const TA *row = buf + ((size_t)jj * (size_t)nsub + (size_t)s) * W + t0;
            for (size_t x = threadIdx.x; x < len; x += blockDim.x)
                sm[(size_t)s * pitch + x] = row[x];
        }
        __syncthreads();
        const size_t x = threadIdx.x;
        if (x < tn)
            for (unsigned long long i = first[j]; i < first[j + 1]; i++) {
                const int32_t *sft = shift + i * (size_t)nsub;
                TA v = 0;
                for (int q = 0; q < nsub; q++)
                    v += sm[(size_t)q * pitch + x + (size_t)sft[q]];
                out[i * opitch + col + t0 + x] = to_f(v);
            }
    }
}

template <typename TA>
__global__ void __launch_bounds__(256) k_finish(const TA *acc, size_t Tc, size_t ndm, size_t nt, float *out,
                                                size_t opitch, size_t col)
{
    const size_t w = (size_t)blockIdx.x * NT + threadIdx.x;
    if (w >= nt)
        return;
    for (size_t i = blockIdx.y; i < ndm; i += gridDim.y)
        out[i * opitch + col + w] = to_f(acc[i * Tc + w]);
}

} // namespace

namespace {

/* Calls f(TY(), TA()) with the sample and sum types of t: the one place the
 * type code becomes template arguments. */
template <typename F> void with_types(int t, F f)
{
    switch (t) {
    case AP_U32_U32: f(uint32_t(), uint32_t()); break;
    case AP_U32_U64: f(uint32_t(), 0ull); break;
    case AP_U64_U64: f(0ull, 0ull); break;
    default: f(0.0, 0.0); break;
    }
}

/* Launches f(p, k) for rows [p, p + k) of n, each launch at most per_launch
 * rows of w samples; the first launch error stops it. */
template <typename F> cudaError_t in_pieces(size_t w, size_t n, F f)
{
    const size_t per = (size_t)per_launch(w, n > INT_MAX ? INT_MAX : (int)n);
    for (size_t p = 0; p < n; p += per) {
        f(p, n - p < per ? n - p : per);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* in_pieces over n rows of lanes x W sums each, with the types of t:
 * f(TY(), b, p, k, grid) for rows [p, p + k), b: buf as TA * at row p. */
template <typename F> cudaError_t typed_pieces(int t, size_t W, size_t n, size_t lanes, void *buf, F f)
{
    if (W == 0 || n == 0)
        return cudaSuccess;
    return in_pieces(W, n, [&](size_t p, size_t k) {
        with_types(t, [&](auto ty, auto ta) {
            using TA = decltype(ta);
            f(ty, (TA *)buf + p * lanes * W, p, k, dim3(blocks_for(W) * (unsigned)k, cap16(lanes)));
        });
    });
}

} // namespace

cudaError_t ap_launch_scrunch(int t, const void *raw, int raw_f32, size_t nc, const int *chan, int nuse, int ds,
                              size_t nsd, size_t np, void *Y, size_t pitch, cudaStream_t st)
{
    if (np == 0 || nuse == 0)
        return cudaSuccess;
    const dim3 grid((unsigned)((np + 31) / 32), cap16(((size_t)nuse + 31) / 32)), block(32, 8);
    with_types(t, [&](auto ty, auto) {
        using TY = decltype(ty);
        k_scrunch<TY><<<grid, block, 0, st>>>(raw, raw_f32, nc, chan, nuse, ds, nsd, np, (TY *)Y, pitch);
    });
    return cudaGetLastError();
}

cudaError_t ap_launch_sub1(int t, const void *Y, size_t pitch, size_t nsd, const int *row, const int *sub_first,
                           int nsub, int nchans, const int32_t *a, const int64_t *lo, int j0, int ng, size_t t0,
                           size_t W, void *buf, cudaStream_t st)
{
    return typed_pieces(t, W, (size_t)ng, (size_t)nsub, buf, [&](auto ty, auto *b, size_t p, size_t n, dim3 g) {
        using TY = decltype(ty);
        k_sub1<<<g, NT, 0, st>>>((const TY *)Y, pitch, nsd, row, sub_first, nsub, nchans, a, lo, j0 + (int)p, (int)n,
                                 t0, W, b);
    });
}

cudaError_t ap_launch_tree0(int t, const void *Y, size_t pitch, size_t nsd, const int *prow, int M, const int *qs,
                            const int *qj, const int64_t *lo, int q0, int nq, size_t t0, size_t W, void *buf,
                            cudaStream_t st)
{
    return typed_pieces(t, W, (size_t)nq, (size_t)M, buf, [&](auto ty, auto *b, size_t p, size_t n, dim3 g) {
        using TY = decltype(ty);
        k_tree0<<<g, NT, 0, st>>>((const TY *)Y, pitch, nsd, prow, M, qs, qj, lo, q0 + (int)p, (int)n, t0, W, b);
    });
}

cudaError_t ap_launch_tree_step(int t, const void *in, void *out, int M, int h, int nq, size_t W, cudaStream_t st)
{
    if (W == 0 || nq == 0)
        return cudaSuccess;
    return in_pieces(W, (size_t)nq, [&](size_t p, size_t n) {
        with_types(t, [&](auto, auto ta) {
            using TA = decltype(ta);
            const size_t off = p * (size_t)M * W;
            k_tree_step<TA><<<dim3(blocks_for(W) * (unsigned)n, cap16((size_t)M)), NT, 0, st>>>(
                (const TA *)in + off, (TA *)out + off, M, h, (int)n, W);
        });
    });
}

cudaError_t ap_launch_stage2(int t, const void *buf, size_t W, const int32_t *rowid, const int32_t *shift, int nsub,
                             int s0, int s1, int64_t rbase, size_t i0, size_t ntr, size_t nt, int mode, void *acc,
                             size_t Tc, float *out, size_t opitch, size_t col, cudaStream_t st)
{
    if (nt == 0 || ntr == 0)
        return cudaSuccess;
    return in_pieces(nt, ntr, [&](size_t p, size_t n) {
        with_types(t, [&](auto, auto ta) {
            using TA = decltype(ta);
            k_stage2<TA><<<dim3((unsigned)(blocks_for(nt) * n)), NT, 0, st>>>(
                (const TA *)buf, W, rowid, shift, nsub, s0, s1, rbase, i0 + p, n, nt, mode, (TA *)acc, Tc, out,
                opitch, col);
        });
    });
}

size_t ap_stage2_groups_smem(int t, int nsub, int span)
{
    return (size_t)nsub * ((size_t)TT2 + (size_t)span) * ap_abytes(t);
}

cudaError_t ap_launch_stage2_groups(int t, const void *buf, size_t W, const int32_t *shift, int nsub,
                                    const unsigned long long *first, const int32_t *gspan, int span, int j0, int ng,
                                    size_t nt, float *out, size_t opitch, size_t col, cudaStream_t st)
{
    if (nt == 0 || ng == 0)
        return cudaSuccess;
    const size_t smem = ap_stage2_groups_smem(t, nsub, span);
    cudaError_t e = cudaSuccess;
    with_types(t, [&](auto, auto ta) {
        using TA = decltype(ta);
        e = xc_gpu_smem_optin(k_stage2_grp<TA>);
        if (e == cudaSuccess)
            k_stage2_grp<TA><<<dim3((unsigned)((nt + TT2 - 1) / TT2), cap16((size_t)ng)), NT, smem, st>>>(
                (const TA *)buf, W, shift, nsub, first, gspan, j0, ng, nt, out, opitch, col);
    });
    return e != cudaSuccess ? e : cudaGetLastError();
}

cudaError_t ap_launch_finish(int t, const void *acc, size_t Tc, size_t ndm, size_t nt, float *out, size_t opitch,
                             size_t col, cudaStream_t st)
{
    if (nt == 0 || ndm == 0)
        return cudaSuccess;
    with_types(t, [&](auto, auto ta) {
        using TA = decltype(ta);
        k_finish<TA><<<dim3(blocks_for(nt), cap16(ndm)), NT, 0, st>>>((const TA *)acc, Tc, ndm, nt, out, opitch, col);
    });
    return cudaGetLastError();
}
