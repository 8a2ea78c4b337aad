/* sp_gpu.h: what the GPU single-pulse searcher's files share
 * (core/sp/xc_spsearch.h states the semantics):
 *   sp_gpu_stats.cu  per DM trial the prefix sums, the block medians and the
 *                    MAD rms (exact order statistics by radix select), or the
 *                    astroaccelerate preset's mean and standard deviation
 *   sp_gpu_boxes.cu  every box's S/N and the runs above threshold
 *   sp_gpu.cu        the host side: plan, execute (row batches, the copy of a
 *                    host plane, the detections back in the reference's order)
 * Kernels have external linkage and are launched from sp_gpu.cu; no device
 * function is called across files (no -rdc).
 *
 * Rows of a batch lie at P + r * pstride (n + 1 prefix sums), m + r * mstride
 * (the blocks' baselines) and s[r] (the rms).  Every double operation that
 * decides an S/N is written with the __d*_rn intrinsics, so nvcc never
 * contracts a product and a sum into an FMA (the host compiler, without
 * -mfma, never does) and the values are the reference's where the header
 * says they are. */
#ifndef XC_SP_GPU_H
#define XC_SP_GPU_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sp/xc_spsearch.h"

namespace xcsp {

const int SP_THREADS = 256;   /* threads per block of every kernel */
const int SP_PER = 8;         /* samples per thread per tile of the prefix sums */

/* Per row (one block each): P[0] = 0, P[t + 1] = P[t] + x[t] in a fixed
 * order (exact for integer-valued rows below 2^53); with meansd also m[0]
 * and s[r] from sx = P[n] and sxx (xc_sp_mean_sd's formula). */
__global__ void k_sp_prefix(const float *x, size_t xstride, size_t n, double *P, size_t pstride, int meansd,
                            double *m, size_t mstride, double *s);

/* Per row (one block each): m[b] the median of block b (xc_sp_row_stats's
 * blocks of L samples) and s[r] = 1.4826 x the median of |x_t - m_b(t)|. */
__global__ void k_sp_median_mad(const float *x, size_t xstride, size_t n, size_t L, size_t nb, double *m,
                                size_t mstride, double *s);

/* Grid (ceil(n / SP_THREADS), nw, rows): the thread at the first t of a
 * run of snr >= thr (row r, width widths[k]) walks the run and appends its
 * best box (earliest t on ties) to out at atomicAdd(count); slots at or
 * past cap are counted, not written.  dm_index = row0 + r. */
__global__ void k_sp_boxes(const double *P, size_t pstride, size_t n, const double *m, size_t mstride, size_t L,
                           size_t nb, const double *s, const int32_t *widths, double thr, int32_t row0, xc_spdet *out,
                           unsigned long long *count, unsigned long long cap);

} // namespace xcsp

#endif
