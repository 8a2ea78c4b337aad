/* The CUDA accel/jerk searcher's plane stage (core/search/xc_accel.h): the CPU
 * searcher's overlap-save correlation (optimized/cpu/accel_cpu.c) with cuFFT,
 * the data, the templates' transforms and the plane on the device.
 *
 * Per search (create): the exact double templates (core) are rounded to float
 * on the host, placed with wrap-around in rows of L points, transformed on the
 * device by batched forward FFTs, conjugated and scaled by 1/L (the inverse
 * FFT's normalisation), and kept there, ntempl x L.  L and the valid part of a
 * segment V = L - 4 hwmax are the CPU searcher's, so both cut the block into
 * the same segments.
 *
 * Per block (plane): the normalised amplitudes go up once (float), a kernel
 * spreads them onto the half-bin grid of nseg overlapping segments (bin k at
 * position 2k, zeros between), one batched forward FFT transforms every
 * segment, and the (template, segment) pairs the block needs (every template,
 * or the rows of `want`) become the plane's rows: where the segment length
 * allows (2^11..2^14 points, the device's shared memory permitting), in one
 * pass (accel_gpu_plane1.cu: product, inverse FFT and |.|^2 of the V valid
 * points in one kernel, an FFT of our own); otherwise, or where a test asks
 * (xc_accel_gpu_onepass), through batched products with the template FFTs,
 * batched inverse cuFFTs and |.|^2, in chunks of at most bmax pairs (the
 * product buffer's memory cap).  The plane stays on the device until its
 * needed rows are copied back (runs of consecutive templates, one copy
 * each).
 *
 * cuFFT plans are cached by batch size (a search meets a few: the segments,
 * the full chunk, a tail per block shape, the templates' chunks) and share one
 * work area (auto-allocation off), so that a block shape met again costs no
 * plan.  Every call is checked; errors go into xc_error naming the call or
 * kernel ("gpu: accel <what>: <reason>"), XC_EDEVICE.  Nothing is printed. */
#include <cuda_runtime.h>
#include <cufft.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/xc_accel.h"
#include "core/search/accel/xc_accel_resp_hd.h"
#include "optimized/gpu/accel_gpu.h"
#include "optimized/gpu/accel_gpu_state.h"
#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/xc_gpu.h"

namespace xc_accel_gpu_impl {

/* cufftResult codes as cufft.h numbers them (by value: CUDA 12/13 headers
 * differ in which names they keep); the CUFFT_* name in each message. */
const char *cufft_reason(cufftResult r)
{
    switch ((int)r) {
    case 1: return "invalid plan";
    case 2: return "allocation failed (device out of memory)";
    case 3: return "invalid type";
    case 4: return "invalid value";
    case 5: return "internal error";
    case 6: return "execution failed";
    case 7: return "setup failed";
    case 8: return "invalid size";
    case 9: return "unaligned data";
    case 11: return "invalid device";
    case 13: return "no work area";
    case 14: return "CUFFT_NOT_IMPLEMENTED (the library lacks this transform)";
    case 16: return "CUFFT_NOT_SUPPORTED (this transform is unsupported on the device)";
    default: return "cuFFT error";
    }
}

xc_status fft_fail(xc_error *err, cufftResult r, const char *what)
{
    (void)cudaGetLastError();
    return xc_error_set(err, XC_EDEVICE, "gpu: accel %s: %s (cufftResult %d)", what, cufft_reason(r), (int)r);
}

#define FFT_CK(call, what) XC_GPU_CK_AS(cufftResult, CUFFT_SUCCESS, fft_fail, call, what)

xc_status sync(state *s, const char *what, xc_error *err)
{
    XC_GPU_CK(cudaStreamSynchronize(s->stream), what);
    return XC_OK;
}

/* A C2C plan of `batch` transforms of L points (contiguous rows) on the
 * state's stream, from the cache or made (evicting one round robin). */
xc_status plan_for(state *s, long batch, cufftHandle *out, xc_error *err)
{
    for (int k = 0; k < NPLANS; k++)
        if (s->plan[k].batch == batch) {
            *out = s->plan[k].h;
            return XC_OK;
        }
    if (batch < 1 || batch > INT_MAX / s->L)
        return xc_error_set(err, XC_EDEVICE, "gpu: accel cuFFT plan: batch %ld of %d points too large", batch, s->L);
    int k = -1;
    for (int j = 0; j < NPLANS && k < 0; j++)
        if (!s->plan[j].batch)
            k = j;
    if (k < 0) {
        k = s->evict;
        s->evict = (s->evict + 1) % NPLANS;
        XC_GPU_CK(cudaStreamSynchronize(s->stream), "accel cudaStreamSynchronize (before a plan's eviction)");
        cufftDestroy(s->plan[k].h);
        s->plan[k].batch = 0;
    }
    cufftHandle h;
    FFT_CK(cufftCreate(&h), "cufftCreate");
    int n = s->L;
    size_t ws = 0;
    cufftResult r = cufftSetAutoAllocation(h, 0);
    if (r == CUFFT_SUCCESS)
        r = cufftMakePlanMany(h, 1, &n, NULL, 1, s->L, NULL, 1, s->L, CUFFT_C2C, (int)batch, &ws);
    if (r == CUFFT_SUCCESS)
        r = cufftSetStream(h, s->stream);
    if (r != CUFFT_SUCCESS) {
        cufftDestroy(h);
        return fft_fail(err, r, "cufftMakePlanMany");
    }
    if (ws > s->workcap || !s->work) {
        /* every cached plan points at the work area: replace it for all */
        cudaError_t e = cudaStreamSynchronize(s->stream);
        if (e != cudaSuccess) {
            cufftDestroy(h);
            return xc_gpu_fail(err, e, "accel cudaStreamSynchronize (before the work area grows)");
        }
        size_t want = ws > 256 ? ws : 256;
        xc_status st = grow(&s->work, &s->workcap, want, "the cuFFT work area", err);
        if (st) {
            /* the old area is gone: no cached plan may run on it */
            cufftDestroy(h);
            for (int j = 0; j < NPLANS; j++)
                if (s->plan[j].batch) {
                    cufftDestroy(s->plan[j].h);
                    s->plan[j].batch = 0;
                }
            return st;
        }
        for (int j = 0; j < NPLANS; j++)
            if (s->plan[j].batch)
                FFT_CK(cufftSetWorkArea(s->plan[j].h, s->work), "cufftSetWorkArea");
    }
    r = cufftSetWorkArea(h, s->work);
    if (r != CUFFT_SUCCESS) {
        cufftDestroy(h);
        return fft_fail(err, r, "cufftSetWorkArea");
    }
    s->plan[k].h = h;
    s->plan[k].batch = batch;
    s->plan[k].work = ws;
    *out = h;
    return XC_OK;
}

/* Batched in-place FFT of `batch` rows at x.  Where the buffer holds cap >=
 * the next power of 2 rows, that many are transformed (the rows beyond
 * batch are scratch nobody reads): a search then meets a few plan sizes
 * (powers of 2) instead of one per block shape, and no plan is made twice. */
xc_status fft(state *s, float2 *x, long batch, long cap, int dir, const char *what, xc_error *err)
{
    long b2 = 1;
    while (b2 < batch)
        b2 *= 2;
    if (b2 <= cap)
        batch = b2;
    cufftHandle h;
    xc_status st = plan_for(s, batch, &h, err);
    if (st)
        return st;
    FFT_CK(cufftExecC2C(h, (cufftComplex *)x, (cufftComplex *)x, dir), what);
    return XC_OK;
}

unsigned grid_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b < 1 ? 1 : b > (1u << 20) ? (1u << 20) : b);
}

/* ---- kernels ---------------------------------------------------------------- */

__global__ void k_conjscale(const float2 *in, float2 *out, size_t n, float scale)   /* in may be out */
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float2 v = in[i];
        out[i] = make_float2(v.x * scale, -v.y * scale);
    }
}

/* Templates of w = 0 made on the device: row t (z = z0 + dz t, half-width
 * hw[t]) gets R(j/2; z) rounded to float at j >= 0 -> j, j < 0 -> L + j
 * for |j| <= 2 hw, zeros elsewhere: core's xc_accel_template_rows layout,
 * from the same source (core/search/accel/xc_accel_resp_hd.h). */
__global__ void k_templates_z(const int *__restrict__ hw, int ntempl, int z0, int dz, int L, float2 *__restrict__ out)
{
    size_t tot = (size_t)ntempl * (size_t)L;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < tot; i += (size_t)gridDim.x * blockDim.x) {
        int t = (int)(i / (size_t)L), q = (int)(i % (size_t)L), h2 = 2 * hw[t];
        int j = q <= h2 ? q : q >= L - h2 ? q - L : INT_MIN;
        float2 v = make_float2(0.f, 0.f);
        if (j != INT_MIN) {
            double R[2];
            xc_accel_resp_z_hd(0.5 * j, (double)(z0 + dz * t), R);
            v = make_float2((float)R[0], (float)R[1]);
        }
        out[i] = v;
    }
}

/* Segment g's point q holds half-bin position h = i0 + g V - 2 hwmax + q:
 * amp[h/2 - lo] for even h inside the block's data, else 0. */
__global__ void k_spread(const float2 *__restrict__ amp, long lo, long n, long i0, long V, int hwmax, int L,
                         size_t nseg, float2 *__restrict__ seg)
{
    size_t tot = nseg * (size_t)L;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < tot; i += (size_t)gridDim.x * blockDim.x) {
        long g = (long)(i / (size_t)L), q = (long)(i % (size_t)L);
        long h = i0 + g * V - 2L * hwmax + q;
        float2 v = make_float2(0.f, 0.f);
        if (h >= 0 && h % 2 == 0) {
            long k = h / 2 - lo;
            if (k >= 0 && k < n)
                v = amp[k];
        }
        seg[i] = v;
    }
}

/* Pairs P = p0 + p, p < np, template tl[P / nseg], segment P % nseg:
 * prod[p] = seg[g] x kern[t] pointwise (the CPU's real arithmetic).  One
 * block per pair, its L points in a loop: the pair's template and segment
 * are found once per block, not by 64-bit divisions per point (which made
 * this streaming kernel take twice its memory time). */
__global__ void k_mul(const float2 *__restrict__ seg, const float2 *__restrict__ kern, const int *__restrict__ tl,
                      long p0, long nseg, int L, float2 *__restrict__ prod)
{
    const long P = p0 + (long)blockIdx.x;
    const float2 *d = seg + (size_t)(P % nseg) * (size_t)L, *k = kern + (size_t)tl[P / nseg] * (size_t)L;
    float2 *o = prod + (size_t)blockIdx.x * (size_t)L;
    for (int q = threadIdx.x; q < L; q += blockDim.x) {
        float2 a = d[q], b = k[q];
        o[q] = make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    }
}

/* |.|^2 of the V valid points of each pair (from 2 hwmax on) into the
 * plane's row t (rows ld floats apart) at g V + j (below nr).  One block
 * per pair, as k_mul. */
__global__ void k_power(const float2 *__restrict__ prod, const int *__restrict__ tl, long p0, long nseg, int L,
                        int off, long V, size_t nr, size_t ld, float *__restrict__ out)
{
    const long P = p0 + (long)blockIdx.x;
    const size_t g0 = (size_t)(P % nseg) * (size_t)V;
    const float2 *in = prod + (size_t)blockIdx.x * (size_t)L + (size_t)off;
    float *row = out + (size_t)tl[P / nseg] * ld + g0;
    long n = (long)nr - (long)g0;    /* the last segment may pass the block's end */
    n = n < V ? n : V;
    for (long j = threadIdx.x; j < n; j += blockDim.x) {
        float2 o = in[j];
        row[j] = o.x * o.x + o.y * o.y;
    }
}

void destroy_state(state *s)
{
    if (!s)
        return;
    if (s->have_stream)
        cudaStreamSynchronize(s->stream);
    for (int k = 0; k < NPLANS; k++)
        if (s->plan[k].batch)
            cufftDestroy(s->plan[k].h);
    cudaFree(s->kern);
    cudaFree(s->prod);
    cudaFree(s->seg);
    cudaFree(s->amp);
    cudaFree(s->out);
    cudaFree(s->tl);
    cudaFree(s->work);
    cudaFree(s->tw);
    cudaFree(s->spec);
    cudaFree(s->sum);
    cudaFree(s->sub);
    cudaFree(s->tsub);
    cudaFree(s->subtl);
    cudaFree(s->hits);
    cudaFree(s->nhit);
    cudaFreeHost(s->hhits);
    cudaFreeHost(s->hamp);
    cudaFreeHost(s->htl);
    if (s->have_stream)
        cudaStreamDestroy(s->stream);
    (void)cudaGetLastError();
    free(s);
}

/* Without jerk every template is R(d; z, 0): made on the device in double
 * (the host's Fresnel code, compiled for it), in place in kern, then FFT'd,
 * conjugated and scaled there in chunks of the product buffer's plan size.
 * CUDA's double sin, cos, exp and hypot are within 2 ulp of glibc's, so a
 * template may differ from the host's in the last bit of a float. */
xc_status make_kernels_z(state *s, const xc_accel_plan *p, xc_error *err)
{
    size_t L = (size_t)s->L;
    int *hw = NULL;
    XC_GPU_CK(cudaMalloc((void **)&hw, (size_t)p->ntempl * sizeof *hw), "accel cudaMalloc (template half-widths)");
    cudaError_t e = cudaMemcpy(hw, p->hw, (size_t)p->ntempl * sizeof *hw, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        k_templates_z<<<grid_for((size_t)p->ntempl * L), 256, 0, s->stream>>>(hw, p->ntempl, -p->zmax, XC_ACCEL_DZ,
                                                                              s->L, s->kern);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s->stream);
    cudaFree(hw);
    if (e != cudaSuccess)
        return xc_gpu_fail(err, e, "accel k_templates_z (templates on the device)");
    long cb = s->bmax < s->ntempl ? s->bmax : s->ntempl;
    for (long t0 = 0; t0 < s->ntempl; t0 += cb) {
        long cnt = s->ntempl - t0 < cb ? s->ntempl - t0 : cb;
        float2 *k = s->kern + (size_t)t0 * L;
        TRY(fft(s, k, cnt, cnt, CUFFT_FORWARD, "cufftExecC2C (templates)", err));
        k_conjscale<<<grid_for((size_t)cnt * L), 256, 0, s->stream>>>(k, k, (size_t)cnt * L, 1.0f / (float)s->L);
        LAUNCHED("k_conjscale");
    }
    WAIT("k_conjscale (templates' FFTs)");
    return XC_OK;
}

/* The templates' FFTs, in chunks of at most 64 MB of pinned staging. */
xc_status make_kernels(state *s, const xc_accel_plan *p, xc_error *err)
{
    size_t L = (size_t)s->L, nk = (size_t)s->ntempl * L;
    if ((size_t)s->ntempl > SIZE_MAX / L / sizeof(float2))
        return xc_error_set(err, XC_EDEVICE, "gpu: accel: %d templates of %d points overflow a size", s->ntempl, s->L);
    size_t kcap = 0;
    TRY(grow(&s->kern, &kcap, nk, "the templates' FFTs", err));
    if (p->wmax == 0)
        return make_kernels_z(s, p, err);
    long cb = (long)((64u << 20) / (L * sizeof(float2)));
    cb = cb < 1 ? 1 : cb > s->bmax ? s->bmax : cb;
    cb = cb > s->ntempl ? s->ntempl : cb;
    size_t pc = (size_t)s->prodcap;
    TRY(grow(&s->prod, &pc, (size_t)cb * L, "the products", err));
    s->prodcap = (long)(pc / L);
    float *h = NULL;
    size_t hc = 0;
    xc_status st = grow_host(&h, &hc, (size_t)cb * 2 * L, "the templates' staging", err);
    for (int t0 = 0; !st && t0 < s->ntempl; t0 += (int)cb) {
        int cnt = s->ntempl - t0 < cb ? s->ntempl - t0 : (int)cb;
        st = xc_accel_gpu_fill(p, t0, cnt, s->L, h, err);
        cudaError_t e = cudaSuccess;
        if (!st && (e = cudaMemcpyAsync(s->prod, h, (size_t)cnt * L * sizeof(float2), cudaMemcpyHostToDevice,
                                        s->stream)) != cudaSuccess)
            st = xc_gpu_fail(err, e, "accel cudaMemcpyAsync (templates to the device)");
        if (!st)
            st = fft(s, s->prod, cnt, cnt, CUFFT_FORWARD, "cufftExecC2C (templates)", err);
        if (!st) {
            k_conjscale<<<grid_for((size_t)cnt * L), 256, 0, s->stream>>>(s->prod, s->kern + (size_t)t0 * L,
                                                                         (size_t)cnt * L, 1.0f / (float)s->L);
            if ((e = cudaGetLastError()) != cudaSuccess)
                st = xc_gpu_fail(err, e, "accel k_conjscale (launch)");
        }
        /* the staging buffer is refilled next: wait for its copy */
        if (!st)
            st = sync(s, "accel k_conjscale (templates' FFTs)", err);
    }
    cudaFreeHost(h);
    return st;
}

xc_status create(const xc_accel_plan *p, state *s, xc_error *err)
{
    XC_GPU_CK_PRIOR("accel gpu create");
    s->hwmax = p->hwmax;
    s->ntempl = p->ntempl;
    /* the CPU searcher's segment: a power of 2, at most a quarter lost to
     * the kernel's wings */
    s->L = 2048;
    while (s->L < 16 * p->hwmax) {
        if (s->L > (1 << 28))
            return xc_error_set(err, XC_EINVAL, "accel gpu: template half-width %d too large", p->hwmax);
        s->L *= 2;
    }
    s->V = s->L - 4 * p->hwmax;
    XC_GPU_CK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), "accel cudaStreamCreateWithFlags");
    s->have_stream = 1;
    size_t freeb = 0, totb = 0;
    XC_GPU_CK(cudaMemGetInfo(&freeb, &totb), "accel cudaMemGetInfo");
    double kbytes = (double)p->ntempl * s->L * sizeof(float2);
    if (kbytes > (double)freeb)
        return xc_error_set(err, XC_EDEVICE,
                            "gpu: accel: the templates' FFTs need %.3g GB (%d templates of %d points), the device has "
                            "%.3g GB free",
                            kbytes / 1e9, p->ntempl, s->L, freeb / 1e9);
    /* products: at most 1 GiB or a quarter of what the templates leave */
    double budget = ((double)freeb - kbytes) / 4;
    if (budget > (double)(1u << 30))
        budget = (double)(1u << 30);
    long bmax = (long)(budget / ((double)s->L * sizeof(float2)));
    if (bmax > INT_MAX / s->L)
        bmax = INT_MAX / s->L;
    s->bmax = bmax < 1 ? 1 : bmax;
    TRY(plane1_init(s, err));
    return make_kernels(s, p, err);
}

xc_status plane_dev(state *s, const float2 *amp, long lo, long n, long i0, size_t nr, const int *tl, long nw,
                    float *out, size_t ld, xc_error *err)
{
    size_t L = (size_t)s->L, V = (size_t)s->V;
    size_t nseg = (nr + V - 1) / V;
    if (nseg > (size_t)INT_MAX / L)
        return xc_error_set(err, XC_EDEVICE, "gpu: accel: a block of %zu half-bins is too large", nr);
    TRY(grow(&s->seg, &s->segcap, nseg * L, "the block's segments", err));
    long P = nw * (long)nseg, chunk = P < s->bmax ? P : s->bmax;
    if (!s->onepass && chunk > s->prodcap) {
        size_t pc = (size_t)s->prodcap * L;
        TRY(grow(&s->prod, &pc, (size_t)chunk * L, "the products", err));
        s->prodcap = chunk;
    }
    k_spread<<<grid_for(nseg * L), 256, 0, s->stream>>>(amp, lo, n, i0, (long)V, s->hwmax, s->L, nseg, s->seg);
    LAUNCHED("k_spread");
    TRY(fft(s, s->seg, (long)nseg, (long)(s->segcap / L), CUFFT_FORWARD, "cufftExecC2C (segments)", err));
    if (s->onepass) {
        TRY(plane1(s, nseg, tl, nw, nr, out, ld, err));
        WAIT("plane (spread, segments' FFT, one-pass plane)");
        return XC_OK;
    }
    for (long p0 = 0; p0 < P; p0 += chunk) {
        long np = P - p0 < chunk ? P - p0 : chunk;
        k_mul<<<(unsigned)np, 256, 0, s->stream>>>(s->seg, s->kern, tl, p0, (long)nseg, s->L, s->prod);
        LAUNCHED("k_mul");
        TRY(fft(s, s->prod, np, s->prodcap, CUFFT_INVERSE, "cufftExecC2C (inverse, products)", err));
        k_power<<<(unsigned)np, 256, 0, s->stream>>>(s->prod, tl, p0, (long)nseg, s->L, 2 * s->hwmax, (long)V, nr,
                                                     ld, out);
        LAUNCHED("k_power");
    }
    WAIT("plane (spread, FFTs, products, powers)");
    return XC_OK;
}

xc_status plane(state *s, const xc_accel_block *b, xc_error *err)
{
    XC_GPU_CK_PRIOR("accel gpu plane");
    if (!b->nr)
        return XC_OK;
    if (!b->amp || !b->out || b->n < 1)
        return xc_error_set(err, XC_EINVAL, "accel gpu: a block without data or output");
    if ((size_t)s->ntempl > SIZE_MAX / sizeof(float) / b->nr || b->n > SIZE_MAX / sizeof(float2))
        return xc_error_set(err, XC_EDEVICE, "gpu: accel: a block of %zu half-bins (%zu bins) is too large", b->nr,
                            b->n);
    size_t nout = (size_t)s->ntempl * b->nr;
    TRY(grow_host(&s->htl, &s->htlcap, (size_t)s->ntempl, "the template list", err));
    TRY(grow(&s->tl, &s->tlcap, (size_t)s->ntempl, "the template list", err));
    long nw = 0;
    for (int t = 0; t < s->ntempl; t++)
        if (!b->want || b->want[t])
            s->htl[nw++] = t;
    if (!nw)
        return XC_OK;
    TRY(grow(&s->amp, &s->ampcap, b->n, "the block's amplitudes", err));
    TRY(grow_host(&s->hamp, &s->hampcap, 2 * b->n, "the block's amplitudes (staging)", err));
    TRY(grow(&s->out, &s->outcap, nout, "the block's plane", err));
    for (size_t k = 0; k < 2 * b->n; k++)
        s->hamp[k] = (float)b->amp[k];
    XC_GPU_CK(cudaMemcpyAsync(s->amp, s->hamp, b->n * sizeof(float2), cudaMemcpyHostToDevice, s->stream),
              "accel cudaMemcpyAsync (amplitudes to the device)");
    XC_GPU_CK(cudaMemcpyAsync(s->tl, s->htl, (size_t)nw * sizeof(int), cudaMemcpyHostToDevice, s->stream),
              "accel cudaMemcpyAsync (template list to the device)");
    TRY(plane_dev(s, s->amp, b->lo, (long)b->n, b->i0, b->nr, s->tl, nw, s->out, b->nr, err));
    /* the needed rows back, one copy per run of consecutive templates */
    for (long i = 0; i < nw;) {
        long j = i + 1;
        while (j < nw && s->htl[j] == s->htl[j - 1] + 1)
            j++;
        size_t off = (size_t)s->htl[i] * b->nr, cnt = (size_t)(j - i) * b->nr;
        XC_GPU_CK(cudaMemcpyAsync(b->out + off, s->out + off, cnt * sizeof(float), cudaMemcpyDeviceToHost, s->stream),
                  "accel cudaMemcpyAsync (plane to the host)");
        i = j;
    }
    WAIT("cudaMemcpyAsync (plane to the host)");
    return XC_OK;
}

} // namespace xc_accel_gpu_impl

using namespace xc_accel_gpu_impl;

extern "C" xc_status xc_accel_gpu_create(const xc_accel_searcher *self, const xc_accel_plan *p, void **st,
                                         xc_error *err)
{
    (void)self;
    if (!p || !st || p->ntempl < 1 || !p->hw)
        return xc_error_set(err, XC_EINVAL, "accel gpu: no plan");
    state *s = (state *)calloc(1, sizeof *s);
    if (!s)
        return xc_error_set(err, XC_ENOMEM, "accel gpu: out of memory");
    xc_status r = create(p, s, err);
    if (r) {
        destroy_state(s);
        return r;
    }
    *st = s;
    return XC_OK;
}

extern "C" xc_status xc_accel_gpu_plane(const xc_accel_searcher *self, void *st, const xc_accel_plan *p,
                                        const xc_accel_block *b, xc_error *err)
{
    (void)self;
    state *s = (state *)st;
    if (!s || !p || !b)
        return xc_error_set(err, XC_EINVAL, "accel gpu: no state or block");
    if (p->ntempl != s->ntempl || p->hwmax != s->hwmax)
        return xc_error_set(err, XC_EINVAL, "accel gpu: the plan differs from the one the state was made for");
    return plane(s, b, err);
}

extern "C" void xc_accel_gpu_destroy(const xc_accel_searcher *self, void *st)
{
    (void)self;
    destroy_state((state *)st);
}
