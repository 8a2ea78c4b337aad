/* Measurements of the Pulscan GPU version's approximations and of the search's
 * noise statistics (xc_approx.h).  Random numbers: GSL MT19937 seeded with the
 * caller's seed, drawn in one thread in a fixed order; parallel loops only
 * fill per-item slots that are reduced in order afterwards. */
#include "compare/xc_approx.h"
#include "optimized/cpu/xc_cpu.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "compare/xc_cmpcands.h"
#include "core/xc_fft.h"
#include "core/xc_presto.h"
#include "core/xc_signif.h"
#include "synth/xc_synth.h"

static int nthreads_of(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

static xc_approx_ms ms_of(const double *v, size_t n)
{
    xc_approx_ms m = {NAN, NAN, n};
    if (!n)
        return m;
    double s = 0;
    for (size_t k = 0; k < n; k++)
        s += v[k];
    m.mean = s / (double)n;
    if (n > 1) {
        double q = 0;
        for (size_t k = 0; k < n; k++)
            q += (v[k] - m.mean) * (v[k] - m.mean);
        m.sd = sqrt(q / (double)(n - 1));
    }
    return m;
}

/* ---- small statistics ---------------------------------------------------- */

/* a[k] becomes the k-th smallest of a[0..n-1] with a[0..k-1] <= a[k] <= a[k+1..n-1]. */
static void select_k(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        /* median of three as the pivot, moved to hi */
        if (a[mid] < a[lo]) { double t = a[mid]; a[mid] = a[lo]; a[lo] = t; }
        if (a[hi] < a[lo]) { double t = a[hi]; a[hi] = a[lo]; a[lo] = t; }
        if (a[mid] < a[hi]) { double t = a[mid]; a[mid] = a[hi]; a[hi] = t; }
        double piv = a[hi];
        size_t st = lo;
        for (size_t i = lo; i < hi; i++)
            if (a[i] < piv) {
                double t = a[i]; a[i] = a[st]; a[st] = t;
                st++;
            }
        double t = a[st]; a[st] = a[hi]; a[hi] = t;
        if (st == k)
            return;
        if (st < k)
            lo = st + 1;
        else
            hi = st - 1;
    }
}

static double median_exact(double *a, size_t n)
{
    size_t k = (n - 1) / 2;
    select_k(a, n, k);
    if (n % 2)
        return a[k];
    double up = a[k + 1];
    for (size_t i = k + 2; i < n; i++)
        up = a[i] < up ? a[i] : up;
    return 0.5 * (a[k] + up);
}

void xc_approx_block_stats(const double *x, size_t n, xc_norm_mode mode, double *work, double *loc, double *scale)
{
    memcpy(work, x, n * sizeof *work);
    double m = mode == XC_NORM_MOM ? xc_median_of_medians(work, n) : median_exact(work, n);
    for (size_t k = 0; k < n; k++)
        work[k] = fabs(x[k] - m);
    double mad = mode == XC_NORM_MOM ? xc_median_of_medians(work, n) : median_exact(work, n);
    *loc = m;
    *scale = XC_MAD_TO_SIGMA * mad;
}

double xc_approx_kolmogorov_q(double lambda)
{
    if (!(lambda > 0.2))
        return 1.0;   /* the series converges slowly here and Q is 1 to 1e-9 below 0.27 */
    double s = 0;
    for (int k = 1; k <= 100; k++) {
        double t = exp(-2.0 * k * k * lambda * lambda);
        s += (k % 2 ? 2.0 : -2.0) * t;
        if (t < 1e-17)
            break;
    }
    return s < 0 ? 0 : s > 1 ? 1 : s;
}

static int dcmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

void xc_approx_ks_chi2(double *x, size_t n, double dof, double *d, double *p)
{
    qsort(x, n, sizeof *x, dcmp);
    double D = 0;
    for (size_t k = 0; k < n; k++) {
        double F = gsl_cdf_chisq_P(x[k], dof);
        D = fmax(D, fmax(F - (double)k / (double)n, (double)(k + 1) / (double)n - F));
    }
    double sn = sqrt((double)n);
    *d = D;
    *p = n ? xc_approx_kolmogorov_q((sn + 0.12 + 0.11 / sn) * D) : NAN;
}

void xc_approx_gof_chi2(const double *x, size_t n, double dof, int ncells, double *stat, double *p)
{
    size_t cnt[1000] = {0};
    if (ncells < 2)
        ncells = 2;
    if (ncells > 1000)
        ncells = 1000;
    for (size_t k = 0; k < n; k++) {
        int c = (int)(gsl_cdf_chisq_P(x[k], dof) * ncells);
        cnt[c < 0 ? 0 : c >= ncells ? ncells - 1 : c]++;
    }
    double e = (double)n / ncells, s = 0;
    for (int c = 0; c < ncells; c++)
        s += ((double)cnt[c] - e) * ((double)cnt[c] - e) / e;
    *stat = s;
    *p = gsl_cdf_chisq_Q(s, ncells - 1);
}

/* Smallest k with P(X <= k) >= q, X binomial(n, p). */
static size_t binom_quantile(size_t n, double p, double q)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gsl_cdf_binomial_P((unsigned)mid, p, (unsigned)n) >= q)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void xc_approx_binom_bounds(size_t n, double p, double alpha, size_t *lo, size_t *hi)
{
    if (!(p > 0) || !n) {
        *lo = *hi = 0;
        return;
    }
    if (p >= 1) {
        *lo = *hi = n;
        return;
    }
    size_t l = binom_quantile(n, p, 0.5 * alpha);
    /* the quantile q has P(X <= q) >= alpha/2; lo needs P(X <= lo - 1) <= alpha/2 */
    if (l > 0 && gsl_cdf_binomial_P((unsigned)(l - 1), p, (unsigned)n) > 0.5 * alpha)
        l--;
    *lo = l;
    *hi = binom_quantile(n, p, 1 - 0.5 * alpha);
}

/* ---- 1. median of medians: Monte Carlo ------------------------------------ */

#define BATCH 256

xc_status xc_approx_mom_blocks(size_t block, size_t nblocks, uint64_t seed0, int nseeds, int threads,
                               xc_mom_blocks *out, xc_error *err)
{
    if (block < 4 || nblocks < 2 || nseeds < 1)
        return xc_error_set(err, XC_EINVAL, "median of medians: block %zu, blocks %zu, seeds %d (need block >= 4, "
                            "blocks >= 2, seeds >= 1)", block, nblocks, nseeds);
    size_t nt = nblocks * (size_t)nseeds;
    double *v[6];     /* dloc, med_loc, mom_loc, med_scale, mom_scale, ratio per block */
    double *x = malloc(BATCH * block * sizeof *x);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    int ok = x && rng;
    for (int k = 0; k < 6; k++)
        ok = (v[k] = malloc(nt * sizeof(double))) && ok;
    xc_status st = XC_OK;
    if (!ok) {
        st = xc_error_set(err, XC_ENOMEM, "median of medians: out of memory for %zu blocks of %zu", nt, block);
        goto done;
    }
    int nth = nthreads_of(threads), nomem = 0;
    for (int s = 0; s < nseeds; s++) {
        gsl_rng_set(rng, (unsigned long)(seed0 + (uint64_t)s));
        for (size_t b0 = 0; b0 < nblocks; b0 += BATCH) {
            size_t nb = nblocks - b0 < BATCH ? nblocks - b0 : BATCH;
            for (size_t k = 0; k < nb * block; k++)
                x[k] = (double)(float)gsl_ran_gaussian_ziggurat(rng, 1.0);
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
                    size_t at = (size_t)s * nblocks + b0 + (size_t)b;
                    v[0][at] = mm - me;
                    v[1][at] = me;
                    v[2][at] = mm;
                    v[3][at] = se;
                    v[4][at] = sm;
                    v[5][at] = sm / se;
                }
                free(w);
            }
            if (nomem) {
                st = xc_error_set(err, XC_ENOMEM, "median of medians: out of memory for a block of %zu", block);
                goto done;
            }
        }
    }
    memset(out, 0, sizeof *out);
    out->block = block;
    out->nseeds = nseeds;
    out->dloc = ms_of(v[0], nt);
    out->med_loc = ms_of(v[1], nt);
    out->mom_loc = ms_of(v[2], nt);
    out->med_scale = ms_of(v[3], nt);
    out->mom_scale = ms_of(v[4], nt);
    out->scale_ratio = ms_of(v[5], nt);
    out->pred_loc_sd = out->pred_scale_mean = out->pred_scale_sd = NAN;
    int lev = 0;
    size_t q = 1;
    while (q < block) {
        q *= 4;
        lev++;
    }
    if (q == block && lev <= 8) {
        xc_mom_prediction pr;
        if ((st = xc_approx_mom_predict(lev, &pr, err)))
            goto done;
        out->pred_loc_sd = pr.loc_sd;
        out->pred_scale_mean = pr.scale_mean;
        out->pred_scale_sd = pr.scale_sd;
    }
done:
    for (int k = 0; k < 6; k++)
        free(v[k]);
    free(x);
    if (rng)
        gsl_rng_free(rng);
    return st;
}

/* ---- 1. median of medians: prediction ------------------------------------- */

#define NGRID 4001

typedef struct {
    double lo, h;
    double f[NGRID], F[NGRID];
} pdf_grid;

/* Normalises f and fills F by the trapezoid rule. */
static void pdf_cdf(pdf_grid *g)
{
    g->F[0] = 0;
    for (size_t k = 1; k < NGRID; k++)
        g->F[k] = g->F[k - 1] + 0.5 * g->h * (g->f[k - 1] + g->f[k]);
    double t = g->F[NGRID - 1];
    if (t > 0)
        for (size_t k = 0; k < NGRID; k++) {
            g->f[k] /= t;
            g->F[k] /= t;
        }
}

static void pdf_moments(const double *f, double lo, double h, double *mean, double *var)
{
    double s0 = 0, s1 = 0, s2 = 0;
    for (size_t k = 0; k < NGRID; k++) {
        double w = (k == 0 || k == NGRID - 1) ? 0.5 : 1.0, x = lo + (double)k * h;
        s0 += w * f[k];
        s1 += w * f[k] * x;
        s2 += w * f[k] * x * x;
    }
    *mean = s1 / s0;
    *var = s2 / s0 - *mean * *mean;
}

/* One level: g <- density of (X(2) + X(3))/2 of 4 draws from g, re-gridded
 * over mean +- 10 sd (not below support_lo); returns its mean and variance. */
static void pdf_level(pdf_grid *g, double *tmp, double support_lo, double *mean, double *var)
{
    const double h = g->h;
    for (size_t j = 0; j < NGRID; j++) {
        size_t i0 = 2 * j > NGRID - 1 ? 2 * j - (NGRID - 1) : 0;
        double s = 0;
        for (size_t i = i0; i <= j; i++) {
            size_t k = 2 * j - i;
            double w = i == j ? 0.5 : 1.0;
            s += w * g->F[i] * g->f[i] * g->f[k] * (1 - g->F[k]);
        }
        tmp[j] = 48.0 * h * s;
    }
    pdf_moments(tmp, g->lo, h, mean, var);
    double sd = sqrt(*var > 0 ? *var : 0), lo = fmax(support_lo, *mean - 10 * sd), hi = *mean + 10 * sd;
    double nh = (hi - lo) / (NGRID - 1);
    for (size_t k = 0; k < NGRID; k++) {
        double pos = (lo + (double)k * nh - g->lo) / h;
        if (pos < 0 || pos > NGRID - 1) {
            g->f[k] = 0;
            continue;
        }
        size_t a = (size_t)pos;
        if (a >= NGRID - 1)
            a = NGRID - 2;
        double fr = pos - (double)a;
        g->f[k] = tmp[a] + fr * (tmp[a + 1] - tmp[a]);
    }
    g->lo = lo;
    g->h = nh;
    pdf_cdf(g);
}

static double phi(double x) { return exp(-0.5 * x * x) / sqrt(2 * M_PI); }

/* Mean and variance of the median of medians of 4^levels draws of |N(c,1)|. */
static void mad_given_c(pdf_grid *g, double *tmp, int levels, double c, double *mean, double *var)
{
    g->lo = 0;
    g->h = (fabs(c) + 10.0) / (NGRID - 1);
    for (size_t k = 0; k < NGRID; k++) {
        double y = (double)k * g->h;
        g->f[k] = phi(y - c) + phi(y + c);
    }
    pdf_cdf(g);
    for (int l = 0; l < levels; l++)
        pdf_level(g, tmp, 0.0, mean, var);
}

xc_status xc_approx_mom_predict(int levels, xc_mom_prediction *out, xc_error *err)
{
    if (levels < 1 || levels > 8)
        return xc_error_set(err, XC_EINVAL, "median of medians prediction: levels %d (need 1..8)", levels);
    pdf_grid *g = malloc(sizeof *g);
    double *tmp = malloc(NGRID * sizeof *tmp);
    if (!g || !tmp) {
        free(g);
        free(tmp);
        return xc_error_set(err, XC_ENOMEM, "median of medians prediction: out of memory");
    }
    double mean = 0, var = 0;
    g->lo = -10;
    g->h = 20.0 / (NGRID - 1);
    for (size_t k = 0; k < NGRID; k++)
        g->f[k] = phi(g->lo + (double)k * g->h);
    pdf_cdf(g);
    for (int l = 0; l < levels; l++)
        pdf_level(g, tmp, -INFINITY, &mean, &var);
    double sdc = sqrt(var);
    /* 3-point Gauss-Hermite over c ~ N(0, sdc^2); the MAD is even in c */
    double m0, v0, m1, v1;
    mad_given_c(g, tmp, levels, 0.0, &m0, &v0);
    mad_given_c(g, tmp, levels, sqrt(3.0) * sdc, &m1, &v1);
    double em = (2.0 / 3) * m0 + (1.0 / 3) * m1;
    double em2 = (2.0 / 3) * (v0 + m0 * m0) + (1.0 / 3) * (v1 + m1 * m1);
    out->levels = levels;
    out->loc_sd = sdc;
    out->scale_mean = XC_MAD_TO_SIGMA * em;
    out->scale_sd = XC_MAD_TO_SIGMA * sqrt(fmax(em2 - em * em, 0));
    free(g);
    free(tmp);
    return XC_OK;
}

/* ---- 1. median of medians: normalised powers ------------------------------- */

double xc_approx_mean_power_pred(const xc_mom_blocks *b, xc_norm_mode mode)
{
    const xc_approx_ms *loc = mode == XC_NORM_MOM ? &b->mom_loc : &b->med_loc;
    const xc_approx_ms *sc = mode == XC_NORM_MOM ? &b->mom_scale : &b->med_scale;
    double e = sc->mean - 1, inv2 = 1 - 2 * e + 3 * (e * e + sc->sd * sc->sd);
    return 2 * (1 + loc->sd * loc->sd + loc->mean * loc->mean) * inv2;
}

#define NOISE_OFF 0.5
#define NOISE_SIGMA 3.0
#define CURVE_DX 0.5

static xc_status noise_spectrum(xc_spectrum *sp, size_t nbins, uint64_t seed, xc_error *err)
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
        sp->data[k] = (float)(NOISE_OFF + NOISE_SIGMA * gsl_ran_gaussian_ziggurat(r, 1.0));
    gsl_rng_free(r);
    return XC_OK;
}

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
            a2 += (NOISE_SIGMA / scale) * (NOISE_SIGMA / scale);
        }
        for (int j = 0; j < nx; j++)
            pred[j] += (double)(hi - lo) * exp(-xs[j] / a2);
    }
    free(x);
    return XC_OK;
}

xc_status xc_approx_mom_powers(size_t nbins, size_t normwidth, uint64_t seed0, int nseeds, int threads,
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
    double xs[XC_APPROX_NTHR + XC_APPROX_NCURVE];
    for (int j = 0; j < XC_APPROX_NTHR; j++) {
        out->thr[j] = xs[j] = thr[j];
        out->expect[j] = exp(-0.5 * thr[j]);
    }
    for (int j = 0; j < XC_APPROX_NCURVE; j++)
        out->curve_x[j] = xs[XC_APPROX_NTHR + j] = CURVE_DX * (j + 1);
    double pred[2][XC_APPROX_NTHR + XC_APPROX_NCURVE] = {{0}};
    size_t hist[2][XC_APPROX_NCURVE + 1];
    memset(hist, 0, sizeof hist);
    double *P = malloc(nbins * sizeof *P), *all[2];
    all[0] = malloc(n * sizeof(double));
    all[1] = malloc(n * sizeof(double));
    xc_status st = XC_OK;
    if (!P || !all[0] || !all[1]) {
        st = xc_error_set(err, XC_ENOMEM, "normalised powers: out of memory for %zu powers", n);
        goto done;
    }
    double sum[2] = {0, 0};
    for (int s = 0; s < nseeds && !st; s++) {
        xc_spectrum sp;
        if ((st = noise_spectrum(&sp, nbins, seed0 + (uint64_t)s, err)))
            break;
        for (int m = 0; m < 2 && !st; m++) {
            xc_psopts o;
            xc_psopts_default(&o);
            o.normwidth = normwidth;
            o.norm = m ? XC_NORM_MOM : XC_NORM_EXACT;
            o.threads = threads;
            if ((st = xc_pulscan_powers_cpu(&sp, &o, P, err)) ||
                (st = block_survival(&sp, normwidth, o.norm, xs, XC_APPROX_NTHR + XC_APPROX_NCURVE, pred[m], err)))
                break;
            for (size_t k = 1; k < nbins; k++) {
                double p = P[k];
                sum[m] += p;
                all[m][(size_t)s * per + k - 1] = p;
                for (int j = 0; j < XC_APPROX_NTHR; j++)
                    if (p > thr[j])
                        (m ? out->count_mom : out->count_exact)[j]++;
                /* hist[i]: powers in (i*dx, (i+1)*dx], the last bin open above */
                double q = ceil(p / CURVE_DX) - 1;
                size_t i = q < 0 ? 0 : q > XC_APPROX_NCURVE ? XC_APPROX_NCURVE : (size_t)q;
                hist[m][i]++;
            }
        }
        xc_spectrum_free(&sp);
    }
    if (st)
        goto done;
    out->mean_exact = sum[0] / (double)n;
    out->mean_mom = sum[1] / (double)n;
    out->mean_se = 2.0 / sqrt((double)n);
    for (int j = 0; j < XC_APPROX_NTHR; j++) {
        out->pred_exact[j] = pred[0][j] / (double)n;
        out->pred_mom[j] = pred[1][j] / (double)n;
    }
    for (int m = 0; m < 2; m++) {
        /* survival above curve_x[j] = (j+1) dx: the bins j+1 .. end */
        size_t above = 0;
        for (int j = XC_APPROX_NCURVE - 1; j >= 0; j--) {
            above += hist[m][j + 1];
            double e = exp(-0.5 * out->curve_x[j]);
            (m ? out->curve_mom : out->curve_exact)[j] = (double)above / (double)n / e;
        }
    }
    for (int j = 0; j < XC_APPROX_NCURVE; j++)
        out->curve_pred_mom[j] = pred[1][XC_APPROX_NTHR + j] / (double)n / exp(-0.5 * out->curve_x[j]);
    xc_approx_ks_chi2(all[0], n, 2, &out->ks_exact, &out->ks_p_exact);
    xc_approx_ks_chi2(all[1], n, 2, &out->ks_mom, &out->ks_p_mom);
done:
    free(P);
    free(all[0]);
    free(all[1]);
    return st;
}

/* ---- 2. the ln p polynomial --------------------------------------------------- */

xc_status xc_approx_logp(xc_logp_check *out, xc_error *err)
{
    static const double dofs[XC_APPROX_NDOFCURVE] = {2, 6, 20, 60, 200, 2000, 24020};
    memset(out, 0, sizeof *out);
    xc_logp_poly_grid g = {2, 24020, 40, 1.0, 1000.0, 301, 0.01};
    out->grid = g;
    xc_status st = xc_logp_poly_error(&g, &out->e1, err);
    if (st)
        return st;
    g.rel_tol = 0.10;
    if ((st = xc_logp_poly_error(&g, &out->e10, err)))
        return st;
    for (int j = 0; j < XC_APPROX_NRATIO; j++)
        out->ratio[j] = pow(1000.0, (double)j / (XC_APPROX_NRATIO - 1));
    for (int i = 0; i < XC_APPROX_NDOFCURVE; i++) {
        double dof = out->dof[i] = dofs[i];
        out->valid1[i] = out->valid10[i] = NAN;
        int ok1 = 1, ok10 = 1;
        for (int j = XC_APPROX_NRATIO - 1; j >= 0; j--) {
            double chi2 = dof * out->ratio[j], p = xc_logp_poly(chi2, dof), e = xc_chi2_logq(chi2, dof);
            double ae = fabs(p - e), re = e != 0 ? ae / fabs(e) : (ae == 0 ? 0 : INFINITY);
            out->abserr[i][j] = isnan(p) ? NAN : ae;
            out->relerr[i][j] = isnan(p) ? NAN : re;
            ok1 = ok1 && re <= 0.01;
            ok10 = ok10 && re <= 0.10;
            if (ok1)
                out->valid1[i] = out->ratio[j];
            if (ok10)
                out->valid10[i] = out->ratio[j];
        }
    }
    return XC_OK;
}

/* ---- 3. detections lost on a synthetic set ---------------------------------- */

const char *xc_approx_mode_key(xc_approx_mode m)
{
    static const char *k[XC_APPROX_NMODES] = {"a", "b", "c", "d", "e", "f", "g"};
    return (unsigned)m < XC_APPROX_NMODES ? k[m] : "?";
}

const char *xc_approx_mode_desc(xc_approx_mode m)
{
    static const char *d[XC_APPROX_NMODES] = {
        "exact: every z (zstep 1), local maxima, exact median, exact ln p",
        "logarithmic z (z = 0, 1, 2, 4, ...)",
        "R-block: one peak per block and width",
        "logarithmic z + R-block",
        "median-of-medians normalisation",
        "ln p from the appendix polynomial",
        "GPU: logarithmic z + R-block + median of medians + polynomial",
    };
    return (unsigned)m < XC_APPROX_NMODES ? d[m] : "?";
}

void xc_zloss_opts_init(xc_zloss_opts *o)
{
    memset(o, 0, sizeof *o);
    o->nchans = 64;
    o->nbits = 8;
    o->tsamp = 128e-6;
    o->tobs = 262144 * 128e-6;
    o->width_pct = 5.0;
    o->zmax = 200;
    o->numharm = 1;
    o->normwidth = XC_APPROX_GPU_BLOCK;
    o->sigma_det = 6.0;
    o->ftol = 0.01;
    o->threads = 0;
    o->workdir = ".";
}

void xc_zloss_mode_opts(const xc_zloss_opts *zo, xc_approx_mode m, xc_psopts *o)
{
    xc_psopts_default(o);
    o->zmax = zo->zmax;
    o->numharm = zo->numharm;
    o->zstep = 1;
    o->normwidth = zo->normwidth;
    o->sigma = 0;     /* every candidate with a trials-corrected p < 1/2: the sigma of a miss is measured too */
    o->threads = zo->threads;
    o->zlog = m == XC_APPROX_ZLOG || m == XC_APPROX_ZLOG_RBLOCK || m == XC_APPROX_GPU;
    o->rblock = m == XC_APPROX_RBLOCK || m == XC_APPROX_ZLOG_RBLOCK || m == XC_APPROX_GPU;
    o->norm = (m == XC_APPROX_MOM || m == XC_APPROX_GPU) ? XC_NORM_MOM : XC_NORM_EXACT;
    o->logp = (m == XC_APPROX_POLY || m == XC_APPROX_GPU) ? XC_LOGP_POLY : XC_LOGP_EXACT;
}

static size_t zl_nsamp(const xc_zloss_opts *o) { return (size_t)llround(o->tobs / o->tsamp); }

double xc_zloss_snrpeak(const xc_zloss_opts *o, double z, double target_sigma)
{
    size_t N = zl_nsamp(o);
    if (N < 4 || !(target_sigma > 0) || !(o->width_pct > 0))
        return NAN;
    double dof = 2.0 * (floor(fabs(z) + 0.5) + 1), ntr = xc_pulscan_ntrials(N / 2, 1, o->zmax);
    double lo = 0, hi = 1;
    while (xc_candidate_sigma(dof + hi, dof, ntr, NULL) < target_sigma) {
        hi *= 2;
        if (hi > 1e12)
            return NAN;
    }
    for (int it = 0; it < 200 && hi - lo > 1e-9 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (xc_candidate_sigma(dof + mid, dof, ntr, NULL) < target_sigma)
            lo = mid;
        else
            hi = mid;
    }
    return xc_zloss_snrpeak_for_power(o, hi);
}

double xc_zloss_snrpeak_for_power(const xc_zloss_opts *o, double P)
{
    size_t N = zl_nsamp(o);
    if (N < 4 || !(P >= 0) || !(o->width_pct > 0))
        return NAN;
    double mean, rms, gain, d = o->width_pct / 100.0;
    xc_synth_level_stats(o->nbits, &mean, &rms, &gain);
    /* P = 2 N c1^2, c1 = a sin(pi d)/pi: the fundamental of a top hat of height a */
    double c1 = sqrt(P / (2.0 * (double)N));
    return c1 * M_PI / sin(M_PI * d) / (gain / rms);
}

double xc_zloss_bright_f(const xc_zloss_opts *o)
{
    return o->bright_f_hz > 0 ? o->bright_f_hz : 0.95 * 32768.0 / ((double)zl_nsamp(o) * o->tsamp);
}

xc_status xc_zloss_draw(const xc_zloss_opts *o, uint64_t seed, size_t npsr, double f_lo, double f_hi, double s_lo,
                        double s_hi, xc_zloss_spec *out, xc_error *err)
{
    if (!(f_lo > 0) || !(f_hi >= f_lo) || !(s_lo > 0) || !(s_hi >= s_lo) || o->zmax < 0)
        return xc_error_set(err, XC_EINVAL, "synthetic set: f %g..%g Hz, sigma %g..%g, zmax %d (need 0 < lo <= hi)",
                            f_lo, f_hi, s_lo, s_hi, o->zmax);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        return xc_error_set(err, XC_ENOMEM, "synthetic set: out of memory");
    gsl_rng_set(r, (unsigned long)seed);
    for (size_t k = 0; k < npsr; k++) {
        xc_zloss_spec *s = &out[k];
        s->f_hz = f_lo + (f_hi - f_lo) * gsl_rng_uniform(r);
        double az = o->zmax * gsl_rng_uniform(r);
        s->z = gsl_rng_uniform(r) < 0.5 ? -az : az;
        s->target_sigma = s_lo + (s_hi - s_lo) * gsl_rng_uniform(r);
        s->snrpeak = xc_zloss_snrpeak(o, s->z, s->target_sigma);
        s->seed = ((uint64_t)gsl_rng_get(r) << 32) ^ gsl_rng_get(r);
    }
    gsl_rng_free(r);
    return XC_OK;
}

void xc_zloss_result_free(xc_zloss_result *res)
{
    free(res->psr);
    memset(res, 0, sizeof *res);
}

static void rm_quiet(const char *path) { (void)remove(path); }

/* Adds the bright pulsar to the series in `dat`: drawn noiseless (in noise
 * sigmas per channel), so it is scaled by the quantiser's gain to the levels
 * the noisy series holds. */
static xc_status add_bright(const xc_zloss_opts *o, const xc_synth_params *target, const char *stem,
                            const char *dat, xc_error *err)
{
    char bstem[4120], bdat[4140], binf[4140], btruth[4160];
    snprintf(bstem, sizeof bstem, "%s-bright", stem);
    snprintf(bdat, sizeof bdat, "%s.dat", bstem);
    snprintf(binf, sizeof binf, "%s.inf", bstem);
    snprintf(btruth, sizeof btruth, "%s.truth.json", bstem);
    xc_synth_params b;
    xc_status st = xc_synth_params_copy(&b, target, err);
    if (st)
        return st;
    b.noise = 0;
    b.psr.period_ms = 1e3 / xc_zloss_bright_f(o);
    b.psr.snrpeak = xc_zloss_snrpeak_for_power(o, o->bright_power);
    b.psr.accn = 0;
    float *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    st = xc_synth_write_dedispersed(&b, bstem, btruth, NULL, err);
    xc_synth_params_free(&b);
    if (!st && !(st = xc_dat_read(dat, &x, &nx, err)) && !(st = xc_dat_read(bdat, &y, &ny, err))) {
        if (nx != ny) {
            st = xc_error_set(err, XC_EMISMATCH, "%s: %zu samples, %s: %zu", dat, nx, bdat, ny);
        } else {
            double mean, rms, gain;
            xc_synth_level_stats(o->nbits, &mean, &rms, &gain);
            for (size_t k = 0; k < nx; k++)
                x[k] += (float)(gain * y[k]);
            st = xc_dat_write(dat, x, nx, err);
        }
    }
    free(x);
    free(y);
    rm_quiet(bdat);
    rm_quiet(binf);
    rm_quiet(btruth);
    return st;
}

/* One pulsar: synthesize, FFT, search under every mode, match. */
static xc_status zloss_one(const xc_zloss_opts *o, const xc_zloss_spec *s, size_t idx, xc_zloss_psr *out,
                           xc_error *err)
{
    char stem[4096], fstem[4120], dat[4120], inf[4120], fft[4140], finf[4140], truth[4140];
    if (snprintf(stem, sizeof stem, "%s/approx-psr%04zu", o->workdir, idx) >= (int)sizeof stem)
        return xc_error_set(err, XC_EINVAL, "work directory %s: path too long", o->workdir);
    snprintf(fstem, sizeof fstem, "%s-spec", stem);
    snprintf(dat, sizeof dat, "%s.dat", stem);
    snprintf(inf, sizeof inf, "%s.inf", stem);
    snprintf(fft, sizeof fft, "%s.fft", fstem);
    snprintf(finf, sizeof finf, "%s.inf", fstem);
    snprintf(truth, sizeof truth, "%s.truth.json", stem);
    memset(out, 0, sizeof *out);
    out->spec = *s;
    if (!(s->snrpeak > 0) || !(s->f_hz > 0))
        return xc_error_set(err, XC_EINVAL, "pulsar %zu: f %g Hz, snrpeak %g: both must be > 0", idx, s->f_hz,
                            s->snrpeak);
    xc_synth_params p;
    xc_synth_params_init(&p);
    p.nchans = o->nchans;
    p.nbits = o->nbits;
    p.tsamp = o->tsamp;
    p.tobs = o->tobs;
    p.fch1 = 1500.0;
    p.foff = -4.0;
    p.seed = s->seed;
    p.nthreads = o->threads;
    p.psr.period_ms = 1e3 / s->f_hz;
    p.psr.width_pct = o->width_pct;
    p.psr.snrpeak = s->snrpeak;
    p.psr.dm = 0;
    /* fdot = -f a / c and z = fdot T^2 */
    double T = (double)zl_nsamp(o) * o->tsamp;
    p.psr.accn = -s->z * XC_SYNTH_C / (s->f_hz * T * T);
    xc_spectrum sp;
    memset(&sp, 0, sizeof sp);
    xc_candlist l;
    xc_candlist_init(&l);
    xc_status st = xc_synth_write_dedispersed(&p, stem, truth, NULL, err);
    if (!st && o->bright_power > 0)
        st = add_bright(o, &p, stem, dat, err);
    xc_synth_params_free(&p);
    /* FFTW's planner is not thread safe */
    if (!st) {
#pragma omp critical(xc_approx_fftw)
        st = xc_fft_file(dat, fstem, XC_FFT_SINGLE, err);
    }
    if (!st)
        st = xc_spectrum_load(&sp, fft, err);
    xc_truth t;
    if (!st)
        st = xc_truth_read(&t, truth, sp.T, err);
    rm_quiet(dat);
    rm_quiet(inf);
    rm_quiet(fft);
    rm_quiet(finf);
    rm_quiet(truth);
    if (st) {
        xc_spectrum_free(&sp);
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err->msg);
        return xc_error_set(err, st, "pulsar %zu (f %.6g Hz, z %.4g): %s", idx, s->f_hz, s->z, m);
    }
    /* the window follows the mean apparent frequency: a drift of z bins moves
     * the rest-frame f0 by z/(2r) from it, which the 1 % window must not judge */
    t.f0_hz = t.r / t.T;
    out->r_true = t.r;
    out->z_true = t.z;
    const xc_searcher *cpu = &xc_ps_cpu; /* interim: the split passes it in */
    if (!cpu) {
        xc_spectrum_free(&sp);
        return xc_error_set(err, XC_EUNAVAIL, "no \"cpu\" searcher registered");
    }
    xc_cmpcands_opts co;
    xc_cmpcands_opts_init(&co);
    co.truth_sigma = 0;
    co.ftol = o->ftol;
    for (int m = 0; m < XC_APPROX_NMODES && !st; m++) {
        xc_psopts so;
        xc_zloss_mode_opts(o, (xc_approx_mode)m, &so);
        xc_truthmatch tm;
        if ((st = xc_pulscan_run(cpu, &sp, &so, &l, err)) || (st = xc_cands_match_truth(&l, &t, &co, &tm, err))) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            st = xc_error_set(err, st, "pulsar %zu, mode %s: %s", idx, xc_approx_mode_key((xc_approx_mode)m), msg);
            break;
        }
        out->sigma[m] = tm.fund.found ? tm.fund.sigma : 0.0;
        out->r[m] = tm.fund.found ? tm.fund.r : NAN;
        out->z[m] = tm.fund.found ? tm.fund.z : NAN;
        out->det[m] = tm.fund.found && tm.fund.sigma > o->sigma_det;
        out->harm[m] = (tm.harm.found && tm.harm.sigma > o->sigma_det) || (tm.sub.found && tm.sub.sigma > o->sigma_det);
        xc_candlist_free(&l);
        xc_candlist_init(&l);
    }
    xc_candlist_free(&l);
    xc_spectrum_free(&sp);
    return st;
}

xc_status xc_zloss_run(const xc_zloss_opts *o, const xc_zloss_spec *specs, size_t n, xc_zloss_result *res,
                       xc_error *err)
{
    memset(res, 0, sizeof *res);
    if (!n || o->zmax < 1 || !(o->sigma_det >= 0) || !(o->ftol > 0) || !o->workdir)
        return xc_error_set(err, XC_EINVAL, "synthetic set: %zu pulsars, zmax %d, sigma %g, ftol %g (need >= 1 "
                            "pulsar, zmax >= 1, sigma >= 0, ftol > 0, a work directory)", n, o->zmax, o->sigma_det,
                            o->ftol);
    if (zl_nsamp(o) % 2)
        return xc_error_set(err, XC_EINVAL, "synthetic set: tobs/tsamp = %zu samples must be even (the FFT)",
                            zl_nsamp(o));
    res->psr = calloc(n, sizeof *res->psr);
    if (!res->psr)
        return xc_error_set(err, XC_ENOMEM, "synthetic set: out of memory for %zu pulsars", n);
    res->npsr = n;
    /* one thread per pulsar (the synthesis and the searches of one pulsar are
     * too small to share), pulsars in parallel */
    xc_zloss_opts o1 = *o;
    o1.threads = 1;
    xc_status st = XC_OK;
    long bad = -1;
#pragma omp parallel for num_threads(nthreads_of(o->threads)) schedule(dynamic, 1)
    for (long k = 0; k < (long)n; k++) {
        xc_error e;
        xc_status sk = zloss_one(&o1, &specs[k], (size_t)k, &res->psr[k], &e);
        if (sk) {
#pragma omp critical(xc_approx_zloss_error)
            if (bad < 0 || k < bad) {
                bad = k;
                st = sk;
                if (err)
                    *err = e;
            }
        }
    }
    if (st) {
        xc_zloss_result_free(res);
        return st;
    }
    for (int b = 0; b <= XC_APPROX_NZBIN; b++)
        res->zedge[b] = (double)o->zmax * b / XC_APPROX_NZBIN;
    size_t zdet[XC_APPROX_NMODES][XC_APPROX_NZBIN] = {{0}};
    for (int m = 0; m < XC_APPROX_NMODES; m++) {
        double loss = 0, lossb = 0, adr = 0, adz = 0;
        size_t na = 0, nb = 0;
        for (size_t k = 0; k < n; k++) {
            const xc_zloss_psr *q = &res->psr[k];
            int a = q->det[XC_APPROX_EXACT], d = q->det[m];
            res->ndet[m] += (size_t)d;
            res->nlost[m] += (size_t)(a && !d);
            res->ngained[m] += (size_t)(d && !a);
            res->nharm[m] += (size_t)q->harm[m];
            if (a) {
                loss += q->sigma[XC_APPROX_EXACT] - q->sigma[m];
                na++;
            }
            if (a && d) {
                lossb += q->sigma[XC_APPROX_EXACT] - q->sigma[m];
                nb++;
            }
            if (d) {
                adr += fabs(q->r[m] - q->r_true);
                adz += fabs(fabs(q->z[m]) - fabs(q->z_true));
            }
            int zb = (int)(fabs(q->z_true) / ((double)o->zmax / XC_APPROX_NZBIN));
            zb = zb < 0 ? 0 : zb >= XC_APPROX_NZBIN ? XC_APPROX_NZBIN - 1 : zb;
            if (m == 0)
                res->zcount[zb]++;
            zdet[m][zb] += (size_t)d;
        }
        res->frac[m] = (double)res->ndet[m] / (double)n;
        res->sigma_loss[m] = na ? loss / (double)na : NAN;
        res->sigma_loss_both[m] = nb ? lossb / (double)nb : NAN;
        res->mean_abs_dr[m] = res->ndet[m] ? adr / (double)res->ndet[m] : NAN;
        res->mean_abs_dz[m] = res->ndet[m] ? adz / (double)res->ndet[m] : NAN;
    }
    for (int m = 0; m < XC_APPROX_NMODES; m++)
        for (int b = 0; b < XC_APPROX_NZBIN; b++)
            res->zfrac[m][b] = res->zcount[b] ? (double)zdet[m][b] / (double)res->zcount[b] : NAN;
    return XC_OK;
}

/* ---- 4. statistics on noise-only spectra ---------------------------------- */

xc_status xc_approx_noise_ks(size_t nbins, uint64_t seed, const int *harms, int nh, const int *widths, int nw,
                             int threads, xc_noise_ks *out, xc_error *err)
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
    xc_spectrum sp;
    xc_status st = noise_spectrum(&sp, nbins, seed, err);
    if (st)
        return st;
    double *P = malloc(nbins * sizeof *P), *C = malloc((nbins + 1) * sizeof *C), *x = malloc(nbins * sizeof *x);
    if (!P || !C || !x) {
        st = xc_error_set(err, XC_ENOMEM, "noise KS: out of memory for %zu bins", nbins);
        goto done;
    }
    xc_psopts o;
    xc_psopts_default(&o);
    o.threads = threads;
    if ((st = xc_pulscan_powers_cpu(&sp, &o, P, err)))
        goto done;
    for (int a = 0; a < nh; a++) {
        int h = harms[a];
        size_t L = xc_pulscan_nfund(nbins, h);
        xc_pulscan_prefix(P, nbins, h, C);
        size_t i0 = ((size_t)(h - 1) * L + (size_t)h - 1) / (size_t)h;
        if (i0 < 1)
            i0 = 1;
        for (int b = 0; b < nw; b++) {
            size_t w = (size_t)widths[b], m = 0;
            for (size_t i = i0; i + w <= L; i += w)
                x[m++] = C[i + w] - C[i];
            xc_noise_ks *r = &out[a * nw + b];
            r->numharm = h;
            r->width = (int)w;
            r->dof = 2.0 * (double)w * h * (h + 1) / 2.0;
            r->n = m;
            xc_approx_gof_chi2(x, m, r->dof, 10, &r->gof, &r->gof_p);
            xc_approx_ks_chi2(x, m, r->dof, &r->ks_d, &r->ks_p);
        }
    }
done:
    free(P);
    free(C);
    free(x);
    xc_spectrum_free(&sp);
    return st;
}

xc_status xc_approx_false_alarms(size_t nbins, size_t nspec, uint64_t seed0, int zmax, int numharm, const double *S,
                                 int nS, double alpha, int threads, xc_noise_fa *out, xc_error *err)
{
    if (nS < 1 || !nspec || nspec > 1000000000 || nbins < 64 || !(alpha > 0 && alpha < 1))
        return xc_error_set(err, XC_EINVAL, "false alarms: nbins %zu, %zu spectra, %d thresholds, alpha %g", nbins,
                            nspec, nS, alpha);
    for (int k = 0; k < nS; k++)
        if (!(S[k] >= 0))
            return xc_error_set(err, XC_EINVAL, "false alarms: threshold %g (need >= 0)", S[k]);
    const xc_searcher *cpu = &xc_ps_cpu; /* interim: the split passes it in */
    if (!cpu)
        return xc_error_set(err, XC_EUNAVAIL, "no \"cpu\" searcher registered");
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = zmax;
    o.numharm = numharm;
    o.zstep = 1;
    o.sigma = 0;
    o.nosift = 1;
    o.threads = threads;
    xc_status st = xc_psopts_check(&o, err);
    if (st)
        return st;
    for (int k = 0; k < nS; k++) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].zmax = zmax;
        out[k].numharm = numharm;
        out[k].S = S[k];
        out[k].nspec = nspec;
        out[k].ntrials = xc_pulscan_ntrials(nbins, 1, zmax);
        out[k].expect = (double)nspec * numharm * gsl_cdf_ugaussian_Q(S[k]);
        out[k].pfam = -expm1(-numharm * gsl_cdf_ugaussian_Q(S[k]));
    }
    size_t *cnt = calloc(nspec * (size_t)nS, sizeof *cnt);
    if (!cnt)
        return xc_error_set(err, XC_ENOMEM, "false alarms: out of memory for %zu spectra", nspec);
    /* small spectra: one thread per search, the spectra in parallel */
    o.threads = 1;
    long bad = -1;
#pragma omp parallel for num_threads(nthreads_of(threads)) schedule(dynamic, 4)
    for (long s = 0; s < (long)nspec; s++) {
        xc_error e;
        xc_spectrum sp;
        xc_status se = noise_spectrum(&sp, nbins, seed0 + (uint64_t)s, &e);
        if (!se) {
            xc_candlist l;
            xc_candlist_init(&l);
            if (!(se = xc_pulscan_run(cpu, &sp, &o, &l, &e)))
                for (int k = 0; k < nS; k++)
                    for (size_t c = 0; c < l.n; c++)
                        cnt[(size_t)s * (size_t)nS + (size_t)k] += l.c[c].sigma > S[k];
            xc_candlist_free(&l);
            xc_spectrum_free(&sp);
        }
        if (se) {
#pragma omp critical(xc_approx_fa_error)
            if (bad < 0 || s < bad) {
                bad = s;
                st = se;
                if (err)
                    *err = e;
            }
        }
    }
    for (size_t s = 0; s < nspec; s++)
        for (int k = 0; k < nS; k++) {
            size_t c = cnt[s * (size_t)nS + (size_t)k];
            out[k].count += c;
            out[k].nfam += c > 0;
        }
    free(cnt);
    for (int k = 0; k < nS; k++)
        xc_approx_binom_bounds(nspec, out[k].pfam, alpha, &out[k].lo, &out[k].hi);
    return st;
}
