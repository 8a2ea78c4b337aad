/* GPU single-pulse search: the statistics passes' loop over a row's
 * samples (each_loaded), and the block medians and the MAD of integer-valued
 * rows by counting (sp_count_hd.h states the method); included by
 * sp_gpu_stats.cu only (no device function crosses files).
 *
 * A pass is one read of the values: per value a comparison with the range,
 * the count below it and, for the values inside, a shared-memory atomic on
 * the value's bin.  On an H200 (Nsight Compute, the fused bench's plane at
 * 512 channels) the block medians took 33 thread instructions a plane sample
 * and the MAD 20, where the sampled selection (a sample sort of 1024 64-bit
 * keys, the bracket's keys kept, binned and gathered) took 99 and 95.  A
 * block whose values are not all integers of magnitude
 * under 2^24 (checked in the first pass, at no extra read) is left to the
 * selection, and so is every deviation of its row: the caller flags the row. */
#ifndef XC_SP_GPU_COUNT_CUH
#define XC_SP_GPU_COUNT_CUH

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include "optimized/gpu/sp_count_hd.h"
#include "optimized/gpu/sp_gpu.h"

namespace xcsp {

namespace {

/* Keys a thread loads per step of a pass: 4, so that the selection kernels
 * fit 40 registers (6 blocks an SM, no spills) where 8 took 56 and 62
 * (4 blocks): more warps in flight at as many loads an SM; on an H200 the
 * medians took 2.56 ms instead of 2.76 and the MAD 2.37 instead of 2.45 (one
 * fused execute's three ranges at 512 channels, Nsight Compute). */
const int SEL_U = 4;

/* f(x[t], valid) for t in [lo, hi), the whole block in step (valid false
 * past the end): U loads a thread in flight before any is used, so a
 * pass runs at the memory's rate rather than one load's latency a step.
 * The step's samples are counted in 32 bits and each load's address is the
 * thread's pointer plus a fixed offset: 64-bit index arithmetic, a compare
 * and an address a load, was a large part of a sample's instructions (as
 * in the filter's tiles).  With WHOLE, whole steps take no bounds test a
 * sample and only the last, part-filled step tests each (the same samples
 * reach f in the same order either way; the counting passes take it, the
 * selection's would spill with both loops). */
template <int U = SEL_U, bool WHOLE = false, typename F>
__device__ inline void each_loaded(const float *x, size_t lo, size_t hi, F f)
{
    const unsigned step = (unsigned)U * blockDim.x;
    const float *xt = x + lo + threadIdx.x;   /* this thread's first sample of the step */
    size_t left = hi - lo;                    /* the same trip counts in every thread */
    for (; WHOLE && left >= step; left -= step, xt += step) {
        float v[U];
#pragma unroll
        for (int j = 0; j < U; j++)
            v[j] = __ldg(xt + (size_t)j * blockDim.x);
#pragma unroll
        for (int j = 0; j < U; j++)
            f(v[j], true);
    }
    for (; left;) {
        const unsigned lim = left < step ? (unsigned)left : step;   /* the step's samples */
        float v[U];
#pragma unroll
        for (int j = 0; j < U; j++)
            v[j] = threadIdx.x + (unsigned)j * blockDim.x < lim ? __ldg(xt + (size_t)j * blockDim.x) : 0.0f;
#pragma unroll
        for (int j = 0; j < U; j++)
            f(v[j], threadIdx.x + (unsigned)j * blockDim.x < lim);
        xt += step;
        left -= lim;
    }
}

/* Loads a thread keeps in flight in a counting pass: 6, where the
 * selection's passes keep 4, since a counting pass has fewer instructions a
 * value to hide the loads' latency behind; 6 is the most that fits the
 * kernels' registers without spills (8 spilled).  Not compared with 4 on a
 * device. */
const int CNT_U = 6;

static_assert(XC_SP_CNT_NS == SP_THREADS, "a sample value a thread");
static_assert(XC_SP_CNT_NB % (4 * SP_THREADS) == 0, "a thread's bins in 16-byte loads");

struct cnt_shared {
    int32_t smp[XC_SP_CNT_NS];
    unsigned wsum[SP_THREADS / 32];
    unsigned below;
    unsigned b0, b1;
    int miss;
    int32_t mx, mn;
};

/* smp[0 .. XC_SP_CNT_NS) ascending: Batcher's bitonic network, a
 * compare-exchange pair a thread (half the block) per step. */
__device__ void cnt_sort(int32_t *a)
{
    __syncthreads();
    const unsigned P = XC_SP_CNT_NS;
    for (unsigned k = 2; k <= P; k <<= 1)
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            const unsigned p = threadIdx.x;
            if (p < P / 2) {
                const unsigned i = ((p & ~(j - 1)) << 1) | (p & (j - 1)), l = i | j;
                const int32_t x = a[i], y = a[l];
                if ((i & k) == 0 ? x > y : x < y) {
                    a[i] = y;
                    a[l] = x;
                }
            }
            __syncthreads();
        }
}

/* One pass over the source's values: those under lo counted (c->below),
 * those in [lo, hi] histogrammed into bins of 2^s.  With check, also
 * whether every value was an integer under 2^24 (the same in every thread;
 * false: the bins mean nothing).  Ends with a barrier. */
template <bool CHECK, typename SRC>
__device__ bool cnt_pass(const SRC &src, int32_t lo, int32_t hi, unsigned s, unsigned *hist, cnt_shared *c)
{
    uint4 *h4 = reinterpret_cast<uint4 *>(hist);
    for (unsigned i = threadIdx.x; i < XC_SP_CNT_NB / 4; i += blockDim.x)
        h4[i] = make_uint4(0, 0, 0, 0);
    if (threadIdx.x == 0)
        c->below = 0;
    __syncthreads();
    const uint32_t span = (uint32_t)hi - (uint32_t)lo;
    unsigned below = 0;
    bool good = true;
    src.template each<CHECK>(&good, [&](int32_t key, bool valid) {
        const uint32_t off = (uint32_t)key - (uint32_t)lo;
        below += valid && key < lo;
        if (valid && off <= span)
            atomicAdd(&hist[off >> s], 1u);
    });
    below = __reduce_add_sync(0xffffffffu, below);
    if ((threadIdx.x & 31) == 0 && below)
        atomicAdd(&c->below, below);
    return __syncthreads_and(good);
}

/* The bins of ranks k0 <= k1 after a pass: c->b0, c->b1, or c->miss where
 * a rank is outside the range.  Ends with a barrier. */
__device__ void cnt_find(unsigned k0, unsigned k1, const unsigned *hist, cnt_shared *c)
{
    const unsigned per = XC_SP_CNT_NB / SP_THREADS, i0 = threadIdx.x * per;
    const uint4 *h4 = reinterpret_cast<const uint4 *>(hist + i0);
    unsigned sum = 0;
#pragma unroll
    for (unsigned i = 0; i < per / 4; i++) {
        const uint4 v = h4[i];
        sum += v.x + v.y + v.z + v.w;
    }
    /* exclusive prefix of the threads' sums over the block */
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned inc = sum;
    for (int off = 1; off < 32; off <<= 1) {
        const unsigned y = __shfl_up_sync(0xffffffffu, inc, off);
        if ((int)lane >= off)
            inc += y;
    }
    if (lane == 31)
        c->wsum[warp] = inc;
    __syncthreads();
    unsigned pre = inc - sum, total = 0;
    for (unsigned w = 0; w < blockDim.x / 32; w++) {
        if (w < warp)
            pre += c->wsum[w];
        total += c->wsum[w];
    }
    const unsigned below = c->below;
    const bool miss = k0 < below || k1 - below >= total;
    if (!miss) {
        const unsigned q0 = k0 - below, q1 = k1 - below;
        /* the bins read again, not held: 16 registers more spilled the selection's */
        for (unsigned i = 0; i < per / 4; i++) {
            const uint4 v = h4[i];
            const unsigned h[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (unsigned j = 0; j < 4; j++) {
                if (pre <= q0 && q0 < pre + h[j])
                    c->b0 = i0 + 4 * i + j;
                if (pre <= q1 && q1 < pre + h[j])
                    c->b1 = i0 + 4 * i + j;
                pre += h[j];
            }
        }
    }
    if (threadIdx.x == 0) {
        c->miss = miss;
        c->mx = INT_MIN;
        c->mn = INT_MAX;
    }
    __syncthreads();
}

/* The largest value of bin b0 and the least of bin b1 (bins of 2^s from
 * lo): c->mx, c->mn.  Ends with a barrier. */
template <typename SRC>
__device__ void cnt_ends(const SRC &src, int32_t lo, unsigned s, unsigned b0, unsigned b1, cnt_shared *c)
{
    bool unused = true;
    src.template each<false>(&unused, [&](int32_t key, bool valid) {
        const uint32_t bin = ((uint32_t)key - (uint32_t)lo) >> s;
        const int32_t mx = __reduce_max_sync(0xffffffffu, valid && bin == b0 ? key : INT_MIN);
        const int32_t mn = __reduce_min_sync(0xffffffffu, valid && bin == b1 ? key : INT_MAX);
        if ((threadIdx.x & 31) == 0) {
            if (mx != INT_MIN)
                atomicMax(&c->mx, mx);
            if (mn != INT_MAX)
                atomicMin(&c->mn, mn);
        }
    });
    __syncthreads();
}

/* The values of ranks k0 = (N - 1) / 2 and k1 = N / 2 of the source's N
 * values, from the range [lo, hi] (a bracket) within the full range
 * [flo, fhi] that holds every value: *r0, *r1 in every thread.  False where
 * the first pass finds a value that is not an integer under 2^24, or the
 * full range misses a rank (no integer row can). */
template <typename SRC>
__device__ bool cnt_select(const SRC &src, unsigned N, int32_t lo, int32_t hi, int32_t flo, int32_t fhi,
                           unsigned *hist, cnt_shared *c, int32_t *r0, int32_t *r1)
{
    const unsigned k0 = (N - 1) / 2, k1 = N / 2;
    bool check = src.checks, full = lo == flo && hi == fhi;
    /* at most a bracket, the full range, its 25 bits in two narrowings and
     * the ends: more passes than that mean a range dropped the rank, and
     * the selection takes over rather than loop */
    for (int pass = 0; pass < XC_SP_CNT_PASSES; pass++) {
        const unsigned s = xc_sp_cnt_shift((uint32_t)hi - (uint32_t)lo);
        if (!(check ? cnt_pass<true>(src, lo, hi, s, hist, c) : cnt_pass<false>(src, lo, hi, s, hist, c)))
            return false;
        check = false;
        cnt_find(k0, k1, hist, c);
        if (c->miss) {
            if (full)
                return false;
            lo = flo, hi = fhi, full = true;
            continue;
        }
        const unsigned b0 = c->b0, b1 = c->b1;
        int32_t nlo = lo, nhi = hi;
        switch (xc_sp_cnt_next(lo, s, b0, b1, &nlo, &nhi)) {
        case XC_SP_CNT_DONE:
            *r0 = (int32_t)((uint32_t)lo + b0);
            *r1 = (int32_t)((uint32_t)lo + b1);
            __syncthreads();   /* every thread has read c before it is reused */
            return true;
        case XC_SP_CNT_ENDS:
            cnt_ends(src, lo, s, b0, b1, c);
            *r0 = c->mx;
            *r1 = c->mn;
            __syncthreads();
            return true;
        default:
            lo = nlo, hi = nhi, full = false;
        }
    }
    return false;
}

/* A block [lo, hi) of a row's floats as integers (checked in the first
 * pass). */
struct cnt_block {
    const float *x;
    size_t lo, hi;
    static const bool checks = true;
    template <bool CHECK, typename F> __device__ void each(bool *good, F f) const
    {
        unsigned bad = 0;   /* bitwise, not a branch a value */
        each_loaded<CNT_U, true>(x, lo, hi, [&](float v, bool valid) {
            if (CHECK)
                bad |= (unsigned)valid & (unsigned)!xc_sp_cnt_int(v);
            f(__float2int_rz(v), valid);
        });
        *good = !bad;
    }
};

/* A row's doubled deviations |2x - 2m_b| (the row's values all integers
 * under 2^24, so its medians are integers or halves of them). */
struct cnt_devs {
    const float *x;
    size_t n, L, nb;
    const double *m;
    static const bool checks = false;
    template <bool CHECK, typename F> __device__ void each(bool *, F f) const
    {
        for (size_t b = 0; b < nb; b++) {
            const size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
            const int32_t m2 = xc_sp_cnt_twice(m[b]);
            each_loaded<CNT_U, true>(x, lo, hi,
                               [&](float v, bool valid) { f(xc_sp_cnt_dev2(__float2int_rz(v), m2), valid); });
        }
    }
};

/* The median of block [lo, hi) of x by counting, into *med: false (nothing
 * written) where the block is not integers under 2^24. */
__device__ bool cnt_median(const float *x, size_t lo, size_t hi, unsigned *hist, cnt_shared *c, double *med)
{
    const size_t N = hi - lo;
    if (N >= 0x80000000u)
        return false;
    const float v = __ldg(x + lo + threadIdx.x * N / XC_SP_CNT_NS);
    const bool good = xc_sp_cnt_int(v);
    c->smp[threadIdx.x] = good ? __float2int_rz(v) : 0;
    if (!__syncthreads_and(good))
        return false;
    cnt_sort(c->smp);
    int32_t blo, bhi, r0, r1;
    xc_sp_cnt_bracket(c->smp, N, (N - 1) / 2, -XC_SP_CNT_VMAX, XC_SP_CNT_VMAX, &blo, &bhi);
    if (!cnt_select(cnt_block{x, lo, hi}, (unsigned)N, blo, bhi, -XC_SP_CNT_VMAX, XC_SP_CNT_VMAX, hist, c, &r0, &r1))
        return false;
    *med = N % 2 ? (double)r0 : __ddiv_rn(__dadd_rn((double)r0, (double)r1), 2.0);
    return true;
}

/* The MAD of a row of integers under 2^24 with baselines m, by counting. */
__device__ bool cnt_mad(const float *x, size_t n, size_t L, size_t nb, const double *m, unsigned *hist,
                        cnt_shared *c, double *mad)
{
    if (n >= 0x80000000u)
        return false;
    const size_t t = threadIdx.x * n / XC_SP_CNT_NS, b = t / L < nb ? t / L : nb - 1;
    c->smp[threadIdx.x] = xc_sp_cnt_dev2(__float2int_rz(__ldg(x + t)), xc_sp_cnt_twice(m[b]));
    cnt_sort(c->smp);
    int32_t blo, bhi, r0, r1;
    xc_sp_cnt_bracket(c->smp, n, (n - 1) / 2, 0, XC_SP_CNT_DMAX, &blo, &bhi);
    if (!cnt_select(cnt_devs{x, n, L, nb, m}, (unsigned)n, blo, bhi, 0, XC_SP_CNT_DMAX, hist, c, &r0, &r1))
        return false;
    const double a = 0.5 * (double)r0, z = 0.5 * (double)r1;
    *mad = n % 2 ? a : __ddiv_rn(__dadd_rn(a, z), 2.0);
    return true;
}

} // namespace

} // namespace xcsp

#endif
