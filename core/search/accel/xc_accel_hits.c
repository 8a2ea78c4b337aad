/* Core's side of a searcher that sums harmonics itself (the searcher's
 * optional `search`, core/search/xc_accel.h): the normalised amplitudes of the whole
 * spectrum go to it once, and the points it hands back get core's sigma and
 * become peaks, as core's own sums would (core/search/accel/xc_accel_pipeline.c,
 * search_block). */
#include <math.h>
#include <stdlib.h>

#include <omp.h>

#include "core/search/xc_accel.h"
#include "core/search/stats/xc_signif.h"

typedef struct {
    const xc_accel_plan *p;
    long ilo, iend;
    xc_accel_peaks *pk;
} hits_ctx;

static xc_status take(void *ctx, const xc_accel_hit *h, size_t n, xc_error *err)
{
    hits_ctx *c = ctx;
    const xc_accel_plan *p = c->p;
    for (size_t k = 0; k < n; k++) {
        const xc_accel_hit *a = &h[k];
        if (a->t < 0 || a->t >= p->ntempl || a->stage < 0 || a->stage >= p->nstages || a->i < c->ilo ||
            a->i >= c->iend)
            return xc_error_set(err, XC_EINVAL,
                                "accel: the searcher handed back a point outside the search (index %ld of [%ld, %ld), "
                                "template %d of %d, stage %d of %d)",
                                a->i, c->ilo, c->iend, a->t, p->ntempl, a->stage, p->nstages);
    }
    /* Each point's sigma on the search's threads (a bright pulsar's sweep
     * at the paper's size hands back 31 000 points: 22 ms on one thread);
     * then kept in the order handed back, as one thread would. */
    double *sig = malloc((n ? n : 1) * sizeof *sig);
    if (!sig)
        return xc_error_set(err, XC_ENOMEM, "accel: out of memory (%zu points above threshold)", n);
    const long m = (long)n;
    const int nth = p->o.threads > 0 ? p->o.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 64) num_threads(nth) if (m > 256)
    for (long k = 0; k < m; k++) {
        const xc_accel_hit *a = &h[k];
        sig[k] = a->P > p->thr[a->stage]
                     ? xc_candidate_sigma(2 * a->P, 2.0 * (1 << a->stage), p->ntrials[a->stage], NULL)
                     : NAN;
    }
    xc_status st = XC_OK;
    for (size_t k = 0; k < n && !st; k++) {
        const xc_accel_hit *a = &h[k];
        if (!(sig[k] > p->o.sigma))     /* NAN: not above the stage's threshold */
            continue;
        int H = 1 << a->stage;
        xc_accel_peak pk = {0.5 * (double)a->i / H, (double)xc_accel_z_of(p, a->t % p->numz) / H,
                            (double)xc_accel_w_of(p, a->t / p->numz) / H, H, a->P, sig[k]};
        st = xc_accel_peaks_push(c->pk, &pk, err);
    }
    free(sig);
    return st;
}

/* scale_amp[k] = scale[k] becomes amp[2k] = X[2k] scale[k], amp[2k+1] =
 * X[2k+1] scale[k], in place, from the top down: bins [lo, hi) with
 * 2 lo >= hi write [2 lo, 2 hi), at or above every scale still to be read,
 * so each such range can go over threads and the values are those of a
 * separate array. */
static void grow_amplitudes(const float *X, long nb, int nth, double *a)
{
    long hi = nb;
    while (hi > 1) {
        const long lo = (hi + 1) / 2;
#pragma omp parallel for schedule(static) num_threads(nth) if (hi - lo > 65536)
        for (long k = lo; k < hi; k++) {
            const double s = a[k];
            a[2 * k] = X[2 * k] * s;
            a[2 * k + 1] = X[2 * k + 1] * s;
        }
        hi = lo;
    }
    if (nb > 0) {
        const double s = a[0];
        a[0] = X[0] * s;
        a[1] = X[1] * s;
    }
}

xc_status xc_accel_search_own(const xc_accel_searcher *s, void *state, const xc_accel_plan *p,
                              const xc_spectrum *sp, double *scale_amp, long ilo, long iend, xc_accel_peaks *pk,
                              xc_error *err)
{
    /* element-wise, so any thread count gives the same values (26 ms on
     * one thread for the paper's 2.34 M bins: time the device waits for) */
    grow_amplitudes(sp->data, (long)sp->nbins, p->o.threads > 0 ? p->o.threads : omp_get_max_threads(), scale_amp);
    hits_ctx c = {p, ilo, iend, pk};
    return s->search(s, state, p, scale_amp, sp->nbins, ilo, iend, take, &c, err);
}

xc_status xc_accel_search_own_amps(const xc_accel_searcher *s, void *state, const xc_accel_plan *p,
                                   const xc_spectrum *sp, const double *bscale, long ilo, long iend,
                                   xc_accel_peaks *pk, xc_error *err)
{
    const xc_accel_amps a = {sp->data, sp->nbins, p->o.normwidth, bscale};
    hits_ctx c = {p, ilo, iend, pk};
    return s->search_amps(s, state, p, &a, ilo, iend, take, &c, err);
}
