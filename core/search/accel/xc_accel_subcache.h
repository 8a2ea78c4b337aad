/* xc_accel_subcache.h: the sub-harmonic values of preset presto's in-memory
 * search (core/search/accel/xc_accel_pipeline.c) without keeping its whole
 * plane.
 *
 * accelsearch's in-memory path (PRESTO src/accelsearch.c and
 * src/accel_utils.c, inmem_add_ffdotpows) keeps every block of the top plane
 * it has made, ntempl x the searched half-bins (1.6 GB at 2^20 bins and zmax
 * 200), and reads the sub-harmonic h/H of top index i at index
 * (int)(i h/H + 0.5) of that plane.  Each plane value belongs to one block
 * of a fixed grid (blocks of U half-bins from the lowest index kept below
 * the search, then from the search's first index; a later block's values
 * replace an earlier one's where they overlap), and a block's values depend
 * only on its start (its data, normalisation window and segments).  So the
 * same values come from making again, for each sub-harmonic, the grid
 * blocks its window of indices reaches, with only the templates it reads:
 * the windows of successive top blocks rise, so a few blocks per
 * sub-harmonic are held at a time. */
#ifndef XC_ACCEL_SUBCACHE_H
#define XC_ACCEL_SUBCACHE_H

#include "core/search/xc_accel.h"

/* Makes the grid block starting at half-bin index b0 (U long) into out
 * (ntempl x U), the rows t with want[t] at least. */
typedef xc_status (*xc_accel_gridblock_fn)(void *ctx, long b0, float *out, const unsigned char *want,
                                           xc_error *err);

#define XC_SUBCACHE_SLOTS 3

typedef struct {
    long U, from, itop_lo, ibase;     /* the grid: [from, itop_lo) and [itop_lo, ...) in blocks of U */
    int ntempl, nfrac;
    size_t W;                         /* a window's row stride */
    long b0[XC_ACCEL_MAXHARM][XC_SUBCACHE_SLOTS];
    float *v[XC_ACCEL_MAXHARM][XC_SUBCACHE_SLOTS];
    float *win[XC_ACCEL_MAXHARM];
    xc_accel_gridblock_fn make;
    void *ctx;
} xc_accel_subcache;

/* nfrac sub-harmonics, windows of at most W indices. */
xc_status xc_accel_subcache_init(xc_accel_subcache *c, int nfrac, long U, long from, long itop_lo, long ibase,
                                 int ntempl, size_t W, xc_accel_gridblock_fn make, void *ctx, xc_error *err);

/* Sub-harmonic e's plane values at indices [lo, hi] (hi - lo < W; those
 * below ibase are not filled) for the templates with want[t], into
 * *win[t * W + (x - lo)]. */
xc_status xc_accel_subcache_window(xc_accel_subcache *c, int e, const unsigned char *want, long lo, long hi,
                                   const float **win, xc_error *err);

/* The bytes init allocates at most. */
double xc_accel_subcache_bytes(int nfrac, long U, int ntempl, size_t W);

void xc_accel_subcache_free(xc_accel_subcache *c);

#endif
