/* crosscheck gate search: a candidate's sigma against the Gaussian
 * equivalent of its logp, computed here independently of the searchers'
 * code (core/search/stats/xc_signif.c).
 *
 * A candidate's columns define sigma as the Gaussian-equivalent significance
 * of its trials-corrected tail probability (core/search/xc_cands.h):
 *   ln p = min(0, logp + ln ntrials),   Q_gauss(sigma) = p,
 * with Q_gauss(s) = erfc(s / sqrt 2) / 2, and sigma 0 for p >= 1/2 (PRESTO's
 * candidate_sigma, src/accel_utils.c, in log space).  The oracle solves
 * ln(erfc(s / sqrt 2) / 2) = ln p by bisection on GSL's gsl_sf_log_erfc, with
 * no starting approximation, no Newton step and no asymptotic branch: the
 * searchers' code takes s^2 = -2 ln p - ln(-4 pi ln p) beyond ln p = -1e15,
 * and a branch taken too early (ln p = -1e4, sigma 141) is 1.5e-8 off
 * relative; a loud signal puts ln p there. */
#include <math.h>

#include <gsl/gsl_sf_erf.h>

#include "cli/gate/gate.h"
#include "core/base/xc_fmt.h"

double gate_sigma_oracle(double logp, double ntrials)
{
    if (isnan(logp) || !(ntrials >= 1) || ntrials == INFINITY)
        return NAN;
    double lp = fmin(0.0, logp + log(ntrials));
    if (lp >= -M_LN2)
        return 0.0;
    if (lp == -INFINITY)
        return INFINITY;
    /* ln Q_gauss falls monotonically from -ln 2 at 0, and below -s^2/2 for
     * s >= 1, so [0, sqrt(-2 lp) + 1] holds the root */
    double lo = 0, hi = sqrt(-2.0 * lp) + 1.0;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi)
            break;
        if (gsl_sf_log_erfc(mid * M_SQRT1_2) - M_LN2 > lp)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

void gate_check_sigma_oracle(gatectx *g, const char *obs, const xc_candlist *cl, double need_lp, double rtol)
{
    size_t n = 0;
    double worst = -1, got = NAN, want = NAN, wr = NAN, wlp = NAN, deepest = 0;
    for (size_t k = 0; k < cl->n; k++) {
        const xc_cand *c = &cl->c[k];
        double s = gate_sigma_oracle(c->logp, c->ntrials);
        if (!isfinite(s) || !(s > 0))
            continue;
        double lp = c->logp + log(c->ntrials), d = fabs(c->sigma - s) / s;
        n++;
        if (lp < deepest)
            deepest = lp;
        if (!(d <= worst)) {   /* the first, then any larger (or NaN) */
            worst = d;
            got = c->sigma, want = s, wr = c->r, wlp = lp;
        }
    }
    const char *check = "sigma vs Gaussian equivalent of logp";
    char bound[96];
    xc_fmt(bound, sizeof bound, "|rel. diff| <= %g%s", rtol, need_lp < 0 ? ", some ln p below the asymptote's" : "");
    xc_error e;
    if (n == 0) {
        xc_vd_fail(&g->vd, obs, g->label, check, "no candidate with logp, ntrials and sigma > 0", bound);
        return;
    }
    int reach = !(need_lp < 0) || deepest < need_lp;
    worst = worst < 0 ? 0 : worst;
    xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, check,
                                      worst <= rtol && reach ? XC_CHECK_PASS : XC_CHECK_FAIL, got, want, bound, &e,
                                      "%zu candidates, deepest ln p %.6g%s%g; worst at r %.2f (ln p %.6g): sigma "
                                      "%.17g, oracle %.17g, rel. diff %.3g", n, deepest,
                                      reach ? " (needed below " : " NOT below ", need_lp, wr, wlp, got, want, worst),
              &e);
}
