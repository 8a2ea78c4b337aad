/* The reference Pulscan search: the obvious loops of xc_search.h, steps 1-5.
 *
 * Medians by a full sort (mean of the two middle values for even n), every
 * boxcar width summed directly in double from its own start (no recursion),
 * every start of every searched width evaluated.  It fixes, by construction,
 * what was measured wrong in Pulscan's CPU code: bin 0 (DC with the Nyquist
 * value packed in) is neither normalised nor searched; a short last
 * normalisation block joins the one before it and a block with MAD 0 borrows
 * the nearest proper block's median and MAD instead of staying raw; the block
 * size does not follow zmax; r is the boxcar centre.  It trades all speed for being obviously right. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reference/xc_reference.h"
#include "core/base/xc_grow.h"

static int dcmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

static double median_sort(double *v, size_t n)
{
    qsort(v, n, sizeof *v, dcmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) * 0.5;
}

/* Median and MAD of one part (0 real, 1 imaginary) over bins [lo, hi). */
static void block_stats(const float *d, int part, size_t lo, size_t hi, xc_norm_mode mode, double *buf,
                        double *med, double *mad)
{
    size_t n = hi - lo;
    for (size_t k = 0; k < n; k++)
        buf[k] = d[2 * (lo + k) + (size_t)part];
    *med = mode == XC_NORM_MOM ? xc_median_of_medians(buf, n) : median_sort(buf, n);
    for (size_t k = 0; k < n; k++)
        buf[k] = fabs((double)d[2 * (lo + k) + (size_t)part] - *med);
    *mad = mode == XC_NORM_MOM ? xc_median_of_medians(buf, n) : median_sort(buf, n);
}

/* Steps 1-2 on checked input. */
static xc_status powers(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, double *P, xc_error *err)
{
    (void)self;
    xc_status st = XC_OK;
    size_t nb = xc_pulscan_nblocks(sp->nbins, o->normwidth);
    double *buf = malloc(sp->nbins * sizeof *buf);
    double *med = malloc(2 * nb * sizeof *med), *scale = malloc(2 * nb * sizeof *scale);
    if (!buf || !med || !scale) {
        free(buf);
        free(med);
        free(scale);
        return xc_error_set(err, XC_ENOMEM, "reference: out of memory normalising %zu bins", sp->nbins);
    }
    for (int part = 0; part < 2; part++)
        for (size_t b = 0; b < nb; b++) {
            size_t lo, hi;
            xc_pulscan_block(sp->nbins, o->normwidth, b, &lo, &hi);
            size_t at = 2 * b + (size_t)part;
            block_stats(sp->data, part, lo, hi, o->norm, buf, &med[at], &scale[at]);
        }
    st = xc_pulscan_borrow(med, scale, nb, sp->nbins, err);
    for (size_t k = 0; k < 2 * nb; k++)
        scale[k] *= XC_MAD_TO_SIGMA;
    if (!st) {
        P[0] = 0;
        for (size_t b = 0; b < nb; b++) {
            size_t lo, hi;
            xc_pulscan_block(sp->nbins, o->normwidth, b, &lo, &hi);
            for (size_t k = lo; k < hi; k++) {
                double re = ((double)sp->data[2 * k] - med[2 * b]) / scale[2 * b];
                double im = ((double)sp->data[2 * k + 1] - med[2 * b + 1]) / scale[2 * b + 1];
                P[k] = re * re + im * im;
            }
        }
    }
    free(buf);
    free(med);
    free(scale);
    return st;
}

/* Row of boxcar sums of stage h, width w: R[i] for starts i = 0..L+1,
 * -infinity where the boxcar does not exist: i = 0, the boxcar would leave
 * S_h, or i < (h-1)*w, where harmonic k's bins k*i .. k*(i+w)-1 reach into
 * harmonic k+1's, so some bins would be counted twice and the sum would not
 * be chi-square with its stated dof. */
static void boxcar_row(const double *S, size_t L, int w, int h, double *R)
{
    for (size_t i = 0; i <= L + 1; i++) {
        if (i == 0 || i < (size_t)(h - 1) * (size_t)w || (size_t)w >= L || i > L - (size_t)w) {
            R[i] = -INFINITY;
            continue;
        }
        double s = 0;
        for (size_t m = 0; m < (size_t)w; m++)
            s += S[i + m];
        R[i] = s;
    }
}

/* Score of boxcar (start i, width w) in the local-maximum test: -infinity
 * unless it is filled. */
static double score(const double *C, const double *R, size_t i, int w, int h)
{
    if (!xc_pulscan_filled(C, i, w, h, R[i]))
        return -INFINITY;
    return xc_pulscan_score(R[i], (double)w * h * (h + 1));
}

static double score3(const double *C, const double *R, size_t i, int w, int h)
{
    if (w == 0)
        return -INFINITY;
    return fmax(score(C, R, i - 1, w, h), fmax(score(C, R, i, w, h), score(C, R, i + 1, w, h)));
}

/* Steps 3-5 on the powers P. */
static xc_status search(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P, const double *thr,
                        xc_pspeaks *pk, xc_error *err)
{
    (void)self;
    size_t nbins = sp->nbins, stride = (size_t)o->zmax + 2;
    double *S = malloc(nbins * sizeof *S), *rows = malloc(3 * (nbins + 2) * sizeof *rows);
    double *C = malloc((nbins + 1) * sizeof *C);
    int *ws = malloc(((size_t)o->zmax + 1) * sizeof *ws);
    xc_status st = XC_OK;
    if (!S || !rows || !ws || !C)
        st = xc_error_set(err, XC_ENOMEM, "reference: out of memory for %zu bins", nbins);
    /* progress: the searched widths of every stage, each stage counted as
     * many as the first's (a stage with fewer reports its end at once) */
    uint64_t nw1 = 0, pdone = 0;
    for (int w = 1; w <= o->zmax + 1; w++)
        nw1 += xc_pulscan_width_searched(o, w) != 0;
    uint64_t ptotal = nw1 * (uint64_t)o->numharm;
    for (int h = 1; h <= o->numharm && !st; h++) {
        size_t L = xc_pulscan_nfund(nbins, h);
        for (size_t i = 0; i < L; i++)
            S[i] = xc_pulscan_sh(P, h, i);
        xc_pulscan_prefix(P, nbins, h, C);
        /* Searched widths that have at least one start (w <= L - 1). */
        int nw = 0;
        for (int w = 1; w <= o->zmax + 1; w++)
            if (xc_pulscan_width_searched(o, w) && (size_t)w + 1 <= L)
                ws[nw++] = w;
        double *prev = rows, *cur = rows + (nbins + 2), *next = rows + 2 * (nbins + 2);
        for (size_t i = 0; i <= L + 1; i++)
            prev[i] = -INFINITY;
        if (nw)
            boxcar_row(S, L, ws[0], h, cur);
        for (int k = 0; k < nw && !st; k++) {
            int w = ws[k];
            xc_progress_report(&o->progress, "pulscan", pdone + (uint64_t)k, ptotal);
            size_t imax = L - (size_t)w;     /* starts up to imax keep the boxcar inside S_h */
            double t = thr[(size_t)(h - 1) * stride + (size_t)w];
            if (o->rblock) {
                for (size_t c = 0; c * o->chunkwidth <= imax && !st; c++) {
                    size_t s0 = c * o->chunkwidth > 1 ? c * o->chunkwidth : 1;
                    size_t s1 = (c + 1) * o->chunkwidth - 1 < imax ? (c + 1) * o->chunkwidth - 1 : imax;
                    if (s0 > s1)
                        continue;
                    /* Boxcars that do not exist are -infinity: the maximum is over
                     * the existing ones, and a block with none pushes nothing. */
                    size_t best = s0;
                    for (size_t i = s0 + 1; i <= s1; i++)
                        if (cur[i] > cur[best])
                            best = i;
                    if (cur[best] > t)
                        st = xc_pspeaks_push(pk, best, w, h, cur[best], err);
                }
                if (k + 1 < nw)
                    boxcar_row(S, L, ws[k + 1], h, cur);
                continue;
            }
            if (k + 1 < nw)
                boxcar_row(S, L, ws[k + 1], h, next);
            else
                for (size_t i = 0; i <= L + 1; i++)
                    next[i] = -INFINITY;
            /* A local maximum among the filled boxcars of the (start, searched
             * width) grid; ties go to the first in (width, start) order. */
            int wprev = k ? ws[k - 1] : 0, wnext = k + 1 < nw ? ws[k + 1] : 0;
            for (size_t i = 1; i <= imax && !st; i++) {
                double v = cur[i];
                if (!(v > t) || !xc_pulscan_filled(C, i, w, h, v))
                    continue;
                double sc = xc_pulscan_score(v, (double)w * h * (h + 1));
                if (sc > score(C, cur, i - 1, w, h) && sc >= score(C, cur, i + 1, w, h) &&
                    sc > score3(C, prev, i, wprev, h) && sc >= score3(C, next, i, wnext, h))
                    st = xc_pspeaks_push(pk, i, w, h, v, err);
            }
            double *tmp = prev;
            prev = cur;
            cur = next;
            next = tmp;
        }
        pdone += nw1;
        xc_progress_report(&o->progress, "pulscan", pdone, ptotal);
    }
    xc_free_each(4, S, C, rows, ws);
    return st;
}

/* No XC_CAP_THREADED: one thread throughout, significance included. */
const xc_searcher xc_ps_reference = {
    .impl = {.family = XC_FAMILY_PULSCAN, .name = "reference", .tol = {XC_TOL_EXACT, 0}, .caps = XC_CAP_REFERENCE,
             .desc = "full-sort medians, direct double sums for every boxcar width, exact significance"},
    .powers = powers, .peaks = search};
