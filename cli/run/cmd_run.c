/* crosscheck run: the default cross-check (what `make run` calls).
 *
 * For every observation of the spec (synthetic ones made here, real ones from
 * datasets/), every available dedisperser runs the same plan; each plane is
 * compared with the reference's, injected pulses must be recovered, and the
 * tutorial pulsar's line must stand out.  A verdict table goes to stdout and a
 * report (index.html with plots, summary.json) to runs/<timestamp>/.
 * This file holds the options, the order of the work and the table; see
 * cli/run/run.h for the other pieces and compare/check/xc_checks.h for the checks. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/base/cli_memory.h"
#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/base/plugin/cli_plugin.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_fs.h"
#include "core/base/xc_strlist.h"
#include "cli/run/run.h"
#include "core/base/xc_progress.h"

/* Each name of a comma-separated list, in turn; returns the length, 0 at the end. */
static size_t next_name(const char **p, const char **name)
{
    while (**p == ',')
        (*p)++;
    *name = *p;
    size_t len = strcspn(*p, ",");
    *p += len;
    return len;
}

/* Every name of -impl must be a registered implementation of some family
 * (a dedisperser, a searcher, a single-pulse searcher): a misspelt one would
 * silently leave the run to the reference alone. */
static int registered(const xc_registry *reg, const char *name)
{
    for (int f = 0; f < XC_FAMILY_COUNT; f++)
        if (xc_registry_find(reg, (xc_family)f, name))
            return 1;
    return 0;
}

static int check_only(const char *only)
{
    const xc_registry *reg = xc_cli_registry();
    const char *p = only, *name;
    size_t len;
    int any = 0;
    while ((len = next_name(&p, &name))) {
        char buf[128];
        xc_fmt(buf, sizeof buf, "%.*s", (int)len, name);
        if (!registered(reg, buf))
            return xc_cli_failf("run", "-impl: '%s' is not a registered implementation (crosscheck list)", buf);
        any = 1;
    }
    return any ? 0 : xc_cli_failf("run", "-impl: empty list");
}

/* Parses the options into c; returns -1 to go on, or the exit code. */
static int parse(const xc_cmd *self, runctx *c, int argc, char **argv, const char **spec_file, const char **outdir, int *keep,
                 const char **junit)
{
    const xc_opt opts[] = {
        XC_OPT_STR("spec", spec_file, .arg = "FILE", .help = "run specification", .def = "datasets/default-run.json"),
        XC_OPT_STR("out", outdir, .arg = "DIR", .help = "report directory", .def = "runs/<UTC timestamp>"),
        XC_OPT_STR("impl", &c->only, .arg = "LIST",
                   .help = "only these implementations besides the reference (default: all; the\n"
                           "approximate dedispersers - subband, tree - only on observations whose\n"
                           "spec entry has \"approximate\": 1, or where -impl names them)"),
        XC_OPT_INT("threads", &c->threads, 1, 4096, .arg = "N", .help = "threads for the multi-threaded checks",
                   .def = "all cores"),
        XC_OPT_CALL("maxloss", xc_cli_opt_maxloss, &c->maxloss, .arg = "L",
                    .help = "approximate dedispersers: the largest declared S/N-loss bound (for a pulse of\n"
                            "8 samples) accepted; each chooses its nsub to meet it, and one that cannot\n"
                            "fails its rows", .def = "0.2"),
        XC_OPT_FLAG("keep", keep, .help = "keep the intermediate files (DIR/work: filterbanks, planes)"),
        XC_CLI_OPT_MAX_MEMORY(&c->max_memory, "each step of an observation"),
        XC_OPT_FLAG("quiet", &c->quiet, .help = "the table at the end only (no rows as they come)"),
        XC_OPT_STR("junit", junit, .arg = "FILE",
                   .help = "the verdict table as JUnit XML, one test case per check (CI; docs/ci.md)"),
        XC_OPT_END,
    };
    const xc_optspec spec = XC_CMD_SPEC(self, .after = "Exit status: 0 every check passed, 1 a check failed, 2 an error.\n");
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    if (c->only && check_only(c->only))
        return 2;
    if (c->threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        c->threads = n > 0 ? (int)n : 1;
    }
    return -1;
}

/* The input file the spec names (relative to its folder; NULL: none) can be
 * read: a missing one is an error of the spec (exit 2), found before any work. */
static int check_input(const runctx *c, const xc_runspec *s, const char *file)
{
    char path[4096];
    xc_error e;
    if (!file)
        return 0;
    if (xc_path_under(path, sizeof path, c->datasets, file, &e))
        return xc_cli_fail("run", &e);
    if (access(path, R_OK))
        return xc_cli_failf("run", "%s: input file %s: %s", s->source, path, strerror(errno));
    return 0;
}

/* Every input file of the spec, by check_input; the exit code (0: go on). */
static int check_inputs(const runctx *c, const xc_runspec *s)
{
    int rc = 0;
    for (size_t i = 0; i < s->nreal && !rc; i++)
        rc = check_input(c, s, s->real[i].file);
    for (size_t i = 0; i < s->nper && !rc; i++)
        rc = check_input(c, s, s->per[i].fft);
    for (size_t i = 0; i < s->nacc && !rc; i++)
        if (!(rc = check_input(c, s, s->acc[i].fft)))
            rc = check_input(c, s, s->acc[i].accelsearch);
    return rc;
}

/* Every observation of the spec, in its order. */
static void run_spec(runctx *c, const xc_runspec *s)
{
    for (size_t i = 0; i < s->nsyn && !c->vd.fatal; i++)
        run_synthetic(c, &s->syn[i]);
    for (size_t i = 0; i < s->nreal && !c->vd.fatal; i++)
        run_real(c, &s->real[i]);
    for (size_t i = 0; i < s->nper && !c->vd.fatal; i++)
        run_periodicity(c, &s->per[i]);
    for (size_t i = 0; i < s->nacc && !c->vd.fatal; i++)
        run_accel(c, &s->acc[i]);
    xc_vd_emit(&c->vd);
}

/* summary.json's numbers and the spec. */
static void summarise(runctx *c, const char *spec, double secs)
{
    xc_vd_number(&c->vd, "seconds", secs);
    xc_vd_number(&c->vd, "checks", (double)c->vd.rows.n);
    xc_vd_number(&c->vd, "failed", (double)c->vd.rows.nfail);
    xc_vd_json(&c->vd, "spec", json_string(spec));
    xc_vd_json(&c->vd, "command_line", json_string(xc_cli_cmdline()));
}

int xc_cmd_run(const xc_cmd *self, int argc, char **argv)
{
    const char *spec = "datasets/default-run.json", *outdir = NULL;
    runctx c;
    memset(&c, 0, sizeof c);
    xc_vd_init(&c.vd);
    int keep = 0;
    const char *junit = NULL;
    int rc = parse(self, &c, argc, argv, &spec, &outdir, &keep, &junit);
    if (rc >= 0)
        return rc;
    if (junit && (rc = xc_cli_writable("run", "-junit", junit)))
        return rc;
    c.keep = keep;
    xc_error e;
    xc_error_clear(&e);
    xc_runspec s;
    if (xc_runspec_load(&s, spec, &e))
        return xc_cli_fail("run", &e);
    const char *slash = strrchr(spec, '/');
    c.cv = xc_convention_get(s.convention);
    xc_status st = xc_pathf(c.datasets, sizeof c.datasets, &e, "%.*s", slash ? (int)(slash - spec) : 1,
                            slash ? spec : ".");
    if (!st)
        st = outdir ? xc_pathf(c.dir, sizeof c.dir, &e, "%s", outdir)
                    : xc_report_run_dir(c.dir, sizeof c.dir, "runs", time(NULL), &e);
    if (!st)
        st = xc_pathf(c.work, sizeof c.work, &e, "%s/work", c.dir);
    if (!st && (rc = check_inputs(&c, &s))) {
        xc_runspec_free(&s);
        return rc;
    }
    if (st || xc_mkdirs(c.work, &e) || xc_report_new(&c.vd.rep, "crosscheck: dedispersion cross-check", &e)) {
        xc_runspec_free(&s);
        return xc_cli_fail("run", &e);
    }
    c.vd.lines = c.quiet ? NULL : stdout;   /* the table, a row as it comes */
    c.vd.style = XC_VD_LINE_IMPL;
    double t0 = xc_now();
    char line[1600];
    xc_fmt(line, sizeof line, "spec %s; convention %s (k_DM %.9g s MHz^2 cm^3/pc, %s, highest channel as "
            "reference, output scaling %s); %d threads", spec, c.cv->name, c.cv->kdm,
            xc_rounding_name(c.cv->rounding), xc_scaling_name(c.cv->scaling), c.threads);
    xc_vd_text(&c.vd, line);
    run_spec(&c, &s);
    double secs = xc_now() - t0;
    summarise(&c, spec, secs);
    xc_vd_table(&c.vd);
    st = c.vd.fatal ? XC_OK : xc_report_write(c.vd.rep, c.dir, &e);
    xc_vd_note(&c.vd, st, &e);
    xc_vd_junit(&c.vd, "crosscheck.run", secs, junit);   /* one test case per check, for CI */
    printf("\n%zu checks, %zu failed, %.1f s; report: %s/index.html\n", c.vd.rows.n, c.vd.rows.nfail, secs, c.dir);
    if (!keep && xc_rmtree(c.work, &e))
        fprintf(stderr, "crosscheck run: warning: %s\n", e.msg);
    if (c.vd.fatal)
        fprintf(stderr, "crosscheck run: report %s/index.html: %s\n", c.dir, c.vd.fatal_err.msg);
    rc = xc_vd_exit_code(&c.vd);
    xc_report_free(c.vd.rep);
    xc_vd_free(&c.vd);
    xc_runspec_free(&s);
    return rc;
}
