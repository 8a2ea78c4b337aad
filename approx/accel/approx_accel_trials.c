/* accelsearch's effective trial count against every grid point searched
 * (xc_approx_accel.h, measurement 5): the sigma one candidate power gets
 * under each. */
#include "approx/accel/xc_approx_accel.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "core/search/stats/xc_signif.h"

/* The 2P whose sigma is `sigma` at dof and ntrials (bisection on
 * xc_candidate_sigma, which rises with the power). */
static double power_for(double sigma, double dof, double ntrials)
{
    double lo = 0, hi = dof + 1;
    while (xc_candidate_sigma(hi, dof, ntrials, NULL) < sigma)
        hi *= 2;
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (xc_candidate_sigma(mid, dof, ntrials, NULL) < sigma)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

xc_status xc_approx_accel_trials(size_t nbins, double T, int zmax, int wmax, xc_accel_trials_cmp *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    xc_accel_opts ao;
    xc_accel_opts_default(&ao);
    ao.zmax = zmax;
    ao.wmax = wmax;
    ao.numharm = 8;
    xc_accel_plan p;
    xc_status st = xc_accel_plan_make(&p, &ao, nbins, T, err);
    if (st)
        return st;
    out->nbins = (double)nbins;
    out->T = T;
    out->zmax = p.zmax;
    out->wmax = p.wmax;
    out->rlo = p.rlo;
    out->rhi = p.rhi;
    out->numz = p.numz;
    out->numw = p.wmax ? p.numw : 1;
    static const double sig[XC_TRIALS_NSIG] = {3, 5, 8, 12};
    for (int j = 0; j < XC_TRIALS_NSIG; j++)
        out->sig_eff[j] = sig[j];
    for (int s = 0; s < XC_TRIALS_NSTAGE; s++) {
        int H = 1 << s;
        double dof = 2.0 * H;
        out->n_eff[s] = xc_accel_ntrials((double)p.rlo, (double)p.rhi, p.numz, out->numw, H);
        out->n_all[s] = 2.0 * (double)(p.rhi - p.rlo) * p.numz * out->numw;
        for (int j = 0; j < XC_TRIALS_NSIG; j++) {
            double P = power_for(sig[j], dof, out->n_eff[s]);
            out->power[s][j] = P;
            out->sig_all[s][j] = xc_candidate_sigma(P, dof, out->n_all[s], NULL);
            /* d ln Q(sigma) / d sigma = -phi(sigma)/Q(sigma) */
            double mills = exp(-0.5 * sig[j] * sig[j]) / sqrt(2 * M_PI) / gsl_cdf_ugaussian_Q(sig[j]);
            out->approx[s][j] = log(out->n_all[s] / out->n_eff[s]) / mills;
        }
    }
    xc_accel_plan_free(&p);
    return XC_OK;
}
