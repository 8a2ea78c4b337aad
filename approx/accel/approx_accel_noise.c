/* The accel search's statistics on noise-only spectra (xc_approx_accel.h,
 * measurement 1): plane powers and harmonic sums at independent points
 * against chi-square with 2H dof, and single-trial false alarms against
 * binomial bounds. */
#include "approx/accel/xc_approx_accel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "approx/pulscan/xc_approx_noise.h"

xc_status xc_approx_accel_noise_spectrum(xc_spectrum *sp, size_t nbins, uint64_t seed, xc_error *err)
{
    return xc_approx_noise_spectrum_off(sp, nbins, seed, 0.0, err);
}

void xc_accel_noise_opts_init(xc_accel_noise_opts *o)
{
    memset(o, 0, sizeof *o);
    o->nbins = 1u << 17;
    o->normwidth = 1024;
    o->numharm = 1;
    o->alpha = 1e-3;
    o->plant_scale = 1;
}

/* sum |R(d; z)|^2 over the template's integer offsets d. */
static xc_status energy(int z, int hw, double *e, xc_error *err)
{
    double *R = malloc((size_t)(4 * hw + 1) * 2 * sizeof *R);
    if (!R)
        return xc_error_set(err, XC_ENOMEM, "accel noise: out of memory");
    xc_status st = xc_accel_template(z, 0, hw, R, err);
    *e = 0;
    for (int j = 0; !st && j <= 4 * hw; j += 2)   /* j - 2hw even: integer d */
        *e += R[2 * j] * R[2 * j] + R[2 * j + 1] * R[2 * j + 1];
    free(R);
    return st;
}

/* The normalised amplitudes of sp, preset exact's scales. */
static xc_status normalise(const xc_spectrum *sp, size_t normwidth, double **amp, xc_error *err)
{
    double *sc = malloc(sp->nbins * sizeof *sc);
    *amp = malloc(2 * sp->nbins * sizeof **amp);
    xc_status st = sc && *amp ? XC_OK : xc_error_set(err, XC_ENOMEM, "accel noise: out of memory");
    if (!st)
        st = xc_accel_norm_scales(sp->data, sp->nbins, normwidth, sc, err);
    for (size_t k = 0; !st && k < sp->nbins; k++) {
        (*amp)[2 * k] = sp->data[2 * k] * sc[k];
        (*amp)[2 * k + 1] = sp->data[2 * k + 1] * sc[k];
    }
    free(sc);
    if (st) {
        free(*amp);
        *amp = NULL;
    }
    return st;
}

xc_status xc_approx_accel_noise(const xc_accel_searcher *s, const xc_accel_noise_opts *o, uint64_t seed,
                                xc_accel_noise *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    out->o = *o;
    const int H = o->numharm;
    if (!s || !s->plane)
        return xc_error_set(err, XC_EINVAL, "accel noise: no searcher given");
    if ((H != 1 && H != 2 && H != 4) || o->zmax < 0 || abs(o->z) > o->zmax || o->nbins < 4096)
        return xc_error_set(err, XC_EINVAL, "accel noise: numharm %d, zmax %d, z %d, %zu bins (need numharm 1, 2 "
                            "or 4, |z| <= zmax, >= 4096 bins)", H, o->zmax, o->z, o->nbins);
    xc_accel_plan p;
    xc_status st = xc_approx_accel_plan1(&p, o->nbins, o->zmax, 0, o->threads, o->normwidth, err);
    if (st)
        return st;
    xc_spectrum sp = {0};
    double *amp = NULL, *x = NULL;
    float *rows = NULL;
    void *state = NULL;
    unsigned char *want = calloc((size_t)p.ntempl, 1);
    int zh[4], rowof[4], hw = 0;
    if (!want) {
        st = xc_error_set(err, XC_ENOMEM, "accel noise: out of memory");
        goto done;
    }
    /* the rows: harmonic h/H at z_h (h = H: z itself) */
    out->energy = 0;
    for (int h = 1; h <= H; h++) {
        zh[h - 1] = xc_accel_required_z((double)h / H, o->z);
        int t = (zh[h - 1] + p.zmax) / XC_ACCEL_DZ;
        want[t] = 1;
        hw = p.hw[t] > hw ? p.hw[t] : hw;
        double e = 0;
        if ((st = energy(zh[h - 1], p.hw[t], &e, err)))
            goto done;
        out->energy += e / H;
    }
    for (int h = 1; h <= H; h++) {
        int t = (zh[h - 1] + p.zmax) / XC_ACCEL_DZ;
        rowof[h - 1] = 0;
        for (int u = 0; u < t; u++)
            rowof[h - 1] += want[u];
    }
    int nrow = 0;
    for (int t = 0; t < p.ntempl; t++)
        nrow += want[t];
    /* integer r in [rmin, rmax], away from the spectrum's edges */
    long rmin = p.hwmax + 2, rmax = (long)o->nbins - p.hwmax - 3;
    int zero = 1;
    for (int h = 0; h < H; h++)
        zero &= zh[h] == 0;
    long step = zero ? H : (long)H * (2 * hw + 2);
    long a = (long)ceil((double)rmax * (H - 1) / H) + (H > 1 ? 2 * hw + 2 : 0);
    if (a < (long)H * rmin)
        a = (long)H * rmin;
    a = (a + H - 1) / H * H;
    size_t n = a <= rmax ? (size_t)((rmax - a) / step + 1) : 0;
    out->step = (size_t)step;
    if (n < 200) {
        st = xc_error_set(err, XC_EINVAL, "accel noise: %zu independent sums of %d harmonics at z %d in %zu bins "
                          "(need 200)", n, H, o->z, o->nbins);
        goto done;
    }
    size_t nr = (size_t)(2 * (rmax - rmin) + 1);
    if ((st = xc_approx_accel_noise_spectrum(&sp, o->nbins, seed, err)) ||
        (st = normalise(&sp, o->normwidth, &amp, err)))
        goto done;
    rows = malloc((size_t)nrow * nr * sizeof *rows);
    x = malloc(n * sizeof *x);
    if (!rows || !x) {
        st = xc_error_set(err, XC_ENOMEM, "accel noise: out of memory (%d rows of %zu)", nrow, nr);
        goto done;
    }
    if ((s->create && (st = s->create(s, &p, &state, err))) ||
        (st = xc_approx_accel_plane(s, state, &p, amp, o->nbins, 2 * rmin, nr, want, rows, err)))
        goto done;
    for (size_t k = 0; k < n; k++) {
        long i = 2 * (a + (long)k * step);   /* top half-bin index */
        double sum = 0;
        for (int h = 1; h <= H; h++) {
            long ih = (long)((double)i * h / H + 0.5);   /* core's in-memory rounding */
            sum += rows[(size_t)rowof[h - 1] * nr + (size_t)(ih - 2 * rmin)];
        }
        x[k] = 2 * sum * o->plant_scale;
    }
    out->n = n;
    out->dof = 2.0 * H + o->plant_dof;
    out->mean = xc_meansd_of(x, n);
    for (int f = 0; f < XC_ACCEL_NOISE_NFA; f++) {
        out->pfa[f] = f ? 1e-3 : 1e-2;
        out->thr[f] = gsl_cdf_chisq_Qinv(out->pfa[f], out->dof);
        out->expect[f] = (double)n * out->pfa[f];
        for (size_t k = 0; k < n; k++)
            out->count[f] += x[k] > out->thr[f];
        if ((st = xc_binom_bounds(n, out->pfa[f], o->alpha, &out->lo[f], &out->hi[f], err)))
            goto done;
    }
    /* Pearson first: the KS test sorts x */
    if (!(st = xc_pearson_chi2(x, n, out->dof, 10, &out->gof, err)))
        st = xc_ks_chi2(x, n, out->dof, &out->ks, err);
done:
    if (state && s->destroy)
        s->destroy(s, state);
    xc_accel_plan_free(&p);
    xc_spectrum_free(&sp);
    free(amp);
    free(rows);
    free(x);
    free(want);
    return st;
}
