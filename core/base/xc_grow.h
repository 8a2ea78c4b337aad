/* xc_grow.h: room for one more element at the end of a growing array. */
#ifndef XC_GROW_H
#define XC_GROW_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

/* Appends the element at v (size bytes) to the growing array whose pointer
 * is at pa (an `elem **`), of *n elements and *cap room, growing it with
 * xc_grow when full.  0, or -1 when out of memory (array untouched).  The
 * array pointer is read and written as bytes, so any element type fits (all
 * object pointers have one representation on the platforms we build for). */
static inline int xc_grow_push(void *pa, size_t *n, size_t *cap, const void *v, size_t size, size_t first)
{
    char *a;
    memcpy(&a, pa, sizeof a);
    if (*n == *cap) {
        if (!(a = xc_grow(a, cap, size, first)))
            return -1;
        memcpy(pa, &a, sizeof a);
    }
    memcpy(a + *n * size, v, size);
    ++*n;
    return 0;
}

/* Frees the array p (any element type) and leaves it empty: p NULL, its
 * count n 0 (a macro, so p keeps its type). */
#define XC_GROW_FREE(p, n)                                                                                             \
    do {                                                                                                               \
        free(p);                                                                                                       \
        (p) = NULL;                                                                                                    \
        (n) = 0;                                                                                                       \
    } while (0)

/* free() of each of the n pointers that follow (any of them NULL), for
 * structs that own many arrays. */
static inline void xc_free_each(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        free(va_arg(ap, void *));
    va_end(ap);
}

/* Frees the n pointers of the array p (p may be NULL) and p itself. */
#define XC_FREE_PTRS(p, n)                                                                                             \
    do {                                                                                                               \
        for (size_t xc_i_ = 0; (p) && xc_i_ < (size_t)(n); xc_i_++)                                                    \
            free((p)[xc_i_]);                                                                                          \
        free(p);                                                                                                       \
    } while (0)

#endif
