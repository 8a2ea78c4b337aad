/* Normalisation blocks, borrowing, the median of medians, trials and the
 * per-width power thresholds (xc_search.h, steps 1, 5 and 6). */
#include "core/search/xc_search.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_sf_erf.h>
#include <omp.h>

#include "core/io/xc_presto.h"
#include "core/search/stats/xc_signif.h"

/* ---- layout, trials ------------------------------------------------------- */

xc_status xc_pulscan_borrow(double *med, double *mad, size_t nb, size_t nbins, xc_error *err)
{
    for (int part = 0; part < 2; part++)
        for (size_t b = 0; b < nb; b++) {
            size_t self = 2 * b + (size_t)part, from = self;
            if (mad[self] > 0)
                continue;
            for (size_t k = 1; k < nb && from == self; k++) {
                if (b >= k && mad[2 * (b - k) + (size_t)part] > 0)
                    from = 2 * (b - k) + (size_t)part;
                else if (b + k < nb && mad[2 * (b + k) + (size_t)part] > 0)
                    from = 2 * (b + k) + (size_t)part;
            }
            if (from == self)
                return xc_error_set(err, XC_EINVAL,
                                    "the %s parts of bins 1..%zu have a median absolute deviation of 0 in "
                                    "every normalisation block (constant data): cannot normalise",
                                    part ? "imaginary" : "real", nbins - 1);
            /* Borrow the block's own statistics, never borrowed ones, so the
             * result does not depend on the order of the blocks. */
            med[self] = med[from];
            mad[self] = -mad[from];
        }
    for (size_t k = 0; k < 2 * nb; k++)
        mad[k] = fabs(mad[k]);
    return XC_OK;
}

static double med_small(double *v, size_t n)
{
    if (n == 1)
        return v[0];
    if (n == 2)
        return 0.5 * (v[0] + v[1]);
    double a = v[0], b = v[1], c = v[2];
    return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

double xc_median_of_medians(double *buf, size_t n)
{
    while (n > 1) {
        size_t s = n / 4, rem = n - 4 * s, m = 0;
        for (size_t t = 0; t < s; t++) {
            double a = buf[t], b = buf[t + s], c = buf[t + 2 * s], d = buf[t + 3 * s];
            double lo = fmin(fmin(a, b), fmin(c, d)), hi = fmax(fmax(a, b), fmax(c, d));
            buf[m++] = (a + b + c + d - lo - hi) * 0.5;
        }
        if (rem) {
            double left[3];
            memcpy(left, buf + 4 * s, rem * sizeof *left);
            buf[m++] = med_small(left, rem);
        }
        n = m;
    }
    return buf[0];
}

double xc_pulscan_score(double power, double dof) { return xc_pulscan_score_inline(power, dof); }

size_t xc_pulscan_nfund(size_t nbins, int h) { return nbins / (size_t)h; }

double xc_pulscan_ntrials(size_t nbins, int h, int zmax)
{
    size_t L = xc_pulscan_nfund(nbins, h);
    double t = (L > 1 ? (double)(L - 1) : 1.0) * (1.0 + zmax / 6.95);
    return t > 1 ? t : 1;
}

int xc_pulscan_width_searched(const xc_psopts *o, int w)
{
    int z = w - 1;
    if (z < 0 || z > o->zmax)
        return 0;
    if (o->zlog)
        return z == 0 || (z & (z - 1)) == 0;
    return z % o->zstep == 0;
}

/* ---- thresholds ------------------------------------------------------------ */

xc_status xc_pulscan_thresholds(const xc_psopts *o, size_t nbins, double **thr, xc_error *err)
{
    size_t stride = (size_t)o->zmax + 2;
    double *t = calloc((size_t)o->numharm * stride, sizeof *t);
    if (!t)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %d x %zu thresholds", o->numharm, stride);
    for (int h = 1; h <= o->numharm; h++) {
        double ntr = xc_pulscan_ntrials(nbins, h, o->zmax);
        for (int w = 1; w <= o->zmax + 1; w++)
            t[(size_t)(h - 1) * stride + (size_t)w] =
                xc_pulscan_width_searched(o, w) ? xc_power_threshold(o->sigma, (double)w * h * (h + 1), ntr)
                                                : INFINITY;
    }
    *thr = t;
    return XC_OK;
}

