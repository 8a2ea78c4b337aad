/* Synthesizer parameters: defaults, validation and derived quantities. */
#include "core/base/xc_nbits.h"
#include "synth/model/xc_synth.h"
#include "synth/model/synth_params.h"
#include "synth/model/xc_orbit.h"
#include "core/base/xc_grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void xc_synth_params_init(xc_synth_params *p)
{
    memset(p, 0, sizeof *p);
    p->nchans = 128;
    p->nbits = 4;
    p->tsamp = 80e-6;
    p->tobs = 10.0;
    p->fch1 = 433.968;
    p->foff = -0.062;
    p->tstart = 50000.0;
    p->seed = 1;
    p->convention = xc_convention_get("crosscheck");
    p->smear = 1;
    p->noise = 1;
    p->bitorder = XC_BITORDER_LSB;
    p->psr.period_ms = 0.0;
    p->psr.width_pct = 4.0;
    p->psr.snrpeak = 1.0;
    p->psr.dm = 0.0;
    p->psr.bin.pb_h = 10.0;
    p->psr.bin.inc_deg = 90.0;
    p->psr.bin.mp = 1.4;
    p->psr.bin.mc = 5.0;
    p->profile = XC_PROFILE_TOPHAT;
    p->sefd_jy = XC_SYNTH_SEFD_JY;
    p->npol = XC_SYNTH_NPOL;
}

void xc_synth_params_init_obs(xc_synth_params *p, int nchans, int nbits, double tsamp, double tobs)
{
    xc_synth_params_init(p);
    p->nchans = nchans;
    p->nbits = nbits;
    p->tsamp = tsamp;
    p->tobs = tobs;
}

void xc_synth_params_free(xc_synth_params *p)
{
    free(p->pulses);
    p->pulses = NULL;
    p->npulses = p->pulses_cap = 0;
}

xc_status xc_synth_params_copy(xc_synth_params *dst, const xc_synth_params *src, xc_error *err)
{
    *dst = *src;
    dst->pulses = NULL;
    dst->npulses = dst->pulses_cap = 0;
    for (size_t i = 0; i < src->npulses; i++) {
        xc_status st = xc_synth_params_add_pulse(dst, &src->pulses[i], err);
        if (st) {
            xc_synth_params_free(dst);
            return st;
        }
    }
    return XC_OK;
}

xc_status xc_synth_params_add_pulse(xc_synth_params *p, const xc_synth_pulse *pulse, xc_error *err)
{
    if (xc_grow_push(&p->pulses, &p->npulses, &p->pulses_cap, pulse, sizeof *pulse, 8))
        return xc_error_set(err, XC_ENOMEM, "out of memory adding pulse %zu", p->npulses);
    return XC_OK;
}

/* ---- one validator per field, shared by the JSON loader and the full check --- */

#define SRC(s) ((s) ? (s) : ""), ((s) ? ": " : "")

xc_status xc_synth_check_nchans(const char *src, long v, xc_error *err)
{
    if (v < 1 || v > XC_SYNTH_MAX_NCHANS)
        return xc_error_set(err, XC_EINVAL, "%s%snchans (-nchans) = %ld: must be 1..%d", SRC(src), v,
                            XC_SYNTH_MAX_NCHANS);
    return XC_OK;
}

xc_status xc_synth_check_nbits(const char *src, long v, xc_error *err)
{
    if (!xc_nbits_valid(v))
        return xc_error_set(err, XC_EINVAL, "%s%snbits (-nbits) = %ld: must be 1, 2, 4, 8, 16 or 32", SRC(src), v);
    return XC_OK;
}

xc_status xc_synth_check_tsamp(const char *src, double tsamp_s, xc_error *err)
{
    if (!(tsamp_s > 0) || !isfinite(tsamp_s))
        return xc_error_set(err, XC_EINVAL, "%s%stsamp_us (-tsamp) = %.15g: must be a finite number > 0", SRC(src),
                            tsamp_s * 1e6);
    return XC_OK;
}

/* v >= 0 (a NaN was refused before). */
static xc_status xc_synth_check_nonneg(const char *src, const char *field, const char *opt, double v, xc_error *err)
{
    if (v < 0)
        return xc_error_set(err, XC_EINVAL, "%s%s%s (%s) = %.15g: must be >= 0", SRC(src), field, opt, v);
    return XC_OK;
}

xc_status xc_synth_check_tobs(const char *src, double v, xc_error *err)
{
    if (!(v > 0) || !isfinite(v))
        return xc_error_set(err, XC_EINVAL, "%s%stobs_s (-tobs) = %.15g: must be a finite number > 0", SRC(src), v);
    return XC_OK;
}

xc_status xc_synth_check_fch1(const char *src, double v, xc_error *err)
{
    if (!(v > 0) || !isfinite(v))
        return xc_error_set(err, XC_EINVAL, "%s%sfch1 (-fch1) = %.15g: must be a finite frequency > 0 MHz",
                            SRC(src), v);
    return XC_OK;
}

xc_status xc_synth_check_foff(const char *src, double v, xc_error *err)
{
    if (v == 0 || !isfinite(v))
        return xc_error_set(err, XC_EINVAL, "%s%sfoff (-foff) = %.15g: must be a finite, non-zero width in MHz",
                            SRC(src), v);
    return XC_OK;
}

xc_status xc_synth_check_finite(const char *src, const char *field, const char *opt, double v, xc_error *err)
{
    if (!isfinite(v))
        return xc_error_set(err, XC_EINVAL, "%s%s%s (%s) = %.15g: must be finite", SRC(src), field, opt, v);
    return XC_OK;
}

xc_status xc_synth_check_positive(const char *src, const char *field, const char *opt, double v, xc_error *err)
{
    if (!(v > 0) || !isfinite(v))
        return xc_error_set(err, XC_EINVAL, "%s%s%s (%s) = %.15g: must be a finite number > 0", SRC(src), field, opt,
                            v);
    return XC_OK;
}

xc_status xc_synth_check_ecc(const char *src, double v, xc_error *err)
{
    if (!(v >= 0 && v < 1))
        return xc_error_set(err, XC_EINVAL, "%s%sbecc (-becc) = %.15g: must be in [0, 1) (1 is not a bound orbit)",
                            SRC(src), v);
    return XC_OK;
}

xc_status xc_synth_check_dm(const char *src, const char *field, const char *opt, double v, xc_error *err)
{
    if (!(v >= 0) || !isfinite(v))
        return xc_error_set(err, XC_EINVAL, "%s%s%s (%s) = %.15g: must be a finite DM >= 0", SRC(src), field, opt, v);
    return XC_OK;
}

xc_status xc_synth_check_period(const char *src, double v, xc_error *err)
{
    if (!(v >= 0) || !isfinite(v))
        return xc_error_set(err, XC_EINVAL, "%s%speriod_ms (-period) = %.15g: must be >= 0 (0: no pulsar)",
                            SRC(src), v);
    return XC_OK;
}

xc_status xc_synth_check_width_pct(const char *src, double v, xc_error *err)
{
    if (!(v > 0 && v <= 100))
        return xc_error_set(err, XC_EINVAL, "%s%swidth_pct (-width) = %.15g: must be in (0, 100] percent", SRC(src),
                            v);
    return XC_OK;
}

xc_status xc_synth_check_npol(const char *src, long v, xc_error *err)
{
    if (v != 1 && v != 2)
        return xc_error_set(err, XC_EINVAL, "%s%snpol (-npol) = %ld: must be 1 or 2", SRC(src), v);
    return XC_OK;
}

xc_status xc_synth_check_pulse(const char *src, size_t i, const xc_synth_pulse *pl, xc_error *err)
{
    if (!isfinite(pl->t_s))
        return xc_error_set(err, XC_EINVAL, "%s%spulses[%zu].t_s (-pulse) = %.15g: must be finite", SRC(src), i,
                            pl->t_s);
    if (!(pl->dm >= 0) || !isfinite(pl->dm))
        return xc_error_set(err, XC_EINVAL, "%s%spulses[%zu].dm (-pulse) = %.15g: must be a finite DM >= 0",
                            SRC(src), i, pl->dm);
    if (!(pl->width_ms > 0) || !isfinite(pl->width_ms))
        return xc_error_set(err, XC_EINVAL, "%s%spulses[%zu].width_ms (-pulse) = %.15g: must be a finite width > 0",
                            SRC(src), i, pl->width_ms);
    if (!(pl->snr >= 0) || !isfinite(pl->snr))
        return xc_error_set(err, XC_EINVAL, "%s%spulses[%zu].snr (-pulse) = %.15g: must be a finite S/N >= 0",
                            SRC(src), i, pl->snr);
    /* the burst's members: field, value, what it must be */
    const struct {
        const char *name;
        double v;
        int ok;
        const char *must;
    } b[] = {
        {"fluence_jyms", pl->fluence_jyms, pl->fluence_jyms >= 0 && isfinite(pl->fluence_jyms), "a fluence >= 0"},
        {"tau_ms", pl->tau_ms, pl->tau_ms >= 0 && isfinite(pl->tau_ms), "a scattering time >= 0"},
        {"tau_ref_mhz", pl->tau_ref_mhz, !(pl->tau_ms > 0) || (pl->tau_ref_mhz > 0 && isfinite(pl->tau_ref_mhz)),
         "a frequency > 0 when tau_ms > 0"},
        {"tau_index", pl->tau_index, isfinite(pl->tau_index), "finite"},
        {"alpha", pl->alpha, isfinite(pl->alpha), "finite"},
    };
    for (size_t k = 0; k < sizeof b / sizeof b[0]; k++)
        if (!b[k].ok)
            return xc_error_set(err, XC_EINVAL, "%s%spulses[%zu].%s (-burst %s) = %.15g: must be %s", SRC(src), i,
                                b[k].name, b[k].name, b[k].v, b[k].must);
    return XC_OK;
}

xc_status xc_synth_params_check(const xc_synth_params *p, const char *src, xc_error *err)
{
    xc_status st;
    if ((st = xc_synth_check_nchans(src, p->nchans, err)) || (st = xc_synth_check_nbits(src, p->nbits, err)) ||
        (st = xc_synth_check_tsamp(src, p->tsamp, err)) || (st = xc_synth_check_tobs(src, p->tobs, err)) ||
        (st = xc_synth_check_fch1(src, p->fch1, err)) || (st = xc_synth_check_foff(src, p->foff, err)) ||
        (st = xc_synth_check_finite(src, "tstart", "-tstart", p->tstart, err)) ||
        (st = xc_synth_check_period(src, p->psr.period_ms, err)) ||
        (st = xc_synth_check_width_pct(src, p->psr.width_pct, err)) ||
        (st = xc_synth_check_finite(src, "snrpeak", "-snrpeak", p->psr.snrpeak, err)) ||
        (st = xc_synth_check_nonneg(src, "snrpeak", "-snrpeak", p->psr.snrpeak, err)) ||
        (st = xc_synth_check_dm(src, "dm", "-dm", p->psr.dm, err)) ||
        (st = xc_synth_check_finite(src, "pdot", "-pdot", p->psr.pdot, err)) ||
        (st = xc_synth_check_finite(src, "accn", "-accn", p->psr.accn, err)) ||
        (st = xc_synth_check_positive(src, "bper_h", "-bper", p->psr.bin.pb_h, err)) ||
        (st = xc_synth_check_ecc(src, p->psr.bin.ecc, err)) ||
        (st = xc_synth_check_finite(src, "binc_deg", "-binc", p->psr.bin.inc_deg, err)) ||
        (st = xc_synth_check_finite(src, "bomega_deg", "-bomega", p->psr.bin.omega_deg, err)) ||
        (st = xc_synth_check_finite(src, "bphase", "-bphase", p->psr.bin.phase, err)) ||
        (st = xc_synth_check_positive(src, "bpmass", "-bpmass", p->psr.bin.mp, err)) ||
        (st = xc_synth_check_positive(src, "bcmass", "-bcmass", p->psr.bin.mc, err)) ||
        (st = xc_synth_check_positive(src, "sefd_jy", "-sefd", p->sefd_jy, err)) ||
        (st = xc_synth_check_npol(src, p->npol, err)))
        return st;
    if (p->profile != XC_PROFILE_TOPHAT && p->profile != XC_PROFILE_GAUSSIAN)
        return xc_error_set(err, XC_EINVAL, "%s%sprofile (-gaussian) = %d: must be tophat or gaussian", SRC(src),
                            (int)p->profile);
    if (p->fake_phase && p->profile != XC_PROFILE_TOPHAT)
        return xc_error_set(err, XC_EINVAL, "%s%sfake_phase (-fake_phase) with profile gaussian (-gaussian): fake "
                            "has only top hats", SRC(src));
    for (size_t i = 0; i < p->npulses; i++) {
        if ((st = xc_synth_check_pulse(src, i, &p->pulses[i], err)))
            return st;
        /* The pulse's centre (at fch1) must fall inside the observation, or
         * the file holds none of it (or only the dispersed tail). */
        if (p->pulses[i].t_s < 0 || p->pulses[i].t_s >= p->tobs)
            return xc_error_set(err, XC_EINVAL,
                                "%s%spulses[%zu].t_s (-pulse) = %.15g: outside the observation, must be in "
                                "[0, tobs = %.15g)", SRC(src), i, p->pulses[i].t_s, p->tobs);
    }
    if (p->nbits < 8 && ((long)p->nchans * p->nbits) % 8)
        return xc_error_set(err, XC_EINVAL,
                            "%s%snchans (-nchans) = %d with nbits (-nbits) = %d: a spectrum must fill whole bytes "
                            "(nchans*nbits a multiple of 8)",
                            SRC(src), p->nchans, p->nbits);
    double n = round(p->tobs / p->tsamp);
    if (n < 1 || n > 0x1p52)
        return xc_error_set(err, XC_EINVAL,
                            "%s%stobs_s (-tobs) = %.15g with tsamp_us (-tsamp) = %.15g gives %.15g samples: "
                            "must be 1..2^52",
                            SRC(src), p->tobs, p->tsamp * 1e6, n);
    /* The lowest frequency any sub-channel reaches must stay positive, or the
     * 1/f^2 delay is meaningless. */
    double lowest = xc_synth_lowest_freq(p);
    if (!(lowest > 0))
        return xc_error_set(err, XC_EINVAL,
                            "%s%sfch1 (-fch1) = %.15g, foff (-foff) = %.15g, nchans (-nchans) = %d: the lowest "
                            "frequency is %.15g MHz, must be > 0",
                            SRC(src), p->fch1, p->foff, p->nchans, lowest);
    if (!p->convention)
        return xc_error_set(err, XC_EINVAL, "%s%sconvention (-convention): not set", SRC(src));
    if (p->bitorder != XC_BITORDER_LSB && p->bitorder != XC_BITORDER_MSB)
        return xc_error_set(err, XC_EINVAL, "%s%sbitorder (-bitorder) = %d: must be lsb or msb", SRC(src),
                            (int)p->bitorder);
    if (p->nthreads < 0)
        return xc_error_set(err, XC_EINVAL, "%s%snthreads = %d: must be >= 0", SRC(src), p->nthreads);
    /* The orbit and spin model have limits of their own (c/2, a period that
     * stays positive); the timing model checks them. */
    if (p->psr.period_ms > 0) {
        xc_timing tm;
        xc_error e2;
        if ((st = xc_timing_init(&tm, p, &e2)))
            return xc_error_set(err, st, "%s%s%s", SRC(src), e2.msg);
    }
    return XC_OK;
}

xc_status xc_synth_truth_path(const char *path, char *out, size_t n, xc_error *err)
{
    size_t len = strlen(path);
    size_t stem = (len >= 4 && (!strcmp(path + len - 4, ".fil") || !strcmp(path + len - 4, ".dat"))) ? len - 4 : len;
    static const char suffix[] = ".truth.json";
    if (stem + sizeof suffix > n)
        return xc_error_set(err, XC_EINVAL, "%s: path too long for the truth file name", path);
    memcpy(out, path, stem);
    memcpy(out + stem, suffix, sizeof suffix);
    return XC_OK;
}
