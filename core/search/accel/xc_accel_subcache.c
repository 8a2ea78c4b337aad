/* Preset presto's in-memory sub-harmonic values from a few grid blocks per
 * sub-harmonic (see xc_accel_subcache.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/accel/xc_accel_subcache.h"

xc_status xc_accel_subcache_init(xc_accel_subcache *c, int nfrac, long U, long from, long itop_lo, long ibase,
                                 int ntempl, size_t W, xc_accel_gridblock_fn make, void *ctx, xc_error *err)
{
    memset(c, 0, sizeof *c);
    c->U = U, c->from = from, c->itop_lo = itop_lo, c->ibase = ibase;
    c->ntempl = ntempl, c->nfrac = nfrac, c->W = W;
    c->make = make, c->ctx = ctx;
    /* Rows a sub-harmonic never reads are never written, so their pages
     * are never touched. */
    for (int e = 0; e < nfrac; e++) {
        if (!(c->win[e] = malloc(((size_t)ntempl * W + 8) * sizeof(float))))   /* + 8: xc_accel_stage_add's loads */
            return xc_error_set(err, XC_ENOMEM, "accel: out of memory (sub-harmonic windows)");
        for (int k = 0; k < XC_SUBCACHE_SLOTS; k++) {
            c->b0[e][k] = LONG_MIN;
            if (!(c->v[e][k] = malloc((size_t)ntempl * (size_t)U * sizeof(float))))
                return xc_error_set(err, XC_ENOMEM, "accel: out of memory (sub-harmonic blocks of %ld x %d)", U,
                                    ntempl);
        }
    }
    return XC_OK;
}

double xc_accel_subcache_bytes(int nfrac, long U, int ntempl, size_t W)
{
    return (double)nfrac * ((double)ntempl * ((double)XC_SUBCACHE_SLOTS * (double)U + (double)W) + 8) * sizeof(float);
}

/* The block holding index x, made if not held: the held block of lowest
 * start gives way (windows only rise). */
static xc_status block_of(xc_accel_subcache *c, int e, const unsigned char *want, long x, const float **v, long *b0,
                          long *be, xc_error *err)
{
    if (x >= c->itop_lo) {
        *b0 = c->itop_lo + (x - c->itop_lo) / c->U * c->U;
        *be = *b0 + c->U;
    } else {
        *b0 = c->from + (x - c->from) / c->U * c->U;
        *be = *b0 + c->U < c->itop_lo ? *b0 + c->U : c->itop_lo;
    }
    int old = 0;
    for (int k = 0; k < XC_SUBCACHE_SLOTS; k++) {
        if (c->b0[e][k] == *b0) {
            *v = c->v[e][k];
            return XC_OK;
        }
        if (c->b0[e][k] < c->b0[e][old])
            old = k;
    }
    c->b0[e][old] = LONG_MIN;
    xc_status st = c->make(c->ctx, *b0, c->v[e][old], want, err);
    if (!st) {
        c->b0[e][old] = *b0;
        *v = c->v[e][old];
    }
    return st;
}

xc_status xc_accel_subcache_window(xc_accel_subcache *c, int e, const unsigned char *want, long lo, long hi,
                                   const float **win, xc_error *err)
{
    float *w = c->win[e];
    xc_status st = XC_OK;
    for (long x = lo < c->ibase ? c->ibase : lo; x <= hi && !st;) {
        const float *v = NULL;
        long b0 = 0, be = 0;
        st = block_of(c, e, want, x, &v, &b0, &be, err);
        const long x1 = hi + 1 < be ? hi + 1 : be;
        for (int t = 0; t < c->ntempl && !st; t++)
            if (want[t])
                memcpy(w + (size_t)t * c->W + (size_t)(x - lo), v + (size_t)t * (size_t)c->U + (size_t)(x - b0),
                       (size_t)(x1 - x) * sizeof *w);
        x = x1;
    }
    *win = w;
    return st;
}

void xc_accel_subcache_free(xc_accel_subcache *c)
{
    for (int e = 0; e < XC_ACCEL_MAXHARM; e++) {
        free(c->win[e]);
        for (int k = 0; k < XC_SUBCACHE_SLOTS; k++)
            free(c->v[e][k]);
    }
    memset(c, 0, sizeof *c);
}
