/* The shared-memory dedispersion kernel (AstroAccelerate, Novotny et al.
 * 2023, Algorithm 3) with exact lane sums (dd_accumulators.h), and its launch
 * and attribute dispatch over (format, words per thread, wide).  Layouts are
 * described in gpu_dd.h. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "optimized/gpu/dd_accumulators.h"
#include "optimized/gpu/gpu_dd.h"
#include "optimized/gpu/xc_gpu.h"

namespace {

using xcdd::acc_of;
using xcdd::counts;

/* ---- the shared-memory kernel ----------------------------------------------
 *
 * Block: blockDim.x = 32*WX threads along time, blockDim.y = dy DM trials (one
 * warp never spans two trials, so a warp's shared loads are 32 consecutive
 * words: no bank conflicts).  Grid: x = DM tile, y = time tile, so the blocks
 * resident at one time share a time window and its words stay in L2 (with
 * time fastest, every DM tile would stream the whole array from memory).  The block's tile is S = blockDim.x*R words, i.e.
 * S*L samples, starting at t0.  Thread (x, y) owns words j = 32*R*(x/32) +
 * x%32 + 32*r (r < R).  Per stage of cs channels the block copies, for each
 * channel, the rowlen = S + spread words that start at its block part of the
 * shift (tmin of the tile) into shared memory; each thread then adds the word
 * at j + (its delay - tmin) of every staged channel, all lanes at once. */
template <int FMT, int R, bool WIDE>
__global__ void __launch_bounds__(XC_GPU_MAX_THREADS, 1) k_dd_smem(const dd_smem_args a)
{
    constexpr int L = FMT <= DD_Q8 ? 4 : FMT == DD_P16 ? 2 : 1;
    extern __shared__ uint32_t sm[];
    uint32_t *rows = sm;
    int *shf = reinterpret_cast<int *>(sm + (size_t)a.cs * (size_t)a.rowlen);

    const int lane = threadIdx.x & 31;
    const int S = (int)blockDim.x * R;
    const int ty = threadIdx.y;
    const int tile = (int)blockIdx.x;
    const int dm = tile * a.dy + ty;
    const bool live = dm < a.ndm;
    const int dmc = live ? dm : a.ndm - 1;   /* padding trials reuse a real one's shifts */
    const size_t t0 = ((size_t)a.ttile0 + blockIdx.y) * (size_t)S * L;
    const int tid = ty * (int)blockDim.x + (int)threadIdx.x;
    const int nwarps = (int)(blockDim.x * blockDim.y) >> 5;
    const int warp = tid >> 5;
    const int jbase = (int)(threadIdx.x >> 5) * 32 * R + lane;
    const int32_t *tmin = a.tmin + (size_t)tile * (size_t)a.nuse;
    const int32_t *drow = a.del + (size_t)dmc * (size_t)a.nuse;

    typename acc_of<FMT, R, WIDE>::type acc;
    acc.zero();
    counts cnt = {a.k1, a.k2, a.k3, 0, 0, 0};

    for (int c0 = 0; c0 < a.nuse; c0 += a.cs) {
        const int ncs = min(a.cs, a.nuse - c0);
        __syncthreads();   /* the previous stage has been read by everyone */
        for (int cc = (int)threadIdx.x; cc < ncs; cc += (int)blockDim.x)
            shf[ty * a.cs + cc] = __ldg(drow + c0 + cc) - __ldg(tmin + c0 + cc);
        for (int cc = warp; cc < ncs; cc += nwarps) {
            const uint32_t *src = a.Y + (size_t)(c0 + cc) * a.pitch + t0 + (size_t)__ldg(tmin + c0 + cc);
            uint32_t *dst = rows + cc * a.rowlen;
            int q = lane;
            for (; q + 96 < a.rowlen; q += 128) {
                const uint32_t v0 = __ldg(src + q), v1 = __ldg(src + q + 32);
                const uint32_t v2 = __ldg(src + q + 64), v3 = __ldg(src + q + 96);
                dst[q] = v0;
                dst[q + 32] = v1;
                dst[q + 64] = v2;
                dst[q + 96] = v3;
            }
            for (; q < a.rowlen; q += 32)
                dst[q] = __ldg(src + q);
        }
        __syncthreads();
        for (int cc = 0; cc < ncs; ++cc) {
            const uint32_t *p = rows + cc * a.rowlen + shf[ty * a.cs + cc] + jbase;
#pragma unroll
            for (int r = 0; r < R; ++r)
                acc.add(r, p[32 * r]);
            acc.channel_done(cnt);
        }
        acc.stage_done();
    }
    acc.finish();
    if (!live)
        return;
    float *orow = a.out + (size_t)dm * a.opitch;
#pragma unroll
    for (int l = 0; l < L; ++l)
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const size_t t = t0 + (size_t)(jbase + 32 * r) + (size_t)l * (size_t)S;
            if (t < a.lk)
                orow[t] = __double2float_rn(acc.sum(l, r));
        }
}

/* ---- dispatch ------------------------------------------------------------- */

template <int FMT, int R, bool WIDE>
cudaError_t launch_smem_t(dim3 grid, dim3 block, size_t smem, const dd_smem_args &a, cudaStream_t s)
{
    cudaError_t e = cudaFuncSetAttribute(k_dd_smem<FMT, R, WIDE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess)
        return e;
    k_dd_smem<FMT, R, WIDE><<<grid, block, smem, s>>>(a);
    return cudaGetLastError();
}

template <int FMT, int R, bool WIDE>
cudaError_t attr_smem_t(cudaFuncAttributes *attr)
{
    return cudaFuncGetAttributes(attr, k_dd_smem<FMT, R, WIDE>);
}

/* The instances that exist: the 4-lane formats keep 3-4 accumulators per lane
 * word, so R stops at 8 (16 would spill); the wide (u64) instances are for
 * correctness, not speed, and stop at 4. */
constexpr int max_r(int fmt, bool wide) { return wide ? 4 : fmt <= DD_Q8 ? 8 : 16; }

template <int FMT, bool WIDE>
cudaError_t launch_smem_r(int R, dim3 grid, dim3 block, size_t smem, const dd_smem_args &a, cudaStream_t s)
{
    switch (R) {
    case 1: return launch_smem_t<FMT, 1, WIDE>(grid, block, smem, a, s);
    case 2: return launch_smem_t<FMT, 2, WIDE>(grid, block, smem, a, s);
    case 4: return launch_smem_t<FMT, 4, WIDE>(grid, block, smem, a, s);
    case 8:
        if constexpr (max_r(FMT, WIDE) >= 8)
            return launch_smem_t<FMT, 8, WIDE>(grid, block, smem, a, s);
        break;
    case 16:
        if constexpr (max_r(FMT, WIDE) >= 16)
            return launch_smem_t<FMT, 16, WIDE>(grid, block, smem, a, s);
        break;
    default: break;
    }
    return cudaErrorInvalidValue;
}

template <int FMT, bool WIDE>
cudaError_t attr_smem_r(int R, cudaFuncAttributes *attr)
{
    switch (R) {
    case 1: return attr_smem_t<FMT, 1, WIDE>(attr);
    case 2: return attr_smem_t<FMT, 2, WIDE>(attr);
    case 4: return attr_smem_t<FMT, 4, WIDE>(attr);
    case 8:
        if constexpr (max_r(FMT, WIDE) >= 8)
            return attr_smem_t<FMT, 8, WIDE>(attr);
        break;
    case 16:
        if constexpr (max_r(FMT, WIDE) >= 16)
            return attr_smem_t<FMT, 16, WIDE>(attr);
        break;
    default: break;
    }
    return cudaErrorInvalidValue;
}

} // namespace

int dd_smem_supported(int fmt, int R, int wide)
{
    if (fmt < DD_Q4 || fmt > DD_F32 || (wide && fmt == DD_F32))
        return 0;
    if (R != 1 && R != 2 && R != 4 && R != 8 && R != 16)
        return 0;
    return R <= max_r(fmt, wide != 0);
}

cudaError_t dd_launch_smem(int fmt, int R, int wide, dim3 grid, dim3 block, size_t smem, const dd_smem_args &a,
                           cudaStream_t s)
{
    if (!dd_smem_supported(fmt, R, wide))
        return cudaErrorInvalidValue;
    switch (fmt) {
    case DD_Q4: return wide ? launch_smem_r<DD_Q4, true>(R, grid, block, smem, a, s)
                            : launch_smem_r<DD_Q4, false>(R, grid, block, smem, a, s);
    case DD_Q8: return wide ? launch_smem_r<DD_Q8, true>(R, grid, block, smem, a, s)
                            : launch_smem_r<DD_Q8, false>(R, grid, block, smem, a, s);
    case DD_P16: return wide ? launch_smem_r<DD_P16, true>(R, grid, block, smem, a, s)
                             : launch_smem_r<DD_P16, false>(R, grid, block, smem, a, s);
    case DD_W32: return wide ? launch_smem_r<DD_W32, true>(R, grid, block, smem, a, s)
                             : launch_smem_r<DD_W32, false>(R, grid, block, smem, a, s);
    case DD_F32: return launch_smem_r<DD_F32, false>(R, grid, block, smem, a, s);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t dd_smem_attributes(int fmt, int R, int wide, cudaFuncAttributes *attr)
{
    if (!dd_smem_supported(fmt, R, wide))
        return cudaErrorInvalidValue;
    switch (fmt) {
    case DD_Q4: return wide ? attr_smem_r<DD_Q4, true>(R, attr) : attr_smem_r<DD_Q4, false>(R, attr);
    case DD_Q8: return wide ? attr_smem_r<DD_Q8, true>(R, attr) : attr_smem_r<DD_Q8, false>(R, attr);
    case DD_P16: return wide ? attr_smem_r<DD_P16, true>(R, attr) : attr_smem_r<DD_P16, false>(R, attr);
    case DD_W32: return wide ? attr_smem_r<DD_W32, true>(R, attr) : attr_smem_r<DD_W32, false>(R, attr);
    case DD_F32: return attr_smem_r<DD_F32, false>(R, attr);
    default: return cudaErrorInvalidValue;
    }
}

