/* The CUDA accel searcher's inverse FFT callbacks (accel_gpu_cb.h), compiled
 * on their own to LTO-IR (the Makefile's accel_gpu_cb rule: nvcc -dlto
 * -fatbin, then bin2c) and handed to cuFFT with cufftXtSetJITCallback
 * (NVIDIA cuFFT documentation, "LTO load and store callback routines").
 * The arithmetic is the separate kernels' (accel_gpu.cu k_mul, k_power),
 * written the same way.  C++ functions, not extern "C": cuFFT declares each
 * callback by the name given and its type's signature and links it so. */
#include <cufftXt.h>

#include "optimized/gpu/accel_gpu_cb.h"

__device__ cufftComplex xc_accel_cb_load(void *in, unsigned long long offset, void *info, void *shared)
{
    (void)in, (void)shared;
    const xc_accel_cb_info *c = (const xc_accel_cb_info *)info;
    const xc_accel_cb_pair pr = c->pair[offset >> c->lshift];
    if (pr.t < 0)
        return make_float2(0.f, 0.f);
    const unsigned long long q = offset & ((1ull << c->lshift) - 1);
    const float2 a = c->seg[((unsigned long long)pr.g << c->lshift) + q];
    const float2 b = c->kern[((unsigned long long)pr.t << c->lshift) + q];
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__device__ void xc_accel_cb_store(void *out, unsigned long long offset, cufftComplex o, void *info, void *shared)
{
    (void)out, (void)shared;
    const xc_accel_cb_info *c = (const xc_accel_cb_info *)info;
    const xc_accel_cb_pair pr = c->pair[offset >> c->lshift];
    const long long j = (long long)(offset & ((1ull << c->lshift) - 1)) - c->off;
    if (pr.t < 0 || j < 0 || j >= c->V)
        return;
    const unsigned long long h = (unsigned long long)pr.g * (unsigned long long)c->V + (unsigned long long)j;
    if (h < c->nr)
        c->out[(unsigned long long)pr.t * c->ld + h] = o.x * o.x + o.y * o.y;
}
