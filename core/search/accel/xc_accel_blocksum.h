/* xc_accel_blocksum.h: the harmonic sums of one top block of core's
 * pipeline (core/search/accel/xc_accel_pipeline.c), a (template, chunk of r)
 * item at a time, and the points they find handed on in accelsearch's
 * order.  Core's host path runs the items over the plane it made; a
 * searcher's rows method (core/search/xc_accel.h) hands it the rows of one
 * template at a time instead. */
#ifndef XC_ACCEL_BLOCKSUM_H
#define XC_ACCEL_BLOCKSUM_H

#include <stdint.h>

#include "core/search/xc_accel.h"

typedef struct {
    const xc_accel_plan *p;
    int mode;                /* XC_ROW_ADD_* */
    long i0;                 /* the block's first top index */
    size_t nr, ch, nch;      /* its length, its chunks' length and count */
    const int32_t *rind;     /* per sub-harmonic entry e, nr indices into e's row */
    xc_accel_peaks *rowpk;   /* per item t nch + c: its points, in stage order */
} xc_accel_blocksum;

/* The block's geometry: chunks of ceil(nr / nchunk). */
void xc_accel_blocksum_init(xc_accel_blocksum *b, const xc_accel_plan *p, int mode, long i0, size_t nr,
                            size_t nchunk, const int32_t *rind, xc_accel_peaks *rowpk);

/* Item (t, c): frow the top row's chunk c, sub[e] the row of entry e's
 * template for t (indexed by rind), row ch doubles (NULL with one stage).
 * 1 when out of memory. */
int xc_accel_blocksum_item(const xc_accel_blocksum *b, int t, size_t c, const float *frow, const float *const *sub,
                           double *row);

/* The items' points into pk, stage by stage, then item by item (r order
 * within a template): inserted as accelsearch does (presto) or pushed; the
 * items' lists are emptied. */
xc_status xc_accel_blocksum_hand(const xc_accel_blocksum *b, int presto, xc_accel_peaks *pk, xc_error *err);

#endif
