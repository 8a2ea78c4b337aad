/* Device queries shared by every GPU implementation: availability (with the
 * runtime's reason when there is none), a one-line description and the
 * properties the benchmarks need. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/xc_gpu.h"

/* Without a GPU the runtime finds no driver library and says "CUDA driver
 * version is insufficient": that is no device, not an old driver, when no
 * NVIDIA kernel driver is loaded (it publishes /proc/driver/nvidia/version). */
static int no_nvidia_driver(void) { return access("/proc/driver/nvidia/version", F_OK) != 0; }

extern "C" int xc_gpu_available(char *why, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (e == cudaErrorNoDevice || (e == cudaErrorInsufficientDriver && no_nvidia_driver()))
            snprintf(why, n, "no CUDA-capable device is detected%s",
                     e == cudaErrorNoDevice ? "" : " (no NVIDIA driver is loaded)");
        else
            snprintf(why, n, "%s", cudaGetErrorString(e));
        return 0;
    }
    if (count < 1) {
        snprintf(why, n, "no CUDA-capable device is detected");
        return 0;
    }
    cudaDeviceProp p;
    e = cudaGetDeviceProperties(&p, 0);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, n, "%s", cudaGetErrorString(e));
        return 0;
    }
    if (p.major < 9) {
        snprintf(why, n, "device 0 (%s) has compute capability %d.%d; built for 9.0", p.name, p.major, p.minor);
        return 0;
    }
    return 1;
}

extern "C" xc_status xc_gpu_properties(xc_gpu_props *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    cudaDeviceProp p;
    XC_GPU_CK(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    int clock = 0;
    /* cudaDeviceProp lost clockRate in CUDA 13; the attribute remains */
    XC_GPU_CK(cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute(clock rate)");
    snprintf(out->name, sizeof out->name, "%s", p.name);
    out->cc_major = p.major;
    out->cc_minor = p.minor;
    out->sms = p.multiProcessorCount;
    out->clock_khz = clock;
    out->global_bytes = p.totalGlobalMem;
    out->smem_block_optin = p.sharedMemPerBlockOptin;
    out->smem_per_sm = p.sharedMemPerMultiprocessor;
    out->smem_bytes_per_s = (double)p.multiProcessorCount * 32.0 * 4.0 * (double)clock * 1e3;
    return XC_OK;
}

extern "C" xc_status xc_gpu_describe(char *buf, size_t n, xc_error *err)
{
    xc_gpu_props p;
    xc_status st = xc_gpu_properties(&p, err);
    if (st)
        return st;
    snprintf(buf, n, "%s (cc %d.%d), %d SMs at %.0f MHz, %.1f GiB, shared memory %zu KiB per block (opt-in), %.1f TB/s",
             p.name, p.cc_major, p.cc_minor, p.sms, p.clock_khz / 1e3, (double)p.global_bytes / (1u << 30),
             p.smem_block_optin / 1024, p.smem_bytes_per_s / 1e12);
    return XC_OK;
}

extern "C" xc_status xc_gpu_host_alloc(void **p, size_t bytes, xc_error *err)
{
    *p = NULL;
    XC_GPU_CK(cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocDefault), "cudaHostAlloc");
    return XC_OK;
}

extern "C" void xc_gpu_host_free(void *p)
{
    cudaFreeHost(p);
}

extern "C" int xc_gpu_is_pinned(const void *p)
{
    cudaPointerAttributes a;
    if (!p || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();   /* older runtimes report pageable memory as an error */
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

extern "C" xc_status xc_gpu_upload(void **dev, const void *src, size_t bytes, xc_error *err)
{
    *dev = NULL;
    XC_GPU_CK(cudaMalloc(dev, bytes ? bytes : 1), "cudaMalloc");
    cudaError_t e = src && bytes ? cudaMemcpy(*dev, src, bytes, cudaMemcpyHostToDevice) : cudaSuccess;
    if (e != cudaSuccess) {
        cudaFree(*dev);
        *dev = NULL;
        return xc_gpu_fail(err, e, "cudaMemcpy (upload)");
    }
    return XC_OK;
}

extern "C" void xc_gpu_free(void *dev)
{
    cudaFree(dev);
}

/* Median of 3 timed copies of bytes each way between page-locked host
 * memory and the device (CUDA events), bytes/s. */
extern "C" xc_status xc_gpu_bandwidth(size_t bytes, double *h2d, double *d2h, xc_error *err)
{
    void *h = NULL, *d = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    cudaError_t e = cudaHostAlloc(&h, bytes, cudaHostAllocDefault);
    if (e == cudaSuccess)
        e = cudaMalloc(&d, bytes);
    if (e == cudaSuccess)
        e = cudaEventCreate(&e0);
    if (e == cudaSuccess)
        e = cudaEventCreate(&e1);
    if (e == cudaSuccess)
        memset(h, 1, bytes);
    float t[2][3] = {{0}};
    for (int dir = 0; dir < 2 && e == cudaSuccess; dir++)
        for (int i = -1; i < 3 && e == cudaSuccess; i++) {
            float ms = 0;
            e = cudaEventRecord(e0, 0);
            if (e == cudaSuccess)
                e = dir ? cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, 0)
                        : cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, 0);
            if (e == cudaSuccess)
                e = cudaEventRecord(e1, 0);
            if (e == cudaSuccess)
                e = cudaEventSynchronize(e1);
            if (e == cudaSuccess)
                e = cudaEventElapsedTime(&ms, e0, e1);
            if (i >= 0)
                t[dir][i] = ms;
        }
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    cudaFree(d);
    cudaFreeHost(h);
    if (e != cudaSuccess)
        return xc_gpu_fail(err, e, "bandwidth test");
    for (int dir = 0; dir < 2; dir++) {
        const float *v = t[dir];
        const float lo = fminf(v[0], v[1]), hi = fmaxf(v[0], v[1]);
        const float med = v[2] < lo ? lo : v[2] > hi ? hi : v[2];
        (dir ? *d2h : *h2d) = (double)bytes / ((double)med * 1e-3);
    }
    return XC_OK;
}
