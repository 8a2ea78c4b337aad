/* compare_internal.h: pieces shared by the compare sources (not installed API). */
#ifndef XC_COMPARE_INTERNAL_H
#define XC_COMPARE_INTERNAL_H

#include "core/base/xc_error.h"

/* In a parallel loop over items: keeps the failure s (with its message e) of
 * the lowest failing item, so what is reported does not depend on the
 * schedule.  *bad is the item kept so far (-1: none); *st and *err (err may
 * be NULL) receive its status and message.  Nothing happens when s is XC_OK. */
static inline void xc_keep_first_error(long item, xc_status s, const xc_error *e, long *bad, xc_status *st,
                                       xc_error *err)
{
    if (!s)
        return;
#pragma omp critical(xc_keep_first_error)
    if (*bad < 0 || item < *bad) {
        *bad = item;
        *st = s;
        if (err)
            *err = *e;
    }
}

#endif
