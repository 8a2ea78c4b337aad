/* Plane checks of xc_checks.h: against the reference, and one thread
 * against many. */
#include "compare/check/xc_checks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

xc_status xc_check_plane(xc_checks *l, const char *obs, const char *impl, const xc_cmpside *a,
                         const xc_cmpside *ref, xc_error *err)
{
    const char *check = "plane vs reference";
    xc_cmpopts o;
    xc_cmpopts_init(&o);
    xc_cmpresult res;
    memset(&res, 0, sizeof res);
    xc_error e;
    xc_error_clear(&e);
    xc_status st = xc_compare_planes(a, ref, &o, &res, &e);
    /* Planes of other trials, or no plane at all, cannot agree. */
    if (xc_checks_failed_call(l, obs, impl, check, st, &e, "comparable", &st, err)) {
        xc_cmpresult_free(&res);
        return st;
    }
    char bound[256];
    double b = 0.0;
    if (res.cls == XC_CLASS_EXACT) {
        snprintf(bound, sizeof bound, "exact (integer input)");
    } else {
        b = res.nranges ? res.r[0].bound : 0.0;
        snprintf(bound, sizeof bound, "|diff| <= %.3g (N*2^-24*max|ref|, range 0)", b);
    }
    char how[500];
    xc_cmpresult_describe(&res, a, ref, how, sizeof how);
    st = xc_checks_addf(l, obs, impl, check, res.agree ? XC_CHECK_PASS : XC_CHECK_FAIL, res.max_abs, b, bound, err,
                        "%llu of %llu samples differ, max |diff| %.3g, rms %.3g%s", (unsigned long long)res.n_diff,
                        (unsigned long long)res.n_total, res.max_abs, res.rms, how);
    xc_cmpresult_free(&res);
    return st;
}

/* Shapes first: a plane of other ranges or lengths is another computation. */
static int same_shape(const xc_plane *a, const xc_plane *b, char *why, size_t n)
{
    if (a->nranges != b->nranges) {
        snprintf(why, n, "%d ranges against %d", a->nranges, b->nranges);
        return 0;
    }
    for (int k = 0; k < a->nranges; k++) {
        const xc_planerange *x = &a->r[k], *y = &b->r[k];
        if (x->ds != y->ds || x->ndm != y->ndm || x->nsamp != y->nsamp) {
            snprintf(why, n, "range %d: ds %d, %zu x %zu against ds %d, %zu x %zu", k, x->ds, x->ndm, x->nsamp,
                     y->ds, y->ndm, y->nsamp);
            return 0;
        }
        if (x->ndm * x->nsamp > 0 && (!x->data || !y->data)) {
            snprintf(why, n, "range %d has no data", k);
            return 0;
        }
    }
    return 1;
}

xc_status xc_check_threads(xc_checks *l, const char *obs, const char *impl, const xc_plane *one,
                           const xc_plane *many, int nthreads, xc_error *err)
{
    const char *check = "1 thread vs many";
    if (!one || !many)
        return xc_error_set(err, XC_EINVAL, "1 thread vs many: no plane");
    char why[256];
    if (!same_shape(one, many, why, sizeof why))
        return xc_checks_fail(l, obs, impl, check, why, "identical bytes", err);
    unsigned long long ndiff = 0;
    for (int k = 0; k < one->nranges; k++)
        for (size_t s = 0; s < one->r[k].ndm * one->r[k].nsamp; s++)
            ndiff += memcmp(&one->r[k].data[s], &many->r[k].data[s], sizeof(float)) != 0;
    return xc_checks_addf(l, obs, impl, check, ndiff == 0 ? XC_CHECK_PASS : XC_CHECK_FAIL, (double)ndiff, 0.0,
                          "identical bytes", err, "%llu samples differ between 1 and %d threads", ndiff, nthreads);
}
