/* From raw peaks to candidates: prefix sums and the fill test, significance,
 * the sigma cut (xc_search.h, steps 5-7).  Everything after the peaks runs
 * through this one code path, so identical peaks give identical lists. */
#include "core/search/xc_search.h"

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

#include "core/io/xc_presto.h"
#include "core/search/stats/xc_signif.h"

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
    const double rlo = xc_pulscan_rlo(o, sp->T);
    for (size_t k = 0; k < pk->n && !st; k++) {
        const xc_pspeak *p = &pk->p[k];
        if (!(sig[k] > o->sigma) || (double)p->i < rlo)
            continue;
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

