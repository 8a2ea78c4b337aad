/* crosscheck synth: a synthetic filterbank (noise, a pulsar, dispersed pulses) and its truth file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/base/xc_fs.h"
#include "cli/cli_meter.h"
#include "cli/cli_opts.h"
#include "core/base/xc_progress.h"
#include "synth/xc_synth.h"

static void help(void)
{
    xc_synth_params d;
    xc_synth_params_init(&d);
    const xc_synth_binary *b = &d.psr.bin;
    printf("usage: crosscheck synth -o FILE.fil [options]\n"
           "       crosscheck synth -dedispersed -o STEM[.dat] [options]\n\n"
           "Writes a SIGPROC filterbank of Gaussian noise with an optional periodic pulsar (spin-down,\n"
           "acceleration, Keplerian binary orbit) and dispersed single pulses, and a truth file (JSON)\n"
           "with every input and what a search should find.  Options and units follow SIGPROC fake;\n"
           "values in brackets are the defaults.\n\n"
           "Observation:\n"
           "  -nchans N          channels [%d]\n"
           "  -nbits B           bits per sample: 1, 2, 4, 8, 16 or 32 (float) [%d]\n"
           "  -tsamp US          sample time in microseconds [%g]\n"
           "  -tobs S            length in seconds [%g]; samples = round(tobs/tsamp), NOT rounded\n"
           "                     up to a multiple of 512 as fake does\n"
           "  -fch1 MHZ          frequency of channel 0, the highest [%g]\n"
           "  -foff MHZ          channel width [%g]; a positive value is made negative, as fake\n"
           "                     does, so channel 0 is always the highest frequency\n"
           "  -tstart MJD        start time written in the header [%.1f]\n"
           "  -seed N            noise seed, 0..2^64-1 [%llu] (fake seeds from the clock)\n"
           "  -nonoise           no noise: the signal alone (for tests)\n"
           "  -nosmear           no intra-channel dispersion smearing (default: exact smearing over\n"
           "                     each channel's band)\n"
           "  -convention NAME   dispersion constant k_DM of: crosscheck (4148.808, default),\n"
           "                     sigproc (4148.741601, fake's), presto, dedisp, astroaccelerate\n"
           "  -bitorder lsb|msb  packing of 1/2/4-bit samples in a byte [lsb: SIGPROC]\n"
           "Periodic pulsar (a top hat centred on spin phase 0.5, as fake):\n"
           "  -period MS         period in milliseconds [0: no pulsar; fake picks a random one]: the\n"
           "                     rest-frame period at t = 0, or with -accn the apparent period at\n"
           "                     mid-observation, as in fake\n"
           "  -width PCT         duty cycle in percent of the period [%g]\n"
           "  -snrpeak S         S/N of a band-summed, dedispersed on-pulse sample [%g]; each\n"
           "                     channel gets S/sqrt(nchans) noise sigmas\n"
           "  -dm DM             dispersion measure in pc cm^-3 [0; fake picks a random one]\n"
           "  -pdot PDOT         period derivative in s/s [0]: P(tau) = P + PDOT tau, phase integrated\n"
           "  -accn A            line-of-sight acceleration in m/s^2 [0], > 0 away: light-travel\n"
           "                     delay A tau^2/2c, so fdot = -f A/c (fake's t/P(t) doubles it)\n"
           "  -binary            put the pulsar in a Keplerian orbit (Roemer delay; fake: Doppler only):\n"
           "  -bper H            orbital period in hours [%g]\n"
           "  -becc E            eccentricity, 0 <= E < 1 [%g]\n"
           "  -binc DEG          inclination in degrees [%g: edge on]\n"
           "  -bomega DEG        longitude of periastron in degrees [%g]\n"
           "  -bphase F          periastron at F orbits after the first sample [%g]\n"
           "  -bpmass M          pulsar mass in solar masses [%g]\n"
           "  -bcmass M          companion mass in solar masses [%g]; GM_sun = 1.32712440018e20\n"
           "                     m^3/s^2 (IAU; fake: M_SUN 2.0e30 x G 6.672e-11)\n"
           "  -fake_phase        fake's timing model instead: phase t/P(t) with P updated when the\n"
           "                     phase wraps, Doppler-only binary_papp with fake's constants, fake's\n"
           "                     time grid ((i+1)*tsamp), widened duty cycle and point-sampled pulses,\n"
           "                     for comparison with existing fake files (pair with -convention sigproc)\n"
           "  -gaussian          Gaussian pulses (FWHM = the width, peak S/N as the top hat's)\n"
           "Single pulses:\n"
           "  -single            make the pulsar one pulse only, centred at -tpulse, with its width\n"
           "                     (-width percent of -period), -snrpeak and -dm\n"
           "  -tpulse S          time of that pulse at fch1, seconds from the start [tobs/2]\n"
           "  -pulse T,DM,W,SNR  a dispersed pulse centred at T seconds (at fch1, from the start of\n"
           "                     sample 0), DM pc cm^-3, width W ms, band-summed S/N SNR at its\n"
           "                     peak; repeat for more pulses\n"
           "Files:\n"
           "  -o FILE            output filterbank (required); written atomically\n"
           "  -dedispersed       write FILE's stem .dat + .inf (PRESTO) instead: the series that\n"
           "                     dedispersing the filterbank at the true DM would give\n"
           "  -truth FILE.json   truth file (default: FILE with .fil/.dat replaced by .truth.json)\n"
           "  -spec FILE.json    read the parameters from JSON (fields nchans nbits tsamp_us tobs_s\n"
           "                     fch1 foff tstart seed convention smear noise bitorder period_ms\n"
           "                     width_pct snrpeak dm pdot accn binary bper_h becc binc_deg\n"
           "                     bomega_deg bphase bpmass bcmass profile fake_phase pulses);\n"
           "                     options given here override them and -pulse adds to its pulses\n"
           "  -spec_key KEY      take the object under KEY in the -spec file (default: the top level)\n"
           "Other:\n"
           "  -threads N         OpenMP threads (0: the OpenMP default); never changes the output\n"
           "  -quiet             no progress meter and no summary line\n"
           "  -h                 this help\n\n"
           "Differences from fake: counter-based noise (same bytes at any thread count), 1-bit is\n"
           "x > 0 (fake's is almost all ones), no max*=snr rescaling of the quantiser, pulses are\n"
           "integrated over each sample with exact smearing, the phase is integrated and binary\n"
           "pulsars get the Roemer delay (unless -fake_phase), the IAU GM_sun.\n",
           d.nchans, d.nbits, d.tsamp * 1e6, d.tobs, d.fch1, d.foff, d.tstart, (unsigned long long)d.seed,
           d.psr.width_pct, d.psr.snrpeak, b->pb_h, b->ecc, b->inc_deg, b->omega_deg, b->phase, b->mp, b->mc);
    xc_synth_params_free(&d);
}

/* -pulse T,DM,W,SNR: one more single pulse (dest: the params). */
static xc_status opt_pulse(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    double v[4];
    const char *s = val;
    for (int i = 0; i < 4; i++) {
        char *end;
        v[i] = strtod(s, &end);
        if (end == s || (i < 3 ? *end != ',' : *end != '\0'))
            return xc_error_set(err, XC_EINVAL, "option %s: '%s' is not T,DM,WIDTH_MS,SNR (four numbers)", opt, val);
        s = end + 1;
    }
    xc_synth_pulse pl = {v[0], v[1], v[2], v[3]};
    return xc_synth_params_add_pulse(o->dest, &pl, err);
}

static xc_status opt_convention(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    xc_synth_params *p = o->dest;
    if (!(p->convention = xc_convention_get(val)))
        return xc_error_set(err, XC_EINVAL,
                            "option %s: '%s' is not one of crosscheck, sigproc, presto, dedisp, astroaccelerate",
                            opt, val);
    return XC_OK;
}

static xc_status opt_bitorder(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "option %s", opt);
    int k = xc_cli_choice(what, val, "lsb|msb", err);
    if (k < 0)
        return XC_EINVAL;
    ((xc_synth_params *)o->dest)->bitorder = k ? XC_BITORDER_MSB : XC_BITORDER_LSB;
    return XC_OK;
}

/* Writes the observation (the dedispersed series with dedisp) and says what
 * it wrote; the exit code. */
static int write_out(xc_synth_params *p, const char *out, const char *truth, int dedisp, int quiet)
{
    xc_error err;
    if (p->foff > 0 && !quiet)
        fprintf(stderr, "crosscheck synth: note: foff %g made negative (%g), as fake does: channel 0 is the "
                        "highest frequency\n", p->foff, xc_synth_foff(p));
    char stem[4096] = "", dat[4200] = "";
    size_t ol = strlen(out);
    if (dedisp && (xc_pathf(stem, sizeof stem, &err, "%.*s",
                            (int)(ol >= 4 && !strcmp(out + ol - 4, ".dat") ? ol - 4 : ol), out) ||
                   xc_pathf(dat, sizeof dat, &err, "%s.dat", stem)))
        return xc_cli_fail("synth", &err);
    xc_progress prog;
    xc_progress_start(&prog, "synth", xc_synth_nsamp(p), quiet);
    p->progress = xc_progress_step;
    p->progress_ctx = &prog;
    xc_status st = dedisp ? xc_synth_write_dedispersed(p, stem, truth, xc_cli_cmdline(), &err)
                          : xc_synth_write(p, out, truth, xc_cli_cmdline(), &err);
    if (st) {
        if (prog.enabled)
            fputc('\n', stderr);
        return xc_cli_fail("synth", &err);
    }
    xc_progress_end(&prog);
    if (quiet)
        return 0;
    char tp[4200];
    const char *what = dedisp ? dat : out;
    if (!truth && !xc_synth_truth_path(what, tp, sizeof tp, NULL))
        truth = tp;
    if (dedisp)
        printf("wrote %s and %s.inf: dedispersed series; truth %s\n", dat, stem, truth);
    else
        printf("wrote %s: %llu spectra x %d channels, %d bits, %.6g s; truth %s\n", out,
               (unsigned long long)xc_synth_nsamp(p), p->nchans, p->nbits, (double)xc_synth_nsamp(p) * p->tsamp,
               truth);
    return 0;
}

int xc_cmd_synth(int argc, char **argv)
{
    static const xc_optspec ospec = {"synth", help, 0};
    xc_synth_params p;
    xc_synth_params_init(&p);
    const char *spec = NULL, *spec_key = NULL, *out = NULL, *truth = NULL, *tpulse_s = NULL;
    int quiet = 0, single = 0, dedisp = 0, gaussian = 0, tsamp_given = 0, seed_given = 0;
    double tsamp_us = 0, tpulse = NAN;
    unsigned long long seed = 0;
    /* The parameters: applied after -spec is read, wherever it stands on the
     * line, so that they override it (-pulse adds to its pulses). */
    const xc_opt params[] = {
        XC_OPT_INT("nchans", &p.nchans, 1, 1 << 24),
        XC_OPT_INT("nbits", &p.nbits, 1, 32),
        {.name = "tsamp", .kind = XC_OPTK_DOUBLE, .dest = &tsamp_us, .given = &tsamp_given},
        XC_OPT_DOUBLE("tobs", &p.tobs),
        XC_OPT_DOUBLE("fch1", &p.fch1),
        XC_OPT_DOUBLE("foff", &p.foff),
        XC_OPT_DOUBLE("tstart", &p.tstart),
        XC_OPT_DOUBLE("dm", &p.psr.dm),
        XC_OPT_DOUBLE("period", &p.psr.period_ms),
        XC_OPT_DOUBLE("width", &p.psr.width_pct),
        XC_OPT_DOUBLE("snrpeak", &p.psr.snrpeak),
        {.name = "seed", .kind = XC_OPTK_U64, .dest = &seed, .given = &seed_given},
        XC_OPT_SET("nosmear", &p.smear, 0),
        XC_OPT_CALL("pulse", opt_pulse, &p),
        XC_OPT_SET("nonoise", &p.noise, 0),
        XC_OPT_CALL("convention", opt_convention, &p),
        XC_OPT_CALL("bitorder", opt_bitorder, &p),
        XC_OPT_INT("threads", &p.nthreads, 0, 4096),
        XC_OPT_DOUBLE("pdot", &p.psr.pdot),
        XC_OPT_DOUBLE("accn", &p.psr.accn),
        XC_OPT_SET("binary", &p.psr.bin.on, 1),
        XC_OPT_DOUBLE("bper", &p.psr.bin.pb_h),
        XC_OPT_DOUBLE("becc", &p.psr.bin.ecc),
        XC_OPT_DOUBLE("binc", &p.psr.bin.inc_deg),
        XC_OPT_DOUBLE("bomega", &p.psr.bin.omega_deg),
        XC_OPT_DOUBLE("bphase", &p.psr.bin.phase),
        XC_OPT_DOUBLE("bpmass", &p.psr.bin.mp),
        XC_OPT_DOUBLE("bcmass", &p.psr.bin.mc),
        XC_OPT_SET("fake_phase", &p.fake_phase, 1),
        XC_OPT_END,
    };
    const xc_opt opts[] = {
        XC_OPT_STR("spec", &spec),
        XC_OPT_STR("spec_key", &spec_key),
        XC_OPT_STR("o", &out),
        XC_OPT_STR("truth", &truth),
        XC_OPT_FLAG("quiet", &quiet),
        XC_OPT_FLAG("gaussian", &gaussian),   /* set below, after -spec */
        XC_OPT_FLAG("single", &single),
        XC_OPT_STR("tpulse", &tpulse_s),
        XC_OPT_FLAG("dedispersed", &dedisp),
        XC_OPT_LATER(params),
        XC_OPT_END,
    };
    xc_error err;
    xc_error_clear(&err);
    int rc = xc_opts_parse(&ospec, opts, argc, argv, NULL);
    if (rc == XC_OPTS_GO) {
        if (!out)
            rc = xc_cli_failf("synth", "-o FILE.fil is required (see crosscheck synth -h)");
        else if (spec_key && !spec)
            rc = xc_cli_failf("synth", "-spec_key needs -spec FILE.json");
        else if (spec && xc_synth_params_load(&p, spec, spec_key, &err))
            rc = xc_cli_fail("synth", &err);
        else
            rc = xc_opts_parse_later(&ospec, opts, argc, argv);
    }
    if (rc != XC_OPTS_GO) {
        xc_synth_params_free(&p);
        return rc;
    }
    rc = 0;
    if (tsamp_given)
        p.tsamp = tsamp_us * 1e-6;
    if (seed_given)
        p.seed = (uint64_t)seed;
    if (gaussian)
        p.profile = XC_PROFILE_GAUSSIAN;
    xc_status st;
    if (!rc && tpulse_s && !single)
        rc = xc_cli_failf("synth", "-tpulse needs -single");
    if (!rc && tpulse_s && (st = xc_cli_double("-tpulse", tpulse_s, &tpulse, &err)))
        rc = xc_cli_fail("synth", &err);
    if (!rc && single) {
        /* fake's way to a single pulse is a period longer than the file; here
         * the pulsar's pulse is placed where asked and the train dropped. */
        if (!(p.psr.period_ms > 0)) {
            rc = xc_cli_failf("synth", "-single needs -period (the width is -width percent of it)");
        } else {
            xc_synth_pulse pl = {tpulse_s ? tpulse : 0.5 * p.tobs, p.psr.dm,
                                 p.psr.width_pct / 100.0 * p.psr.period_ms, p.psr.snrpeak};
            if ((st = xc_synth_params_add_pulse(&p, &pl, &err)))
                rc = xc_cli_fail("synth", &err);
            p.psr.period_ms = 0;
        }
    }
    if (!rc && (st = xc_synth_params_check(&p, NULL, &err)))
        rc = xc_cli_fail("synth", &err);
    if (!rc)
        rc = write_out(&p, out, truth, dedisp, quiet);
    xc_synth_params_free(&p);
    return rc;
}
