/* Candidate-list checks of xc_checks.h: against the reference's list, and
 * against the truth of a synthetic pulsar. */
#include "compare/xc_checks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

xc_status xc_check_cands(xc_checks *l, const char *obs, const char *impl, const xc_candlist *a,
                         const xc_candlist *ref, const xc_cmpcands_opts *o, xc_error *err)
{
    const char *check = "candidates vs reference";
    if (!a || !ref || !o)
        return xc_error_set(err, XC_EINVAL, "candidates check: no list or options");
    xc_cmpcands_result res;
    memset(&res, 0, sizeof res);
    xc_error e;
    xc_error_clear(&e);
    xc_status st = xc_compare_cands(a, ref, o, &res, &e);
    if (xc_checks_failed_call(l, obs, impl, check, st, &e, "comparable", &st, err)) {
        xc_cmpcands_result_free(&res);
        return st;
    }
    char bound[256];
    snprintf(bound, sizeof bound, "all matched (|dr| <= %g, |dz| <= %g), power rel. %.0e, sigma %.0e", o->dr, o->dz,
             o->rtol_power, o->dsigma);
    double bad = (double)(res.na_only_fail + res.nb_only_fail + res.npower_bad + res.nsigma_bad);
    st = xc_checks_addf(l, obs, impl, check, res.agree ? XC_CHECK_PASS : XC_CHECK_FAIL, bad, 0.0, bound, err,
                        "%zu vs %zu candidates, %zu matched, %zu/%zu unmatched; max |dr| %.3g, max |dsigma| %.3g, "
                        "max power rel. diff %.2g", res.na, res.nb, res.npairs, res.na_only, res.nb_only,
                        res.dr.max_abs, res.dsigma.max_abs, res.dpower_rel.max_abs);
    xc_cmpcands_result_free(&res);
    return st;
}

xc_status xc_check_truth(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c,
                         const xc_truth *t, const xc_cmpcands_opts *o, xc_error *err)
{
    const char *check = "recovers truth r, z";
    if (!c || !t || !o)
        return xc_error_set(err, XC_EINVAL, "truth check: no list, truth or options");
    xc_truthmatch m;
    memset(&m, 0, sizeof m);
    xc_error e;
    xc_error_clear(&e);
    xc_status st = xc_cands_match_truth(c, t, o, &m, &e);
    if (xc_checks_failed_call(l, obs, impl, check, st, &e, "-", &st, err))
        return st;
    char bound[256];
    snprintf(bound, sizeof bound, "sigma > %g, |dr| <= %g, ||z| - |z_true|| <= %g", o->truth_sigma, o->truth_dr,
             o->truth_dz);
    xc_check_state s = m.pass ? XC_CHECK_PASS : XC_CHECK_FAIL;
    if (!m.fund.found)
        return xc_checks_addf(l, obs, impl, check, s, NAN, t->r, bound, err,
                              "fundamental not found above sigma %g", o->truth_sigma);
    return xc_checks_addf(l, obs, impl, check, s, m.fund.r, t->r, bound, err,
                          "sigma %.1f at r %.2f (truth %.2f), z %.1f (truth %.1f); %zu other candidates above %g",
                          m.fund.sigma, m.fund.r, t->r, m.fund.z, t->z, m.nother, o->truth_sigma);
}
