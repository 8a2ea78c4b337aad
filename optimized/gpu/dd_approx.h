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

/* out[i * opitch + col + w] = (float)acc[i][w] for i < ndm, w < nt. */
cudaError_t ap_launch_finish(int t, const void *acc, size_t Tc, size_t ndm, size_t nt, float *out, size_t opitch,
                             size_t col, cudaStream_t st);

#endif
