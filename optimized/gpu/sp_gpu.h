/* sp_gpu.h: what the GPU single-pulse searcher's files share
 * (core/sp/xc_spsearch.h states the semantics):
 *   sp_gpu_stats.cu  per DM trial the block medians and the MAD rms (exact
 *                    order statistics: counted on integer rows,
 *                    sp_gpu_count.cuh; else by sampled selection), or the
 *                    astroaccelerate preset's mean and standard deviation;
 *                    prefix sums of whole rows for the widest boxes
 *   sp_gpu_boxes.cu  every box's S/N and the runs above threshold, from
 *                    prefix sums of tiles in shared memory (or of rows)
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
const size_t SP_TILE = 4096;  /* boxes per block of k_sp_tiles */
const size_t SP_WTILE = 8192; /* the widest box k_sp_tiles takes */
/* The float filter's blocks: SP_FTHREADS threads (a multiple of 256), a
 * tile of SP_FTILE box starts (4 groups of 4 a thread, sp_flag_hd.h), at
 * 1024 threads 4 of k_sp_tiles's tiles, so the widest box's overlap (W - 1
 * samples summed twice) is a quarter as large a box start as it is over
 * one tile of SP_TILE (256 threads: the tile of SP_TILE). */
const int SP_FTHREADS = 1024;
const size_t SP_FTILE = 16 * (size_t)SP_FTHREADS;

/* Per row (one block each): P[0] = 0, P[t + 1] = P[t] + x[t] in a fixed
 * order (exact for integer-valued rows below 2^53; P NULL: not written);
 * with meansd also m[0] and s[r] from sx = P[n] and sxx (xc_sp_mean_sd's
 * formula). */
__global__ void k_sp_prefix(const float *x, size_t xstride, size_t n, double *P, size_t pstride, int meansd,
                            double *m, size_t mstride, double *s);

/* Grid (rows, up to 65535): block b of row r (b = blockIdx.y, + gridDim.y
 * ...) gets m[b], its median (xc_sp_row_stats's blocks of L samples): by
 * counting where the block's samples are integers under 2^24
 * (sp_count_hd.h), else by selection, and then introw[r] = 1 (introw[r] = 0
 * before: the row's deviations are integers' halves).  cap: samples of a
 * selection's bracket kept in dynamic shared memory, where its bins and
 * second pass read them; the dynamic shared memory is sp_medians_shared(cap)
 * bytes (the counts use it too). */
__global__ void k_sp_medians(const float *x, size_t xstride, size_t n, size_t L, size_t nb, double *m,
                             size_t mstride, unsigned cap, int *introw);

/* k_sp_medians's cap for blocks of at most longest samples: their brackets'
 * expected keys with room, at most SP_CACHE_MAX (45 KiB of shared memory a
 * block with the selection's own: 5 blocks an SM); a bracket with more
 * samples is binned from the block again. */
const unsigned SP_CACHE_MAX = 8192;
unsigned sp_medians_cache(size_t longest);

/* k_sp_medians's dynamic shared memory: the kept samples or the counts. */
size_t sp_medians_shared(unsigned cap);

/* Per row (one block each): s[r] = 1.4826 x the median of |x_t - m_b(t)|,
 * by counting where introw[r] is 0 (k_sp_medians's), else by selection. */
__global__ void k_sp_mad(const float *x, size_t xstride, size_t n, size_t L, size_t nb, const double *m,
                         size_t mstride, double *s, const int *introw);

/* Grid (rows, tiles of SP_FTILE, up to 65535), SP_FTHREADS threads: the
 * float filter.  Each tile of SP_TILE box starts (W: the widest width <= n,
 * at most SP_WTILE; dynamic shared memory sp_flag_shared(W) bytes) that may
 * hold a box of widths[0..nw) with snr >= thr is appended to list (row,
 * tile) at atomicAdd(nlist): every
 * box's S - B estimated in float from prefix sums of x - m_b, against the
 * cut less a bound on the estimate's error (sp_gpu_boxes.cu); list holds a
 * slot per tile of the rows. */
/* k_sp_flag's dynamic shared memory: the tile's SP_FTILE + W prefix sums
 * and the 16-byte loads of the last group's ends past them (sp_flag_hd.h). */
inline size_t sp_flag_shared(size_t W) { return (SP_FTILE + W + 8) * sizeof(float); }

__global__ void k_sp_flag(const float *x, size_t xstride, size_t n, const double *m, size_t mstride, size_t L,
                          size_t nb, const double *s, const int32_t *widths, int nw, size_t W, double thr, uint2 *list,
                          unsigned *nlist);

/* Any grid: the nlist tiles of list (k_sp_flag's), a block at a time: every
 * box of widths[0..nw) starting in the tile (dynamic shared memory
 * (SP_TILE + W) doubles) judged exactly; each run's piece within a tile
 * appended to out as one detection (sample, snr: the piece's best box;
 * begin, end: the piece's); the host joins pieces that meet at a tile's
 * edge.  Slots at or past cap are counted, not written. */
__global__ void k_sp_tiles(const float *x, size_t xstride, size_t n, const double *m, size_t mstride, size_t L,
                           size_t nb, const double *s, const int32_t *widths, int nw, size_t W, double thr,
                           const uint2 *list, const unsigned *nlist, int32_t row0, xc_spdet *out,
                           unsigned long long *count, unsigned long long cap);

/* Grid (ceil(n / SP_THREADS), nw, rows): the thread at the first t of a
 * run of snr >= thr (row r, width widths[k]) walks the run and appends its
 * best box (earliest t on ties) to out at atomicAdd(count); slots at or
 * past cap are counted, not written.  dm_index = row0 + r. */
__global__ void k_sp_boxes(const double *P, size_t pstride, size_t n, const double *m, size_t mstride, size_t L,
                           size_t nb, const double *s, const int32_t *widths, double thr, int32_t row0, xc_spdet *out,
                           unsigned long long *count, unsigned long long cap);

} // namespace xcsp

#endif
