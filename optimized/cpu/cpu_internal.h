/* cpu_internal.h: the pieces of the CPU dedisperser shared between its files. */
#ifndef XC_CPU_INTERNAL_H
#define XC_CPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "optimized/cpu/xc_cpu.h"
#include "core/xc_dedisperse.h"

/* Register-block lengths: 512 bytes of narrow accumulators (eight AVX-512
 * registers), so the block stays in registers across the channel loop. */
#define XC_CPU_BLOCK_U8 256    /* uint8 input, uint16 accumulators */
#define XC_CPU_BLOCK_U16 128   /* uint16 input, uint32 accumulators */
#define XC_CPU_BLOCK_U32 128   /* uint32 input, uint32 accumulators */
#define XC_CPU_BLOCK_U64 64    /* uint64 input and accumulators */
#define XC_CPU_BLOCK_F32 128   /* float input and accumulators */

/* One channel tile of one work item.  rows[d*nc + i] points at the first input
 * sample that output sample 0 of the work item needs from channel i at DM d
 * (row base + delay + first output sample).  For every block b < nblk and DM
 * d < nd the kernel adds sum_i rows[d*nc+i][b*B + k] (k < B) into
 * wide[d*wstride + b*B + k].  Rows must hold nblk*B readable samples. */
void xc_cpu_tile_u8(const uint8_t *const *rows, int nd, int nc, int nblk, uint64_t *wide, size_t wstride);
void xc_cpu_tile_u16(const uint16_t *const *rows, int nd, int nc, int nblk, uint64_t *wide, size_t wstride);
void xc_cpu_tile_u32(const uint32_t *const *rows, int nd, int nc, int nblk, uint64_t *wide, size_t wstride);
void xc_cpu_tile_u64(const uint64_t *const *rows, int nd, int nc, int nblk, uint64_t *wide, size_t wstride);
void xc_cpu_tile_f32(const float *const *rows, int nd, int nc, int nblk, double *wide, size_t wstride);

/* Output scaling, the same arithmetic as xc_scale_real (xc_dmplan.c) written
 * so it vectorizes: y = f for XC_SCALE_SUM, (f*1.0f)/k1*k2 for XC_SCALE_DEDISP,
 * f/k1/k2 for XC_SCALE_MEAN_AA, with f = (float)(double)sum.  The driver checks
 * it against xc_scale_int/xc_scale_real before use (see dedisperse_cpu.c). */
void xc_cpu_scale_u64(int kind, float k1, float k2, const uint64_t *sum, float *out, size_t n);
void xc_cpu_scale_f64(int kind, float k1, float k2, const double *sum, float *out, size_t n);

/* Channel-major scrunched copy of the unmasked channels:
 * dst[i*stride + j] = sum_{q<ds} in[(j*ds + q)*nchans + chans[i]] for j < ns,
 * and 0 for ns <= j < stride.  dst's element type is `type`; parallel over
 * nthreads.  The caller guarantees the sums fit the type. */
void xc_cpu_convert(const xc_block *in, const int *chans, int nchosen, int ds, size_t ns,
                    size_t stride, xc_cpu_type type, void *dst, int nthreads);

#endif
