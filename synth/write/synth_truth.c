/* The truth file: everything a comparator needs to score a search of the synthetic data. */
#include "core/base/xc_nbits.h"
#include "synth/model/xc_synth.h"
#include "synth/write/synth_truth.h"
#include "synth/model/synth_spec.h"
#include "synth/model/xc_orbit.h"
#include "synth/write/synth_burst_snr.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FWHM_PER_SIGMA 2.3548200450309493

/* Setters that remember a failed allocation instead of checking every call. */
typedef struct {
    int bad;
} jb;

static void put(jb *b, json_t *o, const char *k, json_t *v)
{
    if (!o || !v || json_object_set_new(o, k, v))
        b->bad = 1;
}

static void put_real(jb *b, json_t *o, const char *k, double v)
{
    /* JSON has no inf or NaN; a value that is not finite is written as null. */
    put(b, o, k, isfinite(v) ? json_real(v) : json_null());
}
static void put_int(jb *b, json_t *o, const char *k, int64_t v) { put(b, o, k, json_integer((json_int_t)v)); }
static void put_str(jb *b, json_t *o, const char *k, const char *s) { put(b, o, k, json_string(s)); }

/* S/N a searcher should reach: per dedispersed sample, per pulse with a
 * matched filter, folded over the span, and the PRESTO-normalised power of
 * the fundamental (noise power 1) when all of it is recovered; ideal values
 * (no smearing), scaled by what quantisation keeps (gain/rms). */
static json_t *expected_json(jb *b, double snr, double eta, double width_s, int gauss, double period_s, double tsamp,
                             double nsamp)
{
    json_t *o = json_object();
    double a = snr * eta;
    double e2 = gauss ? width_s / FWHM_PER_SIGMA * sqrt(M_PI) : width_s;   /* integral of the profile squared */
    double per_pulse = e2 >= tsamp ? a * sqrt(e2 / tsamp) : a * e2 / tsamp;
    put_real(b, o, "snr_dedispersed_sample", a);
    put_real(b, o, "snr_per_pulse", per_pulse);
    if (period_s > 0) {
        double duty = width_s / period_s, c1;
        if (gauss) {
            double sp = duty / FWHM_PER_SIGMA;
            c1 = a * sp * sqrt(2 * M_PI) * exp(-2 * M_PI * M_PI * sp * sp);
        } else {
            c1 = a * sin(M_PI * duty) / M_PI;
        }
        put_real(b, o, "snr_folded", per_pulse * sqrt(nsamp * tsamp / period_s));
        put_real(b, o, "fft_power_fundamental", nsamp * c1 * c1);
    }
    put_real(b, o, "quantisation_efficiency", eta);
    return o;
}

static json_t *binary_json(jb *b, const xc_timing *tm, double T)
{
    if (!tm->binary)
        return json_null();
    json_t *o = json_object();
    const xc_orbit *ob = &tm->orb;
    double si = sin(tm->bin.inc_deg * M_PI / 180);
    put_real(b, o, "pb_s", ob->pb);
    put_real(b, o, "ecc", ob->e);
    put_real(b, o, "inc_deg", tm->bin.inc_deg);
    put_real(b, o, "omega_deg", tm->bin.omega_deg);
    put_real(b, o, "mp_msun", tm->bin.mp);
    put_real(b, o, "mc_msun", tm->bin.mc);
    put_real(b, o, "mass_function_msun", pow(tm->bin.mc * si, 3) / pow(tm->bin.mp + tm->bin.mc, 2));
    put_real(b, o, "x_lt_s", ob->x);
    put_real(b, o, "asini_m", ob->x * XC_SYNTH_C);
    put_real(b, o, "t_periastron_s", ob->tp);
    put_real(b, o, "tobs_over_porb", T / ob->pb);
    put_real(b, o, "vmax_over_c", xc_orbit_vmax(ob));
    put_real(b, o, "gm_sun", XC_SYNTH_GM_SUN);
    return o;
}

static json_t *pulsar_json(jb *b, const xc_synth_params *p, double T, double nsamp, double eta, xc_search_truth *out,
                           xc_error *err)
{
    if (!(p->psr.period_ms > 0))
        return json_null();
    xc_timing tm;
    if (xc_timing_init(&tm, p, err) || xc_search_truth_compute(&tm, T, tm.fake ? 0.5 * p->tsamp : 0.0, out, err)) {
        b->bad = 2;
        return NULL;
    }
    json_t *o = json_object(), *srch = json_object();
    const double P = tm.fake ? tm.fake_p0 : tm.p0;
    double dc = p->psr.width_pct / 100.0;
    if (tm.fake && p->smear) {
        /* the pulse fake draws is widened (xc_signal_init) */
        double tdm = 8.3e3 * p->psr.dm * xc_synth_foff(p) / pow(p->fch1, 3), w = dc * p->psr.period_ms * 1e-3;
        dc = sqrt(tdm * tdm + p->tsamp * p->tsamp + w * w) / (p->psr.period_ms * 1e-3);
    }
    put_str(b, o, "timing_model", tm.fake ? "fake: phase t/P(t), P updated when the phase wraps, Doppler only"
                                          : "integrated spin phase at tau; t = tau + D(tau) - D(0) (Roemer)");
    put_real(b, o, "period_ms", p->psr.period_ms);
    put_real(b, o, "period_s", P);
    put_real(b, o, "f0_hz", 1.0 / P);
    put_real(b, o, "pdot", p->psr.pdot);
    put_real(b, o, "fdot0_hz_s", -p->psr.pdot / (P * P));
    put_real(b, o, "accn_m_s2", p->psr.accn);
    put_real(b, o, "dm", p->psr.dm);
    put_real(b, o, "width_pct", p->psr.width_pct);
    put_real(b, o, "duty_cycle_drawn", dc);
    put_real(b, o, "width_s", dc * P);
    put_str(b, o, "profile", p->profile == XC_PROFILE_GAUSSIAN ? "gaussian (FWHM = width)" : "tophat");
    put_real(b, o, "snrpeak", p->psr.snrpeak);
    put_real(b, o, "amplitude_per_channel", p->psr.snrpeak / sqrt((double)p->nchans));
    /* Pulse n is centred on spin phase n + 0.5, as in fake. */
    put_real(b, o, "first_pulse_centre_s",
             tm.fake ? 0.5 * P : xc_timing_t_of_tau(&tm, xc_timing_tau_of_phase(&tm, 0.5), NULL));
    put(b, o, "binary", binary_json(b, &tm, T));
    put_real(b, srch, "T_s", out->T);
    put_real(b, srch, "f_start_hz", out->f_start);
    put_real(b, srch, "f_mean_hz", out->f_mean);
    put_real(b, srch, "f_end_hz", out->f_end);
    put_real(b, srch, "fdot_mean_hz_s", out->z / (T * T));
    put_real(b, srch, "fdotdot_mean_hz_s2", out->w / (T * T * T));
    put_real(b, srch, "r", out->r);
    put_real(b, srch, "z", out->z);
    put_real(b, srch, "w", out->w);
    put_real(b, srch, "r_fit", out->r_fit);
    put_real(b, srch, "fit_rms_cycles", out->fit_rms_cycles);
    put_real(b, srch, "doppler_min", out->doppler_min);
    put_real(b, srch, "doppler_max", out->doppler_max);
    put_real(b, srch, "doppler_peak",
             fabs(out->doppler_max - 1) >= fabs(out->doppler_min - 1) ? out->doppler_max : out->doppler_min);
    put_real(b, srch, "vlos_min_m_s", out->vlos_min);
    put_real(b, srch, "vlos_max_m_s", out->vlos_max);
    put_str(b, srch, "definitions",
            "PRESTO (accelsearch, averages over [0, T]): r = f_mean T = phase(T) - phase(0); z = T^2 <fdot> and "
            "w = T^3 <fdotdot> of the least-squares cubic of the phase; doppler = f_apparent/f_rest");
    put(b, o, "search", srch);
    put(b, o, "expected",
        expected_json(b, p->psr.snrpeak, eta, dc * P, p->profile == XC_PROFILE_GAUSSIAN, P, p->tsamp, nsamp));
    return o;
}

/* A burst's own members, its radiometer and the best boxes of its
 * dedispersed series (synth_burst_snr.h), scaled by what quantisation keeps. */
static xc_status burst_json(jb *b, json_t *o, const xc_synth_params *p, const xc_synth_pulse *pl, double eta,
                            xc_error *err)
{
    xc_burst_box bx;
    xc_status st = xc_burst_box_snr(p, pl, &bx, err);
    if (st) {
        b->bad = 2;
        return st;
    }
    json_t *r = json_object(), *e = json_object();
    const double flow = p->fch1 + (p->nchans - 1) * xc_synth_foff(p), w = pl->width_ms * 1e-3;
    put_real(b, o, "fluence_jyms", pl->fluence_jyms);
    put_real(b, o, "tau_ms", pl->tau_ms);
    put_real(b, o, "tau_ref_mhz", pl->tau_ref_mhz);
    put_real(b, o, "tau_index", pl->tau_index);
    put_real(b, o, "tau_highest_channel_ms", 1e3 * xc_synth_pulse_tau(pl, p->fch1));
    put_real(b, o, "tau_lowest_channel_ms", 1e3 * xc_synth_pulse_tau(pl, flow));
    put_real(b, o, "alpha", pl->alpha);
    put_str(b, o, "profile", p->profile == XC_PROFILE_GAUSSIAN ? "gaussian (FWHM = width)" : "tophat");
    put_real(b, o, "snr_peak_unscattered", xc_synth_pulse_snr(p, pl));
    put_real(b, r, "sefd_jy", p->sefd_jy);
    put_int(b, r, "npol", p->npol);
    put_real(b, r, "bandwidth_mhz", p->nchans * fabs(p->foff));
    put_str(b, r, "equation", "S/N = F/SEFD * sqrt(npol*BW/W) for a box W over an unscattered top hat "
                              "(Cordes & McLaughlin 2003); per channel sigma = SEFD/sqrt(npol*df*tsamp) Jy");
    if (pl->fluence_jyms > 0)
        put_real(b, r, "snr_tophat_box", pl->fluence_jyms * 1e-3 / p->sefd_jy *
                                             sqrt(p->npol * p->nchans * fabs(p->foff) * 1e6 / w));
    put(b, o, "radiometer", r);
    put_str(b, e, "what", "best box on the noiseless series dedispersed at the burst's DM with the convention's "
                          "rounded delays: S/N = box sum/sqrt(nchans*width), times quantisation_efficiency");
    put_real(b, e, "snr", bx.snr * eta);
    put_int(b, e, "width_samples", bx.width);
    put_int(b, e, "start_sample", bx.start);
    put_real(b, e, "snr_pow2", bx.snr_pow2 * eta);
    put_int(b, e, "width_pow2_samples", bx.width_pow2);
    put_int(b, e, "start_pow2_sample", bx.start_pow2);
    put_real(b, e, "snr_peak_sample", bx.peak * eta);
    put_real(b, e, "quantisation_efficiency", eta);
    put(b, o, "expected_box", e);
    return XC_OK;
}

static json_t *pulses_json(jb *b, const xc_synth_params *p, double eta, xc_error *err)
{
    json_t *a = json_array();
    if (!a)
        return NULL;
    const double flow = p->fch1 + (p->nchans - 1) * xc_synth_foff(p);
    for (size_t i = 0; i < p->npulses; i++) {
        const xc_synth_pulse *pl = &p->pulses[i];
        const double snr = xc_synth_pulse_snr(p, pl);   /* pl->snr, or what a burst's fluence makes */
        json_t *o = json_pack("{s:f, s:f, s:f, s:f}", "t_s", pl->t_s, "dm", pl->dm, "width_ms", pl->width_ms, "snr",
                              snr);
        if (!o || json_array_append_new(a, o)) {
            b->bad = 1;
            continue;
        }
        double w = pl->width_ms * 1e-3, wsamp = w / p->tsamp;
        put_int(b, o, "arrival_sample", (int64_t)floor(pl->t_s / p->tsamp));
        put_real(b, o, "width_samples", wsamp);
        put_real(b, o, "amplitude_per_channel", snr / sqrt((double)p->nchans));
        put_real(b, o, "delay_lowest_channel_s", xc_synth_delay(p, pl->dm, flow));
        /* A boxcar matched to W >= 1 samples sums W samples of S/N snr over
         * sqrt(W) noise; a pulse narrower than a sample puts its whole energy,
         * snr*W, into one sample. */
        put_real(b, o, "expected_boxcar_snr", wsamp >= 1 ? snr * sqrt(wsamp) : snr * wsamp);
        put(b, o, "expected", expected_json(b, snr, eta, w, p->profile == XC_PROFILE_GAUSSIAN, 0, p->tsamp, 0));
        if (xc_synth_pulse_is_burst(pl) && burst_json(b, o, p, pl, eta, err)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* The truth file's tree; NULL with err set. */
static json_t *truth_tree(const xc_synth_params *p, const char *path, const char *cmdline, const xc_dedisp_info *dd,
                          xc_error *err)
{
    jb b = {0};
    json_t *root = json_object(), *cv = json_object(), *model = json_object(), *noise = json_object();
    double mean, rms, gain;
    xc_synth_level_stats(p->nbits, &mean, &rms, &gain);
    const double eta = gain / rms;
    const uint64_t nsamp = dd ? dd->nsamp : xc_synth_nsamp(p);
    const double T = (double)nsamp * p->tsamp;
    put_str(&b, root, "generator", "crosscheck synth");
    put(&b, root, "command_line", cmdline ? json_string(cmdline) : json_null());
    put_str(&b, root, "file", path);
    put(&b, root, "params", xc_synth_params_to_json(p));
    put_str(&b, cv, "name", p->convention->name);
    put_real(&b, cv, "kdm", p->convention->kdm);
    put(&b, root, "convention", cv);
    put(&b, root, "seed", xc_synth_seed_json(p->seed));
    put_int(&b, root, "nsamp", (int64_t)nsamp);
    put_real(&b, root, "tsamp_s", p->tsamp);
    put_real(&b, root, "tobs_s", T);
    put_real(&b, root, "tstart_mjd", p->tstart);
    put_real(&b, root, "foff_written", xc_synth_foff(p));
    put_real(&b, root, "dm", p->psr.period_ms > 0 ? p->psr.dm : p->npulses ? p->pulses[0].dm : 0.0);

    xc_search_truth st;
    xc_error terr;
    json_t *psr = pulsar_json(&b, p, T, (double)nsamp, eta, &st, &terr);
    if (b.bad == 2) {
        json_decref(root);
        json_decref(model);
        json_decref(noise);
        xc_error_set(err, terr.code, "%s: %s", path, terr.msg);
        return NULL;
    }
    /* The search parameters at the top level, where comparators look first. */
    int has = p->psr.period_ms > 0;
    put(&b, root, "f0_hz", has ? json_real(st.f0) : json_null());
    put(&b, root, "f_mean_hz", has ? json_real(st.f_mean) : json_null());
    put(&b, root, "r", has ? json_real(st.r) : json_null());
    put(&b, root, "z", has ? json_real(st.z) : json_null());
    put(&b, root, "w", has ? json_real(st.w) : json_null());

    put_str(&b, model, "time_origin", "t = 0 at the start of sample 0; sample i covers [i*tsamp, (i+1)*tsamp)");
    put_str(&b, model, "reference_frequency", "fch1, the highest channel; delay = kdm*dm*(1/f^2 - 1/fch1^2)");
    put_str(&b, model, "amplitude", "snr/sqrt(nchans) noise sigmas per channel at the pulse peak, integrated over "
                                    "each sample");
    put_str(&b, model, "smearing",
            !p->smear ? "none"
            : p->profile == XC_PROFILE_GAUSSIAN
                ? "each channel cut into 8 slices, delay linear in frequency within a slice"
                : "exact for a channel integrating uniformly over its band");
    put_str(&b, model, "noise", p->noise ? "N(0,1): Philox4x32-10 (key seed, counter sample, channel/4, stream 0) + "
                                           "Box-Muller in float"
                                         : "none");
    put_str(&b, model, "quantisation",
            xc_nbits_is_float(p->nbits)  ? "float32"
            : p->nbits == 1 ? "bit = x > 0"
                            : "rint((x + 4)*(2^nbits - 1)/8) in float, clipped to [0, 2^nbits - 1]");
    put(&b, root, "model", model);
    put_real(&b, noise, "level_mean", mean);
    put_real(&b, noise, "level_rms", rms);
    put_real(&b, noise, "level_gain_per_sigma", gain);
    put_real(&b, noise, "quantisation_efficiency", eta);
    put(&b, root, "quantised_noise", noise);
    put(&b, root, "pulsar", psr);
    json_t *pls = pulses_json(&b, p, eta, &terr);
    if (b.bad == 2) {
        json_decref(pls);
        json_decref(root);
        xc_error_set(err, terr.code, "%s: %s", path, terr.msg);
        return NULL;
    }
    put(&b, root, "pulses", pls);
    if (dd) {
        json_t *d = json_object();
        put_str(&b, d, "what", "channel sum at the true DM with the convention's rounded delays (fast path)");
        put_real(&b, d, "dm", dd->dm);
        put_int(&b, d, "max_delay_samples", dd->max_delay);
        put_int(&b, d, "nsamp", (int64_t)dd->nsamp);
        put_real(&b, d, "noise_mean", dd->mean);
        put_real(&b, d, "noise_sigma", dd->sigma);
        put_real(&b, d, "signal_gain", dd->gain);
        put(&b, root, "dedispersed", d);
    }
    if (b.bad) {
        json_decref(root);
        xc_error_set(err, XC_ENOMEM, "%s: out of memory building the truth file", path);
        return NULL;
    }
    return root;
}

char *xc_synth_truth_text(const xc_synth_params *p, const char *path, const char *cmdline,
                          const xc_dedisp_info *dd, xc_error *err)
{
    json_t *root = truth_tree(p, path, cmdline, dd, err);
    if (!root)
        return NULL;
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!s)
        xc_error_set(err, XC_ENOMEM, "%s: out of memory building the truth file", path);
    return s;
}

xc_status xc_synth_truth(const xc_synth_params *p, const char *label, const xc_dedisp_info *dd, xc_truth *t,
                         xc_error *err)
{
    json_t *root = truth_tree(p, label, NULL, dd, err);
    if (!root)
        return err ? err->code : XC_ENOMEM;
    xc_status st = xc_truth_parse(t, root, label, 0, err);
    json_decref(root);
    return st;
}

xc_status xc_synth_truth_pulses(const xc_synth_params *p, const char *label, xc_truth *t, xc_error *err)
{
    json_t *root = truth_tree(p, label, NULL, NULL, err);
    if (!root)
        return err ? err->code : XC_ENOMEM;
    xc_status st = xc_truth_parse(t, root, label, 0, err);
    if (!st)
        st = xc_truth_parse_pulses(t, root, label, err);
    json_decref(root);
    return st;
}
