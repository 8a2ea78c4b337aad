/* Pulscan normalisation on the CPU: median and MAD by quickselect (Floyd &
 * Rivest's), blocks in parallel.  The exact median needs both middle values
 * for even n (Pulscan's quickselect took the lower one only).  Values, blocks, the borrowing of
 * statistics by blocks with MAD 0 and the arithmetic are those of the
 * reference, so the powers agree bit for bit. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/cpu/pulscan_internal.h"
#include "optimized/cpu/xc_cpu.h"

/* Floyd & Rivest's SELECT (CACM 1975, algorithm 489): a quickselect whose
 * pivots come from a recursive sample, about n + min(k, n-k) comparisons
 * instead of quickselect's ~3.4n.  Leaves a[k] the k-th smallest (0-based)
 * with a[left..k-1] <= a[k] <= a[k+1..right].  One copy per element type:
 * the median runs on the float values themselves (half the cache), the MAD
 * on the exact double deviations. */
#define XC_DEFINE_SELECT(NAME, T)                                                              \
    static void NAME(T *a, long left, long right, long k)                                      \
    {                                                                                          \
        while (right > left) {                                                                 \
            if (right - left > 600) {                                                          \
                double n = (double)(right - left + 1), i = (double)(k - left + 1);             \
                double z = log(n), s = 0.5 * exp(2 * z / 3);                                   \
                double sd = 0.5 * sqrt(z * s * (n - s) / n) * (i - n / 2 < 0 ? -1 : 1);        \
                long nl = (long)((double)k - i * s / n + sd), nr = (long)((double)k + (n - i) * s / n + sd); \
                NAME(a, nl > left ? nl : left, nr < right ? nr : right, k);                    \
            }                                                                                  \
            T t = a[k], tmp;                                                                   \
            long i = left, j = right;                                                          \
            tmp = a[left], a[left] = a[k], a[k] = tmp;                                         \
            if (a[right] > t)                                                                  \
                tmp = a[right], a[right] = a[left], a[left] = tmp;                             \
            while (i < j) {                                                                    \
                tmp = a[i], a[i] = a[j], a[j] = tmp;                                           \
                i++;                                                                           \
                j--;                                                                           \
                while (a[i] < t)                                                               \
                    i++;                                                                       \
                while (a[j] > t)                                                               \
                    j--;                                                                       \
            }                                                                                  \
            if (a[left] == t) {                                                                \
                tmp = a[left], a[left] = a[j], a[j] = tmp;                                     \
            } else {                                                                           \
                j++;                                                                           \
                tmp = a[j], a[j] = a[right], a[right] = tmp;                                   \
            }                                                                                  \
            if (j <= k)                                                                        \
                left = j + 1;                                                                  \
            if (k <= j)                                                                        \
                right = j - 1;                                                                 \
        }                                                                                      \
    }

XC_DEFINE_SELECT(select_f, float)
XC_DEFINE_SELECT(select_d, double)

/* The exact median (mean of the two middle values for even n), identical to
 * the reference's sort.  Random data makes a partition's branches
 * unpredictable, so first a counting pass: values map monotonically onto
 * 1024 buckets between min and max, the bucket holding rank h - 1 (and h) is
 * found from the counts, and only its few members are selected among.  The
 * ranks, hence the values, are exact whatever the buckets. */
#define XC_NBUCKET 1024
#define XC_DEFINE_MEDIAN(NAME, T, SEL)                                                         \
    static double NAME(const T *a, size_t n, T *tmp)                                           \
    {                                                                                          \
        T lo = a[0], hi = a[0];                                                                \
        for (size_t i = 1; i < n; i++) {                                                       \
            lo = a[i] < lo ? a[i] : lo;                                                        \
            hi = a[i] > hi ? a[i] : hi;                                                        \
        }                                                                                      \
        if (lo == hi)                                                                          \
            return (double)lo;                                                                 \
        double sc = (XC_NBUCKET - 1) / ((double)hi - (double)lo);                              \
        unsigned cnt[XC_NBUCKET] = {0};                                                        \
        for (size_t i = 0; i < n; i++)                                                         \
            cnt[(size_t)(((double)a[i] - (double)lo) * sc)]++;                                 \
        /* ranks kl = lower middle, ku = upper middle (equal for odd n) */                     \
        size_t kl = (n - 1) / 2, ku = n / 2, cum = 0, b = 0;                                   \
        while (cum + cnt[b] <= kl)                                                             \
            cum += cnt[b++];                                                                   \
        size_t m = 0;                                                                          \
        for (size_t i = 0; i < n; i++)                                                         \
            if ((size_t)(((double)a[i] - (double)lo) * sc) == b)                               \
                tmp[m++] = a[i];                                                               \
        long r = (long)(kl - cum);                                                             \
        SEL(tmp, 0, (long)m - 1, r);                                                           \
        double vl = (double)tmp[r], vu;                                                        \
        if (ku == kl) {                                                                        \
            vu = vl;                                                                           \
        } else if (ku - cum < m) {                                                             \
            T u = tmp[r + 1];                                                                  \
            for (size_t i = (size_t)r + 2; i < m; i++)                                         \
                u = tmp[i] < u ? tmp[i] : u;                                                   \
            vu = (double)u;                                                                    \
        } else {     /* the upper middle is the smallest value of the next buckets */          \
            T u = hi;                                                                          \
            for (size_t i = 0; i < n; i++)                                                     \
                if ((size_t)(((double)a[i] - (double)lo) * sc) > b && a[i] < u)                \
                    u = a[i];                                                                  \
            vu = (double)u;                                                                    \
        }                                                                                      \
        return (vl + vu) * 0.5;                                                                \
    }

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
