/* Periodic-line checks of xc_checks.h: the strongest line of a dedispersed
 * series, and the strongest Pulscan candidate. */
#include "compare/check/xc_checks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

xc_status xc_check_line(xc_checks *l, const char *obs, const char *impl, const xc_plane *pl, const xc_dmplan *plan,
                        double tsamp, double dm, double f0_hz, double fmin_hz, double **spec, xc_powerpeak *peak,
                        xc_error *err)
{
    if (spec)
        *spec = NULL;
    if (!pl || !plan)
        return xc_error_set(err, XC_EINVAL, "line check: no plane or plan");
    char check[128];
    snprintf(check, sizeof check, "strongest line at DM %g", dm);
    int kk = -1;
    size_t jj = 0;
    for (int k = 0; k < plan->nranges && k < pl->nranges && kk < 0; k++)
        for (size_t j = 0; j < plan->r[k].ndm; j++)
            if (fabs(plan->r[k].dms[j] - dm) < 1e-9) {
                kk = k;
                jj = j;
                break;
            }
    if (kk < 0 || jj >= pl->r[kk].ndm)
        return xc_checks_fail(l, obs, impl, check, "DM not in the plan", "-", err);
    const xc_planerange *r = &pl->r[kk];
    xc_powerpeak pk;
    memset(&pk, 0, sizeof pk);
    xc_error e;
    xc_error_clear(&e);
    xc_status st = xc_power_peak(r->data + jj * r->nsamp, r->nsamp, tsamp * r->ds, fmin_hz, &pk, spec, &e);
    if (st == XC_ENOMEM)
        return xc_error_set(err, st, "%s", e.msg);
    if (st)
        return xc_checks_fail(l, obs, impl, check, e.msg, "-", err);
    if (peak)
        *peak = pk;
    char bound[256];
    snprintf(bound, sizeof bound, "%.3f Hz +- one bin (%.4f Hz)", f0_hz, pk.bin_hz);
    /* 1.0001: a line exactly one bin off must not fail on rounding. */
    int pass = fabs(pk.f_hz - f0_hz) <= pk.bin_hz * 1.0001;
    st = xc_checks_addf(l, obs, impl, check, pass ? XC_CHECK_PASS : XC_CHECK_FAIL, pk.f_hz, f0_hz, bound, err,
                        "%.4f Hz, normalised power %.0f", pk.f_hz, pk.power);
    if (st && spec) {
        free(*spec);
        *spec = NULL;
    }
    return st;
}

xc_status xc_check_top_cand(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c, double f0_hz,
                            int maxharm, xc_error *err)
{
    const char *check = "top candidate is the pulsar";
    if (!c)
        return xc_error_set(err, XC_EINVAL, "top candidate check: no list");
    if (!c->n)
        return xc_checks_fail(l, obs, impl, check, "no candidate", "-", err);
    if (!(c->T > 0) || !(f0_hz > 0))
        return xc_error_set(err, XC_EINVAL, "top candidate check: T = %g s, f0 = %g Hz: both must be > 0", c->T,
                            f0_hz);
    const xc_cand *t = &c->c[0];
    double bin = 1.0 / c->T;
    int h = (int)lround(t->f_hz / f0_hz), sub = (int)lround(f0_hz / t->f_hz);
    int is_harm = h >= 1 && h <= maxharm && fabs(t->f_hz - h * f0_hz) <= bin;
    int is_sub = !is_harm && sub >= 2 && sub <= maxharm && fabs(t->f_hz - f0_hz / sub) <= bin;
    char bound[256];
    snprintf(bound, sizeof bound, "n x %.3f Hz or %.3f Hz / n, n <= %d, within one bin (%.4f Hz)", f0_hz, f0_hz,
             maxharm, bin);
    return xc_checks_addf(l, obs, impl, check, is_harm || is_sub ? XC_CHECK_PASS : XC_CHECK_FAIL, t->f_hz, f0_hz,
                          bound, err, "%.4f Hz (r %.1f, z %.0f, %d harmonics, sigma %.1f)%s", t->f_hz, t->r, t->z,
                          t->numharm, t->sigma,
                          is_harm ? (h == 1 ? " = f0" : " = harmonic") : is_sub ? " = subharmonic" : "");
}
