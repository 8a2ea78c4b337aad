/* crosscheck dedisperse: a filterbank into DM-time planes (.json + .npy). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_meter.h"
#include "cli/cli_opts.h"
#include "cli/cli_plan.h"
#include "core/dedisp/xc_ddstream.h"

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

int xc_cmd_dedisperse(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    const char *input = NULL, *out = NULL, *impl_name = NULL, *killfile = NULL, *zaplist = NULL;
    xc_cli_planopts po;
    xc_cli_planopts_init(&po);
    xc_ddstream_args a;
    memset(&a, 0, sizeof a);
    unsigned long long gulp = 0;
    int quiet = 0, msb = 0;   /* msb: -bitorder msb (index 1 of lsb|msb) */
    xc_opt tiles[4];
    xc_cli_tileopts(tiles, &a.tune);
    const xc_opt opts[] = {
        XC_OPT_STR("i", &input, .arg = "FILE.fil", .help = "input filterbank (nbits 1, 2, 4, 8, 16 or 32)"),
        XC_OPT_STR("o", &out, .arg = "OUT", .help = "output prefix"),
        XC_OPT_STR("impl", &impl_name, .arg = "NAME", .help = "implementation (crosscheck list): reference, cpu, ...",
                   .def = "the threaded CPU one"),
        XC_OPT_TABLE(po.table),
        XC_OPT_STR("killmask", &killfile, .arg = "FILE",
                   .help = "one value per channel, 0 = drop the channel (SIGPROC/dedisp style)"),
        XC_OPT_STR("zap_chans", &zaplist, .arg = "LIST", .help = "channels to drop, e.g. 0-15,700,831 (added to -killmask)"),
        XC_OPT_INT("if", &a.ifno, 0, 1 << 20, .arg = "N", .help = "IF to dedisperse when nifs > 1", .def = "0"),
        XC_OPT_CHOICE("bitorder", &msb, "lsb|msb", .arg = "lsb|msb",
                      .help = "sub-byte packing (lsb: first sample in the low bits, as SIGPROC)", .def = "lsb"),
        XC_OPT_U64("gulp", &gulp, .arg = "N", .help = "output samples per gulp", .def = "about 64 MiB of input"),
        XC_OPT_INT("threads", &a.opts.threads, 0, 4096, .arg = "N", .help = "threads for implementations that use them",
                   .def = "all"),
        XC_OPT_TABLE(tiles),
        XC_OPT_INT("nsub", &a.opts.nsub, 1, 1 << 20, .arg = "N",
                   .help = "subbands (at most nchans; default 32, PRESTO's); for -impl tree (and\n"
                           "tree-reference) a power of two, default the padded channels / 32;\n"
                           "tree-padded has one tree over the grid linear in 1/f^2 and ignores it"),
        XC_OPT_NONNEG("dmsub", &a.opts.dmsub, .arg = "D", .help = "spacing of the subbands' nominal DMs",
                      .def = "chosen from -subbudget"),
        XC_OPT_CHOICE("subalign", &a.opts.subalign, "highest|early|centre", .arg = "A",   /* the xc_subalign order */
                      .help = "highest (PRESTO), early (Barsdell et al.) or centre", .def = "highest"),
        XC_OPT_NONNEG("subbudget", &a.opts.subbudget, .arg = "S",
                      .help = "smear allowed per trial when -dmsub is not given, in samples", .def = "0.8"),
        XC_OPT_FLAG("quiet", &quiet, .help = "no progress meter"),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    xc_error err;
    xc_error_clear(&err);
    if (!input || !out)
        return xc_cli_failf("dedisperse", "-i FILE.fil and -o OUT are required (see -h)");
    if (!(a.impl = xc_dedisperser_of(xc_cli_impl("dedisperse", XC_FAMILY_DEDISPERSE, impl_name))))
        return 2;
    if (!(a.conv = xc_cli_plan_convention("dedisperse", &po)))
        return 2;
    xc_fbopts fo = {msb ? XC_BITORDER_MSB : XC_BITORDER_LSB, 0};
    xc_status st;
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
