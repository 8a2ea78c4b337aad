/* Dedispersion kernels: corner turn + scrunch + word packing, per-tile delay
 * bounds, the shared-memory kernel (AstroAccelerate, Novotny et al. 2023,
 * Algorithm 3) and the direct (L1/cache) kernel.  Layouts are described in
 * gpu_dd.h; the host side is dedisperse_gpu.cu.
 *
 * Exactness: integer words are added in lanes that the host proves cannot
 * overflow (flush periods k1..k3), every final sum is exact, and the scaling
 * repeats xc_scale_real's float operations with round-to-nearest intrinsics,
 * so integer output equals the reference bit for bit. */
#include <climits>

#include "optimized/gpu/gpu_dd.h"
#include "core/xc_dmplan.h"
#include "optimized/gpu/xc_gpu.h"

namespace {

/* xc_scale_real, operation for operation (the __f*_rn intrinsics keep nvcc
 * from contracting or approximating).  Its first step, (float)sum, is done by
 * the dedispersion kernels; the divisions of the dedisp and AstroAccelerate
 * conventions run afterwards in k_scale, so the dedispersion kernels never
 * call the division slow path (a call would make them spill around it). */
__device__ __forceinline__ float scale_rest(float f, const dd_scale &sc)
{
    if (sc.kind == XC_SCALE_DEDISP)
        return __fmul_rn(__fdiv_rn(__fmul_rn(f, 1.0f), sc.den), sc.factor);
    if (sc.kind == XC_SCALE_MEAN_AA)
        return __fdiv_rn(__fdiv_rn(f, sc.fnch), sc.fds);
    return f;
}

__global__ void __launch_bounds__(256) k_scale(float *out, size_t n, const dd_scale sc)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = scale_rest(out[i], sc);
}

/* ---- corner turn, scrunch and pack ---------------------------------------- */

/* One block: 32 rows (channels) x 32 words.  Reads raw with the channel
 * fastest (coalesced), transposes through shared memory, writes rows with the
 * time fastest (coalesced). */
template <int FMT, typename IN, typename E>
__global__ void __launch_bounds__(256) k_pack(const dd_pack_args a)
{
    constexpr int L = FMT <= DD_Q8 ? 4 : FMT == DD_P16 ? 2 : 1;
    constexpr int LB = FMT <= DD_Q8 ? 8 : 16;
    __shared__ E tile[32][33];
    const IN *raw = static_cast<const IN *>(a.raw);
    const size_t p0 = (size_t)blockIdx.x * 32;
    const size_t i0 = ((size_t)a.row_tile0 + blockIdx.y) * 32;
    const size_t i = i0 + threadIdx.x;
    const bool row_ok = i < (size_t)a.nuse;
    const size_t c = row_ok ? (a.chan ? (size_t)a.chan[i] : i) : 0;
    for (int pp = threadIdx.y; pp < 32; pp += 8) {
        const size_t p = p0 + (size_t)pp;
        E word = 0;
        if (row_ok && p < a.np) {
#pragma unroll
            for (int l = 0; l < L; ++l) {
                const size_t j = p + (size_t)l * a.S;
                if (j >= a.ns_avail)
                    continue;
                const IN *src = raw + (a.off + j * (size_t)a.ds) * a.nc + c;
                if constexpr (FMT == DD_F32) {
                    float v = 0.0f;
                    for (int q = 0; q < a.ds; ++q)
                        v += src[(size_t)q * a.nc];
                    word = __float_as_uint(v);
                } else if constexpr (FMT == DD_U64) {
                    unsigned long long v = 0;
                    for (int q = 0; q < a.ds; ++q)
                        v += src[(size_t)q * a.nc];
                    word = v;
                } else {
                    /* the host picked the format so that v fits its lane */
                    uint32_t v = 0;
                    for (int q = 0; q < a.ds; ++q)
                        v += src[(size_t)q * a.nc];
                    word |= (E)v << (l * LB);
                }
            }
        }
        tile[pp][threadIdx.x] = word;
    }
    __syncthreads();
    E *Y = static_cast<E *>(a.Y);
    for (int ii = threadIdx.y; ii < 32; ii += 8) {
        const size_t row = i0 + (size_t)ii, p = p0 + threadIdx.x;
        if (row < (size_t)a.nuse && p < a.np)
            Y[row * a.pitch + p] = tile[threadIdx.x][ii];
    }
}

/* ---- delay bounds per DM tile --------------------------------------------- */

__global__ void __launch_bounds__(256) k_bounds(const dd_bounds_args a)
{
    long long spread = 0;
    int hi_all = INT_MIN, lo_all = INT_MAX;
    const size_t n = a.ntiles * (size_t)a.nuse;
    for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += (size_t)gridDim.x * blockDim.x) {
        const size_t tile = idx / (size_t)a.nuse, i = idx % (size_t)a.nuse;
        const size_t d0 = tile * (size_t)a.dy;
        const size_t d1 = d0 + (size_t)a.dy < (size_t)a.ndm ? d0 + (size_t)a.dy : (size_t)a.ndm;
        int lo = INT_MAX, hi = INT_MIN;
        for (size_t dm = d0; dm < d1; ++dm) {
            const int d = a.del[dm * (size_t)a.nuse + i];
            lo = min(lo, d);
            hi = max(hi, d);
        }
        if (a.tmin)
            a.tmin[idx] = lo;
        spread = max(spread, (long long)hi - (long long)lo);
        hi_all = max(hi_all, hi);
        lo_all = min(lo_all, lo);
    }
    /* every lane reaches this point (no early exit), as the full mask needs */
    int sp = (int)min(spread, (long long)INT_MAX);
    sp = __reduce_max_sync(0xffffffffu, sp);
    hi_all = __reduce_max_sync(0xffffffffu, hi_all);
    lo_all = __reduce_min_sync(0xffffffffu, lo_all);
    if ((threadIdx.x & 31) == 0) {
        atomicMax(&a.stats[0], sp);
        atomicMax(&a.stats[1], hi_all);
        atomicMin(&a.stats[2], lo_all);
    }
}

/* ---- accumulators of the shared-memory kernel ------------------------------
 *
 * Each keeps R words' worth of lanes.  Flushes move narrow lane sums into
 * wider ones before they can overflow: the host sets k1 (channels per first
 * flush), k2 and k3 (flushes of the previous level per next flush) from the
 * largest word value, so a lane never exceeds its width:
 *   q4:  8-bit lanes (k1 channels) -> 16-bit lanes (k2) -> u32 (k3) -> u64
 *   q8:  16-bit lanes (k1 channels) -> u32 (k2) -> u64
 *   p16: 16-bit lanes (k1 channels) -> u32 (k2) -> u64
 *   w32: u32 (k1 channels) -> u64
 * The u64 level exists only in the "wide" instances (sums that may pass 2^32). */

struct counts {
    int k1, k2, k3;
    int n1, n2, n3;
};

/* The 4-lane formats.  q4 adds whole words into 8-bit lanes (a8) and splits
 * them into two words of 16-bit lane pairs every k1 channels; q8 splits every
 * word as it adds it.  From the 16-bit pairs on both are the same (f16, f32,
 * sum): the pairs go into u32 lanes every k2 splits (q4) or k1 channels (q8),
 * and in the wide instances the u32 lanes into u64 every k3 (q4) or k2 (q8)
 * of those.  (channel_done spells both chains out: a shared helper taking the
 * counter by reference changed the non-wide q4 instances' SASS.) */
template <int R, bool WIDE, bool Q4>
struct acc_lanes4 {
    uint32_t a8[Q4 ? R : 1], a16[2][R], a32[4][R];
    unsigned long long a64[WIDE ? 4 : 1][WIDE ? R : 1];
    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if constexpr (Q4)
                a8[r] = 0;
            a16[0][r] = a16[1][r] = 0;
#pragma unroll
            for (int l = 0; l < 4; ++l) {
                a32[l][r] = 0;
                if constexpr (WIDE)
                    a64[l][r] = 0;
            }
        }
    }
    __device__ __forceinline__ void add(int r, uint32_t w)
    {
        if constexpr (Q4) {
            a8[r] += w;
        } else {
            a16[0][r] += w & 0x00FF00FFu;
            a16[1][r] += (w >> 8) & 0x00FF00FFu;
        }
    }
    __device__ __forceinline__ void split()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a16[0][r] += a8[r] & 0x00FF00FFu;          /* lanes 0 and 2 */
            a16[1][r] += (a8[r] >> 8) & 0x00FF00FFu;   /* lanes 1 and 3 */
            a8[r] = 0;
        }
    }
    __device__ __forceinline__ void f16()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a32[0][r] += a16[0][r] & 0xFFFFu;
            a32[2][r] += a16[0][r] >> 16;
            a32[1][r] += a16[1][r] & 0xFFFFu;
            a32[3][r] += a16[1][r] >> 16;
            a16[0][r] = a16[1][r] = 0;
        }
    }
    __device__ __forceinline__ void f32()
    {
        if constexpr (WIDE) {
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int l = 0; l < 4; ++l) {
                    a64[l][r] += a32[l][r];
                    a32[l][r] = 0;
                }
        }
    }
    __device__ __forceinline__ void channel_done(counts &c)
    {
        if (++c.n1 == c.k1) {
            c.n1 = 0;
            if constexpr (Q4) {
                split();
                if (++c.n2 == c.k2) {
                    c.n2 = 0;
                    f16();
                    if constexpr (WIDE) {
                        if (++c.n3 == c.k3) {
                            c.n3 = 0;
                            f32();
                        }
                    }
                }
            } else {
                f16();
                if constexpr (WIDE) {
                    if (++c.n2 == c.k2) {
                        c.n2 = 0;
                        f32();
                    }
                }
            }
        }
    }
    __device__ __forceinline__ void stage_done() {}
    __device__ __forceinline__ void finish()
    {
        if constexpr (Q4)
            split();
        f16();
        f32();
    }
    __device__ __forceinline__ double sum(int l, int r) const
    {
        if constexpr (WIDE)
            return (double)a64[l][r];
        else
            return (double)a32[l][r];
    }
};

template <int R, bool WIDE> using acc_q4 = acc_lanes4<R, WIDE, true>;
template <int R, bool WIDE> using acc_q8 = acc_lanes4<R, WIDE, false>;

template <int R, bool WIDE>
struct acc_p16 {
    uint32_t a16[R], a32[2][R];
    unsigned long long a64[WIDE ? 2 : 1][WIDE ? R : 1];
    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a16[r] = 0;
#pragma unroll
            for (int l = 0; l < 2; ++l) {
                a32[l][r] = 0;
                if constexpr (WIDE)
                    a64[l][r] = 0;
            }
        }
    }
    __device__ __forceinline__ void add(int r, uint32_t w) { a16[r] += w; }
    __device__ __forceinline__ void f16()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a32[0][r] += a16[r] & 0xFFFFu;
            a32[1][r] += a16[r] >> 16;
            a16[r] = 0;
        }
    }
    __device__ __forceinline__ void f32()
    {
        if constexpr (WIDE) {
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int l = 0; l < 2; ++l) {
                    a64[l][r] += a32[l][r];
                    a32[l][r] = 0;
                }
        }
    }
    __device__ __forceinline__ void channel_done(counts &c)
    {
        if (++c.n1 == c.k1) {
            c.n1 = 0;
            f16();
            if constexpr (WIDE) {
                if (++c.n2 == c.k2) {
                    c.n2 = 0;
                    f32();
                }
            }
        }
    }
    __device__ __forceinline__ void stage_done() {}
    __device__ __forceinline__ void finish()
    {
        f16();
        f32();
    }
    __device__ __forceinline__ double sum(int l, int r) const
    {
        if constexpr (WIDE)
            return (double)a64[l][r];
        else
            return (double)a32[l][r];
    }
};

template <int R, bool WIDE>
struct acc_w32 {
    uint32_t a32[R];
    unsigned long long a64[WIDE ? R : 1];
    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a32[r] = 0;
            if constexpr (WIDE)
                a64[r] = 0;
        }
    }
    __device__ __forceinline__ void add(int r, uint32_t w) { a32[r] += w; }
    __device__ __forceinline__ void f32()
    {
        if constexpr (WIDE) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                a64[r] += a32[r];
                a32[r] = 0;
            }
        }
    }
    __device__ __forceinline__ void channel_done(counts &c)
    {
        if constexpr (WIDE) {
            if (++c.n1 == c.k1) {
                c.n1 = 0;
                f32();
            }
        } else {
            (void)c;
        }
    }
    __device__ __forceinline__ void stage_done() {}
    __device__ __forceinline__ void finish() { f32(); }
    __device__ __forceinline__ double sum(int, int r) const
    {
        if constexpr (WIDE)
            return (double)a64[r];
        else
            return (double)a32[r];
    }
};

/* Float words: float sums over one stage (at most cs channels), double across
 * stages, like the CPU kernel's float tiles. */
template <int R, bool WIDE>
struct acc_f32 {
    float af[R];
    double ad[R];
    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            af[r] = 0.0f;
            ad[r] = 0.0;
        }
    }
    __device__ __forceinline__ void add(int r, uint32_t w) { af[r] += __uint_as_float(w); }
    __device__ __forceinline__ void channel_done(counts &) {}
    __device__ __forceinline__ void stage_done()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            ad[r] += (double)af[r];
            af[r] = 0.0f;
        }
    }
    __device__ __forceinline__ void finish() { stage_done(); }
    __device__ __forceinline__ double sum(int, int r) const { return ad[r]; }
};

template <int FMT, int R, bool WIDE>
struct acc_of;
template <int R, bool WIDE> struct acc_of<DD_Q4, R, WIDE> { using type = acc_q4<R, WIDE>; };
template <int R, bool WIDE> struct acc_of<DD_Q8, R, WIDE> { using type = acc_q8<R, WIDE>; };
template <int R, bool WIDE> struct acc_of<DD_P16, R, WIDE> { using type = acc_p16<R, WIDE>; };
template <int R, bool WIDE> struct acc_of<DD_W32, R, WIDE> { using type = acc_w32<R, WIDE>; };
template <int R, bool WIDE> struct acc_of<DD_F32, R, WIDE> { using type = acc_f32<R, WIDE>; };

/* ---- the shared-memory kernel ----------------------------------------------
 *
 * Block: blockDim.x = 32*WX threads along time, blockDim.y = dy DM trials (one
 * warp never spans two trials, so a warp's shared loads are 32 consecutive
 * words: no bank conflicts).  Grid: x = DM tile, y = time tile, so the blocks
 * resident at one time share a time window and its words stay in L2 (with
 * time fastest, every DM tile would stream the whole array from memory).  The block's tile is S = blockDim.x*R words, i.e.
 * S*L samples, starting at t0.  Thread (x, y) owns words j = 32*R*(x/32) +
 * x%32 + 32*r (r < R).  Per stage of cs channels the block copies, for each
 * channel, the rowlen = S + spread words that start at its block part of the
 * shift (tmin of the tile) into shared memory; each thread then adds the word
 * at j + (its delay - tmin) of every staged channel, all lanes at once. */
template <int FMT, int R, bool WIDE>
__global__ void __launch_bounds__(XC_GPU_MAX_THREADS, 1) k_dd_smem(const dd_smem_args a)
{
    constexpr int L = FMT <= DD_Q8 ? 4 : FMT == DD_P16 ? 2 : 1;
    extern __shared__ uint32_t sm[];
    uint32_t *rows = sm;
    int *shf = reinterpret_cast<int *>(sm + (size_t)a.cs * (size_t)a.rowlen);

    const int lane = threadIdx.x & 31;
    const int S = (int)blockDim.x * R;
    const int ty = threadIdx.y;
    const int tile = (int)blockIdx.x;
    const int dm = tile * a.dy + ty;
    const bool live = dm < a.ndm;
    const int dmc = live ? dm : a.ndm - 1;   /* padding trials reuse a real one's shifts */
    const size_t t0 = ((size_t)a.ttile0 + blockIdx.y) * (size_t)S * L;
    const int tid = ty * (int)blockDim.x + (int)threadIdx.x;
    const int nwarps = (int)(blockDim.x * blockDim.y) >> 5;
    const int warp = tid >> 5;
    const int jbase = (int)(threadIdx.x >> 5) * 32 * R + lane;
    const int32_t *tmin = a.tmin + (size_t)tile * (size_t)a.nuse;
    const int32_t *drow = a.del + (size_t)dmc * (size_t)a.nuse;

    typename acc_of<FMT, R, WIDE>::type acc;
    acc.zero();
    counts cnt = {a.k1, a.k2, a.k3, 0, 0, 0};

    for (int c0 = 0; c0 < a.nuse; c0 += a.cs) {
        const int ncs = min(a.cs, a.nuse - c0);
        __syncthreads();   /* the previous stage has been read by everyone */
        for (int cc = (int)threadIdx.x; cc < ncs; cc += (int)blockDim.x)
            shf[ty * a.cs + cc] = __ldg(drow + c0 + cc) - __ldg(tmin + c0 + cc);
        for (int cc = warp; cc < ncs; cc += nwarps) {
            const uint32_t *src = a.Y + (size_t)(c0 + cc) * a.pitch + t0 + (size_t)__ldg(tmin + c0 + cc);
            uint32_t *dst = rows + cc * a.rowlen;
            int q = lane;
            for (; q + 96 < a.rowlen; q += 128) {
                const uint32_t v0 = __ldg(src + q), v1 = __ldg(src + q + 32);
                const uint32_t v2 = __ldg(src + q + 64), v3 = __ldg(src + q + 96);
                dst[q] = v0;
                dst[q + 32] = v1;
                dst[q + 64] = v2;
                dst[q + 96] = v3;
            }
            for (; q < a.rowlen; q += 32)
                dst[q] = __ldg(src + q);
        }
        __syncthreads();
        for (int cc = 0; cc < ncs; ++cc) {
            const uint32_t *p = rows + cc * a.rowlen + shf[ty * a.cs + cc] + jbase;
#pragma unroll
            for (int r = 0; r < R; ++r)
                acc.add(r, p[32 * r]);
            acc.channel_done(cnt);
        }
        acc.stage_done();
    }
    acc.finish();
    if (!live)
        return;
    float *orow = a.out + (size_t)dm * a.opitch;
#pragma unroll
    for (int l = 0; l < L; ++l)
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const size_t t = t0 + (size_t)(jbase + 32 * r) + (size_t)l * (size_t)S;
            if (t < a.lk)
                orow[t] = __double2float_rn(acc.sum(l, r));
        }
}

/* ---- the direct (L1/cache) kernel -------------------------------------------
 * One trial per blockIdx.x, DD_DIRECT_SAMPS samples per thread; every channel's
 * word is read from global memory through the cache.  Used when a tile's
 * spread of shifts does not fit in shared memory, and for sums of u64 words. */
template <typename E, typename ACC>
__global__ void __launch_bounds__(DD_DIRECT_THREADS) k_dd_direct(const dd_direct_args a)
{
    const int dm = (int)blockIdx.x;
    const size_t tb = ((size_t)a.tblock0 + blockIdx.y) * (DD_DIRECT_THREADS * DD_DIRECT_SAMPS) + threadIdx.x;
    const int32_t *drow = a.del + (size_t)dm * (size_t)a.nuse;
    /* per-sample base pointers hoisted out of the channel loop: with the
     * bounds test inside it, sm_90 ptxas spilled a register */
    ACC s[DD_DIRECT_SAMPS];
    bool ok[DD_DIRECT_SAMPS];
    const E *base[DD_DIRECT_SAMPS];
#pragma unroll
    for (int k = 0; k < DD_DIRECT_SAMPS; ++k) {
        const size_t t = tb + (size_t)k * DD_DIRECT_THREADS;
        s[k] = 0;
        ok[k] = t < a.lk;
        base[k] = static_cast<const E *>(a.Y) + (ok[k] ? t : 0);
    }
    for (int i = 0; i < a.nuse; ++i) {
        const size_t off = (size_t)i * a.pitch + (size_t)__ldg(drow + i);
#pragma unroll
        for (int k = 0; k < DD_DIRECT_SAMPS; ++k)
            if (ok[k])
                s[k] += (ACC)__ldg(base[k] + off);
    }
    float *orow = a.out + (size_t)dm * a.opitch;
#pragma unroll
    for (int k = 0; k < DD_DIRECT_SAMPS; ++k)
        if (ok[k])
            orow[tb + (size_t)k * DD_DIRECT_THREADS] = __double2float_rn((double)s[k]);
}

/* ---- dispatch ------------------------------------------------------------- */

template <int FMT, int R, bool WIDE>
cudaError_t launch_smem_t(dim3 grid, dim3 block, size_t smem, const dd_smem_args &a, cudaStream_t s)
{
    cudaError_t e = cudaFuncSetAttribute(k_dd_smem<FMT, R, WIDE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess)
        return e;
    k_dd_smem<FMT, R, WIDE><<<grid, block, smem, s>>>(a);
    return cudaGetLastError();
}

template <int FMT, int R, bool WIDE>
cudaError_t attr_smem_t(cudaFuncAttributes *attr)
{
    return cudaFuncGetAttributes(attr, k_dd_smem<FMT, R, WIDE>);
}

/* The instances that exist: the 4-lane formats keep 3-4 accumulators per lane
 * word, so R stops at 8 (16 would spill); the wide (u64) instances are for
 * correctness, not speed, and stop at 4. */
constexpr int max_r(int fmt, bool wide) { return wide ? 4 : fmt <= DD_Q8 ? 8 : 16; }

template <int FMT, bool WIDE>
cudaError_t launch_smem_r(int R, dim3 grid, dim3 block, size_t smem, const dd_smem_args &a, cudaStream_t s)
{
    switch (R) {
    case 1: return launch_smem_t<FMT, 1, WIDE>(grid, block, smem, a, s);
    case 2: return launch_smem_t<FMT, 2, WIDE>(grid, block, smem, a, s);
    case 4: return launch_smem_t<FMT, 4, WIDE>(grid, block, smem, a, s);
    case 8:
        if constexpr (max_r(FMT, WIDE) >= 8)
            return launch_smem_t<FMT, 8, WIDE>(grid, block, smem, a, s);
        break;
    case 16:
        if constexpr (max_r(FMT, WIDE) >= 16)
            return launch_smem_t<FMT, 16, WIDE>(grid, block, smem, a, s);
        break;
    default: break;
    }
    return cudaErrorInvalidValue;
}

template <int FMT, bool WIDE>
cudaError_t attr_smem_r(int R, cudaFuncAttributes *attr)
{
    switch (R) {
    case 1: return attr_smem_t<FMT, 1, WIDE>(attr);
    case 2: return attr_smem_t<FMT, 2, WIDE>(attr);
    case 4: return attr_smem_t<FMT, 4, WIDE>(attr);
    case 8:
        if constexpr (max_r(FMT, WIDE) >= 8)
            return attr_smem_t<FMT, 8, WIDE>(attr);
        break;
    case 16:
        if constexpr (max_r(FMT, WIDE) >= 16)
            return attr_smem_t<FMT, 16, WIDE>(attr);
        break;
    default: break;
    }
    return cudaErrorInvalidValue;
}

} // namespace

int dd_smem_supported(int fmt, int R, int wide)
{
    if (fmt < DD_Q4 || fmt > DD_F32 || (wide && fmt == DD_F32))
        return 0;
    if (R != 1 && R != 2 && R != 4 && R != 8 && R != 16)
        return 0;
    return R <= max_r(fmt, wide != 0);
}

cudaError_t dd_launch_smem(int fmt, int R, int wide, dim3 grid, dim3 block, size_t smem, const dd_smem_args &a,
                           cudaStream_t s)
{
    if (!dd_smem_supported(fmt, R, wide))
        return cudaErrorInvalidValue;
    switch (fmt) {
    case DD_Q4: return wide ? launch_smem_r<DD_Q4, true>(R, grid, block, smem, a, s)
                            : launch_smem_r<DD_Q4, false>(R, grid, block, smem, a, s);
    case DD_Q8: return wide ? launch_smem_r<DD_Q8, true>(R, grid, block, smem, a, s)
                            : launch_smem_r<DD_Q8, false>(R, grid, block, smem, a, s);
    case DD_P16: return wide ? launch_smem_r<DD_P16, true>(R, grid, block, smem, a, s)
                             : launch_smem_r<DD_P16, false>(R, grid, block, smem, a, s);
    case DD_W32: return wide ? launch_smem_r<DD_W32, true>(R, grid, block, smem, a, s)
                             : launch_smem_r<DD_W32, false>(R, grid, block, smem, a, s);
    case DD_F32: return launch_smem_r<DD_F32, false>(R, grid, block, smem, a, s);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t dd_smem_attributes(int fmt, int R, int wide, cudaFuncAttributes *attr)
{
    if (!dd_smem_supported(fmt, R, wide))
        return cudaErrorInvalidValue;
    switch (fmt) {
    case DD_Q4: return wide ? attr_smem_r<DD_Q4, true>(R, attr) : attr_smem_r<DD_Q4, false>(R, attr);
    case DD_Q8: return wide ? attr_smem_r<DD_Q8, true>(R, attr) : attr_smem_r<DD_Q8, false>(R, attr);
    case DD_P16: return wide ? attr_smem_r<DD_P16, true>(R, attr) : attr_smem_r<DD_P16, false>(R, attr);
    case DD_W32: return wide ? attr_smem_r<DD_W32, true>(R, attr) : attr_smem_r<DD_W32, false>(R, attr);
    case DD_F32: return attr_smem_r<DD_F32, false>(R, attr);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t dd_launch_pack(int fmt, dim3 grid, const dd_pack_args &a, cudaStream_t s)
{
    const dim3 block(32, 8);
    switch (fmt) {
    case DD_Q4: k_pack<DD_Q4, uint16_t, uint32_t><<<grid, block, 0, s>>>(a); break;
    case DD_Q8: k_pack<DD_Q8, uint16_t, uint32_t><<<grid, block, 0, s>>>(a); break;
    case DD_P16: k_pack<DD_P16, uint16_t, uint32_t><<<grid, block, 0, s>>>(a); break;
    case DD_W32: k_pack<DD_W32, uint16_t, uint32_t><<<grid, block, 0, s>>>(a); break;
    case DD_F32: k_pack<DD_F32, float, uint32_t><<<grid, block, 0, s>>>(a); break;
    case DD_U64: k_pack<DD_U64, uint16_t, unsigned long long><<<grid, block, 0, s>>>(a); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

cudaError_t dd_launch_bounds(const dd_bounds_args &a, cudaStream_t s)
{
    const size_t n = a.ntiles * (size_t)a.nuse;
    size_t blocks = (n + 255) / 256;
    if (blocks > 8192)
        blocks = 8192;
    if (blocks < 1)
        blocks = 1;
    k_bounds<<<(unsigned)blocks, 256, 0, s>>>(a);
    return cudaGetLastError();
}

cudaError_t dd_launch_scale(float *out, size_t n, const dd_scale &sc, cudaStream_t s)
{
    size_t blocks = (n + 255) / 256;
    if (blocks > 16384)
        blocks = 16384;
    if (blocks < 1)
        blocks = 1;
    k_scale<<<(unsigned)blocks, 256, 0, s>>>(out, n, sc);
    return cudaGetLastError();
}

cudaError_t dd_launch_direct(int fmt, dim3 grid, const dd_direct_args &a, cudaStream_t s)
{
    switch (fmt) {
    case DD_W32: k_dd_direct<uint32_t, unsigned long long><<<grid, DD_DIRECT_THREADS, 0, s>>>(a); break;
    case DD_F32: k_dd_direct<float, double><<<grid, DD_DIRECT_THREADS, 0, s>>>(a); break;
    case DD_U64: k_dd_direct<unsigned long long, unsigned long long><<<grid, DD_DIRECT_THREADS, 0, s>>>(a); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
