/* The shared-memory dedispersion kernel (AstroAccelerate, Novotny et al.
 * 2023, Algorithm 3) with exact lane sums (dd_accumulators.h), and its launch
 * and attribute dispatch over (format, words per thread, wide).  Layouts are
 * described in gpu_dd.h. */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "optimized/gpu/dd_accumulators.h"
#include "optimized/gpu/gpu_dd.h"
#include "optimized/gpu/gpu_check.h"
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
 * time fastest, every DM tile would stream the whole array from memory).  The
 * block's tile is S = blockDim.x*R words, i.e. S*L samples, starting at t0.
 * Thread (x, y) owns words j = 32*R*(x/32) + x%32 + 32*r (r < R).
 *
 * Stages of cs channels: for each channel the rowlen = S + spread words that
 * start at its block part of the shift (tmin of the tile) are copied into
 * shared memory with asynchronous copies (cp.async), the next stage's while
 * this one's are added (two buffers), so the global loads' latency hides
 * behind the additions (Nsight Compute put "long scoreboard" first among the
 * stalls of the one-buffer kernel).  Each thread then adds the word at
 * j + (its delay - tmin) of every staged channel, all lanes at once, two
 * channels per step, in runs that end where the narrow sums must flush
 * (dd_accumulators.h), so no per-channel counter is kept.  The per-thread
 * shift table holds each channel's row offset too: one shared load and one
 * add address a channel's R words. */
template <class ACC, int R>
__device__ __forceinline__ void add_stage(ACC &acc, counts &cnt, const uint32_t *rows, const int *shf, int ncs)
{
    int cc = 0;
    while (cc < ncs) {
        int e = ncs;
        if constexpr (ACC::counted)
            e = min(ncs, cc + (cnt.k1 - cnt.n1));
        const int n = e - cc;
        for (; cc + 2 <= e; cc += 2) {
            const uint32_t *p = rows + shf[cc], *q = rows + shf[cc + 1];
#pragma unroll
            for (int r = 0; r < R; ++r)
                acc.add2(r, p[32 * r], q[32 * r]);
        }
        if (cc < e) {
            const uint32_t *p = rows + shf[cc];
#pragma unroll
            for (int r = 0; r < R; ++r)
                acc.add(r, p[32 * r]);
            ++cc;
        }
        if constexpr (ACC::counted) {
            cnt.n1 += n;
            if (cnt.n1 == cnt.k1) {
                cnt.n1 = 0;
                acc.flush(cnt);
            }
        }
    }
}

template <int FMT, int R, bool WIDE>
__global__ void __launch_bounds__(XC_GPU_MAX_THREADS, 1) k_dd_smem(const dd_smem_args a)
{
    constexpr int L = dd_lanes(FMT);
    extern __shared__ uint32_t sm[];
    /* [2][cs * rowlen] staged rows, then [2][dy][cs] shift offsets */
    const int bufw = a.cs * a.rowlen;
    int *shf0 = reinterpret_cast<int *>(sm + 2 * (size_t)bufw);

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
    const int nst = (a.nuse + a.cs - 1) / a.cs;

    /* stage s into buffer s & 1: this thread's shift offsets, and its share
     * of the rows as asynchronous 4-byte copies (shifts are word-aligned
     * only), committed as one group */
    auto stage_in = [&](int s) {
        const int c0 = s * a.cs, ncs = min(a.cs, a.nuse - c0);
        int *shf = shf0 + ((s & 1) * a.dy + ty) * a.cs;
        for (int cc = (int)threadIdx.x; cc < ncs; cc += (int)blockDim.x)
            shf[cc] = cc * a.rowlen + __ldg(drow + c0 + cc) - __ldg(tmin + c0 + cc);
        uint32_t *rows = sm + (size_t)(s & 1) * (size_t)bufw;
        for (int cc = warp; cc < ncs; cc += nwarps) {
            const uint32_t *src = a.Y + (size_t)(c0 + cc) * a.pitch + t0 + (size_t)__ldg(tmin + c0 + cc) + lane;
            uint32_t *dst = rows + cc * a.rowlen + lane;
            for (int q = lane; q < a.rowlen; q += 32, src += 32, dst += 32)
                __pipeline_memcpy_async(dst, src, sizeof(uint32_t));
        }
        __pipeline_commit();
    };

    typename acc_of<FMT, R, WIDE>::type acc;
    acc.zero();
    counts cnt = {a.k1, a.k2, a.k3, 0, 0, 0};

    stage_in(0);
    for (int s = 0; s < nst; ++s) {
        if (s + 1 < nst) {
            stage_in(s + 1);   /* its buffer was last read before the previous barrier */
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();   /* stage s, copied by everyone, is in shared memory */
        add_stage<decltype(acc), R>(acc, cnt, sm + (size_t)(s & 1) * (size_t)bufw + jbase,
                                    shf0 + ((s & 1) * a.dy + ty) * a.cs, min(a.cs, a.nuse - s * a.cs));
        acc.stage_done();
        __syncthreads();   /* everyone has read buffer s & 1 before stage s + 2 refills it */
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
    cudaError_t e = xc_gpu_smem_optin(k_dd_smem<FMT, R, WIDE>);
    /* all of L1 that can be shared memory: the blocks are sized for three
     * per SM (dd_settings.cu), which the default carveout does not hold */
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(k_dd_smem<FMT, R, WIDE>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared);
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

/* The instances that exist: the 4-lane formats keep 6 u32 sums per word, so
 * R stops at 8 (16 would spill); the wide (u64) instances are for
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
    case DD_S16: return wide ? launch_smem_r<DD_S16, true>(R, grid, block, smem, a, s)
                             : launch_smem_r<DD_S16, false>(R, grid, block, smem, a, s);
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
    case DD_S16: return wide ? attr_smem_r<DD_S16, true>(R, attr) : attr_smem_r<DD_S16, false>(R, attr);
    case DD_W32: return wide ? attr_smem_r<DD_W32, true>(R, attr) : attr_smem_r<DD_W32, false>(R, attr);
    case DD_F32: return attr_smem_r<DD_F32, false>(R, attr);
    default: return cudaErrorInvalidValue;
    }
}

