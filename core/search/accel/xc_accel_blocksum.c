/* One top block's harmonic sums, item by item (see xc_accel_blocksum.h). */
#include <stdlib.h>

#include "core/search/accel/xc_accel_blocksum.h"
#include "core/search/stats/xc_signif.h"

void xc_accel_blocksum_init(xc_accel_blocksum *b, const xc_accel_plan *p, int mode, long i0, size_t nr,
                            size_t nchunk, const int32_t *rind, xc_accel_peaks *rowpk)
{
    b->p = p;
    b->mode = mode;
    b->i0 = i0;
    b->nr = nr;
    b->ch = (nr + nchunk - 1) / nchunk;
    b->nch = b->ch ? (nr + b->ch - 1) / b->ch : 0;
    b->rind = rind;
    b->rowpk = rowpk;
}

int xc_accel_blocksum_item(const xc_accel_blocksum *b, int t, size_t c, const float *frow, const float *const *sub,
                           double *row)
{
    const xc_accel_plan *p = b->p;
    const int one = p->nstages == 1, iw = t / p->numz, iz = t % p->numz;
    const size_t j0 = c * b->ch, m = j0 + b->ch < b->nr ? b->ch : b->nr - j0;
    xc_accel_peaks *out = &b->rowpk[(size_t)t * b->nch + c];
    if (!one)
        xc_accel_row_load(row, frow, m);
    for (int s = 0; s < p->nstages; s++) {
        const int H = 1 << s;
        double thr = p->thr[s];
        /* stage H adds the odd harmonics h/H (the even ones came with the
         * earlier stages) at accelsearch's rounded sub-harmonic r, z, w;
         * accelsearch adds float powers into a float plane.  Out of core
         * every index lies inside the sub-harmonic's block. */
        const float *sv[XC_ACCEL_MAXHARM];
        const int32_t *rv[XC_ACCEL_MAXHARM];
        const int ns = xc_accel_stage_rows(s, sub, b->rind, b->nr, j0, sv, rv);
        if (s > 0 && !xc_accel_stage_add(row, sv, rv, ns, m, b->mode, thr))
            continue;   /* no sum above the threshold */
        for (size_t j = one ? xc_accel_rowf_above(frow, 0, m, thr) : xc_accel_row_above(row, 0, m, thr); j < m;
             j = one ? xc_accel_rowf_above(frow, j + 1, m, thr) : xc_accel_row_above(row, j + 1, m, thr)) {
            double v = one ? (double)frow[j] : row[j];
            double sig = xc_candidate_sigma(2 * v, 2.0 * H, p->ntrials[s], NULL);
            if (!(sig > p->o.sigma))
                continue;
            xc_accel_peak pt = {0.5 * (double)(b->i0 + (long)(j0 + j)) / H, (double)xc_accel_z_of(p, iz) / H,
                                (double)xc_accel_w_of(p, iw) / H, H, v, sig};
            xc_error e1;
            if (xc_accel_peaks_push(out, &pt, &e1))
                return 1;
        }
    }
    return 0;
}

xc_status xc_accel_blocksum_hand(const xc_accel_blocksum *b, int presto, xc_accel_peaks *pk, xc_error *err)
{
    const size_t nitem = (size_t)b->p->ntempl * b->nch;
    size_t *cur = calloc(nitem ? nitem : 1, sizeof *cur);
    xc_status st = cur ? XC_OK : xc_error_set(err, XC_ENOMEM, "accel: out of memory");
    xc_accel_peaks *rp = b->rowpk;
    for (int s = 0; s < b->p->nstages && !st; s++)
        for (size_t it = 0; it < nitem && !st; it++)
            for (; cur[it] < rp[it].n && rp[it].p[cur[it]].numharm == (1 << s) && !st; cur[it]++)
                st = presto ? xc_accel_insert_presto(pk, &rp[it].p[cur[it]], err)
                            : xc_accel_peaks_push(pk, &rp[it].p[cur[it]], err);
    for (size_t it = 0; it < nitem; it++)
        rp[it].n = 0;
    free(cur);
    return st;
}
