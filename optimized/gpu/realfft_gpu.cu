/* The forward FFT of a real series in PRESTO's realfft layout (core/io/
 * xc_fft.h: pair k holds X_k = sum_j x_j exp(-2 pi i j k / N), pair 0 holds
 * DC and Nyquist) made on the device by cuFFT's R2C transform, for a study
 * whose searchers are on the device: the series goes up once (from
 * page-locked memory), the spectrum comes back once for the host's
 * consumers (FDAS's normalisation, the scoring's messages), and its device
 * copy stays for the device searchers of that pulsar (xc_spectrum.dev), so
 * no configuration uploads it again.
 *
 * The bits are cuFFT's, not FFTW's: the same for a length on every run and
 * at any number of callers (each has its own plan of the same length and
 * options), so a study's bytes do not depend on its workers; a CPU-only
 * study keeps FFTW's.  A length meets its plan once; a study's pulsars
 * each have their own length (the series is nsamp less the DM's sweep), so
 * a caller re-plans per pulsar, as FFTW did.  The plan's work area is the
 * caller's (auto-allocation off), grown when a length needs more.
 * Every call is checked; errors name it ("gpu: realfft <what>: ..."). */
#include <cuda_runtime.h>
#include <cufft.h>
#include <limits.h>
#include <stdlib.h>

#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/xc_gpu.h"

struct xc_gpu_realfft {
    cudaStream_t st;
    int have_st;
    float *dx;          /* the series (device) */
    size_t dxcap;       /* floats */
    float2 *dy;         /* its spectrum, n/2 + 1 pairs */
    size_t dycap;       /* pairs */
    void *work;         /* cuFFT's work area */
    size_t workcap;
    cufftHandle h;
    int have_plan;
    size_t n;           /* the plan's length */
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

/* Pair 0 as PRESTO packs it: (X_0, X_{N/2}), both real. */
__global__ void k_pack(float2 *y, size_t half)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        y[0].y = y[half].x;
}

xc_status plan(xc_gpu_realfft *f, size_t n, xc_error *err)
{
    if (f->have_plan && f->n == n)
        return XC_OK;
    if (f->have_plan) {
        cufftDestroy(f->h);
        f->have_plan = 0;
    }
    FFT_CK(cufftCreate(&f->h), "cufftCreate");
    f->have_plan = 1;
    int ni = (int)n;
    size_t ws = 0;
    FFT_CK(cufftSetAutoAllocation(f->h, 0), "cufftSetAutoAllocation");
    FFT_CK(cufftMakePlanMany(f->h, 1, &ni, NULL, 1, 0, NULL, 1, 0, CUFFT_R2C, 1, &ws), "cufftMakePlanMany (R2C)");
    FFT_CK(cufftSetStream(f->h, f->st), "cufftSetStream");
    unsigned char *w = (unsigned char *)f->work;
    xc_status s = grow(&w, &f->workcap, ws > 256 ? ws : 256, "realfft cudaMalloc (cuFFT work area)", err);
    f->work = w;
    if (s)
        return s;
    FFT_CK(cufftSetWorkArea(f->h, f->work), "cufftSetWorkArea");
    f->n = n;
    return XC_OK;
}

} // namespace

extern "C" xc_status xc_gpu_realfft_new(xc_gpu_realfft **f, xc_error *err)
{
    *f = NULL;
    char why[256];
    if (!xc_gpu_available(why, sizeof why))
        return xc_error_set(err, XC_EDEVICE, "gpu: unavailable: %s", why);
    XC_GPU_CK_PRIOR("realfft");
    xc_gpu_realfft *q = (xc_gpu_realfft *)calloc(1, sizeof *q);
    if (!q)
        return xc_error_set(err, XC_ENOMEM, "gpu realfft: out of memory");
    /* the highest priority, as GPU Pulscan's: its caller waits for it
     * beside other callers' long kernels */
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
    xc_status s;
    if ((s = grow(&f->dx, &f->dxcap, n, "realfft cudaMalloc (series)", err)) ||
        (s = grow(&f->dy, &f->dycap, n / 2 + 1, "realfft cudaMalloc (spectrum)", err)) || (s = plan(f, n, err)))
        return s;
    XC_GPU_CK(cudaMemcpyAsync(f->dx, x, n * sizeof(float), cudaMemcpyHostToDevice, f->st),
              "realfft cudaMemcpyAsync (series to the device)");
    FFT_CK(cufftExecR2C(f->h, (cufftReal *)f->dx, (cufftComplex *)f->dy), "cufftExecR2C");
    k_pack<<<1, 32, 0, f->st>>>(f->dy, n / 2);
    XC_GPU_CK(cudaGetLastError(), "realfft k_pack (launch)");
    XC_GPU_CK(cudaMemcpyAsync(out, f->dy, n * sizeof(float), cudaMemcpyDeviceToHost, f->st),
              "realfft cudaMemcpyAsync (spectrum to the host)");
    XC_GPU_CK(cudaStreamSynchronize(f->st), "realfft (R2C, pack, spectrum to the host)");
    if (dev)
        *dev = (const float *)f->dy;
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
    cudaFree(f->work);
    if (f->have_st)
        cudaStreamDestroy(f->st);
    (void)cudaGetLastError();
    free(f);
}
