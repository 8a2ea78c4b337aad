/* The GPU subband and tree dedispersers' plans (dd_approx_state.h): core's
 * plan (core/dedisp/approx/xc_subband.h, core/dedisp/approx/xc_tree.h) turned into the host tables the
 * kernels index: per DM range the groups (subband) or (subband, diagonal
 * block) pairs (tree), and per trial and subband the stage-1 row and the
 * shift into it.  The device copies are made by the first execution
 * (dd_approx_gpu.cu). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/dd_approx.h"
#include "optimized/gpu/dd_approx_state.h"

namespace xc_ap {

/* The file's helpers are static, not in an anonymous namespace: the Makefile
 * compiles the dd_approx_*.cu files as one translation unit, where
 * dd_approx_gpu.cu's `using namespace xc_ap` would make an anonymous
 * namespace in xc_ap ambiguous with the global one that holds
 * dd_approx_kernels.cu's kernels (the host functions nvcc writes to launch them name both alike). */
static void range_free(ap_range *r)
{
    void *host[] = {r->h_lo, r->qfirst, r->h_qs, r->h_qj, r->h_qlo, r->h_rowid, r->h_shift, r->h_first, r->h_gspan};
    for (size_t i = 0; i < sizeof host / sizeof *host; i++)
        free(host[i]);
    cudaFree(r->d_a);
    cudaFree(r->d_lo);
    cudaFree(r->d_first);
    cudaFree(r->d_gspan);
    cudaFree(r->d_qs);
    cudaFree(r->d_qj);
    cudaFree(r->d_qlo);
    cudaFree(r->d_rowid);
    cudaFree(r->d_shift);
    tg_free(&r->tg);
}

void state_free(xc_gpu_apstate *s)
{
    if (!s)
        return;
    for (int k = 0; s->r && k < s->nranges; k++)
        range_free(&s->r[k]);
    free(s->r);
    free(s->h_chan);
    free(s->h_row);
    free(s->h_prow);
    void *dev[] = {s->d_chan, s->d_row, s->d_prow, s->d_subfirst, s->d_raw, s->d_Y, s->d_buf, s->d_buf2, s->d_acc,
                   s->d_out};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        cudaFree(dev[i]);
    if (s->have_ev) {
        cudaEventDestroy(s->e0);
        cudaEventDestroy(s->e1);
    }
    if (s->have_plan) {
        if (s->kind == AK_SUBBAND)
            xc_subplan_free(&s->sp);
        else
            xc_treeplan_free(&s->tp);
    }
    free(s);
}

/* Host tables of subband range k. */
static xc_status sub_tables(xc_gpu_apstate *S, int k)
{
    const xc_subrange *sr = &S->sp.r[k];
    ap_range *r = &S->r[k];
    const int ns = S->nsub;
    r->ds = sr->ds;
    r->ndm = sr->ndm;
    r->ngroups = sr->ngroups;
    r->first = sr->first;
    r->h_lo = (int64_t *)malloc(((size_t)sr->ngroups * (size_t)ns + 1) * sizeof *r->h_lo);
    r->h_rowid = (int32_t *)malloc((sr->ndm * (size_t)ns + 1) * sizeof *r->h_rowid);
    r->h_shift = (int32_t *)malloc((sr->ndm * (size_t)ns + 1) * sizeof *r->h_shift);
    r->h_first = (unsigned long long *)malloc(((size_t)sr->ngroups + 1) * sizeof *r->h_first);
    r->h_gspan = (int32_t *)calloc((size_t)sr->ngroups + 1, sizeof *r->h_gspan);
    if (!r->h_lo || !r->h_rowid || !r->h_shift || !r->h_first || !r->h_gspan)
        return XC_ENOMEM;
    for (int j = 0; j <= sr->ngroups; j++)
        r->h_first[j] = sr->first[j];
    if ((int64_t)sr->ngroups * ns > INT32_MAX)
        return XC_EINVAL;
    for (int j = 0; j < sr->ngroups; j++)
        for (int s = 0; s < ns; s++) {
            int32_t lo = INT32_MAX, hi = 0;
            for (size_t i = sr->first[j]; i < sr->first[j + 1]; i++) {
                const int32_t b = sr->b[i * (size_t)ns + (size_t)s];
                lo = b < lo ? b : lo;
                hi = b > hi ? b : hi;
            }
            if (sr->first[j + 1] == sr->first[j])
                lo = hi = 0;
            r->h_lo[(size_t)j * (size_t)ns + (size_t)s] = lo;
            r->span = (size_t)(hi - lo) > r->span ? (size_t)(hi - lo) : r->span;
            r->h_gspan[j] = hi - lo > r->h_gspan[j] ? hi - lo : r->h_gspan[j];
            for (size_t i = sr->first[j]; i < sr->first[j + 1]; i++) {
                r->h_rowid[i * (size_t)ns + (size_t)s] = j * ns + s;
                r->h_shift[i * (size_t)ns + (size_t)s] = sr->b[i * (size_t)ns + (size_t)s] - lo;
            }
        }
    /* the shared-memory stage 1 stages, per channel, the words that any
     * AP_RUN consecutive groups read: their offsets' spread */
    int64_t dwin = 0;
    for (int j = 0; j < sr->ngroups; j++) {
        const int jn = sr->ngroups - j < AP_RUN ? sr->ngroups : j + AP_RUN;
        for (int s = 0; s < ns; s++)
            for (int c = S->sp.sub_first[s]; c < S->sp.sub_first[s + 1]; c++) {
                int64_t mn = INT64_MAX, mx = INT64_MIN;
                for (int g = j; g < jn; g++) {
                    const int64_t off = r->h_lo[(size_t)g * (size_t)ns + (size_t)s] + sr->a[(size_t)g * (size_t)S->nchans + (size_t)c];
                    mn = off < mn ? off : mn;
                    mx = off > mx ? off : mx;
                }
                dwin = mx - mn > dwin ? mx - mn : dwin;
            }
    }
    r->dwin = dwin > INT32_MAX / 4 ? INT32_MAX / 4 : (int32_t)dwin;
    return XC_OK;
}

static int blk_of(int M, int32_t n) { return M > 1 ? n / (M - 1) : 0; }

/* Host tables of tree range k. */
static xc_status tree_tables(xc_gpu_apstate *S, int k)
{
    const xc_treerange *tr = &S->tp.r[k];
    ap_range *r = &S->r[k];
    const int ns = S->nsub, M = S->M, nblk = tr->jmax + 1;
    r->ds = tr->ds;
    r->ndm = tr->ndm;
    const size_t nsj = (size_t)ns * (size_t)nblk;
    int32_t *lo = (int32_t *)malloc((nsj + 1) * sizeof *lo), *hi = (int32_t *)malloc((nsj + 1) * sizeof *hi);
    int *qid = (int *)malloc((nsj + 1) * sizeof *qid);
    r->qfirst = (int *)calloc((size_t)ns + 1, sizeof *r->qfirst);
    r->h_rowid = (int32_t *)malloc((tr->ndm * (size_t)ns + 1) * sizeof *r->h_rowid);
    r->h_shift = (int32_t *)malloc((tr->ndm * (size_t)ns + 1) * sizeof *r->h_shift);
    xc_status st = XC_OK;
    if (!lo || !hi || !qid || !r->qfirst || !r->h_rowid || !r->h_shift) {
        st = XC_ENOMEM;
        goto done;
    }
    for (size_t q = 0; q < nsj; q++) {
        lo[q] = INT32_MAX;
        hi[q] = -1;
    }
    for (size_t i = 0; i < tr->ndm; i++)
        for (int s = 0; s < ns; s++) {
            const size_t q = (size_t)s * (size_t)nblk + (size_t)blk_of(M, tr->n[i * (size_t)ns + (size_t)s]);
            const int32_t b = tr->b[i * (size_t)ns + (size_t)s];
            lo[q] = b < lo[q] ? b : lo[q];
            hi[q] = b > hi[q] ? b : hi[q];
        }
    r->nq = 0;
    for (size_t q = 0; q < nsj; q++)
        r->nq += hi[q] >= 0;
    if ((int64_t)r->nq * M > INT32_MAX) {
        st = XC_EINVAL;
        goto done;
    }
    r->h_qs = (int *)malloc(((size_t)r->nq + 1) * sizeof *r->h_qs);
    r->h_qj = (int *)malloc(((size_t)r->nq + 1) * sizeof *r->h_qj);
    r->h_qlo = (int64_t *)malloc(((size_t)r->nq + 1) * sizeof *r->h_qlo);
    if (!r->h_qs || !r->h_qj || !r->h_qlo) {
        st = XC_ENOMEM;
        goto done;
    }
    {
        int nq = 0;
        for (int s = 0; s < ns; s++) {
            r->qfirst[s] = nq;
            for (int j = 0; j < nblk; j++) {
                const size_t q = (size_t)s * (size_t)nblk + (size_t)j;
                qid[q] = -1;
                if (hi[q] < 0)
                    continue;
                qid[q] = nq;
                r->h_qs[nq] = s;
                r->h_qj[nq] = j;
                r->h_qlo[nq] = lo[q];
                r->span = (size_t)(hi[q] - lo[q]) > r->span ? (size_t)(hi[q] - lo[q]) : r->span;
                nq++;
            }
        }
        r->qfirst[ns] = nq;
    }
    for (size_t i = 0; i < tr->ndm; i++)
        for (int s = 0; s < ns; s++) {
            const int32_t n = tr->n[i * (size_t)ns + (size_t)s];
            const size_t q = (size_t)s * (size_t)nblk + (size_t)blk_of(M, n);
            r->h_rowid[i * (size_t)ns + (size_t)s] = qid[q] * M + (M > 1 ? n % (M - 1) : 0);
            r->h_shift[i * (size_t)ns + (size_t)s] = tr->b[i * (size_t)ns + (size_t)s] - lo[q];
        }
    st = tg_make(&r->tg, r, ns);
done:
    free(lo);
    free(hi);
    free(qid);
    return st;
}

xc_status plan_kind(const xc_ddjob *proto, void **out, int kind, xc_error *err)
{
    static const char *const names[] = {"subband-gpu", "tree-gpu", "tree-padded-gpu"};
    xc_gpu_apstate *S = (xc_gpu_apstate *)calloc(1, sizeof *S);
    if (!S)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", names[kind]);
    S->kind = kind;
    S->name = names[kind];
    xc_status st = kind == AK_SUBBAND ? xc_subplan_make(&S->sp, proto, err)
                                      : xc_treeplan_make(&S->tp, proto, kind == AK_TREE_PAD ? XC_TREE_PADDED
                                                                                             : XC_TREE_PIECEWISE,
                                                         err);
    if (st) {
        free(S);
        return st;
    }
    S->have_plan = 1;
    S->nchans = proto->geom.nchans;
    S->nranges = proto->plan->nranges;
    S->nsub = kind == AK_SUBBAND ? S->sp.nsub : S->tp.nsub;
    S->M = kind == AK_SUBBAND ? 1 : S->tp.m;
    S->npos = kind == AK_SUBBAND ? 0 : S->tp.npos;
    S->r = (ap_range *)calloc((size_t)S->nranges + 1, sizeof *S->r);
    S->h_chan = (int *)malloc((size_t)S->nchans * sizeof *S->h_chan);
    S->h_row = (int *)malloc((size_t)S->nchans * sizeof *S->h_row);
    S->h_prow = (int *)malloc(((size_t)S->npos + 1) * sizeof *S->h_prow);
    st = !S->r || !S->h_chan || !S->h_row || !S->h_prow ? XC_ENOMEM : XC_OK;
    for (int c = 0; !st && c < S->nchans; c++) {
        const int keep = !proto->killmask || proto->killmask[c];
        S->h_row[c] = keep ? S->nuse : -1;
        if (keep)
            S->h_chan[S->nuse++] = c;
    }
    for (int p = 0; !st && p < S->npos; p++)
        S->h_prow[p] = S->tp.chan[p] >= 0 ? S->h_row[S->tp.chan[p]] : -1;
    for (int k = 0; !st && k < S->nranges; k++)
        st = kind == AK_SUBBAND ? sub_tables(S, k) : tree_tables(S, k);
    if (st) {
        state_free(S);
        return st == XC_EINVAL
                   ? xc_error_set(err, XC_EINVAL, "%s: the plan has more stage-1 rows than the kernels index (2^31)",
                                  names[kind])
                   : xc_error_set(err, XC_ENOMEM, "%s: out of memory for the plan's tables", names[kind]);
    }
    *out = S;
    return XC_OK;
}

} // namespace xc_ap
