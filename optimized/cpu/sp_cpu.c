/* The CPU single-pulse searcher: the reference's semantics
 * (core/sp/xc_spsearch.h) with OpenMP over DM trials, exact medians by
 * histogram selection (sp_cpu_stats.c) and one prefix-sum array per trial,
 * so each width costs one pass.  On integer-valued planes the prefix sums are exact (below 2^53), and
 * B, s and the S/N formula are the reference's, so the detections are the
 * reference's bit for bit; on float planes S differs from the reference's
 * direct sum by rounding (docs/SINGLEPULSE.md states the bound). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/cpu/sp_cpu_internal.h"
#include "optimized/cpu/xc_sp_cpu.h"

/* One width's scan of a row: the run being built and where detections go. */
typedef struct {
    const double *P, *m;
    size_t n, L, nb, w;
    double den, thr, cut;   /* cut: every box with snr >= thr has S - B >= cut */
    int k;
    int32_t row;
    int in_run;
    xc_spdet d;
    xc_spdets *out;
    xc_status st;
    xc_error *err;
} scan;

static void run_end(scan *z)
{
    if (z->in_run && !z->st)
        z->st = xc_spdets_add(z->out, &z->d, z->err);
    z->in_run = 0;
}

/* The box at t with baseline B, as the reference judges it. */
static inline void step(scan *z, size_t t, double B)
{
    double snr = (z->P[t + z->w] - z->P[t] - B) / z->den;
    if (!(snr >= z->thr)) {
        run_end(z);
        return;
    }
    if (!z->in_run)
        z->d = (xc_spdet){snr, (int64_t)t, (int32_t)z->w, z->k, z->row, (int64_t)t, 0};
    else if (snr > z->d.snr) {
        z->d.snr = snr;
        z->d.sample = (int64_t)t;
    }
    z->in_run = 1;
    z->d.end = (int64_t)(t + z->w);
}

/* As the dedisperser's kernels (cpu_kernels.c): one clone per vector width,
 * picked by the loader. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES)
#define XC_SP_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define XC_SP_CLONES
#endif

/* How many boxes t in [t, e) have (P[t+w] - P[t]) - B >= cut: one vector loop. */
XC_SP_CLONES static int64_t over_cut(const double *P, size_t t, size_t e, size_t w, double B, double cut)
{
    int64_t k = 0;
    for (size_t i = t; i < e; i++)
        k += P[i + w] - P[i] - B >= cut;
    return k;
}

/* Boxes t in [t0, t1) inside one block (baseline B): 256 at a time, a chunk
 * with no box at or above the cut only ends a run. */
static void scan_inside(scan *z, size_t t0, size_t t1, double B)
{
    for (size_t t = t0; t < t1;) {
        size_t e = t + 256 < t1 ? t + 256 : t1;
        if (!over_cut(z->P, t, e, z->w, B, z->cut))
            run_end(z);
        else
            for (size_t i = t; i < e; i++)
                step(z, i, B);
        t = e;
    }
}

/* The detections of row r for width index k. */
static void width_search(scan *z)
{
    size_t t = 0, last = z->n - z->w;   /* the last box's start */
    while (t <= last && !z->st) {
        size_t b = t / z->L < z->nb ? t / z->L : z->nb - 1;
        size_t hi = b + 1 == z->nb ? z->n : (b + 1) * z->L;
        if (t + z->w <= hi) {
            scan_inside(z, t, hi - z->w + 1, 0.0 + (double)z->w * z->m[b]);
            t = hi - z->w + 1;
        } else {
            for (size_t e = hi < last + 1 ? hi : last + 1; t < e; t++)
                step(z, t, xc_sp_box_baseline(z->m, z->n, z->L, t, z->w));
        }
    }
    run_end(z);
}

/* The detections of one row (index r) into out. */
static xc_status row_search(const xc_spplane *pl, int32_t r, const xc_spconf *c, xc_sp_scratch *w, xc_spdets *out,
                            xc_error *err)
{
    const float *x = pl->data + (size_t)r * pl->stride;
    size_t n = pl->nsamp;
    double s = xc_sp_cpu_prepare(x, n, c, w);
    xc_sp_given_stats(pl, c, (size_t)r, w->m, &s);
    if (!(s > 0))
        return XC_OK;
    scan z = {.P = w->P, .m = w->m, .n = n, .L = c->block, .nb = xc_sp_nblocks(n, c->block), .thr = c->threshold,
              .row = r, .out = out, .err = err};
    for (int k = 0; k < c->nwidths && !z.st; k++) {
        z.w = (size_t)c->widths[k];
        if (z.w > n)
            break;
        z.k = k;
        z.den = s * sqrt((double)z.w);
        /* fl(num / den) >= thr implies num >= thr den (1 - u), and
         * fl(thr den) (1 - 2^-50) is below that: a cut no detection is under */
        z.cut = z.thr * z.den * (1.0 - 0x1p-50);
        width_search(&z);
    }
    return z.st;
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
        xc_sp_scratch w;
        xc_error e;
        xc_error_clear(&e);
        int bad = xc_sp_scratch_alloc(&w, n, xc_sp_nblocks(n, c->block));
        if (bad)
            xc_error_set(&e, XC_ENOMEM, "cpu: out of memory for %zu samples", n);
#pragma omp for schedule(dynamic, 4)
        for (size_t r = 0; r < nr; r++)
            if (!bad && row_search(pl, (int32_t)r, c, &w, &rows[r], &e))
                bad = 1;
#pragma omp critical
        if (bad && !failed) {
            failed = 1;
            first = e;
        }
        xc_sp_scratch_free(&w);
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
             .desc = "boxcar single-pulse search, OpenMP over DM trials, prefix sums, exact sampled-selection medians"},
    .execute = cpu_execute,
    .row_stats = 1};
