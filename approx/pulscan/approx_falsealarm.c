/* False alarms of the search on noise-only spectra against the
 * trials-corrected expectation (xc_approx_noise.h). */
#include "approx/pulscan/xc_approx_noise.h"
#include "core/base/xc_first_error.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

xc_status xc_approx_false_alarms(const xc_searcher *searcher, size_t nbins, size_t nspec, uint64_t seed0, int zmax,
                                 int numharm, const double *S, int nS, double alpha, int threads, xc_noise_fa *out,
                                 xc_error *err)
{
    if (!searcher)
        return xc_error_set(err, XC_EINVAL, "false alarms: no searcher given");
    if (nS < 1 || !nspec || nspec > 1000000000 || nbins < 64 || !(alpha > 0 && alpha < 1))
        return xc_error_set(err, XC_EINVAL, "false alarms: nbins %zu, %zu spectra, %d thresholds, alpha %g", nbins,
                            nspec, nS, alpha);
    for (int k = 0; k < nS; k++)
        if (!(S[k] >= 0))
            return xc_error_set(err, XC_EINVAL, "false alarms: threshold %g (need >= 0)", S[k]);
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = zmax;
    o.numharm = numharm;
    o.zstep = 1;
    o.sigma = 0;
    o.nosift = 1;
    o.threads = threads;
    xc_status st = xc_psopts_check(&o, err);
    if (st)
        return st;
    for (int k = 0; k < nS; k++) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].zmax = zmax;
        out[k].numharm = numharm;
        out[k].S = S[k];
        out[k].nspec = nspec;
        out[k].ntrials = xc_pulscan_ntrials(nbins, 1, zmax);
        out[k].expect = (double)nspec * numharm * gsl_cdf_ugaussian_Q(S[k]);
        out[k].pfam = -expm1(-numharm * gsl_cdf_ugaussian_Q(S[k]));
        out[k].alpha = alpha;
        if ((st = xc_binom_bounds(nspec, out[k].pfam, alpha, &out[k].lo, &out[k].hi, err)))
            return st;
    }
    size_t *cnt = calloc(nspec * (size_t)nS, sizeof *cnt);
    if (!cnt)
        return xc_error_set(err, XC_ENOMEM, "false alarms: out of memory for %zu spectra", nspec);
    /* small spectra: one thread per search, the spectra in parallel */
    o.threads = 1;
    long bad = -1;
#pragma omp parallel for num_threads(threads > 0 ? threads : omp_get_max_threads()) schedule(dynamic, 4)
    for (long s = 0; s < (long)nspec; s++) {
        xc_error e;
        xc_spectrum sp;
        xc_status se = xc_approx_noise_spectrum(&sp, nbins, seed0 + (uint64_t)s, &e);
        if (!se) {
            xc_candlist l;
            xc_candlist_init(&l);
            if (!(se = xc_pulscan_run(searcher, &sp, &o, &l, &e)))
                for (int k = 0; k < nS; k++)
                    for (size_t c = 0; c < l.n; c++)
                        cnt[(size_t)s * (size_t)nS + (size_t)k] += l.c[c].sigma > S[k];
            xc_candlist_free(&l);
            xc_spectrum_free(&sp);
        }
        xc_keep_first_error(s, se, &e, &bad, &st, err);
    }
    for (size_t s = 0; s < nspec; s++)
        for (int k = 0; k < nS; k++) {
            size_t c = cnt[s * (size_t)nS + (size_t)k];
            out[k].count += c;
            out[k].nfam += c > 0;
        }
    free(cnt);
    return st;
}
