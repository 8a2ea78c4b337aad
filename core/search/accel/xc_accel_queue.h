/* xc_accel_queue.h: blocks of the plane gathered for one `rows` call of a
 * searcher (core/search/xc_accel.h), each with its own amplitudes, so that
 * the searcher can make them template by template over all of them. */
#ifndef XC_ACCEL_QUEUE_H
#define XC_ACCEL_QUEUE_H

#include "core/search/xc_accel.h"

typedef struct {
    xc_accel_block *b;
    double **amp;   /* each block's amplitudes (re, im doubles), kept between rounds */
    size_t *cap;    /* their capacities, bins */
    int n, max;
} xc_accel_queue;

/* Room for max blocks. */
xc_status xc_accel_queue_init(xc_accel_queue *q, int max, xc_error *err);

/* The next block: *blk to be filled by the caller, *amp room for n bins. */
xc_status xc_accel_queue_add(xc_accel_queue *q, size_t n, xc_accel_block **blk, double **amp, xc_error *err);

void xc_accel_queue_free(xc_accel_queue *q);

#endif
