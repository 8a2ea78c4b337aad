/* The dedispersion's output scaling: the rest of xc_scale_real after its
 * (float)sum, which the dedispersion kernels write.  Integer output equals
 * the reference bit for bit: the same float operations, with round-to-nearest
 * intrinsics. */
#include <cuda_runtime.h>

#include "core/dedisp/plan/xc_dmplan.h"
#include "optimized/gpu/gpu_dd.h"

namespace {

/* xc_scale_real, operation for operation (the __f*_rn intrinsics keep nvcc
 * from contracting or approximating).  Its first step, (float)sum, is done by
 * the dedispersion kernels; the divisions of the dedisp and AstroAccelerate
 * conventions run afterwards in k_scale, so the dedispersion kernels never
 * call the division slow path (a call would make them spill around it). */
__device__ __forceinline__ float scale_rest(float f, const dd_scale &sc)
{
    if (sc.kind == XC_SCALE_DEDISP)
        return __fmul_rn(__fdiv_rn(__fmul_rn(f, 1.0f), sc.den), sc.factor);
    if (sc.kind == XC_SCALE_MEAN_AA)
        return __fdiv_rn(__fdiv_rn(f, sc.fnch), sc.fds);
    return f;
}

__global__ void __launch_bounds__(256) k_scale(float *out, size_t n, const dd_scale sc)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = scale_rest(out[i], sc);
}

__global__ void __launch_bounds__(256) k_scale_rows(float *out, size_t rows, size_t cols, size_t pitch, const dd_scale sc)
{
    const size_t n = rows * cols;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float *p = out + i / cols * pitch + i % cols;
        *p = scale_rest(*p, sc);
    }
}

__global__ void k_fault(int mode)
{
    if (mode == 2)
        __trap();
}

} // namespace

cudaError_t dd_launch_fault(int mode, cudaStream_t s)
{
    /* 4096 threads per block is beyond every device's limit of 1024 */
    k_fault<<<1, mode == 1 ? 4096 : 1, 0, s>>>(mode);
    return cudaGetLastError();
}

cudaError_t dd_launch_scale(float *out, size_t n, const dd_scale &sc, cudaStream_t s)
{
    size_t blocks = (n + 255) / 256;
    if (blocks > 16384)
        blocks = 16384;
    if (blocks < 1)
        blocks = 1;
    k_scale<<<(unsigned)blocks, 256, 0, s>>>(out, n, sc);
    return cudaGetLastError();
}

cudaError_t dd_launch_scale_rows(float *out, size_t rows, size_t cols, size_t pitch, const dd_scale &sc, cudaStream_t s)
{
    size_t blocks = (rows * cols + 255) / 256;
    if (blocks > 16384)
        blocks = 16384;
    if (blocks < 1)
        blocks = 1;
    k_scale_rows<<<(unsigned)blocks, 256, 0, s>>>(out, rows, cols ? cols : 1, pitch, sc);
    return cudaGetLastError();
}
