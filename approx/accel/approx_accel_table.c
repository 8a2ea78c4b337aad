/* Rows, verdicts and JSON of the accel measurements (xc_approx_accel.h). */
#include "approx/accel/xc_approx_accel.h"
#include "core/base/xc_fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static json_t *jnum(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static void verdict(xc_verdict *v, const char *impl, const char *check)
{
    memset(v, 0, sizeof *v);
    xc_fmt(v->impl, sizeof v->impl, "%s", impl);
    xc_fmt(v->check, sizeof v->check, "%s", check);
}

static const char *what(int H) { return H == 1 ? "plane powers" : "harmonic sums"; }

/* ---- 1. noise ---------------------------------------------------------------- */

void xc_accel_noise_row(const xc_accel_noise *r, xc_row *out)
{
    xc_fmt(out->key, sizeof out->key, "zmax %d, z %d, H %d: %zu %s (every %zu bins)", r->o.zmax, r->o.z,
           r->o.numharm, r->n, what(r->o.numharm), r->step);
    xc_fmt(out->value, sizeof out->value, "mean 2P %.4f +- %.4f (dof x energy %.4f), KS D %.5f (p %.3g), GOF %.1f (p "
           "%.3g); above p = %g: %zu (expected %.1f, %zu..%zu), p = %g: %zu (expected %.1f, %zu..%zu)",
           r->mean.mean, xc_meansd_se(&r->mean), r->dof * r->energy, r->ks.stat, r->ks.p, r->gof.stat, r->gof.p,
           r->pfa[0], r->count[0], r->expect[0], r->lo[0], r->hi[0], r->pfa[1], r->count[1], r->expect[1], r->lo[1],
           r->hi[1]);
}

int xc_accel_noise_verdicts(const xc_accel_noise *r, int ntests, double alpha, const char *impl, xc_verdict *out)
{
    char c[160];
    double bound = alpha / (2.0 * ntests), p = fmin(r->ks.p, r->gof.p);
    xc_fmt(c, sizeof c, "noise %s are chi-square(%g): zmax %d, z %d, H %d", what(r->o.numharm), r->dof, r->o.zmax,
           r->o.z, r->o.numharm);
    verdict(&out[0], impl, c);
    xc_fmt(out[0].measured, sizeof out[0].measured, "KS p %.3g, GOF p %.3g (n = %zu); mean 2P %.4f", r->ks.p,
           r->gof.p, r->n, r->mean.mean);
    double tol = XC_APPROX_NSE * xc_meansd_se(&r->mean), want = r->dof * r->energy;
    xc_fmt(out[0].bound, sizeof out[0].bound, "both p > %.2g (%g over %d KS + %d GOF tests, Bonferroni); mean %.4f "
           "+- %.4f (%g SE; dof x the template energy %.5f)", bound, alpha, ntests, ntests, want, tol, XC_APPROX_NSE,
           r->energy);
    out[0].pass = p > bound && fabs(r->mean.mean - want) <= tol;
    for (int f = 0; f < XC_ACCEL_NOISE_NFA; f++) {
        xc_verdict *v = &out[1 + f];
        xc_fmt(c, sizeof c, "noise points above single-trial p = %g: zmax %d, z %d, H %d", r->pfa[f], r->o.zmax,
               r->o.z, r->o.numharm);
        verdict(v, impl, c);
        xc_fmt(v->measured, sizeof v->measured, "%zu of %zu above 2P = %.3f (expected %.1f)", r->count[f], r->n,
               r->thr[f], r->expect[f]);
        xc_fmt(v->bound, sizeof v->bound, "%zu..%zu (binomial(%zu, %g), two-sided %g)", r->lo[f], r->hi[f], r->n,
               r->pfa[f], r->o.alpha);
        v->pass = r->count[f] >= r->lo[f] && r->count[f] <= r->hi[f];
    }
    return 1 + XC_ACCEL_NOISE_NFA;
}

void xc_accel_noise_summary(const xc_accel_noise *r, int n, double alpha, const char *impl, xc_verdict out[2])
{
    double minp = 1, worst_se = 0, bound = alpha / (2.0 * n);
    int wp = 0, wm = 0, nout = 0, ncount = 0;
    for (int k = 0; k < n; k++) {
        double p = fmin(r[k].ks.p, r[k].gof.p);
        double dev = fabs(r[k].mean.mean - r[k].dof * r[k].energy) / xc_meansd_se(&r[k].mean);
        if (p < minp) {
            minp = p;
            wp = k;
        }
        if (!(dev <= worst_se)) {
            worst_se = dev;
            wm = k;
        }
        for (int f = 0; f < XC_ACCEL_NOISE_NFA; f++, ncount++)
            nout += r[k].count[f] < r[k].lo[f] || r[k].count[f] > r[k].hi[f];
    }
    verdict(&out[0], impl, "noise plane powers and harmonic sums are chi-square(2H)");
    xc_fmt(out[0].measured, sizeof out[0].measured, "smallest p %.3g (zmax %d, z %d, H %d); mean 2P furthest off "
           "%.2f SE (zmax %d, z %d, H %d)", minp, r[wp].o.zmax, r[wp].o.z, r[wp].o.numharm, worst_se, r[wm].o.zmax,
           r[wm].o.z, r[wm].o.numharm);
    xc_fmt(out[0].bound, sizeof out[0].bound, "every p > %.2g (%g over %d KS + %d GOF tests, Bonferroni); every mean "
           "within %g SE of 2H x the template energy", bound, alpha, n, n, XC_APPROX_NSE);
    out[0].pass = minp > bound && worst_se <= XC_APPROX_NSE;
    verdict(&out[1], impl, "noise points above single-trial thresholds are binomial");
    xc_fmt(out[1].measured, sizeof out[1].measured, "%d of %d counts (p = %g and %g, %d tests) outside their bounds",
           nout, ncount, r[0].pfa[0], r[0].pfa[1], n);
    xc_fmt(out[1].bound, sizeof out[1].bound, "none (two-sided binomial bounds at %.2g each: %g over %d counts)",
           r[0].o.alpha, r[0].o.alpha * ncount, ncount);
    out[1].pass = nout == 0;
}

json_t *xc_accel_noise_json(const xc_accel_noise *r)
{
    json_t *fa = json_array();
    for (int f = 0; f < XC_ACCEL_NOISE_NFA; f++)
        json_array_append_new(fa, json_pack("{s:f, s:f, s:I, s:f, s:I, s:I}", "p", r->pfa[f], "threshold_2P",
                                            r->thr[f], "count", (json_int_t)r->count[f], "expected", r->expect[f],
                                            "lo", (json_int_t)r->lo[f], "hi", (json_int_t)r->hi[f]));
    return json_pack("{s:I, s:I, s:i, s:i, s:i, s:f, s:f, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "nbins",
                     (json_int_t)r->o.nbins, "normwidth", (json_int_t)r->o.normwidth, "zmax", r->o.zmax, "z", r->o.z,
                     "numharm", r->o.numharm, "dof", r->dof, "energy", r->energy, "n", (json_int_t)r->n, "step",
                     (json_int_t)r->step, "mean_2P", jnum(r->mean.mean), "mean_se", jnum(xc_meansd_se(&r->mean)),
                     "ks_d", jnum(r->ks.stat), "ks_p", jnum(r->ks.p), "gof", jnum(r->gof.stat), "gof_p",
                     jnum(r->gof.p), "false_alarms", fa);
}

/* ---- 2. the grid --------------------------------------------------------------- */

static const char *gname[XC_GRID_N] = {"half-bin grid (dr 1/2, accelsearch)", "full-bin grid (dr 1)"};
static const char *cname[XC_GRID_NCASE] = {"z on the grid", "z random (dz 2)"};

int xc_accel_grid_rows(const xc_accel_grid_loss *g, xc_row out[4])
{
    int k = 0;
    for (int c = 0; c < XC_GRID_NCASE; c++)
        for (int q = 0; q < XC_GRID_N; q++, k++) {
            xc_fmt(out[k].key, sizeof out[k].key, "%s, %s: power lost", gname[q], cname[c]);
            xc_fmt(out[k].value, sizeof out[k].value, "worst %.2f %% (theory %.2f %%), mean %.2f +- %.2f %% (theory "
                   "%.2f %%), %zu signals", 100 * g->worst[q][c], 100 * g->th_worst[q][c], 100 * g->mean[q][c],
                   100 * g->se[q][c], 100 * g->th_mean[q][c], g->nsig);
        }
    return k;
}

int xc_accel_grid_verdicts(const xc_accel_grid_loss *g, xc_verdict out[2])
{
    for (int c = 0; c < XC_GRID_NCASE; c++) {
        xc_verdict *v = &out[c];
        const int q = XC_GRID_HALF;
        char ch[160];
        xc_fmt(ch, sizeof ch, "half-bin grid loses what the theory says (%s)", cname[c]);
        verdict(v, "interpolation grid", ch);
        xc_fmt(v->measured, sizeof v->measured, "worst %.2f %%, mean %.2f %% (full-bin: worst %.2f %%, mean %.2f %%)",
               100 * g->worst[q][c], 100 * g->mean[q][c], 100 * g->worst[XC_GRID_FULL][c],
               100 * g->mean[XC_GRID_FULL][c]);
        double mtol = XC_APPROX_NSE * g->se[q][c] + 0.005;
        xc_fmt(v->bound, sizeof v->bound, "worst in %.2f..%.2f %% (theory 1 - max |R(dr; dz)|^2 over the cell: %.2f "
               "%%; random draws reach 0.8 of it, + 0.5 %% for the templates' truncation), mean %.2f +- %.2f %%",
               80 * g->th_worst[q][c], 100 * g->th_worst[q][c] + 0.5, 100 * g->th_worst[q][c],
               100 * g->th_mean[q][c], 100 * mtol);
        v->pass = g->worst[q][c] <= g->th_worst[q][c] + 0.005 && g->worst[q][c] >= 0.8 * g->th_worst[q][c] &&
                  fabs(g->mean[q][c] - g->th_mean[q][c]) <= mtol;
    }
    return 2;
}

json_t *xc_accel_grid_json(const xc_accel_grid_loss *g)
{
    json_t *a = json_array();
    for (int c = 0; c < XC_GRID_NCASE; c++)
        for (int q = 0; q < XC_GRID_N; q++)
            json_array_append_new(a, json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f}", "grid", q ? "full" : "half",
                                               "z", c ? "random" : "grid", "worst", g->worst[q][c], "mean",
                                               g->mean[q][c], "mean_se", g->se[q][c], "theory_worst",
                                               g->th_worst[q][c], "theory_mean", g->th_mean[q][c]));
    return json_pack("{s:i, s:I, s:f, s:f, s:o}", "zmax", g->zmax, "nsig", (json_int_t)g->nsig,
                     "theory_interbinning_worst_amplitude_loss", g->th_interbin_amp,
                     "theory_interbinning_worst_power_loss", g->th_interbin_power, "cases", a);
}

/* ---- 3. truncation --------------------------------------------------------------- */

static const char *aname[2] = {"LOWACC", "HIGHACC"};

int xc_accel_trunc_rows(const xc_accel_trunc_loss *t, xc_row out[2])
{
    for (int a = 0; a < 2; a++) {
        xc_fmt(out[a].key, sizeof out[a].key, "%s half-widths (%d + 0.55 |z|): power lost", aname[a],
               XC_ACCEL_NUMFINTBINS * (a ? 3 : 1));
        char zs[256] = "";
        size_t at = 0;
        for (int b = 0; b < XC_TRUNC_NZ; b++)
            at += (size_t)(isnan(t->worst_z[a][b])
                               ? (b ? snprintf(zs + at, sizeof zs - at, ", |z| %.0f..%.0f none drawn", t->zedge[b],
                                               t->zedge[b + 1])
                                    : snprintf(zs + at, sizeof zs - at, "z = 0 none drawn"))
                               : b ? snprintf(zs + at, sizeof zs - at, ", |z| %.0f..%.0f %.2f %%", t->zedge[b],
                                              t->zedge[b + 1], 100 * t->worst_z[a][b])
                                   : snprintf(zs + at, sizeof zs - at, "z = 0 %.2f %%", 100 * t->worst_z[a][b]));
        xc_fmt(out[a].value, sizeof out[a].value, "worst %.3f %%, mean %.3f %% (z = 0 theory, half-way r: %.3f %%); "
               "worst per z: %s", 100 * t->worst[a], 100 * t->mean[a], 100 * t->th_z0[a], zs);
    }
    return 2;
}

int xc_accel_trunc_verdicts(const xc_accel_trunc_loss *t, xc_verdict out[2])
{
    for (int a = 0; a < 2; a++) {
        char c[160];
        xc_fmt(c, sizeof c, "%s loses no more than the sinc tail at z = 0, half-way r", aname[a]);
        verdict(&out[a], "template truncation", c);
        xc_fmt(out[a].measured, sizeof out[a].measured, "worst %.3f %%, mean %.3f %% over %zu signals, |z| <= %d%s",
               100 * t->worst[a], 100 * t->mean[a], t->nsig, t->zmax, a ? "" : "");
        xc_fmt(out[a].bound, sizeof out[a].bound, "<= %.3f %% + 0.1 %% (1 - (1 - 2 psi'(%d.5)/pi^2)^2, the energy "
               "beyond hw = %d of a signal half-way between bins; the worst case, as hw - |z|/2 = %d + 0.05 |z| "
               "grows with |z|)%s", 100 * t->th_z0[a], XC_ACCEL_NUMFINTBINS * (a ? 3 : 1),
               XC_ACCEL_NUMFINTBINS * (a ? 3 : 1), XC_ACCEL_NUMFINTBINS * (a ? 3 : 1), a ? ", and below LOWACC's" : "");
        out[a].pass = t->worst[a] <= t->th_z0[a] + 0.001 && t->worst[a] > 0 && (!a || t->worst[1] < t->worst[0]);
    }
    return 2;
}

json_t *xc_accel_trunc_json(const xc_accel_trunc_loss *t)
{
    json_t *acc = json_array(), *edges = json_array();
    for (int b = 0; b <= XC_TRUNC_NZ; b++)
        json_array_append_new(edges, json_real(t->zedge[b]));
    for (int a = 0; a < 2; a++) {
        json_t *wz = json_array();
        for (int b = 0; b < XC_TRUNC_NZ; b++)
            json_array_append_new(wz, jnum(t->worst_z[a][b]));
        json_array_append_new(acc, json_pack("{s:s, s:f, s:f, s:f, s:o}", "acc", aname[a], "worst", t->worst[a],
                                             "mean", t->mean[a], "theory_z0_halfway", t->th_z0[a], "worst_per_z",
                                             wz));
    }
    return json_pack("{s:i, s:I, s:i, s:o, s:o}", "zmax", t->zmax, "nsig", (json_int_t)t->nsig, "long_extra_hw",
                     t->longhw, "z_edges", edges, "acc", acc);
}

/* ---- 4. float ------------------------------------------------------------------- */

void xc_accel_float_row(const xc_accel_float_diff *f, xc_row *out)
{
    xc_fmt(out->key, sizeof out->key, "float plane vs double: %zu bins, zmax %d, wmax %d", f->nbins, f->zmax,
           f->wmax);
    xc_fmt(out->value, sizeof out->value, "%zu points: max relative difference %.3g (P >= 1; at P = %.3g), max "
           "absolute %.3g (mean-1 units), strongest point (P = %.0f) %.3g", f->npts, f->max_rel, f->max_rel_at,
           f->max_abs, f->peak, f->peak_rel);
}

void xc_accel_float_verdict(const xc_accel_float_diff *f, const char *impl, xc_verdict *out)
{
    verdict(out, impl, "float plane within its declared tolerance of the double reference");
    xc_fmt(out->measured, sizeof out->measured, "max |P_f - P_d| / P_d = %.3g over %zu points with P_d >= 1",
           f->max_rel, f->npts);
    xc_fmt(out->bound, sizeof out->bound, "<= %g (the descriptor's relative tolerance: FFT rounding ~1e-7 log2 L of "
           "the segment's power)", f->tol);
    out->pass = f->max_rel <= f->tol && f->npts > 0;
}

json_t *xc_accel_float_json(const xc_accel_float_diff *f)
{
    return json_pack("{s:I, s:i, s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "nbins", (json_int_t)f->nbins, "zmax",
                     f->zmax, "wmax", f->wmax, "points", (json_int_t)f->npts, "max_rel", f->max_rel, "max_rel_at_P",
                     f->max_rel_at, "max_abs", f->max_abs, "peak_P", f->peak, "peak_rel", f->peak_rel, "tolerance",
                     f->tol);
}

/* ---- 5. trials ------------------------------------------------------------------ */

int xc_accel_trials_rows(const xc_accel_trials_cmp *t, xc_row out[XC_TRIALS_NSTAGE])
{
    for (int s = 0; s < XC_TRIALS_NSTAGE; s++) {
        xc_fmt(out[s].key, sizeof out[s].key, "H %d: trials %.4g (accelsearch) vs %.4g (every point, x %.1f)", 1 << s,
               t->n_eff[s], t->n_all[s], t->n_all[s] / t->n_eff[s]);
        char v[400] = "";
        size_t at = 0;
        for (int j = 0; j < XC_TRIALS_NSIG; j++)
            at += (size_t)snprintf(v + at, sizeof v - at, "%ssigma %g -> %.2f (-%.2f; tail slope %.2f)", j ? ", " : "",
                                   t->sig_eff[j], t->sig_all[s][j], t->sig_eff[j] - t->sig_all[s][j], t->approx[s][j]);
        xc_fmt(out[s].value, sizeof out[s].value, "%s", v);
    }
    return XC_TRIALS_NSTAGE;
}

void xc_accel_trials_verdict(const xc_accel_trials_cmp *t, xc_verdict *out)
{
    double worst = 0, dmax = 0;
    int pos = 1;
    for (int s = 0; s < XC_TRIALS_NSTAGE; s++)
        for (int j = 0; j < XC_TRIALS_NSIG; j++) {
            double d = t->sig_eff[j] - t->sig_all[s][j];
            pos &= d > 0;
            dmax = fmax(dmax, d);
            if (t->sig_eff[j] >= 5)
                worst = fmax(worst, fabs(d - t->approx[s][j]) / t->approx[s][j]);
        }
    verdict(out, "trial count", "sigma moves with ln(trials) as the Gaussian tail says");
    xc_fmt(out->measured, sizeof out->measured, "accelsearch's count gives up to %.2f sigma more than counting every "
           "point (zmax %d, %ld..%ld bins); worst |d - slope| / slope %.3f (sigma >= 5)", dmax, t->zmax, t->rlo,
           t->rhi, worst);
    xc_fmt(out->bound, sizeof out->bound, "every difference > 0 and within 15 %% of ln(n_all/n_eff) Q/phi (sigma >= 5: "
           "the tail's curvature over the step)");
    out->pass = pos && worst <= 0.15;
}

json_t *xc_accel_trials_json(const xc_accel_trials_cmp *t)
{
    json_t *st = json_array();
    for (int s = 0; s < XC_TRIALS_NSTAGE; s++) {
        json_t *c = json_array();
        for (int j = 0; j < XC_TRIALS_NSIG; j++)
            json_array_append_new(c, json_pack("{s:f, s:f, s:f, s:f}", "sigma_eff", t->sig_eff[j], "power_2P",
                                               t->power[s][j], "sigma_all", t->sig_all[s][j], "tail_slope_approx",
                                               t->approx[s][j]));
        json_array_append_new(st, json_pack("{s:i, s:f, s:f, s:o}", "numharm", 1 << s, "trials_accelsearch",
                                            t->n_eff[s], "trials_all_points", t->n_all[s], "candidates", c));
    }
    return json_pack("{s:f, s:f, s:i, s:i, s:I, s:I, s:i, s:i, s:o}", "nbins", t->nbins, "T", t->T, "zmax", t->zmax,
                     "wmax", t->wmax, "rlo", (json_int_t)t->rlo, "rhi", (json_int_t)t->rhi, "numz", t->numz, "numw",
                     t->numw, "stages", st);
}

/* ---- 6. the trial count on noise ------------------------------------------------ */

int xc_accel_maxfa_rows(const xc_accel_maxfa *m, xc_row out[XC_MAXFA_NX])
{
    for (int k = 0; k < XC_MAXFA_NX; k++) {
        xc_fmt(out[k].key, sizeof out[k].key, "zmax %d, %zu spectra of %zu bins: largest 2P > %.2f", m->zmax, m->nspec,
               m->nbins, m->x[k]);
        xc_fmt(out[k].value, sizeof out[k].value, "%zu spectra (accelsearch's %.4g trials: %.1f, %zu..%zu; every point's "
               "%.4g: %.1f, %zu..%zu); the data show %.4g independent trials = %.2f x accelsearch's, %.2f x every "
               "point", m->count[k], m->n_eff, m->pred[k] * (double)m->nspec, m->lo_eff[k], m->hi_eff[k], m->n_all,
               m->p_all[k] * (double)m->nspec, m->lo_all[k], m->hi_all[k], m->n_hat[k], m->n_hat[k] / m->n_eff,
               m->n_hat[k] / m->n_all);
    }
    return XC_MAXFA_NX;
}

void xc_accel_maxfa_verdict(const xc_accel_maxfa *m, const char *impl, xc_verdict *out)
{
    const int k = XC_MAXFA_NX - 1;
    char c[160];
    xc_fmt(c, sizeof c, "noise planes' false alarms between accelsearch's trial count and every point (zmax %d)",
           m->zmax);
    verdict(out, impl, c);
    xc_fmt(out->measured, sizeof out->measured, "%zu of %zu spectra with 2P > %.2f (accelsearch's count predicts "
           "%.0f; effective trials %.2f x its %.4g)", m->count[k], m->nspec, m->x[k], m->pred[k] * (double)m->nspec,
           m->n_hat[k] / m->n_eff, m->n_eff);
    xc_fmt(out->bound, sizeof out->bound, ">= %zu (accelsearch's, binomial two-sided %g) and <= %zu (every grid "
           "point's): correlated points give fewer independent trials than points, never fewer than a correct "
           "effective count", m->lo_eff[k], m->alpha, m->hi_all[k]);
    out->pass = m->count[k] >= m->lo_eff[k] && m->count[k] <= m->hi_all[k];
}

json_t *xc_accel_maxfa_json(const xc_accel_maxfa *m)
{
    json_t *a = json_array();
    for (int k = 0; k < XC_MAXFA_NX; k++)
        json_array_append_new(a, json_pack("{s:f, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:o}", "x_2P", m->x[k],
                                           "predicted_accelsearch", m->pred[k], "predicted_all_points", m->p_all[k],
                                           "count", (json_int_t)m->count[k], "lo_accelsearch",
                                           (json_int_t)m->lo_eff[k], "hi_accelsearch", (json_int_t)m->hi_eff[k],
                                           "lo_all_points", (json_int_t)m->lo_all[k], "hi_all_points",
                                           (json_int_t)m->hi_all[k], "effective_trials", jnum(m->n_hat[k])));
    return json_pack("{s:i, s:I, s:I, s:f, s:f, s:f, s:f, s:o}", "zmax", m->zmax, "nbins", (json_int_t)m->nbins,
                     "nspec", (json_int_t)m->nspec, "bins_searched", m->R, "trials_accelsearch", m->n_eff,
                     "trials_all_points", m->n_all, "alpha", m->alpha, "thresholds", a);
}
