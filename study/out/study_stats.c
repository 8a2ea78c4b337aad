/* The study's statistics: binomial intervals and straight-line fits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "study/spec/study_internal.h"

/* Wilson (1927) score interval: the interval of p whose score test at 95 %
 * accepts k of n.  Unlike the normal approximation it stays inside [0, 1]
 * and is not empty at k = 0 or k = n, which small studies hit often. */
void xc_wilson95(uint64_t k, uint64_t n, double *lo, double *hi)
{
    if (n == 0 || k > n) {
        *lo = *hi = NAN;
        return;
    }
    const double z = 1.959963984540054;   /* Phi^-1(0.975) */
    const double N = (double)n, p = (double)k / N, z2 = z * z;
    const double den = 1 + z2 / N;
    const double centre = (p + z2 / (2 * N)) / den;
    const double half = z * sqrt(p * (1 - p) / N + z2 / (4 * N * N)) / den;
    *lo = k == 0 ? 0.0 : fmax(0.0, centre - half);
    *hi = k == n ? 1.0 : fmin(1.0, centre + half);
}

/* Ordinary least squares in double, centred sums (stable for large offsets). */
void xc_linfit_compute(const double *x, const double *y, size_t n, xc_linfit *f)
{
    f->n = n;
    f->slope = f->intercept = f->r2 = f->resid_rms = NAN;
    if (n < 3)
        return;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = x[i] - mx, dy = y[i] - my;
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if (!(sxx > 0))
        return;
    f->slope = sxy / sxx;
    f->intercept = my - f->slope * mx;
    double ss = 0;
    for (size_t i = 0; i < n; i++) {
        double e = y[i] - (f->intercept + f->slope * x[i]);
        ss += e * e;
    }
    f->r2 = syy > 0 ? 1 - ss / syy : 1.0;
    f->resid_rms = sqrt(ss / (double)n);
}

/* The z fit of one configuration: over the pulsars it detects at the
 * fundamental, baseline removed; abs: both sides |z|. */
void xc_study_zfit_rows(const xc_study *st, const xc_study_table *t, size_t k, size_t q, int abs, double *x,
                        double *y, xc_linfit *f)
{
    size_t n = 0;
    for (size_t p = 0; p < t->np; p++) {
        const xc_study_row *r = t->grid[p * t->nsearch + q];
        if ((t->removed[p] && !st->s[k].baseline) || !r->detected || r->harm_n != 1 || !isfinite(r->z))
            continue;
        x[n] = abs ? fabs(r->z_true) : r->z_true;
        y[n] = abs ? fabs(r->z) : r->z;
        n++;
    }
    xc_linfit_compute(x, y, n, f);
}

void xc_study_zfit(const xc_study *st, const xc_study_table *t, size_t k, size_t c, int abs, xc_linfit *f)
{
    double *x = malloc((t->np ? t->np : 1) * sizeof *x), *y = malloc((t->np ? t->np : 1) * sizeof *y);
    if (!x || !y) {
        f->n = 0;
        f->slope = f->intercept = f->r2 = f->resid_rms = NAN;
    } else {
        xc_study_zfit_rows(st, t, k, xc_study_search_index(st, (int)k, (int)c), abs, x, y, f);
    }
    free(x);
    free(y);
}
