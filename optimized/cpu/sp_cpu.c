/* The CPU single-pulse searcher: the reference's semantics
 * (core/sp/xc_spsearch.h) with OpenMP over DM trials, medians by quickselect
 * (Hoare's FIND) and one prefix-sum array per trial, so each width costs one
 * pass.  On integer-valued planes the prefix sums are exact (below 2^53), and
 * B, s and the S/N formula are the reference's, so the detections are the
 * reference's bit for bit; on float planes S differs from the reference's
 * direct sum by rounding (docs/SINGLEPULSE.md states the bound). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/cpu/xc_sp_cpu.h"

static inline void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* The k-th smallest of v[0..n-1]; afterwards v[0..k-1] <= v[k] <= v[k+1..]. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;   /* median of three as the pivot, moved to hi */
        if (v[mid] < v[lo])
            swap(&v[mid], &v[lo]);
        if (v[hi] < v[lo])
            swap(&v[hi], &v[lo]);
        if (v[mid] < v[hi])
            swap(&v[mid], &v[hi]);
        double p = v[hi];
        size_t i = lo;
        for (size_t j = lo; j < hi; j++)
            if (v[j] < p)
                swap(&v[i++], &v[j]);
        swap(&v[i], &v[hi]);
        if (i == k)
            return v[k];
        if (i < k)
            lo = i + 1;
        else
            hi = i - 1;
    }
    return v[k];
}

/* The median as the reference defines it: of an even count the mean of the two middle values. */
static double median(double *v, size_t n)
{
    double a = select_kth(v, n, n / 2);
    if (n % 2)
        return a;
    double b = v[0];
    for (size_t i = 1; i < n / 2; i++)
        b = v[i] > b ? v[i] : b;
    return (b + a) / 2;
}

typedef struct {
    double *P, *tmp, *m;   /* n + 1 prefix sums, n scratch, the blocks' baselines */
} scratch;

/* Row statistics and prefix sums; returns the rms s. */
static double row_prepare(const float *x, size_t n, const xc_spconf *c, scratch *w)
{
    size_t L = c->block, nb = xc_sp_nblocks(n, L);
    double sx = 0, sxx = 0;
    w->P[0] = 0;
    for (size_t t = 0; t < n; t++) {
        double v = (double)x[t];
        sx += v;
        sxx += v * v;
        w->P[t + 1] = w->P[t] + v;
    }
    double s;
    if (c->stat == XC_SP_MEAN_SD) {
        xc_sp_mean_sd(sx, sxx, n, &w->m[0], &s);
        return s;
    }
    for (size_t b = 0; b < nb; b++) {
        size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
        for (size_t t = lo; t < hi; t++)
            w->tmp[t - lo] = (double)x[t];
        w->m[b] = median(w->tmp, hi - lo);
    }
    for (size_t t = 0; t < n; t++)
        w->tmp[t] = fabs((double)x[t] - w->m[t / L < nb ? t / L : nb - 1]);
    return XC_SP_MAD_SCALE * median(w->tmp, n);
}

/* The detections of one row (index r) into out. */
static xc_status row_search(const float *x, size_t n, int32_t r, const xc_spconf *c, scratch *w, xc_spdets *out,
                            xc_error *err)
{
    double s = row_prepare(x, n, c, w);
    if (!(s > 0))
        return XC_OK;
    size_t L = c->block, nb = xc_sp_nblocks(n, L);
    for (int k = 0; k < c->nwidths; k++) {
        size_t wd = (size_t)c->widths[k];
        const double den = s * sqrt((double)wd);
        int in_run = 0;
        xc_spdet d = {0};
        for (size_t t = 0; t + wd <= n; t++) {
            size_t b0 = t / L < nb ? t / L : nb - 1, b1 = (t + wd - 1) / L < nb ? (t + wd - 1) / L : nb - 1;
            double B = b0 == b1 ? 0.0 + (double)wd * w->m[b0] : xc_sp_box_baseline(w->m, n, L, t, wd);
            double snr = (w->P[t + wd] - w->P[t] - B) / den;
            if (snr >= c->threshold) {
                if (!in_run)
                    d = (xc_spdet){snr, (int64_t)t, (int32_t)wd, k, r, (int64_t)t, 0};
                else if (snr > d.snr) {
                    d.snr = snr;
                    d.sample = (int64_t)t;
                }
                in_run = 1;
                d.end = (int64_t)(t + wd);
            } else if (in_run) {
                in_run = 0;
                xc_status st = xc_spdets_add(out, &d, err);
                if (st)
                    return st;
            }
        }
        if (in_run) {
            xc_status st = xc_spdets_add(out, &d, err);
            if (st)
                return st;
        }
    }
    return XC_OK;
}

static xc_status cpu_execute(const xc_spsearcher *self, void *state, const xc_spconf *c, const xc_spplane *pl,
                             xc_spdets *out, xc_error *err)
{
    (void)self;
    (void)state;
    size_t n = pl->nsamp, nr = pl->nrows;
    if (pl->device)
        return xc_error_set(err, XC_EINVAL, "cpu: the plane is in device memory");
    if (!n || !nr)
        return XC_OK;
    xc_spdets *rows = calloc(nr, sizeof *rows);
    if (!rows)
        return xc_error_set(err, XC_ENOMEM, "cpu: out of memory for %zu trials", nr);
    int failed = 0;
    xc_error first;
    xc_error_clear(&first);
    int nth = c->threads > 0 ? c->threads : omp_get_max_threads();
#pragma omp parallel num_threads(nth)
    {
        scratch w = {malloc((n + 1) * sizeof(double)), malloc(n * sizeof(double)),
                     malloc(xc_sp_nblocks(n, c->block) * sizeof(double))};
        xc_error e;
        xc_error_clear(&e);
        int bad = !w.P || !w.tmp || !w.m;
        if (bad)
            xc_error_set(&e, XC_ENOMEM, "cpu: out of memory for %zu samples", n);
#pragma omp for schedule(dynamic, 4)
        for (size_t r = 0; r < nr; r++)
            if (!bad && row_search(pl->data + r * pl->stride, n, (int32_t)r, c, &w, &rows[r], &e))
                bad = 1;
#pragma omp critical
        if (bad && !failed) {
            failed = 1;
            first = e;
        }
        free(w.P);
        free(w.tmp);
        free(w.m);
    }
    xc_status st = failed ? xc_error_set(err, first.code, "%s", first.msg) : XC_OK;
    for (size_t r = 0; r < nr; r++) {
        if (!st)
            st = xc_spdets_append(out, &rows[r], err);
        xc_spdets_free(&rows[r]);
    }
    free(rows);
    return st;
}

const xc_spsearcher xc_sp_cpu = {
    .impl = {.family = XC_FAMILY_SINGLEPULSE, .name = "cpu", .tol = {XC_TOL_ROUNDING, 1}, .caps = XC_CAP_THREADED,
             .desc = "boxcar single-pulse search, OpenMP over DM trials, prefix sums, quickselect medians"},
    .execute = cpu_execute};
