/* Pulscan normalisation on the CPU: median and MAD by quickselect (Floyd &
 * Rivest's), blocks in parallel.  The exact median needs both middle values
 * for even n (Pulscan's quickselect took the lower one only).  Values, blocks, the borrowing of
 * statistics by blocks with MAD 0 and the arithmetic are those of the
 * reference, so the powers agree bit for bit. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/stats/xc_select.h"
#include "optimized/cpu/pulscan_internal.h"
#include "optimized/cpu/xc_cpu.h"

XC_DEFINE_SELECT(select_f, float)
XC_DEFINE_SELECT(select_d, double)

XC_DEFINE_MEDIAN(median_f, float, select_f)
XC_DEFINE_MEDIAN(median_d, double, select_d)

/* Median and MAD of one part over bins [lo, hi); buf holds 2*(hi-lo) doubles. */
static void block_stats(const float *d, int part, size_t lo, size_t hi, xc_norm_mode mode, double *buf,
                        double *med, double *mad)
{
    size_t n = hi - lo;
    const float *x = d + 2 * lo + (size_t)part;
    double *dev = buf, *tmp = buf + n;
    if (mode == XC_NORM_MOM) {
        for (size_t k = 0; k < n; k++)
            dev[k] = x[2 * k];
        *med = xc_median_of_medians(dev, n);
    } else {
        float *f = (float *)buf;
        for (size_t k = 0; k < n; k++)
            f[k] = x[2 * k];
        *med = median_f(f, n, (float *)tmp);
    }
    for (size_t k = 0; k < n; k++)
        dev[k] = fabs((double)x[2 * k] - *med);
    *mad = mode == XC_NORM_MOM ? xc_median_of_medians(dev, n) : median_d(dev, n, tmp);
}

xc_status xc_pulscan_powers_cpu_checked(const xc_spectrum *sp, const xc_psopts *o, double *P, xc_error *err)
{
    xc_status st = XC_OK;
    size_t nbins = sp->nbins, nb = xc_pulscan_nblocks(nbins, o->normwidth);
    double *med = malloc(2 * nb * sizeof *med), *scale = malloc(2 * nb * sizeof *scale);
    if (!med || !scale) {
        free(med);
        free(scale);
        return xc_error_set(err, XC_ENOMEM, "cpu: out of memory for %zu normalisation blocks", nb);
    }
    int nth = o->threads > 0 ? o->threads : omp_get_max_threads();
    size_t bufn = 2 * (nb == 1 ? nbins : 2 * o->normwidth);    /* twice the largest block */
    /* One scratch buffer a thread, all allocated here (each thread's pages are
     * first touched by that thread). */
    double *bufs = malloc((size_t)nth * bufn * sizeof *bufs);
    if (!bufs)
        st = xc_error_set(err, XC_ENOMEM, "cpu: out of memory normalising %zu bins", nbins);
    if (!st) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
        for (long t = 0; t < (long)(2 * nb); t++) {
            size_t lo, hi;
            xc_pulscan_block(nbins, o->normwidth, (size_t)t / 2, &lo, &hi);
            double *buf = bufs + (size_t)omp_get_thread_num() * bufn;
            block_stats(sp->data, (int)(t % 2), lo, hi, o->norm, buf, &med[t], &scale[t]);
        }
        st = xc_pulscan_borrow(med, scale, nb, nbins, err);
    }
    free(bufs);
    for (size_t k = 0; k < 2 * nb; k++)
        scale[k] *= XC_MAD_TO_SIGMA;
    if (!st) {
        P[0] = 0;
#pragma omp parallel for schedule(static) num_threads(nth)
        for (long bl = 0; bl < (long)nb; bl++) {
            size_t b = (size_t)bl, lo, hi;
            xc_pulscan_block(nbins, o->normwidth, b, &lo, &hi);
            double mr = med[2 * b], mi = med[2 * b + 1], sr = scale[2 * b], si = scale[2 * b + 1];
            for (size_t k = lo; k < hi; k++) {
                double re = ((double)sp->data[2 * k] - mr) / sr;
                double im = ((double)sp->data[2 * k + 1] - mi) / si;
                P[k] = re * re + im * im;
            }
        }
    }
    free(med);
    free(scale);
    return st;
}
