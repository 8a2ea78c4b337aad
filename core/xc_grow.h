/* xc_grow.h: room for one more element at the end of a growing array. */
#ifndef XC_GROW_H
#define XC_GROW_H

#include <stdlib.h>

/* The array p of *cap elements of `size` bytes, reallocated to twice *cap
 * (`first` when *cap is 0), *cap updated; NULL when out of memory, p and *cap
 * then untouched.  Callers grow when their count reaches *cap. */
static inline void *xc_grow(void *p, size_t *cap, size_t size, size_t first)
{
    size_t n = *cap ? 2 * *cap : first;
    void *q = realloc(p, n * size);
    if (q)
        *cap = n;
    return q;
}

#endif
