/* The CPU Pulscan search: the recursive boxcar of the paper (width w from
 * width w-1 plus one bin), in cache tiles, OpenMP over (stage, R-block).
 *
 * A task owns the starts of one R-block of one harmonic stage.  It builds the
 * S_h values it needs (its starts plus zmax+1 beyond) in a private buffer, with
 * -infinity standing for S_h[0] (DC) and for everything past the end, so a
 * boxcar that leaves the spectrum is -infinity and never a peak: no bounds
 * tests in the inner loops.  Boxcars of stage h >= 2 starting below (h-1)*w
 * do not exist (xc_search.h, step 4); only the first starts of a stage have
 * them, and only the runs of starts that reach below (h-1)*wmax pay for
 * setting them to -infinity after the sums (the screen may flag them, which
 * only costs a look).  Two passes per tile of starts: a screen keeps a
 * group's running sums in registers across all widths and only says whether
 * any boxcar beats its width's threshold; where one does (signals, rare noise
 * peaks), the rows of sums for that run of starts (plus one start either side
 * for the local-maximum test) are rebuilt in L1 and searched.  Sums are in
 * double and added in the reference's order, so every boxcar value equals the
 * reference's bit for bit and the peaks are identical at any thread count. */
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/cpu/pulscan_internal.h"
#include "core/base/xc_grow.h"
#include "optimized/cpu/xc_cpu.h"

#define XC_PS_TILE 1024
#define XC_PS_GROUP 64     /* starts per screen call: eight vectors of 8 */

/* The screen: 1 if any boxcar starting at one of the GROUP starts of s
 * exceeds its width's threshold (thresholds of widths not searched are
 * +infinity).  The recursion runs along widths with the group's 64 sums held
 * in registers (eight independent chains, enough to hide the add latency)
 * and the comparisons ORed into a mask, so a width costs one load, one add
 * and one compare per vector and nothing is stored: noise, the usual case,
 * never leaves this loop.  (It is bound by the unaligned loads, most of which
 * straddle two cache lines.)  Written with intrinsics (GCC turns
 * vector-type comparisons into scalar code here); picked once per search by
 * what the processor supports.  The adds are the same IEEE additions in the
 * same order as everywhere else. */
typedef int (*screen_fn)(const double *s, int wmax, const double *th);

__attribute__((target("avx512f"))) static int screen_avx512(const double *s, int wmax, const double *th)
{
    __m512d a[8];
    __mmask8 f = 0;
    for (int k = 0; k < 8; k++)
        a[k] = _mm512_setzero_pd();
    for (int w = 1; w <= wmax; w++) {
        const double *sw = s + (w - 1);
        __m512d t = _mm512_set1_pd(th[w]);
        for (int k = 0; k < 8; k++) {
            a[k] = _mm512_add_pd(a[k], _mm512_loadu_pd(sw + 8 * k));
            f |= _mm512_cmp_pd_mask(a[k], t, _CMP_GT_OQ);
        }
    }
    return f != 0;
}

__attribute__((target("avx"))) static int screen_avx(const double *s, int wmax, const double *th)
{
    __m256d a[XC_PS_GROUP / 4], f = _mm256_setzero_pd();
    for (int k = 0; k < XC_PS_GROUP / 4; k++)
        a[k] = _mm256_setzero_pd();
    for (int w = 1; w <= wmax; w++) {
        const double *sw = s + (w - 1);
        __m256d t = _mm256_set1_pd(th[w]);
        for (int k = 0; k < XC_PS_GROUP / 4; k++) {
            a[k] = _mm256_add_pd(a[k], _mm256_loadu_pd(sw + 4 * k));
            f = _mm256_or_pd(f, _mm256_cmp_pd(a[k], t, _CMP_GT_OQ));
        }
    }
    return _mm256_movemask_pd(f) != 0;
}

static int screen_generic(const double *s, int wmax, const double *th)
{
    double acc[XC_PS_GROUP] = {0};
    int flag = 0;
    for (int w = 1; w <= wmax; w++) {
        const double *sw = s + (w - 1);
        for (int k = 0; k < XC_PS_GROUP; k++) {
            acc[k] += sw[k];
            flag |= acc[k] > th[w];
        }
    }
    return flag;
}

static screen_fn screen_pick(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return screen_avx512;
    if (__builtin_cpu_supports("avx"))
        return screen_avx;
    return screen_generic;
}

/* The tile kernels.  Halo entries (j = 0 and n-1) belong to the neighbouring
 * tiles, so the maximum covers the interior only. */
__attribute__((target_clones("avx512f", "avx2", "default"))) static double
tile_add_max(double *restrict acc, const double *restrict s, size_t n)
{
    double m = -INFINITY;
    acc[0] += s[0];
    acc[n - 1] += s[n - 1];
#pragma omp simd reduction(max : m)
    for (size_t j = 1; j < n - 1; j++) {
        acc[j] += s[j];
        m = acc[j] > m ? acc[j] : m;
    }
    return m;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) static void tile_add(double *restrict acc,
                                                                                  const double *restrict s,
                                                                                  size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        acc[j] += s[j];
}

/* dst = src + s: the first width after a searched one starts a new row. */
__attribute__((target_clones("avx512f", "avx2", "default"))) static double
tile_add_to(double *restrict dst, const double *restrict src, const double *restrict s, size_t n)
{
    double m = -INFINITY;
    dst[0] = src[0] + s[0];
    dst[n - 1] = src[n - 1] + s[n - 1];
#pragma omp simd reduction(max : m)
    for (size_t j = 1; j < n - 1; j++) {
        dst[j] = src[j] + s[j];
        m = dst[j] > m ? dst[j] : m;
    }
    return m;
}

/* Boxcars of a row of width w that do not exist (start s0 + j below lim =
 * (h-1)*w) become -infinity; returns how many entries that was.  A start
 * that does not exist at width w does not at any wider width either, and
 * -infinity stays -infinity under the additions, so rows built from a masked
 * row stay masked and the existing entries keep the reference's sums. */
static size_t mask_row(double *R, size_t n, size_t s0, size_t lim)
{
    size_t k = lim > s0 ? lim - s0 : 0;
    if (k > n)
        k = n;
    for (size_t j = 0; j < k; j++)
        R[j] = -INFINITY;
    return k;
}

/* The maximum over a row's interior (halos excluded, as in tile_add_max). */
static double row_max(const double *R, size_t n)
{
    double m = -INFINITY;
    for (size_t j = 1; j + 1 < n; j++)
        m = R[j] > m ? R[j] : m;
    return m;
}

typedef struct {
    int h;
    size_t c;
} task;

typedef struct {
    double *buf, *acc, *bmax, *row[3], *ninf;     /* ninf: a row of -infinity */
    /* The task's prefix sums C[base + k] (xc_pulscan_prefix), made from its
     * checkpoint and buf the first time a fill test needs them. */
    double *C, c0;
    size_t cbase, clen;
    int cready;
    screen_fn screen;
    size_t *bidx;
    xc_pspeaks pk;
} worker;

/* Pulscan's R-block search over one tile: running per-width maxima of the
 * block, over existing boxcars only.  hm1: h - 1 where the tile holds starts
 * below (h-1)*wmax, else 0. */
static xc_status tile_rblock(worker *wk, const double *sp, size_t n, int wmax, const double *th, size_t t0,
                             size_t hm1)
{
    double *acc = wk->acc;
    memset(acc, 0, n * sizeof *acc);
    for (int w = 1; w <= wmax; w++) {
        const double *sw = sp + (w - 1);
        if (isinf(th[w])) {     /* width not searched: only extend the sums */
            tile_add(acc, sw, n);
            continue;
        }
        double m = tile_add_max(acc, sw, n);
        if (hm1 && mask_row(acc, n, t0 - 1, hm1 * (size_t)w) > 1)
            m = row_max(acc, n);     /* an interior boxcar was removed */
        if (m > wk->bmax[w]) {
            size_t j = 1;
            while (acc[j] != m)
                j++;
            wk->bmax[w] = m;
            wk->bidx[w] = t0 - 1 + j;
        }
    }
    return XC_OK;
}

/* The local-maximum test's score of row entry j (start s0 + j, width w;
 * C[s0 + j] is that start's prefix sum). */
static double score(const double *C, const double *R, size_t j, size_t s0, int w, int h)
{
    if (!xc_pulscan_filled(C, s0 + j, w, h, R[j]))
        return -INFINITY;
    return xc_pulscan_score(R[j], (double)w * h * (h + 1));
}

static double score3(const double *C, const double *R, size_t j, size_t s0, int w, int h)
{
    if (w == 0)
        return -INFINITY;
    return fmax(score(C, R, j - 1, s0, w, h), fmax(score(C, R, j, s0, w, h), score(C, R, j + 1, s0, w, h)));
}

/* The task's prefix sums, C[base + k] for k = 0..clen: the checkpoint
 * C[base] continued with the S_h values in buf (buf[k] = S_h[base + k]),
 * the same additions in the same order as xc_pulscan_prefix, so the same
 * values (C[1] = C[0] = 0: S_h[0], DC, is left out; entries past the
 * spectrum's end become -infinity and are never read: boxcars there are
 * -infinity, which the fill test rejects first). */
static const double *task_prefix(worker *wk)
{
    if (!wk->cready) {
        double c = wk->c0;
        wk->C[0] = c;
        for (size_t k = 0; k < wk->clen; k++) {
            if (wk->cbase + k >= 1)
                c += wk->buf[k];
            wk->C[k + 1] = c;
        }
        wk->cready = 1;
    }
    return wk->C;
}

/* Local maxima of the (start, searched width) grid over one tile.  Three rows
 * rotate: the previous searched width (lo), the last searched width (mid),
 * and the row being accumulated (ac); mid is judged once the next searched
 * width is complete.  Rows hold the same additions in the same order as the
 * reference's direct sums.  hm1 as in tile_rblock; the per-width maximum
 * that gates the test may include removed boxcars, which only costs a look. */
static xc_status tile_local(worker *wk, const double *sp, size_t cb, size_t n, int wmax, const double *th,
                            size_t t0, int h, size_t hm1, xc_error *err)
{
    int lo = -1, mid = -1, ac = 0, lo_w = 0, mid_w = 0, fresh = 0;
    double per = (double)h * (h + 1);     /* dof per unit width */
    double mid_max = -INFINITY;
    xc_status st = XC_OK;
    memset(wk->row[ac], 0, n * sizeof(double));
    for (int w = 1; w <= wmax + 1 && !st; w++) {
        double m = -INFINITY;
        int searched = w > wmax || !isinf(th[w]);
        if (w <= wmax) {
            const double *sw = sp + (w - 1);
            if (fresh)
                m = tile_add_to(wk->row[ac], wk->row[mid], sw, n);
            else if (searched)
                m = tile_add_max(wk->row[ac], sw, n);
            else
                tile_add(wk->row[ac], sw, n);
            fresh = 0;
        }
        if (!searched)
            continue;
        if (hm1 && w <= wmax)
            mask_row(wk->row[ac], n, t0 - 1, hm1 * (size_t)w);
        if (mid >= 0 && mid_max > th[mid_w]) {
            const double *M = wk->row[mid], *lw = lo >= 0 ? wk->row[lo] : wk->ninf;
            const double *up = w <= wmax ? wk->row[ac] : wk->ninf;
            double t = th[mid_w];
            int wlo = lo >= 0 ? lo_w : 0, wup = w <= wmax ? w : 0;
            size_t s0 = t0 - 1;
            const double *C = task_prefix(wk);
            for (size_t j = 1; j + 1 < n && !st; j++) {
                double v = M[j];
                if (!(v > t) || !xc_pulscan_filled(C, cb + j, mid_w, h, v))
                    continue;
                double sc = xc_pulscan_score(v, (double)mid_w * per);
                if (sc > score(C, M, j - 1, cb, mid_w, h) && sc >= score(C, M, j + 1, cb, mid_w, h) &&
                    sc > score3(C, lw, j, cb, wlo, h) && sc >= score3(C, up, j, cb, wup, h))
                    st = xc_pspeaks_push(&wk->pk, s0 + j, mid_w, h, v, err);
            }
        }
        lo = mid;
        lo_w = mid_w;
        mid = ac;
        mid_max = m;
        mid_w = w;
        for (ac = 0; ac == lo || ac == mid; ac++)
            ;
        fresh = 1;
    }
    return st;
}

/* S_h[x] for x in [a, b) into out (x < L), the stage a constant in each
 * copy (xc_pulscan_sh's loops unrolled; the same additions in its order). */
static inline __attribute__((always_inline)) void sh_run(const double *P, int h, size_t a, size_t b, double *out)
{
    for (size_t x = a; x < b; x++)
        out[x - a] = xc_pulscan_sh(P, h, x);
}

static void sh_fill(const double *P, int h, size_t a, size_t b, double *out)
{
    switch (h) {
    case 1: sh_run(P, 1, a, b, out); break;
    case 2: sh_run(P, 2, a, b, out); break;
    case 3: sh_run(P, 3, a, b, out); break;
    case 4: sh_run(P, 4, a, b, out); break;
    default: sh_run(P, h, a, b, out); break;
    }
}

/* The checkpoints of stage h's prefix sums (xc_pulscan_prefix's chain, the
 * same additions in the same order, not stored): K[c] = C[base of task c],
 * base = max(c cw, 1) - 1, for every task c of the stage.  sbuf: cw doubles. */
static void prefix_checkpoints(const double *P, size_t nbins, int h, size_t cw, double *sbuf, double *K)
{
    size_t L = xc_pulscan_nfund(nbins, h);
    double c = 0;     /* C[x] before S_h[x] is added; C[0] = C[1] = 0 */
    if (L < 2)
        return;     /* no task */
    for (size_t k = 0; k * cw <= L - 1; k++)
        K[k] = 0;
    size_t next = (3 + cw - 1) / cw * cw - 1;     /* the first base >= 2 */
    for (size_t a = 1; a < L; a += cw) {
        size_t b = a + cw < L ? a + cw : L;
        sh_fill(P, h, a, b, sbuf);
        for (size_t x = a; x < b; x++) {
            if (x == next && x + 2 <= L) {     /* a task's base is at most L - 2 */
                K[(x + 1) / cw] = c;
                next += cw;
            }
            c += sbuf[x - a];
        }
    }
}

/* 1 when the search makes fill tests: local maxima, or R-block peaks to be
 * sifted. */
static int fills(const xc_psopts *o)
{
    return !o->rblock || !o->nosift;
}

static xc_status run_task(const xc_psopts *o, const double *P, double *const *pre, size_t nbins, const double *thr,
                          task t, worker *wk, xc_error *err)
{
    size_t L = xc_pulscan_nfund(nbins, t.h), cw = o->chunkwidth;
    size_t s0 = t.c * cw > 1 ? t.c * cw : 1, s1 = (t.c + 1) * cw < L ? (t.c + 1) * cw : L;
    int wmax = (size_t)o->zmax + 1 < L - 1 ? o->zmax + 1 : (int)(L - 1);
    size_t base = s0 - 1, len = s1 - s0 + (size_t)wmax + 1, in = L - base < len ? L - base : len;
    wk->buf[0] = -INFINITY;     /* S_h[0] (DC) when base is 0 */
    sh_fill(P, t.h, base ? base : 1, base + in, wk->buf + (base ? 0 : 1));
    for (size_t x = in; x < len; x++)
        wk->buf[x] = -INFINITY;
    if (fills(o)) {
        wk->c0 = pre[t.h - 1][t.c];
        wk->cbase = base;
        wk->clen = len;
        wk->cready = 0;
    }
    const double *th = thr + (size_t)(t.h - 1) * ((size_t)o->zmax + 2);
    for (int w = 1; w <= wmax; w++) {
        wk->bmax[w] = -INFINITY;
        wk->bidx[w] = 0;
    }
    /* Past the end: padding for the last group of the screen. */
    for (size_t x = len; x < len + XC_PS_GROUP; x++)
        wk->buf[x] = -INFINITY;
    size_t tile = o->tile > 0 ? (size_t)o->tile : XC_PS_TILE;
    xc_status st = XC_OK;
    for (size_t t0 = s0; t0 < s1 && !st; t0 += tile) {
        size_t t1 = t0 + tile < s1 ? t0 + tile : s1;
        /* Screen the tile in groups; runs of groups with a boxcar above its
         * width's threshold get the full treatment (rows with halos), which
         * sees the same sums, so only where the work is done changes. */
        size_t r0 = 0, r1 = 0;
        for (size_t g0 = t0; g0 < t1 && !st; g0 += XC_PS_GROUP) {
            size_t g1 = g0 + XC_PS_GROUP < t1 ? g0 + XC_PS_GROUP : t1;
            if (wk->screen(wk->buf + (g0 - base), wmax, th)) {
                if (r1 != g0)
                    r0 = g0;
                r1 = g1;
                if (g1 < t1)
                    continue;
            }
            if (r1 > r0) {
                /* Entry j of a row is the boxcar starting at r0 - 1 + j; entry
                 * x + w - 1 of sp is the bin width w adds to start r0 - 1 + x. */
                const double *sp = wk->buf + (r0 - 1 - base);
                size_t n = r1 - r0 + 2;
                size_t hm1 = r0 - 1 < (size_t)(t.h - 1) * (size_t)wmax ? (size_t)(t.h - 1) : 0;
                st = o->rblock ? tile_rblock(wk, sp, n, wmax, th, r0, hm1)
                               : tile_local(wk, sp, r0 - 1 - base, n, wmax, th, r0, t.h, hm1, err);
                r0 = r1 = 0;
            }
        }
    }
    /* R-block peaks carry their fill test when sifting needs it, from the
     * task's prefix sums (xc_pulscan_finish would otherwise make a stage's
     * whole prefix array). */
    if (o->rblock)
        for (int w = 1; w <= wmax && !st; w++)
            if (wk->bmax[w] > th[w]) {
                st = xc_pspeaks_push(&wk->pk, wk->bidx[w], w, t.h, wk->bmax[w], err);
                if (!st && fills(o))
                    wk->pk.p[wk->pk.n - 1].filled =
                        xc_pulscan_filled(task_prefix(wk), wk->bidx[w] - base, w, t.h, wk->bmax[w]);
            }
    return st;
}

static xc_status worker_init(worker *wk, size_t buflen, size_t accn, size_t wn, xc_error *err)
{
    memset(wk, 0, sizeof *wk);
    wk->buf = malloc(buflen * sizeof(double));
    wk->acc = malloc(accn * sizeof(double));
    wk->bmax = malloc(wn * sizeof(double));
    wk->bidx = malloc(wn * sizeof(size_t));
    for (int r = 0; r < 3; r++)
        wk->row[r] = malloc(accn * sizeof(double));
    wk->ninf = malloc(accn * sizeof(double));
    wk->C = malloc((buflen + 1) * sizeof(double));
    if (!wk->C || !wk->buf || !wk->acc || !wk->bmax || !wk->bidx || !wk->row[0] || !wk->row[1] || !wk->row[2] || !wk->ninf)
        return xc_error_set(err, XC_ENOMEM, "cpu: out of memory for a worker's buffers");
    for (size_t j = 0; j < accn; j++)
        wk->ninf[j] = -INFINITY;
    return XC_OK;
}

static void worker_free(worker *wk)
{
    xc_free_each(4, wk->buf, wk->acc, wk->bmax, wk->bidx);
    for (int r = 0; r < 3; r++)
        free(wk->row[r]);
    free(wk->ninf);
    free(wk->C);
    xc_pspeaks_free(&wk->pk);
}

/* Steps 3-5 on the powers P. */
static xc_status search(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P, const double *thr, xc_pspeaks *pk,
                        xc_error *err)
{
    (void)self;
    size_t nbins = sp->nbins, ntask = 0;
    int nth = o->threads > 0 ? o->threads : omp_get_max_threads(), nh = o->numharm > 0 ? o->numharm : 1;
    if (nth < 1)
        nth = 1;
    for (int h = 1; h <= nh; h++) {
        size_t L = xc_pulscan_nfund(nbins, h);
        if (L >= 2)
            ntask += (L - 1) / o->chunkwidth + 1;
    }
    double **pre = calloc((size_t)nh, sizeof *pre);
    task *tasks = malloc((ntask ? ntask : 1) * sizeof *tasks);
    worker *wks = calloc((size_t)nth, sizeof *wks);
    xc_error *errs = calloc((size_t)nth, sizeof *errs);
    xc_status *sts = calloc((size_t)nth, sizeof *sts);
    xc_status st = XC_OK;
    if (!pre || !tasks || !wks || !errs || !sts)
        st = xc_error_set(err, XC_ENOMEM, "cpu: out of memory for %zu tasks and %d workers", ntask, nth);
    /* The fill test reads prefix sums of each stage, each a sequential sum
     * (as in the reference).  Only a checkpoint per task is kept (stages in
     * parallel); a task continues the chain over its own S_h values when a
     * fill test first needs it, so the whole stage's sums (8 bytes a bin,
     * 2.1 a bin over 4 stages) are never held. */
    for (int h = 1; h <= nh && !st && fills(o); h++) {
        size_t L = xc_pulscan_nfund(nbins, h);
        if (!(pre[h - 1] = malloc((L >= 2 ? (L - 1) / o->chunkwidth + 1 : 1) * sizeof(double))))
            st = xc_error_set(err, XC_ENOMEM, "cpu: out of memory for prefix sums of stage %d", h);
    }
    if (!st && fills(o)) {
        int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth) reduction(| : bad)
        for (int h = 1; h <= nh; h++) {
            double *sbuf = malloc(o->chunkwidth * sizeof *sbuf);
            if (sbuf)
                prefix_checkpoints(P, nbins, h, o->chunkwidth, sbuf, pre[h - 1]);
            bad |= !sbuf;
            free(sbuf);
        }
        if (bad)
            st = xc_error_set(err, XC_ENOMEM, "cpu: out of memory for prefix sums");
    }
    uint64_t pdone = 0;   /* R-blocks searched, for o->progress */
    if (!st) {
        ntask = 0;
        /* Higher stages first: their tasks cost the most per start. */
        for (int h = nh; h >= 1; h--) {
            size_t L = xc_pulscan_nfund(nbins, h);
            if (L >= 2)
                for (size_t c = 0; c * o->chunkwidth <= L - 1; c++)
                    tasks[ntask++] = (task){h, c};
        }
        size_t tile = o->tile > 0 ? (size_t)o->tile : XC_PS_TILE;
        screen_fn screen = screen_pick();
        size_t buflen = o->chunkwidth + (size_t)o->zmax + 2 + XC_PS_GROUP, accn = tile + 2, wn = (size_t)o->zmax + 2;
#pragma omp parallel num_threads(nth)
        {
            int me = omp_get_thread_num();
            sts[me] = worker_init(&wks[me], buflen, accn, wn, &errs[me]);
            wks[me].screen = screen;
#pragma omp for schedule(dynamic, 1)
            for (long k = 0; k < (long)ntask; k++) {
                if (!sts[me])
                    sts[me] = run_task(o, P, pre, nbins, thr, tasks[k], &wks[me], &errs[me]);
                if (o->progress.fn) {
                    /* one listener call at a time; done counts finished R-blocks */
#pragma omp critical(xc_ps_progress)
                    xc_progress_report(&o->progress, "pulscan", ++pdone, ntask);
                }
            }
        }
        for (int k = 0; k < nth && !st; k++)
            if (sts[k]) {
                st = sts[k];
                if (err)
                    *err = errs[k];
            }
        for (int k = 0; k < nth && !st; k++)
            st = xc_pspeaks_move(pk, &wks[k].pk, err);
    }
    for (int k = 0; wks && k < nth; k++)
        worker_free(&wks[k]);
    XC_FREE_PTRS(pre, nh);
    xc_free_each(4, wks, errs, sts, tasks);
    return st;
}

static xc_status powers(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, double *P,
                        xc_error *err)
{
    (void)self;
    return xc_pulscan_powers_cpu_checked(sp, o, P, err);
}

/* What search() holds: per thread a chunk's buffers (worker_init), per stage
 * one prefix-sum checkpoint a task, and the task list; never a row of nbins. */
static double stage_bytes(const xc_searcher *self, size_t nbins, const xc_psopts *o)
{
    (void)self;
    int nth = o->threads > 0 ? o->threads : omp_get_max_threads(), nh = o->numharm > 0 ? o->numharm : 1;
    size_t cw = o->chunkwidth > 0 ? (size_t)o->chunkwidth : 1, tile = o->tile > 0 ? (size_t)o->tile : XC_PS_TILE;
    size_t buflen = cw + (size_t)o->zmax + 2 + XC_PS_GROUP, accn = tile + 2, wn = (size_t)o->zmax + 2;
    double worker = (double)(2 * buflen + 1 + 5 * accn + 2 * wn) * sizeof(double);
    double tasks = (double)nh * (double)(nbins / cw + 1) * (sizeof(double) + 2 * sizeof(size_t));
    return (nth < 1 ? 1 : nth) * worker + tasks;
}

const xc_searcher xc_ps_cpu = {
    /* Bit-identical by construction: the same values summed in double in the same order. */
    .impl = {.family = XC_FAMILY_PULSCAN, .name = "cpu", .tol = {XC_TOL_EXACT, 0}, .caps = XC_CAP_THREADED,
             .desc = "quickselect, recursive boxcar in double with cache tiles, OpenMP over R-blocks"},
    .powers = powers, .peaks = search, .stage_bytes = stage_bytes};
