/* The forward FFT of a real series in PRESTO's realfft layout (core/io/
 * xc_fft.h: pair k holds X_k = sum_j x_j exp(-2 pi i j k / N), pair 0 holds
 * DC and Nyquist) made on the device, for a study whose searchers are on
 * the device: the series goes up once (from page-locked memory), the
 * spectrum comes back once for the host's consumers (FDAS's normalisation,
 * the scoring's messages), and its device copy stays for the device
 * searchers of that pulsar (xc_spectrum.dev), so no configuration uploads it
 * again.
 *
 * The transform: Bluestein's chirp z-transform in double through one
 * power-of-2 cuFFT Z2Z plan (optimized/gpu/realfft_gpu_hd.h says how and
 * why: one plan serves every pulsar's own length, where a cuFFT plan per
 * length allocated and freed device memory, each time waiting for the whole
 * device), each value rounded to float once.  Its bits are this code's: the
 * same for a length on every run and at any number of callers (each has its
 * own plan of the same size), so a study's bytes do not depend on its
 * workers; a CPU-only study keeps FFTW's.  Three transforms of L (the power
 * of 2 >= N - 1) per series: the chirp kernel's (it depends on N) and the
 * series' forward and inverse.  Every call is checked; errors name it
 * ("gpu: realfft <what>: ..."). */
#include <cuda_runtime.h>
#include <cufft.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/realfft_gpu_hd.h"
#include "optimized/gpu/xc_gpu.h"

struct xc_gpu_realfft {
    cudaStream_t st;
    int have_st;
    float *dx;          /* the series (device) */
    size_t dxcap;       /* floats */
    float *dy;          /* its packed spectrum (device) */
    size_t dycap;       /* floats */
    double2 *da, *db;   /* the convolution's two sequences, L each */
    size_t dacap, dbcap;
    void *work;         /* cuFFT's work area */
    size_t workcap;
    cufftHandle h;
    int have_plan;
    uint64_t L;         /* the plan's length */
};

namespace {

xc_status fft_fail(xc_error *err, cufftResult r, const char *what)
{
    (void)cudaGetLastError();
    return xc_error_set(err, XC_EDEVICE, "gpu: realfft %s: cufftResult %d", what, (int)r);
}

#define FFT_CK(call, what) XC_GPU_CK_AS(cufftResult, CUFFT_SUCCESS, fft_fail, call, what)

/* Device memory of at least n elements (contents not kept), with a
 * sixteenth more room: the next pulsar's series is a few thousand samples
 * longer or shorter, and a cudaFree waits for the whole device. */
template <typename T> xc_status grow(T **p, size_t *cap, size_t n, const char *what, xc_error *err)
{
    if (*p && *cap >= n)
        return XC_OK;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    size_t want = n + n / 16;
    cudaError_t e = cudaMalloc((void **)p, want * sizeof(T));
    if (e != cudaSuccess) {
        *p = NULL;
        return xc_gpu_fail(err, e, what);
    }
    *cap = want;
    return XC_OK;
}

unsigned grid_for(uint64_t n)
{
    uint64_t b = (n + 255) / 256;
    return (unsigned)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

/* a_j = z_j w_j and b_j, the chirp kernel (realfft_gpu_hd.h). */
__global__ void k_chirp(const float *__restrict__ x, uint64_t M, uint64_t L, double2 *__restrict__ a,
                        double2 *__restrict__ b)
{
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < L; j += (uint64_t)gridDim.x * blockDim.x) {
        xc_rf_c v = xc_rf_pre(x, j, M), w = xc_rf_kernel(j, M, L);
        a[j] = make_double2(v.re, v.im);
        b[j] = make_double2(w.re, w.im);
    }
}

__global__ void k_product(double2 *__restrict__ a, const double2 *__restrict__ b, uint64_t L)
{
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < L; j += (uint64_t)gridDim.x * blockDim.x) {
        double2 p = a[j], q = b[j];
        xc_rf_c r = xc_rf_mul(xc_rf_c{p.x, p.y}, xc_rf_c{q.x, q.y});
        a[j] = make_double2(r.re, r.im);
    }
}

__global__ void k_split(const double2 *__restrict__ c, uint64_t M, uint64_t L, float *__restrict__ out)
{
    for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < M; k += (uint64_t)gridDim.x * blockDim.x)
        xc_rf_post((const xc_rf_c *)c, k, M, L, out);
}

/* The Z2Z plan of L points on the caller's stream, its work area ours. */
xc_status plan(xc_gpu_realfft *f, uint64_t L, xc_error *err)
{
    if (f->have_plan && f->L == L)
        return XC_OK;
    if (f->have_plan) {
        cufftDestroy(f->h);
        f->have_plan = 0;
    }
    FFT_CK(cufftCreate(&f->h), "cufftCreate");
    f->have_plan = 1;
    int ni = (int)L;
    size_t ws = 0;
    FFT_CK(cufftSetAutoAllocation(f->h, 0), "cufftSetAutoAllocation");
    FFT_CK(cufftMakePlanMany(f->h, 1, &ni, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, 1, &ws), "cufftMakePlanMany (Z2Z)");
    FFT_CK(cufftSetStream(f->h, f->st), "cufftSetStream");
    unsigned char *w = (unsigned char *)f->work;
    xc_status s = grow(&w, &f->workcap, ws > 256 ? ws : 256, "realfft cudaMalloc (cuFFT work area)", err);
    f->work = w;
    if (s)
        return s;
    FFT_CK(cufftSetWorkArea(f->h, f->work), "cufftSetWorkArea");
    f->L = L;
    return XC_OK;
}

} // namespace

extern "C" xc_status xc_gpu_realfft_new(xc_gpu_realfft **f, xc_error *err)
{
    *f = NULL;
    char why[512];   /* a device name (256) and the sentence around it */
    if (!xc_gpu_available(why, sizeof why))
        return xc_error_set(err, XC_EDEVICE, "gpu: unavailable: %s", why);
    XC_GPU_CK_PRIOR("realfft");
    xc_gpu_realfft *q = (xc_gpu_realfft *)calloc(1, sizeof *q);
    if (!q)
        return xc_error_set(err, XC_ENOMEM, "gpu realfft: out of memory");
    /* at the device's highest priority: the worker waits for its pulsar's
     * transform, whose short kernels would otherwise queue behind the
     * blocks of the long kernels other workers' searches run beside it
     * (FDAS's one-pass plane); the same kernels, the same values */
    int least = 0, greatest = 0;
    cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithPriority(&q->st, cudaStreamNonBlocking, greatest);
    if (e != cudaSuccess) {
        free(q);
        return xc_gpu_fail(err, e, "realfft cudaStreamCreateWithPriority");
    }
    q->have_st = 1;
    *f = q;
    return XC_OK;
}

extern "C" xc_status xc_gpu_realfft_run(xc_gpu_realfft *f, const float *x, size_t n, float *out, const float **dev,
                                        xc_error *err)
{
    if (dev)
        *dev = NULL;
    if (!f || !x || !out)
        return xc_error_set(err, XC_EINVAL, "gpu realfft: no transform, series or output");
    if (n < 2 || n % 2 || n > (size_t)INT_MAX)
        return xc_error_set(err, XC_EINVAL, "gpu realfft: n = %zu: must be even, 2..%d", n, INT_MAX);
    XC_GPU_CK_PRIOR("realfft");
    const uint64_t M = n / 2, L = xc_rf_len(M);
    if (L > (uint64_t)INT_MAX)
        return xc_error_set(err, XC_EINVAL, "gpu realfft: n = %zu: too long", n);
    xc_status s;
    if ((s = grow(&f->dx, &f->dxcap, n, "realfft cudaMalloc (series)", err)) ||
        (s = grow(&f->dy, &f->dycap, n, "realfft cudaMalloc (spectrum)", err)) ||
        (s = grow(&f->da, &f->dacap, (size_t)L, "realfft cudaMalloc (convolution)", err)) ||
        (s = grow(&f->db, &f->dbcap, (size_t)L, "realfft cudaMalloc (chirp kernel)", err)) || (s = plan(f, L, err)))
        return s;
    XC_GPU_CK(cudaMemcpyAsync(f->dx, x, n * sizeof(float), cudaMemcpyHostToDevice, f->st),
              "realfft cudaMemcpyAsync (series to the device)");
    k_chirp<<<grid_for(L), 256, 0, f->st>>>(f->dx, M, L, f->da, f->db);
    XC_GPU_CK(cudaGetLastError(), "realfft k_chirp (launch)");
    cufftDoubleComplex *a = (cufftDoubleComplex *)f->da, *b = (cufftDoubleComplex *)f->db;
    FFT_CK(cufftExecZ2Z(f->h, b, b, CUFFT_FORWARD), "cufftExecZ2Z (chirp kernel)");
    FFT_CK(cufftExecZ2Z(f->h, a, a, CUFFT_FORWARD), "cufftExecZ2Z (series)");
    k_product<<<grid_for(L), 256, 0, f->st>>>(f->da, f->db, L);
    XC_GPU_CK(cudaGetLastError(), "realfft k_product (launch)");
    FFT_CK(cufftExecZ2Z(f->h, a, a, CUFFT_INVERSE), "cufftExecZ2Z (inverse)");
    k_split<<<grid_for(M), 256, 0, f->st>>>(f->da, M, L, f->dy);
    XC_GPU_CK(cudaGetLastError(), "realfft k_split (launch)");
    XC_GPU_CK(cudaMemcpyAsync(out, f->dy, n * sizeof(float), cudaMemcpyDeviceToHost, f->st),
              "realfft cudaMemcpyAsync (spectrum to the host)");
    XC_GPU_CK(cudaStreamSynchronize(f->st), "realfft (chirp z-transform, spectrum to the host)");
    if (dev)
        *dev = f->dy;
    return XC_OK;
}

extern "C" void xc_gpu_realfft_free(xc_gpu_realfft *f)
{
    if (!f)
        return;
    if (f->have_st)
        cudaStreamSynchronize(f->st);
    if (f->have_plan)
        cufftDestroy(f->h);
    cudaFree(f->dx);
    cudaFree(f->dy);
    cudaFree(f->da);
    cudaFree(f->db);
    cudaFree(f->work);
    if (f->have_st)
        cudaStreamDestroy(f->st);
    (void)cudaGetLastError();
    free(f);
}
