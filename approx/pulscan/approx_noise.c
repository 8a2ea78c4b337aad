/* Harmonic-sum boxcars of noise-only spectra against chi-square
 * (xc_approx_noise.h), and the noise spectrum the measurements share. */
#include "approx/pulscan/xc_approx_noise.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

xc_status xc_approx_noise_spectrum(xc_spectrum *sp, size_t nbins, uint64_t seed, xc_error *err)
{
    return xc_approx_noise_spectrum_off(sp, nbins, seed, XC_APPROX_NOISE_OFF, err);
}

xc_status xc_approx_noise_spectrum_off(xc_spectrum *sp, size_t nbins, uint64_t seed, double off, xc_error *err)
{
    memset(sp, 0, sizeof *sp);
    sp->data = malloc(2 * nbins * sizeof(float));
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!sp->data || !r) {
        free(sp->data);
        sp->data = NULL;
        if (r)
            gsl_rng_free(r);
        return xc_error_set(err, XC_ENOMEM, "out of memory for a noise spectrum of %zu bins", nbins);
    }
    sp->nbins = nbins;
    sp->T = 1.0;
    sp->dt = 1.0 / (2.0 * (double)nbins);
    sp->owned = 1;
    gsl_rng_set(r, (unsigned long)seed);
    for (size_t k = 0; k < 2 * nbins; k++)
        sp->data[k] = (float)(off + XC_APPROX_NOISE_SIGMA * gsl_ran_gaussian_ziggurat(r, 1.0));
    gsl_rng_free(r);
    return XC_OK;
}

static xc_status check_sizes(size_t nbins, const int *harms, int nh, const int *widths, int nw, xc_error *err)
{
    if (nh < 1 || nw < 1 || nbins < 1024)
        return xc_error_set(err, XC_EINVAL, "noise KS: nbins %zu, %d stages, %d widths (need nbins >= 1024, "
                            "at least one of each)", nbins, nh, nw);
    for (int a = 0; a < nh; a++)
        if (harms[a] < 1 || harms[a] > 8)
            return xc_error_set(err, XC_EINVAL, "noise KS: stage %d (need 1..8)", harms[a]);
    for (int b = 0; b < nw; b++)
        for (int a = 0; a < nh; a++)
            if (widths[b] < 1 || nbins / ((size_t)harms[a] * (size_t)harms[a] * (size_t)widths[b]) < 100)
                return xc_error_set(err, XC_EINVAL, "noise KS: width %d at stage %d leaves fewer than 100 "
                                    "independent boxcars in %zu bins (about nbins / (h^2 w))", widths[b],
                                    harms[a], nbins);
    return XC_OK;
}

xc_status xc_approx_noise_ks(const xc_searcher *searcher, size_t nbins, uint64_t seed, const int *harms, int nh, const int *widths, int nw,
                             int threads, xc_noise_ks *out, xc_error *err)
{
    xc_status st = check_sizes(nbins, harms, nh, widths, nw, err);
    if (st)
        return st;
    xc_spectrum sp;
    if ((st = xc_approx_noise_spectrum(&sp, nbins, seed, err)))
        return st;
    double *P = malloc(nbins * sizeof *P), *C = malloc((nbins + 1) * sizeof *C), *x = malloc(nbins * sizeof *x);
    if (!P || !C || !x) {
        st = xc_error_set(err, XC_ENOMEM, "noise KS: out of memory for %zu bins", nbins);
        goto done;
    }
    xc_psopts o;
    xc_psopts_default(&o);
    o.threads = threads;
    if ((st = xc_pulscan_powers(searcher, &sp, &o, P, err)))
        goto done;
    for (int a = 0; a < nh && !st; a++) {
        int h = harms[a];
        size_t L = xc_pulscan_nfund(nbins, h);
        xc_pulscan_prefix(P, nbins, h, C);
        size_t i0 = ((size_t)(h - 1) * L + (size_t)h - 1) / (size_t)h;
        if (i0 < 1)
            i0 = 1;
        for (int b = 0; b < nw && !st; b++) {
            size_t w = (size_t)widths[b], m = 0;
            for (size_t i = i0; i + w <= L; i += w)
                x[m++] = C[i + w] - C[i];
            xc_noise_ks *r = &out[a * nw + b];
            r->numharm = h;
            r->width = (int)w;
            r->dof = 2.0 * (double)w * h * (h + 1) / 2.0;
            r->n = m;
            /* Pearson first: the KS test sorts x */
            if (!(st = xc_pearson_chi2(x, m, r->dof, 10, &r->gof, err)))
                st = xc_ks_chi2(x, m, r->dof, &r->ks, err);
        }
    }
done:
    free(P);
    free(C);
    free(x);
    xc_spectrum_free(&sp);
    return st;
}
