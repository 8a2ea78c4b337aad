/* crosscheck check approximations, section 5: the matched-filter accel
 * search's noise statistics and accelsearch's shortcuts, measured by
 * approx/accel/xc_approx_accel.h; this file prints them and fills the report
 * (the rest of the command: cmd_check.c). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/base/cli.h"
#include "cli/check/check.h"
#include "approx/accel/xc_approx_accel.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_progress.h"

/* ---- 5. the matched-filter accel search -------------------------------------- */

static xc_status accel_noise(ctx *c, json_t *aj, xc_error *err)
{
    /* zmax, z, H, log2 nbins (quick: one less) */
    static const int cfg[][4] = {{0, 0, 1, 17}, {0, 0, 2, 17}, {0, 0, 4, 17}, {50, 50, 1, 18},
                                 {50, -20, 1, 18}, {50, 40, 2, 18}, {50, 30, 4, 19}};
    const int ncfg = (int)(sizeof cfg / sizeof *cfg), n = ncfg * c->nseeds;
    xc_accel_noise *r = calloc((size_t)n, sizeof *r);
    if (!r)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    json_t *arr = json_array();
    ck_jset(aj, "noise", arr);
    printf(" noise (%d seeds; %s searcher):\n", c->nseeds, c->accel->impl.name);
    xc_status st = XC_OK;
    for (int k = 0; k < n && !st; k++) {
        const int *q = cfg[k % ncfg];
        xc_accel_noise_opts o;
        xc_accel_noise_opts_init(&o);
        o.zmax = q[0];
        o.z = q[1];
        o.numharm = q[2];
        o.nbins = (size_t)1 << (q[3] - c->quick);
        o.threads = c->threads;
        o.alpha = FA_ALPHA / (2.0 * n * XC_ACCEL_NOISE_NFA);   /* Bonferroni over every count */
        if ((st = xc_approx_accel_noise(c->accel, &o, c->seed + 8 * SEED_STRIDE + (uint64_t)k, &r[k], err)))
            break;
        xc_row row;
        xc_accel_noise_row(&r[k], &row);
        ck_rows(c, &row, 1);
        json_t *j = xc_accel_noise_json(&r[k]);
        if (j)
            json_object_set_new(j, "seed_index", json_integer(k / ncfg));
        json_array_append_new(arr, j);
    }
    if (!st) {
        xc_verdict v[2];
        xc_accel_noise_summary(r, n, KS_ALPHA, c->accel->impl.name, v);
        ck_verdicts(c, v, 2);
    }
    free(r);
    return st;
}

xc_status ck_check_accel(ctx *c, xc_error *err)
{
    ck_section(c, "5. The matched-filter accel search: noise statistics and accelsearch's shortcuts",
            "Noise: zero-mean complex Gaussian spectra, normalised as preset exact (median/ln 2 over blocks of 1024), "
            "the plane made by the default accel searcher's plane stage, harmonic sums with core's rounding; only "
            "independent points: every H bins at z = 0 (a z = 0 template at integer r is a delta), H (2 hw + 2) "
            "bins apart otherwise, with harmonics in disjoint ranges.  Against chi-square with 2H dof (KS, "
            "Pearson over 10 cells), the mean against 2H times the template's energy at integer offsets (1 at "
            "z = 0; a truncated template holds 0.1 % less at z = 50), and the points above 2P thresholds of "
            "single-trial p = 1e-2 and 1e-3 against binomial bounds.  Then accelsearch's shortcuts against the "
            "reference searcher (direct correlation in double with exact templates): (a) the interpolation grid, "
            "noiseless signals at random r (and z) correlated at the half-bin points (numbetween 2) or the "
            "full-bin ones only, against the theory 1 - |R(dr; dz)|^2 at the best corner of a grid cell (the "
            "correlation of two responses is R of their difference, by Parseval); (b) the half-widths, signals "
            "on the grid matched with LOWACC (16 + 0.55 |z| bins) and HIGHACC (48 + 0.55 |z|) templates against "
            "the energy within 1000 bins beyond the drift; (c) the default searcher's float plane (FFTW "
            "overlap-save) against the reference's double direct one, point by point, on noise with tones of "
            "power 30, 300 and 3000; (d) accelsearch's effective trials (rhi - rlo)(numz + 1)(2/6.95)/H against "
            "every grid point searched, 2 (rhi - rlo) numz, for the sigma of one candidate power.");
    json_t *aj = ck_jpart(c->root, "accel");
    double t0 = xc_now();
    xc_status st = accel_noise(c, aj, err);
    if (st)
        return st;
    const char *ref = c->accel_ref->impl.name;
    xc_accel_grid_loss g;
    if ((st = xc_approx_accel_grid(c->accel_ref, 50, c->quick ? 300 : 1000, c->seed + 9 * SEED_STRIDE, c->threads,
                                   &g, err)))
        return st;
    printf(" (a) interpolation grid (%zu signals per case, zmax %d, %s searcher):\n", g.nsig, g.zmax, ref);
    char t[1024];
    xc_fmt(t, sizeof t, "(a) Exact Fourier interpolation at half bins loses at worst 1 - sinc^2(1/4) = 1 - 8/pi^2 = "
           "%.2f %% of the power (%.2f %% in amplitude), full bins 1 - 4/pi^2 = %.2f %%.  The ~7.4 %% quoted for "
           "half-bin spacing matches interbinning's worst case in amplitude, derived here (the half-bin value "
           "approximated as pi/4 |A_k - A_k+1|, worst where bin and interbin amplitudes cross at dr = 1 - pi/4): "
           "%.2f %% in amplitude, %.2f %% in power.  Ransom, Eikenberry & Middleditch 2002 (AJ 124, 1788) "
           "describe both interbinning and the exact interpolation accelsearch uses.", 100 * g.th_worst[XC_GRID_HALF][XC_GRID_RONLY],
           100 * (1 - sqrt(1 - g.th_worst[XC_GRID_HALF][XC_GRID_RONLY])),
           100 * g.th_worst[XC_GRID_FULL][XC_GRID_RONLY], 100 * g.th_interbin_amp, 100 * g.th_interbin_power);
    xc_vd_text(&c->vd, t);
    xc_row rr[4];
    ck_rows(c, rr, xc_accel_grid_rows(&g, rr));
    xc_verdict v[2];
    ck_verdicts(c, v, xc_accel_grid_verdicts(&g, v));
    ck_jset(aj, "grid", xc_accel_grid_json(&g));
    xc_vd_number(&c->vd, "accel_grid_half_worst", g.worst[XC_GRID_HALF][XC_GRID_RONLY]);
    xc_vd_number(&c->vd, "accel_grid_half_mean", g.mean[XC_GRID_HALF][XC_GRID_RONLY]);
    xc_vd_number(&c->vd, "accel_grid_half_rz_worst", g.worst[XC_GRID_HALF][XC_GRID_RZ]);
    xc_vd_number(&c->vd, "accel_grid_full_worst", g.worst[XC_GRID_FULL][XC_GRID_RONLY]);

    xc_accel_trunc_loss tl;
    if ((st = xc_approx_accel_trunc(c->accel_ref, 200, c->quick ? 150 : 400, c->seed + 10 * SEED_STRIDE, c->threads,
                                    &tl, err)))
        return st;
    printf(" (b) template half-widths (%zu signals on the grid, |z| <= %d, %s searcher):\n", tl.nsig, tl.zmax, ref);
    ck_rows(c, rr, xc_accel_trunc_rows(&tl, rr));
    ck_verdicts(c, v, xc_accel_trunc_verdicts(&tl, v));
    ck_jset(aj, "truncation", xc_accel_trunc_json(&tl));
    xc_vd_number(&c->vd, "accel_lowacc_worst", tl.worst[0]);
    xc_vd_number(&c->vd, "accel_highacc_worst", tl.worst[1]);

    xc_accel_float_diff f;
    if ((st = xc_approx_accel_float(c->accel, c->accel_ref, (size_t)1 << (c->quick ? 13 : 14), 20, 20,
                                    c->seed + 11 * SEED_STRIDE, c->threads, &f, err)))
        return st;
    printf(" (c) float plane (%s) against double (%s):\n", c->accel->impl.name, ref);
    xc_row row;
    xc_accel_float_row(&f, &row);
    ck_rows(c, &row, 1);
    xc_accel_float_verdict(&f, c->accel->impl.name, v);
    ck_verdicts(c, v, 1);
    ck_jset(aj, "float", xc_accel_float_json(&f));
    xc_vd_number(&c->vd, "accel_float_max_rel", f.max_rel);

    xc_accel_trials_cmp tc;
    if ((st = xc_approx_accel_trials((size_t)1 << 20, 134.217728, 200, 0, &tc, err)))
        return st;
    printf(" (d) trial count (2^21 samples of 64 us, zmax 200, rlo %ld, rhi %ld):\n", tc.rlo, tc.rhi);
    xc_row tr[XC_TRIALS_NSTAGE];
    ck_rows(c, tr, xc_accel_trials_rows(&tc, tr));
    xc_accel_trials_verdict(&tc, v);
    ck_verdicts(c, v, 1);
    ck_jset(aj, "trials", xc_accel_trials_json(&tc));
    xc_vd_number(&c->vd, "accel_trials_sigma5_h8_diff", tc.sig_eff[1] - tc.sig_all[3][1]);

    static const int mz[2] = {0, 50};
    size_t nspec = c->quick ? 200 : 400;
    printf(" (e) the trial count on noise (%zu spectra of 8192 bins per zmax, %s searcher):\n", nspec,
           c->accel->impl.name);
    xc_vd_text(&c->vd, "(e) How often the largest 2P of a whole noise plane (H 1, every half-bin r) exceeds the threshold at "
            "which accelsearch's trial count predicts a family-wise false-alarm rate of 0.1 and 0.5, against "
            "binomial bounds under that count and under every grid point, and the count of independent trials "
            "the data show, -ln(1 - fraction) e^{x/2}.");
    json_t *ma = json_array();
    ck_jset(aj, "trials_on_noise", ma);
    for (int k = 0; k < 2; k++) {
        xc_accel_maxfa m;
        if ((st = xc_approx_accel_maxfa(c->accel, 8192, mz[k], nspec, c->seed + (12 + (uint64_t)k) * SEED_STRIDE,
                                        FA_ALPHA, c->threads, &m, err)))
            return st;
        xc_row mr[XC_MAXFA_NX];
        ck_rows(c, mr, xc_accel_maxfa_rows(&m, mr));
        xc_accel_maxfa_verdict(&m, c->accel->impl.name, v);
        ck_verdicts(c, v, 1);
        json_array_append_new(ma, xc_accel_maxfa_json(&m));
        char key[64];
        xc_fmt(key, sizeof key, "accel_noise_trials_over_accelsearch_zmax%d", mz[k]);
        xc_vd_number(&c->vd, key, m.n_hat[XC_MAXFA_NX - 1] / m.n_eff);
    }
    printf(" (section 5: %.1f s)\n", xc_now() - t0);
    return XC_OK;
}

