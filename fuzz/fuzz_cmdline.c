/* fuzz_cmdline.c: command lines, through the layer every subcommand parses
 * with (cli/base/cli_opts.c xc_opts_parse and xc_opts_parse_later, the strict
 * number parsers of cli/base/cli_util.c, the shared DM-plan options of
 * cli/base/cli_plan.c and the bin-count parser of cli/base/cli_search.c).
 *
 * The subcommands keep their option tables inside the functions that then
 * run the work, so they cannot be called for their parse alone; this target
 * parses the input against a table holding every kind of option those
 * tables use (flag, string, int, double, non-negative, u64, int list,
 * choice, callback, nested and later tables) and builds the DM plan the
 * plan options describe, as `plan` and `dedisperse` do.  The input is split
 * into arguments at NUL bytes and newlines.
 *
 * Properties of an accepted command line: every int and list element in its
 * [lo, hi]; the non-negative double finite and >= 0; the u64 given without a
 * sign; the choice a valid index; the bin count in its bounds; no more
 * positional arguments than allowed; a -convention that is a preset; and a
 * DM plan (-dmplan or -lodm/-hidm/-dm_tol/-dm_pulse_width) that is accepted
 * has 1..XC_DMPLAN_MAX_TRIALS finite ascending trials. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/base/cli_plan.h"
#include "cli/base/cli_search.h"
#include "fuzz/fuzz_util.h"

#define MAXARGS 48

static const xc_optspec spec = {.cmd = "fuzz", .max_args = 2, .about = "the option table of the command-line fuzz target\n"};

static void plan_ok(const xc_dmplan *p)
{
    size_t total = 0;
    double prev = -INFINITY;
    XC_FUZZ_CHECK(p->nranges >= 1, "cmdline: empty DM plan accepted");
    for (int k = 0; k < p->nranges; k++) {
        XC_FUZZ_CHECK(p->r[k].ds >= 1 && p->r[k].ds <= XC_DMPLAN_MAX_DS, "cmdline: downsample %d", p->r[k].ds);
        for (size_t j = 0; j < p->r[k].ndm; j++) {
            XC_FUZZ_CHECK(isfinite(p->r[k].dms[j]) && p->r[k].dms[j] > prev, "cmdline: DM %.17g after %.17g",
                          p->r[k].dms[j], prev);
            prev = p->r[k].dms[j];
        }
        total += p->r[k].ndm;
    }
    XC_FUZZ_CHECK(total >= 1 && total <= XC_DMPLAN_MAX_TRIALS, "cmdline: %zu trials accepted", total);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = xc_fuzz_cstr(data, size);
    char *argv[MAXARGS + 2];
    int argc = 0;
    argv[argc++] = "fuzz";
    for (size_t i = 0, start = 0; i <= size && argc < MAXARGS; i++) {
        if (i == size || buf[i] == '\0' || buf[i] == '\n') {
            buf[i] = '\0';
            argv[argc++] = buf + start;
            start = i + 1;
        }
    }
    argv[argc] = NULL;

    int flag = 0, nint = 7, choice = 0, later = 0, listv[4] = {1, 0, 0, 0};
    double dbl = 0, nonneg = 0;
    unsigned long long u64 = 0;
    size_t bins = 0;
    const char *str = NULL;
    xc_cli_ints list = {listv, 1, 4};
    xc_cli_planopts po;
    xc_cli_planopts_init(&po);
    const xc_opt later_t[] = {XC_OPT_INT("later", &later, -5, 5), XC_OPT_END};
    const xc_opt opts[] = {
        XC_OPT_FLAG("flag", &flag),
        XC_OPT_STR("o", &str),
        XC_OPT_INT("nchans", &nint, 1, 1 << 20),
        XC_OPT_DOUBLE("tsamp", &dbl),
        XC_OPT_NONNEG("width", &nonneg),
        XC_OPT_U64("seed", &u64),
        XC_OPT_INTS("numharm", &list, 1, 32),
        XC_OPT_CHOICE("bitorder", &choice, "lsb|msb"),
        {.name = "nbins", .kind = XC_OPTK_CALL, .dest = &bins, .fn = xc_cli_opt_bins, .lo = 16, .hi = 40},
        XC_OPT_TABLE(po.table),
        XC_OPT_LATER(later_t),
        XC_OPT_END,
    };
    /* copies: getopt permutes argv */
    char *args[MAXARGS + 2];
    memcpy(args, argv, sizeof args);
    int first = 0;
    int rc = xc_opts_parse(&spec, opts, argc, args, &first);
    if (rc == XC_OPTS_GO) {
        XC_FUZZ_CHECK(first >= 1 && argc - first <= 2, "cmdline: %d positional arguments accepted", argc - first);
        XC_FUZZ_CHECK(nint >= 1 && nint <= 1 << 20, "cmdline: -nchans %d accepted", nint);
        XC_FUZZ_CHECK(isfinite(nonneg) && nonneg >= 0, "cmdline: -width %g accepted", nonneg);
        XC_FUZZ_CHECK(list.n >= 1 && list.n <= list.max, "cmdline: -numharm list of %d", list.n);
        for (int i = 0; i < list.n; i++)
            XC_FUZZ_CHECK(listv[i] >= 1 && listv[i] <= 32, "cmdline: -numharm %d accepted", listv[i]);
        XC_FUZZ_CHECK(choice == 0 || choice == 1, "cmdline: choice %d", choice);
        XC_FUZZ_CHECK(bins == 0 || (bins >= 16 && bins <= (size_t)1 << 40), "cmdline: -nbins %zu accepted", bins);
        memcpy(args, argv, sizeof args);
        rc = xc_opts_parse_later(&spec, opts, argc, args);
        if (rc == XC_OPTS_GO)
            XC_FUZZ_CHECK(later >= -5 && later <= 5, "cmdline: -later %d accepted", later);
        /* a plan file is fuzz_dmplan's; here only what the command line holds */
        if (!po.dmplanfile) {
            const xc_geometry g = {64, 1500.0, -1.0, 64e-6};
            xc_dmplan p;
            xc_error e;
            xc_dmplan_init(&p);
            if (xc_cli_plan_build(&po, &g, &p, &e) == XC_OK)
                plan_ok(&p);
            xc_dmplan_free(&p);
        }
    }
    /* the u64 parser alone: an accepted value has no sign, and is the number written */
    xc_error e;
    for (int i = 1; i < argc; i++) {
        unsigned long long v;
        if (xc_cli_u64("-seed", argv[i], &v, &e) == XC_OK) {
            XC_FUZZ_CHECK(!strchr(argv[i], '-'), "cmdline: u64 '%s' accepted as %llu", argv[i], v);
            char back[32];
            snprintf(back, sizeof back, "%llu", v);
            XC_FUZZ_CHECK(strstr(argv[i], back) != NULL || v == 0, "cmdline: u64 '%s' accepted as %llu", argv[i], v);
        }
    }
    free(buf);
    return 0;
}
