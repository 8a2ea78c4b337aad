/* The staging's host copy rates, alone and beside DMA both ways
 * (gpu_hostcopy.h): what bounds a pipelined gulp into pageable memory, where
 * every byte of the input and plane takes a host copy as well as the link,
 * and the copies share the host's memory with the link's DMA. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/gpu_hostcopy.h"

namespace {

double wall_s()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* way 0: in, 1: narrow, 2: out */
void copy_once(int way, char *pg, char *pin, size_t n)
{
    if (way == 0)
        xc_gpu_copy_bytes(pin, pg, n);
    else if (way == 1)
        xc_gpu_narrow_bytes((uint8_t *)pin, (const uint16_t *)pg, n / 2);
    else
        xc_gpu_copy_bytes(pg, pin, n);
}

struct dma_bufs {
    char *h[2];
    void *d[2];
    size_t n;
    cudaStream_t st[2];
};

/* Seconds of one copy of n source bytes (median of 3 after one untimed);
 * with b, each timed copy runs while b's buffers cross both ways, and
 * *dma gets the DMA's seconds (median). */
cudaError_t time_copy(int way, char *pg, char *pin, size_t n, const dma_bufs *b, double *sec, double *dma)
{
    double t[3], u[3];
    for (int i = -1; i < 3; i++) {
        const double t0 = wall_s();
        if (b) {
            cudaError_t e = cudaMemcpyAsync(b->d[0], b->h[0], b->n, cudaMemcpyHostToDevice, b->st[0]);
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(b->h[1], b->d[1], b->n, cudaMemcpyDeviceToHost, b->st[1]);
            if (e != cudaSuccess)
                return e;
        }
        const double c0 = wall_s();
        copy_once(way, pg, pin, n);
        const double c1 = wall_s();
        if (b) {
            cudaError_t e = cudaStreamSynchronize(b->st[0]);
            if (e == cudaSuccess)
                e = cudaStreamSynchronize(b->st[1]);
            if (e != cudaSuccess)
                return e;
        }
        if (i >= 0) {
            t[i] = c1 - c0;
            u[i] = wall_s() - t0;
        }
    }
    qsort(t, 3, sizeof *t, by_value);
    qsort(u, 3, sizeof *u, by_value);
    *sec = t[1];
    if (dma)
        *dma = u[1];
    return cudaSuccess;
}

} // namespace

extern "C" xc_status xc_gpu_hostcopy_rates(size_t bytes, xc_gpu_copyrates *r, xc_error *err)
{
    memset(r, 0, sizeof *r);
    /* DMA of 4 x bytes each way outlasts a copy of bytes (the link moves
     * at most about 1.5 x what the host copies) */
    dma_bufs b = {{NULL, NULL}, {NULL, NULL}, 4 * bytes, {NULL, NULL}};
    char *pg = (char *)malloc(bytes), *pin = NULL;
    cudaError_t e = pg ? cudaHostAlloc((void **)&pin, bytes, cudaHostAllocDefault) : cudaErrorMemoryAllocation;
    for (int k = 0; k < 2 && e == cudaSuccess; k++) {
        e = cudaHostAlloc((void **)&b.h[k], b.n, cudaHostAllocDefault);
        if (e == cudaSuccess)
            e = cudaMalloc(&b.d[k], b.n);
        if (e == cudaSuccess)
            e = cudaStreamCreateWithFlags(&b.st[k], cudaStreamNonBlocking);
        if (e == cudaSuccess)
            memset(b.h[k], 3, b.n);
    }
    if (e == cudaSuccess) {
        memset(pg, 1, bytes);
        memset(pin, 2, bytes);
    }
    double *dst[3] = {r->in, r->narrow, r->out};
    for (int way = 0; way < 3 && e == cudaSuccess; way++)
        for (int busy = 0; busy < 2 && e == cudaSuccess; busy++) {
            double sec = 0, dma = 0;
            e = time_copy(way, pg, pin, bytes, busy ? &b : NULL, &sec, &dma);
            dst[way][busy] = (double)bytes / sec;
            if (busy && way == 2 && e == cudaSuccess) {
                /* the out copy reads and writes its bytes; the DMA's bytes
                 * both ways spread over its own time */
                r->dma_bps = (double)b.n / dma;
                r->mem_bps = 2.0 * (double)bytes / sec + 2.0 * r->dma_bps;
            }
        }
    for (int k = 0; k < 2; k++) {
        if (b.st[k])
            cudaStreamDestroy(b.st[k]);
        cudaFree(b.d[k]);
        cudaFreeHost(b.h[k]);
    }
    cudaFreeHost(pin);
    free(pg);
    if (!pg)
        return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for %zu bytes", bytes);
    return e == cudaSuccess ? XC_OK : xc_gpu_fail(err, e, "host copy rates");
}
