/* xc_gpu.h: C entry points of the CUDA implementations (optimized/gpu, .cu files).
 * Built only when the Makefile finds nvcc (CUDA=1); the registry lists them
 * then, and they report "unavailable: <CUDA runtime's reason>" on machines
 * without a usable device.  The header itself is plain C and may be included
 * by a build without CUDA (the functions are then not linked). */
#ifndef XC_GPU_H
#define XC_GPU_H

#include <stddef.h>

#include "xc_dedisperse.h"
#include "xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if a CUDA device of compute capability >= 9.0 is usable; else 0 with the
 * CUDA runtime's reason (or "no CUDA device") in why. */
int xc_gpu_available(char *why, size_t n);
/* Name of device 0 and its properties as one line, for reports. */
xc_status xc_gpu_describe(char *buf, size_t n, xc_error *err);

typedef struct {
    char name[256];
    int cc_major, cc_minor;
    int sms;                   /* multiprocessors */
    int clock_khz;             /* peak SM clock */
    size_t global_bytes;
    size_t smem_block_optin;   /* shared memory one block may opt in to */
    size_t smem_per_sm;
    /* Theoretical shared-memory bandwidth as in the AstroAccelerate paper's
     * eq. (8): SMs x 32 banks x 4 bytes x clock, bytes/s. */
    double smem_bytes_per_s;
} xc_gpu_props;

/* Properties of device 0.  XC_EDEVICE with the runtime's message on failure. */
xc_status xc_gpu_properties(xc_gpu_props *p, xc_error *err);

/* ---- dedispersion ------------------------------------------------------- */

#define XC_GPU_MAX_THREADS 512   /* threads per block of the shared-memory kernel */
#define XC_GPU_MAX_RANGES 32     /* ranges reported in xc_gpu_ddinfo */

/* What ran for one DM range. */
typedef struct {
    char kernel[32];           /* "smem-q4", "smem-q8", "smem-p16", "smem-w32", "smem-f32",
                                  with "-wide" when 64-bit sums are needed, or "direct" */
    int samps_per_thread;      /* effective settings (after rounding to supported values) */
    int dms_per_block;
    int samps_per_block;
    int chans_per_stage;
    int shift_span;            /* largest spread of delays inside one block's DMs (samples) */
    size_t smem_bytes;         /* dynamic shared memory per block */
    int autotuned;             /* 1 if the settings were chosen by timing candidates */
    int candidates;            /* candidates timed by the autotuner */
    double kernel_ms;          /* dedispersion kernel time of this range (all chunks) */
} xc_gpu_ddrange;

/* Optional in/out record of one run (xc_dedisperse_gpu_info). */
typedef struct {
    /* in */
    int force_direct;          /* 1: use the direct (L1/cache) kernel for every range */
    int test_wide;             /* test hook: 64-bit-sum kernel instances even where 32 bits suffice */
    int test_period;           /* test hook: > 0 flushes narrow sums at least this often */
    /* out */
    int nranges;               /* ranges described (min(plan ranges, XC_GPU_MAX_RANGES)) */
    xc_gpu_ddrange range[XC_GPU_MAX_RANGES];
    int nchunks;               /* time chunks the data was processed in */
    size_t chunk_samples;      /* full-resolution output samples per chunk */
    size_t device_bytes;       /* device memory allocated (all buffers) */
    size_t budget_bytes;       /* the cap the chunk plan was made for */
    double kernel_ms;          /* dedispersion kernels, all ranges and chunks */
    double prep_ms;            /* transpose/scrunch/pack and delay-bound kernels */
    double autotune_ms;        /* kernel time spent timing candidates */
    double h2d_ms, d2h_ms;     /* host-device copies */
} xc_gpu_ddinfo;

/* AstroAccelerate-style shared-memory dedispersion; same semantics as
 * xc_dedisperse_reference (bit-identical for integer input, float input within
 * N * 2^-24 * max|ref|, N = unmasked channels * ds).  Tunables come from
 * job->opts (gpu_* fields).  Errors: XC_EINVAL for a plane of the wrong shape,
 * a negative tunable, or a gpu_max_bytes too small for one time chunk;
 * XC_ENOMEM for host memory; XC_EDEVICE for any CUDA error, the message naming
 * the call or kernel: "gpu: <kernel or call>: <CUDA error string>". */
xc_status xc_dedisperse_gpu(const xc_ddjob *job, xc_plane *out, xc_error *err);
/* The same, filling *info (may be NULL) with what ran. */
xc_status xc_dedisperse_gpu_info(const xc_ddjob *job, xc_plane *out, xc_gpu_ddinfo *info, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
