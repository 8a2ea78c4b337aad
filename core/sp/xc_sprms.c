/* xc_sprms.c: the exact whole-row statistics of a gulped single-pulse
 * search (core/sp/xc_sprms.h): sums in sample order, or the median absolute
 * deviation by radix selection over IEEE bit patterns. */
#include "core/sp/xc_sprms.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GATHER (XC_SPRMS_BINS / 2)   /* values a rank gathers in its histogram's bytes */
#define KEY_MAX UINT64_C(0x7FFFFFFFFFFFFFFF)

enum { HIST = 0, GATHERING, DONE };

/* One rank of one row's deviations: its value lies among the patterns
 * [klo, khi], `below` values lie under klo. */
typedef struct {
    uint64_t k, klo, khi, below, in, seen;
    int mode;
    double value;
    union {
        uint32_t *h;
        double *g;
    } u;
} sel;

struct xc_sprms {
    xc_sp_stat stat;
    size_t nt;
    size_t *n;
    sel *sl;                  /* 2 per row (the second unused for an odd n) */
    double *sx, *sxx, *s, *m;
    void *store;
    int passes, done;
};

double xc_sprms_bytes(xc_sp_stat stat, size_t ntrials)
{
    double per = stat == XC_SP_MEAN_SD ? 4 * sizeof(double) : 2 * (sizeof(sel) + XC_SPRMS_BINS * sizeof(uint32_t));
    return (double)ntrials * (per + 2 * sizeof(double) + sizeof(size_t));
}

xc_status xc_sprms_create(xc_sprms **out, xc_sp_stat stat, const size_t *n, size_t nt, xc_error *err)
{
    *out = NULL;
    xc_sprms *r = calloc(1, sizeof *r);
    size_t nn = nt ? nt : 1;
    if (!r)
        return xc_error_set(err, XC_ENOMEM, "out of memory for the statistics of %zu DM trials", nt);
    r->stat = stat, r->nt = nt;
    r->n = malloc(nn * sizeof *r->n);
    r->s = calloc(nn, sizeof *r->s);
    r->m = calloc(nn, sizeof *r->m);
    if (stat == XC_SP_MEAN_SD) {
        r->sx = calloc(nn, sizeof *r->sx);
        r->sxx = calloc(nn, sizeof *r->sxx);
    } else {
        r->sl = calloc(2 * nn, sizeof *r->sl);
        r->store = malloc(2 * nn * XC_SPRMS_BINS * sizeof(uint32_t));
    }
    if (!r->n || !r->s || !r->m || (stat == XC_SP_MEAN_SD ? !r->sx || !r->sxx : !r->sl || !r->store)) {
        xc_sprms_destroy(r);
        return xc_error_set(err, XC_ENOMEM, "out of memory for the statistics of %zu DM trials", nt);
    }
    for (size_t i = 0; i < nt; i++) {
        r->n[i] = n[i];
        if (n[i] == 0 || n[i] > UINT32_MAX) {
            xc_sprms_destroy(r);
            return xc_error_set(err, XC_EINVAL, "DM trial %zu: %zu samples, expected 1 to %u", i, n[i], UINT32_MAX);
        }
        for (int j = 0; r->sl && j < 2; j++) {
            sel *q = &r->sl[2 * i + (size_t)j];
            q->k = j ? n[i] / 2 - 1 : n[i] / 2;   /* j = 1 only for an even n */
            q->khi = KEY_MAX;
            q->mode = j && n[i] % 2 ? DONE : HIST;
            q->u.h = (uint32_t *)r->store + (2 * i + (size_t)j) * XC_SPRMS_BINS;
        }
    }
    *out = r;
    return XC_OK;
}

void xc_sprms_destroy(xc_sprms *r)
{
    if (!r)
        return;
    free(r->n);
    free(r->sl);
    free(r->store);
    free(r->sx);
    free(r->sxx);
    free(r->s);
    free(r->m);
    free(r);
}

int xc_sprms_done(const xc_sprms *r) { return r->done; }
int xc_sprms_passes(const xc_sprms *r) { return r->passes; }
const double *xc_sprms_s(const xc_sprms *r) { return r->done ? r->s : NULL; }
const double *xc_sprms_m(const xc_sprms *r) { return r->done && r->stat == XC_SP_MEAN_SD ? r->m : NULL; }

void xc_sprms_begin(xc_sprms *r)
{
    for (size_t i = 0; r->sl && i < 2 * r->nt; i++) {
        sel *q = &r->sl[i];
        q->seen = 0;
        if (q->mode == HIST)
            memset(q->u.h, 0, XC_SPRMS_BINS * sizeof *q->u.h);
    }
}

static inline uint64_t key_of(double d)
{
    uint64_t k;
    memcpy(&k, &d, sizeof k);
    return k;
}

static inline double value_of(uint64_t k)
{
    double d;
    memcpy(&d, &k, sizeof d);
    return d;
}

/* The width of one bin of q's interval, in patterns. */
static inline uint64_t bin_width(const sel *q)
{
    uint64_t span = q->khi - q->klo + 1;   /* at most 2^63 */
    return (span + XC_SPRMS_BINS - 1) / XC_SPRMS_BINS;
}

static void take(sel *q, double d)
{
    uint64_t k = key_of(d);
    if (q->mode == HIST) {
        if (k < q->klo)
            q->seen++;
        else if (k <= q->khi)
            q->u.h[(k - q->klo) / bin_width(q)]++;
    } else if (q->mode == GATHERING && k >= q->klo && k <= q->khi && q->seen < GATHER) {
        q->u.g[q->seen++] = d;
    }
}

void xc_sprms_add(xc_sprms *r, size_t i, const float *x, size_t nw, size_t L, size_t own_lo, size_t own_hi,
                  double *m, double *tmp)
{
    if (r->stat == XC_SP_MEAN_SD) {
        double sx = r->sx[i], sxx = r->sxx[i];
        for (size_t t = own_lo; t < own_hi; t++) {
            sx += (double)x[t];
            sxx += (double)x[t] * (double)x[t];
        }
        r->sx[i] = sx, r->sxx[i] = sxx;
        return;
    }
    sel *q = &r->sl[2 * i];
    if (q[0].mode == DONE && q[1].mode == DONE)
        return;
    size_t nb = xc_sp_nblocks(nw, L);
    xc_sp_block_medians(x, nw, L, m, tmp);
    for (size_t t = own_lo; t < own_hi; t++) {
        size_t b = t / L < nb ? t / L : nb - 1;
        double d = fabs((double)x[t] - m[b]);
        take(&q[0], d);
        take(&q[1], d);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* After a pass: q's interval narrowed to the bin holding its rank, or its value. */
static xc_status narrow(sel *q, size_t row, xc_error *err)
{
    if (q->mode == GATHERING) {
        if (q->seen != q->in)
            return xc_error_set(err, XC_EINVAL, "DM trial %zu: gathered %llu deviations, expected %llu (the plane "
                                "changed between passes)", row, (unsigned long long)q->seen,
                                (unsigned long long)q->in);
        qsort(q->u.g, q->seen, sizeof *q->u.g, cmp_double);
        q->value = q->u.g[q->k - q->below];
        q->mode = DONE;
        return XC_OK;
    }
    if (q->mode != HIST)
        return XC_OK;
    uint64_t c = q->seen, w = bin_width(q);
    size_t b = 0;
    while (b + 1 < XC_SPRMS_BINS && q->k >= c + q->u.h[b])
        c += q->u.h[b++];
    if (q->k < c || q->k >= c + q->u.h[b])
        return xc_error_set(err, XC_EINVAL, "DM trial %zu: rank %llu outside the deviations counted (the plane "
                            "changed between passes)", row, (unsigned long long)q->k);
    q->below = c;
    q->in = q->u.h[b];
    q->klo += (uint64_t)b * w;
    q->khi = q->khi - q->klo < w - 1 ? q->khi : q->klo + w - 1;
    if (q->klo == q->khi) {
        q->value = value_of(q->klo);
        q->mode = DONE;
    } else if (q->in <= GATHER) {
        q->mode = GATHERING;
    }
    return XC_OK;
}

xc_status xc_sprms_end(xc_sprms *r, xc_error *err)
{
    r->passes++;
    int done = 1;
    for (size_t i = 0; i < r->nt; i++) {
        if (r->stat == XC_SP_MEAN_SD) {
            xc_sp_mean_sd(r->sx[i], r->sxx[i], r->n[i], &r->m[i], &r->s[i]);
            continue;
        }
        sel *q = &r->sl[2 * i];
        for (int j = 0; j < 2; j++) {
            xc_status st = narrow(&q[j], i, err);
            if (st)
                return st;
        }
        if (q[0].mode != DONE || q[1].mode != DONE) {
            done = 0;
            continue;
        }
        /* the reference's median: the middle value, or (lower + upper) / 2 */
        double med = r->n[i] % 2 ? q[0].value : (q[1].value + q[0].value) / 2;
        r->s[i] = XC_SP_MAD_SCALE * med;
    }
    r->done = done;
    return XC_OK;
}
