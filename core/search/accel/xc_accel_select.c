/* Candidate selection of the accel search: accelsearch's (PRESTO
 * src/accel_utils.c insert_new_accelcand, sort_accelcands,
 * eliminate_harmonics), re-implemented, and our order-independent variant. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/xc_accel.h"
#include "core/base/xc_grow.h"

xc_status xc_accel_peaks_push(xc_accel_peaks *l, const xc_accel_peak *pk, xc_error *err)
{
    if (xc_grow_push(&l->p, &l->n, &l->cap, pk, sizeof *pk, 256))
        return xc_error_set(err, XC_ENOMEM, "accel: out of memory (%zu candidates)", l->n);
    return XC_OK;
}

void xc_accel_peaks_free(xc_accel_peaks *l)
{
    free(l->p);
    l->p = NULL;
    l->n = l->cap = 0;
}

static void remove_at(xc_accel_peaks *l, size_t i)
{
    memmove(l->p + i, l->p + i + 1, (l->n - i - 1) * sizeof *l->p);
    l->n--;
}

/* accelsearch's rule on its r-sorted list: find the first entry with
 * r >= the new r (or the last one) and the one before it; a neighbour
 * closer than ACCEL_CLOSEST_R with a lower sigma is overwritten (the
 * previous first; if both are close and lower, the next is removed); a new
 * candidate with no close neighbour is inserted in r order.  A close
 * neighbour with a higher sigma keeps its place and drops the new one. */
xc_status xc_accel_insert_presto(xc_accel_peaks *l, const xc_accel_peak *pk, xc_error *err)
{
    if (l->n == 0)
        return xc_accel_peaks_push(l, pk, err);
    size_t t = 0;
    while (t + 1 < l->n && l->p[t].r < pk->r)
        t++;
    int have_prev = t > 0;
    double next_d = fabs(pk->r - l->p[t].r);
    double prev_d = have_prev ? fabs(pk->r - l->p[t - 1].r) : XC_ACCEL_CLOSEST_R + 1;
    if (prev_d < XC_ACCEL_CLOSEST_R) {
        int added = 0;
        if (l->p[t - 1].sigma < pk->sigma) {
            l->p[t - 1] = *pk;
            added = 1;
        }
        if (next_d < XC_ACCEL_CLOSEST_R && l->p[t].sigma < pk->sigma) {
            if (added)
                remove_at(l, t);
            else
                l->p[t] = *pk;
        }
        return XC_OK;
    }
    if (next_d < XC_ACCEL_CLOSEST_R) {
        if (l->p[t].sigma < pk->sigma)
            l->p[t] = *pk;
        return XC_OK;
    }
    /* new: after the last entry if that one is below r - 15, else before t */
    xc_status st = xc_accel_peaks_push(l, pk, err);
    if (st)
        return st;
    size_t at = (t + 1 == l->n - 1 && l->p[t].r < pk->r - XC_ACCEL_CLOSEST_R) ? l->n - 1 : t;
    if (at != l->n - 1) {
        xc_accel_peak tmp = l->p[l->n - 1];
        memmove(l->p + at + 1, l->p + at, (l->n - 1 - at) * sizeof *l->p);
        l->p[at] = tmp;
    }
    return XC_OK;
}

/* Descending sigma, then power, then ascending r, numharm, z, w: a total
 * order, so the selection does not depend on the scan order. */
static int cmp_exact(const void *pa, const void *pb)
{
    const xc_accel_peak *a = pa, *b = pb;
    if (a->sigma != b->sigma)
        return a->sigma < b->sigma ? 1 : -1;
    if (a->P != b->P)
        return a->P < b->P ? 1 : -1;
    if (a->r != b->r)
        return a->r < b->r ? -1 : 1;
    if (a->numharm != b->numharm)
        return a->numharm < b->numharm ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return (a->w > b->w) - (a->w < b->w);
}

xc_status xc_accel_select_exact(xc_accel_peaks *l, xc_error *err)
{
    if (l->n == 0)
        return XC_OK;
    qsort(l->p, l->n, sizeof *l->p, cmp_exact);
    /* kept candidates are >= 15 bins apart, so a bucket of 15 bins holds at
     * most one: look in the bucket and its two neighbours. */
    double rmax = 0;
    for (size_t i = 0; i < l->n; i++)
        rmax = fmax(rmax, l->p[i].r);
    size_t nbk = (size_t)(rmax / XC_ACCEL_CLOSEST_R) + 3;
    long *bk = malloc(nbk * sizeof *bk);
    if (!bk)
        return xc_error_set(err, XC_ENOMEM, "accel: out of memory (selection)");
    for (size_t b = 0; b < nbk; b++)
        bk[b] = -1;
    size_t nk = 0;
    for (size_t i = 0; i < l->n; i++) {
        size_t b = (size_t)(l->p[i].r / XC_ACCEL_CLOSEST_R) + 1;
        int close = 0;
        for (size_t c = b - 1; c <= b + 1 && !close; c++)
            close = bk[c] >= 0 && fabs(l->p[bk[c]].r - l->p[i].r) < XC_ACCEL_CLOSEST_R;
        if (close)
            continue;
        l->p[nk] = l->p[i];
        bk[b] = (long)nk++;
    }
    l->n = nk;
    free(bk);
    return XC_OK;
}

/* accelsearch's compare_accelcand_sigma: descending sigma, ties descending
 * power (GLib's merge sort is stable; so is this insertion of a stable
 * merge through qsort's tie-break on the original index). */
typedef struct {
    xc_accel_peak p;
    size_t idx;
} tagged;

static int cmp_sigma(const void *pa, const void *pb)
{
    const tagged *a = pa, *b = pb;
    if (a->p.sigma != b->p.sigma)
        return a->p.sigma < b->p.sigma ? 1 : -1;
    if (a->p.P != b->p.P)
        return a->p.P < b->p.P ? 1 : -1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static int harmonic(double a, double b)
{
    /* eliminate_harmonics: |a/n - b| or |a n - b| < 1.5 for n <= 16, or
     * b near one of its listed fractions of a. */
    static const double q[][2] = {{3, 2},  {5, 2},  {2, 3},  {4, 3},  {5, 3},  {3, 4},  {5, 4},  {2, 5},
                                  {3, 5},  {4, 5},  {5, 6},  {2, 7},  {3, 7},  {4, 7},  {3, 8},  {5, 8},
                                  {2, 9},  {3, 10}, {2, 11}, {3, 11}, {2, 13}, {3, 13}, {2, 15}};
    for (int n = 1; n <= 16; n++)
        if (fabs(a / n - b) < 1.5 || fabs(a * n - b) < 1.5)
            return 1;
    for (size_t k = 0; k < sizeof q / sizeof *q; k++)
        if (fabs(a * q[k][0] / q[k][1] - b) < 1.5)
            return 1;
    return 0;
}

void xc_accel_sort_sift(xc_accel_peaks *l, int numharm)
{
    if (l->n == 0)
        return;
    tagged *t = malloc(l->n * sizeof *t);
    if (t) {
        for (size_t i = 0; i < l->n; i++)
            t[i] = (tagged){l->p[i], i};
        qsort(t, l->n, sizeof *t, cmp_sigma);
        for (size_t i = 0; i < l->n; i++)
            l->p[i] = t[i].p;
        free(t);
    }
    if (numharm <= 1)
        return;
    for (size_t i = 0; i < l->n; i++)
        for (size_t j = i + 1; j < l->n;)
            if (harmonic(l->p[i].r, l->p[j].r))
                remove_at(l, j);
            else
                j++;
}
