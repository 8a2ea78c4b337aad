/* Raw peak lists: what a searcher's peak stage returns. */
#include "core/search/xc_search.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_sf_erf.h>
#include <omp.h>

#include "core/io/xc_presto.h"
#include "core/search/stats/xc_signif.h"

/* ---- peak lists ---------------------------------------------------------- */

void xc_pspeaks_init(xc_pspeaks *l) { memset(l, 0, sizeof *l); }

void xc_pspeaks_free(xc_pspeaks *l)
{
    free(l->p);
    memset(l, 0, sizeof *l);
}

static xc_status reserve(xc_pspeaks *l, size_t n, xc_error *err)
{
    if (n <= l->cap)
        return XC_OK;
    size_t cap = l->cap ? l->cap : 64;
    while (cap < n)
        cap *= 2;
    xc_pspeak *p = realloc(l->p, cap * sizeof *p);
    if (!p)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu search peaks", cap);
    l->p = p;
    l->cap = cap;
    return XC_OK;
}

xc_status xc_pspeaks_push(xc_pspeaks *l, size_t i, int width, int numharm, double power, xc_error *err)
{
    xc_status st = reserve(l, l->n + 1, err);
    if (st)
        return st;
    l->p[l->n++] = (xc_pspeak){i, width, numharm, power, NAN, -1};
    return XC_OK;
}

xc_status xc_pspeaks_move(xc_pspeaks *dst, xc_pspeaks *src, xc_error *err)
{
    xc_status st = reserve(dst, dst->n + src->n, err);
    if (st)
        return st;
    if (src->n)
        memcpy(dst->p + dst->n, src->p, src->n * sizeof *src->p);
    dst->n += src->n;
    src->n = 0;
    return XC_OK;
}


int xc_pspeak_cmp(const void *pa, const void *pb)
{
    const xc_pspeak *a = pa, *b = pb;
    if (a->numharm != b->numharm)
        return a->numharm - b->numharm;
    if (a->width != b->width)
        return a->width - b->width;
    return (a->i > b->i) - (a->i < b->i);
}
