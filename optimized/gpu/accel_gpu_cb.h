/* accel_gpu_cb.h: internal to optimized/gpu: what the CUDA accel searcher's
 * inverse FFT callbacks (accel_gpu_cb.cuh, compiled to LTO-IR and linked
 * into cuFFT's kernels at plan time: cuFFT's JIT LTO callbacks) share with
 * its host code (accel_gpu.cu).
 *
 * A fused inverse transform of a chunk of (template, segment) pairs: its
 * load callback forms row b's input, segment pair[b].g times template
 * pair[b].t's transform, point by point as the separate product kernel
 * did; its store callback writes |.|^2 of the V valid points straight into
 * the plane.  The products and the complex result never cross memory. */
#ifndef XC_ACCEL_GPU_CB_H
#define XC_ACCEL_GPU_CB_H

/* Row b of a chunk: its segment and template; t < 0: a padding row of the
 * batch (loads zeros, stores nothing). */
struct xc_accel_cb_pair {
    int g, t;
};

/* The callbacks' caller info (device memory, set per plane call). */
struct xc_accel_cb_info {
    const float2 *seg;                    /* nseg x L: the block's FFT'd segments */
    const float2 *kern;                   /* ntempl x L: conj(FFT(template)) / L */
    const struct xc_accel_cb_pair *pair;  /* the chunk's rows */
    float *out;                           /* the plane: template t's row at t ld */
    unsigned long long ld, nr;            /* row stride; half-bins of the block */
    int lshift;                           /* L = 1 << lshift */
    int off;                              /* 2 hwmax: the first valid point */
    int V;                                /* valid points per segment */
};

#endif
