/* GPU single-pulse search, the boxes (sp_gpu.h): every box's S/N from
 * prefix sums, and each maximal run of snr >= threshold walked by the thread
 * at its first sample, which appends the run's best box.  The S/N is the
 * reference's formula evaluated operation for operation.
 *
 * k_sp_tiles (widths up to SP_WTILE): a block per row and tile of SP_TILE
 * boxes sums the tile's samples and the widest box's beyond it into shared
 * memory once, then judges every width from there: a box whose S - B is
 * below a cut under threshold x (s sqrt(w)) is not divided, the rest are
 * judged exactly; a run is cut at the tile's end and the host joins the
 * pieces.  k_sp_boxes (wider boxes) reads a row's prefix sums in global
 * memory. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "optimized/gpu/sp_flag_hd.h"
#include "optimized/gpu/sp_gpu.h"

namespace xcsp {

namespace {

/* xc_sp_box_baseline: over the blocks the box [t, t+w) overlaps, in
 * increasing order, (its samples in the block) x m[b], summed from 0.0. */
__device__ inline double baseline_from(const double *m, size_t n, size_t L, size_t nb, size_t b, size_t t, size_t w)
{
    size_t end = t + w;
    double B = 0.0;
    for (; b < nb && b * L < end; b++) {
        size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
        size_t a = t > lo ? t : lo, z = end < hi ? end : hi;
        B = __dadd_rn(B, __dmul_rn((double)(z - a), m[b]));
    }
    return B;
}

/* b: the block of t (t / L, at most nb - 1). */
__device__ inline double box_baseline(const double *m, size_t n, size_t L, size_t nb, size_t t, size_t w)
{
    return baseline_from(m, n, L, nb, t / L < nb ? t / L : nb - 1, t, w);
}

/* snr = (S - B) / (s sqrt(w)), S = P[t + w] - P[t]. */
__device__ inline double box_snr(const double *P, const double *m, size_t n, size_t L, size_t nb, double s, size_t t,
                                 size_t w)
{
    double S = __dsub_rn(P[t + w], P[t]);
    return __ddiv_rn(__dsub_rn(S, box_baseline(m, n, L, nb, t, w)), __dmul_rn(s, __dsqrt_rn((double)w)));
}

/* The run of boxes of width w with snr(u) >= thr that starts at t (snr(t - 1)
 * below it, or t == lo), followed while u < end: its best box appended to
 * out, unless t does not start a run. */
template <class F>
__device__ void run_at(const F &snr, size_t t, size_t lo, size_t end, double thr, size_t w, int k, int32_t row,
                       xc_spdet *out, unsigned long long *count, unsigned long long cap)
{
    double best = snr(t);
    if (!(best >= thr) || (t > lo && snr(t - 1) >= thr))
        return;   /* not above threshold, or not the run's first sample */
    size_t at = t, u = t + 1;
    for (; u < end; u++) {
        double v = snr(u);
        if (!(v >= thr))
            break;
        if (v > best) {
            best = v;
            at = u;
        }
    }
    unsigned long long i = atomicAdd(count, 1ull);
    if (i < cap)
        out[i] = xc_spdet{best, (int64_t)at, (int32_t)w, (int32_t)k, row, (int64_t)t, (int64_t)(u - 1 + w)};
}

} // namespace

__global__ void __launch_bounds__(SP_THREADS) k_sp_boxes(const double *Pall, size_t pstride, size_t n,
                                                         const double *M, size_t mstride, size_t L, size_t nb,
                                                         const double *S, const int32_t *widths, double thr,
                                                         int32_t row0, xc_spdet *out, unsigned long long *count,
                                                         unsigned long long cap)
{
    const size_t r = blockIdx.z, k = blockIdx.y, w = (size_t)widths[k];
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const double s = S[r];
    if (!(s > 0) || w > n || t + w > n)
        return;
    const double *P = Pall + r * pstride, *m = M + r * mstride;
    run_at([&](size_t u) { return box_snr(P, m, n, L, nb, s, u, w); }, t, 0, n - w + 1, thr, w, (int)k,
           row0 + (int32_t)r, out, count, cap);
}

namespace {

const int SP_TPER = (int)(SP_TILE / SP_THREADS);   /* boxes per thread of a tile */
static_assert(SP_TPER <= 32, "a thread's boxes of a width are bits of one word");

const int SP_LOADS = 8;   /* samples a thread loads before it stores any (loads in flight) */

/* In place, Q[1..len] holding the terms: Q[0] = 0, Q[i + 1] = Q[0] + ... +
 * the term at i: each warp a run of whole 32-sample steps in order, then the
 * warps' totals in order (exact for integer-valued doubles below 2^53, as
 * every prefix-sum order is).  Any Q[i + 1] is reached through at most
 * 5 + steps + 1 + warps + 1 roundings (lanes, the warp's carry, the warps'
 * offset; steps <= (SP_TILE - 1 + SP_WTILE) / 256 = 48): under 64, the
 * bound the float filter's margin takes for the exact path's sums below. */
__device__ inline double add_rn(double a, double b) { return __dadd_rn(a, b); }

template <typename T> __device__ void scan_inplace(T *Q, size_t len, T *wsum)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const size_t seg = (len + 32 * nwarps - 1) / (32 * nwarps) * 32, a = warp * seg, e = a + seg < len ? a + seg : len;
    T carry = 0;
    for (size_t c = a; c < e; c += 32) {
        size_t i = c + lane;
        T inc = i < e ? Q[i + 1] : (T)0;
        for (int off = 1; off < 32; off <<= 1) {
            T y = __shfl_up_sync(0xffffffffu, inc, off);
            if ((int)lane >= off)
                inc = add_rn(y, inc);
        }
        if (i < e)
            Q[i + 1] = add_rn(carry, inc);
        carry = add_rn(carry, __shfl_sync(0xffffffffu, inc, 31));
    }
    if (lane == 0)
        wsum[warp] = carry;
    if (threadIdx.x == 0)
        Q[0] = 0;
    __syncthreads();
    T off = 0;
    for (unsigned w = 0; w < warp; w++)
        off = add_rn(off, wsum[w]);
    if (warp > 0)
        for (size_t i = a + lane; i < e; i += 32)
            Q[i + 1] = add_rn(off, Q[i + 1]);
    __syncthreads();
}

/* f(e, x[e]) for the thread's samples e < len (threadIdx.x, + blockDim.x,
 * ...) in increasing order, LOADS loads a thread in flight before any is
 * used (coalesced; one load at a time would wait its latency per 32-sample
 * step). */
template <int LOADS = SP_LOADS, typename FN> __device__ inline void each_sample(const float *x, unsigned len, FN f)
{
    for (unsigned i = threadIdx.x; i < len; i += LOADS * blockDim.x) {
        float v[LOADS];
#pragma unroll
        for (int j = 0; j < LOADS; j++)
            v[j] = i + j * blockDim.x < len ? __ldg(x + i + j * blockDim.x) : 0.0f;
#pragma unroll
        for (int j = 0; j < LOADS; j++) {
            const unsigned e = i + j * blockDim.x;
            if (e >= len)
                break;
            f(e, v[j]);
        }
    }
}

/* Q[0] = 0, Q[i + 1] = Q[i] + x[i] for i < len: the tile's samples first
 * copied into Q[1..len], then scanned. */
__device__ void tile_prefix(const float *x, size_t len, double *Q, double *wsum)
{
    each_sample(x, (unsigned)len, [&](unsigned e, float v) { Q[e + 1] = (double)v; });
    __syncthreads();
    scan_inplace(Q, len, wsum);
}

/* The S - B of width w under which no box has snr >= thr, *den = s sqrt(w):
 * fl(num / den) >= thr implies num >= thr den (1 - 2^-52), so a cut 2^-48 of
 * |thr den| below thr den has no detection under it. */
__device__ inline double box_cut(double s, size_t w, double thr, double *den)
{
    *den = __dmul_rn(s, __dsqrt_rn((double)w));
    const double td = __dmul_rn(thr, *den);
    return __dsub_rn(td, __dmul_rn(fabs(td), 0x1p-48));
}

/* A block's end e (> t0) as an offset from t0, clamped to 2^32 - 1 (past
 * the end of any box of a tile). */
__device__ inline unsigned local_end(size_t e, size_t t0)
{
    return e - t0 < 0xffffffffu ? (unsigned)(e - t0) : 0xffffffffu;
}

/* each_sample's f(e, x[e]) in the same order, whole steps of LOADS x
 * blockDim.x samples without a bounds test (the step's trip count is the
 * same in every thread), each load at a fixed offset from the thread's
 * pointer, the sample's index in 32 bits; the last, partial step tested as
 * each_sample tests it.  For the filter only: k_sp_tiles, which shares
 * each_sample, spilled with this loop. */
template <int LOADS, typename FN> __device__ inline void each_sample_whole(const float *x, unsigned len, FN f)
{
    const unsigned step = (unsigned)LOADS * blockDim.x;
    const float *xt = x + threadIdx.x;
    unsigned e0 = threadIdx.x, left = len;
    for (; left >= step; left -= step, xt += step, e0 += step) {
        float v[LOADS];
#pragma unroll
        for (int j = 0; j < LOADS; j++)
            v[j] = __ldg(xt + j * blockDim.x);
#pragma unroll
        for (int j = 0; j < LOADS; j++)
            f(e0 + j * blockDim.x, v[j]);
    }
    if (!left)
        return;
    float v[LOADS];
#pragma unroll
    for (int j = 0; j < LOADS; j++)
        v[j] = threadIdx.x + j * blockDim.x < left ? __ldg(xt + j * blockDim.x) : 0.0f;
#pragma unroll
    for (int j = 0; j < LOADS; j++) {
        if (threadIdx.x + j * blockDim.x >= left)
            break;
        f(e0 + j * blockDim.x, v[j]);
    }
}

/* Loads in flight a thread in the filter's deviations: 18 samples a thread
 * (len = SP_FTILE - 1 + W, W = 2048) in three steps of 6, not 8 (of which a
 * third step would hold 2). */
const int SP_FLOADS = 6;

/* F[i + 1] = x[i] - m_b for i < len in float (m_b, the baseline of sample
 * t0 + i's block, rounded to float); *a the thread's sum of |F[i + 1]|, *mx
 * its largest |m_b| (as floats).  Block ends as offsets from t0 in 32 bits,
 * |m_b| taken where the block changes: 64-bit block arithmetic a sample was
 * most of the pass's instructions. */
__device__ void tile_deviations(const float *x, const double *m, size_t t0, unsigned len, size_t n, size_t L,
                                size_t nb, float *F, float *a, float *mx)
{
    float sa = 0.0f;
    size_t b = (t0 + threadIdx.x) / L < nb ? (t0 + threadIdx.x) / L : nb - 1;
    unsigned ub = local_end(b + 1 == nb ? n : (b + 1) * L, t0);
    float mf = __double2float_rn(m[b]), sm = threadIdx.x < len ? fabsf(mf) : 0.0f;
    each_sample_whole<SP_FLOADS>(x, len, [&](unsigned e, float v) {
        if (e >= ub) {
            do {
                b++;
                ub = local_end(b + 1 == nb ? n : (b + 1) * L, t0);
            } while (e >= ub);
            mf = __double2float_rn(m[b]);
            sm = fmaxf(sm, fabsf(mf));
        }
        const float y = __fsub_rn(v, mf);
        F[e + 1] = y;
        sa = __fadd_rn(sa, fabsf(y));
    });
    *a = sa;
    *mx = sm;
}

/* One width's boxes over a tile [t0, tend), Q its prefix sums. */
struct tile_width {
    const double *Q, *m;
    size_t t0, tend, n, L, nb, w;
    double den, thr;

    __device__ double snr(size_t t) const
    {
        size_t b = t / L < nb ? t / L : nb - 1;
        double S = __dsub_rn(Q[t - t0 + w], Q[t - t0]);
        return __ddiv_rn(__dsub_rn(S, baseline_from(m, n, L, nb, b, t, w)), den);
    }

    /* The segment of a run that starts at t in this tile (t above the
     * threshold, t - 1 not or outside the tile), to the tile's end at most;
     * end = its last box's t + w. */
    __device__ void run_from(size_t t, int k, int32_t row, xc_spdet *out, unsigned long long *count,
                             unsigned long long cap) const
    {
        run_at([this](size_t u) { return snr(u); }, t, t0, tend, thr, w, k, row, out, count, cap);
    }
};

} // namespace

__global__ void __launch_bounds__(SP_THREADS, 3) k_sp_tiles(const float *X, size_t xstride, size_t n, const double *M,
                                                         size_t mstride, size_t L, size_t nb, const double *S,
                                                         const int32_t *widths, int nw, size_t W, double thr,
                                                         const uint2 *list, const unsigned *nlist, int32_t row0,
                                                         xc_spdet *out, unsigned long long *count,
                                                         unsigned long long cap)
{
    extern __shared__ double Q[];
    __shared__ double wsum[SP_THREADS / 32];
    for (unsigned li = blockIdx.x; li < *nlist; li += gridDim.x) {
        const size_t r = list[li].x, t0 = (size_t)list[li].y * SP_TILE;
        const double s = S[r];
        if (!(s > 0))
            continue;   /* the whole block: s is the row's */
        const float *x = X + r * xstride;
        const double *m = M + r * mstride;
        size_t len = n - t0 < SP_TILE - 1 + W ? n - t0 : SP_TILE - 1 + W;
        tile_prefix(x + t0, len, Q, wsum);
        const size_t t1 = t0 + threadIdx.x, b1 = t1 / L < nb ? t1 / L : nb - 1;
        for (int k = 0; k < nw; k++) {
            const size_t w = (size_t)widths[k];
            if (w > n || t0 + w > n)
                break;   /* ascending: no box of this width or wider starts in the tile */
            tile_width z;
            z.Q = Q, z.m = m, z.t0 = t0, z.n = n, z.L = L, z.nb = nb, z.w = w, z.thr = thr;
            z.tend = n - w + 1 < t0 + SP_TILE ? n - w + 1 : t0 + SP_TILE;
            const double cut = box_cut(s, w, thr, &z.den);
            size_t b = b1, hib = b + 1 == nb ? n : (b + 1) * L;
            double Bw = __dadd_rn(0.0, __dmul_rn((double)w, m[b]));
            /* offsets inside the tile in 32 bits (u = t - t0; the block's end
             * clamped, past any box's end): 64-bit index arithmetic was most of
             * a box's instructions */
            const unsigned uend = (unsigned)(z.tend - t0), uw = (unsigned)w;
            unsigned uhib = local_end(hib, t0);
            const double *Qw = Q + w;
            /* two passes: every box's comparison first, with no call
             * between them (their shared loads all in flight; a possible
             * run walk after each box serialised them), a bit per box above
             * the cut; then the runs from the set bits */
            unsigned hit = 0;
#pragma unroll
            for (int j = 0; j < SP_TPER; j++) {
                const unsigned u = threadIdx.x + (unsigned)j * SP_THREADS;
                if (u >= uend)
                    break;
                if (u >= uhib) {
                    while (t0 + u >= hib) {
                        b++;
                        hib = b + 1 == nb ? n : (b + 1) * L;
                    }
                    uhib = local_end(hib, t0);
                    Bw = __dadd_rn(0.0, __dmul_rn((double)w, m[b]));
                }
                /* Q read from shared memory per width: a register copy of
                 * this thread's SP_TPER values held the kernel at 126
                 * registers, 2 blocks an SM */
                const double Sv = __dsub_rn(Qw[u], Q[u]);
                const double B = u + uw <= uhib ? Bw : baseline_from(m, n, L, nb, b, t0 + u, w);
                if (__dsub_rn(Sv, B) >= cut)
                    hit |= 1u << j;
            }
            while (hit) {
                const int j = __ffs(hit) - 1;
                hit &= hit - 1;
                z.run_from(t1 + (size_t)j * SP_THREADS, k, row0 + (int32_t)r, out, count, cap);
            }
        }
        __syncthreads();   /* every box of the tile read before the next tile's sums */
    }
}

namespace {

/* Float prefix sums of a tile for the filter, in place: Q[1..len] holding
 * the terms, Q[0] = 0, Q[i + 1] = Q[0] + ... + the term at i.  Each thread
 * owns a run of c consecutive terms (c odd: the 32 lanes' runs start in 32
 * different banks, so the run's shared loads do not conflict); it sums its
 * run, the runs' sums are scanned (warp shuffles, then the warps' totals by
 * shuffles too, every warp alike: a loop over 32 warps' totals would cost a
 * thread more than its 18 terms), and the thread adds its run onto its
 * offset one term at a time.  Three shared accesses a term instead of the
 * shuffle scan's eight to ten.  A term reaches any Q[i + 1] through at most
 * (c - 1) + 5 + 5 + 1 + c roundings: 60 for len <= SP_FTILE - 1 + SP_WTILE
 * (c <= 25), under the 112 the filter's margin takes. */
__device__ void scan_runs(float *Q, unsigned len, float *wsum)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const unsigned c = ((len + blockDim.x - 1) / blockDim.x) | 1u;
    const unsigned a = threadIdx.x * c, e = a + c < len ? a + c : len;
    float run = 0.0f;
    for (unsigned i = a; i < e; i++)
        run = __fadd_rn(run, Q[i + 1]);
    float inc = run;
    for (int off = 1; off < 32; off <<= 1) {
        const float y = __shfl_up_sync(0xffffffffu, inc, off);
        if ((int)lane >= off)
            inc = __fadd_rn(y, inc);
    }
    if (lane == 31)
        wsum[warp] = inc;
    __syncthreads();
    float tot = lane < nwarps ? wsum[lane] : 0.0f;   /* lane i: warps 0..i's total */
    for (int d = 1; d < 32; d <<= 1) {
        const float y = __shfl_up_sync(0xffffffffu, tot, d);
        if ((int)lane >= d)
            tot = __fadd_rn(y, tot);
    }
    const float before = __shfl_sync(0xffffffffu, tot, warp ? warp - 1 : 0);
    float off = warp ? before : 0.0f;
    float excl = __shfl_up_sync(0xffffffffu, inc, 1);
    off = lane ? __fadd_rn(off, excl) : off;
    for (unsigned i = a; i < e; i++) {
        off = __fadd_rn(off, Q[i + 1]);
        Q[i + 1] = off;
    }
    if (threadIdx.x == 0)
        Q[0] = 0.0f;
    __syncthreads();
}

/* Groups of box starts a thread; group j of every thread lies in one tile
 * of SP_TILE (k_sp_tiles's) of the filter tile, the sub(j)-th, whose
 * listing it decides. */
const int SP_FGROUPS = (int)(SP_FTILE / (XC_SP_FLAG_GROUP * SP_FTHREADS));
const int SP_FSUB = (int)(SP_FTILE / SP_TILE);   /* exact tiles a filter tile */
static_assert(SP_FGROUPS * XC_SP_FLAG_GROUP * SP_FTHREADS == SP_FTILE, "a tile's box starts in whole groups");
static_assert(SP_FSUB * SP_TILE == SP_FTILE, "a filter tile of whole exact tiles");
static_assert(SP_TILE % (XC_SP_FLAG_GROUP * SP_FTHREADS) == 0 || (XC_SP_FLAG_GROUP * SP_FTHREADS) % SP_TILE == 0,
              "the threads' groups j within one exact tile");
static_assert(SP_FSUB <= 32, "a filter tile's exact tiles are bits of a word");
__device__ constexpr int sub_of(int j) { return (int)((size_t)j * XC_SP_FLAG_GROUP * SP_FTHREADS / SP_TILE); }
static_assert(SP_WTILE < 0x10000 && SP_FTILE < 0x10000, "a width and its box starts in a tile in one word");

/* The largest E of the thread's groups of width w = 4q + R (sp_flag_hd.h),
 * box starts below uend only where FULL is false (a tile's last boxes of a
 * row); F4 the tile's prefix sums, four a load. */
template <int R, bool FULL>
__device__ inline float groups_max(const float4 *F4, const float (*fu)[XC_SP_FLAG_GROUP], unsigned q, unsigned uend)
{
    float best = -INFINITY;
#pragma unroll
    for (int j = 0; j < SP_FGROUPS; j++) {
        const unsigned g = threadIdx.x + (unsigned)j * SP_FTHREADS, u0 = g * XC_SP_FLAG_GROUP;
        if (!FULL && u0 >= uend)
            break;
        const float4 va = F4[g + q];
        const float a[4] = {va.x, va.y, va.z, va.w};
        float b[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (R) {
            const float4 vb = F4[g + q + 1];
            b[0] = vb.x, b[1] = vb.y, b[2] = vb.z, b[3] = vb.w;
        }
        best = xc_sp_flag_max4(fu[j], a, b, R, FULL ? XC_SP_FLAG_GROUP : uend - u0, best);
    }
    return best;
}

template <bool FULL>
__device__ inline float width_max_r(const float4 *F4, const float (*fu)[XC_SP_FLAG_GROUP], unsigned w, unsigned uend)
{
    const unsigned q = w / XC_SP_FLAG_GROUP;
    switch (w % XC_SP_FLAG_GROUP) {
    case 0:
        return groups_max<0, FULL>(F4, fu, q, uend);
    case 1:
        return groups_max<1, FULL>(F4, fu, q, uend);
    case 2:
        return groups_max<2, FULL>(F4, fu, q, uend);
    default:
        return groups_max<3, FULL>(F4, fu, q, uend);
    }
}

/* The largest E(u, w) of the thread's box starts u < uend. */
__device__ inline float width_max(const float4 *F4, const float (*fu)[XC_SP_FLAG_GROUP], unsigned w, unsigned uend)
{
    return uend >= SP_FTILE ? width_max_r<true>(F4, fu, w, uend) : width_max_r<false>(F4, fu, w, uend);
}

/* Bit sub(j) for each of the thread's groups j that holds a box start
 * u < uend of width w with E(u, w) >= cut.  Asked only where width_max
 * reached the cut (a tile near a detection), so its values are read again
 * from F. */
__device__ inline unsigned groups_hit(const float *F, unsigned w, unsigned uend, float cut)
{
    unsigned hit = 0;
#pragma unroll
    for (int j = 0; j < SP_FGROUPS; j++) {
        const unsigned u0 = (threadIdx.x + (unsigned)j * SP_FTHREADS) * XC_SP_FLAG_GROUP;
        if (u0 < uend && xc_sp_flag_group_hit(F, u0, min(uend - u0, (unsigned)XC_SP_FLAG_GROUP), w, cut))
            hit |= 1u << sub_of(j);
    }
    return hit;
}

} // namespace

/* The float filter (k_sp_flag, sp_gpu.h).  Per tile, y = x - m_b in float
 * (one rounding of m_b, one of the difference), A = sum |y| and M = max |m_b|
 * over the tile (float sums of at most 64 roundings), F the float prefix
 * sums of y (scan_runs: under 112 roundings to any F), and per box
 * E = F[u + w] - F[u].  With u = 2^-24, |E - (S - B)| (S - B in reals) is at
 * most 2 x 112u A (the two prefix sums) + u A (E's rounding) + u (A + w M)
 * (the y) + u w M (m_b to float), under 2^-16 A + 2^-23 w M (A and M as
 * computed: (1 + 64u) of the reals at most); the double path's S - B (tile
 * prefix sums of x, at most 64 roundings of 2^-53 each, and B over at most
 * w + 1 blocks) is within 2^-46 (A + len M) + 2^-40 w M of the reals.  The
 * margin 2^-14 A + (2^-22 w + 2^-40 len) M covers both with room, so every
 * box whose double S - B reaches the cut has E >= cut - margin (rounded down
 * to float): every tile holding a detection is listed.  A tile whose A or M
 * is not finite or above 2^100 (NaN or infinite samples; sums near the float
 * range) is listed whole, and so is one whose cut less the margin is out of
 * the float range (its float cut is -infinity, which every E reaches).
 * Each tile's double and float cuts, and its widths' box starts, once a
 * tile, by a thread a width.
 *
 * A tile is SP_FTILE box starts, at SP_FTHREADS = 1024 four of
 * k_sp_tiles's: its deviations and prefix sums cover SP_FTILE - 1 + W
 * samples, 1.125 a box start at W = 2048 where a tile of SP_TILE took 1.5
 * (the widest box's overlap); a thread's group j decides the listing of the
 * sub(j)-th tile of SP_TILE, the margin being the larger tile's (its A and
 * len bound every smaller tile's sums, whose samples it holds).  1024
 * threads of at most 32 registers, no spill: 2 blocks (2048 threads) an
 * SM, as 8 of 256 were. */
__global__ void __launch_bounds__(SP_FTHREADS, 2048 / SP_FTHREADS) k_sp_flag(const float *X, size_t xstride, size_t n,
                                                            const double *M, size_t mstride, size_t L, size_t nb,
                                                            const double *S, const int32_t *widths, int nw, size_t W,
                                                            double thr, uint2 *list, unsigned *nlist)
{
    extern __shared__ float4 F4[];   /* float4: 16-byte aligned for the groups' loads */
    float *F = reinterpret_cast<float *>(F4);
    __shared__ float wsum[SP_FTHREADS / 32], wa[SP_FTHREADS / 32], wm[SP_FTHREADS / 32];
    __shared__ float cf[XC_SP_MAXW];
    __shared__ unsigned wend[XC_SP_MAXW];   /* the tile's widths: w << 16 | box starts in the tile; 0: none fits */
    const size_t r = blockIdx.x;
    const double s = S[r];
    if (!(s > 0))
        return;
    const float *x = X + r * xstride;
    const double *m = M + r * mstride;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const unsigned all = (1u << SP_FSUB) - 1;
    for (size_t t0 = (size_t)blockIdx.y * SP_FTILE; t0 < n; t0 += (size_t)gridDim.y * SP_FTILE) {
        const size_t len = n - t0 < SP_FTILE - 1 + W ? n - t0 : SP_FTILE - 1 + W;
        float a, mx;
        tile_deviations(x + t0, m, t0, (unsigned)len, n, L, nb, F, &a, &mx);
        for (int off = 16; off; off >>= 1) {
            a = __fadd_rn(a, __shfl_xor_sync(0xffffffffu, a, off));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
        }
        if (lane == 0) {
            wa[warp] = a;
            wm[warp] = mx;
        }
        __syncthreads();   /* F and the warps' sums written */
        /* the warps' sums by shuffles, every warp alike (a butterfly gives
         * each lane the same sums: each step adds the same two values) */
        float A = lane < nwarps ? wa[lane] : 0.0f, MX = lane < nwarps ? wm[lane] : 0.0f;
        for (int off = 16; off; off >>= 1) {
            A = __fadd_rn(A, __shfl_xor_sync(0xffffffffu, A, off));
            MX = fmaxf(MX, __shfl_xor_sync(0xffffffffu, MX, off));
        }
        for (int k = threadIdx.x; k < nw; k += blockDim.x) {
            const size_t wk = (size_t)widths[k];
            const double w = (double)wk;
            double den;
            const double cut = box_cut(s, wk, thr, &den);
            const double c2 = cut - (0x1p-14 * (double)A + (0x1p-22 * w + 0x1p-40 * (double)len) * (double)MX);
            cf[k] = c2 > -0x1p100 && c2 < 0x1p100 ? __double2float_rd(c2) : -INFINITY;
            /* the width and its box starts in the tile, once a tile (w <=
             * SP_WTILE < 2^16, starts <= SP_FTILE < 2^16): read from global
             * memory and compared in 64 bits by every thread for every
             * width, they were a fifth of a width's instructions */
            const bool fits = wk <= n && t0 + wk <= n;
            const size_t tend = fits ? (n - wk + 1 < t0 + SP_FTILE ? n - wk + 1 : t0 + SP_FTILE) : t0;
            wend[k] = fits ? (unsigned)wk << 16 | (unsigned)(tend - t0) : 0u;
        }
        scan_runs(F, (unsigned)len, wsum);   /* its barriers publish cf and wend too */
        /* the thread's groups of box starts (sp_flag_hd.h): their F, read
         * once for every width */
        float fu[SP_FGROUPS][XC_SP_FLAG_GROUP];
#pragma unroll
        for (int j = 0; j < SP_FGROUPS; j++) {
            const float4 v = F4[threadIdx.x + (unsigned)j * SP_FTHREADS];
            fu[j][0] = v.x, fu[j][1] = v.y, fu[j][2] = v.z, fu[j][3] = v.w;
        }
        /* bit j: the tile's j-th tile of SP_TILE is listed */
        unsigned hit = !(A <= 0x1p100f) || !(MX <= 0x1p100f) ? all : 0u;
        for (int k = 0; k < nw && hit != all; k++) {
            const unsigned we = wend[k];
            if (!we)
                break;   /* ascending: no box of this width or wider starts in the tile */
            /* E is finite here (A is), so the maximum is one of them */
            const unsigned w = we >> 16, uend = we & 0xffffu;
            const float c = cf[k];
            if (width_max(F4, fu, w, uend) >= c)
                hit |= groups_hit(F, w, uend, c);
        }
        /* barriers too: every F and cf of the tile read before the next tile's */
#pragma unroll
        for (int j = 0; j < SP_FSUB; j++) {
            const size_t tj = t0 + (size_t)j * SP_TILE;
            if (__syncthreads_or(hit >> j & 1u) && threadIdx.x == 0 && tj < n) {
                const unsigned i = atomicAdd(nlist, 1u);
                list[i] = make_uint2((unsigned)r, (unsigned)(tj / SP_TILE));
            }
        }
    }
}

} // namespace xcsp
