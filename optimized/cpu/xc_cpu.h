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

#include "xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults, measured on a 2-core Sapphire Rapids (see `crosscheck bench dedisperse`). */
#define XC_CPU_TILE_T 1024     /* output samples per work item (rounded up to the register block) */
#define XC_CPU_TILE_DM 16      /* DM trials per work item */
#define XC_CPU_TILE_C 128      /* channels per narrow accumulation (capped by the overflow limit) */

/* Element types of the channel-major, time-scrunched copy and of the narrow
 * accumulators. */
typedef enum { XC_CPU_U8, XC_CPU_U16, XC_CPU_U32, XC_CPU_U64, XC_CPU_F32 } xc_cpu_type;

typedef struct {
    xc_cpu_type store;        /* copy of the input */
    xc_cpu_type narrow;       /* accumulator over one channel tile */
    int store_bytes, narrow_bytes;
    /* Most channels one narrow accumulator may sum without overflow:
     * floor(max_narrow / ((2^nbits - 1) * ds)); 0 means unlimited (float, uint64). */
    unsigned long long narrow_channels;
    int block;                /* time samples in the register block */
} xc_cpu_layout;

/* The layout the kernel uses for nbits (1..16, or 32 for float) and downsample ds.
 * XC_EINVAL for other nbits or ds < 1. */
xc_status xc_cpu_layout_for(int nbits, int ds, xc_cpu_layout *out, xc_error *err);

/* The instruction set of the kernel version the loader picked on this CPU
 * ("x86-64-v4 (AVX-512BW)", "AVX2" or "baseline SSE2") and its vector width in bytes. */
const char *xc_cpu_isa(int *vector_bytes);

#ifdef __cplusplus
}
#endif
#endif
