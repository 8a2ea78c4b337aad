/* crosscheck gate search: the tone cases and the oracles that judge them
 * (gate.h).  A tone case is a time series of white Gaussian noise (sigma 1),
 * optionally a random walk on top (red noise, power ~ 1/f^2), and a
 * sinusoid and its second harmonic whose frequency drifts linearly: every
 * property a search should recover follows from the injected parameters,
 * and the checks below use no searcher's code.
 *
 * Power oracle (accel family): a candidate's power recomputed by direct
 * correlation of the normalised spectrum with its template,
 *   P = 2 sum_h |sum_k s_k X_k conj(R(k - r_h; z_h))|^2   (noise mean 2, as the searchers'),
 * R from direct quadrature of the phase integral (xc_accel_resp_quad, not
 * the Fresnel closed form the searchers use), the template's half-width
 * PRESTO's z_resp_halfwidth, (int)(1.1 |z| / 2) + NUMFINTBINS (src/responses.c),
 * and harmonic h of H read where accelsearch reads it: half-bin index
 * (int)(i h/H + 0.5) of top index i (src/accel_utils.c inmem_add_ffdotpows),
 * z rounded to the grid by calc_required_z (NEAREST_INT, ACCEL_DZ = 2).
 * The normalisation s_k is the one under judgement elsewhere (the accel
 * normalisation test): taken as the searchers take it.
 *
 * Dereddening oracle: white noise has mean power 1 once dereddened at every
 * frequency, whatever the red noise under it (core/search/spectrum/
 * xc_rednoise.h); the mean over each octave of bins is judged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "cli/gate/gate.h"
#include "core/base/xc_fmt.h"
#include "core/io/xc_presto.h"
#include "core/search/spectrum/xc_rednoise.h"
#include "core/search/xc_accel.h"

xc_status gate_tone_write(const gate_tone *t, const char *dat, const char *inf, const char *name, xc_error *err)
{
    float *x = malloc(t->n * sizeof *x);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!x || !rng) {
        free(x);
        gsl_rng_free(rng);
        return xc_error_set(err, XC_ENOMEM, "gate: out of memory for a tone of %zu samples", t->n);
    }
    gsl_rng_set(rng, (unsigned long)t->seed);
    /* phase 2 pi (f0 t + fdot t^2 / 2) with r0 = f_mid T, z0 = fdot T^2 */
    const double N = (double)t->n, f0 = (t->r0 - 0.5 * t->z0) / N, fd = t->z0 / (N * N);
    double walk = 0;
    for (size_t i = 0; i < t->n; i++) {
        double u = (double)i, ph = 2 * M_PI * (f0 * u + 0.5 * fd * u * u);
        walk += t->red * gsl_ran_gaussian_ziggurat(rng, 1.0);
        x[i] = (float)(gsl_ran_gaussian_ziggurat(rng, 1.0) + walk + t->amp[0] * cos(ph) + t->amp[1] * cos(2 * ph + 1.0) +
                       t->ampc * cos(2 * M_PI * t->rc * u / N));
    }
    gsl_rng_free(rng);
    xc_status st = xc_dat_write(dat, x, t->n, err);
    free(x);
    if (st)
        return st;
    xc_inf h;
    xc_inf_init(&h);
    xc_fmt(h.name, sizeof h.name, "%s", name);
    xc_fmt(h.telescope, sizeof h.telescope, "None (Artificial Data Set)");
    h.n = N;
    h.dt = t->tsamp;
    return xc_inf_write(&h, inf, err);
}

void gate_tone_truth(const gate_tone *t, double T, xc_truth *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->T = T;
    tr->r = t->r0;
    tr->z = t->z0;
    tr->f0_hz = t->r0 / T;
    tr->have_rz = 1;
    tr->w = NAN;
    tr->snr_folded = NAN;
}

/* PRESTO's NEAREST_INT and calc_required_z (src/accel_utils.c). */
static int nearest(double x) { return (int)(x < 0 ? x - 0.5 : x + 0.5); }
static double required_z(double frac, double z) { return 2.0 * nearest(z * frac / 2.0); }

/* |sum_k Xn_k conj(R(k - r; z))|^2 over |k - r| <= the half-width. */
static double corr_power(const double *Xn, size_t nbins, double r, double z)
{
    int hw = (int)(0.5 * 1.1 * fabs(z)) + XC_ACCEL_NUMFINTBINS;
    double re = 0, im = 0;
    for (long k = (long)ceil(r - hw); k <= (long)floor(r + hw); k++) {
        if (k < 1 || k >= (long)nbins)
            continue;
        double R[2];
        xc_accel_resp_quad((double)k - r, z, 0, R);
        re += Xn[2 * k] * R[0] + Xn[2 * k + 1] * R[1];
        im += Xn[2 * k + 1] * R[0] - Xn[2 * k] * R[1];
    }
    return re * re + im * im;
}

double gate_tone_oracle_power(const double *Xn, size_t nbins, const xc_cand *c)
{
    int H = c->numharm > 0 ? c->numharm : 1;
    long i = lrint(2.0 * H * c->r);   /* the top harmonic's half-bin index */
    double ztop = c->z * H, P = 0;
    for (int h = 1; h <= H; h++) {
        double frac = (double)h / H;
        long ih = h == H ? i : (long)((double)i * frac + 0.5);
        P += corr_power(Xn, nbins, 0.5 * (double)ih, h == H ? ztop : required_z(frac, ztop));
    }
    return 2 * P;   /* the searchers' units: noise mean 2 (PRESTO's files print half) */
}

void gate_check_power_oracle(gatectx *g, const char *obs, const xc_candlist *cl, const xc_spectrum *sp,
                             double minsigma, double rtol)
{
    xc_accel_opts ao;
    xc_accel_opts_default(&ao);
    double *scale = malloc(sp->nbins * sizeof *scale), *Xn = malloc(2 * sp->nbins * sizeof *Xn);
    xc_error e;
    xc_status st = scale && Xn ? XC_OK : xc_error_set(&e, XC_ENOMEM, "gate: out of memory (%zu bins)", sp->nbins);
    if (!st)
        st = xc_accel_norm_scales(sp->data, sp->nbins, ao.normwidth, scale, &e);
    if (st) {
        free(scale);
        free(Xn);
        xc_vd_note(&g->vd, st, &e);
        return;
    }
    for (size_t k = 0; k < sp->nbins; k++) {
        Xn[2 * k] = sp->data[2 * k] * scale[k];
        Xn[2 * k + 1] = sp->data[2 * k + 1] * scale[k];
    }
    free(scale);
    size_t n = 0;
    double worst = 0, got = NAN, want = NAN, wr = NAN, wz = NAN;
    int wh = 0;
    for (size_t k = 0; k < cl->n; k++) {
        const xc_cand *c = &cl->c[k];
        if (!(c->sigma > minsigma))
            continue;
        double P = gate_tone_oracle_power(Xn, sp->nbins, c), d = fabs(c->power - P) / P;
        n++;
        if (!(d <= worst)) {
            worst = d;
            got = c->power, want = P, wr = c->r, wz = c->z, wh = c->numharm;
        }
    }
    free(Xn);
    char bound[64];
    xc_fmt(bound, sizeof bound, "|rel. diff| <= %g", rtol);
    if (n == 0) {
        xc_vd_fail(&g->vd, obs, g->label, "power vs direct correlation", "no candidate above the cut", bound);
        return;
    }
    xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, "power vs direct correlation",
                                      worst <= rtol ? XC_CHECK_PASS : XC_CHECK_FAIL, got, want, bound, &e,
                                      "%zu candidates with sigma > %g; worst at r %.2f z %.1f numharm %d: power %.8g, "
                                      "direct %.8g, rel. diff %.3g", n, minsigma, wr, wz, wh, got, want, worst),
              &e);
}

void gate_check_dereddened(gatectx *g, const char *obs, const xc_spectrum *sp, const gate_tone *t, double tol)
{
    xc_spectrum red;
    xc_error e;
    if (xc_spectrum_deredden(sp, &red, &e)) {
        xc_vd_fail(&g->vd, obs, g->label, "dereddened noise power mean 1", e.msg, "-");
        return;
    }
    /* octaves [2^j, 2^(j+1)) from bin 2048: shorter blocks below are
     * biased by their few-bin medians (E[1/median] > 1/E[median]) */
    double worst = 0, wmean = NAN;
    size_t wlo = 0, nr = 0;
    for (size_t lo = 2048; lo < red.nbins; lo *= 2, nr++) {
        size_t hi = 2 * lo < red.nbins ? 2 * lo : red.nbins;
        double s = 0;
        size_t m = 0;
        for (size_t k = lo; k < hi; k++) {
            /* the tone's bins (the response's main lobe and near wings) are not noise */
            if (fabs((double)k - t->r0) <= 64 + fabs(t->z0) || fabs((double)k - 2 * t->r0) <= 64 + 2 * fabs(t->z0))
                continue;
            s += (double)red.data[2 * k] * red.data[2 * k] + (double)red.data[2 * k + 1] * red.data[2 * k + 1];
            m++;
        }
        double mean = s / (double)m;
        if (!(fabs(mean - 1) <= worst)) {
            worst = fabs(mean - 1);
            wmean = mean;
            wlo = lo;
        }
    }
    xc_spectrum_free(&red);
    char bound[64];
    xc_fmt(bound, sizeof bound, "|mean - 1| <= %g", tol);
    xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, "dereddened noise power mean 1",
                                      worst <= tol ? XC_CHECK_PASS : XC_CHECK_FAIL, wmean, 1.0, bound, &e,
                                      "%zu octaves from bin 2048; worst mean %.4f (bins %zu..)", nr, wmean, wlo),
              &e);
}
