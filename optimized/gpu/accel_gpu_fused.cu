/* The CUDA accel searcher's inverse FFTs fused with the template product
 * and the power (accel_gpu_cb.h): the plane of a block made by cuFFT's
 * inverse transforms alone, their load callback forming each row's product
 * of a segment and a template's transform, their store callback writing
 * |.|^2 of the valid points into the plane.  The separate kernels'
 * (accel_gpu.cu plane_dev) moved the products and the complex result
 * through device memory twice more: at the Pulscan paper's zmax 1200, 6.6 G
 * points of 8 bytes each way per pulsar. */
#include <cuda_runtime.h>
#include <cufft.h>

#include "optimized/gpu/accel_gpu_state.h"
#include "optimized/gpu/gpu_check.h"

namespace xc_accel_gpu_impl {

/* The fused inverse's rows b < nb of a chunk of nt templates (tl[ta..])
 * x ng segments (ga..), segment-major: b < nt ng is segment ga + b / nt,
 * template tl[ta + b % nt], so that consecutive rows share a segment and
 * the chunk's few templates stay in L2; padding rows t = -1. */
__global__ void k_pairs(const int *__restrict__ tl, long ta, long nt, long ga, long ng, long nb,
                        xc_accel_cb_pair *__restrict__ pair)
{
    for (long b = blockIdx.x * (long)blockDim.x + threadIdx.x; b < nb; b += (long)gridDim.x * blockDim.x) {
        xc_accel_cb_pair v = {0, -1};
        if (b < nt * ng)
            v = xc_accel_cb_pair{(int)(ga + b / nt), tl[ta + b % nt]};
        pair[b] = v;
    }
}

__global__ void k_setinfo(xc_accel_cb_info *info, xc_accel_cb_info v)
{
    *info = v;
}

/* The plane's inverse FFTs with the product and the power in cuFFT's
 * callbacks, in chunks of at most `chunk` pairs: nt templates x every
 * segment (or one template x ng segments when the segments alone pass the
 * chunk).  Each row is the same transform of the same data as the separate
 * kernels' (a batched FFT's rows are independent); the batch is rounded up
 * to a power of 2 as fft() does, the padding rows storing nothing.  *done =
 * 0 when the state cannot fuse (the separate kernels then make the whole
 * plane). */
xc_status plane_fused(state *s, const int *tl, long nw, long nseg, long chunk, float *out, size_t ld, size_t nr,
                      int *done, xc_error *err)
{
    *done = 0;
    TRY(grow(&s->pair, &s->paircap, (size_t)s->prodcap, "the fused chunk's rows", err));
    xc_accel_cb_info ci = {s->seg, s->kern, s->pair, out, (unsigned long long)ld, (unsigned long long)nr, 0,
                           2 * s->hwmax, s->V};
    while ((1 << ci.lshift) < s->L)
        ci.lshift++;
    k_setinfo<<<1, 1, 0, s->stream>>>(s->cbinfo, ci);
    LAUNCHED("k_setinfo");
    const long tc = nseg <= chunk ? chunk / nseg : 1, gc = nseg <= chunk ? nseg : chunk;
    for (long ta = 0; ta < nw; ta += tc)
        for (long ga = 0; ga < nseg; ga += gc) {
            const long nt = nw - ta < tc ? nw - ta : tc, ng = nseg - ga < gc ? nseg - ga : gc, np = nt * ng;
            long nb = 1;
            while (nb < np)
                nb *= 2;
            if (nb > s->prodcap)
                nb = np;
            cufftHandle h;
            TRY(plan_for(s, nb, 1, &h, err));
            if (s->nofuse)
                return XC_OK;
            k_pairs<<<grid_for((size_t)nb), 256, 0, s->stream>>>(tl, ta, nt, ga, ng, nb, s->pair);
            LAUNCHED("k_pairs");
            FFT_CK(cufftExecC2C(h, (cufftComplex *)s->prod, (cufftComplex *)s->prod, CUFFT_INVERSE),
                   "cufftExecC2C (inverse, fused products and powers)");
        }
    *done = 1;
    return XC_OK;
}

} // namespace xc_accel_gpu_impl
