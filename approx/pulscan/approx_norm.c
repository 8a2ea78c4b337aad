/* The median of medians against the exact median and MAD: Monte Carlo over
 * Gaussian blocks and its effect on normalised noise powers
 * (xc_approx_norm.h).  Random numbers: GSL MT19937 seeded with the caller's
 * seed, drawn in one thread in a fixed order; parallel loops only fill
 * per-item slots that are reduced in order afterwards. */
#include "approx/pulscan/xc_approx_norm.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "approx/pulscan/xc_approx_noise.h"

void xc_approx_block_stats(const double *x, size_t n, xc_norm_mode mode, double *work, double *loc, double *scale)
{
    memcpy(work, x, n * sizeof *work);
    double m = mode == XC_NORM_MOM ? xc_median_of_medians(work, n) : xc_median_exact(work, n);
    for (size_t k = 0; k < n; k++)
        work[k] = fabs(x[k] - m);
    double mad = mode == XC_NORM_MOM ? xc_median_of_medians(work, n) : xc_median_exact(work, n);
    *loc = m;
    *scale = XC_MAD_TO_SIGMA * mad;
}

/* ---- blocks of Gaussian values -------------------------------------------- */

#define BATCH 256
#define NSTAT 6   /* dloc, med_loc, mom_loc, med_scale, mom_scale, ratio per block */

/* The statistics of blocks [b0, b0 + nb) of x into v[.][at0 + b]; 0, or 1 when out of memory. */
static int blocks_batch(const double *x, size_t nb, size_t block, int nth, double *v[NSTAT], size_t at0)
{
    int nomem = 0;
#pragma omp parallel num_threads(nth)
    {
        double *w = malloc(block * sizeof *w);
        if (!w) {
#pragma omp atomic write
            nomem = 1;
        }
#pragma omp for schedule(static)
        for (long b = 0; b < (long)nb; b++) {
            if (!w)
                continue;
            double me, se, mm, sm;
            const double *xb = x + (size_t)b * block;
            xc_approx_block_stats(xb, block, XC_NORM_EXACT, w, &me, &se);
            xc_approx_block_stats(xb, block, XC_NORM_MOM, w, &mm, &sm);
            size_t at = at0 + (size_t)b;
            v[0][at] = mm - me;
            v[1][at] = me;
            v[2][at] = mm;
            v[3][at] = se;
            v[4][at] = sm;
            v[5][at] = sm / se;
        }
        free(w);
    }
    return nomem;
}

/* levels with block = 4^levels, 0 when block is not such a power (or above 4^8). */
static int pow4_levels(size_t block)
{
    int lev = 0;
    size_t q = 1;
    while (q < block) {
        q *= 4;
        lev++;
    }
    return q == block && lev <= 8 ? lev : 0;
}

xc_status xc_approx_mom_blocks(size_t block, size_t nblocks, uint64_t seed0, int nseeds, int threads,
                               xc_mom_blocks *out, xc_error *err)
{
    if (block < 4 || nblocks < 2 || nseeds < 1)
        return xc_error_set(err, XC_EINVAL, "median of medians: block %zu, blocks %zu, seeds %d (need block >= 4, "
                            "blocks >= 2, seeds >= 1)", block, nblocks, nseeds);
    size_t nt = nblocks * (size_t)nseeds;
    double *v[NSTAT];
    double *x = malloc(BATCH * block * sizeof *x);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    int ok = x && rng;
    for (int k = 0; k < NSTAT; k++)
        ok = (v[k] = malloc(nt * sizeof(double))) && ok;
    xc_status st = XC_OK;
    if (!ok) {
        st = xc_error_set(err, XC_ENOMEM, "median of medians: out of memory for %zu blocks of %zu", nt, block);
        goto done;
    }
    int nth = threads > 0 ? threads : omp_get_max_threads();
    for (int s = 0; s < nseeds; s++) {
        gsl_rng_set(rng, (unsigned long)(seed0 + (uint64_t)s));
        for (size_t b0 = 0; b0 < nblocks; b0 += BATCH) {
            size_t nb = nblocks - b0 < BATCH ? nblocks - b0 : BATCH;
            for (size_t k = 0; k < nb * block; k++)
                x[k] = (double)(float)gsl_ran_gaussian_ziggurat(rng, 1.0);
            if (blocks_batch(x, nb, block, nth, v, (size_t)s * nblocks + b0)) {
                st = xc_error_set(err, XC_ENOMEM, "median of medians: out of memory for a block of %zu", block);
                goto done;
            }
        }
    }
    memset(out, 0, sizeof *out);
    out->block = block;
    out->nseeds = nseeds;
    out->dloc = xc_meansd_of(v[0], nt);
    out->med_loc = xc_meansd_of(v[1], nt);
    out->mom_loc = xc_meansd_of(v[2], nt);
    out->med_scale = xc_meansd_of(v[3], nt);
    out->mom_scale = xc_meansd_of(v[4], nt);
    out->scale_ratio = xc_meansd_of(v[5], nt);
    out->pred_loc_sd = out->pred_scale_mean = out->pred_scale_sd = NAN;
    int lev = pow4_levels(block);
    if (lev) {
        xc_mom_prediction pr;
        if ((st = xc_approx_mom_predict(lev, &pr, err)))
            goto done;
        out->pred_loc_sd = pr.loc_sd;
        out->pred_scale_mean = pr.scale_mean;
        out->pred_scale_sd = pr.scale_sd;
    }
done:
    for (int k = 0; k < NSTAT; k++)
        free(v[k]);
    free(x);
    if (rng)
        gsl_rng_free(rng);
    return st;
}

/* ---- normalised powers ------------------------------------------------------ */

double xc_approx_mean_power_pred(const xc_mom_blocks *b, xc_norm_mode mode)
{
    const xc_meansd *loc = mode == XC_NORM_MOM ? &b->mom_loc : &b->med_loc;
    const xc_meansd *sc = mode == XC_NORM_MOM ? &b->mom_scale : &b->med_scale;
    double e = sc->mean - 1, inv2 = 1 - 2 * e + 3 * (e * e + sc->sd * sc->sd);
    return 2 * (1 + loc->sd * loc->sd + loc->mean * loc->mean) * inv2;
}

#define CURVE_DX 0.5
#define NX (XC_APPROX_NTHR + XC_APPROX_NCURVE)

/* Adds to pred[] the bins of each block times exp(-x / (a_re^2 + a_im^2)). */
static xc_status block_survival(const xc_spectrum *sp, size_t normwidth, xc_norm_mode mode, const double *xs, int nx,
                                double *pred, xc_error *err)
{
    size_t nb = xc_pulscan_nblocks(sp->nbins, normwidth);
    double *x = malloc(4 * normwidth * sizeof *x);
    if (!x)
        return xc_error_set(err, XC_ENOMEM, "out of memory for a normalisation block of %zu", normwidth);
    for (size_t b = 0; b < nb; b++) {
        size_t lo, hi;
        xc_pulscan_block(sp->nbins, normwidth, b, &lo, &hi);
        double a2 = 0, loc, scale;
        for (int part = 0; part < 2; part++) {
            for (size_t k = lo; k < hi; k++)
                x[k - lo] = sp->data[2 * k + (size_t)part];
            xc_approx_block_stats(x, hi - lo, mode, x + 2 * normwidth, &loc, &scale);
            a2 += (XC_APPROX_NOISE_SIGMA / scale) * (XC_APPROX_NOISE_SIGMA / scale);
        }
        for (int j = 0; j < nx; j++)
            pred[j] += (double)(hi - lo) * exp(-xs[j] / a2);
    }
    free(x);
    return XC_OK;
}

/* Tallies of one estimator over every spectrum. */
typedef struct {
    double sum;
    size_t count[XC_APPROX_NTHR];
    size_t hist[XC_APPROX_NCURVE + 1];   /* powers in (i*dx, (i+1)*dx], the last bin open above */
    double pred[NX];
    double *all;                         /* every power, for the KS test */
} power_tally;

/* Normalises one spectrum under `mode` and adds its powers to t. */
static xc_status tally_spectrum(const xc_searcher *searcher, const xc_spectrum *sp, size_t normwidth, xc_norm_mode mode, int threads,
                                const double *xs, double *P, power_tally *t, size_t at, xc_error *err)
{
    xc_psopts o;
    xc_psopts_default(&o);
    o.normwidth = normwidth;
    o.norm = mode;
    o.threads = threads;
    xc_status st = xc_pulscan_powers(searcher, sp, &o, P, err);
    if (st || (st = block_survival(sp, normwidth, mode, xs, NX, t->pred, err)))
        return st;
    for (size_t k = 1; k < sp->nbins; k++) {
        double p = P[k];
        t->sum += p;
        t->all[at + k - 1] = p;
        for (int j = 0; j < XC_APPROX_NTHR; j++)
            if (p > xs[j])
                t->count[j]++;
        double q = ceil(p / CURVE_DX) - 1;
        size_t i = q < 0 ? 0 : q > XC_APPROX_NCURVE ? XC_APPROX_NCURVE : (size_t)q;
        t->hist[i]++;
    }
    return XC_OK;
}

xc_status xc_approx_mom_powers(const xc_searcher *searcher, size_t nbins, size_t normwidth, uint64_t seed0, int nseeds, int threads,
                               xc_mom_powers *out, xc_error *err)
{
    if (nseeds < 1 || normwidth < 16 || nbins < normwidth + 1)
        return xc_error_set(err, XC_EINVAL, "normalised powers: nbins %zu, block %zu, seeds %d (need block >= 16, "
                            "nbins > block, seeds >= 1)", nbins, normwidth, nseeds);
    static const double thr[XC_APPROX_NTHR] = {5, 10, 15, 20, 25};
    memset(out, 0, sizeof *out);
    out->nbins = nbins;
    out->normwidth = normwidth;
    out->nseeds = nseeds;
    size_t per = nbins - 1, n = per * (size_t)nseeds;
    out->n = n;
    double xs[NX];
    for (int j = 0; j < XC_APPROX_NTHR; j++) {
        out->thr[j] = xs[j] = thr[j];
        out->expect[j] = exp(-0.5 * thr[j]);
    }
    for (int j = 0; j < XC_APPROX_NCURVE; j++)
        out->curve_x[j] = xs[XC_APPROX_NTHR + j] = CURVE_DX * (j + 1);
    power_tally t[2];
    memset(t, 0, sizeof t);
    double *P = malloc(nbins * sizeof *P);
    t[0].all = malloc(n * sizeof(double));
    t[1].all = malloc(n * sizeof(double));
    xc_status st = XC_OK;
    if (!P || !t[0].all || !t[1].all) {
        st = xc_error_set(err, XC_ENOMEM, "normalised powers: out of memory for %zu powers", n);
        goto done;
    }
    for (int s = 0; s < nseeds && !st; s++) {
        xc_spectrum sp;
        if ((st = xc_approx_noise_spectrum(&sp, nbins, seed0 + (uint64_t)s, err)))
            break;
        for (int m = 0; m < 2 && !st; m++)
            st = tally_spectrum(searcher, &sp, normwidth, m ? XC_NORM_MOM : XC_NORM_EXACT, threads, xs, P, &t[m],
                                (size_t)s * per, err);
        xc_spectrum_free(&sp);
    }
    if (st)
        goto done;
    out->mean_exact = t[0].sum / (double)n;
    out->mean_mom = t[1].sum / (double)n;
    out->mean_se = 2.0 / sqrt((double)n);
    for (int j = 0; j < XC_APPROX_NTHR; j++) {
        out->count_exact[j] = t[0].count[j];
        out->count_mom[j] = t[1].count[j];
        out->pred_exact[j] = t[0].pred[j] / (double)n;
        out->pred_mom[j] = t[1].pred[j] / (double)n;
    }
    for (int m = 0; m < 2; m++) {
        /* survival above curve_x[j] = (j+1) dx: the bins j+1 .. end */
        size_t above = 0;
        for (int j = XC_APPROX_NCURVE - 1; j >= 0; j--) {
            above += t[m].hist[j + 1];
            double e = exp(-0.5 * out->curve_x[j]);
            (m ? out->curve_mom : out->curve_exact)[j] = (double)above / (double)n / e;
        }
    }
    for (int j = 0; j < XC_APPROX_NCURVE; j++)
        out->curve_pred_mom[j] = t[1].pred[XC_APPROX_NTHR + j] / (double)n / exp(-0.5 * out->curve_x[j]);
    if (!(st = xc_ks_chi2(t[0].all, n, 2, &out->ks_exact, err)))
        st = xc_ks_chi2(t[1].all, n, 2, &out->ks_mom, err);
done:
    free(P);
    free(t[0].all);
    free(t[1].all);
    return st;
}
