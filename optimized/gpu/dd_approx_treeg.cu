/* The tree's kernels for 16-bit rows (dd_approx.h; 8-bit input at ds 1,
 * where M samples' sum fits 16 bits): the tree built in registers, and a
 * stage 2 in which neighbouring trials share the rows they read, staged once
 * in shared memory.  Integer sums are exact in any order, so both give the
 * planes of dd_approx_tree.cu's kernels bit for bit.
 *
 * Tree (k_tree_rb): as k_tree_fused, a block of 256 columns for a tile of
 * 257 - M outputs of one (subband, block) pair, but each thread keeps its
 * column's M sums in registers with every index a constant (M a template
 * argument); a butterfly step publishes only the M/2 rows that other columns
 * read shifted (the lower half of each pair of halves) and reads them at
 * x + ceil(n/2) from shared memory, whose rows carry M zero columns past the
 * tile where the unfused kernels read values no output of the tile uses.
 *
 * Stage 2 (k_tree_s2): the trials' rows are a few per subband: a subband's
 * line n = round(sigma DM) moves by well under one per trial (Table 2 plan
 * at 1024 channels: 1.3-1.8 distinct rows per subband in 16 consecutive
 * trials), so a block takes G consecutive trials and a tile of 512 NP
 * outputs, stages each distinct row of SC subbands at a time once (NP words
 * a position holding outputs y + 512 p and y + 512 p + 256, as
 * dd_approx_packed.cu's stage 2 does), and every trial adds one load a
 * subband from there at a byte offset made on the host; 16-bit lanes move
 * into 32-bit sums after each SC subbands (SC at most the subbands whose
 * rows' sum fits 16 bits).  The rows reach L2 about a tenth as often as
 * when each trial read its own.  On one H200 (docs/SUBBAND.md) this, NP =
 * 2 (127 registers, two blocks an SM), took 4.15 ms at 1024 channels where a
 * first version (NP = 1, offsets in words, a test per trial, rows staged in
 * rounds of 256 words) took 6.59 ms. */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/dd_approx.h"
#include "optimized/gpu/dd_approx_state.h"
#include "optimized/gpu/gpu_check.h"

namespace xc_apg {

const int GN = 256;   /* threads a block: tree columns; stage 2: 2 GN outputs a tile */
const int GU = 12;    /* words a lane loads before storing them, staging stage 2: an entry of
                       * up to 384 words (spreads to 128) in one round */

/* Butterfly step h (1, 2, 4, ... < M) of column x: a[y] becomes
 * a[g + n/2] + (column x + ceil(n/2) of row g + h + n/2), g = y - y mod 2h,
 * n = y mod 2h; zr holds the rows g + h + k (k < h) as slot (g / 2h) h + k. */
template <int M, int H> __device__ __forceinline__ void tree_steps(uint32_t (&a)[M], uint32_t (*zr)[GN + M], int x)
{
    if constexpr (H < M) {
        __syncthreads();   /* the previous step's reads are done */
#pragma unroll
        for (int g = 0; g < M; g += 2 * H)
#pragma unroll
            for (int k = 0; k < H; k++)
                zr[(g / (2 * H)) * H + k][x] = a[g + H + k];
        __syncthreads();
        uint32_t b[M];
#pragma unroll
        for (int y = 0; y < M; y++) {
            const int g = (y / (2 * H)) * (2 * H), n = y % (2 * H), sh = n / 2 + n % 2;
            b[y] = a[g + n / 2] + zr[(g / (2 * H)) * H + n / 2][x + sh];
        }
#pragma unroll
        for (int y = 0; y < M; y++)
            a[y] = b[y];
        tree_steps<M, 2 * H>(a, zr, x);
    }
}

template <int M>
__global__ void __launch_bounds__(256) k_tree_rb(const uint32_t *Y, size_t pitch, size_t nsd, const int *prow,
                                                 const int *qs, const int *qj, const int64_t *lo, int q0, int nq,
                                                 size_t t0, size_t W, uint16_t *buf)
{
    __shared__ uint32_t zr[M / 2][GN + M];
    const int qq = (int)(blockIdx.x % (unsigned)nq), q = q0 + qq, x = threadIdx.x;
    const int tf = GN + 1 - M;
    const size_t w = (size_t)(blockIdx.x / (unsigned)nq) * (size_t)tf + (size_t)x;
    const size_t base = t0 + (size_t)lo[q] + w;
    const int s = qs[q];
    const size_t j = (size_t)qj[q];
    uint32_t a[M];
#pragma unroll
    for (int u = 0; u < M; u++) {
        const int r = prow[(size_t)s * (size_t)M + (size_t)u];
        const size_t t = base + j * (size_t)u;
        a[u] = r >= 0 && w < W && t < nsd ? Y[(size_t)r * pitch + t] : 0u;
    }
    for (int k = x; k < (M / 2) * M; k += GN)
        zr[k / M][GN + k % M] = 0u;
    tree_steps<M, 1>(a, zr, x);
    if (x < tf && w < W)
#pragma unroll
        for (int y = 0; y < M; y++)
            buf[((size_t)qq * (size_t)M + (size_t)y) * W + w] = (uint16_t)a[y];
}

/* pk[p] += the NP words at byte offset o of rq (one uint32_t, or a uint2). */
template <int NP> __device__ __forceinline__ void add_at(uint32_t *pk, const char *rq, int o)
{
    if constexpr (NP == 2) {
        const uint2 w = *reinterpret_cast<const uint2 *>(rq + o);
        pk[0] += w.x;
        pk[1] += w.y;
    } else {
        pk[0] += *reinterpret_cast<const uint32_t *>(rq + o);
    }
}

/* Stage 2 of group j = blockIdx.x (trials [gfirst[j], gfirst[j + 1]), at
 * most G), tiles of 2 GN NP outputs from blockIdx.y.  Shared memory: the
 * group's offsets (G nsub ints), then the staged rows of SC subbands, len
 * positions of NP words each: word (e len + y) NP + p holds samples
 * elo[e] + t0 + y + 2 GN p (low half) and that + GN (high half) of row
 * erow[e], 0 from W on.  Entries of subbands [4 c, 4 c + 4) of group j are
 * [ent[j nq4 + c], ent[j nq4 + c + 1]); a trial's offset for subband s is
 * 4 NP ((its entry - the group's first) len + its shift - elo) bytes. */
template <int G, int NP>
__global__ void __launch_bounds__(256) k_tree_s2(const uint16_t *buf, size_t W, const int32_t *gfirst,
                                                 const int32_t *glen, const int32_t *ent, const int32_t *erow,
                                                 const int32_t *elo, const int32_t *off, int nsub, int sc, size_t nt,
                                                 float *out, size_t opitch, size_t col)
{
    extern __shared__ __align__(16) uint32_t smg[];
    int32_t *soff = reinterpret_cast<int32_t *>(smg);
    uint32_t *rows = smg + (size_t)G * (size_t)nsub;
    const int j = (int)blockIdx.x, x = (int)threadIdx.x, lane = x & 31, warp = x >> 5, nq4 = nsub / 4;
    const int i0 = gfirst[j], gn = gfirst[j + 1] - i0, len = glen[j];
    const int32_t *ej = ent + (size_t)j * (size_t)nq4;
    const int U = GU / NP;   /* positions a lane loads before storing them */
    for (size_t t0 = (size_t)blockIdx.y * (2 * GN * NP); t0 < nt; t0 += (size_t)gridDim.y * (2 * GN * NP)) {
        __syncthreads();   /* the previous tile's reads are done */
        /* a group of fewer than G trials repeats its first trial's offsets
         * (its sums are not stored), so that the adds need no test */
        for (int k = x; k < G * nsub; k += GN)
            soff[k] = off[(size_t)i0 * (size_t)nsub + (size_t)(k < gn * nsub ? k : k % nsub)];
        uint32_t slo[G][NP], shi[G][NP];
#pragma unroll
        for (int g = 0; g < G; g++)
#pragma unroll
            for (int p = 0; p < NP; p++)
                slo[g][p] = shi[g][p] = 0u;
        for (int c = 0; c < nsub; c += sc) {
            const int ea = ej[c / 4], eb = ej[(c + sc) / 4];
            __syncthreads();   /* the previous chunk's reads are done */
            for (int e = ea + warp; e < eb; e += GN / 32) {
                /* the lane's samples from its first position on, as 32-bit
                 * counts (what is left of the row, capped): the loads take
                 * constant offsets from one pointer */
                const size_t st = (size_t)elo[e] + t0;
                const long long left = st < W ? (long long)(W - st) - lane : -(long long)lane;
                const int rem = left > INT_MAX ? INT_MAX : left < INT_MIN ? INT_MIN : (int)left;
                const uint16_t *src = buf + (size_t)erow[e] * W + (st < W ? st : 0) + lane;
                uint32_t *dst = rows + ((size_t)(e - ea) * (size_t)len + (size_t)lane) * NP;
                for (int y0 = 0; y0 + lane < len; y0 += 32 * U) {
                    uint32_t v[U][NP];
#pragma unroll
                    for (int u = 0; u < U; u++)
#pragma unroll
                        for (int p = 0; p < NP; p++) {
                            const int y = y0 + 32 * u + 2 * GN * p;
                            v[u][p] = (y < rem ? (uint32_t)src[y] : 0u) | ((y + GN < rem ? (uint32_t)src[y + GN] : 0u) << 16);
                        }
#pragma unroll
                    for (int u = 0; u < U; u++)
                        if (y0 + 32 * u + lane < len) {
                            if constexpr (NP == 2)
                                *reinterpret_cast<uint2 *>(dst + (size_t)(y0 + 32 * u) * 2) = make_uint2(v[u][0], v[u][NP - 1]);
                            else
                                dst[y0 + 32 * u] = v[u][0];
                        }
                }
            }
            __syncthreads();
            /* offsets are in bytes: one add an address */
            const char *rq = reinterpret_cast<const char *>(rows + (size_t)x * NP) - (size_t)(ea - ej[0]) * (size_t)len * 4 * NP;
            uint32_t pk[G][NP];
#pragma unroll
            for (int g = 0; g < G; g++)
#pragma unroll
                for (int p = 0; p < NP; p++)
                    pk[g][p] = 0u;
            for (int s = c; s < c + sc; s += 4) {
#pragma unroll
                for (int g = 0; g < G; g++) {
                    const int4 o = *reinterpret_cast<const int4 *>(soff + g * nsub + s);
                    add_at<NP>(pk[g], rq, o.x);
                    add_at<NP>(pk[g], rq, o.y);
                    add_at<NP>(pk[g], rq, o.z);
                    add_at<NP>(pk[g], rq, o.w);
                }
            }
#pragma unroll
            for (int g = 0; g < G; g++)
#pragma unroll
                for (int p = 0; p < NP; p++) {
                    slo[g][p] += pk[g][p] & 0xffffu;
                    shi[g][p] += pk[g][p] >> 16;
                }
        }
#pragma unroll
        for (int g = 0; g < G; g++)
            if (g < gn) {
                float *o = out + (size_t)(i0 + g) * opitch + col + t0;
#pragma unroll
                for (int p = 0; p < NP; p++) {
                    const size_t a = (size_t)(2 * GN * p + x);
                    if (t0 + a < nt)
                        o[a] = __uint2float_rn(slo[g][p]);
                    if (t0 + a + GN < nt)
                        o[a + GN] = __uint2float_rn(shi[g][p]);
                }
            }
    }
}

} // namespace xc_apg

/* ---- host side ---------------------------------------------------------------- */

int ap_tree_rb_ok(int M) { return M == 2 || M == 4 || M == 8 || M == 16 || M == 32; }

cudaError_t ap_launch_tree_rb(const uint32_t *Y, size_t pitch, size_t nsd, const int *prow, int M, const int *qs,
                              const int *qj, const int64_t *lo, int q0, int nq, size_t t0, size_t W, uint16_t *buf,
                              cudaStream_t st)
{
    if (W == 0 || nq == 0)
        return cudaSuccess;
    if (!ap_tree_rb_ok(M))
        return cudaErrorInvalidValue;
    const size_t tf = (size_t)(xc_apg::GN + 1 - M), tiles = (W + tf - 1) / tf;
    const size_t most = (size_t)INT_MAX / tiles, per = most < 1 ? 1 : most;
    for (size_t p = 0; p < (size_t)nq; p += per) {
        const size_t k = (size_t)nq - p < per ? (size_t)nq - p : per;
        const unsigned blocks = (unsigned)(tiles * k);
        const int qa = q0 + (int)p, qk = (int)k;
        uint16_t *b = buf + p * (size_t)M * W;
        switch (M) {
        case 2: xc_apg::k_tree_rb<2><<<blocks, xc_apg::GN, 0, st>>>(Y, pitch, nsd, prow, qs, qj, lo, qa, qk, t0, W, b); break;
        case 4: xc_apg::k_tree_rb<4><<<blocks, xc_apg::GN, 0, st>>>(Y, pitch, nsd, prow, qs, qj, lo, qa, qk, t0, W, b); break;
        case 8: xc_apg::k_tree_rb<8><<<blocks, xc_apg::GN, 0, st>>>(Y, pitch, nsd, prow, qs, qj, lo, qa, qk, t0, W, b); break;
        case 16: xc_apg::k_tree_rb<16><<<blocks, xc_apg::GN, 0, st>>>(Y, pitch, nsd, prow, qs, qj, lo, qa, qk, t0, W, b); break;
        default: xc_apg::k_tree_rb<32><<<blocks, xc_apg::GN, 0, st>>>(Y, pitch, nsd, prow, qs, qj, lo, qa, qk, t0, W, b); break;
        }
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

namespace xc_ap {

void tg_free(ap_tgroups *g)
{
    free(g->h_first);
    free(g->h_len);
    free(g->h_ent);
    free(g->h_row);
    free(g->h_lo);
    free(g->h_off);
    void *dev[] = {g->d_first, g->d_len, g->d_ent, g->d_row, g->d_lo, g->d_off};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        cudaFree(dev[i]);
    memset(g, 0, sizeof *g);
}

/* The groups of AP_TG consecutive trials of range r (rowid, shift made) and
 * their entries: per subband, each distinct row its trials read, in the
 * order first read, with the smallest shift into it. */
xc_status tg_make(ap_tgroups *g, const ap_range *r, int nsub)
{
    memset(g, 0, sizeof *g);
    if (nsub < 4 || nsub % 4 || r->ndm == 0 || r->ndm > (size_t)INT32_MAX / (size_t)nsub)
        return XC_OK;   /* none: stage 2 reads L2 (ap_launch_stage2_x4) */
    const int nq4 = nsub / 4;
    const size_t ndm = r->ndm, ng = (ndm + AP_TG - 1) / AP_TG, cells = ndm * (size_t)nsub;
    g->h_first = (int32_t *)malloc((ng + 1) * sizeof(int32_t));
    g->h_len = (int32_t *)malloc(ng * sizeof(int32_t));
    g->h_ent = (int32_t *)malloc((ng * (size_t)nq4 + 1) * sizeof(int32_t));
    g->h_row = (int32_t *)malloc((cells + 1) * sizeof(int32_t));
    g->h_lo = (int32_t *)malloc((cells + 1) * sizeof(int32_t));
    g->h_off = (int32_t *)malloc((cells + 1) * sizeof(int32_t));
    int32_t *ehi = (int32_t *)malloc((cells + 1) * sizeof(int32_t));
    if (!g->h_first || !g->h_len || !g->h_ent || !g->h_row || !g->h_lo || !g->h_off || !ehi) {
        free(ehi);
        tg_free(g);
        return XC_ENOMEM;
    }
    int32_t ne = 0;
    for (size_t j = 0; j < ng; j++) {
        const size_t i0 = j * AP_TG, i1 = i0 + AP_TG < ndm ? i0 + AP_TG : ndm;
        const int32_t e0 = ne;
        g->h_first[j] = (int32_t)i0;
        for (int s = 0; s < nsub; s++) {
            if (s % 4 == 0)
                g->h_ent[j * (size_t)nq4 + (size_t)(s / 4)] = ne;
            const int32_t es = ne;   /* this subband's entries: [es, ne) */
            for (size_t i = i0; i < i1; i++) {
                const int32_t row = r->h_rowid[i * (size_t)nsub + (size_t)s], sh = r->h_shift[i * (size_t)nsub + (size_t)s];
                int32_t e = es;
                while (e < ne && g->h_row[e] != row)
                    e++;
                if (e == ne) {
                    g->h_row[ne] = row;
                    g->h_lo[ne] = sh;
                    ehi[ne++] = sh;
                }
                g->h_lo[e] = sh < g->h_lo[e] ? sh : g->h_lo[e];
                ehi[e] = sh > ehi[e] ? sh : ehi[e];
                g->h_off[i * (size_t)nsub + (size_t)s] = e;
            }
        }
        int32_t spread = 0;
        for (int32_t e = e0; e < ne; e++)
            spread = ehi[e] - g->h_lo[e] > spread ? ehi[e] - g->h_lo[e] : spread;
        const int32_t len = xc_apg::GN + spread;   /* GN words of two outputs, plus the spread */
        if ((int64_t)(ne - e0) * len > INT32_MAX / (4 * AP_TG_NP)) {   /* byte offsets past int32: none */
            free(ehi);
            tg_free(g);
            return XC_OK;
        }
        g->h_len[j] = len;
        for (size_t i = i0; i < i1; i++)
            for (int s = 0; s < nsub; s++) {
                int32_t *o = &g->h_off[i * (size_t)nsub + (size_t)s];
                const int32_t e = *o;
                *o = 4 * AP_TG_NP * ((e - e0) * len + (r->h_shift[i * (size_t)nsub + (size_t)s] - g->h_lo[e]));
            }
    }
    g->h_first[ng] = (int32_t)ndm;
    g->h_ent[ng * (size_t)nq4] = ne;
    g->ng = (int)ng;
    g->nent = ne;
    free(ehi);
    return XC_OK;
}

} // namespace xc_ap

size_t ap_tree_s2_smem(const xc_ap::ap_tgroups *g, int nsub, int sc)
{
    const int nq4 = nsub / 4;
    size_t most = 0;
    for (int j = 0; j < g->ng; j++)
        for (int c = 0; c < nsub; c += sc) {
            const size_t n = (size_t)(g->h_ent[(size_t)j * (size_t)nq4 + (size_t)((c + sc) / 4)] -
                                      g->h_ent[(size_t)j * (size_t)nq4 + (size_t)(c / 4)]) *
                             (size_t)g->h_len[j];
            most = n > most ? n : most;
        }
    return ((size_t)xc_ap::AP_TG * (size_t)nsub + most * (size_t)xc_ap::AP_TG_NP) * sizeof(uint32_t);
}

cudaError_t ap_launch_tree_s2(const xc_ap::ap_tgroups *g, const uint16_t *buf, size_t W, int nsub, int sc, size_t smem,
                              size_t nt, float *out, size_t opitch, size_t col, cudaStream_t st)
{
    if (nt == 0 || g->ng == 0)
        return cudaSuccess;
    if (sc < 4 || sc % 4 || nsub % sc)
        return cudaErrorInvalidValue;
    cudaError_t e = xc_gpu_smem_optin(xc_apg::k_tree_s2<xc_ap::AP_TG, xc_ap::AP_TG_NP>);
    if (e != cudaSuccess)
        return e;
    const size_t tile = (size_t)(2 * xc_apg::GN * xc_ap::AP_TG_NP), tiles = (nt + tile - 1) / tile;
    const dim3 grid((unsigned)g->ng, tiles > 65535 ? 65535u : (unsigned)tiles);
    xc_apg::k_tree_s2<xc_ap::AP_TG, xc_ap::AP_TG_NP><<<grid, xc_apg::GN, smem, st>>>(buf, W, g->d_first, g->d_len, g->d_ent, g->d_row, g->d_lo,
                                                             g->d_off, nsub, sc, nt, out, opitch, col);
    return cudaGetLastError();
}
