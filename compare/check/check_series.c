/* Series of another tool (PRESTO prepsubband's .dat) against ours, bit for
 * bit: xc_checks.h. */
#include "compare/check/xc_checks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

xc_status xc_check_series_equal(xc_checks *l, const char *obs, const char *impl, const char *check, const float *got,
                                size_t ngot, const float *want, size_t nwant, xc_error *err)
{
    if (!want || nwant == 0)
        return xc_checks_fail(l, obs, impl, check, "the other tool's series is empty", "bit for bit", err);
    if (!got || ngot < nwant) {
        char why[128];
        snprintf(why, sizeof why, "ours has %zu samples, the other tool's %zu", got ? ngot : 0, nwant);
        return xc_checks_fail(l, obs, impl, check, why, "bit for bit", err);
    }
    size_t ndiff = 0, at = 0;
    double worst = 0;
    for (size_t i = 0; i < nwant; i++)
        if (memcmp(&got[i], &want[i], sizeof(float))) {
            /* NaN against anything counts as an infinite difference */
            const double d = isnan(got[i]) || isnan(want[i]) ? INFINITY : fabs((double)got[i] - want[i]);
            if (!ndiff || d > worst) {
                worst = d;
                at = i;
            }
            ndiff++;
        }
    if (!ndiff)
        return xc_checks_addf(l, obs, impl, check, XC_CHECK_PASS, 0.0, 0.0, "bit for bit", err,
                              "equal over all %zu samples", nwant);
    return xc_checks_addf(l, obs, impl, check, XC_CHECK_FAIL, worst, 0.0, "bit for bit", err,
                          "%zu of %zu samples differ; largest at sample %zu: %.9g vs %.9g", ndiff, nwant, at,
                          (double)got[at], (double)want[at]);
}
