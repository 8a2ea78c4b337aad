/* The borderline check of xc_checks.h: a searcher on pure noise at sigma 0
 * against its family's reference (the conformance suite's noise cases,
 * compare/conform/xc_conform.h and xc_conform_accel.h). */
#include "compare/check/xc_checks.h"

#include <stdio.h>

#include "compare/conform/xc_conform.h"
#include "compare/conform/xc_conform_accel.h"

xc_status xc_check_noise_search(xc_checks *l, const char *obs, const xc_impl *impl, const xc_impl *ref, size_t nsp,
                                uint64_t seed, xc_error *err)
{
    const char *check = "pure noise at sigma 0 vs reference";
    if (!impl || !ref || impl->family != ref->family || nsp == 0)
        return xc_error_set(err, XC_EINVAL, "noise check: two searchers of one family and spectra are needed");
    xc_conform_report rep;
    xc_conform_report_init(&rep);
    xc_error e;
    xc_error_clear(&e);
    xc_status st;
    if (impl->family == XC_FAMILY_PULSCAN)
        st = xc_conform_searcher_noise(xc_searcher_of(impl), xc_searcher_of(ref), nsp, seed, &rep, &e);
    else if (impl->family == XC_FAMILY_ACCEL)
        st = xc_conform_accel_noise(xc_accel_searcher_of(impl), xc_accel_searcher_of(ref), nsp, seed, &rep, &e);
    else
        st = xc_error_set(&e, XC_EINVAL, "noise check: %s is no searcher", impl->name);
    if (xc_checks_failed_call(l, obs, impl->name, check, st, &e, "runs", &st, err)) {
        xc_conform_report_free(&rep);
        return st;
    }
    const xc_conform_row *f = xc_conform_report_failed(&rep, NULL);
    const xc_conform_row *r = f ? f : rep.n ? &rep.rows[0] : NULL;
    char bound[256];
    snprintf(bound, sizeof bound, "%s", r ? r->tolerance : "-");
    if (!r)
        st = xc_checks_fail(l, obs, impl->name, check, "no case ran", bound, err);
    else if (f)
        st = xc_checks_addf(l, obs, impl->name, check, XC_CHECK_FAIL, (double)rep.nfail, 0.0, bound, err,
                            "%s: %s; expected %s", f->name, f->observed, f->expected);
    else
        st = xc_checks_addf(l, obs, impl->name, check, XC_CHECK_PASS, 0.0, 0.0, bound, err, "%zu cases: %s%s%s", rep.n,
                            rep.rows[0].expected, rep.n > 1 ? "; " : "", rep.n > 1 ? rep.rows[1].expected : "");
    xc_conform_report_free(&rep);
    return st;
}
