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
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "optimized/cpu/accel_cpu_internal.h"

/* As core's search_block: a row in at most this many chunks of r. */
#define NCHUNK 16

/* One stage's fused additions and threshold test (stage_avx2 below). */
typedef int (*stage_fn)(double *row, const float *const *sub, const int32_t *const *ri, int nsub, size_t m,
                        double thr);

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
    stage_fn stage;
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
 * (i0 + nr)/2 + hwmax + 1, inside the spectrum. */
static void segments(blk_t *b, const double *amp, long nb, int nth)
{
    size_t tot = 0, off[XC_ACCEL_MAXHARM + 1];
    for (int e = 0; e <= b->ne; e++) {
        off[e] = tot;
        tot += b->nseg[e];
    }
    const size_t L = (size_t)b->s->L, V = (size_t)b->s->V;
    for (int e = 0; e <= b->ne; e++)
        b->D[e] = b->D[0] + off[e] * L;
    const long ntot = (long)tot;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
    for (long q = 0; q < ntot; q++) {
        int e = 0;
        while (e < b->ne && (size_t)q >= off[e + 1])
            e++;
        size_t g = (size_t)q - off[e];
        long klo = b->lo[e] / 2 - b->s->hwmax - 1, khi = (b->lo[e] + (long)b->n[e]) / 2 + b->s->hwmax + 1;
        klo = klo < 0 ? 0 : klo;
        khi = khi > nb - 1 ? nb - 1 : khi;
        size_t n = khi >= klo ? (size_t)(khi - klo + 1) : 0;
        xc_accel_cpu_segment(b->s, b->lo[e] + (long)(g * V), klo, n, amp + 2 * klo, b->D[e] + g * L);
    }
}

/* Template t of entry e's block into row. */
static void make_row(const blk_t *b, int e, int t, float *row, fftwf_complex *tmp)
{
    for (size_t g = 0; g < b->nseg[e]; g++)
        xc_accel_cpu_pair(b->s, b->D[e] + g * (size_t)b->s->L, t, g, b->n[e], row, tmp);
}

/* One stage's additions, fused: row[j] += sub[0][ri[0][j]], then sub[1]..
 * (the order of core's row loops, so the same sums), and 1 if any sum then
 * exceeds thr.  A sub-harmonic's index, round(i h/H) with h/H < 1, rises
 * by at most 7 over 8 consecutive j, so 8 of its values are one unaligned
 * load of 8 floats and a permute instead of a gather (rows are padded by 8
 * floats); a group where that does not hold takes the scalar loads.  perf
 * put a quarter of an 8-harmonic search in core's separate gather and scan
 * loops (xc_accel_row_add, xc_accel_row_above). */
static int stage_generic(double *row, const float *const *sub, const int32_t *const *ri, int nsub, size_t m,
                         double thr)
{
    int any = 0;
    for (size_t j = 0; j < m; j++) {
        double v = row[j];
        for (int e = 0; e < nsub; e++)
            v += sub[e][ri[e][j]];
        row[j] = v;
        any |= v > thr;
    }
    return any;
}

__attribute__((target("avx2"))) static int stage_avx2(double *row, const float *const *sub,
                                                      const int32_t *const *ri, int nsub, size_t m, double thr)
{
    const __m256d t = _mm256_set1_pd(thr);
    __m256d f = _mm256_setzero_pd();
    size_t j = 0;
    for (; j + 8 <= m; j += 8) {
        __m256d a0 = _mm256_loadu_pd(row + j), a1 = _mm256_loadu_pd(row + j + 4);
        for (int e = 0; e < nsub; e++) {
            const int32_t *r = ri[e] + j, b = r[0];
            __m256 v;
            if (r[7] - b <= 7) {
                __m256i idx = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)r), _mm256_set1_epi32(b));
                v = _mm256_permutevar8x32_ps(_mm256_loadu_ps(sub[e] + b), idx);
            } else {
                const float *s = sub[e];
                v = _mm256_setr_ps(s[r[0]], s[r[1]], s[r[2]], s[r[3]], s[r[4]], s[r[5]], s[r[6]], s[r[7]]);
            }
            a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
            a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
        }
        _mm256_storeu_pd(row + j, a0);
        _mm256_storeu_pd(row + j + 4, a1);
        f = _mm256_or_pd(f, _mm256_or_pd(_mm256_cmp_pd(a0, t, _CMP_GT_OQ), _mm256_cmp_pd(a1, t, _CMP_GT_OQ)));
    }
    int any = _mm256_movemask_pd(f) != 0;
    if (j < m) {
        const float *s[XC_ACCEL_MAXHARM];
        const int32_t *r[XC_ACCEL_MAXHARM];
        for (int e = 0; e < nsub; e++) {
            s[e] = sub[e];
            r[e] = ri[e] + j;
        }
        any |= stage_generic(row + j, s, r, nsub, m - j, thr);
    }
    return any;
}

static stage_fn stage_pick(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? stage_avx2 : stage_generic;
}

/* The sums of top template t's row (in top) with the current sub-harmonic
 * rows, chunk by chunk of r, as core's search_block; hits into b->hits. */
static int sum_row(const blk_t *b, int t, const float *top, float *const *sub, double *row)
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
            int H = 1 << s, ns = 0;
            const float *sv[XC_ACCEL_MAXHARM];
            const int32_t *rv[XC_ACCEL_MAXHARM];
            for (int h = 1; s > 0 && h < H; h += 2) {
                int e = H / 2 - 1 + h / 2;
                sv[ns] = sub[e];
                rv[ns++] = b->rind + (size_t)e * b->nr + j0;
            }
            double thr = p->thr[s];
            if (s > 0 && !b->stage(row, sv, rv, ns, m, thr))
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
    float *rows = malloc((len + 8) * sizeof *rows);     /* + 8: stage_avx2's loads */
    double *row = malloc(b->ch * sizeof *row);
    fftwf_complex *tmp = fftwf_malloc(2 * L * sizeof *tmp);
    float *sub[XC_ACCEL_MAXHARM];
    int cur[XC_ACCEL_MAXHARM], bad = !rows || !row || !tmp;
    for (int e = 0, off = 0; !bad && e < b->ne; off += (int)b->n[e], e++) {
        sub[e] = rows + b->nr + off;
        cur[e] = -1;
    }
    for (int t = ta; t < tb && !bad; t++) {
        make_row(b, b->ne, t, rows, tmp);
        for (int H = 2; H <= b->p->numharm; H *= 2)
            for (int h = 1; h < H; h += 2) {
                int e = H / 2 - 1 + h / 2, ts = xc_accel_sub_template(b->p, t, (double)h / H);
                if (ts != cur[e])
                    make_row(b, e, ts, sub[e], tmp);
                cur[e] = ts;
            }
        bad = sum_row(b, t, rows, sub, row);
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
static xc_status one_block(blk_t *b, const double *amp, long nb, int nth, xc_accel_emit_fn emit, void *ctx,
                           xc_error *err)
{
    geometry(b);
    segments(b, amp, nb, nth);
    const int nt = b->p->ntempl, nrun = nth == 1 ? 1 : (4 * nth < nt ? 4 * nth : nt);
    int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth < nrun ? nth : nrun) reduction(| : bad)
    for (int k = 0; k < nrun; k++)
        bad |= templates(b, (int)((long)nt * k / nrun), (int)((long)nt * (k + 1) / nrun));
    xc_status st = bad ? xc_error_set(err, XC_ENOMEM, "accel cpu: out of memory (rows of a block)")
                       : hand_back(b, emit, ctx, err);
    for (size_t it = 0; it < (size_t)nt * b->nch; it++)
        b->hits[it].n = 0;
    return st;
}

xc_status xc_accel_cpu_search(const xc_accel_searcher *self, void *state, const xc_accel_plan *p, const double *amp,
                              size_t nbins, long ilo, long iend, xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    (void)self;
    blk_t b;
    memset(&b, 0, sizeof b);
    b.s = state;
    b.p = p;
    b.ne = p->numharm - 1;
    b.stage = stage_pick();
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
        st = one_block(&b, amp, (long)nbins, nth, emit, ctx, err);
        xc_progress_report(&p->progress, "accel", (uint64_t)(i0 - ilo) + b.nr, (uint64_t)(iend - ilo));
    }
    for (size_t it = 0; b.hits && it < (size_t)p->ntempl * NCHUNK; it++)
        free(b.hits[it].h);
    free(b.hits);
    free(b.rind);
    fftwf_free(D0);
    return st;
}
