/* The reference single-pulse searcher: the semantics of core/sp/xc_spsearch.h
 * as the obvious loops in double: core's row statistics (medians by
 * sorting, xc_sp_row_stats), every box summed directly, one row after
 * another. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reference/xc_sp_ref.h"

static xc_status ref_execute(const xc_spsearcher *self, void *state, const xc_spconf *c, const xc_spplane *pl,
                             xc_spdets *out, xc_error *err)
{
    (void)self;
    (void)state;
    size_t n = pl->nsamp;
    if (pl->device)
        return xc_error_set(err, XC_EINVAL, "reference: the plane is in device memory");
    if (!n)
        return XC_OK;
    double *tmp = malloc(n * sizeof *tmp), *m = malloc(xc_sp_nblocks(n, c->block) * sizeof *m);
    xc_status st = tmp && m ? XC_OK : xc_error_set(err, XC_ENOMEM, "reference: out of memory for %zu samples", n);
    for (size_t r = 0; !st && r < pl->nrows; r++) {
        const float *x = pl->data + r * pl->stride;
        double s;
        xc_sp_row_stats(x, n, c, m, &s, tmp);
        xc_sp_given_stats(pl, c, r, m, &s);
        if (!(s > 0))
            continue;
        for (int k = 0; !st && k < c->nwidths; k++) {
            size_t w = (size_t)c->widths[k];
            int in_run = 0;
            xc_spdet d = {0};
            for (size_t t = 0; !st && t + w <= n; t++) {
                double S = 0;
                for (size_t i = t; i < t + w; i++)
                    S += (double)x[i];
                double B = xc_sp_box_baseline(m, n, c->block, t, w);
                double snr = (S - B) / (s * sqrt((double)w));
                if (snr >= c->threshold) {
                    if (!in_run)
                        d = (xc_spdet){snr, (int64_t)t, (int32_t)w, k, (int32_t)r, (int64_t)t, 0};
                    else if (snr > d.snr) {
                        d.snr = snr;
                        d.sample = (int64_t)t;
                    }
                    in_run = 1;
                    d.end = (int64_t)(t + w);
                } else if (in_run) {
                    in_run = 0;
                    st = xc_spdets_add(out, &d, err);
                }
            }
            if (!st && in_run)
                st = xc_spdets_add(out, &d, err);
        }
    }
    free(tmp);
    free(m);
    return st;
}

const xc_spsearcher xc_sp_reference = {
    .impl = {.family = XC_FAMILY_SINGLEPULSE, .name = "reference", .tol = {XC_TOL_EXACT, 0}, .caps = XC_CAP_REFERENCE,
             .desc = "boxcar single-pulse search: medians by sorting, every box summed directly in double"},
    .execute = ref_execute,
    .row_stats = 1};
