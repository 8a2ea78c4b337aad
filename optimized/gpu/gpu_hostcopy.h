/* gpu_hostcopy.h: the host-side copies of the GPU dedisperser's pipeline
 * (user memory <-> pinned staging), threaded with OpenMP in C
 * (gpu_hostcopy.c): one core's memcpy moves about 10 GB/s, less than the
 * PCIe link (55 GB/s each way measured on an H200 host) that the staging
 * feeds, so a single-threaded copy would be what the pipeline waits for. */
#ifndef XC_GPU_HOSTCOPY_H
#define XC_GPU_HOSTCOPY_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* n bytes from src to dst (not overlapping). */
void xc_gpu_copy_bytes(void *dst, const void *src, size_t n);
/* dst[k] = src[k] for k < n: samples of at most 8 bits held in 16 (the
 * high byte zero), one byte each, so half the bytes cross the link. */
void xc_gpu_narrow_bytes(uint8_t *dst, const uint16_t *src, size_t n);
/* nrows rows of rowlen floats, src rows spitch floats apart, dst rows dpitch. */
void xc_gpu_copy_rows(float *dst, size_t dpitch, const float *src, size_t spitch, size_t rowlen, size_t nrows);

/* dst[k] = (float)src[k] for k < n, on `threads` threads (0: OpenMP's
 * default; at most 16): the accel searcher's spectrum, 4.7 M values at the
 * Pulscan paper's 600 s, took 16 ms on one thread. */
void xc_gpu_to_float(float *dst, const double *src, size_t n, int threads);

/* The staging's host copy rates on this host, source bytes/s of `bytes`
 * between warm pageable and page-locked memory, the median of 3 after one
 * untimed (gpu_hostcopy_rate.cu): in (xc_gpu_copy_bytes, pageable to
 * page-locked), narrow (xc_gpu_narrow_bytes, bytes / 2 samples to bytes / 2
 * bytes), out (page-locked to pageable); [0] alone, [1] while the DMA
 * engines copy page-locked buffers both ways, as the pipeline's transfers
 * run beside its host copies, with dma_bps the DMA's rate each way then and
 * mem_bps the host memory's throughput while both run (the copy's bytes
 * read and written plus the DMA's both ways, per second of the copy).
 * XC_EDEVICE where the runtime fails, XC_ENOMEM. */
typedef struct {
    double in[2], narrow[2], out[2];
    double dma_bps, mem_bps;
} xc_gpu_copyrates;
xc_status xc_gpu_hostcopy_rates(size_t bytes, xc_gpu_copyrates *r, xc_error *err);

#ifdef __cplusplus
}
#endif

#endif
