/* The accel search's ends around core's pipeline
 * (core/search/accel/xc_accel_pipeline.c): the searcher of an entry, the
 * spectrum's check, and the peaks into candidates (preset exact's
 * selection, the sort and sifting, significance). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/search/xc_accel.h"
#include "core/search/stats/xc_signif.h"

const xc_accel_searcher *xc_accel_searcher_of(const xc_impl *impl)
{
    return impl && impl->family == XC_FAMILY_ACCEL ? (const xc_accel_searcher *)impl : NULL;
}

static xc_status check_spectrum(const xc_spectrum *sp, xc_error *err)
{
    if (!sp || !sp->data || sp->nbins < 2)
        return xc_error_set(err, XC_EINVAL, "accel: the spectrum needs at least 2 bins");
    for (size_t k = 0; k < 2 * sp->nbins; k++)
        if (!isfinite(sp->data[k]))
            return xc_error_set(err, XC_EFORMAT, "accel: bin %zu %s part is %g (byte offset %zu): not finite", k / 2,
                                k % 2 ? "imaginary" : "real", (double)sp->data[k], k * sizeof(float));
    return XC_OK;
}

static xc_status to_cands(const xc_accel_plan *p, const xc_accel_peaks *pk, double T, xc_candlist *out, xc_error *err)
{
    xc_status st = XC_OK;
    for (size_t k = 0; k < pk->n && !st; k++) {
        const xc_accel_peak *a = &pk->p[k];
        int s = 0;
        while ((1 << s) < a->numharm)
            s++;
        xc_cand c;
        memset(&c, 0, sizeof c);
        c.r = a->r;
        c.z = a->z;
        c.w = a->w;
        c.numharm = a->numharm;
        c.power = 2 * a->P;
        c.dof = 2.0 * a->numharm;
        c.ntrials = p->ntrials[s];
        c.sigma = xc_candidate_sigma(c.power, c.dof, c.ntrials, &c.logp);
        xc_cand_derive(&c, T);
        st = xc_candlist_add(out, &c, err);
    }
    out->T = T;
    snprintf(out->source, sizeof out->source, "accel");
    return st;
}

xc_status xc_accel_check(const xc_accel_searcher *s, const xc_spectrum *sp, xc_error *err)
{
    if (!s || !s->plane)
        return xc_error_set(err, XC_EINVAL, "accel: no searcher (or one without a plane stage)");
    return check_spectrum(sp, err);
}

xc_status xc_accel_finish(const xc_accel_plan *p, xc_accel_peaks *pk, double T, xc_candlist *out, xc_error *err)
{
    xc_status st = p->o.preset == XC_ACCEL_PRESTO ? XC_OK : xc_accel_select_exact(pk, err);
    if (!st) {
        xc_accel_sort_sift(pk, p->numharm);
        st = to_cands(p, pk, T, out, err);
    }
    return st;
}

xc_status xc_accel_run(const xc_accel_searcher *s, const xc_spectrum *sp, const xc_accel_opts *o, xc_candlist *out,
                       xc_error *err)
{
    xc_status st = xc_accel_check(s, sp, err);
    xc_accel_plan p;
    if (!st)
        st = xc_accel_plan_make(&p, o, sp->nbins, sp->T, err);
    if (st)
        return st;
    xc_accel_peaks pk = {0};
    st = xc_accel_run_peaks(s, NULL, sp, &p, &pk, err);
    if (!st)
        st = xc_accel_finish(&p, &pk, sp->T, out, err);
    xc_accel_peaks_free(&pk);
    xc_accel_plan_free(&p);
    return st;
}
