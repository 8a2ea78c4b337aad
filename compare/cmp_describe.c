/* cmp_describe.c: how one DM trial of an output differs from the
 * reference's, in words, when the difference is a simple one (xc_compare.h). */
#include "compare/xc_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int near(double x, double y, double tol)
{
    return fabs(x - y) <= tol || (isnan(x) && isnan(y));
}

/* Whether a[t] == b[t + s] within tol wherever both exist, over at least
 * half the row, with b not flat there (a flat row matches every shift). */
static int is_shift(const float *a, const float *b, size_t n, long s, double tol)
{
    size_t lo = s < 0 ? (size_t)-s : 0, hi = s > 0 ? n - (size_t)s : n;
    if (hi <= lo || 2 * (hi - lo) < n)
        return 0;
    int flat = 1;
    for (size_t t = lo; t < hi; t++) {
        float y = b[(size_t)((long)t + s)];
        if (!near(a[t], y, tol))
            return 0;
        flat = flat && y == b[(size_t)((long)lo + s)];
    }
    return !flat;
}

static const char *samples(long k)
{
    return k == 1 ? "sample" : "samples";
}

void xc_cmp_describe_row(const float *a, const float *b, size_t n, double tol, int maxshift, char *out, size_t nout)
{
    if (!nout)
        return;
    out[0] = 0;
    if (n < 2)
        return;
    for (long k = 1; k <= maxshift; k++)
        for (int sg = 1; sg >= -1; sg -= 2) {
            long s = sg * k;
            if (!is_shift(a, b, n, s, tol))
                continue;
            snprintf(out, nout, "the reference's series shifted by %ld %s: output sample t is reference sample "
                     "t%+ld (its features come %ld %s %s)", k, samples(k), s, k, samples(k), s > 0 ? "early" : "late");
            return;
        }
    /* a scale: a = c b, c by least squares, every sample within tol of it
     * (and of rounding, a float's 2^-24 relative) */
    double ab = 0, bb = 0, ma = 0, mb = 0;
    for (size_t t = 0; t < n; t++)
        if (isfinite(a[t]) && isfinite(b[t])) {
            ab += (double)a[t] * b[t];
            bb += (double)b[t] * b[t];
            ma = fmax(ma, fabs(a[t]));
            mb = fmax(mb, fabs(b[t]));
        }
    if (!(bb > 0) || !(mb > 0))
        return;
    double c = ab / bb;
    int scaled = 1;
    for (size_t t = 0; t < n && scaled; t++)
        scaled = near(a[t], c * b[t], tol + 0x1p-20 * fabs(c) * mb);
    if (scaled && !near(c, 1.0, 1e-6))
        snprintf(out, nout, "the reference's series times %.6g (amplitude ratio %.6g)", c, c);
    else if (!near(ma / mb, 1.0, 0.01))
        snprintf(out, nout, "amplitude ratio max|output| / max|reference| %.4g along the trial", ma / mb);
}

void xc_cmpresult_describe(const xc_cmpresult *res, const xc_cmpside *a, const xc_cmpside *b, char *out, size_t nout)
{
    if (!nout)
        return;
    out[0] = 0;
    if (!res->n_over || res->first.range < 0 || res->first.range >= res->nranges)
        return;
    int k = res->first.range;
    const xc_planerange *ra = &a->plane->r[k], *rb = &b->plane->r[k];
    size_t j = res->first.idm;
    char what[400];
    double tol = res->cls == XC_CLASS_EXACT ? 0 : res->r[k].bound;
    xc_cmp_describe_row(ra->data + j * ra->nsamp, rb->data + j * rb->nsamp, ra->nsamp, tol, 8, what, sizeof what);
    if (what[0])
        snprintf(out, nout, "; DM %g (trial %zu) is %s", res->first.dm, j, what);
}
