/* Pulscan on the GPU, device side: the stages of the Pulscan paper's GPU
 * pipeline (section 2.6, Table 4) with the semantics of xc_search.h.
 *
 * Every value that decides a peak is computed with the CPU's double
 * operations in the CPU's order, so powers and boxcar sums are the CPU's bit
 * for bit: products and sums written with __dmul_rn/__dadd_rn where nvcc
 * would otherwise fuse them into an FMA (the host compiler, without -mfma,
 * never does).  Only the bulk screen runs in float, with thresholds lowered by
 * more than a float sum can err, so it never drops a boxcar the double sum
 * would keep; the double pass then decides. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "optimized/gpu/pulscan_gpu.h"
#include "core/xc_chi2_even.h"

namespace xcps {

/* ---- separate --------------------------------------------------------- */

__global__ void k_separate(const float2 *in, float *re, float *im, size_t n)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        float2 v = in[k];
        re[k] = v.x;
        im[k] = v.y;
    }
}

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

const int NBUCKET = 2048, MAXCAND = 1024;

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

/* The key of rank k (0-based) among n keys: 8 bits per pass, most
 * significant first, counting only keys that match the digits found so far. */
template <bool DEV>
__device__ uint64_t block_select(const float *x, size_t n, double med, unsigned long long k, sel_shared *s)
{
    uint64_t prefix = 0, mask = 0;
    const int bits = DEV ? 64 : 32;
    for (int shift = bits - 8; shift >= 0; shift -= 8) {
        for (int i = threadIdx.x; i < 256; i += blockDim.x)
            s->hist[i] = 0;
        __syncthreads();
        for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
            uint64_t key = DEV ? dkey(x[i], med) : fkey(x[i]);
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
template <bool DEV>
__device__ double block_median_radix(const float *x, size_t n, double med, sel_shared *s)
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
            uint64_t key = DEV ? dkey(x[i], med) : fkey(x[i]);
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
template <bool DEV> __device__ inline uint64_t mkey(float x, double med) { return DEV ? dkey(x, med) : fkey(x); }
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

__device__ inline unsigned bucket_of(uint64_t key, uint64_t kbase, int shift)
{
    return key <= kbase ? 0u : (unsigned)min((key - kbase) >> shift, (uint64_t)NBUCKET - 1);
}

/* The exact median as the CPU's: the values' order-preserving integer keys
 * (no conversions in the passes) spread monotonically over NBUCKET buckets,
 * the bucket holding the lower middle rank found from the counts, and the
 * rank selected among its few members (the ranks, hence the values, are
 * exact whatever the buckets).  Float parts: buckets over [min, max] of the
 * keys.  Deviations (>= 0, at most dmax): 64 buckets per octave over the 32
 * octaves below dmax, anything smaller in bucket 0.  A bucket with more than
 * MAXCAND members (heavily repeated values) falls back to the radix select.
 * *kmin, *kmax: the float parts' key range (for the deviations' dmax). */
template <bool DEV>
__device__ double block_median(const float *x, size_t n, double med, double dmax, sel_shared *s, norm_shared *ns,
                               uint64_t *kmin, uint64_t *kmax)
{
    uint64_t kbase;
    int shift;
    if (!DEV) {
        uint64_t lo = ~0ull, hi = 0;
        for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
            uint64_t k = fkey(x[i]);
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
        }
        lo = block_reduce_key(lo, false, ns->red);
        hi = block_reduce_key(hi, true, ns->red);
        *kmin = lo;
        *kmax = hi;
        if (lo == hi)
            return (double)fval(lo);
        kbase = lo;
        shift = 0;
        while (((hi - lo) >> shift) >= (uint64_t)NBUCKET)
            shift++;
    } else {
        if (!(dmax > 0))
            return 0.0;     /* every value equals the median */
        const uint64_t span = 32ull << 52, kd = (uint64_t)__double_as_longlong(dmax);
        kbase = kd > span ? kd - span : 0;
        shift = 46;         /* 2^52 keys per octave / 64 */
    }
    for (int b = threadIdx.x; b < NBUCKET; b += blockDim.x)
        ns->hist[b] = 0;
    __syncthreads();
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
        atomicAdd(&ns->hist[bucket_of(mkey<DEV>(x[i], med), kbase, shift)], 1u);
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
        uint64_t k = mkey<DEV>(x[i], med);
        if (bucket_of(k, kbase, shift) == bk)
            ns->cand[atomicAdd(&ns->m, 1u)] = kval<DEV>(k);
    }
    __syncthreads();
    double vl = cand_rank(ns->cand, cnt, kl - cum, &ns->out), vu = vl;
    if (ku != kl) {
        if (ku - cum < cnt) {
            vu = cand_rank(ns->cand, cnt, ku - cum, &ns->out);
        } else {     /* the upper middle is the smallest value of the next buckets */
            uint64_t u = ~0ull;
            for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
                uint64_t k = mkey<DEV>(x[i], med);
                if (bucket_of(k, kbase, shift) > bk && k < u)
                    u = k;
            }
            vu = kval<DEV>(block_reduce_key(u, false, ns->red));
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
 * block_stats.  scratch: 2 * nbins doubles (MoM only). */
__global__ void k_normalise(const float *re, const float *im, size_t nbins, size_t normwidth, size_t nb, int mom,
                            int stage, double *scratch, double *med, double *mad)
{
    __shared__ sel_shared s;
    __shared__ norm_shared ns;
    size_t t = blockIdx.x, b = t / 2;
    int part = (int)(t % 2);
    size_t lo = 1 + b * normwidth, hi = b + 1 == nb ? nbins : lo + normwidth, n = hi - lo;
    const float *x = (part ? im : re) + lo;
    if (stage) {     /* every pass then reads shared memory */
        extern __shared__ float xs[];
        for (size_t k = threadIdx.x; k < n; k += blockDim.x)
            xs[k] = x[k];
        __syncthreads();
        x = xs;
    }
    double m, d;
    if (mom) {
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
    } else {
        uint64_t kmin = 0, kmax = 0;
        m = block_median<false>(x, n, 0.0, 0.0, &s, &ns, &kmin, &kmax);
        double dmax = fmax(fabs((double)fval(kmin) - m), fabs((double)fval(kmax) - m));
        d = block_median<true>(x, n, m, dmax, &s, &ns, &kmin, &kmax);
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

/* ---- power, decimate -------------------------------------------------- */

__global__ void k_power(const float *re, const float *im, size_t nbins, size_t normwidth, size_t nb,
                        const double *med, const double *scale, double *P)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nbins; k += (size_t)gridDim.x * blockDim.x) {
        if (k == 0) {
            P[0] = 0;
            continue;
        }
        size_t b = (k - 1) / normwidth;
        if (b >= nb)
            b = nb - 1;
        double r = __ddiv_rn(__dsub_rn((double)re[k], med[2 * b]), scale[2 * b]);
        double i = __ddiv_rn(__dsub_rn((double)im[k], med[2 * b + 1]), scale[2 * b + 1]);
        P[k] = __dadd_rn(__dmul_rn(r, r), __dmul_rn(i, i));
    }
}

__device__ inline double sh(const double *P, int h, size_t x) { return xc_pulscan_sh(P, h, x); }

/* Float copies of every stage's S_h (-inf for S_h[0], which holds DC), one
 * pass over P for all stages; the double values are recomputed from P where
 * the exact pass needs them. */
__global__ void k_decimate(const double *P, stage_set S, int nh)
{
    for (size_t x = blockIdx.x * (size_t)blockDim.x + threadIdx.x; x < S.L[0]; x += (size_t)gridDim.x * blockDim.x)
        for (int h = 1; h <= nh && x < S.L[h - 1]; h++)
            S.Sf[h - 1][x] = x == 0 ? -INFINITY : (float)sh(P, h, x);
}

/* ---- boxcar: the float screen ----------------------------------------- */

/* Thread t of a block owns starts b0 + 8t .. b0 + 8t + 7 (one group) and
 * runs the recursion along widths with its 8 sums in registers.  Width
 * chunk c (widths 8c+1 .. 8c+8) reads the window b0 + 8(t+c) + 0..15, two
 * 8-value segments of shared memory; segments are stored 9 floats apart so
 * that a warp's 32 threads reading segment t+c hit 32 different banks.  One
 * segment load serves 64 additions.  A group is flagged when any of its
 * boxcars beats its width's (lowered) threshold, tested at every searched
 * width (widths not searched have +infinity).  (Testing once per chunk
 * against the chunk's lowest threshold, which the growing sums would allow,
 * passes far too much noise: seven more bins raise the mean of a stage-h sum
 * by 7 h(h+1), as much as a threshold's margin over its mean.)
 * One launch covers every stage: S.tile0[h-1] is the first block of stage h. */
/* ex keeps the largest excess over threshold seen (a float, not a flag: a
 * bool costs five conversion instructions per test). */
__device__ __forceinline__ void screen_chunk(float *acc, const float *a, const float *b, const float *th, float &ex)
{
#pragma unroll
    for (int u = 0; u < 8; u++) {
#pragma unroll
        for (int j = 0; j < 8; j++)
            acc[j] += j + u < 8 ? a[j + u] : b[j + u - 8];
        float t = th[u];
        if (t < INFINITY) {
            float m = fmaxf(fmaxf(fmaxf(acc[0], acc[1]), fmaxf(acc[2], acc[3])),
                            fmaxf(fmaxf(acc[4], acc[5]), fmaxf(acc[6], acc[7])));
            ex = fmaxf(ex, m - t);
        }
    }
}

__global__ void __launch_bounds__(PS_THREADS) k_screen(stage_set S, int nh, const float *thf, int zstride,
                                                        unsigned long long *list, unsigned cap, unsigned *count)
{
    extern __shared__ float sm[];
    float *sth = sm;                         /* PS_PHASE thresholds (+8 of padding) */
    float *win = sm + PS_PHASE + 8;          /* (PS_THREADS + PS_PHASE/8 + 2) segments of 9 */
    int h = 1;
    while (h < nh && blockIdx.x >= S.tile0[h])
        h++;
    const float *Sf = S.Sf[h - 1];
    const size_t L = S.L[h - 1];
    const int wmax = S.wmax[h - 1];
    const float *th_h = thf + (size_t)(h - 1) * zstride;
    const int t = threadIdx.x;
    const size_t b0 = 1 + (size_t)(blockIdx.x - S.tile0[h - 1]) * PS_TILE;
    float acc[8];
#pragma unroll
    for (int j = 0; j < 8; j++)
        acc[j] = 0.f;
    float ex = -INFINITY;
    const int nchunk = (wmax + 7) / 8;
    for (int c0 = 0; c0 < nchunk; c0 += PS_PHASE / 8) {
        /* an even number of chunks (the last one's widths past wmax have
         * +infinity thresholds), so the loop below can alternate roles */
        const int nc = (min(nchunk - c0, PS_PHASE / 8) + 1) & ~1;
        const int ne = (PS_THREADS + nc + 1) * 8;
        __syncthreads();
        for (int e = t; e < ne; e += PS_THREADS) {
            size_t x = b0 + 8 * (size_t)c0 + (size_t)e;
            win[e + (e >> 3)] = x < L ? Sf[x] : -INFINITY;
        }
        for (int e = t; e < nc * 8; e += PS_THREADS) {
            int w = 8 * c0 + e + 1;
            sth[e] = w <= wmax ? th_h[w] : INFINITY;
        }
        __syncthreads();
        float p[8], q[8];
#pragma unroll
        for (int k = 0; k < 8; k++)
            p[k] = win[t * 9 + k];
        for (int cc = 0; cc < nc; cc += 2) {
#pragma unroll
            for (int k = 0; k < 8; k++)
                q[k] = win[(t + cc + 1) * 9 + k];
            screen_chunk(acc, p, q, sth + cc * 8, ex);
#pragma unroll
            for (int k = 0; k < 8; k++)
                p[k] = win[(t + cc + 2) * 9 + k];
            screen_chunk(acc, q, p, sth + (cc + 1) * 8, ex);
        }
    }
    if (ex > 0) {
        unsigned idx = atomicAdd(count, 1u);
        if (idx < cap)
            list[idx] = ((unsigned long long)((b0 - 1) / 8 + t) << 4) | (unsigned long long)(h - 1);
    }
}

/* ---- boxcar: the exact pass over flagged groups ------------------------- */

/* 1 if the boxcar (start i, width w) of stage h exists: it lies inside
 * S_h[1..L-1] and its harmonics' bins do not overlap (i >= (h-1) w). */
__device__ inline bool exists(size_t i, int w, int h, size_t L)
{
    return i >= 1 && i >= (size_t)(h - 1) * (size_t)w && i + (size_t)w - 1 <= L - 1;
}

/* xc_pulscan_filled with the quarter sums from Q: differences of pre, the
 * running sum of S_h from the window's first bin (a few hundred bins, so far
 * less cancellation than the CPU's prefix sums over the spectrum), for the
 * local maxima; summed directly from P for R-block peaks anywhere. */
struct quarter_pre {
    const double *pre;
    size_t base;
    __device__ double operator()(size_t a, size_t b) const { return pre[b - base] - pre[a - base]; }
};

struct quarter_direct {
    const double *P;
    int h;
    __device__ double operator()(size_t a, size_t b) const
    {
        double qs = 0;
        for (size_t x = a; x < b; x++)
            qs += xc_pulscan_sh(P, h, x);
        return qs;
    }
};

template <typename Q> __device__ int dev_filled(const Q &quarter, size_t i, int width, int h, double power)
{
    if (power == -INFINITY)
        return 0;
    if (width < 4)
        return 1;
    double per = (double)h * (h + 1) / 2;
    double excess = __dsub_rn(power, __dmul_rn(2.0 * width, per));
    if (!(excess > 0))
        return 0;
    for (int q = 0; q < 4; q++) {
        size_t a = i + (size_t)(q * width / 4), b = i + (size_t)((q + 1) * width / 4);
        if (__dsub_rn(quarter(a, b), __dmul_rn(2.0 * (double)(b - a), per)) < excess / 16)
            return 0;
    }
    return 1;
}

__device__ inline double dev_score(double power, double dof) { return xc_pulscan_score_inline(power, dof); }

__device__ inline void push(dpeak *out, unsigned cap, unsigned *count, size_t i, int w, int h, double v)
{
    unsigned k = atomicAdd(count, 1u);
    if (k < cap) {
        dpeak p;
        p.i = i;
        p.width = w;
        p.h = h;
        p.power = v;
        p.logp = NAN;
        p.filled = -1;
        p.pad = 0;
        out[k] = p;
    }
}

/* One block per flagged group at a time (grid-stride).  The group's window
 * of S_h (starts i0-1 .. i0+8 plus the widest boxcar) is built from P in
 * shared memory (or the block's slice of global scratch when it does not
 * fit); threads 0..9 build the rows of the ten starts at the searched widths
 * by the CPU's recursion (the same additions in the same order, so the same
 * bits), while thread 32 builds the window's running sum for the fill test;
 * then every entry's score is tabulated, and the entries of starts
 * i0..i0+7 are judged against their neighbours.  Local-maximum mode pushes
 * peaks; R-block mode pushes every entry above its threshold for the host's
 * per-block maximum. */
__global__ void k_exact(const double *P, stage_set S, const unsigned long long *list, unsigned nlist,
                        const double *thr, int zstride, const int *W, int rblock, double *scratch, size_t xdoubles,
                        dpeak *out, unsigned cap, unsigned *count)
{
    extern __shared__ double xsm[];
    const int nw = S.wmax_all, nr = S.nrows_all;
    double *base = scratch ? scratch + blockIdx.x * xdoubles : xsm;
    double *win = base, *pre = win + (EX_J + nw), *tab = pre + (EX_J + nw + 1), *sc = tab + (size_t)nr * EX_J;
    double *throws = sc + (size_t)nr * EX_J;     /* threshold of each row, this group's stage */
    int *Ws = (int *)(throws + nr);              /* the searched widths */
    unsigned char *rowmask = (unsigned char *)(Ws + nr);   /* bit k of byte b: width 8b+k+1 is a row */
    for (int r = threadIdx.x; r < nr; r += blockDim.x)
        Ws[r] = W[r];
    for (int b = threadIdx.x; b < nw / 8 + 1; b += blockDim.x) {
        unsigned m = 0;
        for (int r = 0; r < nr; r++)
            if ((W[r] - 1) / 8 == b)
                m |= 1u << ((W[r] - 1) % 8);
        rowmask[b] = (unsigned char)m;
    }
    for (unsigned e = blockIdx.x; e < nlist; e += gridDim.x) {
        unsigned long long key = list[e];
        const int h = (int)(key & 15) + 1;
        const size_t g = (size_t)(key >> 4), i0 = 1 + 8 * g, b0 = i0 - 1, L = S.L[h - 1];
        const int wmax = S.wmax[h - 1], nrows = S.nrows[h - 1], nwin = EX_J - 1 + wmax;
        __syncthreads();
        for (int q = threadIdx.x; q < nwin; q += blockDim.x) {
            size_t x = b0 + (size_t)q;
            win[q] = x == 0 || x >= L ? -INFINITY : sh(P, h, x);
        }
        for (int r = threadIdx.x; r < nrows; r += blockDim.x)
            throws[r] = thr[(size_t)(h - 1) * zstride + Ws[r]];
        __syncthreads();
        if (threadIdx.x < EX_J) {
            /* The recursion is one long chain of dependent additions: eight
             * bins are loaded ahead of their adds, and which widths are rows
             * comes from a bit mask, so nothing but the adds waits. */
            const double *src = win + threadIdx.x;
            const int wlast = nrows ? Ws[nrows - 1] : 0;
            double acc = 0;
            int r = 0;
            for (int w0 = 0; w0 < wlast; w0 += 8) {
                double v[8];
#pragma unroll
                for (int k = 0; k < 8; k++)
                    v[k] = w0 + k < wlast ? src[w0 + k] : 0.0;
                const unsigned m = rowmask[w0 / 8];
#pragma unroll
                for (int k = 0; k < 8; k++)
                    if (w0 + k < wlast) {
                        acc += v[k];
                        if (m >> k & 1u)
                            tab[r++ * EX_J + threadIdx.x] = acc;
                    }
            }
        } else if (threadIdx.x == 32) {
            double c = 0;
            pre[0] = 0;
            int q = 0;
            for (; q + 4 <= nwin; q += 4) {
                double a = win[q], b = win[q + 1], d = win[q + 2], e2 = win[q + 3];
                c += isinf(a) ? 0.0 : a;
                pre[q + 1] = c;
                c += isinf(b) ? 0.0 : b;
                pre[q + 2] = c;
                c += isinf(d) ? 0.0 : d;
                pre[q + 3] = c;
                c += isinf(e2) ? 0.0 : e2;
                pre[q + 4] = c;
            }
            for (; q < nwin; q++) {
                c += isinf(win[q]) ? 0.0 : win[q];
                pre[q + 1] = c;
            }
        }
        __syncthreads();
        /* Scores only where the local-maximum test will read them: within one
         * start and one row of an entry above its threshold. */
        for (int it = threadIdx.x; it < EX_J * nrows; it += blockDim.x) {
            int j = it % EX_J, r = it / EX_J, w = Ws[r];
            size_t start = b0 + (size_t)j;
            bool need = false;
            for (int rr = max(r - 1, 0); rr <= min(r + 1, nrows - 1) && !need; rr++)
                for (int jj = max(j - 1, 1); jj <= min(j + 1, 8) && !need; jj++)
                    need = tab[rr * EX_J + jj] > throws[rr];
            double v = tab[it];
            sc[it] = need && !rblock && exists(start, w, h, L) && dev_filled(quarter_pre{pre, b0}, start, w, h, v)
                         ? dev_score(v, (double)w * h * (h + 1))
                         : -INFINITY;
        }
        __syncthreads();
        for (int it = threadIdx.x; it < 8 * nrows; it += blockDim.x) {
            int j = 1 + it % 8, r = it / 8, w = Ws[r];
            size_t start = b0 + (size_t)j;
            double v = tab[r * EX_J + j];
            if (!(v > throws[r]) || !exists(start, w, h, L))
                continue;
            if (rblock) {
                push(out, cap, count, start, w, h, v);
                continue;
            }
            const double *row = sc + (size_t)r * EX_J;
            double s0 = row[j];
            if (s0 == -INFINITY || !(s0 > row[j - 1] && s0 >= row[j + 1]))
                continue;
            if (r > 0 && !(s0 > fmax(row[j - 1 - EX_J], fmax(row[j - EX_J], row[j + 1 - EX_J]))))
                continue;
            if (r + 1 < nrows && !(s0 >= fmax(row[j - 1 + EX_J], fmax(row[j + EX_J], row[j + 1 + EX_J]))))
                continue;
            push(out, cap, count, start, w, h, v);
        }
    }
}

/* ---- log p ------------------------------------------------------------ */

__global__ void k_logp(dpeak *pk, unsigned n, const double *P, int poly, int fill)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        dpeak p = pk[k];
        double dof = (double)p.width * p.h * (p.h + 1);
        if (poly)
            p.logp = xc_logp_poly_gpu_eval(p.power, dof);
        else if (!(p.power > 0))
            p.logp = 0.0;
        else if (p.power == INFINITY)
            p.logp = -INFINITY;
        else
            p.logp = xc_chi2_logq_even((long)(dof / 2), 0.5 * p.power);
        if (fill)
            p.filled = dev_filled(quarter_direct{P, p.h}, p.i, p.width, p.h, p.power);
        pk[k] = p;
    }
}

} // namespace xcps
