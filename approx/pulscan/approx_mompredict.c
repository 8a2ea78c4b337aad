/* The median of medians of 4^k Gaussian values, predicted by propagating
 * densities level by level (xc_approx_mom_predict in xc_approx_norm.h). */
#include "approx/pulscan/xc_approx_norm.h"

#include <math.h>
#include <stdlib.h>

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
