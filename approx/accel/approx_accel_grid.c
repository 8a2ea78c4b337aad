/* The power the accel search's interpolation grid loses (xc_approx_accel.h,
 * measurement 2): noiseless signals at random r (and z) correlated at the
 * half-bin grid points (accelsearch's numbetween 2) and at the full-bin ones
 * only, against the theory's |R(dr; dz)|^2 over a grid cell. */
#include "approx/accel/xc_approx_accel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

static double resp2(double d, double z)
{
    double R[2];
    xc_accel_resp_z(d, z, R);
    return R[0] * R[0] + R[1] * R[1];
}

/* 1 - the best corner's |R|^2 at offset (u, v) inside a cell dr x dz. */
static double cell_loss(double u, double v, double dr, double dz)
{
    double best = 0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < (dz > 0 ? 2 : 1); b++)
            best = fmax(best, resp2(u - a * dr, v - b * dz));
    return 1 - best;
}

/* Worst over a 101 x 101 grid of the cell (its centre included), mean over
 * the midpoints of 100 x 100 (dz = 0: the r edge only). */
static void theory(double dr, double dz, double *worst, double *mean)
{
    const int N = 100;
    *worst = 0;
    double sum = 0;
    int nv = dz > 0 ? N : 1;
    for (int i = 0; i <= N; i++)
        for (int j = 0; j <= (dz > 0 ? N : 0); j++)
            *worst = fmax(*worst, cell_loss(dr * i / N, dz * j / N, dr, dz));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < nv; j++)
            sum += cell_loss(dr * (i + 0.5) / N, dz > 0 ? dz * (j + 0.5) / N : 0, dr, dz);
    *mean = sum / ((double)N * nv);
}

xc_status xc_approx_accel_grid(const xc_accel_searcher *s, int zmax, size_t nsig, uint64_t seed, int threads,
                               xc_accel_grid_loss *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    xc_status st = xc_approx_accel_sweep_check(s, zmax, nsig, "accel grid", ">= 10 signals", err);
    if (st)
        return st;
    out->zmax = zmax;
    out->nsig = nsig;
    xc_accel_plan p;
    st = xc_approx_accel_sweep_plan(&p, zmax, XC_ACCEL_HIGHACC, threads, err);
    if (st)
        return st;
    const long base = 100000;
    const size_t n = 2 * (size_t)p.hwmax + 16, nr = 8;
    double *amp = malloc(2 * n * sizeof *amp), *loss[XC_GRID_N];
    float *blk = malloc((size_t)p.ntempl * nr * sizeof *blk);
    unsigned char *want = calloc((size_t)p.ntempl, 1);
    loss[0] = malloc(2 * nsig * sizeof(double));
    loss[1] = loss[0] ? loss[0] + nsig : NULL;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    void *state = NULL;
    if (!amp || !blk || !want || !loss[0] || !rng) {
        st = xc_error_set(err, XC_ENOMEM, "accel grid: out of memory");
        goto done;
    }
    gsl_rng_set(rng, (unsigned long)seed);
    if (s->create && (st = s->create(s, &p, &state, err)))
        goto done;
    for (int c = 0; c < XC_GRID_NCASE && !st; c++) {
        for (size_t k = 0; k < nsig && !st; k++) {
            double r0 = (double)base + gsl_rng_uniform(rng), z0;
            double u = gsl_rng_uniform(rng);
            if (c == XC_GRID_RONLY)   /* an even z in [-zmax + 2, zmax - 2] */
                z0 = -zmax + 2 + 2 * floor(u * (zmax - 1));
            else
                z0 = -zmax + 2 + u * (2 * zmax - 4);
            if (z0 > zmax - 2)
                z0 = zmax - 2;
            long lo = base - p.hwmax - 4;
            for (size_t q = 0; q < n; q++) {
                double R[2];
                xc_accel_resp_z((double)(lo + (long)q) - r0, z0, R);
                amp[2 * q] = R[0];
                amp[2 * q + 1] = R[1];
            }
            int zlo = 2 * (int)floor(z0 / 2);
            memset(want, 0, (size_t)p.ntempl);
            int tlo = (zlo + p.zmax) / XC_ACCEL_DZ;
            want[tlo] = want[tlo + 1] = 1;
            xc_accel_block b = {lo, n, amp, 2 * base - 2, nr, blk, want};
            if ((st = s->plane(s, state, &p, &b, err)))
                break;
            double best[XC_GRID_N] = {0, 0};
            for (int t = tlo; t <= tlo + 1; t++)
                for (size_t j = 0; j < nr; j++) {
                    double v = blk[(size_t)t * nr + j];
                    best[0] = fmax(best[0], v);
                    if (j % 2 == 0)   /* i = 2 base - 2 + j even: integer r */
                        best[1] = fmax(best[1], v);
                }
            /* the matched power at the true r, z with the nearer template's half-width */
            int hw = p.hw[z0 - zlo < 1 ? tlo : tlo + 1];
            double e = 0;
            for (long q = (long)ceil(r0 - hw); q <= (long)floor(r0 + hw); q++)
                e += resp2((double)q - r0, z0);
            for (int g = 0; g < XC_GRID_N; g++)
                loss[g][k] = 1 - best[g] / (e * e);
        }
        for (int g = 0; g < XC_GRID_N && !st; g++) {
            xc_meansd m = xc_meansd_of(loss[g], nsig);
            out->mean[g][c] = m.mean;
            out->se[g][c] = xc_meansd_se(&m);
            out->worst[g][c] = 0;
            for (size_t k = 0; k < nsig; k++)
                out->worst[g][c] = fmax(out->worst[g][c], loss[g][k]);
            theory(g == XC_GRID_HALF ? XC_ACCEL_DR : 1.0, c == XC_GRID_RZ ? XC_ACCEL_DZ : 0, &out->th_worst[g][c],
                   &out->th_mean[g][c]);
        }
    }
    {
        double d = 1 - M_PI / 4, a = sin(M_PI * d) / (M_PI * d);
        out->th_interbin_amp = 1 - a;
        out->th_interbin_power = 1 - a * a;
    }
done:
    if (state && s->destroy)
        s->destroy(s, state);
    xc_accel_plan_free(&p);
    free(amp);
    free(blk);
    free(want);
    free(loss[0]);
    if (rng)
        gsl_rng_free(rng);
    return st;
}
