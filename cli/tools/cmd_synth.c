/* crosscheck synth: a synthetic filterbank (noise, a pulsar, dispersed pulses) and its truth file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "cli/base/cli.h"
#include "core/base/xc_fs.h"
#include "cli/base/cli_meter.h"
#include "cli/base/cli_opts.h"
#include "core/base/xc_progress.h"
#include "synth/model/xc_synth.h"

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

/* -burst t=T,dm=DM,width_ms=W,snr=S|fluence=F[,tau_ms=..,tau_ref_mhz=..,tau_index=..,alpha=..]:
 * one more burst (dest: the params); keys as the spec's pulses fields. */
static xc_status opt_burst(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    xc_synth_pulse pl;
    xc_synth_pulse_init(&pl, NAN, NAN, NAN, NAN);
    static const char *const keys[] = {"t", "dm", "width_ms", "snr", "fluence", "tau_ms", "tau_ref_mhz",
                                       "tau_index", "alpha"};
    double *dest[] = {&pl.t_s, &pl.dm, &pl.width_ms, &pl.snr, &pl.fluence_jyms, &pl.tau_ms, &pl.tau_ref_mhz,
                      &pl.tau_index, &pl.alpha};
    const char *s = val;
    while (*s) {
        const char *eq = strchr(s, '=');
        size_t k = 0, n = eq ? (size_t)(eq - s) : 0;
        while (k < 9 && !(strlen(keys[k]) == n && !strncmp(s, keys[k], n)))
            k++;
        char *end;
        double v = k < 9 ? strtod(eq + 1, &end) : 0;
        if (k == 9 || end == eq + 1 || (*end != ',' && *end != '\0'))
            return xc_error_set(err, XC_EINVAL, "option %s: '%s' is not KEY=NUMBER,... with keys t dm width_ms snr "
                                "fluence tau_ms tau_ref_mhz tau_index alpha (at '%s')", opt, val, s);
        *dest[k] = v;
        s = *end ? end + 1 : end;
    }
    for (int k = 0; k < 3; k++)
        if (isnan(*dest[k]))
            return xc_error_set(err, XC_EINVAL, "option %s: '%s' has no %s=", opt, val, keys[k]);
    if (isnan(pl.snr) == !(pl.fluence_jyms > 0))
        return xc_error_set(err, XC_EINVAL, "option %s: '%s' needs one of snr= and fluence= (> 0)", opt, val);
    if (isnan(pl.snr))
        pl.snr = 0;
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

/* Refuses, before anything is written, an output path that cannot be a file
 * (empty, an existing directory) or a file larger than the free space of its
 * folder; the exit code (0: go on). */
static int check_output(const xc_synth_params *p, const char *path, int dedisp)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return xc_cli_failf("synth", "-o '%s': is a directory, not a file name", path);
    /* 32-bit float samples with -dedispersed; otherwise whole spectra of
     * nchans*nbits bits, plus a header of a few hundred bytes. */
    double bytes = dedisp ? 4.0 * (double)xc_synth_nsamp(p)
                          : (double)xc_synth_nsamp(p) * ((double)p->nchans * p->nbits / 8) + 512;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    struct statvfs vf;
    if (statvfs(dir, &vf) == 0) {
        double avail = (double)vf.f_bavail * (double)vf.f_frsize;
        if (bytes > avail)
            return xc_cli_failf("synth", "-o '%s': the output needs %.0f bytes (%.3g GB) but its folder %s has "
                                "only %.0f bytes (%.3g GB) free", path, bytes, bytes / 1e9, dir, avail, avail / 1e9);
    }
    return 0;
}

/* Writes the observation (the dedispersed series with dedisp) and says what
 * it wrote; the exit code. */
static int write_out(xc_synth_params *p, const char *out, const char *truth, int dedisp, int quiet, int progress)
{
    xc_error err;
    if (p->foff > 0 && !quiet)
        fprintf(stderr, "crosscheck synth: note: foff %g made negative (%g), as fake does: channel 0 is the "
                        "highest frequency\n", p->foff, xc_synth_foff(p));
    if (!*out)
        return xc_cli_failf("synth", "-o '': the output file name is empty");
    char stem[4096] = "", dat[4200] = "";
    size_t ol = strlen(out);
    if (dedisp && (xc_pathf(stem, sizeof stem, &err, "%.*s",
                            (int)(ol >= 4 && !strcmp(out + ol - 4, ".dat") ? ol - 4 : ol), out) ||
                   xc_pathf(dat, sizeof dat, &err, "%s.dat", stem)))
        return xc_cli_fail("synth", &err);
    int rc = check_output(p, dedisp ? dat : out, dedisp);
    if (rc)
        return rc;
    xc_progress prog;
    xc_progress_start(&prog, "synth", xc_synth_nsamp(p), xc_progress_want(quiet, progress));
    prog.unit = "spectra";
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

/* The command's state: the parameters and what their options fill. */
typedef struct {
    xc_synth_params p;
    int tsamp_given, seed_given;
    double tsamp_us;
    unsigned long long seed;
    const char *spec, *spec_key, *out, *truth, *tpulse_s;
    int quiet, progress, single, dedisp, gaussian;
    char d[17][32];   /* the defaults the help shows: those of xc_synth_params_init */
} synth_cli;

/* The observation's options, into t (OBS_N entries, the last XC_OPT_END). */
#define OBS_N 14
static void observation_opts(synth_cli *c, xc_opt *t)
{
    const double v[] = {c->p.nchans, c->p.nbits, c->p.tsamp * 1e6, c->p.tobs, c->p.fch1, c->p.foff};
    for (int k = 0; k < 6; k++)
        snprintf(c->d[k], sizeof c->d[k], "%g", v[k]);
    snprintf(c->d[6], sizeof c->d[6], "%.1f", c->p.tstart);
    snprintf(c->d[7], sizeof c->d[7], "%llu", (unsigned long long)c->p.seed);
    const xc_opt o[OBS_N] = {
        XC_OPT_INT("nchans", &c->p.nchans, 1, 1 << 24, .arg = "N", .help = "channels", .def = c->d[0]),
        XC_OPT_INT("nbits", &c->p.nbits, 1, 32, .arg = "B", .help = "bits per sample: 1, 2, 4, 8, 16 or 32 (float)",
                   .def = c->d[1]),
        {.name = "tsamp", .kind = XC_OPTK_DOUBLE, .dest = &c->tsamp_us, .given = &c->tsamp_given, .arg = "US",
         .help = "sample time in microseconds", .def = c->d[2]},
        XC_OPT_DOUBLE("tobs", &c->p.tobs, .arg = "S",
                      .help = "length in seconds; samples = round(tobs/tsamp), NOT rounded\n"
                              "up to a multiple of 512 as fake does", .def = c->d[3]),
        XC_OPT_DOUBLE("fch1", &c->p.fch1, .arg = "MHZ", .help = "frequency of channel 0, the highest", .def = c->d[4]),
        XC_OPT_DOUBLE("foff", &c->p.foff, .arg = "MHZ",
                      .help = "channel width; a positive value is made negative, as fake\n"
                              "does, so channel 0 is always the highest frequency", .def = c->d[5]),
        XC_OPT_DOUBLE("tstart", &c->p.tstart, .arg = "MJD", .help = "start time written in the header", .def = c->d[6]),
        {.name = "seed", .kind = XC_OPTK_U64, .dest = &c->seed, .given = &c->seed_given, .arg = "N",
         .help = "noise seed, 0..2^64-1 (fake seeds from the clock)", .def = c->d[7]},
        XC_OPT_SET("nonoise", &c->p.noise, 0, .help = "no noise: the signal alone (for tests)"),
        XC_OPT_CHOICE("noise", &c->p.noise_gen, "boxmuller|exact", .arg = "GEN",
                      .help = "how quantised noise is drawn: boxmuller (a Gaussian per value,\n"
                              "quantised) or exact (each level from its exact discrete law by an\n"
                              "alias table; values with signal as boxmuller); docs/SYNTH.md",
                      .def = "boxmuller"),
        XC_OPT_SET("nosmear", &c->p.smear, 0,
                   .help = "no intra-channel dispersion smearing (default: exact smearing over\n"
                           "each channel's band)"),
        XC_OPT_CALL("convention", opt_convention, &c->p, .arg = "NAME",
                    .help = "dispersion constant k_DM of: crosscheck (4148.808, default),\n"
                            "sigproc (4148.741601, fake's), presto, dedisp, astroaccelerate"),
        XC_OPT_CALL("bitorder", opt_bitorder, &c->p, .arg = "lsb|msb", .help = "packing of 1/2/4-bit samples in a byte",
                    .def = "lsb: SIGPROC"),
        XC_OPT_END,
    };
    memcpy(t, o, sizeof o);
}

/* The periodic pulsar's options, into t (PULSAR_N entries, the last XC_OPT_END). */
#define PULSAR_N 16
static void pulsar_opts(synth_cli *c, xc_opt *t)
{
    const xc_synth_binary *b = &c->p.psr.bin;
    const double v[] = {c->p.psr.width_pct, c->p.psr.snrpeak, b->pb_h, b->ecc, b->inc_deg, b->omega_deg, b->phase,
                        b->mp, b->mc};
    for (int k = 0; k < 9; k++)
        snprintf(c->d[8 + k], sizeof c->d[8 + k], "%g", v[k]);
    const xc_opt o[PULSAR_N] = {
        XC_OPT_DOUBLE("period", &c->p.psr.period_ms, .arg = "MS",
                      .help = "period in milliseconds (0: no pulsar; fake picks a random one): the\n"
                              "rest-frame period at t = 0, or with -accn the apparent period at\n"
                              "mid-observation, as in fake", .def = "0"),
        XC_OPT_DOUBLE("width", &c->p.psr.width_pct, .arg = "PCT", .help = "duty cycle in percent of the period",
                      .def = c->d[8]),
        XC_OPT_DOUBLE("snrpeak", &c->p.psr.snrpeak, .arg = "S",
                      .help = "S/N of a band-summed, dedispersed on-pulse sample; each\n"
                              "channel gets S/sqrt(nchans) noise sigmas", .def = c->d[9]),
        XC_OPT_DOUBLE("dm", &c->p.psr.dm, .arg = "DM", .help = "dispersion measure in pc cm^-3",
                      .def = "0; fake picks a random one"),
        XC_OPT_DOUBLE("pdot", &c->p.psr.pdot, .arg = "PDOT",
                      .help = "period derivative in s/s: P(tau) = P + PDOT tau, phase integrated", .def = "0"),
        XC_OPT_DOUBLE("accn", &c->p.psr.accn, .arg = "A",
                      .help = "line-of-sight acceleration in m/s^2, > 0 away: light-travel\n"
                              "delay A tau^2/2c, so fdot = -f A/c (fake's t/P(t) doubles it)", .def = "0"),
        XC_OPT_SET("binary", &c->p.psr.bin.on, 1,
                   .help = "put the pulsar in a Keplerian orbit (Roemer delay; fake: Doppler only):"),
        XC_OPT_DOUBLE("bper", &c->p.psr.bin.pb_h, .arg = "H", .help = "orbital period in hours", .def = c->d[10]),
        XC_OPT_DOUBLE("becc", &c->p.psr.bin.ecc, .arg = "E", .help = "eccentricity, 0 <= E < 1", .def = c->d[11]),
        XC_OPT_DOUBLE("binc", &c->p.psr.bin.inc_deg, .arg = "DEG", .help = "inclination in degrees (90: edge on)",
                      .def = c->d[12]),
        XC_OPT_DOUBLE("bomega", &c->p.psr.bin.omega_deg, .arg = "DEG", .help = "longitude of periastron in degrees",
                      .def = c->d[13]),
        XC_OPT_DOUBLE("bphase", &c->p.psr.bin.phase, .arg = "F", .help = "periastron at F orbits after the first sample",
                      .def = c->d[14]),
        XC_OPT_DOUBLE("bpmass", &c->p.psr.bin.mp, .arg = "M", .help = "pulsar mass in solar masses", .def = c->d[15]),
        XC_OPT_DOUBLE("bcmass", &c->p.psr.bin.mc, .arg = "M",
                      .help = "companion mass in solar masses; GM_sun = 1.32712440018e20\n"
                              "m^3/s^2 (IAU; fake: M_SUN 2.0e30 x G 6.672e-11)", .def = c->d[16]),
        XC_OPT_SET("fake_phase", &c->p.fake_phase, 1,
                   .help = "fake's timing model instead: phase t/P(t) with P updated when the\n"
                           "phase wraps, Doppler-only binary_papp with fake's constants, fake's\n"
                           "time grid ((i+1)*tsamp), widened duty cycle and point-sampled pulses,\n"
                           "for comparison with existing fake files (pair with -convention sigproc)"),
        XC_OPT_END,
    };
    memcpy(t, o, sizeof o);
}

/* After the options: the single pulse, the checks, the files; the exit code. */
static int make(synth_cli *c)
{
    xc_error err;
    xc_error_clear(&err);
    double tpulse = NAN;
    int rc = 0;
    if (c->tsamp_given)
        c->p.tsamp = c->tsamp_us * 1e-6;
    if (c->seed_given)
        c->p.seed = (uint64_t)c->seed;
    if (c->gaussian)
        c->p.profile = XC_PROFILE_GAUSSIAN;
    xc_status st;
    if (!rc && c->tpulse_s && !c->single)
        rc = xc_cli_failf("synth", "-tpulse needs -single");
    if (!rc && c->tpulse_s && (st = xc_cli_double("-tpulse", c->tpulse_s, &tpulse, &err)))
        rc = xc_cli_fail("synth", &err);
    if (!rc && c->single) {
        /* fake's way to a single pulse is a period longer than the file; here
         * the pulsar's pulse is placed where asked and the train dropped. */
        if (!(c->p.psr.period_ms > 0)) {
            rc = xc_cli_failf("synth", "-single needs -period (the width is -width percent of it)");
        } else {
            xc_synth_pulse pl = {c->tpulse_s ? tpulse : 0.5 * c->p.tobs, c->p.psr.dm,
                                 c->p.psr.width_pct / 100.0 * c->p.psr.period_ms, c->p.psr.snrpeak};
            if ((st = xc_synth_params_add_pulse(&c->p, &pl, &err)))
                rc = xc_cli_fail("synth", &err);
            c->p.psr.period_ms = 0;
        }
    }
    if (!rc && (st = xc_synth_params_check(&c->p, NULL, &err)))
        rc = xc_cli_fail("synth", &err);
    if (!rc)
        rc = write_out(&c->p, c->out, c->truth, c->dedisp, c->quiet, c->progress);
    return rc;
}

int xc_cmd_synth(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec ospec = XC_CMD_SPEC(self, .after = "Differences from fake: counter-based noise (same bytes at any thread count), 1-bit is\n"
                 "x > 0 (fake's is almost all ones), no max*=snr rescaling of the quantiser, pulses are\n"
                 "integrated over each sample with exact smearing (a constant-period pulsar's from a\n"
                 "table by phase, within 1e-4 noise sigmas of it), the phase is integrated and binary\n"
                 "pulsars get the Roemer delay (unless -fake_phase), the IAU GM_sun.\n");
    synth_cli c;
    memset(&c, 0, sizeof c);
    xc_synth_params_init(&c.p);
    /* The parameters: applied after -spec is read, wherever it stands on the
     * line, so that they override it (-pulse adds to its pulses). */
    xc_opt observation[OBS_N], pulsar[PULSAR_N];
    observation_opts(&c, observation);
    pulsar_opts(&c, pulsar);
    const xc_opt pulses[] = {
        XC_OPT_CALL("pulse", opt_pulse, &c.p, .arg = "T,DM,W,SNR",
                    .help = "a dispersed pulse centred at T seconds (at fch1, from the start of\n"
                            "sample 0), DM pc cm^-3, width W ms, band-summed S/N SNR at its\n"
                            "peak; repeat for more pulses"),
        XC_OPT_CALL("burst", opt_burst, &c.p, .arg = "KEY=V,...",
                    .help = "an FRB burst: t (s, centre at fch1), dm, width_ms (intrinsic; FWHM\n"
                            "with -gaussian), and snr (as -pulse) or fluence (band-averaged,\n"
                            "Jy ms, with -sefd and -npol); optional tau_ms (scattering time at\n"
                            "tau_ref_mhz [1000], each channel convolved with exp(-t/tau),\n"
                            "tau ~ f^tau_index [-4]) and alpha (flux ~ f^alpha, band average\n"
                            "kept) [0]; e.g. t=1.5,dm=500,width_ms=1,fluence=2,tau_ms=0.5;\n"
                            "the truth gives the best box S/N of its dedispersed series; repeat"),
        XC_OPT_DOUBLE("sefd", &c.p.sefd_jy, .arg = "JY",
                      .help = "system equivalent flux density of the radiometer equation for\n"
                              "fluences: S/N = F/SEFD sqrt(npol BW/W) (Cordes & McLaughlin 2003)",
                      .def = "40"),
        XC_OPT_INT("npol", &c.p.npol, 1, 2, .arg = "N", .help = "polarisations summed (1 or 2)", .def = "2"),
        XC_OPT_END,
    };
    const xc_opt other[] = {
        XC_OPT_INT("threads", &c.p.nthreads, 0, 4096, .arg = "N",
                   .help = "OpenMP threads (0: the OpenMP default); never changes the output"),
        XC_OPT_END,
    };
    const xc_opt opts[] = {
        XC_OPT_LATER(observation),
        XC_OPT_LATER(pulsar),
        XC_OPT_FLAG("gaussian", &c.gaussian,   /* set below, after -spec */
                    .help = "Gaussian pulses (FWHM = the width, peak S/N as the top hat's)"),
        XC_OPT_FLAG("single", &c.single,
                    .help = "make the pulsar one pulse only, centred at -tpulse, with its width\n"
                            "(-width percent of -period), -snrpeak and -dm"),
        XC_OPT_STR("tpulse", &c.tpulse_s, .arg = "S", .help = "time of that pulse at fch1, seconds from the start",
                   .def = "tobs/2"),
        XC_OPT_LATER(pulses),
        XC_OPT_STR("o", &c.out, .arg = "FILE", .help = "output filterbank (required); written atomically"),
        XC_OPT_FLAG("dedispersed", &c.dedisp,
                    .help = "write FILE's stem .dat + .inf (PRESTO) instead: the series that\n"
                            "dedispersing the filterbank at the true DM would give, to an\n"
                            "even length (as PRESTO's prepsubband; what fft takes)"),
        XC_OPT_STR("truth", &c.truth, .arg = "FILE.json",
                   .help = "truth file (default: FILE with .fil/.dat replaced by .truth.json)"),
        XC_OPT_STR("spec", &c.spec, .arg = "FILE.json",
                   .help = "read the parameters from JSON (fields nchans nbits tsamp_us tobs_s\n"
                           "fch1 foff tstart seed convention smear noise noise_gen bitorder\n"
                           "period_ms "
                           "width_pct snrpeak dm pdot accn binary bper_h becc binc_deg\n"
                           "bomega_deg bphase bpmass bcmass profile fake_phase pulses\n"
                           "sefd_jy npol);\n"
                           "options given here override them and -pulse adds to its pulses"),
        XC_OPT_STR("spec_key", &c.spec_key, .arg = "KEY",
                   .help = "take the object under KEY in the -spec file (default: the top level)"),
        XC_OPT_LATER(other),
        XC_OPT_METER(&c.quiet, &c.progress, "no progress meter and no summary line"),
        XC_OPT_END,
    };
    xc_error err;
    xc_error_clear(&err);
    int rc = xc_opts_parse(&ospec, opts, argc, argv, NULL);
    if (rc == XC_OPTS_GO) {
        if (!c.out)
            rc = xc_cli_failf("synth", "-o FILE.fil is required (see crosscheck synth -h)");
        else if (c.spec_key && !c.spec)
            rc = xc_cli_failf("synth", "-spec_key needs -spec FILE.json");
        else if (c.spec && xc_synth_params_load(&c.p, c.spec, c.spec_key, &err))
            rc = xc_cli_fail("synth", &err);
        else
            rc = xc_opts_parse_later(&ospec, opts, argc, argv);
    }
    if (rc != XC_OPTS_GO) {
        xc_synth_params_free(&c.p);
        return rc;
    }
    rc = make(&c);
    xc_synth_params_free(&c.p);
    return rc;
}
