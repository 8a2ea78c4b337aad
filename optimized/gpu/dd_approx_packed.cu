/* Subband kernels on packed integers (dd_approx.h): the corner turn, stage 1
 * and stage 2 of the GPU subband dedisperser when samples and sums are small
 * enough to share a 32-bit word, the way the direct GPU kernel adds four
 * 8-bit samples per word.  Integer sums are exact in any order, so these
 * give the planes of dd_approx_kernels.cu's kernels bit for bit.
 *
 * Layouts (both chosen so that a warp's 32 threads read 32 consecutive
 * words, free of bank conflicts and coalesced):
 *   Y4   byte b of word u of a channel row holds the scrunched sample
 *        u + 256 b (at most 255): one load gives a thread the samples of its
 *        four outputs w, w + 256, w + 512, w + 768 of a tile of 1024;
 *   P    (stage 2, shared memory) the low half of word x of a subband row
 *        holds stage-1 sample x, the high half sample x + 256 (each at most
 *        65535): one load gives two outputs.
 * Sums of two 16-bit lanes in one word stay exact while no lane can pass
 * 65535: stage 1 moves its lanes into 32-bit sums every k1 channels, stage 2
 * every k2 subbands (k1, k2 from the largest sample and stage-1 row). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include <type_traits>

#include "optimized/gpu/dd_approx.h"
#include "optimized/gpu/gpu_check.h"

namespace xc_apq {

const int QN = 256;          /* threads per block; the packed lanes are QN samples apart */
const int QT1 = 4 * QN;      /* stage-1 outputs per block */
const int SR = 8;            /* words a thread loads before it stores them, staging shared memory */

unsigned cap16q(size_t n) { return n < 1 ? 1u : n > 65535 ? 65535u : (unsigned)n; }

/* The corner turn with scrunching (ds > 1; k_turn_q8 below at ds = 1):
 * word u of row r (channel chan[r]) from samples u + QN b, b < 4. */
__global__ void __launch_bounds__(256) k_scrunch_q8(const uint16_t *raw, size_t nc, const int *chan, int nuse, int ds,
                                                    size_t nsd, size_t np, uint32_t *Y, size_t pitch)
{
    __shared__ uint32_t tile[32][33];
    const size_t u0 = (size_t)blockIdx.x * 32;
    for (size_t r0 = (size_t)blockIdx.y * 32; r0 < (size_t)nuse; r0 += (size_t)gridDim.y * 32) {
        const size_t r = r0 + threadIdx.x;
        const size_t cr = r < (size_t)nuse ? (size_t)chan[r] : 0;
        for (int k = threadIdx.y; k < 32; k += 8) {
            uint32_t word = 0;
            if (r < (size_t)nuse) {
                for (int b = 0; b < 4; b++) {
                    const size_t u = u0 + (size_t)k + (size_t)QN * (size_t)b;
                    uint32_t v = 0;
                    if (u < nsd) {
                        const size_t base = u * (size_t)ds * nc + cr;
                        for (int q = 0; q < ds; q++)
                            v += raw[base + (size_t)q * nc];
                    }
                    word |= v << (8 * b);
                }
            }
            tile[k][threadIdx.x] = word;
        }
        __syncthreads();
        for (int k = threadIdx.y; k < 32; k += 8) {
            const size_t rr = r0 + (size_t)k, u = u0 + threadIdx.x;
            if (rr < (size_t)nuse && u < np)
                Y[rr * pitch + u] = tile[threadIdx.x][k];
        }
        __syncthreads();
    }
}

/* The corner turn at ds = 1 (no scrunch), a block for 32 channel rows and
 * the words u0 + k + QN c (k < 32, c < 4) of the tile of QT1 words from
 * 4 QN (blockIdx.x / 8), u0 = that + 32 (blockIdx.x mod 8): those words'
 * bytes are the seven runs of samples u0 + k + QN b (b < 7), each loaded
 * once into shared memory; k_scrunch_q8 loads every sample once for each
 * of the four words that hold it, 16 loads for a thread's four words where
 * this takes 7. */
__global__ void __launch_bounds__(256) k_turn_q8(const uint16_t *raw, size_t nc, const int *chan, int nuse,
                                                 size_t nsd, size_t np, uint32_t *Y, size_t pitch)
{
    __shared__ uint32_t tile[7][32][33];
    const size_t u0 = (size_t)(blockIdx.x / 8) * QT1 + (size_t)(blockIdx.x % 8) * 32;
    const int tx = (int)threadIdx.x;
    for (size_t r0 = (size_t)blockIdx.y * 32; r0 < (size_t)nuse; r0 += (size_t)gridDim.y * 32) {
        const size_t r = r0 + (size_t)tx;
        const size_t cr = r < (size_t)nuse ? (size_t)chan[r] : 0;
        for (int k = threadIdx.y; k < 32; k += 8) {
            uint32_t v[7];
#pragma unroll
            for (int b = 0; b < 7; b++) {
                const size_t u = u0 + (size_t)k + (size_t)QN * (size_t)b;
                v[b] = r < (size_t)nuse && u < nsd ? (uint32_t)raw[u * nc + cr] : 0u;
            }
#pragma unroll
            for (int b = 0; b < 7; b++)
                tile[b][k][tx] = v[b];
        }
        __syncthreads();
        for (int k = threadIdx.y; k < 32; k += 8) {
            const size_t rr = r0 + (size_t)k;
            if (rr < (size_t)nuse) {
                uint32_t v[7];
#pragma unroll
                for (int b = 0; b < 7; b++)
                    v[b] = tile[b][tx][k];
#pragma unroll
                for (int c = 0; c < 4; c++) {
                    const size_t u = u0 + (size_t)tx + (size_t)QN * (size_t)c;
                    if (u < np)
                        Y[rr * pitch + u] = v[c] | v[c + 1] << 8 | v[c + 2] << 16 | v[c + 3] << 24;
                }
            }
        }
        __syncthreads();
    }
}

/* One block: group j0 + (blockIdx.x mod ng), outputs [w0, w0 + 1024) of
 * every subband s = blockIdx.y, blockIdx.y + gridDim.y, ... */
template <typename TB>
__global__ void __launch_bounds__(256) k_sub1_q8(const uint32_t *Y, size_t pitch, size_t nsd, const int *row,
                                                 const int *sub_first, int nsub, int nchans, const int32_t *a,
                                                 const int64_t *lo, int j0, int ng, size_t t0, size_t W, int k1,
                                                 TB *buf)
{
    const int jj = (int)(blockIdx.x % (unsigned)ng);
    const size_t w = (size_t)(blockIdx.x / (unsigned)ng) * QT1 + threadIdx.x;
    if (w >= W)
        return;
    const int j = j0 + jj;
    const int32_t *aj = a + (size_t)j * (size_t)nchans;
    for (int s = blockIdx.y; s < nsub; s += gridDim.y) {
        const size_t base = t0 + (size_t)lo[(size_t)j * (size_t)nsub + (size_t)s] + w;
        uint32_t e = 0, o = 0, s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        int cnt = 0;
#pragma unroll 4
        for (int c = sub_first[s]; c < sub_first[s + 1]; c++) {
            const int r = row[c];
            if (r < 0)
                continue;
            const size_t u = base + (size_t)aj[c];
            const uint32_t x = u < nsd ? Y[(size_t)r * pitch + u] : 0u;
            e += x & 0x00ff00ffu;            /* samples u (low) and u + 512 (high) */
            o += (x >> 8) & 0x00ff00ffu;     /* samples u + 256 and u + 768 */
            if (++cnt == k1) {
                s0 += e & 0xffffu;
                s2 += e >> 16;
                s1 += o & 0xffffu;
                s3 += o >> 16;
                e = o = 0;
                cnt = 0;
            }
        }
        s0 += e & 0xffffu;
        s2 += e >> 16;
        s1 += o & 0xffffu;
        s3 += o >> 16;
        TB *dst = buf + ((size_t)jj * (size_t)nsub + (size_t)s) * W;
        dst[w] = (TB)s0;
        if (w + QN < W)
            dst[w + QN] = (TB)s1;
        if (w + 2 * QN < W)
            dst[w + 2 * QN] = (TB)s2;
        if (w + 3 * QN < W)
            dst[w + 3 * QN] = (TB)s3;
    }
}

/* k_sub1_sm's table of channels c0 .. c0 + nc - 1 of subband s for groups
 * jr .. jr + gn - 1 (gn <= AP_RUN; the missing ones repeat group jr): thread
 * cc AP_RUN + g finds the offset of group jr + g in channel c0 + cc, and
 * shuffles within each eight lanes give the run's smallest (mn[cc]) and
 * largest; sh[cc AP_RUN + g] is the offset less the smallest (at most dwin),
 * ln[cc] 256 words past the largest.  Whole warps take part; lanes past
 * nc AP_RUN hold neutral values. */
__device__ void sub1_offsets(const int *row, int nsub, int nchans, const int32_t *a, const int64_t *lo, int jr, int gn,
                             int s, int c0, int nc, int dwin, long long *mn, int *sh, int *rw, int *ln)
{
    const int G = AP_RUN;
    if ((int)threadIdx.x >= (nc * G + 31) / 32 * 32)
        return;
    const int cc = (int)threadIdx.x / G, g = (int)threadIdx.x % G, use = cc < nc;
    const int j = jr + (g < gn ? g : 0), c = c0 + (use ? cc : 0);
    const long long off =
        (long long)lo[(size_t)j * (size_t)nsub + (size_t)s] + a[(size_t)j * (size_t)nchans + (size_t)c];
    long long m = use ? off : LLONG_MAX, x = use ? off : LLONG_MIN;
#pragma unroll
    for (int d = 1; d < G; d *= 2) {
        const long long m2 = __shfl_xor_sync(0xffffffffu, m, d), x2 = __shfl_xor_sync(0xffffffffu, x, d);
        m = m2 < m ? m2 : m;
        x = x2 > x ? x2 : x;
    }
    if (!use)
        return;
    sh[threadIdx.x] = (int)(off - m);
    if (g == 0) {
        rw[cc] = row[c];
        mn[cc] = m;
        ln[cc] = QN + (x - m < (long long)dwin ? (int)(x - m) : dwin);
    }
}

/* k_sub1_q8 for a run of AP_RUN consecutive groups per block, for subbands
 * of at most k1 channels (no 16-bit lane can pass 65535, so no carry out is
 * needed), through shared memory: the groups' nominal DMs are close, so they
 * read each channel's row at offsets at most dwin apart; the block stages
 * each channel's words once (cs channels at a time) and every group adds its
 * words from there, instead of each group streaming the row from L2 again.
 * A channel's row is staged from the run's smallest offset for 256 words
 * past its largest: no group reads further (its own spread, which averages
 * under half of dwin on the Table 2 plan).
 * Warp g adds group g0 + g, lane l the words l + 32 k (k < 8) of the tile:
 * a channel costs a warp one shift and one address, and each word a load at
 * an immediate offset, a mask, a byte permute and the adds (a thread per
 * word over the eight groups spent an address on every group's word).
 * Shared memory: cs x AP_RUN shifts, cs first words (the smallest offset of
 * each channel), cs row numbers, cs staged lengths, then cs rows of
 * 256 + dwin words. */
template <typename TB>
__global__ void __launch_bounds__(256, 6) k_sub1_sm(const uint32_t *Y, size_t pitch, size_t nsd, const int *row,
                                                 const int *sub_first, int nsub, int nchans, const int32_t *a,
                                                 const int64_t *lo, int j0, int ng, size_t t0, size_t W, int dwin,
                                                 int cs, TB *buf)
{
    const int G = AP_RUN, WK = QN / 32;   /* groups (one a warp) and words a lane */
    static_assert(AP_RUN * 32 == QN, "one warp a group");
    extern __shared__ long long shl[];   /* the first words (8-byte aligned), then shifts, rows, lengths, words */
    long long *mn = shl;
    int *sh = (int *)(mn + cs);
    int *rw = sh + cs * G;
    int *ln = rw + cs;
    uint32_t *sm1 = (uint32_t *)(ln + cs);
    const int L = QN + dwin, lane = (int)(threadIdx.x & 31), wg = (int)(threadIdx.x >> 5);
    const unsigned nruns = (unsigned)((ng + G - 1) / G);
    const int g0 = (int)(blockIdx.x % nruns) * G, gn = ng - g0 < G ? ng - g0 : G;
    const size_t w0 = (size_t)(blockIdx.x / nruns) * QT1;
    for (int s = blockIdx.y; s < nsub; s += gridDim.y) {
        uint32_t e[WK], o[WK];
#pragma unroll
        for (int k = 0; k < WK; k++)
            e[k] = o[k] = 0;
        for (int c0 = sub_first[s]; c0 < sub_first[s + 1]; c0 += cs) {
            const int nc = sub_first[s + 1] - c0 < cs ? sub_first[s + 1] - c0 : cs;
            __syncthreads();   /* the previous channels' words are added */
            sub1_offsets(row, nsub, nchans, a, lo, j0 + g0, gn, s, c0, nc, dwin, mn, sh, rw, ln);
            __syncthreads();
            /* each warp copies whole rows (channel cc: its ln[cc] words from
             * the run's smallest offset; 0 past nsd and for an unused
             * channel, whose zeros then add nothing), SR loads in flight a
             * thread before they are stored (a thread a word over the flat
             * index, each load waited for, left the warps stalled on L2) */
            for (int cc = wg; cc < nc; cc += QN / 32) {
                const int r = rw[cc], n = ln[cc];
                const size_t b0 = t0 + w0 + (size_t)mn[cc];
                const int lim = r < 0 || b0 >= nsd ? 0 : nsd - b0 < (size_t)n ? (int)(nsd - b0) : n;
                const uint32_t *src = Y + (size_t)(r < 0 ? 0 : r) * pitch + b0;
                uint32_t *dst = sm1 + (size_t)cc * (size_t)L;
                for (int y0 = lane; y0 < n; y0 += 32 * SR) {
                    uint32_t v[SR];
#pragma unroll
                    for (int q = 0; q < SR; q++)
                        v[q] = y0 + 32 * q < lim ? src[y0 + 32 * q] : 0u;
#pragma unroll
                    for (int q = 0; q < SR; q++)
                        if (y0 + 32 * q < n)
                            dst[y0 + 32 * q] = v[q];
                }
            }
            __syncthreads();
            if (wg < gn) {
                /* a channel a step (two, with one three-input add for both
                 * channels' words, needed more than the 40 registers that
                 * six blocks an SM allow) */
                /* two channels a step: both channels' masked words go into
                 * one three-input add */
                const uint32_t *p = sm1 + lane;
                int cc = 0;
                for (; cc + 1 < nc; cc += 2) {
                    const uint32_t *p0 = p + (cc * L + sh[cc * G + wg]);
                    const uint32_t *p1 = p + ((cc + 1) * L + sh[(cc + 1) * G + wg]);
#pragma unroll
                    for (int k = 0; k < WK; k++) {
                        const uint32_t x0 = p0[32 * k], x1 = p1[32 * k];
                        e[k] += (x0 & 0x00ff00ffu) + (x1 & 0x00ff00ffu);   /* samples u (low half), u + 512 */
                        /* __byte_perm(x, 0, 0x4341) = (x >> 8) & 0x00ff00ff: u + 256, u + 768 */
                        o[k] += __byte_perm(x0, 0u, 0x4341) + __byte_perm(x1, 0u, 0x4341);
                    }
                }
                if (cc < nc) {
                    const uint32_t *p0 = p + (cc * L + sh[cc * G + wg]);
#pragma unroll
                    for (int k = 0; k < WK; k++) {
                        const uint32_t x0 = p0[32 * k];
                        e[k] += x0 & 0x00ff00ffu;
                        o[k] += __byte_perm(x0, 0u, 0x4341);
                    }
                }
            }
        }
        if (wg < gn) {
            TB *dst = buf + ((size_t)(g0 + wg) * (size_t)nsub + (size_t)s) * W;
#pragma unroll
            for (int k = 0; k < WK; k++) {
                const size_t w = w0 + (size_t)(lane + 32 * k);
                if (w < W)
                    dst[w] = (TB)(e[k] & 0xffffu);
                if (w + QN < W)
                    dst[w + QN] = (TB)(o[k] & 0xffffu);
                if (w + 2 * QN < W)
                    dst[w + 2 * QN] = (TB)(e[k] >> 16);
                if (w + 3 * QN < W)
                    dst[w + 3 * QN] = (TB)(o[k] >> 16);
            }
        }
    }
}

/* k_stage2_pk's staging of one group's rows (src: subband 0's row from
 * the tile's first output, nrem = W - t0 of its samples there, rows W
 * apart): word (s len + y) NP + p holds samples y + 2 QN p (low half) and
 * y + 2 QN p + QN (high half) of subband s, 0 from nrem on.  Each warp
 * copies whole rows, a lane's NP words stored together, with S2R = 2 NP U
 * loads in flight a lane before the stores: the block waits at a barrier
 * for its rows, which stage 1 has just written through to DRAM, so each
 * round trip stalls all its warps (at 8 loads a lane a row of 300 words
 * took five); stage 2's shared memory allows three blocks an SM, which
 * leaves registers for 24. */
const int S2R = 24;

template <int NP, typename TB>
__device__ void stage2_stage(const TB *src0, size_t nrem, size_t W, int nsub, int len, uint32_t *dst0)
{
    const int U = S2R / (2 * NP), lane = (int)(threadIdx.x & 31);
    for (int s = (int)(threadIdx.x >> 5); s < nsub; s += QN / 32) {
        const TB *src = src0 + (size_t)s * W;
        uint32_t *dst = dst0 + (size_t)s * (size_t)len * NP;
        for (int y0 = lane; y0 < len; y0 += 32 * U) {
            uint32_t v[U][NP];
#pragma unroll
            for (int q = 0; q < U; q++)
#pragma unroll
                for (int p = 0; p < NP; p++) {
                    const size_t y = (size_t)(y0 + 32 * q + 2 * QN * p);
                    v[q][p] = (y < nrem ? (uint32_t)src[y] : 0u) | ((y + QN < nrem ? (uint32_t)src[y + QN] : 0u) << 16);
                }
#pragma unroll
            for (int q = 0; q < U; q++)
                if (y0 + 32 * q < len) {
                    if (NP == 2)
                        *reinterpret_cast<uint2 *>(dst + (size_t)(y0 + 32 * q) * 2) = make_uint2(v[q][0], v[q][NP - 1]);
                    else
                        dst[y0 + 32 * q] = v[q][0];
                }
        }
    }
}

/* pk[p] += word p of w (one uint32_t for NP = 1, a uint2 for NP = 2). */
__device__ inline void add_pw(uint32_t *pk, uint32_t w) { pk[0] += w; }
__device__ inline void add_pw(uint32_t *pk, uint2 w)
{
    pk[0] += w.x;
    pk[1] += w.y;
}

/* Trials i .. i + NT - 1 of k_stage2_pk (their shifts rows sft, nsub
 * apart): each sums one word a pair and subband from the staged rows (smp,
 * thread x's words from x on) and writes its outputs from o (rows opitch
 * apart).  The NT trials share the running row pointer and make NT
 * independent chains of shared loads and adds: with three blocks an SM a
 * warp waited on each subband's load before its add, and NT = 2 gives it
 * two in flight.  Lanes flush into 32-bit sums every k2 subbands. */
template <int NP, int NT, typename PW>
__device__ __forceinline__ void stage2_trials(const PW *smp, int x, int len, const int32_t *sft, int nsub, int k2,
                                              int v4, float *o, size_t opitch, size_t t0, size_t nt)
{
    uint32_t slo[NT][NP], shi[NT][NP];
#pragma unroll
    for (int m = 0; m < NT; m++)
#pragma unroll
        for (int p = 0; p < NP; p++)
            slo[m][p] = shi[m][p] = 0;
    const PW *rq = smp + x;   /* subband q's row from q = 0, one len a subband */
    for (int q0 = 0; q0 < nsub; q0 += k2) {
        const int q1 = nsub - q0 < k2 ? nsub : q0 + k2;
        uint32_t pk[NT][NP];
#pragma unroll
        for (int m = 0; m < NT; m++)
#pragma unroll
            for (int p = 0; p < NP; p++)
                pk[m][p] = 0;
        if (v4) {
            /* four shifts a load (nsub and k2 multiples of 4, so sft + q is
             * 16-byte aligned and q1 - q0 a multiple of 4) */
#pragma unroll 2
            for (int q = q0; q < q1; q += 4) {
                int sq[NT][4];
#pragma unroll
                for (int m = 0; m < NT; m++) {
                    const int4 s4 = *reinterpret_cast<const int4 *>(sft + (size_t)m * (size_t)nsub + q);
                    sq[m][0] = s4.x;
                    sq[m][1] = s4.y;
                    sq[m][2] = s4.z;
                    sq[m][3] = s4.w;
                }
#pragma unroll
                for (int u = 0; u < 4; u++) {
#pragma unroll
                    for (int m = 0; m < NT; m++)
                        add_pw(pk[m], rq[sq[m][u]]);
                    rq += len;
                }
            }
        } else {
#pragma unroll 4
            for (int q = q0; q < q1; q++) {
#pragma unroll
                for (int m = 0; m < NT; m++)
                    add_pw(pk[m], rq[sft[(size_t)m * (size_t)nsub + q]]);
                rq += len;
            }
        }
#pragma unroll
        for (int m = 0; m < NT; m++)
#pragma unroll
            for (int p = 0; p < NP; p++) {
                slo[m][p] += pk[m][p] & 0xffffu;
                shi[m][p] += pk[m][p] >> 16;
            }
    }
#pragma unroll
    for (int m = 0; m < NT; m++)
#pragma unroll
        for (int p = 0; p < NP; p++) {
            const size_t a0 = (size_t)(2 * QN * p + x);
            if (t0 + a0 < nt)
                o[m * opitch + a0] = __uint2float_rn(slo[m][p]);
            if (t0 + a0 + QN < nt)
                o[m * opitch + a0 + QN] = __uint2float_rn(shi[m][p]);
        }
}

/* Stage 2 of a group's trials through shared memory, NP pairs of outputs
 * per thread (tile of 512 NP outputs): the group's nsub rows are staged once
 * as P words, then each trial's output is the sum over subbands of one
 * word per pair, two trials at a time (stage2_trials).  A thread's NP words
 * of a subband lie side by side (word (s len + y) NP + p: pair p of
 * subband s at y), so that one load at one address, a running row pointer
 * plus the trial's shift, gives them all: about six PTX instructions a
 * subband for NP = 2, where an address a pair from the subband's index times
 * len took about fourteen. */
template <int NP, typename TB>
__global__ void __launch_bounds__(256) k_stage2_pk(const TB *buf, size_t W, const int32_t *shift, int nsub,
                                                   const unsigned long long *first, const int32_t *gspan, int j0,
                                                   int ng, size_t nt, int k2, int v4, float *out, size_t opitch,
                                                   size_t col)
{
    static_assert(NP == 1 || NP == 2, "a thread's words are one uint32_t or one uint2");
    typedef typename std::conditional<NP == 2, uint2, uint32_t>::type PW;
    extern __shared__ __align__(16) uint32_t smq[];
    const PW *const smp = reinterpret_cast<const PW *>(smq);   /* [nsub][len] */
    const size_t t0 = (size_t)blockIdx.x * (size_t)(2 * QN * NP);
    if (t0 >= nt)
        return;
    const int x = threadIdx.x;
    for (int jj = blockIdx.y; jj < ng; jj += gridDim.y) {
        const int j = j0 + jj;
        const int len = QN + gspan[j];
        __syncthreads();   /* the previous group's reads are done */
        stage2_stage<NP>(buf + (size_t)jj * (size_t)nsub * W + t0, t0 < W ? W - t0 : 0, W, nsub, len, smq);
        __syncthreads();
        const unsigned long long i1 = first[j + 1];
        unsigned long long i = first[j];
        for (; i + 1 < i1; i += 2)
            stage2_trials<NP, 2>(smp, x, len, shift + i * (size_t)nsub, nsub, k2, v4, out + i * opitch + col + t0,
                                 opitch, t0, nt);
        if (i < i1)
            stage2_trials<NP, 1>(smp, x, len, shift + i * (size_t)nsub, nsub, k2, v4, out + i * opitch + col + t0,
                                 opitch, t0, nt);
    }
}

} // namespace xc_apq

cudaError_t ap_launch_scrunch_q8(const uint16_t *raw, size_t nc, const int *chan, int nuse, int ds, size_t nsd,
                                 size_t np, uint32_t *Y, size_t pitch, cudaStream_t st)
{
    if (np == 0 || nuse == 0)
        return cudaSuccess;
    const dim3 block(32, 8);
    const unsigned gy = xc_apq::cap16q(((size_t)nuse + 31) / 32);
    if (ds == 1)
        xc_apq::k_turn_q8<<<dim3((unsigned)((np + xc_apq::QT1 - 1) / xc_apq::QT1 * 8), gy), block, 0, st>>>(
            raw, nc, chan, nuse, nsd, np, Y, pitch);
    else
        xc_apq::k_scrunch_q8<<<dim3((unsigned)((np + 31) / 32), gy), block, 0, st>>>(raw, nc, chan, nuse, ds, nsd, np,
                                                                                   Y, pitch);
    return cudaGetLastError();
}

/* Calls f(TB()) with the stage-1 row type: uint16_t when b16, else uint32_t. */
template <typename F> void with_rows(int b16, F f)
{
    if (b16)
        f(uint16_t());
    else
        f(uint32_t());
}

cudaError_t ap_launch_sub1_q8(const uint32_t *Y, size_t pitch, size_t nsd, const int *row, const int *sub_first,
                              int nsub, int nchans, const int32_t *a, const int64_t *lo, int j0, int ng, size_t t0,
                              size_t W, int k1, int b16, void *buf, cudaStream_t st)
{
    if (W == 0 || ng == 0)
        return cudaSuccess;
    const size_t tiles = (W + xc_apq::QT1 - 1) / xc_apq::QT1;
    /* at most 2^31 - 1 blocks along x: groups in launches of as many as fit */
    const size_t per = (size_t)INT_MAX / tiles < (size_t)ng ? (size_t)INT_MAX / tiles : (size_t)ng;
    for (size_t p = 0; p < (size_t)ng; p += per) {
        const size_t n = (size_t)ng - p < per ? (size_t)ng - p : per;
        with_rows(b16, [&](auto tb) {
            using TB = decltype(tb);
            xc_apq::k_sub1_q8<TB><<<dim3((unsigned)(tiles * n), xc_apq::cap16q((size_t)nsub)), xc_apq::QN, 0, st>>>(
                Y, pitch, nsd, row, sub_first, nsub, nchans, a, lo, j0 + (int)p, (int)n, t0, W, k1,
                (TB *)buf + p * (size_t)nsub * W);
        });
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

size_t ap_sub1_sm_smem(int dwin, int cs)
{
    return (size_t)cs * (sizeof(long long) + AP_RUN * sizeof(int) + 2 * sizeof(int) +
                         ((size_t)xc_apq::QN + (size_t)dwin) * sizeof(uint32_t));
}

cudaError_t ap_launch_sub1_sm(const uint32_t *Y, size_t pitch, size_t nsd, const int *row, const int *sub_first,
                              int nsub, int nchans, const int32_t *a, const int64_t *lo, int j0, int ng, size_t t0,
                              size_t W, int dwin, int cs, int b16, void *buf, cudaStream_t st)
{
    if (W == 0 || ng == 0)
        return cudaSuccess;
    const size_t tiles = (W + xc_apq::QT1 - 1) / xc_apq::QT1, smem = ap_sub1_sm_smem(dwin, cs);
    cudaError_t e = cudaSuccess;
    with_rows(b16, [&](auto tb) { e = xc_gpu_smem_optin(xc_apq::k_sub1_sm<decltype(tb)>); });
    if (e != cudaSuccess)
        return e;
    /* at most 2^31 - 1 blocks along x: runs of groups in launches of as many as fit */
    const size_t nruns = ((size_t)ng + AP_RUN - 1) / AP_RUN;
    const size_t per = (size_t)INT_MAX / tiles < nruns ? (size_t)INT_MAX / tiles : nruns;
    for (size_t p = 0; p < nruns; p += per) {
        const size_t n = nruns - p < per ? nruns - p : per, g = p * AP_RUN;
        const int k = (size_t)ng - g < n * AP_RUN ? (int)((size_t)ng - g) : (int)(n * AP_RUN);
        with_rows(b16, [&](auto tb) {
            using TB = decltype(tb);
            xc_apq::k_sub1_sm<TB><<<dim3((unsigned)(tiles * n), xc_apq::cap16q((size_t)nsub)), xc_apq::QN, smem, st>>>(
                Y, pitch, nsd, row, sub_first, nsub, nchans, a, lo, j0 + (int)g, k, t0, W, dwin, cs,
                (TB *)buf + g * (size_t)nsub * W);
        });
        e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

size_t ap_stage2_pk_smem(int np, int nsub, int span)
{
    return (size_t)nsub * (size_t)np * ((size_t)xc_apq::QN + (size_t)span) * sizeof(uint32_t);
}

cudaError_t ap_launch_stage2_pk(int np, int b16, const void *buf, size_t W, const int32_t *shift, int nsub,
                                const unsigned long long *first, const int32_t *gspan, int span, int j0, int ng,
                                size_t nt, int k2, int v4, float *out, size_t opitch, size_t col, cudaStream_t st)
{
    if (nt == 0 || ng == 0)
        return cudaSuccess;
    const size_t smem = ap_stage2_pk_smem(np, nsub, span), tile = (size_t)(2 * xc_apq::QN * np);
    const dim3 grid((unsigned)((nt + tile - 1) / tile), xc_apq::cap16q((size_t)ng));
    cudaError_t e = cudaSuccess;
    with_rows(b16, [&](auto tb) {
        using TB = decltype(tb);
        if (np == 2) {
            e = xc_gpu_smem_optin(xc_apq::k_stage2_pk<2, TB>);
            if (e == cudaSuccess)
                xc_apq::k_stage2_pk<2, TB><<<grid, xc_apq::QN, smem, st>>>((const TB *)buf, W, shift, nsub, first,
                                                                           gspan, j0, ng, nt, k2, v4, out, opitch, col);
        } else {
            e = xc_gpu_smem_optin(xc_apq::k_stage2_pk<1, TB>);
            if (e == cudaSuccess)
                xc_apq::k_stage2_pk<1, TB><<<grid, xc_apq::QN, smem, st>>>((const TB *)buf, W, shift, nsub, first,
                                                                           gspan, j0, ng, nt, k2, v4, out, opitch, col);
        }
    });
    return e != cudaSuccess ? e : cudaGetLastError();
}
