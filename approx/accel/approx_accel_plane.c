/* Rows of the accel plane over a range of r, made through a searcher's
 * plane stage in blocks (xc_approx_accel.h). */
#include "approx/accel/xc_approx_accel.h"

#include <stdlib.h>
#include <string.h>

/* Half-bins per block: the block's output holds every template's row. */
#define BLOCK 16384

xc_status xc_approx_accel_plane(const xc_accel_searcher *s, void *state, const xc_accel_plan *p, const double *amp,
                                size_t nbins, long i0, size_t nr, const unsigned char *want, float *out, xc_error *err)
{
    if (!s || !s->plane)
        return xc_error_set(err, XC_EINVAL, "accel plane: no searcher (or one without a plane stage)");
    size_t cap = (size_t)BLOCK / 2 + 2 * (size_t)p->hwmax + 8;
    double *a = malloc(2 * cap * sizeof *a);
    float *blk = malloc((size_t)p->ntempl * BLOCK * sizeof *blk);
    xc_status st = a && blk ? XC_OK : xc_error_set(err, XC_ENOMEM, "accel plane: out of memory (%d rows)", p->ntempl);
    for (size_t c0 = 0; c0 < nr && !st; c0 += BLOCK) {
        size_t m = nr - c0 < BLOCK ? nr - c0 : BLOCK;
        long ib = i0 + (long)c0;
        /* every bin within hwmax of the block's r, zero outside the spectrum */
        long klo = (ib >= 0 ? ib / 2 : -((-ib + 1) / 2)) - p->hwmax - 2;
        size_t n = m / 2 + 2 * (size_t)p->hwmax + 6;
        for (size_t k = 0; k < n; k++) {
            long kk = klo + (long)k;
            int in = kk >= 0 && (size_t)kk < nbins;
            a[2 * k] = in ? amp[2 * kk] : 0;
            a[2 * k + 1] = in ? amp[2 * kk + 1] : 0;
        }
        xc_accel_block b = {klo, n, a, ib, m, blk, want};
        if ((st = s->plane(s, state, p, &b, err)))
            break;
        size_t row = 0;
        for (int t = 0; t < p->ntempl; t++) {
            if (want && !want[t])
                continue;
            memcpy(out + row * nr + c0, blk + (size_t)t * m, m * sizeof *out);
            row++;
        }
    }
    free(a);
    free(blk);
    return st;
}

xc_status xc_approx_accel_plan1(xc_accel_plan *p, size_t nbins, int zmax, int wmax, int threads, size_t normwidth,
                                xc_error *err)
{
    xc_accel_opts ao;
    xc_accel_opts_default(&ao);
    ao.zmax = zmax;
    ao.wmax = wmax;
    ao.numharm = 1;
    ao.rlo = 1;
    ao.rhi = (double)nbins - 1;
    ao.threads = threads;
    if (normwidth)
        ao.normwidth = normwidth;
    return xc_accel_plan_make(p, &ao, nbins, 1.0, err);
}

xc_status xc_approx_accel_sweep_plan(xc_accel_plan *p, int zmax, xc_accel_acc acc, int threads, xc_error *err)
{
    xc_accel_opts ao;
    xc_accel_opts_default(&ao);
    ao.zmax = zmax;
    ao.numharm = 1;
    ao.acc = acc;
    ao.rlo = 1;
    ao.rhi = 1 << 20;
    ao.threads = threads;
    return xc_accel_plan_make(p, &ao, (size_t)1 << 20, 1.0, err);
}

xc_status xc_approx_accel_sweep_check(const xc_accel_searcher *s, int zmax, size_t nsig, const char *what,
                                      const char *need, xc_error *err)
{
    if (!s || !s->plane)
        return xc_error_set(err, XC_EINVAL, "%s: no searcher given", what);
    if (zmax < 4 || nsig < 10)
        return xc_error_set(err, XC_EINVAL, "%s: zmax %d, %zu signals (need zmax >= 4, %s)", what, zmax, nsig, need);
    return XC_OK;
}
