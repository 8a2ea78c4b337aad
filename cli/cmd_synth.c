/* crosscheck synth: a synthetic filterbank (noise, a pulsar, dispersed pulses) and its truth file. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_meter.h"
#include "core/xc_progress.h"
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

static xc_status parse_pulse(const char *val, xc_synth_pulse *pl, xc_error *err)
{
    double v[4];
    const char *s = val;
    for (int i = 0; i < 4; i++) {
        char *end;
        v[i] = strtod(s, &end);
        if (end == s || (i < 3 ? *end != ',' : *end != '\0'))
            return xc_error_set(err, XC_EINVAL, "option -pulse: '%s' is not T,DM,WIDTH_MS,SNR (four numbers)", val);
        s = end + 1;
    }
    pl->t_s = v[0];
    pl->dm = v[1];
    pl->width_ms = v[2];
    pl->snr = v[3];
    return XC_OK;
}

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
    (void)total;
    xc_progress_update(ctx, done);
}

enum { O_NCHANS = 1, O_NBITS, O_TSAMP, O_TOBS, O_FCH1, O_FOFF, O_TSTART, O_DM, O_PERIOD, O_WIDTH, O_SNRPEAK,
       O_SEED, O_NOSMEAR, O_PULSE, O_NONOISE, O_CONV, O_BITORDER, O_SPEC, O_SPECKEY, O_OUT, O_TRUTH, O_QUIET,
       O_THREADS, O_HELP, O_PDOT, O_ACCN, O_BINARY, O_BPER, O_BECC, O_BINC, O_BOMEGA, O_BPHASE, O_BPMASS,
       O_BCMASS, O_FAKE, O_GAUSS, O_SINGLE, O_TPULSE, O_DEDISP, O_N };

/* Applies one option to p; options are applied after -spec so they override it. */
static xc_status apply(xc_synth_params *p, int o, const char *v, xc_error *err)
{
    xc_status st = XC_OK;
    double d;
    unsigned long long u;
    switch (o) {
    case O_NCHANS: return xc_cli_int("-nchans", v, 1, 1 << 24, &p->nchans, err);
    case O_NBITS: return xc_cli_int("-nbits", v, 1, 32, &p->nbits, err);
    case O_TSAMP:
        if (!(st = xc_cli_double("-tsamp", v, &d, err)))
            p->tsamp = d * 1e-6;
        return st;
    case O_TOBS: return xc_cli_double("-tobs", v, &p->tobs, err);
    case O_FCH1: return xc_cli_double("-fch1", v, &p->fch1, err);
    case O_FOFF: return xc_cli_double("-foff", v, &p->foff, err);
    case O_TSTART: return xc_cli_double("-tstart", v, &p->tstart, err);
    case O_DM: return xc_cli_double("-dm", v, &p->psr.dm, err);
    case O_PERIOD: return xc_cli_double("-period", v, &p->psr.period_ms, err);
    case O_WIDTH: return xc_cli_double("-width", v, &p->psr.width_pct, err);
    case O_SNRPEAK: return xc_cli_double("-snrpeak", v, &p->psr.snrpeak, err);
    case O_SEED:
        if (!(st = xc_cli_u64("-seed", v, &u, err)))
            p->seed = (uint64_t)u;
        return st;
    case O_NOSMEAR: p->smear = 0; return XC_OK;
    case O_NONOISE: p->noise = 0; return XC_OK;
    case O_CONV:
        if (!(p->convention = xc_convention_get(v)))
            return xc_error_set(err, XC_EINVAL,
                                "option -convention: '%s' is not one of crosscheck, sigproc, presto, dedisp, "
                                "astroaccelerate",
                                v);
        return XC_OK;
    case O_BITORDER:
        if (strcmp(v, "lsb") && strcmp(v, "msb"))
            return xc_error_set(err, XC_EINVAL, "option -bitorder: '%s' is not lsb or msb", v);
        p->bitorder = strcmp(v, "lsb") ? XC_BITORDER_MSB : XC_BITORDER_LSB;
        return XC_OK;
    case O_THREADS: return xc_cli_int("-threads", v, 0, 4096, &p->nthreads, err);
    case O_PDOT: return xc_cli_double("-pdot", v, &p->psr.pdot, err);
    case O_ACCN: return xc_cli_double("-accn", v, &p->psr.accn, err);
    case O_BINARY: p->psr.bin.on = 1; return XC_OK;
    case O_BPER: return xc_cli_double("-bper", v, &p->psr.bin.pb_h, err);
    case O_BECC: return xc_cli_double("-becc", v, &p->psr.bin.ecc, err);
    case O_BINC: return xc_cli_double("-binc", v, &p->psr.bin.inc_deg, err);
    case O_BOMEGA: return xc_cli_double("-bomega", v, &p->psr.bin.omega_deg, err);
    case O_BPHASE: return xc_cli_double("-bphase", v, &p->psr.bin.phase, err);
    case O_BPMASS: return xc_cli_double("-bpmass", v, &p->psr.bin.mp, err);
    case O_BCMASS: return xc_cli_double("-bcmass", v, &p->psr.bin.mc, err);
    case O_FAKE: p->fake_phase = 1; return XC_OK;
    case O_GAUSS: p->profile = XC_PROFILE_GAUSSIAN; return XC_OK;
    }
    return XC_OK;
}

int xc_cmd_synth(int argc, char **argv)
{
    static const struct option opts[] = {
        {"nchans", required_argument, 0, O_NCHANS}, {"nbits", required_argument, 0, O_NBITS},
        {"tsamp", required_argument, 0, O_TSAMP}, {"tobs", required_argument, 0, O_TOBS},
        {"fch1", required_argument, 0, O_FCH1}, {"foff", required_argument, 0, O_FOFF},
        {"tstart", required_argument, 0, O_TSTART}, {"dm", required_argument, 0, O_DM},
        {"period", required_argument, 0, O_PERIOD}, {"width", required_argument, 0, O_WIDTH},
        {"snrpeak", required_argument, 0, O_SNRPEAK}, {"seed", required_argument, 0, O_SEED},
        {"nosmear", no_argument, 0, O_NOSMEAR}, {"pulse", required_argument, 0, O_PULSE},
        {"nonoise", no_argument, 0, O_NONOISE}, {"convention", required_argument, 0, O_CONV},
        {"bitorder", required_argument, 0, O_BITORDER}, {"spec", required_argument, 0, O_SPEC},
        {"spec_key", required_argument, 0, O_SPECKEY}, {"o", required_argument, 0, O_OUT},
        {"truth", required_argument, 0, O_TRUTH}, {"quiet", no_argument, 0, O_QUIET},
        {"threads", required_argument, 0, O_THREADS}, {"h", no_argument, 0, O_HELP},
        {"help", no_argument, 0, O_HELP}, {"pdot", required_argument, 0, O_PDOT},
        {"accn", required_argument, 0, O_ACCN}, {"binary", no_argument, 0, O_BINARY},
        {"bper", required_argument, 0, O_BPER}, {"becc", required_argument, 0, O_BECC},
        {"binc", required_argument, 0, O_BINC}, {"bomega", required_argument, 0, O_BOMEGA},
        {"bphase", required_argument, 0, O_BPHASE}, {"bpmass", required_argument, 0, O_BPMASS},
        {"bcmass", required_argument, 0, O_BCMASS}, {"fake_phase", no_argument, 0, O_FAKE},
        {"gaussian", no_argument, 0, O_GAUSS}, {"single", no_argument, 0, O_SINGLE},
        {"tpulse", required_argument, 0, O_TPULSE}, {"dedispersed", no_argument, 0, O_DEDISP},
        {0, 0, 0, 0}};
    /* Remember the options in order first: -spec must be read before any of
     * them is applied, wherever it appears on the line. */
    int *code = calloc((size_t)argc + 1, sizeof *code);
    const char **val = calloc((size_t)argc + 1, sizeof *val);
    if (!code || !val) {
        free(code);
        free(val);
        return xc_cli_failf("synth", "out of memory");
    }
    int nopt = 0, quiet = 0, rc = 0, single = 0, dedisp = 0;
    double tpulse = NAN;
    const char *spec = NULL, *spec_key = NULL, *out = NULL, *truth = NULL, *tpulse_s = NULL;
    int c;
    while ((c = getopt_long_only(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_SPEC: spec = optarg; break;
        case O_SPECKEY: spec_key = optarg; break;
        case O_OUT: out = optarg; break;
        case O_TRUTH: truth = optarg; break;
        case O_QUIET: quiet = 1; break;
        case O_SINGLE: single = 1; break;
        case O_TPULSE: tpulse_s = optarg; break;
        case O_DEDISP: dedisp = 1; break;
        case O_HELP:
            free(code);
            free(val);
            help();
            return 0;
        case '?':
        case ':':
            free(code);
            free(val);
            return xc_cli_badopt("synth", argc, argv);
        default:
            code[nopt] = c;
            val[nopt++] = optarg;
        }
    }
    xc_synth_params p;
    xc_synth_params_init(&p);
    xc_error err;
    xc_error_clear(&err);
    xc_status st = XC_OK;
    if (optind < argc)
        rc = xc_cli_failf("synth", "unexpected argument '%s'", argv[optind]);
    else if (!out)
        rc = xc_cli_failf("synth", "-o FILE.fil is required (see crosscheck synth -h)");
    else if (spec_key && !spec)
        rc = xc_cli_failf("synth", "-spec_key needs -spec FILE.json");
    else if (spec && (st = xc_synth_params_load(&p, spec, spec_key, &err)))
        rc = xc_cli_fail("synth", &err);
    for (int i = 0; !rc && i < nopt; i++) {
        if (code[i] == O_PULSE) {
            xc_synth_pulse pl;
            if (!(st = parse_pulse(val[i], &pl, &err)))
                st = xc_synth_params_add_pulse(&p, &pl, &err);
        } else {
            st = apply(&p, code[i], val[i], &err);
        }
        if (st)
            rc = xc_cli_fail("synth", &err);
    }
    free(code);
    free(val);
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
    if (!rc) {
        if (p.foff > 0 && !quiet)
            fprintf(stderr, "crosscheck synth: note: foff %g made negative (%g), as fake does: channel 0 is the "
                            "highest frequency\n", p.foff, xc_synth_foff(&p));
        xc_progress prog;
        xc_progress_start(&prog, "synth", xc_synth_nsamp(&p), quiet);
        p.progress = progress_cb;
        p.progress_ctx = &prog;
        char stem[4096] = "";
        size_t ol = strlen(out);
        if (dedisp) {
            snprintf(stem, sizeof stem, "%.*s", (int)(ol >= 4 && !strcmp(out + ol - 4, ".dat") ? ol - 4 : ol), out);
            st = xc_synth_write_dedispersed(&p, stem, truth, xc_cli_cmdline(), &err);
        } else {
            st = xc_synth_write(&p, out, truth, xc_cli_cmdline(), &err);
        }
        if (st) {
            if (prog.enabled)
                fputc('\n', stderr);
            rc = xc_cli_fail("synth", &err);
        } else {
            xc_progress_end(&prog);
            if (!quiet) {
                char tp[4200], dat[4200];
                snprintf(dat, sizeof dat, "%s.dat", stem);
                const char *what = dedisp ? dat : out;
                if (!truth && !xc_synth_truth_path(what, tp, sizeof tp, NULL))
                    truth = tp;
                if (dedisp)
                    printf("wrote %s and %s.inf: dedispersed series; truth %s\n", dat, stem, truth);
                else
                    printf("wrote %s: %llu spectra x %d channels, %d bits, %.6g s; truth %s\n", out,
                           (unsigned long long)xc_synth_nsamp(&p), p.nchans, p.nbits,
                           (double)xc_synth_nsamp(&p) * p.tsamp, truth);
            }
        }
    }
    xc_synth_params_free(&p);
    return rc;
}
