/* xc_cpu.h: the CPU dedisperser's tunables and data layout.
 *
 * The kernel follows the CPU algorithm of AstroAccelerate (Novotny et al. 2023,
 * section 3): work items are (time tile x DM tile); inside one, channel tiles are
 * summed into a register-resident block of time samples in a narrow integer type,
 * then widened into uint64 (or float into double).  job->opts chooses the tiles;
 * 0 means the defaults below. */
#ifndef XC_CPU_H
#define XC_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_error.h"
#include "core/search/xc_search.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults: the best of a grid (tile_t 512..8192, tile_dm 8..64, tile_c 32..256)
 * on the Table 2 plan at 512 and 4096 channels, 8- and 16-bit, one core of a
 * Sapphire Rapids Xeon.  Larger time tiles amortise building the row pointers;
 * 64 channels x (256 samples + the DM tile's delay spread) stays in L1. */
#define XC_CPU_TILE_T 2048     /* output samples per work item (rounded up to the register block) */
#define XC_CPU_TILE_DM 32      /* DM trials per work item */
#define XC_CPU_TILE_C 64       /* channels per narrow accumulation (capped by the overflow limit) */
/* 8-bit input, AVX-512 kernel: 32 channels a tile, their rows (32 x 5 lines of
 * a 256-sample block, plus the trials' spread) well inside a 32 KiB L1, where
 * 64 channels' overflow it; the narrow sums run on across tiles up to the
 * overflow limit (xc_cpu_tile_u8), so the smaller tile does not widen them more
 * often.  The widening versions keep XC_CPU_TILE_C (xc_cpu_tile_c_u8). */
#define XC_CPU_TILE_C_U8 32
/* 8-bit input with at least XC_CPU_MANY_CHANS_U8 unmasked channels: 128 DM
 * trials per work item.  Every DM tile reads its time tile's rows, m x (tile_t
 * + the tile's delay spread) bytes, 9 MB at 4096 channels, far beyond a 1 MiB
 * L2; four times the trials read them a quarter as often (docs/PERFORMANCE.md,
 * "Direct dedispersion against the integer-add peak": 4096 channels about 5 %
 * faster with the kernel's prefetch of the next tile, 13 % without; 512 to
 * 2048 channels no better). */
#define XC_CPU_MANY_CHANS_U8 2048
#define XC_CPU_TILE_DM_MANY_U8 128

/* Element types of the channel-major, time-scrunched copy and of the narrow
 * accumulators. */
typedef enum { XC_CPU_U8, XC_CPU_U16, XC_CPU_U32, XC_CPU_U64, XC_CPU_F32 } xc_cpu_type;

typedef struct {
    xc_cpu_type store;        /* copy of the input */
    xc_cpu_type narrow;       /* accumulator over one channel tile */
    int store_bytes, narrow_bytes;
    /* Most channels one narrow accumulator may sum without overflow:
     * floor(max_narrow / ((2^nbits - 1) * ds)); 0 for float (no limit).  The
     * uint64 wide sums cannot overflow: a sum is at most 65535 times the number
     * of input samples it covers, far below 2^64 for any block in memory. */
    unsigned long long narrow_channels;
    int block;                /* time samples in the register block */
} xc_cpu_layout;

/* The layout the kernel uses for nbits (1..16, or 32 for float) and downsample ds.
 * XC_EINVAL for other nbits or ds < 1. */
xc_status xc_cpu_layout_for(int nbits, int ds, xc_cpu_layout *out, xc_error *err);

/* The instruction set of the kernel version the loader picked on this CPU
 * ("x86-64-v4 (AVX-512BW)", "AVX2" or "baseline SSE2") and its vector width in bytes. */
const char *xc_cpu_isa(int *vector_bytes);

/* A register-only loop of iters x 8 vector adds on 16-bit lanes in that
 * instruction set (cpu_kernels.c), to time as the measured integer add peak;
 * place 0 or 1: the AVX-512 loop at one of two places in a cache line (a
 * front end may run one faster; time both, keep the faster);
 * *lanes: 16-bit lanes per vector.  The return value only keeps the loop. */
uint16_t xc_cpu_add_probe(long iters, int place, int *lanes);

/* The direct 8-bit AVX-512 kernel's instruction mix (per 64 input bytes one
 * load, a shift and two 16-bit adds) over L1-resident rows, iters x 32 rows of
 * 512 bytes (cpu_mix_probe.c): split 1 puts every row 13 bytes past a line's
 * start, so every load spans two lines as the kernel's delayed rows do; 0 on a
 * line's start.  *adds: the sample adds done (0 where the kernel version is not
 * AVX-512: returns 0 and measures nothing); *keep only keeps the loop. */
int xc_cpu_mix_probe(long iters, int split, double *adds, uint16_t *keep);

/* The plane-write floor every CPU dedisperser shares (dedisperse_cpu.c): each row of pl written as the
 * kernels' last step writes it, (float) of sums already in cache (a row of 2048), chunk by chunk, in
 * streaming stores (streamed 1, as the kernels) or ordinary ones (0), rows shared out over threads. */
void xc_cpu_plane_write(xc_plane *pl, int streamed, int threads);

/* ---- the CPU implementations ------------------------------------------- */

/* direct (dedisperse_cpu.c); subband_cpu.c; tree_cpu.c (piecewise-linear, frequency-padded) */
extern const xc_dedisperser xc_dd_cpu, xc_dd_subband_cpu, xc_dd_tree_cpu, xc_dd_tree_padded_cpu;
extern const xc_searcher xc_ps_cpu;

/* Tiled OpenMP/SIMD direct dedispersion on a prepared job. */
xc_status xc_dedisperse_cpu(const xc_ddjob *job, xc_plane *out, xc_error *err);
/* Pulscan (quickselect, recursive boxcar in double with cache tiles, OpenMP):
 * xc_pulscan_run / xc_pulscan_powers / xc_pulscan_peaks(&xc_ps_cpu, ...). */

#ifdef __cplusplus
}
#endif
#endif
