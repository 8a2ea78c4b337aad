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
#include "core/search/xc_signif.h"

/* ---- sifting ---------------------------------------------------------------- */

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

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

static double harm_tol(const xc_cand *c, const xc_cand *a, double q)
{
    return fmax(1.5, 0.5 * (c->width + q * a->width)) + 0.5 * q + 0.5;
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
            if (fabs(c[j].r - a->r) <= fmax(2.0, 0.5 * (a->width + c[j].width))) {
                claimed = 1;
                break;
            }
        }
        if (!claimed) {
            keep[j] = 1;
            kept_insert(&k, c, j);
        }
    }
    /* Harmonics: r_c close to (n/m) r_a for a stronger kept a. */
    k.n = 0;
    k.maxw = 0;
    for (size_t j = 0; j < n; j++) {
        if (!keep[j])
            continue;
        int related = 0;
        for (int nn = 1; nn <= 8 && !related; nn++)
            for (int mm = 1; mm <= 8 && !related; mm++) {
                if (nn == mm || gcd(nn, mm) != 1)
                    continue;
                double q = (double)nn / mm;
                /* |r_c - q r_a| <= tol(a) with tol(a) <= tolmax, so r_a lies in this window. */
                double tolmax = fmax(1.5, 0.5 * (c[j].width + q * k.maxw)) + 0.5 * q + 0.5;
                double lo = (c[j].r - tolmax) / q, hi = (c[j].r + tolmax) / q;
                for (size_t p = lower_r(&k, c, lo); p < k.n && c[k.idx[p]].r <= hi; p++) {
                    const xc_cand *a = &c[k.idx[p]];
                    if (fabs(c[j].r - q * a->r) <= harm_tol(&c[j], a, q)) {
                        related = 1;
                        break;
                    }
                }
            }
        if (related)
            keep[j] = 0;
        else
            kept_insert(&k, c, j);
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

