/* dd_approx.h: what the GPU subband and tree dedispersers' host side
 * (dd_approx_gpu.cu) and their kernels (dd_approx_kernels.cu) share.  C++
 * (nvcc) only.  The semantics are core's (core/dedisp/approx/xc_subband.h, core/dedisp/approx/xc_tree.h);
 * these kernels only add, in the same order as the CPU versions, so integer
 * input gives the references' planes bit for bit.
 *
 * Device data of one DM range and one chunk of output time [t0, t0 + Tc):
 *   Y    channel-major, time-scrunched samples [nuse][pitch] (TY: u32, u64
 *        or double), zero past the gulp's data;
 *   buf  stage-1 rows, W samples each (TA: u32, u64 or double):
 *          subband  row (j - j0) * nsub + s: subband s of group j, sample w
 *                   holding x at t0 + lo(j, s) + w;
 *          tree     row (q - q0) * M + n: line n of the tree of subband s and
 *                   diagonal block j (q = (s, j)), sample w holding the sum of
 *                   the subband's channels along that line from t0 + lo(q) + w;
 *   stage 2 adds, for trial i and subband s, buf row rowid[i][s] - rbase
 *   from sample shift[i][s] (both made on the host from core's plan). */
#ifndef XC_DD_APPROX_H
#define XC_DD_APPROX_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* Sample (TY) and sum (TA) types, chosen by the largest scrunched value. */
enum ap_types {
    AP_U32_U32 = 0,   /* every sum of a trial fits 32 bits */
    AP_U32_U64,       /* samples fit 32 bits, sums may not */
    AP_U64_U64,       /* scrunched samples past 32 bits */
    AP_F64,           /* float input: samples and sums in double (the reference's arithmetic) */
    AP_NTYPES
};

static inline size_t ap_ybytes(int t) { return t <= AP_U32_U64 ? 4 : 8; }
static inline size_t ap_abytes(int t) { return t == AP_U32_U32 ? 4 : 8; }

/* Corner turn + scrunch: Y[r][u] = sum_{q < ds} raw[(u ds + q) nc + chan[r]]
 * for u < nsd (in order q = 0, 1, ...), 0 for nsd <= u < np. */
cudaError_t ap_launch_scrunch(int t, const void *raw, int raw_f32, size_t nc, const int *chan, int nuse, int ds,
                              size_t nsd, size_t np, void *Y, size_t pitch, cudaStream_t st);

/* Subband stage 1 for groups [j0, j0 + ng): buf row (j - j0) nsub + s, sample
 * w < W: sum over the subband's unmasked channels c (ascending) of
 * Y[row[c]][t0 + lo[j][s] + w + a[j][c]] (0 past nsd). */
cudaError_t ap_launch_sub1(int t, const void *Y, size_t pitch, size_t nsd, const int *row, const int *sub_first,
                           int nsub, int nchans, const int32_t *a, const int64_t *lo, int j0, int ng, size_t t0,
                           size_t W, void *buf, cudaStream_t st);

/* Tree level 0 for pairs [q0, q0 + nq): buf row (q - q0) M + u, sample w < W:
 * Y[prow[qs[q] M + u]][t0 + lo[q] + qj[q] u + w] (0 for an empty position or
 * past nsd). */
cudaError_t ap_launch_tree0(int t, const void *Y, size_t pitch, size_t nsd, const int *prow, int M, const int *qs,
                            const int *qj, const int64_t *lo, int q0, int nq, size_t t0, size_t W, void *buf,
                            cudaStream_t st);

/* One butterfly step of half-width h over nq trees of M rows:
 * out[g + n](w) = in[g + n/2](w) + in[g + h + n/2](w + ceil(n/2)) (0 past W). */
cudaError_t ap_launch_tree_step(int t, const void *in, void *out, int M, int h, int nq, size_t W, cudaStream_t st);

/* Stage 2 for trials [i0, i0 + ntr) and subbands [s0, s1):
 *   v = (mode == 1 ? acc[i][w] : 0) + sum_s buf[(rowid[i][s] - rbase) W + shift[i][s] + w]
 * for w < nt, added in the order s = s0, s0 + 1, ...; mode 0 and 1 store v
 * in acc[i][w] (row pitch Tc), mode 2 stores (float)v in out[i * opitch + col + w]. */
cudaError_t ap_launch_stage2(int t, const void *buf, size_t W, const int32_t *rowid, const int32_t *shift, int nsub,
                             int s0, int s1, int64_t rbase, size_t i0, size_t ntr, size_t nt, int mode, void *acc,
                             size_t Tc, float *out, size_t opitch, size_t col, cudaStream_t st);

/* Subband stage 2 (mode 2) for groups [j0, j0 + ng) through shared memory:
 * the same sums as ap_launch_stage2 over their trials [first[j0],
 * first[j0 + ng]), rows (j - j0) nsub + s.  gspan[j]: the group's largest
 * shift, span their maximum.  Needs ap_stage2_groups_smem bytes of shared
 * memory per block (the caller checks them against the device's limit). */
size_t ap_stage2_groups_smem(int t, int nsub, int span);
cudaError_t ap_launch_stage2_groups(int t, const void *buf, size_t W, const int32_t *shift, int nsub,
                                    const unsigned long long *first, const int32_t *gspan, int span, int j0, int ng,
                                    size_t nt, float *out, size_t opitch, size_t col, cudaStream_t st);

/* The tree's level 0 and all log2(M) butterfly steps at once (dd_approx_tree.cu):
 * buf as after ap_launch_tree0 and every ap_launch_tree_step, through shared
 * memory (ap_tree_fused_smem bytes a block; M at most 256).  b16: the rows
 * are written as uint16_t (t is AP_U32_U32 and the caller knows every row
 * value fits 16 bits), else as the sum type of t. */
size_t ap_tree_fused_smem(int t, int M);
cudaError_t ap_launch_tree_fused(int t, int b16, const void *Y, size_t pitch, size_t nsd, const int *prow, int M,
                                 const int *qs, const int *qj, const int64_t *lo, int q0, int nq, size_t t0, size_t W,
                                 void *buf, cudaStream_t st);
/* ap_launch_stage2 from rows of uint16_t (b16) or of the sum type of t, four
 * outputs a thread: the same sums in the same order. */
cudaError_t ap_launch_stage2_x4(int t, int b16, const void *buf, size_t W, const int32_t *rowid, const int32_t *shift,
                                int nsub, int s0, int s1, int64_t rbase, size_t i0, size_t ntr, size_t nt, int mode,
                                void *acc, size_t Tc, float *out, size_t opitch, size_t col, cudaStream_t st);

/* out[i * opitch + col + w] = (float)acc[i][w] for i < ndm, w < nt. */
cudaError_t ap_launch_finish(int t, const void *acc, size_t Tc, size_t ndm, size_t nt, float *out, size_t opitch,
                             size_t col, cudaStream_t st);

/* Packed subband kernels (dd_approx_packed.cu), for integer input whose
 * scrunched samples are at most 255 (Y4) and whose stage-1 rows are at most
 * 65535 (stage 2); the same sums as the kernels above.
 * Corner turn + scrunch into Y4: byte b of Y[r][u] is the sample
 * u + 256 b of ap_launch_scrunch's Y (0 from nsd on), for u < np. */
cudaError_t ap_launch_scrunch_q8(const uint16_t *raw, size_t nc, const int *chan, int nuse, int ds, size_t nsd,
                                 size_t np, uint32_t *Y, size_t pitch, cudaStream_t st);
/* ap_launch_sub1 (u32 sums) from Y4; k1: channels whose samples' sum fits
 * 16 bits (65535 / the largest sample).  The rows are written as uint16_t
 * when b16 (the caller knows every row value fits), else uint32_t. */
cudaError_t ap_launch_sub1_q8(const uint32_t *Y, size_t pitch, size_t nsd, const int *row, const int *sub_first,
                              int nsub, int nchans, const int32_t *a, const int64_t *lo, int j0, int ng, size_t t0,
                              size_t W, int k1, int b16, void *buf, cudaStream_t st);
/* The same for subbands of at most k1 channels through shared memory, runs
 * of AP_RUN consecutive groups a block: dwin bounds, over every run of
 * AP_RUN consecutive groups, subband and channel c, the spread of the
 * groups' offsets lo[j][s] + a[j][c]; cs channels are staged at a time, in
 * ap_sub1_sm_smem(dwin, cs) bytes of shared memory. */
const int AP_RUN = 8;
size_t ap_sub1_sm_smem(int dwin, int cs);
cudaError_t ap_launch_sub1_sm(const uint32_t *Y, size_t pitch, size_t nsd, const int *row, const int *sub_first,
                              int nsub, int nchans, const int32_t *a, const int64_t *lo, int j0, int ng, size_t t0,
                              size_t W, int dwin, int cs, int b16, void *buf, cudaStream_t st);
/* ap_launch_stage2_groups (u32 sums) with np (1 or 2) pairs of outputs per
 * thread, from rows of uint16_t (b16) or uint32_t; k2 >= 1: subbands whose
 * rows' sum fits 16 bits (65535 / the largest stage-1 row value); v4: nsub
 * and k2 are multiples of 4 (the shifts are then read four at a time).
 * Needs ap_stage2_pk_smem bytes of shared memory per block. */
size_t ap_stage2_pk_smem(int np, int nsub, int span);
cudaError_t ap_launch_stage2_pk(int np, int b16, const void *buf, size_t W, const int32_t *shift, int nsub,
                                const unsigned long long *first, const int32_t *gspan, int span, int j0, int ng,
                                size_t nt, int k2, int v4, float *out, size_t opitch, size_t col, cudaStream_t st);

#endif
