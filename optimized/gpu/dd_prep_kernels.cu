/* The dedispersion's preparation kernels: corner turn + scrunch + word
 * packing of a raw chunk (the layouts of gpu_dd.h), and the per-DM-tile delay
 * bounds (the block part of each shift, and the spread a tile's shifts span). */
#include <cuda_runtime.h>
#include <climits>
#include <stdint.h>

#include "optimized/gpu/gpu_dd.h"

namespace {

/* ---- corner turn, scrunch and pack ---------------------------------------- */

/* One block: 32 rows (channels) x 32 words.  Reads raw with the channel
 * fastest (coalesced), transposes through shared memory, writes rows with the
 * time fastest (coalesced). */
template <int FMT, typename IN, typename E>
__global__ void __launch_bounds__(256) k_pack(const dd_pack_args a)
{
    constexpr int L = dd_lanes(FMT);
    constexpr int LB = dd_lane_bits(FMT);
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

/* k_pack's words where one 32-bit load holds V = 4 / sizeof(IN) channels
 * of a sample (ds 1, every channel a row, nc a multiple of V): a block
 * takes 32 V channels x 32 words and a thread V channels of a word, one
 * load a lane, so a warp reads 128 bytes a load where k_pack reads 32 (one
 * byte a thread, 8-bit input staged narrowed).  k_pack took 15 ms of a
 * 0.3 s job at 8192 channels (8-bit), 5 % over the dedispersion kernels. */
template <int FMT, typename IN> __global__ void __launch_bounds__(256) k_pack_vec(const dd_pack_args a)
{
    constexpr int L = dd_lanes(FMT);
    constexpr int LB = dd_lane_bits(FMT);
    constexpr int V = 4 / (int)sizeof(IN);
    constexpr int VB = 8 * (int)sizeof(IN);
    constexpr uint32_t VM = sizeof(IN) == 1 ? 0xffu : 0xffffu;
    __shared__ uint32_t tile[32 * V][33];
    const unsigned char *raw = static_cast<const unsigned char *>(a.raw);
    const size_t p0 = (size_t)blockIdx.x * 32;
    const size_t i0 = (size_t)blockIdx.y * (32 * V);
    const size_t c = i0 + (size_t)threadIdx.x * V;
    const bool ok = c < (size_t)a.nuse;
    for (int pp = threadIdx.y; pp < 32; pp += 8) {
        const size_t p = p0 + (size_t)pp;
        uint32_t w[V];
#pragma unroll
        for (int v = 0; v < V; ++v)
            w[v] = 0;
        if (ok && p < a.np) {
#pragma unroll
            for (int l = 0; l < L; ++l) {
                const size_t j = p + (size_t)l * a.S;
                if (j >= a.ns_avail)
                    continue;
                const uint32_t x = __ldg(reinterpret_cast<const uint32_t *>(raw + ((a.off + j) * a.nc + c) * sizeof(IN)));
#pragma unroll
                for (int v = 0; v < V; ++v)
                    w[v] |= ((x >> (v * VB)) & VM) << (l * LB);
            }
        }
#pragma unroll
        for (int v = 0; v < V; ++v)
            tile[threadIdx.x * V + v][pp] = w[v];
    }
    __syncthreads();
    uint32_t *Y = static_cast<uint32_t *>(a.Y);
    for (int ii = threadIdx.y; ii < 32 * V; ii += 8) {
        const size_t row = i0 + (size_t)ii, p = p0 + threadIdx.x;
        if (row < (size_t)a.nuse && p < a.np)
            Y[row * a.pitch + p] = tile[ii][threadIdx.x];
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

/* The integer formats' packing of raw samples of type IN (uint16_t, or
 * uint8_t for input staged one byte a sample). */
template <typename IN> cudaError_t launch_pack_int(int fmt, dim3 grid, const dd_pack_args &a, cudaStream_t s)
{
    const dim3 block(32, 8);
    /* k_pack_vec where its loads apply: the whole of the rows in this
     * launch (not a 65535-tile part of them) */
    const size_t V = 4 / sizeof(IN), tiles = ((size_t)a.nuse + 31) / 32;
    if (a.ds == 1 && !a.chan && a.nc % V == 0 && a.row_tile0 == 0 && grid.y == tiles) {
        const dim3 g(grid.x, (unsigned)(((size_t)a.nuse + 32 * V - 1) / (32 * V)));
        switch (fmt) {
        case DD_Q4: k_pack_vec<DD_Q4, IN><<<g, block, 0, s>>>(a); return cudaGetLastError();
        case DD_Q8: k_pack_vec<DD_Q8, IN><<<g, block, 0, s>>>(a); return cudaGetLastError();
        case DD_P16: k_pack_vec<DD_P16, IN><<<g, block, 0, s>>>(a); return cudaGetLastError();
        case DD_S16: k_pack_vec<DD_S16, IN><<<g, block, 0, s>>>(a); return cudaGetLastError();
        case DD_W32: k_pack_vec<DD_W32, IN><<<g, block, 0, s>>>(a); return cudaGetLastError();
        default: break;
        }
    }
    switch (fmt) {
    case DD_Q4: k_pack<DD_Q4, IN, uint32_t><<<grid, block, 0, s>>>(a); break;
    case DD_Q8: k_pack<DD_Q8, IN, uint32_t><<<grid, block, 0, s>>>(a); break;
    case DD_P16: k_pack<DD_P16, IN, uint32_t><<<grid, block, 0, s>>>(a); break;
    case DD_S16: k_pack<DD_S16, IN, uint32_t><<<grid, block, 0, s>>>(a); break;
    case DD_W32: k_pack<DD_W32, IN, uint32_t><<<grid, block, 0, s>>>(a); break;
    case DD_U64: k_pack<DD_U64, IN, unsigned long long><<<grid, block, 0, s>>>(a); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

} // namespace

cudaError_t dd_launch_pack(int fmt, dim3 grid, const dd_pack_args &a, cudaStream_t s)
{
    if (fmt != DD_F32)
        return a.raw_u8 ? launch_pack_int<uint8_t>(fmt, grid, a, s) : launch_pack_int<uint16_t>(fmt, grid, a, s);
    if (a.raw_u8)
        return cudaErrorInvalidValue;   /* float samples are never narrowed */
    k_pack<DD_F32, float, uint32_t><<<grid, dim3(32, 8), 0, s>>>(a);
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

