/* crosscheck dedisperse: a filterbank into DM-time planes (.json + .npy). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_meter.h"
#include "cli/cli_plan.h"
#include "core/xc_ddstream.h"

static void help(void)
{
    printf("usage: crosscheck dedisperse -i FILE.fil -o OUT -impl NAME (DM plan) [options]\n\n"
           "Dedisperses one IF of a SIGPROC filterbank with the chosen implementation and writes\n"
           "OUT.json (DM lists, downsample factors, tsamp, nsamp, channel frequencies, convention,\n"
           "implementation, command line) and OUT.r<k>.npy (float32 [ndm][nsamp], one per range).\n"
           "A row holds the nsamp - (largest delay of the plan) samples for which every channel's\n"
           "delayed sample exists, divided by the range's downsample factor. The file is read in\n"
           "gulps, so files larger than memory work.\n\n"
           "  -i FILE.fil        input filterbank (nbits 1, 2, 4, 8, 16 or 32)\n"
           "  -o OUT             output prefix\n"
           "  -impl NAME         implementation (crosscheck list): reference, cpu, ... (default: the threaded CPU one)\n"
           "%s"
           "Options:\n"
           "  -convention NAME   crosscheck (default: k_DM 4148.808, round half away, raw sum),\n"
           "                     sigproc, presto, dedisp, astroaccelerate (see README)\n"
           "  -killmask FILE     one value per channel, 0 = drop the channel (SIGPROC/dedisp style)\n"
           "  -zap_chans LIST    channels to drop, e.g. 0-15,700,831 (added to -killmask)\n"
           "  -if N              IF to dedisperse when nifs > 1 (default 0)\n"
           "  -bitorder lsb|msb  sub-byte packing (default lsb: first sample in the low bits, as SIGPROC)\n"
           "  -gulp N            output samples per gulp (default: about 64 MiB of input)\n"
           "  -threads N         threads for implementations that use them (default: all)\n"
           "  -tile_t N -tile_dm N -tile_c N   tile sizes for the cpu implementation (0 = its default)\n"
           "  -quiet             no progress meter\n",
           xc_cli_plan_help());
}

/* Reads a kill mask file: whitespace-separated numbers, one per channel. */
static xc_status read_killmask(const char *path, uint8_t *mask, int nchans, xc_error *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", path, strerror(errno));
    int n = 0;
    double v;
    int rc;
    while ((rc = fscanf(fp, "%lf", &v)) == 1) {
        if (n >= nchans) {
            fclose(fp);
            return xc_error_set(err, XC_EFORMAT, "%s: more than nchans = %d values", path, nchans);
        }
        mask[n++] = v != 0;
    }
    int bad = rc != EOF;
    fclose(fp);
    if (bad)
        return xc_error_set(err, XC_EFORMAT, "%s: value %d: not a number", path, n + 1);
    if (n != nchans)
        return xc_error_set(err, XC_EFORMAT, "%s: %d values for %d channels", path, n, nchans);
    return XC_OK;
}

static xc_status zap(const char *list, uint8_t *mask, int nchans, xc_error *err)
{
    const char *s = list;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b;
        if (end == s)
            return xc_error_set(err, XC_EINVAL, "-zap_chans: '%s': expected channel numbers", list);
        b = a;
        s = end;
        if (*s == '-' || *s == ':') {
            b = strtol(s + 1, &end, 10);
            if (end == s + 1)
                return xc_error_set(err, XC_EINVAL, "-zap_chans: '%s': bad range", list);
            s = end;
        }
        if (a < 0 || b < a || b >= nchans)
            return xc_error_set(err, XC_EINVAL, "-zap_chans: %ld-%ld is outside 0..%d", a, b, nchans - 1);
        for (long c = a; c <= b; c++)
            mask[c] = 0;
        if (*s == ',')
            s++;
        else if (*s)
            return xc_error_set(err, XC_EINVAL, "-zap_chans: '%s': unexpected '%c'", list, *s);
    }
    return XC_OK;
}

int xc_cmd_dedisperse(int argc, char **argv)
{
    enum { O_I = 1, O_O, O_IMPL, O_PLAN, O_PLANFILE, O_LODM, O_HIDM, O_TOL, O_PW, O_CONV, O_KILL, O_ZAP,
           O_IF, O_BITORDER, O_GULP, O_THREADS, O_TT, O_TDM, O_TC, O_QUIET, O_HELP };
    static const struct option opts[] = {
        {"i", required_argument, 0, O_I}, {"o", required_argument, 0, O_O},
        {"impl", required_argument, 0, O_IMPL}, {"dmplan", required_argument, 0, O_PLAN},
        {"dmplanfile", required_argument, 0, O_PLANFILE}, {"lodm", required_argument, 0, O_LODM},
        {"hidm", required_argument, 0, O_HIDM}, {"dm_tol", required_argument, 0, O_TOL},
        {"dm_pulse_width", required_argument, 0, O_PW}, {"convention", required_argument, 0, O_CONV},
        {"killmask", required_argument, 0, O_KILL}, {"zap_chans", required_argument, 0, O_ZAP},
        {"if", required_argument, 0, O_IF}, {"bitorder", required_argument, 0, O_BITORDER},
        {"gulp", required_argument, 0, O_GULP}, {"threads", required_argument, 0, O_THREADS},
        {"tile_t", required_argument, 0, O_TT}, {"tile_dm", required_argument, 0, O_TDM},
        {"tile_c", required_argument, 0, O_TC}, {"quiet", no_argument, 0, O_QUIET},
        {"h", no_argument, 0, O_HELP}, {"help", no_argument, 0, O_HELP}, {0, 0, 0, 0}};
    const char *input = NULL, *out = NULL, *impl_name = NULL, *conv_name = "crosscheck";
    const char *killfile = NULL, *zaplist = NULL;
    xc_cli_planopts po;
    xc_cli_planopts_init(&po);
    xc_ddstream_args a;
    memset(&a, 0, sizeof a);
    xc_fbopts fo = {XC_BITORDER_LSB, 0};
    xc_error err;
    xc_error_clear(&err);
    xc_status st = XC_OK;
    unsigned long long gulp = 0;
    int quiet = 0;
    int c;
    while ((c = getopt_long_only(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_I: input = optarg; break;
        case O_O: out = optarg; break;
        case O_IMPL: impl_name = optarg; break;
        case O_PLAN: po.dmplan = optarg; break;
        case O_PLANFILE: po.dmplanfile = optarg; break;
        case O_LODM: st = xc_cli_double("-lodm", optarg, &po.lodm, &err); po.tol_given = 1; break;
        case O_HIDM: st = xc_cli_double("-hidm", optarg, &po.hidm, &err); po.tol_given = 1; break;
        case O_TOL: st = xc_cli_double("-dm_tol", optarg, &po.dm_tol, &err); po.tol_given = 1; break;
        case O_PW: st = xc_cli_double("-dm_pulse_width", optarg, &po.dm_pulse_width, &err); po.tol_given = 1; break;
        case O_CONV: conv_name = optarg; break;
        case O_KILL: killfile = optarg; break;
        case O_ZAP: zaplist = optarg; break;
        case O_IF: st = xc_cli_int("-if", optarg, 0, 1 << 20, &a.ifno, &err); break;
        case O_BITORDER:
            if (!strcmp(optarg, "lsb")) fo.bitorder = XC_BITORDER_LSB;
            else if (!strcmp(optarg, "msb")) fo.bitorder = XC_BITORDER_MSB;
            else st = xc_error_set(&err, XC_EINVAL, "-bitorder: '%s' is not lsb or msb", optarg);
            break;
        case O_GULP: st = xc_cli_u64("-gulp", optarg, &gulp, &err); break;
        case O_THREADS: st = xc_cli_int("-threads", optarg, 0, 4096, &a.opts.threads, &err); break;
        case O_TT: st = xc_cli_int("-tile_t", optarg, 0, 1 << 24, &a.opts.tile_t, &err); break;
        case O_TDM: st = xc_cli_int("-tile_dm", optarg, 0, 1 << 24, &a.opts.tile_dm, &err); break;
        case O_TC: st = xc_cli_int("-tile_c", optarg, 0, 1 << 24, &a.opts.tile_c, &err); break;
        case O_QUIET: quiet = 1; break;
        case O_HELP: help(); return 0;
        default: return xc_cli_badopt("dedisperse", argc, argv);
        }
        if (st)
            return xc_cli_fail("dedisperse", &err);
    }
    if (optind < argc)
        return xc_cli_failf("dedisperse", "unexpected argument '%s'", argv[optind]);
    if (!input || !out)
        return xc_cli_failf("dedisperse", "-i FILE.fil and -o OUT are required (see -h)");
    if (!(a.impl = xc_dedisperser_of(xc_cli_impl("dedisperse", XC_FAMILY_DEDISPERSE, impl_name))))
        return 2;
    a.conv = xc_convention_get(conv_name);
    if (!a.conv)
        return xc_cli_failf("dedisperse",
                            "-convention: '%s' is not one of crosscheck, sigproc, presto, dedisp, astroaccelerate",
                            conv_name);
    xc_fbreader *r;
    if ((st = xc_fbreader_open(&r, input, &fo, &err)))
        return xc_cli_fail("dedisperse", &err);
    const char *warn = xc_fbreader_warning(r);
    if (warn && *warn)
        fprintf(stderr, "crosscheck dedisperse: warning: %s\n", warn);
    const xc_fbheader *h = xc_fbreader_header(r);
    xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    uint8_t *mask = NULL;
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    if (killfile || zaplist) {
        mask = malloc((size_t)h->nchans);
        if (!mask) {
            st = xc_error_set(&err, XC_ENOMEM, "out of memory");
            goto done;
        }
        memset(mask, 1, (size_t)h->nchans);
        if (killfile && (st = read_killmask(killfile, mask, h->nchans, &err)))
            goto done;
        if (zaplist && (st = zap(zaplist, mask, h->nchans, &err)))
            goto done;
    }
    if ((st = xc_cli_plan_build(&po, &g, &plan, &err)))
        goto done;
    a.plan = &plan;
    a.killmask = mask;
    a.gulp = (size_t)gulp;
    a.input_name = input;
    a.cmdline = xc_cli_cmdline();
    double secs = 0;
    xc_progress meter;
    xc_progress_start(&meter, "dedisperse", 1, quiet);
    a.progress = xc_progress_callback(&meter);
    if (!(st = xc_dedisperse_stream(r, out, &a, &secs, &err)))
        xc_progress_end(&meter);
    if (!st && !quiet)
        fprintf(stderr, "crosscheck dedisperse: %s: %zu DM trials in %.3f s -> %s.json\n", a.impl->impl.name,
                xc_dmplan_ndm(&plan), secs, out);
done:
    xc_fbreader_close(r);
    xc_dmplan_free(&plan);
    free(mask);
    return st ? xc_cli_fail("dedisperse", &err) : 0;
}
