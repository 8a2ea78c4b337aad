/* The direct (L1/cache) dedispersion kernel: the fallback where a tile's
 * shifts span more than shared memory holds, and the kernel of u64 words.
 * Exact integer sums; layouts as in gpu_dd.h. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "optimized/gpu/gpu_dd.h"

namespace {

/* One trial per blockIdx.x, DD_DIRECT_SAMPS samples per thread; every channel's
 * word is read from global memory through the cache.  Used when a tile's
 * spread of shifts does not fit in shared memory, and for sums of u64 words. */
template <typename E, typename ACC>
__global__ void __launch_bounds__(DD_DIRECT_THREADS) k_dd_direct(const dd_direct_args a)
{
    const int dm = (int)blockIdx.x;
    const size_t tb = ((size_t)a.tblock0 + blockIdx.y) * (DD_DIRECT_THREADS * DD_DIRECT_SAMPS) + threadIdx.x;
    const int32_t *drow = a.del + (size_t)dm * (size_t)a.nuse;
    /* per-sample base pointers hoisted out of the channel loop: with the
     * bounds test inside it, sm_90 ptxas spilled a register */
    ACC s[DD_DIRECT_SAMPS];
    bool ok[DD_DIRECT_SAMPS];
    const E *base[DD_DIRECT_SAMPS];
#pragma unroll
    for (int k = 0; k < DD_DIRECT_SAMPS; ++k) {
        const size_t t = tb + (size_t)k * DD_DIRECT_THREADS;
        s[k] = 0;
        ok[k] = t < a.lk;
        base[k] = static_cast<const E *>(a.Y) + (ok[k] ? t : 0);
    }
    for (int i = 0; i < a.nuse; ++i) {
        const size_t off = (size_t)i * a.pitch + (size_t)__ldg(drow + i);
#pragma unroll
        for (int k = 0; k < DD_DIRECT_SAMPS; ++k)
            if (ok[k])
                s[k] += (ACC)__ldg(base[k] + off);
    }
    float *orow = a.out + (size_t)dm * a.opitch;
#pragma unroll
    for (int k = 0; k < DD_DIRECT_SAMPS; ++k)
        if (ok[k])
            orow[tb + (size_t)k * DD_DIRECT_THREADS] = __double2float_rn((double)s[k]);
}

} // namespace

cudaError_t dd_launch_direct(int fmt, dim3 grid, const dd_direct_args &a, cudaStream_t s)
{
    switch (fmt) {
    case DD_W32: k_dd_direct<uint32_t, unsigned long long><<<grid, DD_DIRECT_THREADS, 0, s>>>(a); break;
    case DD_F32: k_dd_direct<float, double><<<grid, DD_DIRECT_THREADS, 0, s>>>(a); break;
    case DD_U64: k_dd_direct<unsigned long long, unsigned long long><<<grid, DD_DIRECT_THREADS, 0, s>>>(a); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
