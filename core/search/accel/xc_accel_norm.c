/* Block-median normalisation of Fourier amplitudes (median/ln 2), as
 * accelsearch's default (PRESTO src/accel_utils.c subharm_fderivs_vol): noise
 * powers |X|^2 are exponential, the median of Exp(1) is ln 2, so dividing
 * by median/ln 2 gives mean-1 powers. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/xc_accel.h"
#include "core/search/stats/xc_select.h"

XC_DEFINE_SELECT(select_d, double)
/* The exact median (mean of the two middle values for even n, as GSL's
 * gsl_stats_median, which accelsearch's median() follows), by selection:
 * the same value a sort gives, in linear time. */
XC_DEFINE_MEDIAN(median_sel, double, select_d)

/* The same median in place (preset presto's windows: the caller's buffer
 * holds n values and no scratch): the lower middle by selection, then (even
 * n) the upper one, the least of the values above it; a sort's two middle
 * values. */
static double median_inplace(double *v, size_t n)
{
    const long kl = ((long)n - 1) / 2, ku = (long)n / 2;
    select_d(v, 0, (long)n - 1, kl);
    if (ku > kl)
        select_d(v, ku, (long)n - 1, ku);
    return 0.5 * (v[kl] + v[ku]);
}

xc_status xc_accel_norm_scales(const float *X, size_t nbins, size_t normwidth, double *s, xc_error *err)
{
    return xc_accel_norm_scales_threads(X, nbins, normwidth, 1, s, err);
}

xc_status xc_accel_norm_block_scales(const float *X, size_t nbins, size_t normwidth, int threads, double *bs,
                                     xc_error *err)
{
    size_t nb = xc_pulscan_nblocks(nbins, normwidth);
    double *med = malloc(nb * sizeof *med);
    if (!med)
        return xc_error_set(err, XC_ENOMEM, "accel normalisation: out of memory");
    /* Blocks are independent and each median is exact, so threads change
     * only the time (a 2^21-bin spectrum: tens of ms on one thread, paid by
     * every search of it). */
    int nt = threads > 0 ? threads : omp_get_max_threads(), oom = 0;
    const long nbl = (long)nb;
#pragma omp parallel num_threads(nt) reduction(| : oom)
    {
        double *buf = malloc(2 * (2 * normwidth + 1) * sizeof *buf);   /* values, then selection scratch */
        if (!buf)
            oom = 1;
#pragma omp for schedule(static)
        for (long b = 0; b < nbl; b++) {
            if (!buf)
                continue;
            size_t lo, hi;
            xc_pulscan_block(nbins, normwidth, (size_t)b, &lo, &hi);
            for (size_t k = lo; k < hi; k++)
                buf[k - lo] = (double)X[2 * k] * X[2 * k] + (double)X[2 * k + 1] * X[2 * k + 1];
            med[b] = median_sel(buf, hi - lo, buf + (hi - lo));
        }
        free(buf);
    }
    if (oom) {
        free(med);
        return xc_error_set(err, XC_ENOMEM, "accel normalisation: out of memory");
    }
    /* A block whose median power is 0 (over half its bins exactly 0, e.g.
     * zapped) borrows the nearest block's (the lower one at equal distance),
     * as the Pulscan searcher's normalisation does; accelsearch would divide
     * by zero. */
    xc_status st = XC_OK;
    for (size_t b = 0; b < nb && !st; b++) {
        double m = med[b];
        for (size_t dist = 1; !(m > 0) && dist < nb; dist++) {
            if (b >= dist && med[b - dist] > 0)
                m = med[b - dist];
            else if (b + dist < nb && med[b + dist] > 0)
                m = med[b + dist];
        }
        if (!(m > 0) || !isfinite(m))
            st = xc_error_set(err, XC_EINVAL, "accel normalisation: every block has median power 0 (or not finite): "
                              "nothing to normalise by");
        bs[b] = sqrt(M_LN2 / m);
    }
    free(med);
    return st;
}

xc_status xc_accel_norm_scales_threads(const float *X, size_t nbins, size_t normwidth, int threads, double *s,
                                       xc_error *err)
{
    /* the blocks' scales in s[0..nb), spread from the last block down:
     * block b's bins start at 1 + b normwidth > b, above every scale still
     * to be read */
    const size_t nb = xc_pulscan_nblocks(nbins, normwidth);
    xc_status st = xc_accel_norm_block_scales(X, nbins, normwidth, threads, s, err);
    for (size_t b = nb; b-- > 0 && !st;) {
        size_t lo, hi;
        xc_pulscan_block(nbins, normwidth, b, &lo, &hi);
        const double v = s[b];
        for (size_t k = lo; k < hi; k++)
            s[k] = v;
    }
    if (!st)
        s[0] = 0;   /* bin 0 packs DC and Nyquist: never used */
    return st;
}

void xc_accel_amps_get(const xc_accel_amps *a, long lo, size_t n, float *out)
{
    const size_t nb = xc_pulscan_nblocks(a->nbins, a->normwidth);
    for (size_t j = 0; j < n; j++) {
        const size_t k = (size_t)lo + j;
        size_t b = k ? (k - 1) / a->normwidth : 0;
        b = b < nb ? b : nb - 1;
        const double s = k ? a->bscale[b] : 0;
        out[2 * j] = (float)(a->X[2 * k] * s);
        out[2 * j + 1] = (float)(a->X[2 * k + 1] * s);
    }
}

double xc_accel_norm_window(const float *X, size_t nbins, long lobin, size_t n, double *d)
{
    /* accelsearch: get_fourier_amplitudes zero-pads outside the spectrum;
     * POWER() in float; median(); norm = 1/sqrt(median/ln 2). */
    for (size_t i = 0; i < n; i++) {
        long k = lobin + (long)i;
        float p = 0;
        if (k >= 0 && (size_t)k < nbins)
            p = X[2 * k] * X[2 * k] + X[2 * k + 1] * X[2 * k + 1];
        d[i] = p;
    }
    double m = median_inplace(d, n);
    return m > 0 ? 1.0 / sqrt(m / M_LN2) : 0;
}
