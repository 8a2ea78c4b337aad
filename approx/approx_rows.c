/* The rows of numbers of `crosscheck check approximations` (xc_approx_table.h). */
#include "approx/xc_approx_table.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static void row(xc_row *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void row(xc_row *r, const char *key, const char *fmt, ...)
{
    snprintf(r->key, sizeof r->key, "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->value, sizeof r->value, fmt, ap);
    va_end(ap);
}

int xc_mom_blocks_rows(const xc_mom_blocks *r, xc_row out[5])
{
    static const char *const what[5] = {"(mom - median) / sigma", "location / sigma, sd",
                                         "1.4826 MAD / sigma, mom", "1.4826 MAD / sigma, exact",
                                         "mom scale / exact scale"};
    char k[5][96];
    for (int i = 0; i < 5; i++)
        snprintf(k[i], sizeof k[i], "block %zu: %s", r->block, what[i]);
    row(&out[0], k[0], "mean %+.5f +- %.5f (SE), sd %.5f", r->dloc.mean, xc_meansd_se(&r->dloc), r->dloc.sd);
    row(&out[1], k[1], "mom %.5f (predicted %.5f), exact median %.5f (asymptotic sqrt(pi/2n) %.5f)", r->mom_loc.sd,
        r->pred_loc_sd, r->med_loc.sd, sqrt(M_PI / (2.0 * (double)r->block)));
    row(&out[2], k[2], "mean %.5f +- %.5f, sd %.5f (predicted %.5f, sd %.5f)", r->mom_scale.mean,
        xc_meansd_se(&r->mom_scale), r->mom_scale.sd, r->pred_scale_mean, r->pred_scale_sd);
    row(&out[3], k[3], "mean %.5f +- %.5f, sd %.5f (finite-n 1 - 0.8/n = %.5f)", r->med_scale.mean,
        xc_meansd_se(&r->med_scale), r->med_scale.sd, 1 - 0.8 / (double)r->block);
    row(&out[4], k[4], "mean %.5f +- %.5f, sd %.5f: powers scaled by %.4f", r->scale_ratio.mean,
        xc_meansd_se(&r->scale_ratio), r->scale_ratio.sd, 1 / (r->scale_ratio.mean * r->scale_ratio.mean));
    return 5;
}

int xc_mom_powers_rows(const xc_mom_powers *p, const xc_mom_blocks *b, xc_row out[3 + XC_APPROX_NTHR])
{
    double pe = xc_approx_mean_power_pred(b, XC_NORM_EXACT), pm = xc_approx_mean_power_pred(b, XC_NORM_MOM);
    row(&out[0], "mean power, exact median", "%.5f +- %.5f (block statistics predict %.5f)", p->mean_exact,
        p->mean_se, pe);
    row(&out[1], "mean power, median of medians", "%.5f +- %.5f (block statistics predict %.5f)", p->mean_mom,
        p->mean_se, pm);
    for (int j = 0; j < XC_APPROX_NTHR; j++) {
        char k[128];
        double fe = (double)p->count_exact[j] / (double)p->n, fm = (double)p->count_mom[j] / (double)p->n;
        snprintf(k, sizeof k, "fraction of powers > %g (chi2: %.3g)", p->thr[j], p->expect[j]);
        row(&out[2 + j], k, "exact %.4g (x %.3f, predicted x %.3f), mom %.4g (x %.3f, predicted x %.3f)", fe,
            fe / p->expect[j], p->pred_exact[j] / p->expect[j], fm, fm / p->expect[j], p->pred_mom[j] / p->expect[j]);
    }
    row(&out[2 + XC_APPROX_NTHR], "KS distance from chi-square(2)", "exact %.5f (p %.3g), mom %.5f (p %.3g), n = %zu",
        p->ks_exact.stat, p->ks_exact.p, p->ks_mom.stat, p->ks_mom.p, p->n);
    return 3 + XC_APPROX_NTHR;
}

int xc_logp_rows(const xc_logp_check *l, xc_row out[5 + XC_APPROX_NDOFCURVE])
{
    row(&out[0], "largest absolute error of ln p", "%.4g at chi2 %.6g, dof %g (exact ln p %.6g)", l->e1.max_abs,
        l->e1.max_abs_chi2, l->e1.max_abs_dof, xc_chi2_logq(l->e1.max_abs_chi2, l->e1.max_abs_dof));
    row(&out[1], "largest relative error of ln p", "%.4g at chi2 %.6g, dof %g", l->e1.max_rel, l->e1.max_rel_chi2,
        l->e1.max_rel_dof);
    row(&out[2], "within 1 % (whole grid)", "chi2/dof >= %.4g", l->e1.valid_ratio_min);
    row(&out[3], "within 10 % (whole grid)", "chi2/dof >= %.4g", l->e10.valid_ratio_min);
    row(&out[4], "grid points", "%zu in the domain, %zu outside", l->e1.npoints, l->e1.noutside);
    /* chi2/dof = 10^(j/80) at point j of the 241 over 1..1000: about 2 at j = 24, 10 at 80, 100 at 160 */
    for (int i = 0; i < XC_APPROX_NDOFCURVE; i++) {
        char k[128];
        snprintf(k, sizeof k, "dof %g: within 1 %% / 10 %%", l->dof[i]);
        row(&out[5 + i], k, "chi2/dof >= %.4g / >= %.4g; at chi2/dof = 2: %.3g, 10: %.3g, 100: %.3g", l->valid1[i],
            l->valid10[i], l->relerr[i][24], l->relerr[i][80], l->relerr[i][160]);
    }
    return 5 + XC_APPROX_NDOFCURVE;
}

void xc_zloss_rows(const xc_zloss_result *r, const char *scenario, xc_row out[XC_APPROX_NMODES])
{
    for (int m = 0; m < XC_APPROX_NMODES; m++) {
        char k[256];
        snprintf(k, sizeof k, "%s %s: %s", scenario, xc_approx_mode_key((xc_approx_mode)m),
                 xc_approx_mode_desc((xc_approx_mode)m));
        row(&out[m], k, "detected %zu/%zu (%.0f %%), lost %zu, gained %zu, sigma loss %.2f (%.2f where both "
            "detect), |dr| %.2f, ||z|-|z_true|| %.1f, harmonic only %zu", r->ndet[m], r->npsr, 100 * r->frac[m],
            r->nlost[m], r->ngained[m], r->sigma_loss[m], r->sigma_loss_both[m], r->mean_abs_dr[m],
            r->mean_abs_dz[m], r->nharm[m]);
    }
}

void xc_zloss_describe(const xc_zloss_opts *o, size_t n, int per_seed, double f_lo, double f_hi, double s_lo,
                       double s_hi, const char *searcher, char *buf, size_t len)
{
    snprintf(buf, len,
             "%zu pulsars (%d per seed): %d channels, %d bits, %.0f us, %.2f s (%zu bins), top hats of %.0f %% duty "
             "cycle, f uniform in %g..%g Hz, |z| uniform in 0..%d bins (constant acceleration, random sign), "
             "snrpeak set so that the expected stage-1 boxcar of width |z|+1 has sigma uniform in %g..%g with the "
             "search's trials.  Searched by the %s searcher, zmax %d, numharm %d, blocks of %zu for every mode, "
             "sifted.  Detection: a candidate with sigma > %g within %g %% of the mean apparent frequency r/T (the "
             "paper's criterion; the rest-frame f0 would move by z/2r).  Lost/gained: against mode a; sigma loss: "
             "mean sigma(a) - sigma(mode) over a's detections (sigma 0 when nothing is within the window).  The "
             "design ignores the scalloping and edge losses of a sweep, which weigh most at small |z|, so a's own "
             "fraction is lower there: compare the modes with each other.  'harmonic only' counts pulsars with a "
             "harmonic or subharmonic above the threshold; with the bright pulsar it also counts the bright "
             "pulsar's lines that fall within 1 %% of one.",
             n, per_seed, o->nchans, o->nbits, o->tsamp * 1e6, o->tobs, (size_t)llround(o->tobs / o->tsamp) / 2,
             o->width_pct, f_lo, f_hi, o->zmax, s_lo, s_hi, searcher, o->zmax, o->numharm, o->normwidth,
             o->sigma_det, 100 * o->ftol);
}

void xc_noise_ks_row(const xc_noise_ks *k, int seed_index, xc_row *out)
{
    char key[128];
    snprintf(key, sizeof key, "seed %d: h %d, w %d (dof %g), %zu boxcars", seed_index, k->numharm, k->width, k->dof,
             k->n);
    row(out, key, "KS D %.5f (p %.3g), GOF %.1f (p %.3g)", k->ks.stat, k->ks.p, k->gof.stat, k->gof.p);
}

void xc_noise_fa_row(const xc_noise_fa *f, xc_row *out)
{
    char key[128];
    double efam = (double)f->nspec * f->pfam;
    snprintf(key, sizeof key, "zmax %d, numharm %d: sigma > %g", f->zmax, f->numharm, f->S);
    row(out, key, "%zu spectra with one or more (expected %.1f, x %.2f, bounds %zu..%zu); %zu candidates "
        "(independent trials: %.1f, x %.2f)", f->nfam, efam, f->nfam / efam, f->lo, f->hi, f->count, f->expect,
        f->count / f->expect);
}
