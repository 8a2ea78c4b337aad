/* gpu_append.h: appending to a bounded list in device memory (device code,
 * nvcc only), as the accel and Pulscan kernels report their points. */
#ifndef XC_GPU_APPEND_H
#define XC_GPU_APPEND_H

#include <cuda_runtime.h>

/* Takes the list's next slot (*count so far) and writes v there when it is
 * below cap; past cap only the count grows, so the host sees the overflow. */
template <class T, class N>
__device__ __forceinline__ void xc_gpu_append(T *list, N cap, N *count, const T &v)
{
    const N at = atomicAdd(count, (N)1);
    if (at < cap)
        list[at] = v;
}

#endif
