/* GPU single-pulse search, the row statistics (sp_gpu.h): the sums of the
 * astroaccelerate preset, and the blocks' medians and the MAD rms as exact
 * order statistics, so m and s are xc_sp_row_stats's doubles whatever the
 * data.  Rows of integers under 2^24 (a plane dedispersed from integer
 * samples) are counted (sp_gpu_count.cuh); the selection below takes the
 * rest.
 *
 * A selection (select_pair) works on keys that order as the values.  A
 * sorted sample of SEL_N keys (every N/SEL_N-th) brackets the wanted rank
 * between two sample keys SEL_W sample ranks either side of its estimate,
 * as Floyd and Rivest's selection does (CACM 18(3), 1975, Algorithm 489);
 * one pass counts the keys below the bracket and histograms those inside
 * it into SEL_N bins (2^s consecutive keys each); a second gathers the keys of the
 * wanted bin, sorted in shared memory.  Where the bracket misses the rank
 * the range becomes every key; where a bin holds more than SEL_N distinct
 * keys the range narrows to that bin's and the two passes repeat, so the
 * result is exact on any data, and on noise costs about two reads of the
 * keys instead of a radix select's eight to twelve.
 *
 * The block medians read their samples once: the first pass tests each
 * sample against the bracket by two float comparisons (sp_select_hd.h) and
 * keeps the bracket's samples (about an eighth) in shared memory, where the
 * bins and the second pass read them; a bracket with more samples than
 * the room is binned from the block as for any source. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "optimized/gpu/sp_gpu.h"
#include "optimized/gpu/sp_gpu_count.cuh"
#include "optimized/gpu/sp_select_hd.h"

namespace xcsp {

namespace {

typedef unsigned long long u64;

const int SEL_N = 1024;   /* sample keys, histogram bins and gathered keys */
const int SEL_W = 64;     /* the bracket's half width, sample ranks (4 standard deviations of 1024 draws) */
/* Float keys that order as the values (sp_select_hd.h). */
__device__ inline u64 fkey(float x) { return xc_sp_fkey(x); }

__device__ inline double fkey_value(u64 k) { return (double)xc_sp_fkey_float((uint32_t)k); }

/* Non-negative doubles order as their bits. */
__device__ inline double dkey_value(u64 k) { return __longlong_as_double((long long)k); }

struct sel_shared {
    u64 buf[SEL_N];   /* the sorted sample, then the gathered keys */
    unsigned hist[SEL_N];
    u64 lo, hi;       /* the range: keys in [lo, hi] are binned */
    u64 below;        /* keys under lo */
    u64 cnt, before;  /* keys in the target bin b0; keys of the range in bins under b0 */
    u64 got, min0, max0, min1;
    unsigned ncache;  /* samples pass A kept (key_cache) */
    u64 wsum[SP_THREADS / 32];
    unsigned b0, b1;
    int miss;
    double sum[SP_THREADS / 32];
};

/* The samples of one block [lo, hi) of a row, as float keys. */
struct block_keys {
    const float *x;
    size_t lo, hi;
    __device__ u64 key(size_t i) const { return fkey(x[lo + i]); }
    /* f(key, valid) for every key, the whole block in step (valid false past the end) */
    template <typename F> __device__ void each(F f) const
    {
        each_loaded(x, lo, hi, [&](float v, bool valid) { f(valid ? fkey(v) : 0ull, valid); });
    }
};

/* |x_t - m_b(t)| over a row, block by block (no division per sample), as
 * the bits of the non-negative doubles. */
struct dev_keys {
    const float *x;
    size_t n, L, nb;
    const double *m;
    __device__ u64 key(size_t t) const
    {
        size_t b = t / L < nb ? t / L : nb - 1;
        return (u64)__double_as_longlong(fabs(__dsub_rn((double)x[t], m[b])));
    }
    template <typename F> __device__ void each(F f) const
    {
        for (size_t b = 0; b < nb; b++) {
            size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
            double mb = m[b];
            each_loaded(x, lo, hi, [&](float v, bool valid) {
                f(valid ? (u64)__double_as_longlong(fabs(__dsub_rn((double)v, mb))) : 0ull, valid);
            });
        }
    }
};

/* a[0..P) ascending (P a power of two), by the whole block: Batcher's
 * bitonic network, each thread a compare-exchange pair (i, i + j) of a
 * step at a time (i with bit j clear), not an index of which half idle. */
__device__ void bitonic(u64 *a, unsigned P)
{
    __syncthreads();
    for (unsigned k = 2; k <= P; k <<= 1)
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            for (unsigned p = threadIdx.x; p < P / 2; p += blockDim.x) {
                const unsigned i = ((p & ~(j - 1)) << 1) | (p & (j - 1)), l = i | j;
                u64 x = a[i], y = a[l];
                if ((i & k) == 0 ? x > y : x < y) {
                    a[i] = y;
                    a[l] = x;
                }
            }
            __syncthreads();
        }
}

/* Exclusive prefix of v over the block; *total the sum (integers: any order). */
__device__ u64 scan_u64(u64 v, u64 *total, sel_shared *s)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u64 inc = v;
    for (int off = 1; off < 32; off <<= 1) {
        u64 y = __shfl_up_sync(0xffffffffu, inc, off);
        if ((int)lane >= off)
            inc += y;
    }
    if (lane == 31)
        s->wsum[warp] = inc;
    __syncthreads();
    u64 before = 0, all = 0;
    for (unsigned w = 0; w < blockDim.x / 32; w++) {
        if (w == warp)
            before = all;
        all += s->wsum[w];
    }
    __syncthreads();
    *total = all;
    return before + inc - v;
}

/* Bins of 2^shift keys from lo (integer work only: a conversion to double
 * and back a key held the passes at the conversion unit's rate). */
__device__ inline unsigned bin_of(u64 key, u64 lo, unsigned shift)
{
    return (unsigned)((key - lo) >> shift);
}

/* The least shift that puts every key of [lo, hi] in one of SEL_N bins. */
__device__ inline unsigned bin_shift(u64 lo, u64 hi)
{
    unsigned shift = 0;
    while (((hi - lo) >> shift) >= (u64)SEL_N)
        shift++;
    return shift;
}

/* The first range: SEL_W sample ranks either side of rank k's estimate
 * (every key where the keys are few). */
template <typename SRC> __device__ void first_range(const SRC &src, u64 N, u64 k, sel_shared *s)
{
    if (N <= 4 * (u64)SEL_N) {
        if (threadIdx.x == 0) {
            s->lo = 0;
            s->hi = ~0ull;
        }
        __syncthreads();
        return;
    }
    for (unsigned i = threadIdx.x; i < SEL_N; i += blockDim.x)
        s->buf[i] = src.key((size_t)((u64)i * N / SEL_N));
    bitonic(s->buf, SEL_N);
    if (threadIdx.x == 0) {
        long j = (long)(k * SEL_N / N), jl = j - SEL_W, jh = j + 1 + SEL_W;
        s->lo = jl <= 0 ? 0 : s->buf[jl];
        s->hi = jh >= SEL_N - 1 ? ~0ull : s->buf[jh];
    }
    __syncthreads();
}

/* Pass A: keys under lo counted, keys in [lo, hi] binned. */
template <typename SRC> __device__ void histogram(const SRC &src, u64 lo, u64 hi, unsigned shift, sel_shared *s)
{
    for (int i = threadIdx.x; i < SEL_N; i += blockDim.x)
        s->hist[i] = 0;
    if (threadIdx.x == 0)
        s->below = 0;
    __syncthreads();
    u64 below = 0;
    const unsigned lane = threadIdx.x & 31;
    /* a range of every key puts most of a warp's keys in one bin: there one
     * atomic per bin per warp; a sample's bracket spreads the few keys in it
     * over the bins, and a plain atomic each is cheaper than the match */
    const bool crowded = lo == 0 && hi == ~0ull;
    src.each([&](u64 key, bool valid) {
        bool in = valid && key >= lo && key <= hi;
        below += valid && key < lo;
        unsigned bin = in ? bin_of(key, lo, shift) : (unsigned)SEL_N;
        if (!crowded) {
            if (in)
                atomicAdd(&s->hist[bin], 1u);
            return;
        }
        unsigned peers = __match_any_sync(0xffffffffu, bin);
        if (in && (unsigned)(__ffs(peers) - 1) == lane)
            atomicAdd(&s->hist[bin], (unsigned)__popc(peers));
    });
    for (int off = 16; off > 0; off >>= 1)
        below += __shfl_down_sync(0xffffffffu, below, off);
    if (lane == 0 && below)
        atomicAdd(&s->below, below);
    __syncthreads();
}

/* The samples of a block's bracket kept in shared memory (their float
 * bits) by pass A, so that the bins and the second pass read those few
 * (about an eighth of the block) instead of every sample again. */
struct key_cache {
    unsigned *k;
    unsigned cap;   /* 0: none kept */
};

/* Pass A of a block's float samples, where lo and hi are keys of numbers:
 * each sample's bracket test two float comparisons (sp_select_hd.h), the
 * samples in the bracket kept (a warp's at one counter increment), then
 * binned from the cache.  False, with nothing binned, where they do not
 * fit (pass A then runs as for any source). */
__device__ bool histogram_kept(const block_keys &src, u64 lo, u64 hi, unsigned shift, key_cache kc, sel_shared *s)
{
    if (!kc.cap || (lo == 0 && hi == ~0ull) || xc_sp_fkey_nan((uint32_t)lo) || xc_sp_fkey_nan((uint32_t)hi) ||
        src.hi - src.lo > 0xffffffffull)
        return false;   /* the same in every thread */
    for (int i = threadIdx.x; i < SEL_N; i += blockDim.x)
        s->hist[i] = 0;
    if (threadIdx.x == 0) {
        s->below = 0;
        s->ncache = 0;
    }
    __syncthreads();
    const float vlo = xc_sp_fkey_float((uint32_t)lo), vhi = xc_sp_fkey_float((uint32_t)hi);
    const unsigned lane = threadIdx.x & 31;
    unsigned below = 0;   /* at most the block's samples, under 2^32 */
    each_loaded(src.x, src.lo, src.hi, [&](float v, bool valid) {
        const bool in = valid && xc_sp_fkey_inside(v, vlo, vhi);
        below += valid && xc_sp_fkey_below(v, vlo);
        const unsigned want = __ballot_sync(0xffffffffu, in);   /* every lane is here */
        if (want) {
            const int first = __ffs(want) - 1;
            unsigned at = 0;
            if ((int)lane == first)
                at = atomicAdd(&s->ncache, (unsigned)__popc(want));
            at = __shfl_sync(0xffffffffu, at, first) + (unsigned)__popc(want & ((1u << lane) - 1));
            if (in && at < kc.cap)
                kc.k[at] = __float_as_uint(v);
        }
    });
    for (int off = 16; off > 0; off >>= 1)
        below += __shfl_down_sync(0xffffffffu, below, off);
    if (lane == 0 && below)
        atomicAdd(&s->below, (u64)below);
    __syncthreads();
    const unsigned nc = s->ncache;
    if (nc > kc.cap)
        return false;   /* s->below and the bins are made again by pass A */
    for (unsigned i = threadIdx.x; i < nc; i += blockDim.x)
        atomicAdd(&s->hist[bin_of(fkey(__uint_as_float(kc.k[i])), lo, shift)], 1u);
    __syncthreads();
    return true;
}

/* Any other source keeps nothing. */
template <typename SRC>
__device__ bool histogram_kept(const SRC &, u64, u64, unsigned, key_cache, sel_shared *)
{
    return false;
}

/* The bins of ranks k0 and k1 (k0 <= k1 <= k0 + 1): s->b0, b1, before,
 * cnt; s->miss where a rank is outside the range. */
__device__ void find_bins(u64 k0, u64 k1, sel_shared *s)
{
    const int per = SEL_N / SP_THREADS, i0 = threadIdx.x * per;
    u64 c = 0, total;
    for (int i = 0; i < per; i++)
        c += s->hist[i0 + i];
    u64 pre = scan_u64(c, &total, s);
    const u64 below = s->below;
    if (threadIdx.x == 0)
        s->miss = k0 < below || k1 - below >= total;
    __syncthreads();
    if (s->miss)
        return;
    const u64 q0 = k0 - below, q1 = k1 - below;
    for (int i = 0; i < per; i++) {
        u64 h = s->hist[i0 + i];
        if (pre <= q0 && q0 < pre + h) {
            s->b0 = (unsigned)(i0 + i);
            s->before = pre;
            s->cnt = h;
        }
        if (pre <= q1 && q1 < pre + h)
            s->b1 = (unsigned)(i0 + i);
        pre += h;
    }
    if (threadIdx.x == 0) {
        s->got = 0;
        s->min0 = ~0ull;
        s->max0 = 0;
        s->min1 = ~0ull;
    }
    __syncthreads();
}

/* Pass B: the keys of bin b0 gathered (up to SEL_N), its least and largest
 * key, and the least key of bin b1: from the samples pass A kept (kept:
 * the same keys of [lo, hi], in another order, which the sort and the
 * minima and maxima do not see), else from the source. */
template <typename SRC>
__device__ void gather(const SRC &src, u64 lo, u64 hi, unsigned shift, key_cache kc, bool kept, sel_shared *s)
{
    const unsigned b0 = s->b0, b1 = s->b1, lane = threadIdx.x & 31;
    auto take = [&](u64 key, unsigned bin) {
        unsigned want = __ballot_sync(0xffffffffu, bin == b0);
        if (bin == b0) {
            u64 at = 0;
            if (lane == (unsigned)(__ffs(want) - 1))
                at = atomicAdd(&s->got, (u64)__popc(want));
            at = __shfl_sync(want, at, __ffs(want) - 1) + (u64)__popc(want & ((1u << lane) - 1));
            if (at < SEL_N)
                s->buf[at] = key;
            atomicMin(&s->min0, key);
            atomicMax(&s->max0, key);
        } else if (bin == b1)
            atomicMin(&s->min1, key);
    };
    if (kept) {
        const unsigned nc = s->ncache;
        for (unsigned base = 0; base < nc; base += blockDim.x) {   /* the same trip count in every thread */
            const unsigned i = base + threadIdx.x;
            const u64 key = i < nc ? fkey(__uint_as_float(kc.k[i])) : 0;
            take(key, i < nc ? bin_of(key, lo, shift) : (unsigned)SEL_N);
        }
    } else
        src.each([&](u64 key, bool valid) {
            bool in = valid && key >= lo && key <= hi;
            take(key, in ? bin_of(key, lo, shift) : (unsigned)SEL_N);
        });
    __syncthreads();
}

/* The keys of ranks k0 and k1 = k0 or k0 + 1 (0-based, ties counted) of
 * the source's N keys, into *r0, *r1 (every thread). */
template <typename SRC>
__device__ void select_pair(const SRC &src, u64 N, u64 k0, u64 k1, key_cache kc, sel_shared *s, u64 *r0, u64 *r1)
{
    first_range(src, N, k0, s);
    for (;;) {
        const u64 lo = s->lo, hi = s->hi;
        const unsigned shift = bin_shift(lo, hi);
        const bool kept = histogram_kept(src, lo, hi, shift, kc, s);
        if (!kept)
            histogram(src, lo, hi, shift, s);
        find_bins(k0, k1, s);
        if (s->miss) {   /* the sample's bracket missed (only the first range can): every key */
            __syncthreads();
            if (threadIdx.x == 0) {
                s->lo = 0;
                s->hi = ~0ull;
            }
            __syncthreads();
            continue;
        }
        gather(src, lo, hi, shift, kc, kept, s);
        const u64 q0 = k0 - s->below - s->before, q1 = k1 - s->below - s->before;
        if (s->b1 != s->b0) {   /* k1 = k0 + 1 in a later bin: k0 is b0's largest key, k1 b1's least */
            *r0 = s->max0;
            *r1 = s->min1;
            break;
        }
        if (s->min0 == s->max0) {
            *r0 = *r1 = s->min0;
            break;
        }
        if (s->cnt <= (u64)SEL_N) {
            unsigned P = 1;
            while (P < (unsigned)s->cnt)
                P <<= 1;
            for (unsigned i = (unsigned)s->cnt + threadIdx.x; i < P; i += blockDim.x)
                s->buf[i] = ~0ull;
            bitonic(s->buf, P);
            *r0 = s->buf[q0];
            *r1 = s->buf[q1];
            break;
        }
        __syncthreads();   /* more distinct keys in the bin than fit: the bin is the next range */
        if (threadIdx.x == 0) {
            s->lo = s->min0;
            s->hi = s->max0;
        }
        __syncthreads();
    }
    __syncthreads();   /* every thread has read the result before the shared state is reused */
}

/* The median of the source's n keys as the reference's: the middle value,
 * or of an even count the mean of the two middle values. */
template <typename SRC, typename VAL>
__device__ double median(const SRC &src, u64 n, VAL val, key_cache kc, sel_shared *s)
{
    u64 lo, hi;
    select_pair(src, n, (n - 1) / 2, n / 2, kc, s, &lo, &hi);
    return n % 2 ? val(lo) : __ddiv_rn(__dadd_rn(val(lo), val(hi)), 2.0);
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

unsigned sp_medians_cache(size_t longest)
{
    if (longest <= 4 * (size_t)SEL_N)
        return 0;   /* the first range is every key: nothing to keep */
    /* the bracket's share (2 SEL_W + 2 sample ranks of SEL_N, 12.7 %), a
     * quarter more for its spread (about 9 % of it on 1024 sample ranks),
     * within SP_CACHE_MAX */
    const double want = (double)longest * (2 * SEL_W + 2) / SEL_N * 1.25 + 256;
    const size_t cap = ((size_t)want + 255) / 256 * 256;
    return (unsigned)(cap < SP_CACHE_MAX ? cap : SP_CACHE_MAX);
}

size_t sp_medians_shared(unsigned cap)
{
    return (cap > XC_SP_CNT_NB ? cap : XC_SP_CNT_NB) * sizeof(unsigned);
}

__global__ void __launch_bounds__(SP_THREADS) k_sp_prefix(const float *X, size_t xstride, size_t n, double *Pall,
                                                          size_t pstride, int meansd, double *m, size_t mstride,
                                                          double *s)
{
    __shared__ sel_shared sh;
    const size_t r = blockIdx.x;
    const float *x = X + r * xstride;
    double *P = Pall ? Pall + r * pstride : NULL, carry = 0.0, sq = 0.0;
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
        for (int j = 0; P && j < SP_PER && i0 + j < n; j++)
            P[i0 + j + 1] = __dadd_rn(off, loc[j]);
        carry = __dadd_rn(carry, tot);
    }
    double sxx;
    (void)block_scan(sq, &sxx, &sh);
    if (threadIdx.x)
        return;
    if (P)
        P[0] = 0.0;
    if (!meansd)
        return;
    /* xc_sp_mean_sd: m = sx / n, s = sqrt(sxx / n - m m), 0 where not positive */
    double mean = __ddiv_rn(carry, (double)n), var = __dsub_rn(__ddiv_rn(sxx, (double)n), __dmul_rn(mean, mean));
    m[r * mstride] = mean;
    s[r] = var > 0 ? __dsqrt_rn(var) : 0.0;
}

/* 4 blocks an SM: 64 registers, no spills (at 5 blocks, 48 registers, the
 * counting and the selection together spilled).  Each block's median by counting where its
 * samples are integers under 2^24 (sp_gpu_count.cuh; the counts in the
 * kept samples' room), else by selection, and then the row is flagged
 * (introw[r] = 1) so that its MAD is selected too. */
__global__ void __launch_bounds__(SP_THREADS, 4) k_sp_medians(const float *X, size_t xstride, size_t n, size_t L,
                                                              size_t nb, double *M, size_t mstride, unsigned cap,
                                                              int *introw)
{
    __shared__ union {   /* one or the other at a time */
        sel_shared sel;
        cnt_shared cnt;
    } sh;
    extern __shared__ __align__(16) unsigned kept[];
    const size_t r = blockIdx.x;
    const float *x = X + r * xstride;
    for (size_t b = blockIdx.y; b < nb; b += gridDim.y) {
        size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
        double med;
        if (!cnt_median(x, lo, hi, kept, &sh.cnt, &med)) {
            med = median(block_keys{x, lo, hi}, hi - lo, fkey_value, key_cache{kept, cap}, &sh.sel);
            if (threadIdx.x == 0)
                introw[r] = 1;
        }
        if (threadIdx.x == 0)
            M[r * mstride + b] = med;
    }
}

/* The selection's state or the counts, as the row takes one or the other. */
union mad_shared {
    sel_shared sel;
    struct {
        __align__(16) unsigned hist[XC_SP_CNT_NB];
        cnt_shared c;
    } cnt;
};

/* 5 blocks an SM: 48 registers, no spills (the counts' 16 KiB a block). */
__global__ void __launch_bounds__(SP_THREADS, 5) k_sp_mad(const float *X, size_t xstride, size_t n, size_t L, size_t nb,
                                                          const double *M, size_t mstride, double *s,
                                                          const int *introw)
{
    __shared__ mad_shared sh;
    const size_t r = blockIdx.x;
    const float *x = X + r * xstride;
    const double *m = M + r * mstride;
    double mad;
    if (introw[r] || !cnt_mad(x, n, L, nb, m, sh.cnt.hist, &sh.cnt.c, &mad))
        mad = median(dev_keys{x, n, L, nb, m}, n, dkey_value, key_cache{NULL, 0}, &sh.sel);
    if (threadIdx.x == 0)
        s[r] = __dmul_rn(XC_SP_MAD_SCALE, mad);
}

} // namespace xcsp
