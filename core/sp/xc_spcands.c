/* xc_spcands.c: the single-pulse candidate list (core/sp/xc_spcands.h). */
#include "core/sp/xc_spcands.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/xc_grow.h"

void xc_spcandlist_init(xc_spcandlist *l) { memset(l, 0, sizeof *l); }

void xc_spcandlist_free(xc_spcandlist *l)
{
    free(l->c);
    l->c = NULL;
    l->n = l->cap = 0;
}

xc_status xc_spcandlist_add(xc_spcandlist *l, const xc_spcand *c, xc_error *err)
{
    if (xc_grow_push(&l->c, &l->n, &l->cap, c, sizeof *c, 64))
        return xc_error_set(err, XC_ENOMEM, "single-pulse candidates: out of memory after %zu", l->n);
    return XC_OK;
}

static int cmp_cand(const void *a, const void *b)
{
    const xc_spcand *x = a, *y = b;
    if (x->snr != y->snr)
        return x->snr > y->snr ? -1 : 1;
    if (x->sample != y->sample)
        return x->sample < y->sample ? -1 : 1;
    if (x->dm_index != y->dm_index)
        return x->dm_index < y->dm_index ? -1 : 1;
    return (x->width > y->width) - (x->width < y->width);
}

void xc_spcandlist_sort(xc_spcandlist *l)
{
    if (l->n > 1)
        qsort(l->c, l->n, sizeof *l->c, cmp_cand);
}
