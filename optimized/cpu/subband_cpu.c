/* The CPU subband dedisperser: the two stages of core/xc_subband.h (PRESTO
 * prepsubband's algorithm; Barsdell et al. 2012, MNRAS 422, 379, section 4),
 * with OpenMP over (group of trials x time chunk) work items.
 *
 * Per gulp and range, the unmasked channels are copied once into the
 * channel-major, time-scrunched array of the direct CPU kernel
 * (xc_cpu_convert).  A work item takes one group j (one nominal DM) and one
 * chunk of output samples [t0, t0 + nt): stage 1 sums each subband's channels,
 * shifted by a(c, j), into a row of nt + max_i b(s, i) samples in the thread's
 * scratch; stage 2 sums the nsub rows, shifted by b(s, i), for every trial i
 * of the group and scales the sums into the plane.  Integer input is summed
 * in uint64 (float in double) in a fixed order, so the plane is the
 * reference's bit for bit on integer input and does not depend on the thread
 * count.  The direct kernel's tiles (cpu_kernels.c) are not reused: they sum
 * float input in float and write scaled floats, while the subband rows must
 * stay exact sums for stage 2.
 *
 * The plan makes the subband plan (delays, groups, bounds) and every
 * thread's scratch once; execute only copies the gulp and adds. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/xc_subband.h"
#include "optimized/cpu/cpu_internal.h"

#define SUB_TILE_T 4096   /* output samples per work item at least */

typedef struct {
    xc_subplan sp;
    int nthreads;
    size_t *chunk;        /* per range: output samples per work item */
    size_t scratch;       /* elements per thread: nsub rows + one accumulator row */
    void **buf;           /* nthreads scratch blocks of 8-byte elements */
    int *chans;           /* unmasked channels, in order */
    int *pos;             /* per channel: its row in the copy, -1 if masked */
    int m;
} state;

static void st_destroy(void *p)
{
    state *s = p;
    if (!s)
        return;
    for (int i = 0; s->buf && i < s->nthreads; i++)
        free(s->buf[i]);
    free(s->buf);
    free(s->chunk);
    free(s->chans);
    free(s->pos);
    xc_subplan_free(&s->sp);
    free(s);
}

static xc_status st_plan(const xc_ddjob *proto, void **out, xc_error *err)
{
    if (proto->opts.threads < 0 || proto->opts.threads > 4096)
        return xc_error_set(err, XC_EINVAL, "subband: threads: %d must be 0 (default) or 1..4096",
                            proto->opts.threads);
    state *s = calloc(1, sizeof *s);
    if (!s)
        return xc_error_set(err, XC_ENOMEM, "subband: out of memory");
    xc_status st = xc_subplan_make(&s->sp, proto, err);
    if (st) {
        free(s);
        return st;
    }
    const int nc = proto->geom.nchans, nr = proto->plan->nranges, ns = s->sp.nsub;
    s->nthreads = proto->opts.threads > 0 ? proto->opts.threads : omp_get_max_threads();
    s->chunk = calloc((size_t)nr, sizeof *s->chunk);
    s->buf = calloc((size_t)s->nthreads, sizeof *s->buf);
    s->chans = malloc((size_t)nc * sizeof *s->chans);
    s->pos = malloc((size_t)nc * sizeof *s->pos);
    if (!s->chunk || !s->buf || !s->chans || !s->pos) {
        st_destroy(s);
        return xc_error_set(err, XC_ENOMEM, "subband: out of memory");
    }
    for (int c = 0; c < nc; c++) {
        int keep = !proto->killmask || proto->killmask[c];
        s->pos[c] = keep ? s->m : -1;
        if (keep)
            s->chans[s->m++] = c;
    }
    /* A chunk at least twice the largest stage-2 delay, so the rows stage 1
     * makes beyond the chunk (shared with the next) cost at most half again. */
    for (int k = 0; k < nr; k++) {
        size_t maxb = 0;
        for (int j = 0; j < s->sp.r[k].ngroups; j++)
            maxb = (size_t)s->sp.r[k].maxb[j] > maxb ? (size_t)s->sp.r[k].maxb[j] : maxb;
        s->chunk[k] = 2 * maxb > SUB_TILE_T ? 2 * maxb : SUB_TILE_T;
        size_t need = (size_t)ns * (s->chunk[k] + maxb) + s->chunk[k];
        s->scratch = need > s->scratch ? need : s->scratch;
    }
    for (int i = 0; i < s->nthreads; i++)
        if (!(s->buf[i] = malloc(s->scratch * 8))) {
            size_t n = s->scratch;
            st_destroy(s);
            return xc_error_set(err, XC_ENOMEM, "subband: out of memory for %zu scratch samples per thread", n);
        }
    *out = s;
    return XC_OK;
}

/* One work item: group j, output samples [t0, t0 + nt).  SRC: the copy's
 * element type; ACC: the sums' (uint64_t or double). */
#define SUB_ITEM(NAME, SRC, ACC)                                                                        \
    static void NAME(const state *S, const xc_ddjob *job, const xc_subrange *r, size_t j, size_t t0,    \
                     size_t nt, const SRC *x, size_t stride, ACC *scr, xc_planerange *o)               \
    {                                                                                                   \
        const int ns = S->sp.nsub;                                                                      \
        const int32_t *a = r->a + j * (size_t)S->sp.nchans;                                             \
        const size_t rowlen = nt + (size_t)r->maxb[j];                                                  \
        ACC *acc = scr + (size_t)ns * rowlen;                                                           \
        for (int s = 0; s < ns; s++) {                                                                  \
            size_t len = 0;                                                                             \
            for (size_t i = r->first[j]; i < r->first[j + 1]; i++)                                      \
                if ((size_t)r->b[i * (size_t)ns + (size_t)s] > len)                                     \
                    len = (size_t)r->b[i * (size_t)ns + (size_t)s];                                     \
            len += nt;                                                                                  \
            ACC *row = scr + (size_t)s * rowlen;                                                        \
            memset(row, 0, len * sizeof *row);                                                          \
            for (int c = S->sp.sub_first[s]; c < S->sp.sub_first[s + 1]; c++) {                        \
                if (S->pos[c] < 0)                                                                      \
                    continue;                                                                           \
                const SRC *src = x + (size_t)S->pos[c] * stride + t0 + (size_t)a[c];                    \
                for (size_t u = 0; u < len; u++)                                                        \
                    row[u] += (ACC)src[u];                                                              \
            }                                                                                           \
        }                                                                                               \
        for (size_t i = r->first[j]; i < r->first[j + 1]; i++) {                                        \
            const int32_t *b = r->b + i * (size_t)ns;                                                   \
            memset(acc, 0, nt * sizeof *acc);                                                           \
            for (int s = 0; s < ns; s++) {                                                              \
                const ACC *row = scr + (size_t)s * rowlen + (size_t)b[s];                               \
                for (size_t t = 0; t < nt; t++)                                                         \
                    acc[t] += row[t];                                                                   \
            }                                                                                           \
            float *dst = o->data + i * o->nsamp + t0;                                                   \
            for (size_t t = 0; t < nt; t++)                                                             \
                dst[t] = xc_scale_real(job->conv, (double)acc[t], S->sp.nchans, r->ds, job->in->nbits); \
        }                                                                                               \
    }

SUB_ITEM(item_u32, uint32_t, uint64_t)
SUB_ITEM(item_u64, uint64_t, uint64_t)
SUB_ITEM(item_f32, float, double)

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

static xc_status st_execute(void *p, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    const state *S = p;
    const xc_block *in = job->in;
    xc_status st = XC_OK;
    for (int k = 0; k < job->plan->nranges && !st; k++) {
        const xc_subrange *r = &S->sp.r[k];
        xc_planerange *o = &out->r[k];
        if (o->ndm != r->ndm || o->nsamp != job->nout / (size_t)r->ds)
            return xc_error_set(err, XC_EINVAL, "subband: plane range %d has the wrong shape", k);
        if (!o->nsamp || !r->ndm)
            continue;
        const int ds = r->ds;
        xc_cpu_type type = in->nbits == 32 ? XC_CPU_F32
                           : ((1ull << in->nbits) - 1ull) * (unsigned long long)ds <= UINT32_MAX ? XC_CPU_U32
                                                                                                 : XC_CPU_U64;
        size_t esz = type == XC_CPU_U64 ? 8 : 4;
        const size_t nsd = in->nsamp / (size_t)ds, stride = round_up(nsd + 1, 16);
        void *x = S->m ? malloc((size_t)S->m * stride * esz) : NULL;
        if (S->m && !x)
            return xc_error_set(err, XC_ENOMEM, "subband: out of memory for the %d x %zu channel-major copy", S->m,
                                stride);
        if (S->m)
            xc_cpu_convert(in, S->chans, S->m, ds, nsd, stride, type, x, S->nthreads);
        const size_t tc = S->chunk[k], nchunk = (o->nsamp + tc - 1) / tc, ng = (size_t)r->ngroups;
#pragma omp parallel for schedule(dynamic, 1) collapse(2) num_threads(S->nthreads)
        for (size_t j = 0; j < ng; j++)
            for (size_t q = 0; q < nchunk; q++) {
                const size_t t0 = q * tc, nt = o->nsamp - t0 < tc ? o->nsamp - t0 : tc;
                void *scr = S->buf[omp_get_thread_num()];
                if (type == XC_CPU_F32)
                    item_f32(S, job, r, j, t0, nt, x, stride, scr, o);
                else if (type == XC_CPU_U32)
                    item_u32(S, job, r, j, t0, nt, x, stride, scr, o);
                else
                    item_u64(S, job, r, j, t0, nt, x, stride, scr, o);
            }
        free(x);
    }
    return st;
}

/* Integer input: the subband reference bit for bit at any thread count. */
const xc_dedisperser xc_dd_subband_cpu = {
    {XC_FAMILY_DEDISPERSE, "subband",
     "two-stage subband dedispersion (PRESTO prepsubband), OpenMP over nominal DMs x time chunks",
     {XC_TOL_SIGNAL_LOSS, 0.8}, XC_CAP_THREADED | XC_CAP_APPROXIMATE, NULL},
    st_plan, st_execute, st_destroy, NULL};
