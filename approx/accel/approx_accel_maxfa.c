/* The trial count on noise (xc_approx_accel.h, measurement 6): how often
 * the largest power of a whole noise plane exceeds the threshold at which
 * accelsearch's effective trial count predicts a given family-wise
 * false-alarm rate, and the count of independent trials the data show. */
#include "approx/accel/xc_approx_accel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

xc_status xc_approx_accel_maxfa(const xc_accel_searcher *s, size_t nbins, int zmax, size_t nspec, uint64_t seed0,
                                double alpha, int threads, xc_accel_maxfa *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    if (!s || !s->plane)
        return xc_error_set(err, XC_EINVAL, "accel trials on noise: no searcher given");
    if (nbins < 4096 || nspec < 20 || !(alpha > 0 && alpha < 1))
        return xc_error_set(err, XC_EINVAL, "accel trials on noise: %zu bins, %zu spectra, alpha %g (need >= 4096 "
                            "bins, >= 20 spectra, 0 < alpha < 1)", nbins, nspec, alpha);
    xc_accel_plan p;
    xc_status st = xc_approx_accel_plan1(&p, nbins, zmax, 0, threads, 0, err);
    if (st)
        return st;
    long rmin = p.hwmax + 2, rmax = (long)nbins - p.hwmax - 3;
    size_t nr = (size_t)(2 * (rmax - rmin) + 1), np = (size_t)p.ntempl * nr;
    out->zmax = p.zmax;
    out->nbins = nbins;
    out->nspec = nspec;
    out->alpha = alpha;
    out->R = (double)(rmax - rmin);
    out->n_eff = xc_accel_ntrials((double)rmin, (double)rmax, p.numz, 1, 1);
    out->n_all = 2 * out->R * p.numz;
    for (int k = 0; k < XC_MAXFA_NX && !st; k++) {
        double pr = k ? 0.5 : 0.1;
        out->pred[k] = pr;
        out->x[k] = 2 * log(out->n_eff / -log1p(-pr));
        out->p_all[k] = -expm1(-out->n_all * exp(-0.5 * out->x[k]));
        if (!(st = xc_binom_bounds(nspec, pr, alpha, &out->lo_eff[k], &out->hi_eff[k], err)))
            st = xc_binom_bounds(nspec, out->p_all[k], alpha, &out->lo_all[k], &out->hi_all[k], err);
    }
    float *rows = st ? NULL : malloc(np * sizeof *rows);
    double *amp = st ? NULL : malloc(2 * nbins * sizeof *amp), *sc = st ? NULL : malloc(nbins * sizeof *sc);
    void *state = NULL;
    if (!st && (!rows || !amp || !sc))
        st = xc_error_set(err, XC_ENOMEM, "accel trials on noise: out of memory (%zu plane points)", np);
    if (!st && s->create)
        st = s->create(s, &p, &state, err);
    for (size_t q = 0; q < nspec && !st; q++) {
        xc_spectrum sp;
        if ((st = xc_approx_accel_noise_spectrum(&sp, nbins, seed0 + q, err)))
            break;
        st = xc_accel_norm_scales(sp.data, nbins, 1024, sc, err);
        for (size_t k = 0; !st && k < nbins; k++) {
            amp[2 * k] = sp.data[2 * k] * sc[k];
            amp[2 * k + 1] = sp.data[2 * k + 1] * sc[k];
        }
        xc_spectrum_free(&sp);
        if (st || (st = xc_approx_accel_plane(s, state, &p, amp, nbins, 2 * rmin, nr, NULL, rows, err)))
            break;
        double m = 0;
        for (size_t i = 0; i < np; i++)
            m = fmax(m, rows[i]);
        for (int k = 0; k < XC_MAXFA_NX; k++)
            out->count[k] += 2 * m > out->x[k];
    }
    for (int k = 0; k < XC_MAXFA_NX; k++) {
        double f = (double)out->count[k] / (double)nspec;
        out->n_hat[k] = f < 1 ? -log1p(-f) * exp(0.5 * out->x[k]) : INFINITY;
    }
    if (state && s->destroy)
        s->destroy(s, state);
    xc_accel_plan_free(&p);
    free(rows);
    free(amp);
    free(sc);
    return st;
}
