/* Red-noise removal by running medians in logarithmically growing blocks
 * (core/search/spectrum/xc_rednoise.h; PRESTO src/misc_utils.c dered_engine). */
#include "core/search/spectrum/xc_rednoise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median(|X|^2)/ln 2 over bins [lo, lo + n). */
static double level(const float *X, size_t lo, size_t n, double *buf)
{
    for (size_t k = 0; k < n; k++) {
        double re = X[2 * (lo + k)], im = X[2 * (lo + k) + 1];
        buf[k] = re * re + im * im;
    }
    qsort(buf, n, sizeof *buf, cmp_double);
    double m = n % 2 ? buf[n / 2] : 0.5 * (buf[n / 2 - 1] + buf[n / 2]);
    return m / M_LN2;
}

/* PRESTO's next block length, the block starting at bin b (after the
 * first block the length grows without looking at endfreq, as PRESTO). */
static size_t next_len(size_t b, int startwidth, int endwidth, double endfreq, float Tf, int first)
{
    if (!first && !((float)b / Tf < endfreq))
        return (size_t)endwidth;
    long len = (long)(startwidth * log((double)b));
    return len > endwidth ? (size_t)endwidth : (size_t)len;
}

/* Scales bins [lo, lo + n) by 1/sqrt(mean + slope * j), j counting from j0. */
static void scale(float *X, size_t lo, size_t n, double mean, double slope, size_t j0)
{
    for (size_t k = 0; k < n; k++) {
        double s = 1.0 / sqrt(mean + slope * (double)(j0 + k));
        X[2 * (lo + k)] = (float)(X[2 * (lo + k)] * s);
        X[2 * (lo + k) + 1] = (float)(X[2 * (lo + k) + 1] * s);
    }
}

xc_status xc_deredden(float *X, size_t nbins, int startwidth, int endwidth, double endfreq, double T,
                      xc_error *err)
{
    if (startwidth < 2 || endwidth < startwidth)
        return xc_error_set(err, XC_EINVAL, "rednoise: block widths %d..%d: need 2 <= start <= end", startwidth,
                            endwidth);
    if (!X || nbins < (size_t)startwidth + 1 || !(T > 0))
        return xc_error_set(err, XC_EINVAL, "rednoise: %zu bins (need at least %d) and T = %g s (need > 0)", nbins,
                            startwidth + 1, T);
    /* Pass 1: the block levels (read only, so a refusal leaves X unchanged).
     * Every block but the last holds at least startwidth bins. */
    size_t cap = nbins / (size_t)startwidth + 2, nb = 0;
    size_t *start = malloc(cap * sizeof *start);
    double *mean = malloc(cap * sizeof *mean), *buf = malloc((size_t)endwidth * sizeof *buf);
    xc_status st = start && mean && buf ? XC_OK : xc_error_set(err, XC_ENOMEM, "rednoise: out of memory");
    const float Tf = (float)T;
    for (size_t b = 1, len = (size_t)startwidth; !st && b < nbins; nb++) {
        size_t n = b + len <= nbins ? len : nbins - b;
        start[nb] = b;
        mean[nb] = level(X, b, n, buf);
        if (!(mean[nb] > 0) || !isfinite(mean[nb]))
            st = xc_error_set(err, XC_EINVAL, "rednoise: bins %zu..%zu have median power %g: nothing to divide by", b,
                              b + n - 1, mean[nb] * M_LN2);
        b += n;
        len = next_len(b, startwidth, endwidth, endfreq, Tf, nb == 0);
    }
    /* Pass 2: the first half of block 0 at its own level; then from each
     * block's midpoint to the next one's on the line between their levels;
     * the second half of the last block on the last slope. */
    double slope = 0;
    for (size_t k = 0; !st && k < nb; k++) {
        size_t n = (k + 1 < nb ? start[k + 1] : nbins) - start[k], mid = n / 2;
        if (k == 0)
            scale(X, start[0], mid, mean[0], 0, 0);
        if (k + 1 < nb) {
            size_t n2 = (k + 2 < nb ? start[k + 2] : nbins) - start[k + 1];
            slope = (mean[k + 1] - mean[k]) / (0.5 * (double)(n + n2));
            scale(X, start[k] + mid, n - mid, mean[k], slope, 0);
            scale(X, start[k + 1], n2 / 2, mean[k], slope, n - mid);
        } else {
            scale(X, start[k] + mid, n - mid, mean[k], slope, 0);
        }
    }
    free(start);
    free(mean);
    free(buf);
    return st;
}

xc_status xc_spectrum_deredden(const xc_spectrum *sp, xc_spectrum *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    if (!sp || !sp->data)
        return xc_error_set(err, XC_EINVAL, "rednoise: no spectrum");
    float *d = malloc(2 * sp->nbins * sizeof *d);
    if (!d)
        return xc_error_set(err, XC_ENOMEM, "rednoise: out of memory for %zu bins", sp->nbins);
    memcpy(d, sp->data, 2 * sp->nbins * sizeof *d);
    xc_status st = xc_deredden(d, sp->nbins, XC_REDNOISE_STARTWIDTH, XC_REDNOISE_ENDWIDTH,
                               (double)sp->nbins / sp->T, sp->T, err);
    if (st) {
        free(d);
        return st;
    }
    *out = *sp;
    out->data = d;
    out->dev = NULL;   /* the device copy holds the undereddened values */
    out->share = NULL;
    out->owned = 1;
    return XC_OK;
}

xc_status xc_spectrum_whiten(const xc_spectrum *sp, int on, xc_spectrum *tmp, const xc_spectrum **use,
                             xc_error *err)
{
    memset(tmp, 0, sizeof *tmp);
    *use = sp;
    if (!on)
        return XC_OK;
    xc_status st = xc_spectrum_deredden(sp, tmp, err);
    if (!st)
        *use = tmp;
    return st;
}
