/* The power accelsearch's template half-widths lose (xc_approx_accel.h,
 * measurement 3): noiseless signals on the grid matched with LOWACC and
 * HIGHACC templates by a searcher's plane stage, against a long template. */
#include "approx/accel/xc_approx_accel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_psi.h>

#include "core/base/xc_grow.h"

#define LONGHW 1000

static int zbin(int z, int zmax)
{
    if (z == 0)
        return 0;
    int b = 1 + (abs(z) - 1) * (XC_TRUNC_NZ - 1) / zmax;
    return b > XC_TRUNC_NZ - 1 ? XC_TRUNC_NZ - 1 : b;
}

xc_status xc_approx_accel_trunc(const xc_accel_searcher *s, int zmax, size_t nsig, uint64_t seed, int threads,
                                xc_accel_trunc_loss *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    xc_status st = xc_approx_accel_sweep_check(s, zmax, nsig, "accel truncation", ">= 10", err);
    if (st)
        return st;
    out->zmax = zmax;
    out->nsig = nsig;
    out->longhw = LONGHW;
    out->zedge[0] = 0;
    for (int b = 1; b <= XC_TRUNC_NZ; b++)
        out->zedge[b] = (double)zmax * (b - 1) / (XC_TRUNC_NZ - 1);
    xc_accel_plan p[2];
    memset(p, 0, sizeof p);
    void *state[2] = {NULL, NULL};
    st = xc_approx_accel_sweep_plan(&p[0], zmax, XC_ACCEL_LOWACC, threads, err);
    if (!st)
        st = xc_approx_accel_sweep_plan(&p[1], zmax, XC_ACCEL_HIGHACC, threads, err);
    for (int a = 0; a < 2 && !st; a++)
        if (s->create)
            st = s->create(s, &p[a], &state[a], err);
    const long base = 100000, L = LONGHW + zmax / 2 + 2;
    const size_t n = 2 * (size_t)L + 8;
    double *amp = malloc(2 * n * sizeof *amp), sum[2] = {0, 0};
    float *blk = malloc((size_t)p[0].ntempl * 2 * sizeof *blk);
    unsigned char *want = calloc((size_t)p[0].ntempl, 1);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!st && (!amp || !blk || !want || !rng))
        st = xc_error_set(err, XC_ENOMEM, "accel truncation: out of memory");
    if (rng)
        gsl_rng_set(rng, (unsigned long)seed);
    for (size_t k = 0; k < nsig && !st; k++) {
        long i0 = 2 * base + (long)gsl_rng_uniform_int(rng, 2);
        int t = (int)gsl_rng_uniform_int(rng, (unsigned long)p[0].numz), z0 = xc_accel_z_of(&p[0], t);
        double r0 = 0.5 * (double)i0;
        long lo = base - L - 2;
        for (size_t q = 0; q < n; q++) {
            double R[2];
            xc_accel_resp_z((double)(lo + (long)q) - r0, z0, R);
            amp[2 * q] = R[0];
            amp[2 * q + 1] = R[1];
        }
        /* the long template's matched power: the energy within LONGHW bins beyond the drift, squared */
        int hwl = LONGHW + abs(z0) / 2;
        double e = 0;
        for (size_t q = 0; q < n; q++)
            if (fabs((double)(lo + (long)q) - r0) <= hwl)
                e += amp[2 * q] * amp[2 * q] + amp[2 * q + 1] * amp[2 * q + 1];
        memset(want, 0, (size_t)p[0].ntempl);
        want[t] = 1;
        for (int a = 0; a < 2 && !st; a++) {
            xc_accel_block b = {lo, n, amp, i0, 1, blk, want};
            if ((st = s->plane(s, state[a], &p[a], &b, err)))
                break;
            double loss = 1 - blk[t] / (e * e);
            sum[a] += loss;
            out->worst[a] = fmax(out->worst[a], loss);
            int zb = zbin(z0, zmax);
            out->worst_z[a][zb] = fmax(out->worst_z[a][zb], loss);
            out->count_z[zb] += a == 0;
        }
    }
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < XC_TRUNC_NZ; b++)
            if (!out->count_z[b])
                out->worst_z[a][b] = NAN;
        out->mean[a] = sum[a] / (double)nsig;
        double em = 2 / (M_PI * M_PI) * gsl_sf_psi_1(XC_ACCEL_NUMFINTBINS * (a ? 3 : 1) + 0.5);
        out->th_z0[a] = 1 - (1 - em) * (1 - em);
    }
    for (int a = 0; a < 2; a++) {
        if (state[a] && s->destroy)
            s->destroy(s, state[a]);
        xc_accel_plan_free(&p[a]);
    }
    xc_free_each(3, amp, blk, want);
    if (rng)
        gsl_rng_free(rng);
    return st;
}
