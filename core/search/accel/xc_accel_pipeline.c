/* The accel search pipeline core drives around an implementation's plane
 * stage (see core/search/xc_accel.h for the steps): blocks of the fundamental
 * plane, normalised data for each, harmonic sums, thresholds, candidate
 * selection and significance, the same code for every implementation. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "core/search/xc_accel.h"
#include "core/search/accel/xc_accel_blocksum.h"
#include "core/search/accel/xc_accel_queue.h"
#include "core/search/accel/xc_accel_subcache.h"
#include "core/search/spectrum/xc_rednoise.h"
#include "core/search/stats/xc_signif.h"

/* Rows of a block are searched in at most this many chunks of r. */
#define XC_ACCEL_NCHUNK 16
/* Top blocks whose rows a searcher's rows method makes at once, with their
 * sub-harmonic blocks' (4: fastest of 1, 2, 4, 8, 16 at 2^21 bins). */
#define XC_ACCEL_BATCH 4

typedef struct {
    const xc_accel_searcher *s;
    void *state;
    const xc_accel_plan *p;
    const xc_spectrum *sp;
    const double *scale;   /* preset exact: per-bin scales */
    double *amp, *wbuf;    /* data segment; window buffer (presto) */
    size_t ampcap, wcap;
    float *blk;            /* one block's plane: ntempl x nr */
    float *plane;          /* numharm > 1, in memory, preset exact: the plane over [ibase, iend) */
    xc_accel_subcache cache;   /* numharm > 1, in memory, preset presto: the plane's blocks the sub-harmonics read */
    int incache;
    long ibase, iend;
    float *sub;            /* out of core: the sub-harmonics' blocks */
    unsigned char *want;   /* out of core, presto in memory: per sub-harmonic entry, the templates it needs */
    int *tsub;             /* numharm > 1: per sub-harmonic entry, each top template's template there */
    int presto, ooc;
    int batch;             /* out of core with a rows method: top blocks a round (else 0) */
    xc_accel_queue q;      /* their blocks */
    long U;                /* top-plane block, half-bins */
} run_t;

/* The plane of half-bin indices [i0, i0 + nr) into out (stride nr), or
 * queued for the round's rows call (r->batch).
 * preset presto: the data scaled by one factor, the median of accelsearch's
 * window [wlo, wlo + wlen) (zero outside it). */
static xc_status do_block(run_t *r, long i0, size_t nr, long wlo, long wlen, float *out, const unsigned char *want,
                          xc_error *err)
{
    const xc_accel_plan *p = r->p;
    long klo = i0 / 2 - p->hwmax - 1, khi = (i0 + (long)nr) / 2 + p->hwmax + 1;
    size_t n = (size_t)(khi - klo + 1);
    xc_accel_block *qb = NULL;
    double *amp = r->amp;
    if (r->batch) {
        xc_status st = xc_accel_queue_add(&r->q, n, &qb, &amp, err);
        if (st)
            return st;
    } else if (n > r->ampcap) {
        if (!(amp = realloc(r->amp, 2 * n * sizeof *amp)))
            return xc_error_set(err, XC_ENOMEM, "accel: out of memory (data segment of %zu bins)", n);
        r->amp = amp;
        r->ampcap = n;
    }
    const float *X = r->sp->data;
    long nb = (long)r->sp->nbins, whi = nb;
    double ws = 0;
    if (r->presto) {
        /* accelsearch (get_fourier_amplitudes): bin 0 raw, zeros outside
         * the spectrum; one median for the window */
        if ((size_t)wlen > r->wcap) {
            double *w = realloc(r->wbuf, (size_t)wlen * sizeof *w);
            if (!w)
                return xc_error_set(err, XC_ENOMEM, "accel: out of memory (window of %ld bins)", wlen);
            r->wbuf = w;
            r->wcap = (size_t)wlen;
        }
        whi = wlo + wlen;
        ws = xc_accel_norm_window(X, r->sp->nbins, wlo, (size_t)wlen, r->wbuf);
    } else {
        wlo = 0;
    }
    for (long k = klo; k <= khi; k++) {
        double *a = amp + 2 * (k - klo);
        int in = k >= 0 && k < nb && k >= wlo && k < whi;
        double sc = !in ? 0 : r->presto ? ws : r->scale[k];
        a[0] = in ? X[2 * k] * sc : 0;
        a[1] = in ? X[2 * k + 1] * sc : 0;
    }
    xc_accel_block b = {klo, n, amp, i0, nr, out, want};
    if (qb)
        *qb = b;
    return qb ? XC_OK : r->s->plane(r->s, r->state, p, &b, err);
}

/* A top block starting at bin startr: accelsearch's window is
 * floor(startr) - hw(-zmax, -wmax), fftlen/2 bins. */
static xc_status top_block(run_t *r, long i0, size_t nr, float *out, xc_error *err)
{
    return do_block(r, i0, nr, i0 / 2 - r->p->hwwin, r->p->fftlen / 2, out, NULL, err);
}

/* Copies a block into the full plane. */
static void keep_block(run_t *r, long i0, size_t nr)
{
    size_t len = (size_t)(r->iend - r->ibase);
    for (int t = 0; t < r->p->ntempl; t++)
        for (size_t j = 0; j < nr; j++) {
            long i = i0 + (long)j;
            if (i >= r->ibase && i < r->iend)
                r->plane[(size_t)t * len + (size_t)(i - r->ibase)] = r->blk[(size_t)t * nr + j];
        }
}

/* The harmonic h/H's entry (odd h < H): 0 for 1/2, 1..2 for 1/4, 3/4, ... */
static int hidx(int h, int H) { return H / 2 - 1 + h / 2; }

/* The sub-harmonic h/H of the top block [i0, i0 + nr): rind[j] gets the
 * index into *src (row stride *stride) of top index i0 + j, or -1 for a
 * zero power.  In memory: (int)(i h/H + 0.5) in the kept plane
 * (accelsearch's inmem_add_ffdotpows).  Out of core: the sub-harmonic's
 * block is computed now; accelsearch's subharm_fderivs_vol takes
 * rint(i h/H) (calc_required_r, ties to even) and, with preset presto, its
 * own normalisation window: from floor(rint(2 startr h/H)/2) minus the
 * sub-harmonic's hw(-zsub, -wsub), calc_fftlen/2 bins. */
static xc_status sub_harmonic(run_t *r, long i0, size_t nr, int h, int H, int32_t *rind, const float **src,
                              size_t *stride, float *out, xc_error *err)
{
    double frac = (double)h / H;
    if (!r->ooc) {
        /* the plane's indices, or those of the window [lo, hi] of it */
        long lo = r->incache ? (long)((double)i0 * frac + 0.5) : r->ibase;
        long hi = (long)((double)(i0 + (long)nr - 1) * frac + 0.5);
        for (size_t j = 0; j < nr; j++) {
            long isub = (long)((double)(i0 + (long)j) * frac + 0.5);
            rind[j] = isub >= r->ibase && isub < r->iend ? (int32_t)(isub - lo) : -1;
        }
        *stride = r->incache ? r->cache.W : (size_t)(r->iend - r->ibase);
        *src = r->plane;
        return r->incache ? xc_accel_subcache_window(&r->cache, hidx(h, H), r->want + (size_t)hidx(h, H) * r->p->ntempl,
                                                     lo, hi, src, err)
                          : XC_OK;
    }
    long lo = 0, hi = 0;
    for (size_t j = 0; j < nr; j++) {
        long i = i0 + (long)j;
        long isub = r->presto ? (long)rint((double)i * frac) : (long)((double)i * frac + 0.5);
        if (j == 0 || isub < lo)
            lo = isub;
        if (j == 0 || isub > hi)
            hi = isub;
    }
    for (size_t j = 0; j < nr; j++) {
        long i = i0 + (long)j;
        long isub = r->presto ? (long)rint((double)i * frac) : (long)((double)i * frac + 0.5);
        rind[j] = (int32_t)(isub - lo);
    }
    const xc_accel_plan *p = r->p;
    int zs = xc_accel_required_z(frac, p->zmax), wsb = xc_accel_required_w(frac, p->wmax);
    long drlo = (long)floor(rint((double)i0 * frac) * 0.5);
    long wlo = drlo - xc_accel_w_halfwidth(-zs, -wsb, p->o.acc);
    long flen = xc_accel_next_good_fftlen((int)ceil(r->U * frac) + 2 +
                                          2 * XC_ACCEL_NUMBETWEEN * xc_accel_w_halfwidth(zs, wsb, p->o.acc));
    *src = out;
    *stride = (size_t)(hi - lo + 1);
    /* only the templates some top template maps to */
    return do_block(r, lo, (size_t)(hi - lo + 1), wlo, flen / 2, out, r->want + (size_t)hidx(h, H) * p->ntempl, err);
}

/* The sub-harmonic sources of the top block [i0, i0 + nr) (out of core:
 * their blocks made, or queued, now). */
static xc_status subs_of(run_t *r, long i0, size_t nr, int32_t *rind, const float **src, size_t *stride, float *subs,
                         const size_t *suboff, xc_error *err)
{
    xc_status st = XC_OK;
    for (int s = 1; s < r->p->nstages && !st; s++)
        for (int h = 1; h < (1 << s) && !st; h += 2) {
            int e = hidx(h, 1 << s);
            st = sub_harmonic(r, i0, nr, h, 1 << s, rind + (size_t)e * nr, &src[e], &stride[e],
                              r->batch ? NULL : subs + suboff[e], err);
        }
    return st;
}

static int sum_mode(const run_t *r)
{
    return r->presto ? XC_ROW_ADD_PRESTO : r->ooc ? XC_ROW_ADD_INSIDE : XC_ROW_ADD_CLIPPED;
}

/* Searches top-plane indices [i0, i0 + nr) (its plane in blk, its
 * sub-harmonic sources from subs_of) at every stage, in accelsearch's order
 * (stage, w, z, r), adding the points above threshold to pk (preset exact)
 * or inserting them as accelsearch does (preset presto).  Each row
 * (template) goes through every stage while it is in cache, in parallel,
 * into per-row lists (in stage order) which are then taken stage by stage
 * in row order: the same sequence of points at any thread count. */
static xc_status search_block(run_t *r, long i0, size_t nr, const float *blk, const float *const *src,
                              const size_t *stride, const int32_t *rind, xc_accel_peaks *pk, xc_accel_peaks *rowpk,
                              xc_error *err)
{
    const xc_accel_plan *p = r->p;
    int nt = p->ntempl, nth = p->o.threads > 0 ? p->o.threads : omp_get_max_threads();
    int one = p->nstages == 1, nomem = 0;
    /* rows cut into at most XC_ACCEL_NCHUNK chunks of r: with few templates
     * (zmax 0: one) the threads still share the work */
    xc_accel_blocksum b;
    xc_accel_blocksum_init(&b, p, sum_mode(r), i0, nr, XC_ACCEL_NCHUNK, rind, rowpk);
    long nitem = (long)nt * (long)b.nch;
    int nth1 = nitem < nth ? (int)nitem : nth;
#pragma omp parallel num_threads(nth1 > 0 ? nth1 : 1)
    {
        double *rowb = one ? NULL : malloc(b.ch * sizeof *rowb);
        if (!one && !rowb) {
#pragma omp atomic write
            nomem = 1;
        }
#pragma omp for schedule(dynamic, 4)
        for (long it = 0; it < nitem; it++) {
            if (!one && !rowb)
                continue;
            int t = (int)(it / (long)b.nch);
            size_t c = (size_t)(it % (long)b.nch);
            const float *sub[XC_ACCEL_MAXHARM];
            for (int e = 0; e < p->numharm - 1; e++)
                sub[e] = src[e] + (size_t)r->tsub[(size_t)e * (size_t)nt + (size_t)t] * stride[e];
            if (xc_accel_blocksum_item(&b, t, c, blk + (size_t)t * nr + c * b.ch, sub, rowb)) {
#pragma omp atomic write
                nomem = 1;
            }
        }
        free(rowb);
    }
    if (nomem)
        return xc_error_set(err, XC_ENOMEM, "accel: out of memory (candidates)");
    return xc_accel_blocksum_hand(&b, r->presto, pk, err);
}

/* A searcher's rows of top template t of group g: its sums, item by item. */
typedef struct {
    const xc_accel_plan *p;
    xc_accel_blocksum b[XC_ACCEL_BATCH];
} rows_ctx;


static int rows_sum(void *ctx, int g, int t, const float *const *rows)
{
    const rows_ctx *c = ctx;
    const xc_accel_blocksum *b = &c->b[g];
    double *row = c->p->nstages > 1 ? malloc((b->ch ? b->ch : 1) * sizeof *row) : NULL;
    int bad = c->p->nstages > 1 && !row;
    for (size_t k = 0; k < b->nch && !bad; k++)
        bad = xc_accel_blocksum_item(b, t, k, rows[0] + k * b->ch, rows + 1, row);
    free(row);
    return bad;
}

/* The queued top blocks [i00, ..) (nk of them, their sub-harmonic blocks
 * after each) by the searcher's rows method, each one's points then handed
 * on in order. */
static xc_status search_rows(run_t *r, long i00, size_t nk, const int32_t *rind, xc_accel_peaks *pk,
                             xc_accel_peaks *rowpk, xc_error *err)
{
    const xc_accel_plan *p = r->p;
    rows_ctx c;
    c.p = p;
    for (size_t k = 0; k < nk; k++)
        xc_accel_blocksum_init(&c.b[k], p, sum_mode(r), i00 + (long)k * r->U,
                               (size_t)(i00 + (long)(k + 1) * r->U <= r->iend ? r->U : r->iend - i00 - (long)k * r->U),
                               XC_ACCEL_NCHUNK,
                               rind + k * (size_t)p->numharm * (size_t)r->U,
                               rowpk + k * (size_t)p->ntempl * XC_ACCEL_NCHUNK);
    const int n = r->q.n;
    r->q.n = 0;
    xc_status st = r->s->rows(r->s, r->state, p, r->q.b, (int)nk, n / (int)nk, r->tsub, rows_sum, &c, err);
    for (size_t k = 0; k < nk && !st; k++)
        st = xc_accel_blocksum_hand(&c.b[k], r->presto, pk, err);
    return st;
}


/* The geometry of a search: the top plane's blocks of U half-bins over
 * [itop_lo, itop_end), and where the sub-harmonics come from (more than one
 * harmonic): the whole plane over [ibase, itop_end) kept in memory, or each
 * block's sub-harmonic blocks made with it (ooc).  One rule for the search
 * and for its memory estimate (xc_accel_memory). */
typedef struct {
    long U, itop_lo, itop_end, ibase;
    int ooc;
} geom_t;

static geom_t geometry(const xc_accel_plan *p, int presto)
{
    geom_t g;
    /* Blocks of the top plane: accelsearch's (uselen half-bins from rlo;
     * only whole blocks below the highest bin are searched) with preset
     * presto; larger ones (any size gives the same plane) with exact. */
    g.U = presto ? p->uselen : xc_accel_exact_block(p);
    g.itop_lo = 2 * p->rlo;
    if (presto) {
        long nblk = 0;
        while (p->rlo + (nblk + 1) * (g.U / 2) < p->rhi)
            nblk++;
        g.itop_end = g.itop_lo + nblk * g.U;
    } else {
        g.itop_end = 2 * p->rhi + 1;
    }
    /* Either the whole plane stays in memory for the sub-harmonics (as
     * accelsearch's in-memory search), from the lowest sub-harmonic r
     * needed (accelsearch presto: from bin 8 up) to the top, or each
     * block's sub-harmonics are computed with it ("out of core"): the
     * same values with preset exact (one normalisation per bin; up to
     * the rounding of a float stage, whose segments fall elsewhere), and
     * faster (1.5x the plane's work for 4 harmonics against writing and
     * reading GBs); accelsearch's other path with presto, which it takes
     * whenever -wmax is given or its plane needs 2 GB or more. */
    g.ibase = presto ? 2 * (p->rlo < 8 ? p->rlo : 8) : (long)((double)g.itop_lo / p->numharm + 0.5) - 1;
    if (g.ibase < 0)
        g.ibase = 0;
    double presto_bytes =
        4.0 * (double)(p->rhi + p->uselen) * XC_ACCEL_NUMBETWEEN * p->numz * (p->wmax ? p->numw : 1);
    const xc_accel_opts *o = &p->o;
    g.ooc = o->outofcore > 0 || (o->outofcore == 0 && (presto ? (p->wmax > 0 || presto_bytes >= 2e9) : 1));
    return g;
}

/* Out of core: the floats of the sub-harmonic blocks, one per sub-harmonic
 * h/H of the stages, U h/H + 8 long; suboff (may be NULL) gets each one's
 * offset. */
static size_t sub_floats(const xc_accel_plan *p, long U, size_t *suboff)
{
    size_t tot = 0;
    for (int H = 2; H <= p->numharm; H *= 2)
        for (int h = 1; h < H; h += 2) {
            if (suboff)
                suboff[hidx(h, H)] = tot;
            tot += (size_t)p->ntempl * (size_t)(ceil((double)U * h / H) + 8);
        }
    return tot;
}

/* A block of preset presto's in-memory grid, as top_block made it. */
static xc_status grid_block(void *ctx, long b0, float *out, const unsigned char *want, xc_error *err)
{
    run_t *r = ctx;
    return do_block(r, b0, (size_t)r->U, b0 / 2 - r->p->hwwin, r->p->fftlen / 2, out, want, err);
}

/* The sub-harmonics' memory (more than one harmonic) as g says: suboff
 * gets each sub-harmonic block's offset in r->sub out of core; in memory,
 * preset presto holds a few of the plane's blocks per sub-harmonic
 * (xc_accel_subcache.h: the same values, 1.6 GB less at 2^20 bins), unless
 * the whole plane is asked for (outofcore < 0), as preset exact does. */
static xc_status subharm_setup(run_t *r, const geom_t *g, size_t *suboff, xc_error *err)
{
    const xc_accel_plan *p = r->p;
    xc_status st = XC_OK;
    r->ibase = g->ibase;
    r->iend = g->itop_end;
    r->ooc = g->ooc;
    double bytes = (double)p->ntempl * (double)(r->iend - r->ibase) * sizeof(float);
    if (!(r->tsub = malloc((size_t)p->numharm * (size_t)p->ntempl * sizeof *r->tsub)))
        return xc_error_set(err, XC_ENOMEM, "accel: out of memory");
    for (int H = 2; H <= p->numharm; H *= 2)
        for (int h = 1; h < H; h += 2)
            for (int t = 0; t < p->ntempl; t++)
                r->tsub[(size_t)hidx(h, H) * p->ntempl + t] = xc_accel_sub_template(p, t, (double)h / H);
    r->incache = !r->ooc && r->presto && p->o.outofcore == 0;
    if (r->ooc || r->incache) {
        size_t tot = r->ooc ? sub_floats(p, g->U, suboff) : 1;
        tot = r->batch ? 1 : tot;   /* rows: no sub-harmonic plane */
        if (!(r->sub = malloc(tot * sizeof *r->sub)) ||
            !(r->want = calloc((size_t)p->numharm * (size_t)p->ntempl, 1)))
            st = xc_error_set(err, XC_ENOMEM, "accel: out of memory (sub-harmonic blocks of %.1f GB)",
                              tot * 4e-9);
        for (int H = 2; !st && H <= p->numharm; H *= 2)
            for (int h = 1; h < H; h += 2)
                for (int t = 0; t < p->ntempl; t++)
                    r->want[(size_t)hidx(h, H) * p->ntempl + (size_t)r->tsub[(size_t)hidx(h, H) * p->ntempl + t]] = 1;
        if (!st && r->incache)
            st = xc_accel_subcache_init(&r->cache, p->numharm - 1, g->U, g->ibase, g->itop_lo, g->ibase, p->ntempl,
                                        (size_t)g->U + 2, grid_block, r, err);
    } else if (!(r->plane = calloc((size_t)p->ntempl * (size_t)(r->iend - r->ibase) + 8, sizeof *r->plane))) {
        st = xc_error_set(err, XC_ENOMEM, "accel: out of memory (plane of %.1f GB)", bytes / 1e9);
    }
    return st;
}

/* Core's own blocks and sums: out of core, a searcher with a rows method
 * makes XC_ACCEL_BATCH top blocks' rows and their sub-harmonic blocks' at
 * once (the same values), and no plane is kept; else a block's plane, and
 * the sub-harmonics' (subharm_setup).  rowpk and rind: the sums' point
 * lists and sub-harmonic indices, per top block of a round. */
static xc_status host_setup(run_t *r, const geom_t *g, size_t *suboff, xc_accel_peaks **rowpk, int32_t **rind,
                            xc_error *err)
{
    const xc_accel_plan *p = r->p;
    r->batch = g->ooc && p->numharm > 1 && r->s->rows ? XC_ACCEL_BATCH : 0;
    const size_t nbat = r->batch ? (size_t)r->batch : 1, nt = (size_t)p->ntempl, U = (size_t)g->U;
    xc_status st = r->batch ? xc_accel_queue_init(&r->q, r->batch * p->numharm, err) : XC_OK;
    if (!st && !r->batch && !(r->blk = malloc(nt * U * sizeof *r->blk)))
        st = xc_error_set(err, XC_ENOMEM, "accel: out of memory (blocks of %zu x %zu)", U, nt);
    if (!st && p->numharm > 1)
        st = subharm_setup(r, g, suboff, err);
    if (!st && (!(*rowpk = calloc(nbat * nt * XC_ACCEL_NCHUNK, sizeof **rowpk)) ||
                !(*rind = malloc(nbat * (size_t)p->numharm * U * sizeof **rind))))
        st = xc_error_set(err, XC_ENOMEM, "accel: out of memory");
    return st;
}

double xc_accel_memory(const xc_accel_searcher *s, const xc_accel_plan *p)
{
    int presto = p->o.preset == XC_ACCEL_PRESTO;
    const geom_t g = geometry(p, presto);
    double nb = (double)p->nbins, nt = (double)p->ntempl;
    double bytes = nt * sizeof(int);                        /* the plan's half-widths */
    if (p->o.rednoise)
        bytes += nb * 2 * sizeof(float);                    /* the dereddened copy */
    int own = s && (s->search || s->search_amps) && !presto;
    if (!presto && !own)
        bytes += nb * sizeof(double);                       /* the per-bin scales */
    /* The searcher's state, at most the in-tree CPU stages': a kernel of L
     * complex floats per template, L the power of 2 >= 16 hwmax (optimized/
     * cpu/accel_cpu.c; the reference's exact templates are smaller). */
    double L = 2048;
    while (L < 16.0 * p->hwmax)
        L *= 2;
    bytes += nt * L * 2 * sizeof(float);
    if (own) { /* a searcher with its own sums: its state, the scales grown into the amplitudes (or the
                  blocks' scales alone, read as it goes) */
        bytes += s->search_amps ? (double)xc_pulscan_nblocks(p->nbins, p->o.normwidth) * sizeof(double)
                                : nb * 2 * sizeof(double);
        /* At most the in-tree CPU's blocks (a device keeps its own there) (optimized/cpu/accel_cpu_sums.c): the segment
         * spectra of a block and of its sub-harmonic blocks (L - 4 hwmax
         * new values a segment), the sub-harmonic indices, the hit lists,
         * and per thread the rows of one template. */
        double frac = 0, V = L - 4.0 * p->hwmax, U = (double)g.U;
        for (int H = 1; H <= p->numharm; H *= 2)
            for (int h = 1; h < H || h == 1; h += 2)
                frac += (double)h / H + (V > 0 ? (2.0 + V) / (U > 0 ? U : 1) : 0);
        int nth = p->o.threads > 0 ? p->o.threads : omp_get_max_threads();
        return bytes + (V > 0 ? U * frac / V : 1) * L * 2 * sizeof(float) +
               (double)(p->numharm > 1 ? p->numharm - 1 : 1) * U * sizeof(int32_t) +
               nt * XC_ACCEL_NCHUNK * 64.0 +
               nth * (U * frac * sizeof(float) + U / XC_ACCEL_NCHUNK * sizeof(double) + 2 * L * 2 * sizeof(float));
    }
    /* out of core with a rows method: XC_ACCEL_BATCH top blocks and their
     * sub-harmonic blocks at once, rows in place of planes */
    double U = (double)g.U, seg = U / 2 + 2.0 * p->hwmax + 3;
    const int rows = s && s->rows && g.ooc && p->numharm > 1;
    double nbat = rows ? XC_ACCEL_BATCH : 1, nblk = nbat * (rows ? p->numharm : 1);
    int nth = p->o.threads > 0 ? p->o.threads : omp_get_max_threads();
    bytes += (rows ? 0 : nt * U * sizeof(float))            /* a block's plane */
             + nblk * 2 * seg * sizeof(double)                /* the blocks' data segments (at most) */
             + nbat * p->numharm * U * sizeof(int32_t)      /* the sub-harmonic indices */
             + nbat * nt * XC_ACCEL_NCHUNK * sizeof(xc_accel_peaks)
             + nblk * (seg + L) * 2 * sizeof(float);          /* the stage's segment spectra (about) */
    if (rows)                                               /* a run's rows and work array, per thread */
        bytes += nth * (nblk * (U + 8) * sizeof(float) + 2 * L * 2 * sizeof(float));
    if (presto)
        bytes += (double)p->fftlen / 2 * sizeof(double);    /* the normalisation window */
    if (p->numharm > 1)
        bytes += (double)p->numharm * nt * sizeof(int);    /* the sub-harmonics' templates */
    if (p->numharm > 1 && presto && !g.ooc && p->o.outofcore == 0)
        bytes += xc_accel_subcache_bytes(p->numharm - 1, g.U, p->ntempl, (size_t)g.U + 2) + (double)p->numharm * nt;
    else if (p->numharm > 1)
        bytes += g.ooc ? (rows ? 0 : (double)sub_floats(p, g.U, NULL) * sizeof(float)) + (double)p->numharm * nt
                       : nt * (double)(g.itop_end - g.ibase) * sizeof(float);
    return bytes;
}

/* The top blocks [itop_lo, itop_end), XC_ACCEL_BATCH a round with a rows
 * method, else one: each one's plane and sub-harmonic sources (made now),
 * then its search; or their blocks queued, and their rows made and
 * searched together (no plane is written). */
static xc_status search_top(run_t *r, long itop_lo, long itop_end, int32_t *rind, const size_t *suboff,
                            xc_accel_peaks *pk, xc_accel_peaks *rowpk, xc_error *err)
{
    const xc_accel_plan *p = r->p;
    const long U = r->U;
    const size_t nbat = r->batch ? (size_t)r->batch : 1;
    const uint64_t ptotal = (uint64_t)(itop_end - itop_lo);
    const float *src[XC_ACCEL_BATCH][XC_ACCEL_MAXHARM];
    size_t stride[XC_ACCEL_BATCH][XC_ACCEL_MAXHARM];
    xc_status st = XC_OK;
    for (long i00 = itop_lo; i00 < itop_end && !st; i00 += (long)nbat * U) {
        size_t k, nk = 0;
        for (k = 0; k < nbat && i00 + (long)k * U < itop_end && !st; k++, nk++) {
            long i0 = i00 + (long)k * U;
            size_t nr = (size_t)(i0 + U <= itop_end ? U : itop_end - i0);
            st = top_block(r, i0, r->presto ? (size_t)U : nr, r->blk, err);   /* NULL with rows */
            if (!st && r->plane)
                keep_block(r, i0, nr);
            if (!st && p->numharm > 1)
                st = subs_of(r, i0, nr, rind + k * (size_t)p->numharm * (size_t)U, src[k], stride[k], r->sub, suboff,
                             err);
        }
        if (!st && r->batch)
            st = search_rows(r, i00, nk, rind, pk, rowpk, err);
        for (k = 0; k < nk && !st; k++) {
            long i0 = i00 + (long)k * U;
            size_t nr = (size_t)(i0 + U <= itop_end ? U : itop_end - i0);
            if (!r->batch)
                st = search_block(r, i0, nr, r->blk, (const float *const *)src[k], stride[k], rind, pk, rowpk, err);
            if (!st)
                xc_progress_report(&p->progress, "accel", (uint64_t)(i0 - itop_lo) + nr, ptotal);
        }
    }
    return st;
}

xc_status xc_accel_run_peaks(const xc_accel_searcher *s, void *state, const xc_spectrum *sp,
                             const xc_accel_plan *plan, xc_accel_peaks *pk, xc_error *err)
{
    const xc_accel_plan p = *plan;   /* a shallow copy: the caller owns what it points to */
    const xc_accel_opts *o = &p.o;
    /* Dereddened here, before normalisation and every implementation's stage. */
    xc_spectrum red;
    xc_status st = xc_spectrum_whiten(sp, o->rednoise, &red, &sp, err);
    if (st)
        return st;
    run_t r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.p = &p;
    r.sp = sp;
    r.presto = o->preset == XC_ACCEL_PRESTO;
    double *scale = NULL;
    size_t suboff[XC_ACCEL_MAXHARM] = {0};
    xc_accel_peaks *rowpk = NULL;
    int32_t *rind = NULL;
    const geom_t g = geometry(&p, r.presto);
    const long U = g.U, itop_lo = g.itop_lo, itop_end = g.itop_end;
    r.U = U;
    /* A searcher with its own harmonic sums (preset exact, unless the
     * whole plane is to be kept: outofcore < 0) gets the whole normalised
     * spectrum and keeps its planes: none of the host's blocks below are
     * made.  Its scales are made room for the amplitudes they become;
     * one that reads them as it goes (search_amps) gets the blocks' scales
     * alone. */
    const int own = (s->search || s->search_amps) && !r.presto && o->outofcore >= 0, lazy = own && s->search_amps;
    const size_t nscale = lazy ? xc_pulscan_nblocks(sp->nbins, o->normwidth) : (own ? 2 : 1) * sp->nbins;
    if (!r.presto && !(scale = malloc(nscale * sizeof *scale)))
        st = xc_error_set(err, XC_ENOMEM, "accel: out of memory");
    if (!st && !r.presto)
        st = lazy ? xc_accel_norm_block_scales(sp->data, sp->nbins, o->normwidth, o->threads, scale, err)
                  : xc_accel_norm_scales_threads(sp->data, sp->nbins, o->normwidth, o->threads, scale, err);
    r.scale = scale;
    /* the searcher's state: the caller's (made for this plan), else made here */
    if (state)
        r.state = state;
    if (!st && own && s->create && !state)
        st = s->create(s, &p, &r.state, err);
    uint64_t ptotal = (uint64_t)(itop_end - itop_lo);
    xc_progress_report(&p.progress, "accel", 0, ptotal);
    if (!st && own)
        st = lazy ? xc_accel_search_own_amps(s, r.state, &p, sp, scale, itop_lo, itop_end, pk, err)
                  : xc_accel_search_own(s, r.state, &p, sp, scale, itop_lo, itop_end, pk, err);
    if (!st && !own)
        st = host_setup(&r, &g, suboff, &rowpk, &rind, err);
    if (!st && !own && s->create && !state)
        st = s->create(s, &p, &r.state, err);
    /* accelsearch's in-memory search first fills the plane below rlo with
     * blocks starting at bin 8, for the sub-harmonics. */
    if (!st && r.plane) {
        long from = r.presto ? r.ibase : r.ibase / 2 * 2;
        for (long i0 = from; i0 < itop_lo && !st; i0 += U) {
            st = top_block(&r, i0, (size_t)U, r.blk, err);
            if (!st)
                keep_block(&r, i0, (size_t)U);
        }
    }
    if (!st && !own)
        st = search_top(&r, itop_lo, itop_end, rind, suboff, pk, rowpk, err);
    if (!st && own)
        xc_progress_report(&p.progress, "accel", ptotal, ptotal);
    if (r.state && s->destroy && !state)
        s->destroy(s, r.state);
    for (size_t t = 0; rowpk && t < (r.batch ? (size_t)r.batch : 1) * (size_t)p.ntempl * XC_ACCEL_NCHUNK; t++)
        xc_accel_peaks_free(&rowpk[t]);
    free(rowpk);
    free(rind);
    free(scale);
    free(r.amp);
    free(r.wbuf);
    free(r.blk);
    xc_accel_queue_free(&r.q);
    free(r.plane);
    xc_accel_subcache_free(&r.cache);
    free(r.sub);
    free(r.want);
    free(r.tsub);
    xc_spectrum_free(&red);
    return st;
}

