/* The checks of `crosscheck check approximations` (xc_approx_table.h). */
#include "approx/xc_approx_table.h"
#include "core/base/xc_fmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void name(xc_verdict *v, const char *impl, const char *check)
{
    memset(v, 0, sizeof *v);
    xc_fmt(v->impl, sizeof v->impl, "%s", impl);
    xc_fmt(v->check, sizeof v->check, "%s", check);
}

int xc_mom_blocks_verdicts(const xc_mom_blocks *r, xc_verdict out[3])
{
    const double k = XC_APPROX_NSE;
    xc_verdict *v = &out[0];
    name(v, "median of medians", "location unbiased");
    xc_fmt(v->measured, sizeof v->measured, "(mom - median)/sigma = %+.5f", r->dloc.mean);
    xc_fmt(v->bound, sizeof v->bound, "|mean| <= %g SE = %.5f (symmetric noise: no bias)", k,
        k * xc_meansd_se(&r->dloc));
    v->pass = xc_meansd_within(&r->dloc, 0, k, 0);
    double want = 1 - 0.8 / (double)r->block;
    v = &out[1];
    name(v, "exact median", "MAD is a consistent sigma");
    xc_fmt(v->measured, sizeof v->measured, "block %zu: 1.4826 MAD/sigma = %.5f", r->block, r->med_scale.mean);
    xc_fmt(v->bound, sizeof v->bound, "%.5f +- %.5f (%g SE)", want, k * xc_meansd_se(&r->med_scale), k);
    v->pass = xc_meansd_within(&r->med_scale, want, k, 0);
    if (!isfinite(r->pred_scale_mean))
        return 2;
    double slack = 4.0 / (double)r->block;
    v = &out[2];
    name(v, "median of medians", "scale bias as predicted");
    xc_fmt(v->measured, sizeof v->measured, "block %zu: 1.4826 MAD/sigma = %.5f", r->block, r->mom_scale.mean);
    xc_fmt(v->bound, sizeof v->bound, "predicted %.5f +- %.5f (%g SE + 4/n for the neglected centre dependence)",
        r->pred_scale_mean, k * xc_meansd_se(&r->mom_scale) + slack, k);
    v->pass = xc_meansd_within(&r->mom_scale, r->pred_scale_mean, k, slack);
    return 3;
}

void xc_mom_powers_verdicts(const xc_mom_powers *p, const xc_mom_blocks *b, xc_verdict out[2])
{
    for (int m = 0; m < 2; m++) {
        const xc_meansd *scale = m ? &b->mom_scale : &b->med_scale;
        const char *impl = m ? "median of medians" : "exact median";
        double pred = xc_approx_mean_power_pred(b, m ? XC_NORM_MOM : XC_NORM_EXACT);
        double mean = m ? p->mean_mom : p->mean_exact;
        /* the prediction's own uncertainty: dE[P]/dE[s] = -4 */
        double tol = XC_APPROX_NSE * hypot(p->mean_se, 4 * xc_meansd_se(scale));
        xc_verdict *v = &out[m];
        name(v, impl, "mean power follows the block statistics");
        xc_fmt(v->measured, sizeof v->measured, "%s: mean power %.5f", impl, mean);
        xc_fmt(v->bound, sizeof v->bound, "%.5f +- %.5f (%g SE of both)", pred, tol, XC_APPROX_NSE);
        v->pass = fabs(mean - pred) <= tol;
    }
}

void xc_noise_ks_verdict(const xc_noise_ks *ks, int ntests, int per_seed, double alpha, xc_verdict *out)
{
    double minp = 1;
    int worst = 0;
    for (int t = 0; t < ntests; t++) {
        double p = fmin(ks[t].ks.p, ks[t].gof.p);
        if (p < minp) {
            minp = p;
            worst = t;
        }
    }
    double bound = alpha / (2.0 * ntests);
    name(out, "cpu powers", "harmonic boxcars are chi-square with the stated dof");
    xc_fmt(out->measured, sizeof out->measured, "smallest p %.3g (seed %d, h %d, w %d)", minp, worst / per_seed,
        ks[worst].numharm, ks[worst].width);
    xc_fmt(out->bound, sizeof out->bound, "every p > %.2g (%g over %d KS + %d GOF tests, Bonferroni)", bound, alpha,
        ntests, ntests);
    out->pass = minp > bound;
}

/* x as "1e-3", "5e-4" when it is a whole digit times a power of ten, else %g. */
static void sci(char *b, size_t n, double x)
{
    double e = floor(log10(x)), m = x / pow(10, e);
    if (fabs(m - round(m)) < 1e-9 && m < 10)
        xc_fmt(b, n, "%.0fe%.0f", round(m), e);
    else
        xc_fmt(b, n, "%g", x);
}

void xc_noise_fa_verdict(const xc_noise_fa *r, const char *impl, xc_verdict *out)
{
    double efam = (double)r->nspec * r->pfam;
    int two = r->zmax == 0;
    char a[32];
    sci(a, sizeof a, two ? r->alpha : 0.5 * r->alpha);
    memset(out, 0, sizeof *out);
    xc_fmt(out->impl, sizeof out->impl, "%s", impl);
    xc_fmt(out->check, sizeof out->check, "%s: noise spectra with sigma > %g, zmax %d, numharm %d",
        two ? "false alarms as stated" : "false alarms not above stated", r->S, r->zmax, r->numharm);
    xc_fmt(out->measured, sizeof out->measured, "%zu of %zu spectra (expected %.1f, x %.2f%s)", r->nfam, r->nspec, efam,
        r->nfam / efam, r->nfam < r->lo ? ": conservative" : "");
    if (two)
        xc_fmt(out->bound, sizeof out->bound, "%zu..%zu (binomial, p = 1 - exp(-%d Q(%g)), two-sided %s)", r->lo, r->hi,
            r->numharm, r->S, a);
    else
        xc_fmt(out->bound, sizeof out->bound, "<= %zu (binomial, p = 1 - exp(-%d Q(%g)), %s: overlapping boxcars make "
            "Bonferroni an upper bound)", r->hi, r->numharm, r->S, a);
    out->pass = r->nfam <= r->hi && (!two || r->nfam >= r->lo);
}
