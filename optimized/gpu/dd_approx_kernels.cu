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

cudaError_t ap_launch_scrunch(int t, const void *raw, int raw_f32, size_t nc, const int *chan, int nuse, int ds,
                              size_t nsd, size_t np, void *Y, size_t pitch, cudaStream_t st)
{
    const dim3 grid((unsigned)((np + 31) / 32), cap16(((size_t)nuse + 31) / 32)), block(32, 8);
    if (np == 0 || nuse == 0)
        return cudaSuccess;
    if (ap_ybytes(t) == 4)
        k_scrunch<uint32_t><<<grid, block, 0, st>>>(raw, raw_f32, nc, chan, nuse, ds, nsd, np, (uint32_t *)Y, pitch);
    else if (t == AP_U64_U64)
        k_scrunch<unsigned long long><<<grid, block, 0, st>>>(raw, raw_f32, nc, chan, nuse, ds, nsd, np,
                                                              (unsigned long long *)Y, pitch);
    else
        k_scrunch<double><<<grid, block, 0, st>>>(raw, raw_f32, nc, chan, nuse, ds, nsd, np, (double *)Y, pitch);
    return cudaGetLastError();
}

cudaError_t ap_launch_sub1(int t, const void *Y, size_t pitch, size_t nsd, const int *row, const int *sub_first,
                           int nsub, int nchans, const int32_t *a, const int64_t *lo, int j0, int ng, size_t t0,
                           size_t W, void *buf, cudaStream_t st)
{
    if (W == 0 || ng == 0)
        return cudaSuccess;
    const int per = per_launch(W, ng);
    for (int p = 0; p < ng; p += per) {
        const int n = ng - p < per ? ng - p : per;
        const dim3 grid(blocks_for(W) * (unsigned)n, cap16((size_t)nsub));
        char *b = (char *)buf + (size_t)p * (size_t)nsub * W * ap_abytes(t);
#define AP_SUB1(TY, TA)                                                                                          \
    k_sub1<TY, TA><<<grid, NT, 0, st>>>((const TY *)Y, pitch, nsd, row, sub_first, nsub, nchans, a, lo, j0 + p, n, \
                                        t0, W, (TA *)b)
        switch (t) {
        case AP_U32_U32: AP_SUB1(uint32_t, uint32_t); break;
        case AP_U32_U64: AP_SUB1(uint32_t, unsigned long long); break;
        case AP_U64_U64: AP_SUB1(unsigned long long, unsigned long long); break;
        default: AP_SUB1(double, double); break;
        }
#undef AP_SUB1
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t ap_launch_tree0(int t, const void *Y, size_t pitch, size_t nsd, const int *prow, int M, const int *qs,
                            const int *qj, const int64_t *lo, int q0, int nq, size_t t0, size_t W, void *buf,
                            cudaStream_t st)
{
    if (W == 0 || nq == 0)
        return cudaSuccess;
    const int per = per_launch(W, nq);
    for (int p = 0; p < nq; p += per) {
        const int n = nq - p < per ? nq - p : per;
        const dim3 grid(blocks_for(W) * (unsigned)n, cap16((size_t)M));
        char *b = (char *)buf + (size_t)p * (size_t)M * W * ap_abytes(t);
#define AP_T0(TY, TA) \
    k_tree0<TY, TA><<<grid, NT, 0, st>>>((const TY *)Y, pitch, nsd, prow, M, qs, qj, lo, q0 + p, n, t0, W, (TA *)b)
        switch (t) {
        case AP_U32_U32: AP_T0(uint32_t, uint32_t); break;
        case AP_U32_U64: AP_T0(uint32_t, unsigned long long); break;
        case AP_U64_U64: AP_T0(unsigned long long, unsigned long long); break;
        default: AP_T0(double, double); break;
        }
#undef AP_T0
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t ap_launch_tree_step(int t, const void *in, void *out, int M, int h, int nq, size_t W, cudaStream_t st)
{
    if (W == 0 || nq == 0)
        return cudaSuccess;
    const int per = per_launch(W, nq);
    for (int p = 0; p < nq; p += per) {
        const int n = nq - p < per ? nq - p : per;
        const dim3 grid(blocks_for(W) * (unsigned)n, cap16((size_t)M));
        const size_t off = (size_t)p * (size_t)M * W * ap_abytes(t);
        const char *i = (const char *)in + off;
        char *o = (char *)out + off;
        if (t == AP_U32_U32)
            k_tree_step<uint32_t><<<grid, NT, 0, st>>>((const uint32_t *)i, (uint32_t *)o, M, h, n, W);
        else if (t == AP_F64)
            k_tree_step<double><<<grid, NT, 0, st>>>((const double *)i, (double *)o, M, h, n, W);
        else
            k_tree_step<unsigned long long><<<grid, NT, 0, st>>>((const unsigned long long *)i,
                                                                 (unsigned long long *)o, M, h, n, W);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t ap_launch_stage2(int t, const void *buf, size_t W, const int32_t *rowid, const int32_t *shift, int nsub,
                             int s0, int s1, int64_t rbase, size_t i0, size_t ntr, size_t nt, int mode, void *acc,
                             size_t Tc, float *out, size_t opitch, size_t col, cudaStream_t st)
{
    if (nt == 0 || ntr == 0)
        return cudaSuccess;
    const size_t per = (size_t)per_launch(nt, ntr > INT_MAX ? INT_MAX : (int)ntr);
    for (size_t p = 0; p < ntr; p += per) {
        const size_t n = ntr - p < per ? ntr - p : per;
        const dim3 grid((unsigned)(blocks_for(nt) * n));
#define AP_S2(TA)                                                                                                  \
    k_stage2<TA><<<grid, NT, 0, st>>>((const TA *)buf, W, rowid, shift, nsub, s0, s1, rbase, i0 + p, n, nt, mode, \
                                      (TA *)acc, Tc, out, opitch, col)
        if (t == AP_U32_U32)
            AP_S2(uint32_t);
        else if (t == AP_F64)
            AP_S2(double);
        else
            AP_S2(unsigned long long);
#undef AP_S2
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t ap_launch_finish(int t, const void *acc, size_t Tc, size_t ndm, size_t nt, float *out, size_t opitch,
                             size_t col, cudaStream_t st)
{
    if (nt == 0 || ndm == 0)
        return cudaSuccess;
    const dim3 grid(blocks_for(nt), cap16(ndm));
    if (t == AP_U32_U32)
        k_finish<uint32_t><<<grid, NT, 0, st>>>((const uint32_t *)acc, Tc, ndm, nt, out, opitch, col);
    else if (t == AP_F64)
        k_finish<double><<<grid, NT, 0, st>>>((const double *)acc, Tc, ndm, nt, out, opitch, col);
    else
        k_finish<unsigned long long><<<grid, NT, 0, st>>>((const unsigned long long *)acc, Tc, ndm, nt, out, opitch,
                                                          col);
    return cudaGetLastError();
}
