/* Sifting candidates across widths, stages and harmonics (xc_search.h, step 8). */
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

/* ---- sifting ---------------------------------------------------------------- */

/* PRESTO python/presto/sifting.py: each r is uncertain by r_err = 1.1 bins;
 * harmonics up to 16 (its and accelsearch's eliminate_harmonics' integer
 * factors 1..16). */
#define XC_SIFT_RERR 1.1
#define XC_SIFT_MAXN 16

typedef struct {
    size_t *idx;       /* kept candidates, ascending r */
    size_t n;
    int maxw;
} kept_set;

/* First position in k whose r >= r0. */
static size_t lower_r(const kept_set *k, const xc_cand *c, double r0)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c[k->idx[mid]].r < r0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void kept_insert(kept_set *k, const xc_cand *c, size_t j)
{
    size_t pos = lower_r(k, c, c[j].r);
    memmove(k->idx + pos + 1, k->idx + pos, (k->n - pos) * sizeof *k->idx);
    k->idx[pos] = j;
    k->n++;
    if (c[j].width > k->maxw)
        k->maxw = c[j].width;
}

static void kept_remove(kept_set *k, size_t pos)
{
    memmove(k->idx + pos, k->idx + pos + 1, (k->n - pos - 1) * sizeof *k->idx);
    k->n--;
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

/* Two boxcars touch: the clusters' rule. */
static int touch(const xc_cand *a, const xc_cand *b)
{
    return fabs(a->r - b->r) <= fmax(2.0, 0.5 * (a->width + b->width));
}

/* a, summing at its harmonic n a candidate's fundamental, is only that
 * candidate's echo unless a stage below n (a sum that does not reach the
 * n-th harmonic) found a candidate too, where a is: all[0..n) is every
 * candidate above the threshold, before clustering. */
static int echo_of(const xc_cand *all, size_t nall, const xc_cand *a, int n)
{
    for (size_t j = 0; j < nall; j++)
        if (all[j].numharm < n && touch(&all[j], a))
            return 0;
    return 1;
}

/* The kept candidate c is the harmonic of (position in k, ratio numerator
 * n via *nout), or k->n: c's m-th harmonic on a's n-th, m <= c's stages. */
static size_t related(const kept_set *k, const xc_cand *c, size_t j, int *nout)
{
    for (int m = 1; m <= c[j].numharm; m++)
        for (int n = 1; n <= XC_SIFT_MAXN; n++) {
            if (n == m || gcd(n, m) != 1)
                continue;
            double q = (double)n / m, tol = XC_SIFT_RERR * (1 + q);
            for (size_t p = lower_r(k, c, (c[j].r - tol) / q); p < k->n && c[k->idx[p]].r <= (c[j].r + tol) / q;
                 p++)
                if (fabs(c[j].r - q * c[k->idx[p]].r) <= tol) {
                    *nout = m == 1 ? n : 0;
                    return p;
                }
        }
    return k->n;
}

xc_status xc_pulscan_sift(xc_candlist *l, xc_error *err)
{
    xc_candlist_sort(l);
    size_t n = l->n;
    if (n < 2)
        return XC_OK;
    const xc_cand *c = l->c;
    kept_set k = {malloc(n * sizeof(size_t)), 0, 0};
    unsigned char *keep = calloc(n, 1);
    if (!k.idx || !keep) {
        free(k.idx);
        free(keep);
        return xc_error_set(err, XC_ENOMEM, "out of memory sifting %zu candidates", n);
    }
    /* Clusters: the strongest candidate claims every weaker one whose boxcar touches its own. */
    for (size_t j = 0; j < n; j++) {
        double win = fmax(2.0, 0.5 * (c[j].width + k.maxw));
        int claimed = 0;
        for (size_t p = lower_r(&k, c, c[j].r - win); p < k.n && c[k.idx[p]].r <= c[j].r + win; p++) {
            const xc_cand *a = &c[k.idx[p]];
            if (touch(a, &c[j])) {
                claimed = 1;
                break;
            }
        }
        if (!claimed) {
            keep[j] = 1;
            kept_insert(&k, c, j);
        }
    }
    /* Harmonics, going down in sigma (xc_search.h, xc_pulscan_sift). */
    k.n = 0;
    for (size_t j = 0; j < n; j++) {
        if (!keep[j])
            continue;
        int nn = 0;
        size_t p = related(&k, c, j, &nn);
        if (p == k.n) {
            kept_insert(&k, c, j);
            continue;
        }
        size_t ia = k.idx[p];
        if (nn >= 2 && nn <= c[ia].numharm && echo_of(c, n, &c[ia], nn)) {
            keep[ia] = 0;      /* a stood only on c's power: c takes its place */
            kept_remove(&k, p);
            kept_insert(&k, c, j);
        } else {
            keep[j] = 0;
        }
    }
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
        if (keep[j])
            l->c[m++] = l->c[j];
    l->n = m;
    free(k.idx);
    free(keep);
    xc_candlist_sort(l);
    return XC_OK;
}

