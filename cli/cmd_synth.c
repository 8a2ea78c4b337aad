/* crosscheck synth: a synthetic filterbank (noise, a pulsar, dispersed pulses) and its truth file. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "xc_progress.h"
#include "xc_synth.h"

static void help(void)
{
    xc_synth_params d;
    xc_synth_params_init(&d);
    printf("usage: crosscheck synth -o FILE.fil [options]\n\n"
           "Writes a SIGPROC filterbank of Gaussian noise with an optional periodic pulsar and\n"
           "dispersed single pulses, and a truth file (JSON) with every input and the expected\n"
           "answers.  Options and units follow SIGPROC fake; values are the defaults.\n\n"
           "Observation:\n"
           "  -nchans N          channels (%d)\n"
           "  -nbits B           bits per sample: 1, 2, 4, 8, 16 or 32 (float) (%d)\n"
           "  -tsamp US          sample time in microseconds (%g)\n"
           "  -tobs S            length in seconds (%g); samples = round(tobs/tsamp), NOT rounded\n"
           "                     up to a multiple of 512 as fake does\n"
           "  -fch1 MHZ          frequency of channel 0, the highest (%g)\n"
           "  -foff MHZ          channel width (%g); a positive value is made negative, as fake\n"
           "                     does, so channel 0 is always the highest frequency\n"
           "  -tstart MJD        start time (%.1f)\n"
           "  -seed N            noise seed, 0..2^64-1 (%llu; fake seeds from the clock)\n"
           "  -nonoise           no noise: the signal alone (for tests)\n"
           "  -nosmear           no intra-channel dispersion smearing (default: each channel is cut\n"
           "                     into %d slices, each spreading the pulse over its delay span)\n"
           "  -convention NAME   dispersion constant k_DM of: crosscheck (4148.808, default),\n"
           "                     sigproc, presto, dedisp, astroaccelerate\n"
           "  -bitorder lsb|msb  packing of 1/2/4-bit samples in a byte (lsb: SIGPROC, default)\n"
           "Periodic pulsar (top hat centred on phase 0.5, as fake):\n"
           "  -period MS         period in milliseconds (0: no pulsar; fake picks a random one)\n"
           "  -width PCT         duty cycle in percent of the period (%g)\n"
           "  -snrpeak S         S/N of a band-summed, dedispersed on-pulse sample (%g); each\n"
           "                     channel gets S/sqrt(nchans) noise sigmas\n"
           "  -dm DM             dispersion measure in pc cm^-3 (0; fake picks a random one)\n"
           "Single pulses:\n"
           "  -pulse T,DM,W,SNR  a dispersed top hat centred at T seconds (at fch1, from the start of\n"
           "                     sample 0), DM pc cm^-3, width W ms, band-summed S/N SNR per\n"
           "                     sample; repeat for more pulses\n"
           "Files:\n"
           "  -o FILE.fil        output filterbank (required); written atomically\n"
           "  -truth FILE.json   truth file (default: FILE with .fil replaced by .truth.json)\n"
           "  -spec FILE.json    read the parameters from JSON (fields nchans nbits tsamp_us tobs_s\n"
           "                     fch1 foff tstart seed convention smear noise bitorder period_ms\n"
           "                     width_pct snrpeak dm pulses); options given here override them\n"
           "                     and -pulse adds to its pulses\n"
           "  -spec_key KEY      take the object under KEY in the -spec file (default: the top level)\n"
           "Other:\n"
           "  -threads N         OpenMP threads (0: the OpenMP default); never changes the output\n"
           "  -quiet             no progress meter and no summary line\n"
           "  -h                 this help\n\n"
           "Differences from fake: counter-based noise (same bytes at any thread count), 1-bit is\n"
           "x > 0 (fake's is almost all ones), no max*=snr rescaling of the quantiser, pulses are\n"
           "integrated over each sample, no -pdot/-accn/-binary yet.\n",
           d.nchans, d.nbits, d.tsamp * 1e6, d.tobs, d.fch1, d.foff, d.tstart, (unsigned long long)d.seed,
           XC_SYNTH_NSUB, d.psr.width_pct, d.psr.snrpeak);
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
       O_THREADS, O_HELP, O_N };

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
        {"help", no_argument, 0, O_HELP}, {0, 0, 0, 0}};
    /* Remember the options in order first: -spec must be read before any of
     * them is applied, wherever it appears on the line. */
    int *code = calloc((size_t)argc + 1, sizeof *code);
    const char **val = calloc((size_t)argc + 1, sizeof *val);
    if (!code || !val) {
        free(code);
        free(val);
        return xc_cli_failf("synth", "out of memory");
    }
    int nopt = 0, quiet = 0, rc = 0;
    const char *spec = NULL, *spec_key = NULL, *out = NULL, *truth = NULL;
    int c;
    while ((c = getopt_long_only(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_SPEC: spec = optarg; break;
        case O_SPECKEY: spec_key = optarg; break;
        case O_OUT: out = optarg; break;
        case O_TRUTH: truth = optarg; break;
        case O_QUIET: quiet = 1; break;
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
        st = xc_synth_write(&p, out, truth, xc_cli_cmdline(), &err);
        if (st) {
            if (prog.enabled)
                fputc('\n', stderr);
            rc = xc_cli_fail("synth", &err);
        } else {
            xc_progress_end(&prog);
            if (!quiet) {
                char tp[4096];
                if (!truth && !xc_synth_truth_path(out, tp, sizeof tp, NULL))
                    truth = tp;
                printf("wrote %s: %llu spectra x %d channels, %d bits, %.6g s; truth %s\n", out,
                       (unsigned long long)xc_synth_nsamp(&p), p.nchans, p.nbits,
                       (double)xc_synth_nsamp(&p) * p.tsamp, truth);
            }
        }
    }
    xc_synth_params_free(&p);
    return rc;
}
