/* GPU single-pulse search, the row statistics (sp_gpu.h): prefix sums, and
 * the blocks' medians and the MAD rms as exact order statistics by radix
 * select (8 bits a pass over keys that order as the values), so m and s are
 * xc_sp_row_stats's doubles whatever the data. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "optimized/gpu/sp_gpu.h"

namespace xcsp {

namespace {

/* Float keys that order as the values (sign-flipped bits; -0 taken as +0,
 * which compares equal to it in the reference's sort). */
__device__ inline unsigned long long fkey(float x)
{
    uint32_t u = __float_as_uint(x);
    if (u == 0x80000000u)
        u = 0;
    return (u & 0x80000000u) ? (unsigned long long)(~u) : (unsigned long long)(u | 0x80000000u);
}

__device__ inline double fkey_value(unsigned long long k)
{
    uint32_t u = (uint32_t)k;
    return (double)__uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

/* Non-negative doubles order as their bits. */
__device__ inline double dkey_value(unsigned long long k) { return __longlong_as_double((long long)k); }

struct sel_shared {
    unsigned hist[256];
    unsigned digit;
    unsigned long long rank, cnt_le, min_gt;
    double sum[SP_THREADS / 32];
};

/* The samples of one block [lo, hi) of a row, as float keys. */
struct block_keys {
    const float *x;
    size_t lo, hi;
    template <typename F> __device__ void each(F f) const
    {
        for (size_t t = lo + threadIdx.x; t < hi; t += blockDim.x)
            f(fkey(x[t]));
    }
};

/* |x_t - m_b(t)| over a row, block by block (no division per sample), as
 * the bits of the non-negative doubles. */
struct dev_keys {
    const float *x;
    size_t n, L, nb;
    const double *m;
    template <typename F> __device__ void each(F f) const
    {
        for (size_t b = 0; b < nb; b++) {
            size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
            double mb = m[b];
            for (size_t t = lo + threadIdx.x; t < hi; t += blockDim.x)
                f((unsigned long long)__double_as_longlong(fabs(__dsub_rn((double)x[t], mb))));
        }
    }
};

/* The key of rank k (0-based) among the source's keys of BITS bits. */
template <int BITS, typename SRC> __device__ unsigned long long select_key(const SRC &src, unsigned long long k,
                                                                            sel_shared *s)
{
    unsigned long long prefix = 0, mask = 0;
    for (int shift = BITS - 8; shift >= 0; shift -= 8) {
        for (int i = threadIdx.x; i < 256; i += blockDim.x)
            s->hist[i] = 0;
        __syncthreads();
        src.each([&](unsigned long long key) {
            if ((key & mask) == prefix)
                atomicAdd(&s->hist[(key >> shift) & 255u], 1u);
        });
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned long long below = 0;
            unsigned d = 0;
            while (d < 255 && k >= below + s->hist[d])
                below += s->hist[d++];
            s->digit = d;
            s->rank = k - below;
        }
        __syncthreads();
        prefix |= (unsigned long long)s->digit << shift;
        mask |= 255ull << shift;
        k = s->rank;
        __syncthreads();
    }
    return prefix;
}

/* The median of the source's n keys as the reference's: the middle value,
 * or of an even count the mean of the two middle values. */
template <int BITS, typename SRC, typename VAL> __device__ double median(const SRC &src, unsigned long long n, VAL val,
                                                                          sel_shared *s)
{
    unsigned long long kl = (n - 1) / 2, ku = n / 2;
    unsigned long long lo = select_key<BITS>(src, kl, s);
    if (ku == kl)
        return val(lo);
    /* rank ku is lo again when more than ku keys are <= lo, else the least key above it */
    if (threadIdx.x == 0) {
        s->cnt_le = 0;
        s->min_gt = ~0ull;
    }
    __syncthreads();
    unsigned long long at_most = 0, above = ~0ull;   /* this thread's keys <= lo, least key > lo */
    src.each([&](unsigned long long key) {
        at_most += key <= lo;
        above = key > lo && key < above ? key : above;
    });
    atomicAdd(&s->cnt_le, at_most);
    atomicMin(&s->min_gt, above);
    __syncthreads();
    unsigned long long hi = s->cnt_le > ku ? lo : s->min_gt;
    __syncthreads();
    return __ddiv_rn(__dadd_rn(val(lo), val(hi)), 2.0);
}

/* Exclusive prefix of v over the block in a fixed order; *total gets the sum. */
__device__ double block_scan(double v, double *total, sel_shared *s)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double inc = v;
    for (int off = 1; off < 32; off <<= 1) {
        double y = __shfl_up_sync(0xffffffffu, inc, off);
        if ((int)lane >= off)
            inc = __dadd_rn(y, inc);
    }
    double excl = __shfl_up_sync(0xffffffffu, inc, 1);
    if (lane == 0)
        excl = 0.0;
    if (lane == 31)
        s->sum[warp] = inc;
    __syncthreads();
    double before = 0.0, all = 0.0;
    for (unsigned w = 0; w < blockDim.x / 32; w++) {
        if (w == warp)
            before = all;
        all = __dadd_rn(all, s->sum[w]);
    }
    __syncthreads();
    *total = all;
    return __dadd_rn(before, excl);
}

} // namespace

__global__ void __launch_bounds__(SP_THREADS) k_sp_prefix(const float *X, size_t xstride, size_t n, double *Pall,
                                                          size_t pstride, int meansd, double *m, size_t mstride,
                                                          double *s)
{
    __shared__ sel_shared sh;
    const size_t r = blockIdx.x;
    const float *x = X + r * xstride;
    double *P = Pall + r * pstride, carry = 0.0, sq = 0.0;
    const size_t tile = (size_t)SP_PER * blockDim.x;
    for (size_t base = 0; base < n; base += tile) {
        size_t i0 = base + (size_t)threadIdx.x * SP_PER;
        double loc[SP_PER], a = 0.0;
        for (int j = 0; j < SP_PER; j++) {
            double v = i0 + j < n ? (double)x[i0 + j] : 0.0;
            a = __dadd_rn(a, v);
            loc[j] = a;
            sq = __dadd_rn(sq, __dmul_rn(v, v));
        }
        double tot, off = __dadd_rn(carry, block_scan(a, &tot, &sh));
        for (int j = 0; j < SP_PER && i0 + j < n; j++)
            P[i0 + j + 1] = __dadd_rn(off, loc[j]);
        carry = __dadd_rn(carry, tot);
    }
    double sxx;
    (void)block_scan(sq, &sxx, &sh);
    if (threadIdx.x)
        return;
    P[0] = 0.0;
    if (!meansd)
        return;
    /* xc_sp_mean_sd: m = sx / n, s = sqrt(sxx / n - m m), 0 where not positive */
    double mean = __ddiv_rn(carry, (double)n), var = __dsub_rn(__ddiv_rn(sxx, (double)n), __dmul_rn(mean, mean));
    m[r * mstride] = mean;
    s[r] = var > 0 ? __dsqrt_rn(var) : 0.0;
}

__global__ void __launch_bounds__(SP_THREADS) k_sp_median_mad(const float *X, size_t xstride, size_t n, size_t L,
                                                              size_t nb, double *M, size_t mstride, double *s)
{
    __shared__ sel_shared sh;
    const size_t r = blockIdx.x;
    const float *x = X + r * xstride;
    double *m = M + r * mstride;
    for (size_t b = 0; b < nb; b++) {
        size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
        double med = median<32>(block_keys{x, lo, hi}, hi - lo, fkey_value, &sh);
        if (threadIdx.x == 0)
            m[b] = med;
    }
    __syncthreads();   /* the medians, written to global memory, seen by every thread of the block */
    double mad = median<64>(dev_keys{x, n, L, nb, m}, n, dkey_value, &sh);
    if (threadIdx.x == 0)
        s[r] = __dmul_rn(XC_SP_MAD_SCALE, mad);
}

} // namespace xcsp
