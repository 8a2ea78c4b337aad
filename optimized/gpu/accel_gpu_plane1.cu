/* The accel searcher's plane in one pass (accel_gpu_state.h): one thread
 * block per (template, segment) pair forms the product of the segment's and
 * the template's FFTs as it loads them, inverse-transforms the L points in
 * shared memory (optimized/gpu/accel_gpu_fft_hd.h: L/16 threads of 16 points,
 * radix-16 Stockham passes) and writes |.|^2 of the V valid points into the
 * plane: DRAM carries the plane's write and little else, where the cuFFT path
 * (k_mul, a batched inverse cuFFT, k_power) writes and reads every product
 * twice.  For L = 2^11..2^14 where the device lets a block have the shared
 * memory (L/16 x 17 points: 136 KiB at L = 16384; H100/H200 allow 227 KiB);
 * the cuFFT path otherwise, and where a test asks for it to judge this one.
 *
 * Order: pairs go in tiles of TILE segments, every template over a tile's
 * segments before the next tile, so that the blocks running at once share a
 * few templates and a tile's segments (8 MB) in L2: the templates' FFTs are
 * read from DRAM once per tile, the segments' once.
 *
 * The values are the same convolution as the cuFFT path's within float
 * rounding; their last bits differ (another FFT algorithm). */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "optimized/gpu/accel_gpu_fft_hd.h"
#include "optimized/gpu/accel_gpu_state.h"
#include "optimized/gpu/gpu_check.h"

namespace xc_accel_gpu_impl {

enum { PLANE1_TILE = 64 };
static const long PLANE1_MAXGRID = 1L << 30;

/* Pairs P = p0 + blockIdx.x of the nw templates tl[] x nseg segments, in
 * tiles (above); row tl[ti] of out (ld floats apart) at g V + j, j < V and
 * below nr, gets |IFFT(seg[g] x kern[tl[ti]])[off + j]|^2. */
template <int M>
__global__ void __launch_bounds__(1 << (M - 4))
    k_plane1(const float2 *__restrict__ seg, const float2 *__restrict__ kern, const int *__restrict__ tl, long p0,
             long nseg, long nw, const float2 *__restrict__ tw, int off, long V, size_t nr, size_t ld,
             float *__restrict__ out)
{
    extern __shared__ float2 sm[];
    enum { NP = M / 4 + (M % 4 != 0) };
    const int t = (int)threadIdx.x;
    const long P = p0 + (long)blockIdx.x, tile = P / (nw * PLANE1_TILE), g0 = tile * PLANE1_TILE;
    const long gn = nseg - g0 < PLANE1_TILE ? nseg - g0 : PLANE1_TILE, rem = P - tile * nw * PLANE1_TILE;
    const long g = g0 + rem % gn;
    const int tmpl = tl[rem / gn];
    float2 v[16];
    xc_fft1_load(v, t, M, seg + (size_t)g * ((size_t)1 << M), kern + (size_t)tmpl * ((size_t)1 << M));
#pragma unroll
    for (int p = 0; p < NP; p++) {
        if (p > 0)
            xc_fft1_gather(v, t, M, sm);
        xc_fft1_pass(v, t, M, p, tw, 1);
        if (p < NP - 1) {
            if (p > 0)
                __syncthreads();   /* every thread has read the last pass's points */
            xc_fft1_scatter(v, t, p, sm);
            __syncthreads();
        }
    }
    const size_t gV = (size_t)g * (size_t)V;
    long n = (long)nr - (long)gV;    /* the last segment may pass the block's end */
    n = n < V ? n : V;
    xc_fft1_power(v, t, M, off, n, out + (size_t)tmpl * ld + gV);
}

/* The block's shared memory, and (a hint) no more of the SM's 256 KB than
 * that as shared memory: the rest is L1, which holds the twiddles. */
template <int M> static cudaError_t plane1_attr(int optin)
{
    cudaError_t e = cudaFuncSetAttribute(k_plane1<M>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)xc_fft1_smem(M));
    int pct = (int)((xc_fft1_smem(M) + 2048) * 100 / (size_t)optin) + 1;
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(k_plane1<M>, cudaFuncAttributePreferredSharedMemoryCarveout, pct < 100 ? pct : 100);
    return e;
}

xc_status plane1_init(state *s, xc_error *err)
{
    s->can1 = s->onepass = 0;
    int m = 0;
    while ((1 << m) < s->L)
        m++;
    if (m < XC_FFT1_MINLOG || m > XC_FFT1_MAXLOG)
        return XC_OK;
    int dev = 0, optin = 0;
    XC_GPU_CK(cudaGetDevice(&dev), "accel cudaGetDevice");
    XC_GPU_CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
              "accel cudaDeviceGetAttribute (shared memory per block)");
    if ((size_t)optin < xc_fft1_smem(m))
        return XC_OK;
    cudaError_t e = m == 11   ? plane1_attr<11>(optin)
                    : m == 12 ? plane1_attr<12>(optin)
                    : m == 13 ? plane1_attr<13>(optin)
                              : plane1_attr<14>(optin);
    XC_GPU_CK(e, "accel cudaFuncSetAttribute (k_plane1's shared memory)");
    size_t n = (size_t)xc_fft1_twlen(m), cap = 0;
    xc_f2 *h = (xc_f2 *)malloc(n * sizeof *h);
    if (!h)
        return xc_error_set(err, XC_ENOMEM, "accel gpu: out of memory (twiddles)");
    xc_fft1_twiddles(m, 1, h);
    xc_status st = grow(&s->tw, &cap, n, "the one-pass FFT's twiddles", err);
    if (!st && (e = cudaMemcpy(s->tw, h, n * sizeof *h, cudaMemcpyHostToDevice)) != cudaSuccess)
        st = xc_gpu_fail(err, e, "accel cudaMemcpy (twiddles to the device)");
    free(h);
    if (st)
        return st;
    s->m = m;
    s->can1 = s->onepass = 1;
    return XC_OK;
}

xc_status plane1(state *s, size_t nseg, const int *tl, long nw, size_t nr, float *out, size_t ld, xc_error *err)
{
    const long P = nw * (long)nseg;
    const size_t smem = xc_fft1_smem(s->m);
    const unsigned T = 1u << (s->m - 4);
    for (long p0 = 0; p0 < P; p0 += PLANE1_MAXGRID) {
        unsigned np = (unsigned)(P - p0 < PLANE1_MAXGRID ? P - p0 : PLANE1_MAXGRID);
#define XC_PLANE1_ARGS s->seg, s->kern, tl, p0, (long)nseg, nw, s->tw, 2 * s->hwmax, (long)s->V, nr, ld, out
        switch (s->m) {
        case 11: k_plane1<11><<<np, T, smem, s->stream>>>(XC_PLANE1_ARGS); break;
        case 12: k_plane1<12><<<np, T, smem, s->stream>>>(XC_PLANE1_ARGS); break;
        case 13: k_plane1<13><<<np, T, smem, s->stream>>>(XC_PLANE1_ARGS); break;
        default: k_plane1<14><<<np, T, smem, s->stream>>>(XC_PLANE1_ARGS); break;
        }
#undef XC_PLANE1_ARGS
        LAUNCHED("k_plane1");
    }
    return XC_OK;
}

} // namespace xc_accel_gpu_impl

extern "C" int xc_accel_gpu_onepass(void *st, int on)
{
    xc_accel_gpu_impl::state *s = (xc_accel_gpu_impl::state *)st;
    s->onepass = on && s->can1;
    return s->onepass;
}
