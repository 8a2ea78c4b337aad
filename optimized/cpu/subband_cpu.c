/* The CPU subband dedisperser: the two stages of core/dedisp/approx/xc_subband.h (PRESTO
 * prepsubband's algorithm; Barsdell et al. 2012, MNRAS 422, 379, section 4),
 * with OpenMP over (group of trials x time chunk) work items.
 *
 * Per gulp and downsample factor, the unmasked channels are copied once into the
 * channel-major, time-scrunched array of the direct CPU kernel
 * (xc_cpu_convert).  A work item takes up to SUB_GROUPS consecutive groups
 * (nominal DMs) and one chunk of output samples [t0, t0 + nt): stage 1 sums
 * each subband's channels, shifted by a(c, j), into a row covering only the
 * group's span of stage-2 delays (nt + max_i b - min_i b samples) in the
 * thread's scratch; stage 2 sums the nsub rows, shifted by b(s, i), for every
 * trial i of the group and scales the sums into the plane.  Integer input is
 * summed exactly (uint32 where every sum fits, else uint64; float input in
 * double) in a fixed order, so the plane is the
 * reference's bit for bit on integer input and does not depend on the thread
 * count.  Where every subband's sum fits uint16 and every trial's uint32
 * (8-bit data at small ds), item_fast runs both stages as register-blocked row
 * sums (approx_kernels.c): uint16 subband rows, a subband at a time through
 * the item's groups (two 8-bit samples per 16-bit lane, as the direct kernel),
 * then per trial the subbands in uint16 groups where their sums fit, written
 * to the plane from the registers; where two subbands' sums fit uint16, the
 * trials of a group that read a pair of subbands at the same relative delay
 * share that pair's sum (subrange), made once.
 *
 * The plan makes the subband plan (delays, groups, bounds), the pair rows of
 * each group, each group's stage-1 channel offsets and every thread's
 * scratch once; execute only copies the gulp and adds. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/approx/xc_ddapprox.h"
#include "core/dedisp/approx/xc_subband.h"
#include "core/base/xc_grow.h"
#include "optimized/cpu/cpu_internal.h"

#define SUB_TILE_T 2048   /* output samples per work item: the nsub rows stay in L2 */
/* Groups per work item: their stage-1 windows of a channel overlap, so the channel is read from memory once for
 * all of them.  Measured on the Table 2 plan, 1024 channels, 8-bit, 1 thread (process CPU s per warm execute,
 * three alternated rounds): 4 0.205-0.228, 8 0.184-0.193, 16 0.171-0.177, 32 0.166-0.176, 64 0.176-0.185. */
#define SUB_GROUPS 16

/* Stage 2's exact pair sharing, planned per range.  Trial i reads subband s's row from o(s, i) = b(s, i) - lo(s)
 * (lo: the group's smallest b(s, .)), so subbands 2p and 2p + 1 add up as the pair row
 * P_d[v] = R_2p[v] + R_2p+1[v + d] read from o(2p, i), with d = o(2p + 1, i) - o(2p, i).  The group's trials are
 * close in DM, so few distinct d serve them: each pair row is made once per work item and read by all its trials,
 * stage 2 summing nsub / 2 rows per trial instead of nsub (counted on the Table 2 plan: 40.5 pair rows a group
 * for 16.67 trials, 533 row reads -> 348).  The sums are the same integers (they fit uint16 where this is used),
 * so the plane is the same bytes. */
typedef struct {
    int32_t *span;        /* ngroups: largest max_i b(s, i) - min_i b(s, i) over s */
    int32_t *qfirst;      /* ngroups + 1: group j's pair rows [qfirst[j], qfirst[j + 1]) */
    int32_t *q;           /* 4 per pair row: subband 2p, its start in row 2p (v = 0), in row 2p + 1, length past nt */
    int32_t *tq;          /* [ndm][npair]: trial i's pair row for pair p, from its group's first (-1: a last odd
                             subband, read from its own row) */
    int32_t *toff;        /* [ndm][npair]: where trial i reads that row */
    int32_t *lo;          /* [ngroups][2][nsub]: min_i b(s, i) over group j's trials, then max_i b(s, i) - that */
    int32_t *coff;        /* [ngroups][unmasked channels]: lo(s) + a(c, j), channel c's first sample in stage 1 */
    size_t qmax;          /* most pair rows in a group */
    size_t qext;          /* most samples past nt summed over a group's pair rows */
    int pairs;            /* stage 2 of item_fast sums pair rows (every pair's sum fits uint16) */
    int ncut;             /* and adds its rows (pair rows or subbands) in uint16 lanes in the groups */
    int32_t *cut;         /* [cut[g], cut[g + 1]), g < ncut: as many rows as their sums fit (stage2_cuts) */
} subrange;

typedef struct {
    xc_cpu_approx a;      /* scratch per thread: nsub rows, one accumulator row, nsub offsets (8-byte elements);
                             ranges: per range, its subrange */
    int widest;           /* most channels in one subband */
    int32_t *crow;        /* the unmasked channels in order: each one's row in the copy */
    int *cfirst;          /* nsub + 1: subband s holds crow[cfirst[s] .. cfirst[s + 1]) */
    size_t maxtr;         /* most trials in one group */
} state;

/* Slots of item_fast's table of row pointers: stage 1 keeps a subband's channels for each of the item's groups
 * (SUB_GROUPS x widest), the stage 2 without XC_SCALE_SUM a trial's nsub rows; at least nchans + nsub. */
static size_t ptr_slots(const state *S)
{
    const size_t st1 = (size_t)SUB_GROUPS * (size_t)S->widest, old = (size_t)S->a.p.sp.nchans + (size_t)S->a.p.sp.nsub;
    return st1 > old ? st1 : old;
}

/* Subband s of group j: its smallest stage-2 delay over the group's trials and the span above it. */
static void group_b(const xc_subrange *r, int ns, size_t j, int s, int32_t *lo, int32_t *span)
{
    int32_t bl = INT32_MAX, bh = 0;
    for (size_t i = r->first[j]; i < r->first[j + 1]; i++) {
        int32_t b = r->b[i * (size_t)ns + (size_t)s];
        bl = b < bl ? b : bl;
        bh = b > bh ? b : bh;
    }
    *lo = bl;
    *span = bh - bl;
}

/* The pair rows of range r (subrange's comment): per group, per pair p, one row per distinct d over the group's
 * trials, covering v from the smallest o(2p, i) of those trials to the largest plus nt. */
static xc_status pair_plan(const state *S, const xc_subrange *r, int ns, subrange *R, xc_error *err)
{
    const size_t np = (size_t)(ns + 1) / 2, nq = r->ndm * (size_t)(ns / 2);
    R->qfirst = calloc((size_t)r->ngroups + 1, sizeof *R->qfirst);
    R->q = malloc((nq + 1) * 4 * sizeof *R->q);
    R->tq = malloc((r->ndm * np + 1) * sizeof *R->tq);
    R->toff = malloc((r->ndm * np + 1) * sizeof *R->toff);
    R->lo = malloc(2 * sizeof *R->lo * (size_t)ns * (size_t)r->ngroups);
    R->coff = malloc(sizeof *R->coff * ((size_t)S->cfirst[ns] * (size_t)r->ngroups + 1));
    int32_t *d = malloc((nq + 1) * sizeof *d);
    if (!R->qfirst || !R->q || !R->tq || !R->toff || !R->lo || !R->coff || !d) {
        free(d);
        return xc_error_set(err, XC_ENOMEM, "subband: out of memory");
    }
    int32_t n = 0;
    for (int j = 0; j < r->ngroups; j++) {
        int32_t ext = 0, *lo = R->lo + 2 * (size_t)ns * (size_t)j;
        int32_t *co = R->coff + (size_t)S->cfirst[ns] * (size_t)j;
        for (int s = 0; s < ns; s++) {
            group_b(r, ns, (size_t)j, s, lo + s, lo + ns + s);
            for (int c = S->a.p.sp.sub_first[s]; c < S->a.p.sp.sub_first[s + 1]; c++)
                if (S->a.row[c] >= 0)
                    *co++ = lo[s] + r->a[(size_t)j * (size_t)S->a.p.sp.nchans + (size_t)c];
        }
        R->qfirst[j] = n;
        for (size_t p = 0; p < np; p++) {
            const int s = 2 * (int)p;
            const int32_t first = n;
            for (size_t i = r->first[j]; i < r->first[j + 1]; i++) {
                const int32_t *b = r->b + i * (size_t)ns, o0 = b[s] - lo[s];
                if (s + 1 == ns) {   /* an odd last subband: its own row */
                    R->tq[i * np + p] = -1;
                    R->toff[i * np + p] = o0;
                    continue;
                }
                const int32_t dd = b[s + 1] - lo[s + 1] - o0;
                int32_t e = first;
                while (e < n && d[e] != dd)
                    e++;
                int32_t *q = R->q + 4 * (size_t)e;
                if (e == n) {
                    d[n++] = dd;
                    q[0] = s;
                    q[1] = o0;
                    q[3] = o0;   /* the largest start, made a length below */
                }
                q[1] = o0 < q[1] ? o0 : q[1];
                q[3] = o0 > q[3] ? o0 : q[3];
                R->tq[i * np + p] = e - R->qfirst[j];
            }
            for (int32_t e = first; e < n; e++) {
                int32_t *q = R->q + 4 * (size_t)e;
                q[2] = q[1] + d[e];
                q[3] -= q[1];
                ext += q[3];
            }
            for (size_t i = r->first[j]; i < r->first[j + 1]; i++)
                if (R->tq[i * np + p] >= 0)
                    R->toff[i * np + p] = r->b[i * (size_t)ns + (size_t)s] - lo[s] -
                                          R->q[4 * (size_t)(R->qfirst[j] + R->tq[i * np + p]) + 1];
        }
        R->qmax = (size_t)(n - R->qfirst[j]) > R->qmax ? (size_t)(n - R->qfirst[j]) : R->qmax;
        R->qext = (size_t)ext > R->qext ? (size_t)ext : R->qext;
    }
    R->qfirst[r->ngroups] = n;
    free(d);
    return XC_OK;
}

/* Stage 2's rows in uint16 lanes for range R at downsample ds, samples of at most vmax: a subband's sum is at most
 * vmax ds (its unmasked channels), a pair row's the two subbands' together.  Pair rows where every pair's sum fits
 * uint16; then the rows cut greedily into runs whose sums fit together (the fewest runs: each widening into uint32
 * costs a pass of conversions).  Subbands of equal delay spread differ in width (xc_subband_split), so a count
 * of rows from the widest (as for equal widths) would widen up to twice as often. */
static xc_status stage2_cuts(const state *S, subrange *R, int ds, unsigned long long vmax, xc_error *err)
{
    const int ns = S->a.p.sp.nsub;
    const unsigned long long top = vmax * (unsigned long long)ds, lim = top > 0 ? UINT16_MAX / top : 0;
    R->pairs = ns >= 2;
    for (int s = 0; s + 1 < ns; s += 2)
        R->pairs &= (unsigned long long)(S->cfirst[s + 2] - S->cfirst[s]) <= lim;
    const int np = R->pairs ? (ns + 1) / 2 : ns, per = R->pairs ? 2 : 1;
    if (!(R->cut = malloc(((size_t)np + 1) * sizeof *R->cut)))
        return xc_error_set(err, XC_ENOMEM, "subband: out of memory");
    unsigned long long run = 0;
    R->ncut = 0;
    R->cut[0] = 0;
    for (int p = 0; p < np; p++) {
        const int s1 = per * p + per < ns ? per * p + per : ns;
        const unsigned long long w = (unsigned long long)(S->cfirst[s1] - S->cfirst[per * p]);
        if (p > 0 && run + w > lim) {
            R->cut[++R->ncut] = p;
            run = 0;
        }
        run += w;
    }
    R->cut[++R->ncut] = np;
    return XC_OK;
}

static void st_destroy(const xc_dedisperser *self, void *p)
{
    (void)self;
    state *s = p;
    if (!s)
        return;
    subrange *R = s->a.ranges;
    for (int k = 0; R && k < s->a.nranges; k++)
        xc_free_each(8, R[k].span, R[k].qfirst, R[k].q, R[k].tq, R[k].toff, R[k].lo, R[k].coff, R[k].cut);
    xc_free_each(2, s->crow, s->cfirst);
    xc_cpu_approx_free(&s->a);
    free(s);
}

static void run_range(const void *p, const xc_ddjob *job, int q, const xc_cpu_copy *cp, xc_planerange *o);

static xc_status st_plan(const xc_dedisperser *self, const xc_ddjob *proto, void **out, xc_error *err)
{
    state *s;
    xc_status st = xc_cpu_approx_new((void **)&s, sizeof *s, "subband", self, proto, run_range, sizeof(subrange), err);
    if (st) {
        st_destroy(self, s);
        return st;
    }
    const int nr = proto->plan->nranges, ns = s->a.p.sp.nsub;
    subrange *R = s->a.ranges;
    const xc_subplan *sp = &s->a.p.sp;
    s->crow = malloc(sizeof *s->crow * ((size_t)sp->nchans + 1));
    s->cfirst = malloc(sizeof *s->cfirst * ((size_t)ns + 1));
    if (!s->crow || !s->cfirst) {
        st_destroy(self, s);
        return xc_error_set(err, XC_ENOMEM, "subband: out of memory");
    }
    s->cfirst[0] = 0;
    for (int q = 0; q < ns; q++) {
        s->cfirst[q + 1] = s->cfirst[q];
        for (int c = sp->sub_first[q]; c < sp->sub_first[q + 1]; c++)
            if (s->a.row[c] >= 0)
                s->crow[s->cfirst[q + 1]++] = s->a.row[c];
    }
    for (int q = 0; q < ns; q++)
        s->widest = sp->sub_first[q + 1] - sp->sub_first[q] > s->widest ? sp->sub_first[q + 1] - sp->sub_first[q]
                                                                        : s->widest;
    /* A group's trials are close in DM, so each subband is read over a short
     * span of stage-2 delays: the rows a work item makes are its chunk plus
     * that span, not plus the whole delay. */
    for (int k = 0; k < nr; k++) {
        const xc_subrange *r = &sp->r[k];
        int32_t *span = R[k].span = calloc((size_t)r->ngroups + 1, sizeof *span);
        if (!span) {
            st_destroy(self, s);
            return xc_error_set(err, XC_ENOMEM, "subband: out of memory");
        }
        if ((st = pair_plan(s, r, ns, &R[k], err)) ||
            (proto->nbits <= 16 && (st = stage2_cuts(s, &R[k], r->ds, (1ull << proto->nbits) - 1ull, err)))) {
            st_destroy(self, s);
            return st;
        }
        for (int j = 0; j < r->ngroups; j++) {
            const size_t ntr = r->first[j + 1] - r->first[j];
            s->maxtr = ntr > s->maxtr ? ntr : s->maxtr;
        }
        for (int j = 0; j < r->ngroups; j++)
            for (int q = 0; q < ns; q++) {
                int32_t lo, sp_q;
                group_b(r, ns, (size_t)j, q, &lo, &sp_q);
                span[j] = sp_q > span[j] ? sp_q : span[j];
            }
        for (int j0 = 0; j0 < r->ngroups; j0 += SUB_GROUPS) {
            /* acc (8-byte sums), lo[] and len[] (int32 each), row pointers, alignment, rows, then item_fast's
             * stage-2 row pointers of every trial of a group, then a group's pair rows (each 64-byte aligned) */
            size_t need = SUB_TILE_T * 8 + 2 * (size_t)ns * SUB_GROUPS * 4 +
                          ptr_slots(s) * sizeof(void *) + 128 +
                          (s->maxtr * (size_t)ns + 8 + R[k].qmax) * sizeof(void *) + 64 +
                          (R[k].qmax * (SUB_TILE_T + 32) + R[k].qext) * sizeof(uint16_t);
            for (int j = j0; j < r->ngroups && j < j0 + SUB_GROUPS; j++)
                need += (size_t)ns * (SUB_TILE_T + (size_t)span[j]) * 8;
            s->a.scratch = need > s->a.scratch ? need : s->a.scratch;
        }
    }
    if ((st = xc_cpu_approx_buffers(&s->a, err))) {
        st_destroy(self, s);
        return st;
    }
    *out = s;
    return XC_OK;
}

/* One work item: groups [j0, j1) (at most SUB_GROUPS), output samples
 * [t0, t0 + nt).  Subband s of group j is needed only from its smallest
 * stage-2 delay in the group, lo = min_i b(s, i), to nt + max_i b(s, i), so
 * stage 1 makes that span alone (a group's trials are close in DM: the span
 * is short).  Stage 1 goes channel by channel through every group of the
 * item, whose windows of that channel overlap: it is read from memory once.
 * SRC: the copy's element type; ACC: the sums' (uint32_t where every sum
 * fits, else uint64_t; double for float). */
#define SUB_ITEM(NAME, SRC, ACC)                                                                        \
    static void NAME(const state *S, const xc_ddjob *job, const xc_subrange *r, size_t j0, size_t j1,   \
                     size_t t0, size_t nt, const void *xv, size_t stride, const int32_t *span,          \
                     void *scratch, xc_planerange *o)                                                   \
    {                                                                                                   \
        const xc_subplan *sp = &S->a.p.sp;                                                              \
        const int ns = sp->nsub;                                                                        \
        const SRC *x = xv;                                                                              \
        ACC *acc = scratch, *rows[SUB_GROUPS];                                                          \
        int32_t *lo = (int32_t *)(acc + nt), *len = lo + (size_t)ns * SUB_GROUPS;                       \
        size_t rowlen[SUB_GROUPS];                                                                      \
        ACC *next = (ACC *)(((uintptr_t)(len + (size_t)ns * SUB_GROUPS) + 63) & ~(uintptr_t)63);        \
        for (size_t j = j0; j < j1; j++) {                                                              \
            const size_t g = j - j0;                                                                    \
            rowlen[g] = nt + (size_t)span[j];                                                           \
            rows[g] = next;                                                                             \
            next += (size_t)ns * rowlen[g];                                                             \
            for (int s = 0; s < ns; s++) {                                                              \
                int32_t *l_ = lo + g * (size_t)ns + (size_t)s, *n_ = len + g * (size_t)ns + (size_t)s;   \
                group_b(r, ns, j, s, l_, n_);                                                           \
                *n_ += (int32_t)nt;                                                                     \
                memset(rows[g] + (size_t)s * rowlen[g], 0, (size_t)*n_ * sizeof(ACC));                  \
            }                                                                                           \
        }                                                                                               \
        for (int s = 0; s < ns; s++)                                                                    \
            for (int c = sp->sub_first[s]; c < sp->sub_first[s + 1]; c++) {                             \
                if (S->a.row[c] < 0)                                                                    \
                    continue;                                                                           \
                const SRC *base = x + (size_t)S->a.row[c] * stride + t0;                                \
                for (size_t j = j0; j < j1; j++) {                                                      \
                    const size_t g = j - j0, gs = g * (size_t)ns + (size_t)s;                           \
                    const SRC *src = base + (size_t)lo[gs] + (size_t)r->a[j * (size_t)sp->nchans + (size_t)c]; \
                    ACC *row = rows[g] + (size_t)s * rowlen[g];                                         \
                    const size_t n = (size_t)len[gs];                                                   \
                    for (size_t u = 0; u < n; u++)                                                      \
                        row[u] += (ACC)src[u];                                                          \
                }                                                                                       \
            }                                                                                           \
        for (size_t j = j0; j < j1; j++) {                                                              \
            const size_t g = j - j0;                                                                    \
            for (size_t i = r->first[j]; i < r->first[j + 1]; i++) {                                    \
                const int32_t *b = r->b + i * (size_t)ns;                                               \
                memset(acc, 0, nt * sizeof *acc);                                                       \
                for (int s = 0; s < ns; s++) {                                                          \
                    const ACC *row = rows[g] + (size_t)s * rowlen[g] +                                  \
                                     (size_t)(b[s] - lo[g * (size_t)ns + (size_t)s]);                   \
                    for (size_t t = 0; t < nt; t++)                                                     \
                        acc[t] += row[t];                                                               \
                }                                                                                       \
                XC_CPU_STORE(job, acc, o->data + i * o->nsamp + t0, nt, sp->nchans, r->ds);             \
            }                                                                                           \
        }                                                                                               \
        xc_cpu_sfence();                                                                                \
    }

XC_CPU_ITEM_KINDS(SUB_ITEM)

typedef void (*item_fn)(const state *, const xc_ddjob *, const xc_subrange *, size_t, size_t, size_t, size_t,
                        const void *, size_t, const int32_t *, void *, xc_planerange *);

static const item_fn items[XC_CPU_NITEMS] = {XC_CPU_ITEM_KINDS(XC_CPU_ITEM_NAME)};

/* Stage 2 of item_fast with the sums written as they are (XC_SCALE_SUM), from the registers to the plane
 * (xc_cpu_rowsum_u16_f32).  Time-block-major: for each block of SUB_STAGE2_T samples every trial of the group
 * in turn, so the rows' windows of the block (nsub x (SUB_STAGE2_T + span) uint16, about 20 KiB) stay in L1
 * across the group's trials instead of being read from L2 once per trial.  A trial's blocks start where its
 * plane row is 64-byte aligned (its first block takes the few samples before), so every block but its last
 * is streamed whole, as one call over the chunk would.  Where every pair of subbands' sums fits uint16
 * (R->pairs), the group's pair rows (subrange) are made first, over the whole chunk, and each trial sums nsub / 2
 * of them, in uint16 lanes in the runs R->cut.
 * tab: the trials' row pointers, ntrials x (nsub or its pairs), then room for the pair rows. */
#define SUB_STAGE2_T 256
static void stage2_sum(const state *S, const xc_subrange *r, const subrange *R, size_t j0, size_t j1, size_t t0,
                       size_t nt, uint16_t *const *rows, const size_t *rowlen, const int32_t *lo,
                       const uint16_t **tab, uint32_t *acc, xc_planerange *o)
{
    const int ns = S->a.p.sp.nsub, pairs = R->pairs, np = pairs ? (ns + 1) / 2 : ns;
    uint16_t **qrow = (uint16_t **)(tab + S->maxtr * (size_t)ns + 1);
    uint16_t *qbuf = (uint16_t *)(((uintptr_t)(qrow + R->qmax) + 63) & ~(uintptr_t)63);
    for (size_t j = j0; j < j1; j++) {
        const size_t g = j - j0, i0 = r->first[j], ntr = r->first[j + 1] - i0;
        if (pairs) {
            uint16_t *next = qbuf;
            for (int32_t e = R->qfirst[j]; e < R->qfirst[j + 1]; e++) {
                const int32_t *q = R->q + 4 * (size_t)e;
                const uint16_t *r0 = rows[g] + (size_t)q[0] * rowlen[g];
                const size_t n = nt + (size_t)q[3];
                xc_cpu_rowadd_u16(r0 + q[1], r0 + rowlen[g] + q[2], n, next);
                qrow[e - R->qfirst[j]] = next;
                next += (n + 31) & ~(size_t)31;
            }
            for (size_t k = 0; k < ntr; k++) {
                const int32_t *tq = R->tq + (i0 + k) * (size_t)np, *to = R->toff + (i0 + k) * (size_t)np;
                for (int p = 0; p < np; p++)
                    tab[k * (size_t)np + (size_t)p] = tq[p] >= 0 ? qrow[tq[p]] + to[p]
                                                                 : rows[g] + (size_t)(2 * p) * rowlen[g] + to[p];
            }
        } else
            for (size_t k = 0; k < ntr; k++) {
                const int32_t *b = r->b + (i0 + k) * (size_t)ns;
                for (int s = 0; s < ns; s++)
                    tab[k * (size_t)ns + (size_t)s] =
                        rows[g] + (size_t)s * rowlen[g] + (size_t)(b[s] - lo[g * (size_t)ns + (size_t)s]);
            }
        for (size_t u0 = 0; u0 < nt; u0 += SUB_STAGE2_T)
            for (size_t k = 0; k < ntr; k++) {
                float *dst = o->data + (i0 + k) * o->nsamp + t0;   /* the trial's row: block a of its pointers */
                const size_t mis = ((uintptr_t)dst & 63) / sizeof *dst, head = mis ? 16 - mis : 0;
                const size_t a = u0 ? u0 + head : 0, e = u0 + SUB_STAGE2_T + head < nt ? u0 + SUB_STAGE2_T + head
                                                                                        : nt;
                if (a < e)
                    xc_cpu_rowsum_u16_f32_cut(tab + k * (size_t)np, np, a, e - a, R->cut, R->ncut, acc, dst);
            }
    }
}

/* A software prefetch (prefetcht1: into L2) of part of subband s's windows of the copy for the item's groups
 * [j0, j1): channels k, k + every, ... of the subband, each from group j0's first sample to group j1 - 1's last
 * (the delays grow with the group's DM, so that is the union).  item_fast spreads it for the subband
 * SUB_PREFETCH ahead over the groups reading the current one, so the first group of each subband finds its 32
 * channels' windows (about 90 KB) in L2 rather than waiting for them from L3 or memory.  Measured (Table 2 plan,
 * 1024 channels, 8-bit, 1 thread, bench CPU s of subband, medians of 5 interleaved runs): none 0.165, 1 ahead
 * 0.153, 2 ahead 0.152-0.153, 4 ahead 0.159; 2 ahead into L1 (prefetcht0) 0.167. */
#define SUB_PREFETCH 2
/* Stage 1 block-major: SUB_STAGE1_T samples of a subband's row in every group of the item, then the next
 * SUB_STAGE1_T, so the channels' lines one group loads serve the others (their windows are a few dozen samples
 * apart) from L1 instead of each group streaming the whole 2 KiB windows from L2. */
#define SUB_STAGE1_T 512
static void prefetch_sub(const state *S, const subrange *R, size_t j0, size_t j1, int s, const int32_t *len, int k,
                         int every, const char *x, size_t stride, size_t t0, size_t eb)
{
    const size_t ns = (size_t)S->a.p.sp.nsub, gl = j1 - 1 - j0, m = (size_t)S->cfirst[ns];
    const int n = S->cfirst[s + 1] - S->cfirst[s];
    const int32_t *cr = S->crow + S->cfirst[s], *c0 = R->coff + m * j0 + S->cfirst[s],
                  *c1 = R->coff + m * (j1 - 1) + S->cfirst[s];
    for (int u = k; u < n; u += every) {
        const char *base = x + ((size_t)cr[u] * stride + t0) * eb;
        const size_t b0 = (size_t)c0[u] * eb, b1 = ((size_t)c1[u] + (size_t)len[gl * ns + (size_t)s]) * eb;
        for (size_t v = b0 & ~(size_t)63; v < b1; v += 64)
            __builtin_prefetch(base + v, 0, 2);
    }
}

/* The work item of SUB_ITEM where the copy holds uint8 or uint16 samples (wide: uint16), every subband's sum
 * fits uint16 and every trial's uint32 (8-bit data at small downsample factors): both stages are register-
 * blocked row sums (approx_kernels.c), a subband at a time through the item's groups, so its channels stay in
 * cache while the groups read them.  The same exact sums as SUB_ITEM, so the same plane. */
static void item_fast(const state *S, const xc_ddjob *job, const xc_subrange *r, size_t j0, size_t j1, size_t t0,
                      size_t nt, const void *xv, size_t stride, int wide, const subrange *R, void *scratch,
                      xc_planerange *o)
{
    const int32_t *span = R->span;
    const xc_subplan *sp = &S->a.p.sp;
    const int ns = sp->nsub;
    uint32_t *acc = scratch;
    int32_t *lo = (int32_t *)(acc + nt), *len = lo + (size_t)ns * SUB_GROUPS;
    const void **ptr = (const void **)(((uintptr_t)(len + (size_t)ns * SUB_GROUPS) + 63) & ~(uintptr_t)63);
    uint16_t *rows[SUB_GROUPS], *next = (uint16_t *)(ptr + ptr_slots(S));
    size_t rowlen[SUB_GROUPS];
    for (size_t j = j0; j < j1; j++) {
        const size_t g = j - j0;
        rowlen[g] = nt + (size_t)span[j];
        rows[g] = next;
        next += (size_t)ns * rowlen[g];
        const int32_t *pl = R->lo + 2 * (size_t)ns * j;   /* the plan's lo and span of each subband */
        for (int s = 0; s < ns; s++) {
            lo[g * (size_t)ns + (size_t)s] = pl[s];
            len[g * (size_t)ns + (size_t)s] = pl[ns + s] + (int32_t)nt;
        }
    }
    const size_t eb = wide ? 2 : 1;
    for (int s = 0; s < ns; s++) {
        const int n = S->cfirst[s + 1] - S->cfirst[s];   /* the subband's unmasked channels */
        const int32_t *cr = S->crow + S->cfirst[s];
        size_t lmax = 0;
        for (size_t j = j0; j < j1; j++) {
            const size_t g = j - j0, gs = g * (size_t)ns + (size_t)s;
            const int32_t *co = R->coff + (size_t)S->cfirst[ns] * j + S->cfirst[s];
            const void **tp = ptr + g * (size_t)S->widest;
            for (int u = 0; u < n; u++)
                tp[u] = (const char *)xv + ((size_t)cr[u] * stride + t0 + (size_t)co[u]) * eb;
            lmax = (size_t)len[gs] > lmax ? (size_t)len[gs] : lmax;
        }
        const size_t ng = j1 - j0, steps = (lmax + SUB_STAGE1_T - 1) / SUB_STAGE1_T;
        for (size_t k = 0; k < steps; k++)
            for (size_t g = 0; g < ng; g++) {
                const size_t gs = g * (size_t)ns + (size_t)s, off = k * SUB_STAGE1_T, l = (size_t)len[gs];
                if (s + SUB_PREFETCH < ns)
                    prefetch_sub(S, R, j0, j1, s + SUB_PREFETCH, len, (int)(k * ng + g), (int)(steps * ng), xv, stride,
                                 t0, eb);
                if (off >= l)
                    continue;
                const size_t m = l - off < SUB_STAGE1_T ? l - off : SUB_STAGE1_T;
                const void *const *tab = ptr + g * (size_t)S->widest;
                uint16_t *row = rows[g] + (size_t)s * rowlen[g];
                if (wide)
                    xc_cpu_rowsum_u16_u16((const uint16_t *const *)tab, n, off, m, row);
                else
                    xc_cpu_rowsum_u8_u16((const uint8_t *const *)tab, n, off, m, row);
            }
    }
    if (job->conv->scaling == XC_SCALE_SUM) {
        stage2_sum(S, r, R, j0, j1, t0, nt, rows, rowlen, lo,
                   (const uint16_t **)(((uintptr_t)next + 7) & ~(uintptr_t)7), acc, o);
        xc_cpu_sfence();
        return;
    }
    for (size_t j = j0; j < j1; j++) {
        const size_t g = j - j0;
        for (size_t i = r->first[j]; i < r->first[j + 1]; i++) {
            const int32_t *b = r->b + i * (size_t)ns;
            for (int s = 0; s < ns; s++)
                ptr[s] = rows[g] + (size_t)s * rowlen[g] + (size_t)(b[s] - lo[g * (size_t)ns + (size_t)s]);
            xc_cpu_rowsum_u16_u32((const uint16_t *const *)ptr, ns, 0, nt, acc);
            XC_CPU_STORE(job, acc, o->data + i * o->nsamp + t0, nt, sp->nchans, r->ds);
        }
    }
    xc_cpu_sfence();
}

/* Range q from the copy: OpenMP over (block of SUB_GROUPS groups x time chunk).  item_fast where its sums
 * are exact: uint8/uint16 copy, narrow trial sums, the widest subband's sum within uint16. */
static void run_range(const void *p, const xc_ddjob *job, int q, const xc_cpu_copy *cp, xc_planerange *o)
{
    const state *S = p;
    const xc_subrange *r = &S->a.p.sp.r[q];
    const item_fn item = items[cp->item];
    const int wide = cp->item == XC_CPU_ITEM_U16N;
    const int fast = (cp->item == XC_CPU_ITEM_U8N || wide) &&
                     ((1ull << job->in->nbits) - 1ull) * (unsigned long long)r->ds * (unsigned long long)S->widest
                         <= UINT16_MAX;
    const size_t tc = SUB_TILE_T, nchunk = (o->nsamp + tc - 1) / tc;
    const size_t nblk = ((size_t)r->ngroups + SUB_GROUPS - 1) / SUB_GROUPS;
#pragma omp parallel for schedule(dynamic, 1) collapse(2) num_threads(S->a.nthreads)
    for (size_t jb = 0; jb < nblk; jb++)
        for (size_t c = 0; c < nchunk; c++) {
            const size_t t0 = c * tc, nt = o->nsamp - t0 < tc ? o->nsamp - t0 : tc;
            const size_t j0 = jb * SUB_GROUPS, j1 = j0 + SUB_GROUPS < (size_t)r->ngroups
                                                       ? j0 + SUB_GROUPS : (size_t)r->ngroups;
            void *buf = S->a.buf[omp_get_thread_num()];
            const subrange *R = (const subrange *)S->a.ranges + q;
            if (fast)
                item_fast(S, job, r, j0, j1, t0, nt, cp->x, cp->stride, wide, R, buf, o);
            else
                item(S, job, r, j0, j1, t0, nt, cp->x, cp->stride, R->span, buf, o);
        }
}

/* Integer input: the subband reference bit for bit at any thread count. */
const xc_dedisperser xc_dd_subband_cpu = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "subband", .tol = {XC_TOL_SIGNAL_LOSS, 0.8},
             .caps = XC_CAP_THREADED | XC_CAP_APPROXIMATE, .data = &xc_ddapprox_subband,
             .desc = "two-stage subband dedispersion (PRESTO prepsubband), OpenMP over nominal DMs x time chunks"},
    .plan = st_plan, .execute = xc_cpu_approx_execute, .destroy = st_destroy, .bound = xc_ddapprox_bounds};
