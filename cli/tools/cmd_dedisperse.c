/* crosscheck dedisperse: a filterbank into DM-time planes (.json + .npy). */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "core/base/xc_fmt.h"
#include "cli/base/cli_memory.h"
#include "cli/base/cli_meter.h"
#include "cli/base/cli_opts.h"
#include "cli/base/cli_plan.h"
#include "core/dedisp/approx/xc_subband.h"
#include "core/dedisp/run/xc_ddstream.h"

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

/* The kill mask of -killmask and -zap_chans (*mask: nchans entries, 0 = drop). */
static xc_status make_mask(const char *killfile, const char *zaplist, int nchans, uint8_t **mask, xc_error *err)
{
    if (!(*mask = malloc((size_t)nchans)))
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    memset(*mask, 1, (size_t)nchans);
    xc_status st = killfile ? read_killmask(killfile, *mask, nchans, err) : XC_OK;
    return !st && zaplist ? zap(zaplist, *mask, nchans, err) : st;
}

/* -times: a comma-separated list of finite numbers (dest: const char *). */
static xc_status opt_times(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    const char *s = val;
    do {
        char *end;
        double t = strtod(s, &end);
        if (end == s || !isfinite(t) || (*end && *end != ','))
            return xc_error_set(err, XC_EINVAL, "option %s: '%s': expected times in seconds, e.g. 0.5,1.25", opt, val);
        s = *end ? end + 1 : end;
    } while (*s);
    *(const char **)o->dest = val;
    return XC_OK;
}

/* Warns of each time (arrival at the highest channel, s) outside [0, end):
 * no trial's output holds it. */
static void warn_time(const char *what, double t, double end)
{
    if (t < 0 || t >= end)
        fprintf(stderr, "crosscheck dedisperse: warning: %s arrives at %.6f s, outside the %.6f s every trial covers "
                        "(arrival at the highest channel from 0 to the file's end less the plan's largest delay): no "
                        "trial holds it\n", what, t, end);
}

/* The truth's pulses (synth's FILE.truth.json beside the input, or -truth)
 * and the -times against the time every trial covers. */
static void warn_outside(const char *input, const char *truth, const char *times, const xc_fbheader *h,
                         const xc_dmplan *plan, const xc_convention *cv)
{
    xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    int64_t maxd = 0;
    xc_error e;
    if (xc_dmplan_max_delay(cv, &g, plan, &maxd, &e) || (uint64_t)maxd >= h->nsamp)
        return;   /* the dedispersion itself says why */
    const double end = (double)(h->nsamp - (uint64_t)maxd) * h->tsamp;
    char path[4096], what[128];
    const char *dot = strrchr(input, '.');
    if (!truth && dot && !strcmp(dot, ".fil") && (size_t)(dot - input) < sizeof path - 12) {
        snprintf(path, sizeof path, "%.*s.truth.json", (int)(dot - input), input);
        truth = access(path, R_OK) == 0 ? path : NULL;
    }
    json_error_t je;
    json_t *root = truth ? json_load_file(truth, 0, &je) : NULL;
    if (truth && !root)
        fprintf(stderr, "crosscheck dedisperse: warning: %s: not read (%s)\n", truth, je.text);
    json_t *p;
    size_t i;
    json_array_foreach(json_object_get(root, "pulses"), i, p) {
        snprintf(what, sizeof what, "truth pulse %zu (DM %g)", i, json_number_value(json_object_get(p, "dm")));
        if (json_is_number(json_object_get(p, "t_s")))
            warn_time(what, json_number_value(json_object_get(p, "t_s")), end);
    }
    json_decref(root);
    for (const char *s = times; s && *s;) {
        char *e2;
        double t = strtod(s, &e2);
        snprintf(what, sizeof what, "-times %g", t);
        warn_time(what, t, end);
        s = *e2 == ',' ? e2 + 1 : "";
    }
}

/* The stream with its memory said (when large, or with -progress) and a
 * progress meter; one line on stderr when it is done (not with -quiet). */
static xc_status run_stream(xc_fbreader *r, const char *out, xc_ddstream_args *a, int quiet, int progress,
                            xc_error *err)
{
    double secs = 0;
    xc_ddstream_est est;
    xc_status st = xc_ddstream_estimate(r, a, &est, err);
    if (st)
        return st;
    /* the memory, said before a step that holds a lot of it */
    if (!quiet && (progress || est.bytes >= 1024.0 * 1024 * 1024)) {
        char b[32];
        xc_fmt_bytes(b, sizeof b, est.bytes);
        fprintf(stderr, "crosscheck dedisperse: about %s of memory (gulps of up to %zu samples)%s\n", b, est.gulp,
                a->max_memory > 0 ? "" : "; -max_memory bounds it");
    }
    xc_progress meter;
    xc_progress_start(&meter, "dedisperse", 1, xc_progress_want(quiet, progress));
    meter.unit = "samples";
    a->progress = xc_progress_callback(&meter);
    if (!(st = xc_dedisperse_stream(r, out, a, &secs, err)))
        xc_progress_end(&meter);
    if (!st && !quiet)
        fprintf(stderr, "crosscheck dedisperse: %s: %zu DM trials in %.3f s -> %s%s\n", a->impl->impl.name,
                xc_dmplan_ndm(a->plan), secs, out,
                a->series.format == XC_DDOUT_PRESTO ? "_DM*.dat/.inf"
                : a->series.format == XC_DDOUT_TIM  ? "_DM*.tim"
                                                    : ".json");
    return st;
}

/* -convention presto asks for prepsubband's results, so its subbands too (equal widths referred to each
 * subband's highest channel), unless -subalign or -subsplit said otherwise (docs/SUBBAND.md). */
static void presto_subbands(xc_ddopts *o, const xc_convention *cv, int align_given, int split_given)
{
    if (strcmp(cv->name, "presto"))
        return;
    if (!align_given)
        o->subalign = XC_SUBALIGN_HIGHEST;
    if (!split_given)
        o->subsplit = XC_SUBSPLIT_WIDTH;
}

int xc_cmd_dedisperse(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    const char *input = NULL, *out = NULL, *impl_name = NULL, *killfile = NULL, *zaplist = NULL, *truth = NULL,
               *times = NULL;
    xc_cli_planopts po;
    xc_cli_planopts_init(&po);
    xc_ddstream_args a;
    memset(&a, 0, sizeof a);
    unsigned long long gulp = 0;
    int quiet = 0, progress = 0, msb = 0;   /* msb: -bitorder msb (index 1 of lsb|msb) */
    int format = 0;           /* index of npy|presto|tim: the xc_ddformat order */
    int align_given = 0, split_given = 0;   /* -subalign / -subsplit given: -convention presto leaves them */
    unsigned long long numout = 0;
    xc_opt tiles[4];
    xc_cli_tileopts(tiles, &a.tune);
    const xc_opt opts[] = {
        XC_OPT_STR("i", &input, .arg = "FILE.fil", .help = "input filterbank (nbits 1, 2, 4, 8, 16 or 32)"),
        XC_OPT_STR("o", &out, .arg = "OUT", .help = "output prefix"),
        XC_OPT_STR("impl", &impl_name, .arg = "NAME", .help = "implementation (crosscheck list): reference, cpu, ...",
                   .def = "the threaded CPU one"),
        XC_OPT_TABLE(po.table),
        XC_CLI_OPT_DDPLAN(po),
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
                   .help = "subbands (at most nchans); for -impl tree (and tree-reference) a power of\n"
                           "two; tree-padded has one tree over the grid linear in 1/f^2 and ignores it",
                   .def = "the cheapest whose declared loss is within -maxloss on this file's geometry\n"
                          "and DM plan"),
        XC_OPT_NONNEG("dmsub", &a.opts.dmsub, .arg = "D", .help = "spacing of the subbands' nominal DMs",
                      .def = "chosen from -subbudget"),
        XC_OPT_CHOICE("subalign", &a.opts.subalign, "centre|highest|early", .arg = "A",   /* the xc_subalign order */
                      .help = "centre, highest (PRESTO) or early (Barsdell et al.)", .given = &align_given,
                      .def = "centre; highest with -convention presto"),
        XC_OPT_CHOICE("subsplit", &a.opts.subsplit, "spread|width", .arg = "S",   /* the xc_subsplit order */
                      .help = "subbands of equal delay spread, or of equal width (PRESTO)", .given = &split_given,
                      .def = "spread; width with -convention presto"),
        XC_OPT_NONNEG("subbudget", &a.opts.subbudget, .arg = "S",
                      .help = "smear allowed per trial when -dmsub is not given, in samples", .def = "0.8"),
        XC_OPT_CHOICE("format", &format, "npy|presto|tim", .arg = "F",
                      .help = "npy: the plane (OUT.json + OUT.r<k>.npy); presto: OUT_DM<dm>.dat/.inf per\n"
                              "trial; tim: OUT_DM<dm>.tim per trial (SIGPROC time series)", .def = "npy"),
        XC_OPT_INT("dmprec", &a.series.dmprec, 1, 12, .arg = "N",
                   .help = "decimals of the DM in the series' names (PRESTO's -dmprec)", .def = "2"),
        XC_OPT_U64("numout", &numout, .arg = "N",
                   .help = "presto: samples per series, padded with the trial's mean (the .inf's on/off\n"
                           "pairs say where the data end, as prepsubband's) or cut; a range downsampled\n"
                           "by ds gets N/ds", .def = "the dedispersed samples, no padding"),
        XC_CLI_OPT_MAX_MEMORY(&a.max_memory, "the dedispersion"),
        XC_OPT_CALL("maxloss", xc_cli_opt_maxloss, &a.opts.maxloss, .arg = "L",
                    .help = "approximate implementations: the largest declared S/N-loss bound accepted\n"
                            "(a fraction); -nsub left out is chosen to meet it, and a plan that does not\n"
                            "is refused (exit 2, naming the bound)", .def = "0.2"),
        XC_OPT_NONNEG("width", &a.opts.losswidth, .arg = "W",
                      .help = "the pulse width, in samples of each range, -maxloss is judged at", .def = "8"),
        XC_OPT_STR("truth", &truth, .arg = "FILE.json",
                   .help = "warn of every pulse (t_s, arrival at the highest channel) no trial's output\n"
                           "holds", .def = "FILE.truth.json beside FILE.fil, if there"),
        XC_OPT_CALL("times", opt_times, &times, .arg = "S,S,...",
                    .help = "arrival times at the highest channel (s) to warn of the same way"),
        XC_OPT_METER(&quiet, &progress, "no progress meter"),
        XC_OPT_END,
    };
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    xc_error err;
    xc_error_clear(&err);
    if (!input || !out)
        return xc_cli_failf("dedisperse", "-i FILE.fil and -o OUT are required (see -h)");
    if (!(a.impl = xc_dedisperser_of(xc_cli_impl("dedisperse", XC_FAMILY_DEDISPERSE, impl_name))))
        return 2;
    if (!(a.conv = xc_cli_plan_convention("dedisperse", &po)))
        return 2;
    presto_subbands(&a.opts, a.conv, align_given, split_given);
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
    if ((killfile || zaplist) && (st = make_mask(killfile, zaplist, h->nchans, &mask, &err)))
        goto done;
    if ((st = xc_cli_plan_build(&po, &g, &plan, &err)))
        goto done;
    warn_outside(input, truth, times, h, &plan, a.conv);
    a.plan = &plan;
    a.killmask = mask;
    a.gulp = (size_t)gulp;
    a.input_name = input;
    a.cmdline = xc_cli_cmdline();
    a.series.format = (xc_ddformat)format;
    a.series.numout = numout;
    if (numout && a.series.format != XC_DDOUT_PRESTO) {
        st = xc_error_set(&err, XC_EINVAL, "-numout %llu: pads PRESTO series only (-format presto)", numout);
        goto done;
    }
    st = run_stream(r, out, &a, quiet, progress, &err);
done:
    xc_fbreader_close(r);
    xc_dmplan_free(&plan);
    free(mask);
    return st ? xc_cli_fail("dedisperse", &err) : 0;
}
