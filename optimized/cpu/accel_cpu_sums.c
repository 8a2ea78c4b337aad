/* The CPU accel searcher's own harmonic sums (preset exact; the searcher's
 * `search`, core/search/xc_accel.h): the values and the order of core's
 * out-of-core path (core/search/accel/xc_accel_pipeline.c, search_block),
 * made template by template so that nothing leaves the cache.
 *
 * Core's path computes a block's whole top plane (templates x half-bins,
 * 16 MB at zmax 200) and every sub-harmonic's block (2.3 times that with 8
 * harmonics), writes them to memory, then reads them back to sum: perf put a
 * third of an 8-harmonic search in those writes and the gathers.  Here the
 * segments of the top block and of each sub-harmonic block are FFT'd once,
 * and then each thread takes a run of templates: the top row of a template
 * (all its segments), the sub-harmonic rows it reads (a sub-harmonic's
 * template, required_z of the top one's, rises with it, so one row per
 * sub-harmonic is current and is made when it changes), and the sums of
 * that row while all of it is in cache.
 *
 * Same bytes: the blocks (core's U for preset exact), their segments
 * (first output at the block's first index, V apart), the data each segment
 * holds (the bins core's block copies, zero beyond) and the FFT arrays'
 * alignment are core's, so every plane value is; the sums are the same row
 * loops in the same order; hits are handed back block by block, stage by
 * stage, then template by template and chunk by chunk of r, as core pushes
 * its points. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "optimized/cpu/accel_cpu_internal.h"

/* As core's search_block: a row in at most this many chunks of r. */
#define NCHUNK 16

typedef struct {
    xc_accel_hit *h;
    size_t n, cap;
} hitlist;

/* One block and its sub-harmonic blocks: entry e = H/2 - 1 + h/2 of h/H
 * (0 for 1/2, 1..2 for 1/4, 3/4, ...); entry ne is the top block. */
typedef struct {
    const cpu_state *s;
    const xc_accel_plan *p;
    long i0;
    size_t nr, ch, nch;
    int ne;
    long lo[XC_ACCEL_MAXHARM];
    size_t n[XC_ACCEL_MAXHARM], nseg[XC_ACCEL_MAXHARM];
    fftwf_complex *D[XC_ACCEL_MAXHARM];
    int32_t *rind;      /* ne x nr: the sub-harmonic's index of top index i0 + j, from its block's lo */
    hitlist *hits;      /* ntempl x nch */
} blk_t;

static int push(hitlist *l, long i, int t, int stage, double P)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        xc_accel_hit *h = realloc(l->h, cap * sizeof *h);
        if (!h)
            return 1;
        l->h = h;
        l->cap = cap;
    }
    l->h[l->n++] = (xc_accel_hit){i, t, stage, P};
    return 0;
}

/* The geometry of the block [i0, i0 + nr) and of its sub-harmonic blocks:
 * core's sub_harmonic (out of core, preset exact) index (long)(i h/H + 0.5). */
static void geometry(blk_t *b)
{
    for (int H = 2; H <= b->p->numharm; H *= 2)
        for (int h = 1; h < H; h += 2) {
            int e = H / 2 - 1 + h / 2;
            double frac = (double)h / H;
            int32_t *ri = b->rind + (size_t)e * b->nr;
            long lo = (long)((double)b->i0 * frac + 0.5), hi = lo;
            for (size_t j = 0; j < b->nr; j++) {
                long isub = (long)((double)(b->i0 + (long)j) * frac + 0.5);
                lo = isub < lo ? isub : lo;
                hi = isub > hi ? isub : hi;
            }
            for (size_t j = 0; j < b->nr; j++)
                ri[j] = (int32_t)((long)((double)(b->i0 + (long)j) * frac + 0.5) - lo);
            b->lo[e] = lo;
            b->n[e] = (size_t)(hi - lo + 1);
        }
    b->lo[b->ne] = b->i0;
    b->n[b->ne] = b->nr;
    for (int e = 0; e <= b->ne; e++)
        b->nseg[e] = (b->n[e] + (size_t)b->s->V - 1) / (size_t)b->s->V;
}

/* Every segment of the block and its sub-harmonic blocks, FFT'd; the data
 * of each block are the bins core's do_block copies, i0/2 - hwmax - 1 to
 * (i0 + nr)/2 + hwmax + 1, inside the spectrum, read a segment's window at
 * a time.  1 when out of memory. */
static int segments(blk_t *b, const xc_accel_amps *a, int nth)
{
    size_t tot = 0, off[XC_ACCEL_MAXHARM + 1];
    for (int e = 0; e <= b->ne; e++) {
        off[e] = tot;
        tot += b->nseg[e];
    }
    const size_t L = (size_t)b->s->L, V = (size_t)b->s->V;
    const long nb = (long)a->nbins;
    for (int e = 0; e <= b->ne; e++)
        b->D[e] = b->D[0] + off[e] * L;
    const long ntot = (long)tot;
    int bad = 0;
#pragma omp parallel num_threads(nth) reduction(| : bad)
    {
        float *af = malloc((L + 2) * sizeof *af);
        bad = !af;
#pragma omp for schedule(dynamic, 1)
        for (long q = 0; q < ntot; q++) {
            int e = 0;
            while (e < b->ne && (size_t)q >= off[e + 1])
                e++;
            const long i0 = b->lo[e] + (long)(((size_t)q - off[e]) * V);
            long klo = b->lo[e] / 2 - b->s->hwmax - 1, khi = (b->lo[e] + (long)b->n[e]) / 2 + b->s->hwmax + 1;
            long k0;
            const size_t nk = xc_accel_cpu_window(b->s, i0, &k0);
            klo = klo > k0 ? klo : k0;
            khi = khi < k0 + (long)nk - 1 ? khi : k0 + (long)nk - 1;
            khi = khi > nb - 1 ? nb - 1 : khi;
            const size_t n = af && khi >= klo ? (size_t)(khi - klo + 1) : 0;
            if (n)
                xc_accel_amps_get(a, klo, n, af);
            if (af)
                xc_accel_cpu_segment(b->s, i0, klo, n, af, b->D[0] + (size_t)q * L);
        }
        free(af);
    }
    return bad;
}

/* Template t of entry e's block into row; 1 if a value exceeds thr. */
static int make_row(const blk_t *b, int e, int t, float *row, fftwf_complex *tmp, float thr)
{
    int any = 0;
    for (size_t g = 0; g < b->nseg[e]; g++)
        any |= xc_accel_cpu_pair(b->s, b->D[e] + g * (size_t)b->s->L, t, g, b->n[e], row, tmp, thr);
    return any;
}

/* The largest float <= x: a float v has (double)v > x exactly when v > it. */
static float float_below(double x)
{
    float f = (float)x;
    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

/* The sums of top template t's row (in top) with the current sub-harmonic
 * rows, chunk by chunk of r, as core's search_block; hits into b->hits.
 * top0: whether a value of the top row exceeds the first stage's threshold
 * (when not, its scan finds nothing and is skipped). */
static int sum_row(const blk_t *b, int t, const float *top, float *const *sub, double *row, int top0)
{
    const xc_accel_plan *p = b->p;
    const int one = p->nstages == 1;
    for (size_t c = 0; c < b->nch; c++) {
        size_t j0 = c * b->ch, m = j0 + b->ch < b->nr ? b->ch : b->nr - j0;
        const float *frow = top + j0;
        hitlist *hl = &b->hits[(size_t)t * b->nch + c];
        if (!one)
            xc_accel_row_load(row, frow, m);
        for (int s = 0; s < p->nstages; s++) {
            const float *sv[XC_ACCEL_MAXHARM];
            const int32_t *rv[XC_ACCEL_MAXHARM];
            const int ns = xc_accel_stage_rows(s, (const float *const *)sub, b->rind, b->nr, j0, sv, rv);
            double thr = p->thr[s];
            if (s > 0 ? !xc_accel_stage_add(row, sv, rv, ns, m, XC_ROW_ADD_INSIDE, thr) : !top0)
                continue;     /* nothing above the threshold */
            for (size_t j = one ? xc_accel_rowf_above(frow, 0, m, thr) : xc_accel_row_above(row, 0, m, thr); j < m;
                 j = one ? xc_accel_rowf_above(frow, j + 1, m, thr) : xc_accel_row_above(row, j + 1, m, thr))
                if (push(hl, b->i0 + (long)(j0 + j), t, s, one ? (double)frow[j] : row[j]))
                    return 1;
        }
    }
    return 0;
}

/* Templates [ta, tb): each top row, the sub-harmonic rows it reads (made
 * when they change), the sums. */
static int templates(const blk_t *b, int ta, int tb)
{
    const size_t L = (size_t)b->s->L;
    size_t len = b->nr;
    for (int e = 0; e < b->ne; e++)
        len += b->n[e];
    float *rows = malloc((len + 8) * sizeof *rows);     /* + 8: xc_accel_stage_add's loads */
    double *row = malloc(b->ch * sizeof *row);
    fftwf_complex *tmp = fftwf_malloc(2 * L * sizeof *tmp);
    float *sub[XC_ACCEL_MAXHARM];
    int cur[XC_ACCEL_MAXHARM], bad = !rows || !row || !tmp;
    for (int e = 0, off = 0; !bad && e < b->ne; off += (int)b->n[e], e++) {
        sub[e] = rows + b->nr + off;
        cur[e] = -1;
    }
    const float thr0 = float_below(b->p->thr[0]);
    for (int t = ta; t < tb && !bad; t++) {
        const int top0 = make_row(b, b->ne, t, rows, tmp, thr0);
        if (!top0 && b->p->nstages == 1)
            continue;     /* one harmonic: no point above the threshold */
        for (int H = 2; H <= b->p->numharm; H *= 2)
            for (int h = 1; h < H; h += 2) {
                int e = H / 2 - 1 + h / 2, ts = xc_accel_sub_template(b->p, t, (double)h / H);
                if (ts != cur[e])
                    make_row(b, e, ts, sub[e], tmp, INFINITY);
                cur[e] = ts;
            }
        bad = sum_row(b, t, rows, sub, row, top0);
    }
    free(rows);
    free(row);
    fftwf_free(tmp);
    return bad;
}

/* Hands back the block's hits in core's order: stage, template, chunk. */
static xc_status hand_back(const blk_t *b, xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    size_t nitem = (size_t)b->p->ntempl * b->nch, tot = 0;
    for (size_t it = 0; it < nitem; it++)
        tot += b->hits[it].n;
    if (tot == 0)
        return XC_OK;
    xc_accel_hit *all = malloc(tot * sizeof *all);
    size_t *cur = calloc(nitem, sizeof *cur);
    xc_status st = XC_OK;
    if (!all || !cur)
        st = xc_error_set(err, XC_ENOMEM, "accel cpu: out of memory (%zu points above threshold)", tot);
    size_t k = 0;
    for (int s = 0; s < b->p->nstages && !st; s++)
        for (size_t it = 0; it < nitem; it++)
            for (const hitlist *l = &b->hits[it]; cur[it] < l->n && l->h[cur[it]].stage == s; cur[it]++)
                all[k++] = l->h[cur[it]];
    if (!st)
        st = emit(ctx, all, tot, err);
    free(all);
    free(cur);
    return st;
}

/* One block: segments, then runs of templates over the threads (a run
 * starts its sub-harmonic rows afresh, so a few runs per thread), then the
 * hits. */
static xc_status one_block(blk_t *b, const xc_accel_amps *a, int nth, xc_accel_emit_fn emit, void *ctx,
                           xc_error *err)
{
    geometry(b);
    int bad = segments(b, a, nth);
    const int nt = b->p->ntempl, nrun = nth == 1 ? 1 : (4 * nth < nt ? 4 * nth : nt), nwork = bad ? 0 : nrun;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth < nrun ? nth : nrun) reduction(| : bad)
    for (int k = 0; k < nwork; k++)
        bad |= templates(b, (int)((long)nt * k / nrun), (int)((long)nt * (k + 1) / nrun));
    xc_status st = bad ? xc_error_set(err, XC_ENOMEM, "accel cpu: out of memory (rows of a block)")
                       : hand_back(b, emit, ctx, err);
    for (size_t it = 0; it < (size_t)nt * b->nch; it++)
        b->hits[it].n = 0;
    return st;
}

xc_status xc_accel_cpu_search(const xc_accel_searcher *self, void *state, const xc_accel_plan *p,
                              const xc_accel_amps *a, long ilo, long iend, xc_accel_emit_fn emit, void *ctx,
                              xc_error *err)
{
    (void)self;
    blk_t b;
    memset(&b, 0, sizeof b);
    b.s = state;
    b.p = p;
    b.ne = p->numharm - 1;
    const long U = xc_accel_exact_block(p);
    const int nth = p->o.threads > 0 ? p->o.threads : omp_get_max_threads();
    b.ch = ((size_t)U + NCHUNK - 1) / NCHUNK;
    size_t nseg = 0;
    for (int H = 1; H <= p->numharm; H *= 2)
        for (int h = 1; h < H || h == 1; h += 2)
            nseg += ((size_t)((double)U * h / H) + 2 + (size_t)b.s->V - 1) / (size_t)b.s->V;
    b.D[0] = fftwf_malloc(nseg * (size_t)b.s->L * sizeof *b.D[0]);
    b.rind = malloc((size_t)(b.ne ? b.ne : 1) * (size_t)U * sizeof *b.rind);
    b.hits = calloc((size_t)p->ntempl * NCHUNK, sizeof *b.hits);
    xc_status st = XC_OK;
    if (!b.D[0] || !b.rind || !b.hits)
        st = xc_error_set(err, XC_ENOMEM, "accel cpu: out of memory (blocks of %ld half-bins)", U);
    fftwf_complex *D0 = b.D[0];
    for (long i0 = ilo; i0 < iend && !st; i0 += U) {
        b.i0 = i0;
        b.nr = (size_t)(i0 + U <= iend ? U : iend - i0);
        /* core's chunks: ceil(nr / 16) long */
        b.ch = (b.nr + NCHUNK - 1) / NCHUNK;
        b.nch = (b.nr + b.ch - 1) / b.ch;
        b.D[0] = D0;
        st = one_block(&b, a, nth, emit, ctx, err);
        xc_progress_report(&p->progress, "accel", (uint64_t)(i0 - ilo) + b.nr, (uint64_t)(iend - ilo));
    }
    for (size_t it = 0; b.hits && it < (size_t)p->ntempl * NCHUNK; it++)
        free(b.hits[it].h);
    free(b.hits);
    free(b.rind);
    fftwf_free(D0);
    return st;
}
