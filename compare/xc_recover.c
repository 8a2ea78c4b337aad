#include "compare/xc_recover.h"

#include <fftw3.h>
#include <math.h>

#include "core/io/xc_fft.h"
#include "core/search/stats/xc_select.h"
#include <stdlib.h>
#include <string.h>

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

XC_DEFINE_SELECT(select_f, float)
XC_DEFINE_SELECT(select_d, double)
XC_DEFINE_MEDIAN(median_f, float, select_f)
XC_DEFINE_MEDIAN(median_d, double, select_d)

/* The median of the n values a in double, as a sort would give it: exact
 * selection (xc_select.h) on finite values, a sort of a copy in tmp when any
 * is not finite (selection's buckets need finite bounds). */
static double median_row(const float *a, size_t n, float *tmp)
{
    if (n == 0)
        return 0;
    size_t i = 0;
    while (i < n && isfinite(a[i]))
        i++;
    if (i == n)
        return median_f(a, n, tmp);
    memcpy(tmp, a, n * sizeof *tmp);
    qsort(tmp, n, sizeof *tmp, cmp_float);
    return n % 2 ? tmp[n / 2] : 0.5 * ((double)tmp[n / 2 - 1] + tmp[n / 2]);
}

/* Median and 1.4826*MAD of a row.  tmp: 2n floats of scratch. */
static void robust(const float *x, size_t n, float *tmp, double *med, double *sigma)
{
    float *dev = tmp + n;
    double m = median_row(x, n, tmp);
    for (size_t i = 0; i < n; i++)
        dev[i] = (float)fabs((double)x[i] - m);
    double mad = median_row(dev, n, tmp);
    *med = m;
    *sigma = 1.4826 * mad;
}

/* Best boxcar of one row within samples [lo, hi). */
static double row_best(const float *x, size_t n, double med, double sigma, size_t lo, size_t hi,
                       int wmax, size_t *tbest, int *wbest)
{
    double best = -HUGE_VAL;
    if (!(sigma > 0))
        return best;
    if (hi > n)
        hi = n;
    for (int w = 1; w <= wmax; w++) {
        for (size_t t = lo; t + (size_t)w <= hi; t++) {
            double s = 0;
            for (int i = 0; i < w; i++)
                s += (double)x[t + (size_t)i] - med;
            double snr = s / (sigma * sqrt((double)w));
            if (snr > best) {
                best = snr;
                *tbest = t;
                *wbest = w;
            }
        }
    }
    return best;
}

static void window(double tsamp_k, double t_s, double width_s, double window_s, size_t n, size_t *lo,
                   size_t *hi, int *wmax)
{
    double a = (t_s - window_s) / tsamp_k, b = (t_s + window_s) / tsamp_k;
    *lo = a < 0 ? 0 : (size_t)a;
    *hi = b < 0 ? 0 : (size_t)ceil(b);
    if (*hi > n)
        *hi = n;
    *wmax = (int)(2.0 * width_s / tsamp_k) + 1;
}

static double local_step(const xc_dmrange *r, size_t j)
{
    if (r->ndm < 2)
        return r->step;
    if (j + 1 < r->ndm)
        return r->dms[j + 1] - r->dms[j];
    return r->dms[j] - r->dms[j - 1];
}

/* Range r's sample time and its search window (window()). */
typedef struct {
    double tk;
    size_t lo, hi;
    int wmax;
} rwin;

static rwin range_window(const xc_planerange *r, double tsamp, double t_s, double width_s, double window_s)
{
    rwin w;
    w.tk = tsamp * r->ds;
    window(w.tk, t_s, width_s, window_s, r->nsamp, &w.lo, &w.hi, &w.wmax);
    return w;
}

/* Row d of r against its robust noise: the best boxcar S/N in the window, at
 * sample *tb with width *wb.  tmp: 2 r->nsamp floats of scratch. */
static double row_snr(const xc_planerange *r, size_t d, const rwin *w, float *tmp, size_t *tb, int *wb)
{
    const float *x = r->data + d * r->nsamp;
    double med, sig;
    robust(x, r->nsamp, tmp, &med, &sig);
    return row_best(x, r->nsamp, med, sig, w->lo, w->hi, w->wmax, tb, wb);
}

xc_status xc_recover_pulse(const xc_plane *pl, const xc_dmplan *plan, double tsamp, double t_s,
                           double width_s, double window_s, xc_pulsefind *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    out->snr = -HUGE_VAL;
    for (int k = 0; k < pl->nranges; k++) {
        const xc_planerange *r = &pl->r[k];
        if (r->nsamp == 0)
            continue;
        float *tmp = malloc(2 * r->nsamp * sizeof *tmp);
        if (!tmp)
            return xc_error_set(err, XC_ENOMEM, "out of memory");
        const rwin w = range_window(r, tsamp, t_s, width_s, window_s);
        for (size_t d = 0; d < r->ndm; d++) {
            size_t tb = 0;
            int wb = 0;
            double s = row_snr(r, d, &w, tmp, &tb, &wb);
            if (s > out->snr) {
                out->found = 1;
                out->snr = s;
                out->range = k;
                out->idm = d;
                out->dm = plan->r[k].dms[d];
                out->dm_step = local_step(&plan->r[k], d);
                out->t_s = (double)tb * w.tk;
                out->width = wb;
            }
        }
        free(tmp);
    }
    if (!out->found)
        return xc_error_set(err, XC_EINVAL, "no sample of the plane lies within %g +- %g s", t_s, window_s);
    return XC_OK;
}

xc_status xc_recover_snr_curve(const xc_plane *pl, const xc_dmplan *plan, int k, double tsamp,
                               double t_s, double width_s, double window_s, double *snr, xc_error *err)
{
    (void)plan;
    if (k < 0 || k >= pl->nranges)
        return xc_error_set(err, XC_EINVAL, "range %d does not exist", k);
    const xc_planerange *r = &pl->r[k];
    float *tmp = malloc((r->nsamp ? 2 * r->nsamp : 1) * sizeof *tmp);
    if (!tmp)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    const rwin w = range_window(r, tsamp, t_s, width_s, window_s);
    for (size_t d = 0; d < r->ndm; d++) {
        size_t tb;
        int wb;
        double s = row_snr(r, d, &w, tmp, &tb, &wb);
        snr[d] = isfinite(s) ? s : 0.0;
    }
    free(tmp);
    return XC_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

xc_status xc_power_peak(const float *x, size_t n, double tsamp, double fmin_hz, xc_powerpeak *out,
                        double **spec, xc_error *err)
{
    memset(out, 0, sizeof *out);
    if (spec)
        *spec = NULL;
    if (n < 4 || !(tsamp > 0))
        return xc_error_set(err, XC_EINVAL, "power spectrum: need at least 4 samples (have %zu)", n);
    size_t nb = n / 2 + 1;
    double *in = fftw_malloc(n * sizeof *in);
    fftw_complex *fx = fftw_malloc(nb * sizeof *fx);
    double *p = malloc(nb * sizeof *p), *tmp = malloc(2 * nb * sizeof *tmp);
    if (!in || !fx || !p || !tmp) {
        fftw_free(in);
        fftw_free(fx);
        free(p);
        free(tmp);
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    }
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        in[i] = x[i] - mean;
    /* FFTW's planner keeps global state; ESTIMATE plans are cheap and deterministic. */
    fftw_plan plan;
    XC_FFTW_PLANNER(plan = fftw_plan_dft_r2c_1d((int)n, in, fx, FFTW_ESTIMATE));
    fftw_execute(plan);
    XC_FFTW_PLANNER(fftw_destroy_plan(plan));
    double T = (double)n * tsamp;
    size_t kmin = (size_t)ceil(fmin_hz * T);
    if (kmin < 1)
        kmin = 1;
    size_t m = 0;
    for (size_t k = 0; k < nb; k++) {
        p[k] = fx[k][0] * fx[k][0] + fx[k][1] * fx[k][1];
        if (k >= kmin)
            tmp[m++] = p[k];
    }
    xc_status st = XC_OK;
    if (m == 0) {
        st = xc_error_set(err, XC_EINVAL, "power spectrum: no bin above %g Hz", fmin_hz);
    } else {
        double med;
        size_t i = 0;
        while (i < m && isfinite(tmp[i]))
            i++;
        if (i == m) {   /* exact selection, as the sort below gives it */
            med = median_d(tmp, m, tmp + m);
        } else {
            qsort(tmp, m, sizeof *tmp, cmp_double);
            med = m % 2 ? tmp[m / 2] : 0.5 * (tmp[m / 2 - 1] + tmp[m / 2]);
        }
        double norm = med > 0 ? log(2.0) / med : 0;
        size_t kb = kmin;
        for (size_t k = 0; k < nb; k++) {
            p[k] *= norm;
            if (k >= kmin && p[k] > p[kb])
                kb = k;
        }
        out->f_hz = (double)kb / T;
        out->bin_hz = 1.0 / T;
        out->power = p[kb];
        out->nbins = nb;
    }
    fftw_free(in);
    fftw_free(fx);
    free(tmp);
    if (spec && !st)
        *spec = p;
    else
        free(p);
    return st;
}
