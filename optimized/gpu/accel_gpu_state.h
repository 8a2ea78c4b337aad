/* accel_gpu_state.h: internal to optimized/gpu: the CUDA accel searcher's
 * state and the host functions its two files share: accel_gpu.cu (templates'
 * FFTs, cuFFT plans, the plane of a block) and accel_gpu_sums.cu (harmonic
 * sums and thresholds kept on the device). */
#ifndef XC_ACCEL_GPU_STATE_H
#define XC_ACCEL_GPU_STATE_H

#include <cuda_runtime.h>
#include <cufft.h>
#include <stdint.h>

#include "core/search/xc_accel.h"
#include "optimized/gpu/gpu_check.h"

namespace xc_accel_gpu_impl {

/* A point above its stage's threshold, as the device writes it. */
struct hit {
    long long i;
    int t, stage;
    float P;
};

enum { NPLANS = 12 };

struct fftplan {
    cufftHandle h;
    long batch;   /* 0: slot empty */
    size_t work;
};

struct state {
    int L, V, hwmax, ntempl;
    long bmax;                 /* most (template, segment) pairs per chunk */
    cudaStream_t stream;
    int have_stream;
    float2 *kern;              /* ntempl x L: conj(FFT(template)) / L */
    float2 *prod;              /* prodcap x L: products, inverse FFT'd in place */
    long prodcap;
    float2 *seg;               /* segcap x L: the block's segments, FFT'd in place */
    size_t segcap;
    float2 *amp;               /* the block's amplitudes */
    size_t ampcap;
    float *hamp;               /* pinned staging of the amplitudes */
    size_t hampcap;
    float *out;                /* the block's plane, ntempl x nr */
    size_t outcap;
    int *tl, *htl;             /* the block's templates (device, pinned host) */
    size_t tlcap, htlcap;
    unsigned char *work;       /* cuFFT work area shared by the cached plans */
    size_t workcap;
    fftplan plan[NPLANS];
    int evict;
    /* the plane in one pass (accel_gpu_plane1.cu) */
    int can1;                  /* L and the device allow it */
    int onepass;               /* used (can1 unless a test chose the cuFFT path) */
    int m;                     /* log2 L */
    float2 *tw;                /* its FFT's twiddles */
    /* the search with sums on the device (accel_gpu_sums.cu) */
    float2 *spec;              /* every bin's normalised amplitude */
    size_t speccap;
    float *sum;                /* a top block's plane, then its sums, ntempl x nr */
    size_t sumcap;
    float *sub;                /* a sub-harmonic's block, ntempl x its length */
    size_t subcap;
    int *tsub;                 /* per sub-harmonic entry and top template: its template */
    int *subtl;                /* per sub-harmonic entry: the templates it needs, then */
    long subn[XC_ACCEL_MAXHARM];    /* ... how many */
    size_t tsubcap, subtlcap;
    struct hit *hits, *hhits;  /* points above threshold (device, pinned host) */
    size_t hitcap, hhitcap;
    unsigned long long *nhit;  /* their count (device) */
    size_t nhitcap;
};

/* Buffers grown to at least n elements (contents not kept): device memory,
 * or pinned host memory when host is set. */
template <typename T> inline xc_status grow_mem(T **p, size_t *cap, size_t n, bool host, const char *what, xc_error *err)
{
    if (n <= *cap)
        return XC_OK;
    if (n > SIZE_MAX / sizeof(T))
        return host ? xc_error_set(err, XC_ENOMEM, "accel gpu: %zu elements of %s overflow a size", n, what)
                    : xc_error_set(err, XC_EDEVICE, "gpu: accel %s: %zu elements overflow a size", what, n);
    if (*p)
        (void)(host ? cudaFreeHost(*p) : cudaFree(*p));
    *p = NULL;
    *cap = 0;
    cudaError_t e = host ? cudaMallocHost((void **)p, n * sizeof(T)) : cudaMalloc((void **)p, n * sizeof(T));
    if (e != cudaSuccess) {
        *p = NULL;
        (void)cudaGetLastError();
        return xc_error_set(err, XC_EDEVICE, "gpu: accel %s(%zu bytes for %s): %s",
                            host ? "cudaMallocHost" : "cudaMalloc", n * sizeof(T), what, cudaGetErrorString(e));
    }
    *cap = n;
    return XC_OK;
}

template <typename T> inline xc_status grow(T **p, size_t *cap, size_t n, const char *what, xc_error *err)
{
    return grow_mem(p, cap, n, false, what, err);
}

template <typename T> inline xc_status grow_host(T **p, size_t *cap, size_t n, const char *what, xc_error *err)
{
    return grow_mem(p, cap, n, true, what, err);
}

xc_status sync(state *s, const char *what, xc_error *err);
unsigned grid_for(size_t n);
/* The plane of the nw templates listed at tl (device) for half-bin indices
 * [i0, i0 + nr), from the device amplitudes amp of bins lo..lo+n-1 (zero
 * elsewhere), into out (device; template t's row at t ld, ld >= nr; other
 * rows untouched).  Segments, products and inverse FFTs as the CPU
 * searcher's. */
xc_status plane_dev(state *s, const float2 *amp, long lo, long n, long i0, size_t nr, const int *tl, long nw,
                    float *out, size_t ld, xc_error *err);
/* The one-pass plane: can1, onepass and the twiddles set for s->L (both 0
 * where L or the device's shared memory does not allow it). */
xc_status plane1_init(state *s, xc_error *err);
/* plane_dev's pairs from the FFT'd segments s->seg (nseg of them), queued
 * on s->stream. */
xc_status plane1(state *s, size_t nseg, const int *tl, long nw, size_t nr, float *out, size_t ld, xc_error *err);
xc_status search(state *s, const xc_accel_plan *p, const double *amp, size_t nbins, long ilo, long iend,
                 xc_accel_emit_fn emit, void *ctx, xc_error *err);

#define LAUNCHED(name) XC_GPU_CK(cudaGetLastError(), "accel " name " (launch)")
#define WAIT(name)                                                                                 \
    do {                                                                                           \
        xc_status st_ = sync(s, "accel " name, err);                                               \
        if (st_)                                                                                   \
            return st_;                                                                            \
    } while (0)
#define TRY(call)                                                                                  \
    do {                                                                                           \
        xc_status st_ = (call);                                                                    \
        if (st_)                                                                                   \
            return st_;                                                                            \
    } while (0)


} // namespace xc_accel_gpu_impl

#endif
