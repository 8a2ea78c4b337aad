/* gpu_check.h: checking every CUDA call (host code of optimized/gpu only).
 *
 * A failed call is reported as "gpu: <what>: <CUDA error string>" with
 * XC_EDEVICE.  Kernels are checked twice: cudaGetLastError right after the
 * launch (bad configuration) and a synchronisation that names the kernel (a
 * fault during execution), so an asynchronous error is never blamed on a later
 * call (AstroAccelerate#214: silent failures).  The failing call's error is
 * also taken off the runtime's "last error" so that a recoverable failure
 * (out of memory) does not poison the next run's entry check. */
#ifndef XC_GPU_CHECK_H
#define XC_GPU_CHECK_H

#include <cuda_runtime.h>

#include "core/base/xc_error.h"

static inline xc_status xc_gpu_fail(xc_error *err, cudaError_t e, const char *what)
{
    (void)cudaGetLastError();
    return xc_error_set(err, XC_EDEVICE, "gpu: %s: %s", what, cudaGetErrorString(e));
}

/* In a function returning xc_status with `xc_error *err` in scope: call's
 * result (of type `type`) other than ok returns fail(err, result, what). */
#define XC_GPU_CK_AS(type, ok, fail, call, what)                                                   \
    do {                                                                                           \
        type r_ = (call);                                                                          \
        if (r_ != (ok))                                                                            \
            return fail(err, r_, (what));                                                          \
    } while (0)

/* The same for CUDA runtime calls. */
#define XC_GPU_CK(call, what) XC_GPU_CK_AS(cudaError_t, cudaSuccess, xc_gpu_fail, call, what)

/* Entry check, as dedisp's PRIOR_GPU_ERROR: an error left pending by earlier
 * CUDA work is reported instead of being attributed to this run. */
#define XC_GPU_CK_PRIOR(who)                                                                       \
    do {                                                                                           \
        cudaError_t e_ = cudaGetLastError();                                                       \
        if (e_ != cudaSuccess)                                                                     \
            return xc_error_set(err, XC_EDEVICE, "gpu: %s: a CUDA error was pending before the call: %s", \
                                (who), cudaGetErrorString(e_));                                    \
    } while (0)

#ifdef __cplusplus
/* Lets kernel f take all the dynamic shared memory a block may opt in to
 * (the device's limit less f's static shared memory).  The attribute is the
 * process's, not a plan's or a call's: two host threads setting it to their
 * own sizes raced (one lowered it under the other's launch, which then
 * failed with "invalid argument" in `bench study -shared`), so every caller
 * sets the same value, the largest, and a launch asks for what it needs. */
template <typename F> static inline cudaError_t xc_gpu_smem_optin(F *f)
{
    int dev = 0, optin = 0;
    cudaFuncAttributes a;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e == cudaSuccess)
        e = cudaFuncGetAttributes(&a, (const void *)f);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute((const void *)f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 optin - (int)a.sharedSizeBytes);
    return e;
}
#endif

#endif
