/* The CPU single-pulse searcher's row statistics: prefix sums and the exact
 * medians of core/sp/xc_spsearch.h (the blocks' baselines, the median
 * absolute deviation) without sorting, each at about one pass over the row
 * (Floyd and Rivest's selection), bit for bit the reference's doubles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/cpu/sp_cpu_internal.h"

int xc_sp_scratch_alloc(xc_sp_scratch *w, size_t n, size_t nblocks)
{
    w->P = malloc((n + 1) * sizeof *w->P);
    w->v = malloc((n / 32 + 1) * sizeof *w->v);
    w->g = malloc((n + 1) * sizeof *w->g);
    w->m = malloc(nblocks * sizeof *w->m);
    return w->P && w->v && w->g && w->m ? 0 : -1;
}

void xc_sp_scratch_free(xc_sp_scratch *w)
{
    free(w->P);
    free(w->v);
    free(w->g);
    free(w->m);
}

static inline void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* The k-th smallest of v[0..n-1]; afterwards v[0..k-1] <= v[k] <= v[k+1..].
 * Hoare's FIND with Lomuto partitions written without branches on the data
 * (random data mispredict half of them), and the elements equal to the
 * pivot set aside, so runs of equal values stay linear. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;   /* median of three as the pivot, moved to hi */
        if (v[mid] < v[lo])
            swap(&v[mid], &v[lo]);
        if (v[hi] < v[lo])
            swap(&v[hi], &v[lo]);
        if (v[mid] < v[hi])
            swap(&v[mid], &v[hi]);
        const double p = v[hi];
        size_t i = lo;
        for (size_t j = lo; j < hi; j++) {
            double x = v[j];
            v[j] = v[i];
            v[i] = x;
            i += x < p;
        }
        swap(&v[i], &v[hi]);   /* v[lo..i-1] < p = v[i] <= v[i+1..hi] */
        if (k < i) {
            hi = i - 1;
            continue;
        }
        size_t e = i + 1;      /* then v[i..e-1] == p */
        for (size_t j = i + 1; j <= hi; j++) {
            double x = v[j];
            v[j] = v[e];
            v[e] = x;
            e += x == p;
        }
        if (k < e)
            return p;
        lo = e;
    }
    return v[k];
}

/* The median of g[0..n-1] (reordered) from its ranks k = n / 2 - lo and, of
 * an even count, k - 1: the mean of the two middle values, as the reference
 * defines it; ranks below lo were left out of g. */
static double median_of(double *g, size_t n, size_t k, int even)
{
    double a = select_kth(g, n, k);
    if (!even)
        return a;
    double b = g[0];
    for (size_t i = 1; i < k; i++)
        b = g[i] > b ? g[i] : b;
    return (b + a) / 2;
}

/* The values a median is of: x[t] (dev = 0) or |x[t] - m[b]| with b the
 * block of t (dev = 1), t < n, blocks of L samples (the last one longer). */
typedef struct {
    const float *x;
    const double *m;
    size_t n, L, nb;
    int dev;
} values;

static inline double value_at(const values *s, size_t t)
{
    if (!s->dev)
        return (double)s->x[t];
    size_t b = t / s->L < s->nb ? t / s->L : s->nb - 1;
    return fabs((double)s->x[t] - s->m[b]);
}

/* One value of the pass: counted if below pL, gathered if in [pL, pH]. */
static inline void take(double y, double pL, double pH, double *g, size_t *cnt, size_t *below)
{
    *below += y < pL;
    g[*cnt] = y;
    *cnt += (y >= pL) & (y <= pH);
}

/* take() over x[lo..hi) with the baseline mb of their block (dev). */
static size_t take_run(const float *x, size_t lo, size_t hi, double mb, int dev, double pL, double pH, double *g,
                       size_t *cnt)
{
    size_t below = 0;
    if (!dev)
        for (size_t t = lo; t < hi; t++)
            take((double)x[t], pL, pH, g, cnt, &below);
    else
        for (size_t t = lo; t < hi; t++)
            take(fabs((double)x[t] - mb), pL, pH, g, cnt, &below);
    return below;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(XC_CPU_NO_CLONES)
#include <immintrin.h>
#define XC_SP_AVX512 1

/* take_run eight values at a time: the same conversions, differences and
 * comparisons (IEEE, no contraction), the gathered ones packed by a
 * compress in a register and stored whole (g has room: the count gathered
 * never passes the index reached). */
__attribute__((target("avx512f"))) static size_t take_run512(const float *x, size_t lo, size_t hi, double mb,
                                                              int dev, double pL, double pH, double *g, size_t *cnt)
{
    const __m512d L = _mm512_set1_pd(pL), H = _mm512_set1_pd(pH), M = _mm512_set1_pd(mb);
    size_t below = 0, c = *cnt, t = lo;
    for (; t + 8 <= hi; t += 8) {
        __m512d y = _mm512_cvtps_pd(_mm256_loadu_ps(x + t));
        if (dev)
            y = _mm512_abs_pd(_mm512_sub_pd(y, M));
        __mmask8 lt = _mm512_cmp_pd_mask(y, L, _CMP_LT_OQ);
        __mmask8 in = _mm512_cmp_pd_mask(y, L, _CMP_GE_OQ) & _mm512_cmp_pd_mask(y, H, _CMP_LE_OQ);
        _mm512_storeu_pd(g + c, _mm512_maskz_compress_pd(in, y));
        below += (size_t)__builtin_popcount(lt);
        c += (size_t)__builtin_popcount(in);
    }
    *cnt = c;
    return below + take_run(x, t, hi, mb, dev, pL, pH, g, cnt);
}
#endif

/* The values below pL, counted, and those in [pL, pH] into g (cnt of them). */
static size_t count_gather(const values *s, double pL, double pH, double *g, size_t *cnt)
{
    size_t below = 0;
    *cnt = 0;
#ifdef XC_SP_AVX512
    int wide = __builtin_cpu_supports("avx512f");
#endif
    for (size_t b = 0; b < s->nb; b++) {
        size_t lo = b * s->L, hi = b + 1 == s->nb ? s->n : lo + s->L;
        double mb = s->dev ? s->m[b] : 0;
#ifdef XC_SP_AVX512
        if (wide) {
            below += take_run512(s->x, lo, hi, mb, s->dev, pL, pH, g, cnt);
            continue;
        }
#endif
        below += take_run(s->x, lo, hi, mb, s->dev, pL, pH, g, cnt);
    }
    return below;
}

/* The sample rank at fraction k / n of s sample values, moved by d. */
static size_t sample_rank(size_t k, size_t n, size_t s, long d)
{
    long r = (long)((double)k / (double)n * (double)s) + d;
    return r < 0 ? 0 : (size_t)r >= s ? s - 1 : (size_t)r;
}

/* The median of the values, exact: Floyd and Rivest's SELECT (CACM 18(3),
 * 1975, Algorithm 489).  A sample of every 32nd value gives two pivots that
 * bracket the middle ranks with high probability; one pass counts the values
 * under the lower pivot and gathers those between the pivots, and a
 * quickselect of that few finds the ranks.  When the pivots miss (rare, or
 * odd data), a quickselect of all the values does: either way the answer is
 * the reference's double. */
static double exact_median(const values *s, xc_sp_scratch *w)
{
    size_t n = s->n, k = n / 2, ka = k - (n % 2 == 0);
    int even = n % 2 == 0;
    size_t ns = n / 32;
    if (ns >= 64) {
        for (size_t i = 0; i < ns; i++)
            w->v[i] = value_at(s, i * 32 + 16);
        long d = (long)(1.5 * sqrt((double)ns)) + 1;   /* 3 sigma of the sample rank */
        size_t rl = sample_rank(ka, n, ns, -d), rh = sample_rank(k, n, ns, d);
        double pL = select_kth(w->v, ns, rl);
        double pH = select_kth(w->v + rl, ns - rl, rh - rl);
        size_t cnt, below = count_gather(s, pL, pH, w->g, &cnt);
        if (below <= ka && below + cnt > k)
            return median_of(w->g, cnt, k - below, even);
    }
    for (size_t t = 0; t < n; t++)
        w->g[t] = value_at(s, t);
    return median_of(w->g, n, k, even);
}

/* P[t] = x[0] + ... + x[t-1]: four independent running sums over the
 * quarters of the row, then each quarter shifted by the total before it.
 * Exact on integer planes in any order; on float planes every P[t] is a sum
 * of t terms, within the bound docs/SINGLEPULSE.md states. */
static void prefix_sums(const float *x, size_t n, double *P)
{
    size_t q = n / 4;
    const float *x1 = x + q, *x2 = x + 2 * q, *x3 = x + 3 * q;
    double *P1 = P + q, *P2 = P + 2 * q, *P3 = P + 3 * q;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    P[0] = 0;
    for (size_t i = 0; i < q; i++) {
        s0 += (double)x[i];
        s1 += (double)x1[i];
        s2 += (double)x2[i];
        s3 += (double)x3[i];
        P[i + 1] = s0;
        P1[i + 1] = s1;
        P2[i + 1] = s2;
        P3[i + 1] = s3;
    }
    for (size_t t = 4 * q; t < n; t++) {
        s3 += (double)x[t];
        P[t + 1] = s3;
    }
    for (size_t j = 1; j < 4; j++) {
        double off = P[j * q];
        for (size_t t = j * q + 1, e = j == 3 ? n : (j + 1) * q; t <= e; t++)
            P[t] += off;
    }
}

double xc_sp_cpu_prepare(const float *x, size_t n, const xc_spconf *c, xc_sp_scratch *w)
{
    size_t L = c->block, nb = xc_sp_nblocks(n, L);
    prefix_sums(x, n, w->P);
    if (c->stat == XC_SP_MEAN_SD) {
        double sx = 0, sxx = 0, s;
        for (size_t t = 0; t < n; t++) {
            sx += (double)x[t];
            sxx += (double)x[t] * (double)x[t];
        }
        xc_sp_mean_sd(sx, sxx, n, &w->m[0], &s);
        return s;
    }
    for (size_t b = 0; b < nb; b++) {
        size_t lo = b * L, hi = b + 1 == nb ? n : lo + L;
        values blk = {x + lo, NULL, hi - lo, hi - lo, 1, 0};
        w->m[b] = exact_median(&blk, w);
    }
    values dev = {x, w->m, n, L, nb, 1};
    return XC_SP_MAD_SCALE * exact_median(&dev, w);
}
