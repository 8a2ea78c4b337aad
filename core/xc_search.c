/* xc_search.c: what every periodicity searcher shares: options, the spectrum
 * reader, block layout, trials, thresholds, significance and sifting.  Only
 * the arithmetic that produces the raw peaks differs between implementations;
 * everything after it runs through this one code path, so identical peaks
 * give identical candidate lists. */
#include "core/xc_search.h"

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

#include "core/xc_presto.h"
#include "reference/xc_signif.h"

void xc_psopts_default(xc_psopts *o)
{
    memset(o, 0, sizeof *o);
    o->zmax = 200;
    o->numharm = 1;
    o->sigma = 2.0;
    o->zstep = 2;
    o->chunkwidth = 32768;
    o->normwidth = 6000;
}

xc_status xc_psopts_check(const xc_psopts *o, xc_error *err)
{
    if (o->zmax < 0 || o->zmax > 100000)
        return xc_error_set(err, XC_EINVAL, "-zmax %d is outside 0..100000", o->zmax);
    if (o->numharm < 1 || o->numharm > 8)
        return xc_error_set(err, XC_EINVAL, "-numharm %d is outside 1..8", o->numharm);
    if (!(o->sigma >= 0) || !isfinite(o->sigma))
        return xc_error_set(err, XC_EINVAL, "-sigma %g must be a finite number >= 0", o->sigma);
    if (o->zstep < 1)
        return xc_error_set(err, XC_EINVAL, "-zstep %d must be >= 1", o->zstep);
    if (o->chunkwidth < 1)
        return xc_error_set(err, XC_EINVAL, "-chunkwidth must be >= 1 bin");
    if (o->normwidth < 16)
        return xc_error_set(err, XC_EINVAL, "-normalizechunkwidth %zu must be >= 16 bins", o->normwidth);
    if (o->threads < 0 || o->tile < 0)
        return xc_error_set(err, XC_EINVAL, "threads (%d) and tile (%d) must be >= 0", o->threads, o->tile);
    if (o->norm != XC_NORM_EXACT && o->norm != XC_NORM_MOM)
        return xc_error_set(err, XC_EINVAL, "normalisation mode %d is unknown", (int)o->norm);
    if (o->logp != XC_LOGP_EXACT && o->logp != XC_LOGP_POLY)
        return xc_error_set(err, XC_EINVAL, "logp mode %d is unknown", (int)o->logp);
    return XC_OK;
}

xc_status xc_pulscan_check_input(const xc_spectrum *sp, const xc_psopts *o, xc_error *err)
{
    xc_status st = xc_psopts_check(o, err);
    if (st)
        return st;
    if (!sp || !sp->data || sp->nbins < 2)
        return xc_error_set(err, XC_EINVAL, "the spectrum needs at least 2 complex bins (has %zu)",
                            sp && sp->data ? sp->nbins : 0);
    if (!(sp->T > 0))
        return xc_error_set(err, XC_EINVAL, "observation length T = %g s is not > 0", sp->T);
    /* An OR over the exponent bits vectorises; the slow search for the
     * culprit runs only when there is one. */
    unsigned bad = 0;
    size_t n = 2 * sp->nbins;
    for (size_t k = 0; k < n; k++) {
        uint32_t u;
        memcpy(&u, &sp->data[k], sizeof u);
        bad |= (u & 0x7f800000u) == 0x7f800000u;
    }
    for (size_t k = 0; bad && k < n; k++)
        if (!isfinite(sp->data[k]))
            return xc_error_set(err, XC_EFORMAT, "bin %zu (%s part, byte offset %zu) is %g: not finite", k / 2,
                                k % 2 ? "imaginary" : "real", k * sizeof(float), (double)sp->data[k]);
    return XC_OK;
}

/* ---- spectrum ------------------------------------------------------------ */

xc_status xc_spectrum_load(xc_spectrum *sp, const char *fftpath, xc_error *err)
{
    memset(sp, 0, sizeof *sp);
    size_t len = strlen(fftpath);
    if (len < 4 || strcmp(fftpath + len - 4, ".fft"))
        return xc_error_set(err, XC_EINVAL, "%s: the name must end in .fft (its .inf is found beside it)",
                            fftpath);
    char *inf_path = malloc(len + 1);
    if (!inf_path)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", fftpath);
    memcpy(inf_path, fftpath, len - 3);
    strcpy(inf_path + len - 3, "inf");
    xc_inf inf;
    xc_status st = xc_inf_read(&inf, inf_path, err);
    if (st) {
        free(inf_path);
        return st;
    }
    if (!(inf.n >= 4) || inf.n != floor(inf.n) || fmod(inf.n, 2.0) != 0 || inf.n > 1e15) {
        st = xc_error_set(err, XC_EFORMAT, "%s: 'Number of bins in the time series' = %.17g: need an even count >= 4",
                          inf_path, inf.n);
        free(inf_path);
        return st;
    }
    if (!(inf.dt > 0) || !isfinite(inf.dt)) {
        st = xc_error_set(err, XC_EFORMAT, "%s: 'Width of each time series bin (sec)' = %g is not > 0", inf_path,
                          inf.dt);
        free(inf_path);
        return st;
    }
    free(inf_path);
    size_t N = (size_t)inf.n;
    struct stat sb;
    if (stat(fftpath, &sb))
        return xc_error_set(err, XC_EIO, "%s: cannot stat: %s", fftpath, strerror(errno));
    if ((unsigned long long)sb.st_size != (unsigned long long)N * sizeof(float))
        return xc_error_set(err, XC_EFORMAT,
                            "%s: %lld bytes, but its .inf gives N = %zu samples, i.e. %zu bytes of float32 "
                            "(N/2 complex bins)",
                            fftpath, (long long)sb.st_size, N, N * sizeof(float));
    FILE *fp = fopen(fftpath, "rb");
    if (!fp)
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", fftpath, strerror(errno));
    float *d = malloc(N * sizeof(float));
    if (!d) {
        fclose(fp);
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory for %zu floats", fftpath, N);
    }
    size_t got = fread(d, sizeof(float), N, fp);
    fclose(fp);
    if (got != N) {
        free(d);
        return xc_error_set(err, XC_EIO, "%s: short read at byte offset %zu of %zu", fftpath, got * sizeof(float),
                            N * sizeof(float));
    }
    sp->data = d;
    sp->nbins = N / 2;
    sp->dt = inf.dt;
    sp->T = (double)N * inf.dt;
    sp->owned = 1;
    return XC_OK;
}

void xc_spectrum_free(xc_spectrum *sp)
{
    if (sp->owned)
        free(sp->data);
    memset(sp, 0, sizeof *sp);
}

/* ---- peak lists ---------------------------------------------------------- */

void xc_pspeaks_init(xc_pspeaks *l) { memset(l, 0, sizeof *l); }

void xc_pspeaks_free(xc_pspeaks *l)
{
    free(l->p);
    memset(l, 0, sizeof *l);
}

static xc_status reserve(xc_pspeaks *l, size_t n, xc_error *err)
{
    if (n <= l->cap)
        return XC_OK;
    size_t cap = l->cap ? l->cap : 64;
    while (cap < n)
        cap *= 2;
    xc_pspeak *p = realloc(l->p, cap * sizeof *p);
    if (!p)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu search peaks", cap);
    l->p = p;
    l->cap = cap;
    return XC_OK;
}

xc_status xc_pspeaks_push(xc_pspeaks *l, size_t i, int width, int numharm, double power, xc_error *err)
{
    xc_status st = reserve(l, l->n + 1, err);
    if (st)
        return st;
    l->p[l->n++] = (xc_pspeak){i, width, numharm, power, NAN, -1};
    return XC_OK;
}

xc_status xc_pspeaks_move(xc_pspeaks *dst, xc_pspeaks *src, xc_error *err)
{
    xc_status st = reserve(dst, dst->n + src->n, err);
    if (st)
        return st;
    if (src->n)
        memcpy(dst->p + dst->n, src->p, src->n * sizeof *src->p);
    dst->n += src->n;
    src->n = 0;
    return XC_OK;
}

/* ---- layout, trials ------------------------------------------------------- */

size_t xc_pulscan_nblocks(size_t nbins, size_t normwidth)
{
    size_t nd = nbins > 1 ? nbins - 1 : 0;
    size_t nb = nd / normwidth;
    return nb ? nb : 1;
}

void xc_pulscan_block(size_t nbins, size_t normwidth, size_t b, size_t *lo, size_t *hi)
{
    size_t nb = xc_pulscan_nblocks(nbins, normwidth);
    *lo = 1 + b * normwidth;
    *hi = b + 1 == nb ? nbins : *lo + normwidth;
}

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

/* ln Q(a, x), the regularised upper incomplete gamma, for the threshold search
 * only (the reported significance always comes from xc_candidate_sigma): the
 * series for P below x = a + 1, Lentz's continued fraction for Q above, both
 * in log space so nothing underflows. */
static double lnq_gamma(double a, double x)
{
    if (x <= 0)
        return 0;
    int sg;
    double lpre = a * log(x) - x - lgamma_r(a, &sg);
    if (x < a + 1) {
        double ap = a, sum = 1.0 / a, del = sum;
        for (int n = 0; n < 100000; n++) {
            ap += 1;
            del *= x / ap;
            sum += del;
            if (fabs(del) < fabs(sum) * 1e-17)
                break;
        }
        double P = exp(lpre + log(sum));
        return P < 1 ? log1p(-P) : -INFINITY;
    }
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return lpre + log(h);
}

double xc_pulscan_threshold(double sigma, double dof, double ntrials)
{
    /* sigma > S  <=>  ln p_single + ln ntrials < ln Q_gauss(S). */
    double target = gsl_sf_log_erfc(sigma / M_SQRT2) - M_LN2 - log(ntrials > 1 ? ntrials : 1);
    double a = 0.5 * dof;
    double hi = dof > 1 ? dof : 1;
    while (lnq_gamma(a, 0.5 * hi) > target)
        hi *= 2;
    /* ln Q is concave for dof >= 2, so Newton from the right of the root
     * decreases monotonically onto it without overshooting. */
    double x = hi;
    int sg;
    double lg = lgamma_r(a, &sg);
    for (int it = 0; it < 200; it++) {
        double f = lnq_gamma(a, 0.5 * x) - target;
        double lpdf = (a - 1) * log(0.5 * x) - 0.5 * x - lg - M_LN2;
        double slope = -exp(lpdf - lnq_gamma(a, 0.5 * x));
        if (!(slope < 0) || !isfinite(f))
            break;
        double nx = x - f / slope;
        if (!(nx < x) || !(nx > 0))
            break;
        int done = x - nx < 1e-14 * x;
        x = nx;
        if (done)
            break;
    }
    return x * (1 - 1e-6);
}

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
                xc_pulscan_width_searched(o, w) ? xc_pulscan_threshold(o->sigma, (double)w * h * (h + 1), ntr)
                                                : INFINITY;
    }
    *thr = t;
    return XC_OK;
}

/* ---- significance, candidates --------------------------------------------- */

static int peak_cmp(const void *pa, const void *pb)
{
    const xc_pspeak *a = pa, *b = pb;
    if (a->numharm != b->numharm)
        return a->numharm < b->numharm ? -1 : 1;
    if (a->width != b->width)
        return a->width < b->width ? -1 : 1;
    if (a->i != b->i)
        return a->i < b->i ? -1 : 1;
    return 0;
}

void xc_pulscan_prefix(const double *P, size_t nbins, int h, double *C)
{
    size_t L = xc_pulscan_nfund(nbins, h);
    C[0] = 0;
    C[1] = 0;
    for (size_t x = 1; x < L; x++)
        C[x + 1] = C[x] + xc_pulscan_sh(P, h, x);
}

int xc_pulscan_filled(const double *C, size_t i, int width, int numharm, double power)
{
    if (power == -INFINITY)
        return 0;
    if (width < 4)
        return 1;
    double per = (double)numharm * (numharm + 1) / 2;
    double excess = power - 2.0 * width * per;
    if (!(excess > 0))
        return 0;
    for (int q = 0; q < 4; q++) {
        size_t a = i + (size_t)(q * width / 4), b = i + (size_t)((q + 1) * width / 4);
        if (C[b] - C[a] - 2.0 * (double)(b - a) * per < excess / 16)
            return 0;
    }
    return 1;
}

/* Marks the peaks that fail the fill test (peaks sorted by stage). */
static xc_status fill_test(const xc_spectrum *sp, const double *P, const xc_pspeaks *pk, unsigned char *drop,
                           xc_error *err)
{
    double *C = NULL;
    for (size_t k = 0; k < pk->n;) {
        int h = pk->p[k].numharm;
        size_t e = k;
        int wide = 0;
        while (e < pk->n && pk->p[e].numharm == h) {
            wide |= pk->p[e].width >= 4 && pk->p[e].filled < 0;
            e++;
        }
        for (size_t q = k; q < e; q++)
            if (pk->p[q].filled >= 0)
                drop[q] = !pk->p[q].filled;
        if (wide) {
            if (!P)
                return xc_error_set(err, XC_EINVAL, "fill test: R-block peaks of stage %d need the powers", h);
            if (!C && !(C = malloc((sp->nbins + 1) * sizeof *C)))
                return xc_error_set(err, XC_ENOMEM, "out of memory for %zu prefix sums", sp->nbins + 1);
            xc_pulscan_prefix(P, sp->nbins, h, C);
            for (size_t q = k; q < e; q++)
                if (pk->p[q].filled < 0)
                    drop[q] = !xc_pulscan_filled(C, pk->p[q].i, pk->p[q].width, h, pk->p[q].power);
        }
        k = e;
    }
    free(C);
    return XC_OK;
}

xc_status xc_pulscan_finish(const xc_psopts *o, const xc_spectrum *sp, const double *P, xc_pspeaks *pk,
                            xc_candlist *out, xc_error *err)
{
    if (pk->n)
        qsort(pk->p, pk->n, sizeof *pk->p, peak_cmp);
    double *sig = malloc((pk->n ? pk->n : 1) * 2 * sizeof *sig);
    unsigned char *drop = calloc(pk->n ? pk->n : 1, 1);
    if (!sig || !drop) {
        free(sig);
        free(drop);
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu candidates", pk->n);
    }
    if (!o->nosift && o->rblock) {     /* local maxima are filled by definition */
        xc_status fst = fill_test(sp, P, pk, drop, err);
        if (fst) {
            free(sig);
            free(drop);
            return fst;
        }
    }
    double *lp = sig + pk->n;
    long n = (long)pk->n;
    int nth = o->threads > 0 ? o->threads : omp_get_max_threads();
    /* The exact tail sums dof/2 terms, so wide boxcars of bright signals cost;
     * the peaks are independent. */
#pragma omp parallel for schedule(dynamic, 16) num_threads(nth) if (n > 64)
    for (long k = 0; k < n; k++) {
        const xc_pspeak *p = &pk->p[k];
        double dof = (double)p->width * p->numharm * (p->numharm + 1);
        double ntr = xc_pulscan_ntrials(sp->nbins, p->numharm, o->zmax);
        if (drop[k]) {
            sig[k] = lp[k] = NAN;
        } else if (!isnan(p->logp)) {     /* scored by the searcher (GPU) */
            lp[k] = p->logp;
            sig[k] = xc_sigma_from_logp(fmin(0.0, lp[k] + log(ntr)));
        } else if (o->logp == XC_LOGP_POLY) {
            lp[k] = xc_logp_poly_gpu(p->power, dof);
            sig[k] = isnan(lp[k]) ? NAN : xc_sigma_from_logp(fmin(0.0, lp[k] + log(ntr)));
        } else {
            sig[k] = xc_candidate_sigma(p->power, dof, ntr, &lp[k]);
        }
    }
    xc_candlist tmp;
    xc_candlist_init(&tmp);
    tmp.T = sp->T;
    snprintf(tmp.source, sizeof tmp.source, "crosscheck");
    xc_status st = XC_OK;
    for (size_t k = 0; k < pk->n && !st; k++) {
        if (!(sig[k] > o->sigma))
            continue;
        const xc_pspeak *p = &pk->p[k];
        xc_cand c;
        memset(&c, 0, sizeof c);
        c.r = (double)p->i + 0.5 * (p->width - 1);
        c.z = p->width - 1;
        c.width = p->width;
        c.numharm = p->numharm;
        c.power = p->power;
        c.dof = (double)p->width * p->numharm * (p->numharm + 1);
        c.logp = lp[k];
        c.sigma = sig[k];
        c.ntrials = xc_pulscan_ntrials(sp->nbins, p->numharm, o->zmax);
        xc_cand_derive(&c, sp->T);
        st = xc_candlist_add(&tmp, &c, err);
    }
    free(sig);
    free(drop);
    if (!st && !o->nosift)
        st = xc_pulscan_sift(&tmp, err);
    if (st) {
        xc_candlist_free(&tmp);
        return st;
    }
    xc_candlist_sort(&tmp);
    xc_candlist_free(out);
    *out = tmp;
    return XC_OK;
}

/* ---- sifting ---------------------------------------------------------------- */

typedef struct {
    size_t *idx;       /* kept candidates, ascending r */
    size_t n;
    int maxw;
} kept_set;

/* First position in k whose r >= r0. */
static size_t lower_r(const kept_set *k, const xc_cand *c, double r0)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c[k->idx[mid]].r < r0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void kept_insert(kept_set *k, const xc_cand *c, size_t j)
{
    size_t pos = lower_r(k, c, c[j].r);
    memmove(k->idx + pos + 1, k->idx + pos, (k->n - pos) * sizeof *k->idx);
    k->idx[pos] = j;
    k->n++;
    if (c[j].width > k->maxw)
        k->maxw = c[j].width;
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

static double harm_tol(const xc_cand *c, const xc_cand *a, double q)
{
    return fmax(1.5, 0.5 * (c->width + q * a->width)) + 0.5 * q + 0.5;
}

xc_status xc_pulscan_sift(xc_candlist *l, xc_error *err)
{
    xc_candlist_sort(l);
    size_t n = l->n;
    if (n < 2)
        return XC_OK;
    const xc_cand *c = l->c;
    kept_set k = {malloc(n * sizeof(size_t)), 0, 0};
    unsigned char *keep = calloc(n, 1);
    if (!k.idx || !keep) {
        free(k.idx);
        free(keep);
        return xc_error_set(err, XC_ENOMEM, "out of memory sifting %zu candidates", n);
    }
    /* Clusters: the strongest candidate claims every weaker one whose boxcar touches its own. */
    for (size_t j = 0; j < n; j++) {
        double win = fmax(2.0, 0.5 * (c[j].width + k.maxw));
        int claimed = 0;
        for (size_t p = lower_r(&k, c, c[j].r - win); p < k.n && c[k.idx[p]].r <= c[j].r + win; p++) {
            const xc_cand *a = &c[k.idx[p]];
            if (fabs(c[j].r - a->r) <= fmax(2.0, 0.5 * (a->width + c[j].width))) {
                claimed = 1;
                break;
            }
        }
        if (!claimed) {
            keep[j] = 1;
            kept_insert(&k, c, j);
        }
    }
    /* Harmonics: r_c close to (n/m) r_a for a stronger kept a. */
    k.n = 0;
    k.maxw = 0;
    for (size_t j = 0; j < n; j++) {
        if (!keep[j])
            continue;
        int related = 0;
        for (int nn = 1; nn <= 8 && !related; nn++)
            for (int mm = 1; mm <= 8 && !related; mm++) {
                if (nn == mm || gcd(nn, mm) != 1)
                    continue;
                double q = (double)nn / mm;
                /* |r_c - q r_a| <= tol(a) with tol(a) <= tolmax, so r_a lies in this window. */
                double tolmax = fmax(1.5, 0.5 * (c[j].width + q * k.maxw)) + 0.5 * q + 0.5;
                double lo = (c[j].r - tolmax) / q, hi = (c[j].r + tolmax) / q;
                for (size_t p = lower_r(&k, c, lo); p < k.n && c[k.idx[p]].r <= hi; p++) {
                    const xc_cand *a = &c[k.idx[p]];
                    if (fabs(c[j].r - q * a->r) <= harm_tol(&c[j], a, q)) {
                        related = 1;
                        break;
                    }
                }
            }
        if (related)
            keep[j] = 0;
        else
            kept_insert(&k, c, j);
    }
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
        if (keep[j])
            l->c[m++] = l->c[j];
    l->n = m;
    free(k.idx);
    free(keep);
    xc_candlist_sort(l);
    return XC_OK;
}
