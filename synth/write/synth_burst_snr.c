/* The S/N a matched boxcar search should reach on a burst: its noiseless
 * dedispersed series, searched over box widths. */
#include "synth/write/synth_burst_snr.h"
#include "synth/signal/synth_signal.h"

#include <math.h>
#include <stdlib.h>

#define MAX_SERIES (1 << 22)
#define FWHM_PER_SIGMA 2.3548200450309493

/* The best box of width w over the prefix sums P[0..n]: *best sum, *at start. */
static void best_box(const double *P, int64_t n, int64_t w, double *best, int64_t *at)
{
    *best = -INFINITY;
    *at = 0;
    for (int64_t i = 0; i + w <= n; i++) {
        double s = P[i + w] - P[i];
        if (s > *best) {
            *best = s;
            *at = i;
        }
    }
}

/* Renders the band sum of burst pl dedispersed with delays D into x[0..n), sample first at x[0]. */
static void render(const xc_synth_params *p, const xc_synth_pulse *pl, const int32_t *D, float *x, int64_t first,
                   int64_t n)
{
    const xc_chunk ck = {x, (uint64_t)first, (size_t)n, 1, p->tsamp};
    const double amp = xc_synth_pulse_snr(p, pl) / sqrt((double)p->nchans);
    const double mean = xc_synth_pulse_spectral_mean(p, pl);
    for (int c = 0; c < p->nchans; c++) {
        xc_synth_pulse sh = *pl;
        sh.t_s -= (double)D[c] * p->tsamp;
        xc_signal_burst(p, &ck, 0, c, &sh, amp * xc_synth_pulse_spectral_weight(p, pl, c, mean));
    }
}

xc_status xc_burst_box_snr(const xc_synth_params *p, const xc_synth_pulse *pl, xc_burst_box *out, xc_error *err)
{
    const int nch = p->nchans;
    const double ts = p->tsamp, bw = fabs(p->foff), w = pl->width_ms * 1e-3;
    int32_t *D = malloc((size_t)nch * sizeof *D);
    if (!D)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %d delays", nch);
    double dmv = pl->dm;
    xc_dmrange rng = {pl->dm, pl->dm + 1, 1, 1, 1, &dmv};
    xc_geometry geom = {nch, p->fch1, xc_synth_foff(p), ts};
    xc_status st = xc_delays_compute(p->convention, &geom, &rng, D, err);
    if (st) {
        free(D);
        return st;
    }
    /* the residual delays after rounding, over each channel's band */
    double rlo = INFINITY, rhi = -INFINITY;
    for (int c = 0; c < nch; c++) {
        double fc = p->fch1 - c * bw, e = p->smear ? 0.5 * bw : 0.0;
        rlo = fmin(rlo, xc_synth_delay(p, pl->dm, fc + e) - D[c] * ts);
        rhi = fmax(rhi, xc_synth_delay(p, pl->dm, fc - e) - D[c] * ts);
    }
    const double ext = p->profile == XC_PROFILE_GAUSSIAN ? 8.0 * w / FWHM_PER_SIGMA : 0.5 * w;
    const int64_t first = (int64_t)floor((pl->t_s - ext + rlo) / ts) - 2;
    const int64_t last = (int64_t)floor((pl->t_s + ext + rhi + xc_signal_burst_tail(p, pl)) / ts) + 2;
    const int64_t n = last - first + 1;
    if (n > MAX_SERIES) {
        free(D);
        return xc_error_set(err, XC_EINVAL, "pulse at t_s = %.15g: its dedispersed series spans %lld samples, more "
                            "than %d (width_ms %.15g, tau_ms %.15g)", pl->t_s, (long long)n, MAX_SERIES,
                            pl->width_ms, pl->tau_ms);
    }
    /* the series may start before sample 0 (a burst near the start): it is
     * rendered from 0 and the box is then looked for only where samples exist */
    const int64_t f0 = first < 0 ? 0 : first, n0 = last - f0 + 1;
    float *x = calloc((size_t)(n0 > 0 ? n0 : 1), sizeof *x);
    double *P = malloc((size_t)(n0 + 1) * sizeof *P);
    if (!x || !P) {
        free(D);
        free(x);
        free(P);
        return xc_error_set(err, XC_ENOMEM, "out of memory for a %lld-sample burst series", (long long)n0);
    }
    render(p, pl, D, x, f0, n0);
    P[0] = 0;
    for (int64_t i = 0; i < n0; i++)
        P[i + 1] = P[i] + x[i];
    *out = (xc_burst_box){-INFINITY, 0, 0, -INFINITY, 0, 0, 0};
    for (int64_t wd = 1; wd <= n0; wd = wd < 32 ? wd + 1 : (int64_t)ceil(wd * 1.1)) {
        double s;
        int64_t at;
        best_box(P, n0, wd, &s, &at);
        s /= sqrt((double)nch * (double)wd);
        if (wd == 1)
            out->peak = s;
        if (s > out->snr)
            *out = (xc_burst_box){s, wd, f0 + at, out->snr_pow2, out->width_pow2, out->start_pow2, out->peak};
    }
    for (int64_t wd = 1; wd <= n0; wd *= 2) {
        double s;
        int64_t at;
        best_box(P, n0, wd, &s, &at);
        s /= sqrt((double)nch * (double)wd);
        if (s > out->snr_pow2) {
            out->snr_pow2 = s;
            out->width_pow2 = wd;
            out->start_pow2 = f0 + at;
        }
    }
    free(D);
    free(x);
    free(P);
    return XC_OK;
}
