/* The injected-pulse check of xc_checks.h. */
#include "compare/check/xc_checks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void xc_pulse_truth_init(xc_pulse_truth *t, size_t index, double t_s, double dm, double width_s, double snr,
                         double tsamp)
{
    memset(t, 0, sizeof *t);
    t->index = index;
    t->t_s = t_s;
    t->dm = dm;
    t->width_s = width_s;
    /* Per-sample S/N summed over width/tsamp samples of independent noise. */
    t->snr_expected = snr * sqrt(width_s / tsamp);
    /* 5 ms beyond the width: the arrival time rounds to the trial's samples
     * (ds of up to 4 at a few hundred us here). */
    t->window_s = width_s + 0.005;
    t->dm_steps = 1.0;
    t->snr_rtol = 0.10;
}

xc_status xc_check_pulse(xc_checks *l, const char *obs, const char *impl, const xc_plane *pl,
                         const xc_dmplan *plan, double tsamp, const xc_pulse_truth *t, xc_error *err)
{
    if (!t)
        return xc_error_set(err, XC_EINVAL, "pulse check: no truth");
    char check[200];
    snprintf(check, sizeof check, "pulse %zu (DM %g at %.3f s)", t->index, t->dm, t->t_s);
    xc_pulsefind f;
    memset(&f, 0, sizeof f);
    xc_error e;
    xc_error_clear(&e);
    xc_status st = xc_recover_pulse(pl, plan, tsamp, t->t_s, t->width_s, t->window_s, &f, &e);
    if (st == XC_ENOMEM)
        return xc_error_set(err, st, "%s", e.msg);
    if (st)
        return xc_checks_fail(l, obs, impl, check, e.msg, "found", err);
    if (!f.found)
        return xc_checks_fail(l, obs, impl, check, "no boxcar in the window", "found", err);
    double ddm = fabs(f.dm - t->dm), rel = fabs(f.snr - t->snr_expected) / t->snr_expected;
    char bound[256];
    if (t->dm_steps == 1.0)
        snprintf(bound, sizeof bound, "|dDM| <= %.3g (one step), S/N within %g%%", f.dm_step, 100 * t->snr_rtol);
    else
        snprintf(bound, sizeof bound, "|dDM| <= %.3g (%g steps), S/N within %g%%", t->dm_steps * f.dm_step,
                 t->dm_steps, 100 * t->snr_rtol);
    /* 1e-9: DM values parsed from text sit a rounding error off the step. */
    int pass = ddm <= t->dm_steps * f.dm_step * (1 + 1e-9) && rel <= t->snr_rtol;
    return xc_checks_addf(l, obs, impl, check, pass ? XC_CHECK_PASS : XC_CHECK_FAIL, f.dm, t->dm, bound, err,
                          "peak DM %.3f (|dDM| %.3g), S/N %.1f (%.1f%% from %.1f)", f.dm, ddm, f.snr, 100 * rel,
                          t->snr_expected);
}
