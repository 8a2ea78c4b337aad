/* The CPU tree dedispersers: core/dedisp/approx/xc_tree.h's semantics computed by the tree
 * itself (Taylor 1974, A&AS 15, 367; the piecewise-linear and frequency-
 * padded variants of Barsdell et al. 2012, MNRAS 422, 379, section 3.1),
 * OpenMP over chunks of output time.
 *
 * Per gulp and downsample factor the unmasked channels are copied once into
 * the channel-major, time-scrunched array of the direct CPU kernel
 * (xc_cpu_convert).  A work item is one tile of consecutive
 * trials and one chunk of output samples [t0, t0+nt), so the tile's sums stay
 * in cache.  For each subband s and each block j (the imposed diagonal, j
 * samples per channel) some trial of the tile needs, it loads the subband's M channels shifted by
 * j u, starting at the smallest stage-2 delay of those trials, lo = min b,
 * and runs the log2(M) butterfly steps
 *   T_2h[g][n](t) = T_h[2g][n/2](t) + T_h[2g+1][n/2](t + ceil(n/2)),
 * whose lines are exactly core's d_M; stage 2 adds row n mod (M-1), at
 * offset b - lo, into each of those trials' accumulators.  Steps h and 2h run
 * as one (each row of step 2h from four rows of step h's input: half the row
 * writes of a build that waits on its stores), and where all M channels lie
 * whole in the copy the first two read it directly, with no loaded level; the
 * sums and their order are the same.  Where the tree's
 * rows are uint16 and the plane takes plain sums (item_keep), the tile's trees
 * are all built first and each trial's rows summed into the plane at once.  The tree's rows are
 * uint16 where M channels' sums fit (8-bit data), else the sums' type.  Each step shortens
 * the rows by its largest shift (h), so level 1 holds nt + (max b - lo) + M - 1
 * samples and the last level nt + (max b - lo): what stage 2 reads.  Reads
 * past the copy's end give 0; they only feed sums stage 2 never reads (every
 * read it makes is inside the gulp by core's clamps).  Integer input is summed
 * exactly (uint32 where every sum of a trial fits, else uint64; float in
 * double), so the plane is the reference's bit for bit on integer input at
 * any thread count.
 *
 * The plan makes the tree plan (core), the trials of every (subband, block)
 * and each thread's scratch once; execute only copies the gulp and adds. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/approx/xc_ddapprox.h"
#include "core/dedisp/approx/xc_tree.h"
#include "core/base/xc_grow.h"
#include "optimized/cpu/cpu_internal.h"

#define TREE_TILE_T 1024   /* output samples per work item */
/* Trials per work item.  Fewer keep the tile's sums in L2 (64: 256 KiB), but every tile rebuilds the trees of
 * the (subband, block) pairs its trials need; measured on the Table 2 plan, 1024 channels, 8-bit, 1 thread
 * (process CPU s per execute): 64 1.05-1.15, 512 0.81-0.93, 4096 0.84-1.00.  512 x 1024 uint32 sums: 2 MiB. */
#define TREE_TILE_DM 512
/* item_keep's tile: it holds no tile of sums, only each tree's last level, so a larger tile rebuilds fewer trees
 * for the same trials; measured on the same plan (process CPU s per execute, three alternated rounds): 2048
 * samples x 1024 trials 0.41-0.47 against 0.45-0.65 at 1024 x 512. */
#define TREE_KEEP_T 2048
#define TREE_KEEP_DM 1024

/* Per range: trials grouped by (tile of tdm trials, subband, block); q = (tile*nsub + s)*nblk + j. */
typedef struct {
    int keep;             /* item_keep's range (range_keep), with its tile; else TREE_ITEM's */
    size_t tdm, tt;       /* trials and output samples per work item */
    int nblk;             /* jmax + 1 */
    size_t ntile;
    size_t *off;          /* [ntile * nsub * nblk + 1]: trials of q are idx[off[q] .. off[q+1]) */
    size_t *idx;          /* nsub * ndm trial indices */
    int32_t *lo, *hi;     /* [ntile * nsub * nblk]: smallest and largest b of those trials */
} groups;

typedef struct {
    xc_cpu_approx a;      /* ranges: groups per range */
    size_t w1max;         /* longest level-1 row */
    size_t keepmax;       /* most uint16 samples item_keep keeps for the trees of one tile */
} state;

static void st_destroy(const xc_dedisperser *self, void *p)
{
    (void)self;
    state *s = p;
    if (!s)
        return;
    groups *g = s->a.ranges;
    for (int k = 0; k < s->a.nranges; k++)
        xc_free_each(4, g[k].off, g[k].idx, g[k].lo, g[k].hi);
    xc_cpu_approx_free(&s->a);
    free(s);
}

static int blk_of(int m, int32_t n) { return m > 1 ? n / (m - 1) : 0; }

/* Whether range r runs item_keep: integer input whose M channels' sums fit uint16 at r's ds (so the copy is
 * uint8 or uint16 and a trial's sums fit uint32: the uint8/uint16 narrow kernels, approx_common.c), and plain
 * sums.  Decided at plan time from the plan's nbits and convention, which are the execute's (xc_ddplan_execute
 * checks the block's nbits), so the groups are made for the tile that will run. */
static int range_keep(int nbits, int scaling, int ds, int m)
{
    if (!xc_nbits_is_int(nbits) || scaling != XC_SCALE_SUM)
        return 0;
    return ((1ull << nbits) - 1ull) * (unsigned long long)ds * (unsigned long long)m <= UINT16_MAX;
}

static xc_status make_groups(state *S, int k, int keep)
{
    const xc_treerange *r = &S->a.p.tp.r[k];
    const int ns = S->a.p.tp.nsub, M = S->a.p.tp.m;
    groups *g = (groups *)S->a.ranges + k;
    g->keep = keep;
    g->tdm = keep ? TREE_KEEP_DM : TREE_TILE_DM;
    g->tt = keep ? TREE_KEEP_T : TREE_TILE_T;
    g->nblk = r->jmax + 1;
    g->ntile = (r->ndm + g->tdm - 1) / g->tdm;
    const size_t nsj = g->ntile * (size_t)ns * (size_t)g->nblk;
    g->off = calloc(nsj + 1, sizeof *g->off);
    g->idx = malloc(((size_t)ns * r->ndm + 1) * sizeof *g->idx);
    g->lo = malloc(nsj * sizeof *g->lo);
    g->hi = malloc(nsj * sizeof *g->hi);
    if (!g->off || !g->idx || !g->lo || !g->hi)
        return XC_ENOMEM;
    for (size_t q = 0; q < nsj; q++) {
        g->lo[q] = INT32_MAX;
        g->hi[q] = 0;
    }
    for (size_t i = 0; i < r->ndm; i++)
        for (int s = 0; s < ns; s++) {
            const size_t q = ((i / g->tdm) * (size_t)ns + (size_t)s) * (size_t)g->nblk +
                             (size_t)blk_of(M, r->n[i * (size_t)ns + (size_t)s]);
            const int32_t b = r->b[i * (size_t)ns + (size_t)s];
            g->off[q + 1]++;
            g->lo[q] = b < g->lo[q] ? b : g->lo[q];
            g->hi[q] = b > g->hi[q] ? b : g->hi[q];
        }
    for (size_t q = 0; q < nsj; q++)
        g->off[q + 1] += g->off[q];
    size_t *fill = malloc((nsj ? nsj : 1) * sizeof *fill);
    if (!fill)
        return XC_ENOMEM;
    memcpy(fill, g->off, nsj * sizeof *fill);
    for (size_t i = 0; i < r->ndm; i++)   /* trials in increasing order within each (s, j) */
        for (int s = 0; s < ns; s++) {
            const size_t q = ((i / g->tdm) * (size_t)ns + (size_t)s) * (size_t)g->nblk +
                             (size_t)blk_of(M, r->n[i * (size_t)ns + (size_t)s]);
            g->idx[fill[q]++] = i;
        }
    free(fill);
    for (size_t T = 0; T < g->ntile; T++) {
        size_t keep = 0;
        for (size_t q = T * (size_t)ns * (size_t)g->nblk; q < (T + 1) * (size_t)ns * (size_t)g->nblk; q++)
            if (g->off[q + 1] > g->off[q]) {
                size_t w1 = g->tt + (size_t)(g->hi[q] - g->lo[q]) + (size_t)M - 1;
                S->w1max = w1 > S->w1max ? w1 : S->w1max;
                keep += (size_t)M * (w1 - (size_t)M + 1);
            }
        S->keepmax = keep > S->keepmax ? keep : S->keepmax;
    }
    return XC_OK;
}

static void run_range(const void *p, const xc_ddjob *job, int q, const xc_cpu_copy *cp, xc_planerange *o);

/* One plan for both trees: the kind is the descriptor's (core/dedisp/approx/xc_ddapprox.h). */
static xc_status st_plan(const xc_dedisperser *self, const xc_ddjob *proto, void **out, xc_error *err)
{
    state *S;
    xc_status st = xc_cpu_approx_new((void **)&S, sizeof *S, "tree", self, proto, run_range, sizeof(groups), err);
    int any_item = 0, any_keep = 0;
    for (int k = 0; !st && k < S->a.p.tp.nranges; k++) {
        const int keep = range_keep(proto->nbits, proto->conv->scaling, S->a.p.tp.r[k].ds, S->a.p.tp.m);
        any_keep |= keep;
        any_item |= !keep;
        if (make_groups(S, k, keep) != XC_OK)
            st = xc_error_set(err, XC_ENOMEM, "tree: out of memory");
    }
    if (!st) {
        const size_t ping = 2 * (size_t)S->a.p.tp.m * S->w1max;
        size_t nq = 0;
        for (int k = 0; k < S->a.p.tp.nranges; k++)
            nq = (size_t)((groups *)S->a.ranges)[k].nblk > nq ? (size_t)((groups *)S->a.ranges)[k].nblk : nq;
        nq *= (size_t)S->a.p.tp.nsub;
        /* TREE_ITEM: the tile's sums (8-byte elements at most), then two ping-pong trees of M rows; item_keep:
         * one row of uint32, per (subband, block) a row pointer and a length, ns pointers, the trees, the kept
         * rows.  Each only where some range runs it. */
        const size_t item = any_item ? ping * 8 + (size_t)TREE_TILE_DM * TREE_TILE_T * 8 : 0,
                     keep = any_keep ? TREE_KEEP_T * 4 + nq * 16 + (size_t)S->a.p.tp.nsub * 8 + (ping + S->keepmax) * 2
                                     : 0;
        S->a.scratch = (item > keep ? item : keep) + 128;
    }
    if (!st)
        st = xc_cpu_approx_buffers(&S->a, err);
    if (st) {
        st_destroy(self, S);
        return st;
    }
    *out = S;
    return XC_OK;
}

/* The tree of subband s and block j (q its index) for output samples [t0, t0 + nt): its M channels loaded from
 * the copy shifted by j u from lo = G->lo[q], then the log2(M) butterfly steps in the ping-pong rows ta and tb
 * (M rows of W1 each).  Returns the last level's rows, of nt + (G->hi[q] - lo) samples: in last (stride lstride)
 * where the caller gives it and M > 1, else in ta or tb (stride W1).  SRC: the
 * copy's element type; ROW: the tree's sums (of M channels).  Inlined, so it takes its caller's clone. */
#define TREE_BUILD(NAME, SRC, ROW)                                                                         \
    static inline __attribute__((always_inline)) ROW *NAME(const state *S, const groups *G, size_t q, int s,  \
                                                           int j, size_t t0, size_t nt,                    \
                     const SRC *x, size_t nsd, size_t stride, ROW *ta, ROW *tb, ROW *last, size_t lstride) \
    {                                                                                                      \
        const xc_treeplan *tp = &S->a.p.tp;                                                                \
        const int M = tp->m;                                                                               \
        const size_t W1 = S->w1max, lo = (size_t)G->lo[q], wf = nt + (size_t)(G->hi[q] - G->lo[q]);        \
        size_t len = wf + (size_t)M - 1;                                                                   \
        ROW *in = ta, *out = tb;                                                                           \
        int h = 1;                                                                                         \
        const SRC *sp[4];                                                                                  \
        int direct = M >= 4 && t0 + lo + (size_t)j * (size_t)(M - 1) + len <= nsd;                        \
        for (int u = 0; direct && u < M; u++) {                                                            \
            const int c = tp->chan[s * M + u];                                                             \
            direct = c >= 0 && S->a.row[c] >= 0;                                                           \
        }                                                                                                  \
        if (direct) {   /* every channel whole in the copy: steps 1 and 2 read it, no loaded level */      \
            len -= 3;                                                                                      \
            ROW *o1 = last && M == 4 ? last : tb;                                                          \
            const size_t os = o1 == last ? lstride : W1;                                                   \
            for (int g = 0; g < M; g += 4) {                                                               \
                for (int u = 0; u < 4; u++)                                                                \
                    sp[u] = x + (size_t)S->a.row[tp->chan[s * M + g + u]] * stride + t0 + lo +             \
                            (size_t)j * (size_t)(g + u);                                                   \
                for (int n = 0; n < 4; n++) {                                                              \
                    const int s2 = n / 2 + n % 2, v = (n / 2) % 2;                                         \
                    const SRC *a = sp[0], *b = sp[1] + v, *c = sp[2] + s2, *e = sp[3] + s2 + v;            \
                    ROW *d = o1 + (size_t)(g + n) * os;                                                    \
                    for (size_t t = 0; t < len; t++)                                                       \
                        d[t] = (ROW)((ROW)((ROW)a[t] + (ROW)b[t]) + (ROW)((ROW)c[t] + (ROW)e[t]));         \
                }                                                                                          \
            }                                                                                              \
            in = o1;                                                                                       \
            out = ta;                                                                                      \
            h = 4;                                                                                         \
        }                                                                                                  \
        for (int u = 0; !direct && u < M; u++) {                                                           \
            const int c = tp->chan[s * M + u];                                                             \
            ROW *dst = ta + (size_t)u * W1;                                                                \
            const size_t base = t0 + lo + (size_t)j * (size_t)u;                                           \
            size_t nv = 0;                                                                                 \
            if (c >= 0 && S->a.row[c] >= 0 && base < nsd) {                                                \
                nv = nsd - base < len ? nsd - base : len;                                                  \
                const SRC *src = x + (size_t)S->a.row[c] * stride + base;                                  \
                for (size_t t = 0; t < nv; t++)                                                            \
                    dst[t] = (ROW)src[t];                                                                  \
            }                                                                                              \
            memset(dst + nv, 0, (len - nv) * sizeof *dst);                                                 \
        }                                                                                                  \
        for (; h < M;) {                                                                                   \
            const int two = 4 * h <= M;   /* steps h and 2h at once: half the row writes */                \
            len -= (size_t)(two ? 3 * h : h);                                                              \
            if (last && (two ? 4 * h : 2 * h) >= M)   /* the last level straight where the caller keeps it */ \
                out = last;                                                                                \
            const size_t os = out == last ? lstride : W1;                                                  \
            if (two)                                                                                       \
                for (int g = 0; g < M; g += 4 * h)                                                         \
                    for (int n = 0; n < 4 * h; n++) {                                                      \
                        /* step 2h's row g+n adds step h's rows g+n/2 at t and g+2h+n/2 at t+s; each of    \
                         * those adds two input rows, the second shifted by v */                           \
                        const int s2 = n / 2 + n % 2, v = n / 4 + (n / 2) % 2;                             \
                        const ROW *a = in + (size_t)(g + n / 4) * W1;                                      \
                        const ROW *b = in + (size_t)(g + h + n / 4) * W1 + v;                              \
                        const ROW *c = in + (size_t)(g + 2 * h + n / 4) * W1 + s2;                         \
                        const ROW *e = in + (size_t)(g + 3 * h + n / 4) * W1 + s2 + v;                     \
                        ROW *d = out + (size_t)(g + n) * os;                                               \
                        for (size_t t = 0; t < len; t++)                                                   \
                            d[t] = (ROW)((ROW)(a[t] + b[t]) + (ROW)(c[t] + e[t]));                         \
                    }                                                                                      \
            else                                                                                           \
                for (int g = 0; g < M; g += 2 * h)                                                         \
                    for (int n = 0; n < 2 * h; n++) {                                                      \
                        const ROW *a = in + (size_t)(g + n / 2) * W1;                                      \
                        const ROW *b = in + (size_t)(g + h + n / 2) * W1 + (n / 2 + n % 2);                \
                        ROW *d = out + (size_t)(g + n) * os;                                               \
                        for (size_t t = 0; t < len; t++)                                                   \
                            d[t] = (ROW)(a[t] + b[t]);                                                     \
                    }                                                                                      \
            h *= two ? 4 : 2;                                                                              \
            ROW *sw = in;                                                                                  \
            in = out;                                                                                      \
            out = sw;                                                                                      \
        }                                                                                                  \
        return in;                                                                                         \
    }

/* One work item: output samples [t0, t0 + nt) of the trials of tile T of range r, [T*G->tdm, ...):
 * each (subband, block) tree in turn, its last level added into each of its trials' accumulators (a tile of
 * sums), then the tile to the plane.  SRC, ROW as TREE_BUILD's; ACC: a trial's sums. */
#define TREE_ITEM(NAME, SRC, ROW, ACC)                                                                     \
    TREE_BUILD(NAME##_build, SRC, ROW)                                                                     \
    XC_CPU_CLONES static void NAME(const state *S, const xc_ddjob *job, const xc_treerange *r,             \
                                   const groups *G, size_t T, size_t t0, size_t nt, const void *xv,        \
                                   size_t nsd, size_t stride, void *scratch, xc_planerange *o)             \
    {                                                                                                      \
        const xc_treeplan *tp = &S->a.p.tp;                                                                \
        const int M = tp->m, ns = tp->nsub;                                                                \
        const size_t W1 = S->w1max, i0 = T * G->tdm;                                                       \
        const size_t i1 = i0 + G->tdm < r->ndm ? i0 + G->tdm : r->ndm;                                     \
        ACC *acc = scratch;                                                                                \
        ROW *ta = (ROW *)(acc + G->tdm * G->tt), *tb = ta + (size_t)M * W1;                                \
        memset(acc, 0, (i1 - i0) * nt * sizeof *acc);                                                      \
        for (int s = 0; s < ns; s++)                                                                       \
            for (int j = 0; j < G->nblk; j++) {                                                            \
                const size_t q = (T * (size_t)ns + (size_t)s) * (size_t)G->nblk + (size_t)j;              \
                if (G->off[q + 1] == G->off[q])                                                            \
                    continue;                                                                              \
                const ROW *in = NAME##_build(S, G, q, s, j, t0, nt, xv, nsd, stride, ta, tb, NULL, 0);     \
                for (size_t e = G->off[q]; e < G->off[q + 1]; e++) {                                       \
                    const size_t i = G->idx[e];                                                            \
                    const int32_t n = r->n[i * (size_t)ns + (size_t)s];                                    \
                    const ROW *row = in + (size_t)(M > 1 ? n % (M - 1) : 0) * W1 +                         \
                                     (size_t)(r->b[i * (size_t)ns + (size_t)s] - G->lo[q]);                \
                    ACC *a = acc + (i - i0) * nt;                                                          \
                    for (size_t t = 0; t < nt; t++)                                                        \
                        a[t] += row[t];                                                                    \
                }                                                                                          \
            }                                                                                              \
        for (size_t i = i0; i < i1; i++) {                                                                 \
            const ACC *a = acc + (i - i0) * nt;                                                            \
            XC_CPU_STORE(job, a, o->data + i * o->nsamp + t0, nt, tp->nchans, r->ds);                      \
        }                                                                                                  \
        xc_cpu_sfence();                                                                                   \
    }
#define TREE_ITEM_SAME(NAME, SRC, ACC) TREE_ITEM(NAME, SRC, ACC, ACC)

XC_CPU_ITEM_KINDS(TREE_ITEM_SAME)
/* The tree in uint16 where M channels' sums fit it (8-bit data): twice the lanes of uint32. */
TREE_ITEM(item_u8h, uint8_t, uint16_t, uint32_t)
TREE_ITEM(item_u16h, uint16_t, uint16_t, uint32_t)

/* The work item of TREE_ITEM where the trees are uint16 and the plane takes plain sums (XC_SCALE_SUM): every
 * tree of the tile (of TREE_KEEP_DM x TREE_KEEP_T) is built first, its last butterfly step writing the level it keeps
 * (S->keepmax samples a tile at most), then each trial's ns rows are summed and written to the plane in one pass
 * (xc_cpu_rowsum_u16_f32), as subband's stage 2: no tile of uint32 sums read and written once per subband.  The
 * same exact sums, so the same plane. */
XC_CPU_CLONES static void item_keep(const state *S, const xc_treerange *r, const groups *G, size_t T, size_t t0, size_t nt,
                      const void *xv, int wide, size_t nsd, size_t stride, int group, void *scratch,
                      xc_planerange *o)
{
    const xc_treeplan *tp = &S->a.p.tp;
    const int M = tp->m, ns = tp->nsub;
    const size_t W1 = S->w1max, i0 = T * G->tdm, nq = (size_t)ns * (size_t)G->nblk;
    const size_t i1 = i0 + G->tdm < r->ndm ? i0 + G->tdm : r->ndm;
    uint32_t *acc = scratch;
    uint16_t **at = (uint16_t **)(acc + G->tt);   /* per (s, j) of the tile: its kept rows */
    size_t *wq = (size_t *)(at + nq);                      /* and their length */
    const uint16_t **ptr = (const uint16_t **)(wq + nq);
    uint16_t *ta = (uint16_t *)(ptr + ns), *tb = ta + (size_t)M * W1, *keep = tb + (size_t)M * W1;
    for (size_t qs = 0; qs < nq; qs++) {
        const size_t q = T * nq + qs;
        if (G->off[q + 1] == G->off[q])
            continue;
        const int s = (int)(qs / (size_t)G->nblk), j = (int)(qs % (size_t)G->nblk);
        wq[qs] = nt + (size_t)(G->hi[q] - G->lo[q]);
        at[qs] = keep;
        const uint16_t *in = wide ? item_u16h_build(S, G, q, s, j, t0, nt, xv, nsd, stride, ta, tb, keep, wq[qs])
                                  : item_u8h_build(S, G, q, s, j, t0, nt, xv, nsd, stride, ta, tb, keep, wq[qs]);
        if (in != keep)   /* M = 1: no butterfly step, the level is the loaded channel */
            for (int u = 0; u < M; u++)
                memcpy(keep + (size_t)u * wq[qs], in + (size_t)u * W1, wq[qs] * sizeof *keep);
        keep += (size_t)M * wq[qs];
    }
    for (size_t i = i0; i < i1; i++) {
        for (int s = 0; s < ns; s++) {
            const int32_t n = r->n[i * (size_t)ns + (size_t)s];
            const size_t qs = (size_t)s * (size_t)G->nblk + (size_t)blk_of(M, n);
            ptr[s] = at[qs] + (size_t)(M > 1 ? n % (M - 1) : 0) * wq[qs] +
                     (size_t)(r->b[i * (size_t)ns + (size_t)s] - G->lo[T * nq + qs]);
        }
        xc_cpu_rowsum_u16_f32(ptr, ns, nt, group, acc, o->data + i * o->nsamp + t0);
    }
    xc_cpu_sfence();
}

typedef void (*item_fn)(const state *, const xc_ddjob *, const xc_treerange *, const groups *, size_t, size_t,
                        size_t, const void *, size_t, size_t, void *, xc_planerange *);

static const item_fn items[XC_CPU_NITEMS] = {XC_CPU_ITEM_KINDS(XC_CPU_ITEM_NAME)};

/* Range q from the copy: OpenMP over (tile of trials x time chunk); the uint16 tree where it is exact. */
static void run_range(const void *p, const xc_ddjob *job, int q, const xc_cpu_copy *cp, xc_planerange *o)
{
    const state *S = p;
    const xc_treerange *r = &S->a.p.tp.r[q];
    const groups *G = (const groups *)S->a.ranges + q;
    item_fn item = items[cp->item];
    const unsigned long long top = ((1ull << job->in->nbits) - 1ull) * (unsigned long long)r->ds;
    const int half = (cp->item == XC_CPU_ITEM_U8N || cp->item == XC_CPU_ITEM_U16N) &&
                     top * (unsigned long long)S->a.p.tp.m <= UINT16_MAX;
    if (half)
        item = cp->item == XC_CPU_ITEM_U8N ? item_u8h : item_u16h;
    /* item_keep where the plan made the range's groups for it (range_keep: half and plain sums, with the plan's
     * nbits and convention, which are the job's); group: trees whose sums fit uint16 together in its stage 2 */
    const int keep = G->keep, group = half ? (int)(UINT16_MAX / (top * (unsigned long long)S->a.p.tp.m)) : 0;
    const size_t tc = G->tt, nchunk = (o->nsamp + tc - 1) / tc;
#pragma omp parallel for schedule(dynamic, 1) collapse(2) num_threads(S->a.nthreads)
    for (size_t T = 0; T < G->ntile; T++)
        for (size_t c = 0; c < nchunk; c++) {
            const size_t t0 = c * tc, nt = o->nsamp - t0 < tc ? o->nsamp - t0 : tc;
            void *buf = S->a.buf[omp_get_thread_num()];
            if (keep)
                item_keep(S, r, G, T, t0, nt, cp->x, cp->item == XC_CPU_ITEM_U16N, cp->nsd, cp->stride, group, buf, o);
            else
                item(S, job, r, G, T, t0, nt, cp->x, cp->nsd, cp->stride, buf, o);
        }
}

/* Integer input: the tree references bit for bit at any thread count. */
const xc_dedisperser xc_dd_tree_cpu = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "tree", .tol = {XC_TOL_SIGNAL_LOSS, 0.8},
             .caps = XC_CAP_THREADED | XC_CAP_APPROXIMATE, .data = &xc_ddapprox_tree,
             .desc = "piecewise-linear tree dedispersion (Taylor 1974; Barsdell et al. 2012 s3.1.1), OpenMP over "
                     "time chunks"},
    .plan = st_plan, .execute = xc_cpu_approx_execute, .destroy = st_destroy, .bound = xc_ddapprox_bounds};

const xc_dedisperser xc_dd_tree_padded_cpu = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "tree-padded", .tol = {XC_TOL_SIGNAL_LOSS, 0.8},
             .caps = XC_CAP_THREADED | XC_CAP_APPROXIMATE, .data = &xc_ddapprox_tree_padded,
             .desc = "frequency-padded tree dedispersion (Barsdell et al. 2012 s3.1.2), OpenMP over time chunks"},
    .plan = st_plan, .execute = xc_cpu_approx_execute, .destroy = st_destroy, .bound = xc_ddapprox_bounds};
