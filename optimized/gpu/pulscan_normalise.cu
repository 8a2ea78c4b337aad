/* GPU Pulscan, the normalise stage: per normalisation block and part (real,
 * imaginary) the exact median and MAD by bucket and radix select, or the
 * paper's median of medians of 4; then the borrowing of blocks with MAD 0
 * (xc_pulscan_borrow).  Exactness as pulscan_gpu.h states. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include <type_traits>

#include "optimized/gpu/pulscan_gpu.h"

namespace xcps {

/* ---- normalise: exact median by radix select ---------------------------- */

/* Keys that order as the values: floats by sign-flipped bits (-0 taken as +0,
 * as the CPU's comparisons do), non-negative doubles by their bits. */
__device__ inline uint64_t fkey(float x)
{
    uint32_t u = __float_as_uint(x);
    if (u == 0x80000000u)
        u = 0;
    return (u & 0x80000000u) ? (uint64_t)(~u) : (uint64_t)(u | 0x80000000u);
}

__device__ inline float fval(uint64_t k)
{
    uint32_t u = (uint32_t)k;
    return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

__device__ inline uint64_t dkey(float x, double med) { return (uint64_t)__double_as_longlong(fabs((double)x - med)); }

/* Sized so that four 512-thread blocks fit on an SM with a staged block of
 * up to 12000 values (48 KiB): a bucket near a Gaussian block's median or MAD
 * holds a few tens of its 6000 values, far below MAXCAND. */
const int NBUCKET = 1024, MAXCAND = 256;

struct norm_shared {
    unsigned hist[NBUCKET];
    double cand[MAXCAND];
    unsigned long long red[32];
    unsigned wsum[32];
    double out;
    unsigned bucket, cum, m;
};

struct sel_shared {
    unsigned hist[256];
    unsigned digit;
    unsigned long long rank;
    unsigned long long cnt_le;
    unsigned long long min_gt;
};

/* Where the passes read a block's part: its floats (global memory, or MoM's
 * staging), or the floats' keys staged in shared memory, each key computed
 * once (the exact median's staging). */
struct fsrc {
    const float *x;
    __device__ float val(size_t i) const { return x[i]; }
    __device__ uint32_t key(size_t i) const { return (uint32_t)fkey(x[i]); }
};
struct ksrc {
    const uint32_t *k;
    __device__ float val(size_t i) const { return fval(k[i]); }
    __device__ uint32_t key(size_t i) const { return k[i]; }
};

/* The key of rank k (0-based) among n keys: 8 bits per pass, most
 * significant first, counting only keys that match the digits found so far. */
template <bool DEV, typename SRC>
__device__ uint64_t block_select(const SRC &x, size_t n, double med, unsigned long long k, sel_shared *s)
{
    uint64_t prefix = 0, mask = 0;
    const int bits = DEV ? 64 : 32;
    for (int shift = bits - 8; shift >= 0; shift -= 8) {
        for (int i = threadIdx.x; i < 256; i += blockDim.x)
            s->hist[i] = 0;
        __syncthreads();
        for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
            uint64_t key = DEV ? dkey(x.val(i), med) : (uint64_t)x.key(i);
            if ((key & mask) == prefix)
                atomicAdd(&s->hist[(key >> shift) & 255u], 1u);
        }
        __syncthreads();
        if (threadIdx.x < 32) {
            unsigned c[8], sum = 0, lane = threadIdx.x;
            for (int j = 0; j < 8; j++) {
                c[j] = s->hist[lane * 8 + j];
                sum += c[j];
            }
            unsigned long long incl = sum;
            for (int off = 1; off < 32; off <<= 1) {
                unsigned long long v = __shfl_up_sync(0xffffffffu, incl, off);
                if ((int)lane >= off)
                    incl += v;
            }
            unsigned long long excl = incl - sum;
            if (excl <= k && k < incl) {
                unsigned long long kk = k - excl;
                int j = 0;
                while (kk >= c[j]) {
                    kk -= c[j];
                    j++;
                }
                s->digit = lane * 8 + j;
                s->rank = kk;
            }
        }
        __syncthreads();
        prefix |= (uint64_t)s->digit << shift;
        mask |= (uint64_t)255u << shift;
        k = s->rank;
        __syncthreads();
    }
    return prefix;
}

/* The exact median of n keys by radix select (any data): the mean of the two
 * middle values for even n. */
template <bool DEV, typename SRC>
__device__ double block_median_radix(const SRC &x, size_t n, double med, sel_shared *s)
{
    unsigned long long kl = (n - 1) / 2, ku = n / 2;
    uint64_t lo = block_select<DEV>(x, n, med, kl, s);
    double vl = DEV ? __longlong_as_double((long long)lo) : (double)fval(lo), vu = vl;
    if (ku != kl) {
        if (threadIdx.x == 0) {
            s->cnt_le = 0;
            s->min_gt = ~0ull;
        }
        __syncthreads();
        unsigned long long le = 0, gt = ~0ull;
        for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
            uint64_t key = DEV ? dkey(x.val(i), med) : (uint64_t)x.key(i);
            if (key <= lo)
                le++;
            else if (key < gt)
                gt = key;
        }
        atomicAdd(&s->cnt_le, le);
        atomicMin(&s->min_gt, gt);
        __syncthreads();
        if (s->cnt_le <= ku)
            vu = DEV ? __longlong_as_double((long long)s->min_gt) : (double)fval(s->min_gt);
        __syncthreads();
    }
    return (vl + vu) * 0.5;
}

/* The keys whose median is wanted: the parts themselves, or their absolute
 * deviations from the median (exact in double, as the CPU's). */
/* Keys in the passes: the floats' in 32 bits (half the integer work of
 * 64-bit arithmetic on them), the deviations' (doubles) in 64. */
template <bool DEV> using key_t = typename std::conditional<DEV, uint64_t, uint32_t>::type;
template <bool DEV, typename SRC> __device__ inline key_t<DEV> mkey(const SRC &x, size_t i, double med)
{
    return DEV ? (key_t<DEV>)dkey(x.val(i), med) : (key_t<DEV>)x.key(i);
}
template <bool DEV> __device__ inline double kval(uint64_t k)
{
    return DEV ? __longlong_as_double((long long)k) : (double)fval(k);
}

__device__ inline uint64_t block_reduce_key(uint64_t v, bool max, unsigned long long *red)
{
    for (int off = 16; off; off >>= 1) {
        uint64_t o = __shfl_xor_sync(0xffffffffu, v, off);
        v = max ? (o > v ? o : v) : (o < v ? o : v);
    }
    __syncthreads();
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = v;
    __syncthreads();
    uint64_t r = red[0];
    for (unsigned w = 1; w < blockDim.x / 32; w++)
        r = max ? (red[w] > r ? red[w] : r) : (red[w] < r ? red[w] : r);
    return r;
}

/* The value of rank r among the m candidates (all in one bucket). */
__device__ double cand_rank(const double *c, unsigned m, unsigned r, double *out)
{
    for (unsigned i = threadIdx.x; i < m; i += blockDim.x) {
        unsigned less = 0, eq = 0;
        for (unsigned j = 0; j < m; j++) {
            less += c[j] < c[i];
            eq += c[j] == c[i];
        }
        if (less <= r && r < less + eq)
            *out = c[i];     /* every writer writes the same value */
    }
    __syncthreads();
    double v = *out;
    __syncthreads();
    return v;
}

template <typename K> __device__ inline unsigned bucket_of(K key, K kbase, int shift)
{
    const K d = (key - kbase) >> shift;
    return key <= kbase ? 0u : d < (K)NBUCKET ? (unsigned)d : (unsigned)NBUCKET - 1;
}

/* The exact median as the CPU's: the values' order-preserving integer keys
 * (no conversions in the passes) spread monotonically over NBUCKET buckets,
 * the bucket holding the lower middle rank found from the counts, and the
 * rank selected among its few members (the ranks, hence the values, are
 * exact whatever the buckets).  Float parts: buckets over [min, max] of the
 * keys.  Deviations (>= 0, at most dmax): 32 buckets per octave over the 32
 * octaves below dmax, anything smaller in bucket 0.  A bucket with more than
 * MAXCAND members (heavily repeated values) falls back to the radix select.
 * *kmin, *kmax: the float parts' key range (for the deviations' dmax). */
template <bool DEV, typename SRC>
__device__ double block_median(const SRC &x, size_t n, double med, double dmax, sel_shared *s, norm_shared *ns,
                               uint64_t *kmin, uint64_t *kmax, bool known)
{
    using K = key_t<DEV>;
    K kbase;
    int shift;
    if (!DEV) {
        uint64_t lo = *kmin, hi = *kmax;
        if (!known) {
            uint32_t lo32 = ~0u, hi32 = 0;
            for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
                uint32_t k = x.key(i);
                lo32 = min(k, lo32);
                hi32 = max(k, hi32);
            }
            lo = block_reduce_key(lo32, false, ns->red);
            hi = block_reduce_key(hi32, true, ns->red);
            *kmin = lo;
            *kmax = hi;
        }
        if (lo == hi)
            return (double)fval(lo);
        kbase = (K)lo;
        shift = 0;
        while (((hi - lo) >> shift) >= (uint64_t)NBUCKET)
            shift++;
    } else {
        if (!(dmax > 0))
            return 0.0;     /* every value equals the median */
        const uint64_t span = 32ull << 52, kd = (uint64_t)__double_as_longlong(dmax);
        kbase = (K)(kd > span ? kd - span : 0);
        shift = 47;         /* 2^52 keys per octave / 32 */
    }
    for (int b = threadIdx.x; b < NBUCKET; b += blockDim.x)
        ns->hist[b] = 0;
    __syncthreads();
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
        atomicAdd(&ns->hist[bucket_of(mkey<DEV>(x, i, med), kbase, shift)], 1u);
    __syncthreads();
    const unsigned kl = (unsigned)((n - 1) / 2), ku = (unsigned)(n / 2);
    {   /* the bucket holding rank kl: a block-wide scan, NBUCKET / blockDim counts per thread */
        const unsigned per = NBUCKET / blockDim.x, b0 = threadIdx.x * per, lane = threadIdx.x & 31;
        unsigned own = 0;
        for (unsigned b = 0; b < per; b++)
            own += ns->hist[b0 + b];
        unsigned incl = own;
        for (int off = 1; off < 32; off <<= 1) {
            unsigned v = __shfl_up_sync(0xffffffffu, incl, off);
            if ((int)lane >= off)
                incl += v;
        }
        if (lane == 31)
            ns->wsum[threadIdx.x >> 5] = incl;
        __syncthreads();
        unsigned before = 0;
        for (unsigned w = 0; w < (threadIdx.x >> 5); w++)
            before += ns->wsum[w];
        unsigned cum = before + incl - own;
        if (cum <= kl && kl < cum + own) {
            unsigned b = b0;
            while (cum + ns->hist[b] <= kl)
                cum += ns->hist[b++];
            ns->bucket = b;
            ns->cum = cum;
        }
        if (threadIdx.x == 0)
            ns->m = 0;
    }
    __syncthreads();
    const unsigned bk = ns->bucket, cum = ns->cum, cnt = ns->hist[bk];
    if (cnt > MAXCAND) {
        __syncthreads();
        return block_median_radix<DEV>(x, n, med, s);
    }
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
        K k = mkey<DEV>(x, i, med);
        if (bucket_of(k, kbase, shift) == bk)
            ns->cand[atomicAdd(&ns->m, 1u)] = kval<DEV>(k);
    }
    __syncthreads();
    double vl = cand_rank(ns->cand, cnt, kl - cum, &ns->out), vu = vl;
    if (ku != kl) {
        if (ku - cum < cnt) {
            vu = cand_rank(ns->cand, cnt, ku - cum, &ns->out);
        } else {     /* the upper middle is the smallest value of the next buckets */
            K u = (K)~0ull;
            for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
                K k = mkey<DEV>(x, i, med);
                if (bucket_of(k, kbase, shift) > bk && k < u)
                    u = k;
            }
            vu = kval<DEV>(block_reduce_key((uint64_t)u, false, ns->red));
        }
    }
    __syncthreads();
    return (vl + vu) * 0.5;
}

/* Median of medians of 4, as xc_median_of_medians: group t reads t, t+s,
 * t+2s, t+3s (all >= t, and >= s for the three written by nobody else this
 * level) and writes t < s; only the leftover's median lands on s, which
 * thread 0 read for its group, so it is written after a barrier. */
__device__ double block_mom(double *buf, size_t n)
{
    while (n > 1) {
        size_t s = n / 4, rem = n - 4 * s;
        double left = 0;
        if (threadIdx.x == 0 && rem) {
            if (rem == 1) {
                left = buf[4 * s];
            } else if (rem == 2) {
                left = 0.5 * (buf[4 * s] + buf[4 * s + 1]);
            } else {
                double a = buf[4 * s], b = buf[4 * s + 1], c = buf[4 * s + 2];
                left = fmax(fmin(a, b), fmin(fmax(a, b), c));
            }
        }
        for (size_t t = threadIdx.x; t < s; t += blockDim.x) {
            double a = buf[t], b = buf[t + s], c = buf[t + 2 * s], d = buf[t + 3 * s];
            double lo = fmin(fmin(a, b), fmin(c, d)), hi = fmax(fmax(a, b), fmax(c, d));
            buf[t] = (a + b + c + d - lo - hi) * 0.5;
        }
        __syncthreads();
        if (threadIdx.x == 0 && rem)
            buf[s] = left;
        __syncthreads();
        n = s + (rem ? 1 : 0);
    }
    return buf[0];
}

/* One block per (normalisation block, part): med and MAD as the CPU's
 * block_stats.  stage: the block's part is read from the interleaved input
 * into shared memory (the exact median: as keys, each computed once, the key
 * range found on the way; MoM: as floats) and every pass reads it there;
 * otherwise (blocks too large to stage) the passes read re or im, separated
 * beforehand.
 * scratch: 2 * nbins doubles (MoM only). */
__global__ void __launch_bounds__(512, 4) k_normalise(const float2 *in, const float *re, const float *im, size_t nbins, size_t normwidth,
                            size_t nb, int mom, int stage, double *scratch, double *med, double *mad)
{
    __shared__ sel_shared s;
    __shared__ norm_shared ns;
    extern __shared__ uint32_t xs[];
    size_t t = blockIdx.x, b = t / 2;
    int part = (int)(t % 2);
    size_t lo = 1 + b * normwidth, hi = b + 1 == nb ? nbins : lo + normwidth, n = hi - lo;
    const float *src = (const float *)(in + lo) + part;
    double m, d;
    if (mom) {
        const float *x = (part ? im : re) + lo;
        if (stage) {
            float *xf = (float *)xs;
            for (size_t k = threadIdx.x; k < n; k += blockDim.x)
                xf[k] = src[2 * k];
            __syncthreads();
            x = xf;
        }
        double *buf = scratch + (size_t)part * nbins + lo;
        for (size_t k = threadIdx.x; k < n; k += blockDim.x)
            buf[k] = x[k];
        __syncthreads();
        m = block_mom(buf, n);
        __syncthreads();
        for (size_t k = threadIdx.x; k < n; k += blockDim.x)
            buf[k] = fabs((double)x[k] - m);
        __syncthreads();
        d = block_mom(buf, n);
    } else if (stage) {
        /* each value's key once, and the key range on the way */
        uint32_t klo = ~0u, khi = 0;
        for (size_t k = threadIdx.x; k < n; k += blockDim.x) {
            const uint32_t key = (uint32_t)fkey(src[2 * k]);
            xs[k] = key;
            klo = min(klo, key);
            khi = max(khi, key);
        }
        uint64_t kmin = block_reduce_key(klo, false, ns.red), kmax = block_reduce_key(khi, true, ns.red);
        const ksrc x{xs};
        m = block_median<false>(x, n, 0.0, 0.0, &s, &ns, &kmin, &kmax, true);
        double dmax = fmax(fabs((double)fval(kmin) - m), fabs((double)fval(kmax) - m));
        d = block_median<true>(x, n, m, dmax, &s, &ns, &kmin, &kmax, true);
    } else {
        const fsrc x{(part ? im : re) + lo};
        uint64_t kmin = 0, kmax = 0;
        m = block_median<false>(x, n, 0.0, 0.0, &s, &ns, &kmin, &kmax, false);
        double dmax = fmax(fabs((double)fval(kmin) - m), fabs((double)fval(kmax) - m));
        d = block_median<true>(x, n, m, dmax, &s, &ns, &kmin, &kmax, true);
    }
    if (threadIdx.x == 0) {
        med[t] = m;
        mad[t] = d;
    }
}

/* xc_pulscan_borrow, one thread per (block, part), reading the blocks' own
 * statistics only; fail gets bit `part` where a part has MAD 0 everywhere. */
__global__ void k_borrow(const double *med, const double *mad, size_t nb, double *med_out, double *scale_out,
                         unsigned *fail)
{
    for (size_t self = blockIdx.x * (size_t)blockDim.x + threadIdx.x; self < 2 * nb;
         self += (size_t)gridDim.x * blockDim.x) {
        size_t b = self / 2, part = self % 2, from = self;
        if (!(mad[self] > 0))
            for (size_t k = 1; k < nb && from == self; k++) {
                if (b >= k && mad[2 * (b - k) + part] > 0)
                    from = 2 * (b - k) + part;
                else if (b + k < nb && mad[2 * (b + k) + part] > 0)
                    from = 2 * (b + k) + part;
            }
        if (!(mad[from] > 0))
            atomicOr(fail, 1u << part);
        med_out[self] = med[from];
        scale_out[self] = __dmul_rn(fabs(mad[from]), XC_MAD_TO_SIGMA);
    }
}

} // namespace xcps
