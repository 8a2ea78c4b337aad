/* crosscheck gate: a correctness gate for CI.  The user's own kernels - a
 * plugin's implementation (-plugin LIB.so) or an external command (-cmd
 * 'TEMPLATE') - run the cases of a tier, and every output is judged against
 * the reference implementation with the tolerance class the user declares.
 * Exit status 0 when every check passes, 1 when one fails, 2 on an error
 * (bad options, unwritable work folder).  See cli/gate/gate.h for the pieces
 * and docs/ci.md for CI set-ups. */
#include "cli/gate/gate.h"
#include "core/dedisp/approx/xc_ddloss.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/base/cli.h"
#include "core/base/xc_atomic.h"
#include "cli/base/cli_opts.h"
#include "cli/base/plugin/cli_plugin.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_fs.h"
#include "core/base/xc_progress.h"

#define GATE_EXIT \
    "Exit status: 0 every check passed, 1 a check failed, 2 an error (bad option, unreadable\n" \
    "plugin, unwritable folder).  A plugin that crashes or hangs, and a command that exits\n" \
    "non-zero, overruns or writes nothing readable, are failed checks (exit 1).\n"
#define GATE_JUDGED \
    "The implementation judged is a plugin's (-plugin LIB.so, an option every command takes),\n" \
    "or an external command (-cmd).\n"

static xc_status opt_approx(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    gatectx *g = o->dest;
    double L;
    xc_status st = xc_cli_double(opt, val, &L, err);
    if (st)
        return st;
    if (!(L > 0 && L < 1))
        return xc_error_set(err, XC_EINVAL, "option %s: %s: the signal-loss bound must be a fraction in (0, 1)",
                            opt, val);
    g->cls = GATE_CLASS_APPROX;
    g->loss = L;
    return XC_OK;
}

/* -maxloss (default 0.2): an -approx above it could pass what the user refuses. */
static int check_maxloss(gatectx *g, const char *cmd)
{
    g->maxloss = g->maxloss > 0 ? g->maxloss : XC_DDLOSS_MAX;
    if (g->cls == GATE_CLASS_APPROX && g->loss > g->maxloss)
        return xc_cli_failf(cmd, "-approx %g: a loss above -maxloss %g cannot pass (raise -maxloss to accept it)",
                            g->loss, g->maxloss);
    return 0;
}

static xc_status opt_convention(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    gatectx *g = o->dest;
    const xc_convention *cv = xc_convention_get(val);
    if (!cv) {
        size_t n;
        const xc_convention *all = xc_convention_list(&n);
        char names[256] = "";
        for (size_t i = 0; i < n; i++)
            xc_fmt(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", all[i].name);
        return xc_error_set(err, XC_EINVAL, "option %s: '%s' is not a convention preset (%s)", opt, val, names);
    }
    g->cv = cv;
    return XC_OK;
}

/* ---- the end: table, files, exit code ------------------------------------------ */

static xc_status write_json(const gatectx *g, double secs, xc_error *err)
{
    json_t *rows = xc_vd_rows_json(&g->vd);
    json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:f, s:i, s:i, s:i, s:o}", "gate", g->what, "tier", g->tier_name,
                             "implementation", g->label, "convention", g->cv->name, "seconds", secs, "checks",
                             (int)g->vd.rows.n, "passed", (int)g->vd.rows.npass, "failed", (int)g->vd.rows.nfail, "rows", rows);
    if (g->cmd)
        json_object_set_new(root, "command", json_string(g->cmd));
    xc_status st = xc_cli_write_json(g->json, root, JSON_INDENT(2) | JSON_REAL_PRECISION(10), err);
    json_decref(root);
    return st;
}

/* The implementation judged (none with -cmd): named, or the one a plugin
 * registered.  0, or the exit code after a message. */
static int choose_impl(gatectx *g, int dd, int sp, const char *cmd)
{
    if (g->cmd) {
        g->label = "cmd";
        return 0;
    }
    xc_family fam = sp ? XC_FAMILY_SINGLEPULSE : dd ? XC_FAMILY_DEDISPERSE : XC_FAMILY_PULSCAN;
    const xc_registry *reg = xc_cli_registry();
    if (g->impl_name) {
        /* a name both search families have ("cpu") is -family's; one only
         * the other family has is that family's */
        xc_family other = g->family == XC_FAMILY_ACCEL ? XC_FAMILY_PULSCAN : XC_FAMILY_ACCEL;
        int mine = xc_registry_find(reg, (xc_family)g->family, g->impl_name) != NULL;
        if (!dd && !sp)
            fam = mine || !xc_registry_find(reg, other, g->impl_name) ? (xc_family)g->family : other;
        if (!(g->impl = xc_cli_impl(cmd, fam, g->impl_name)))
            return 2;
    } else {
        char names[512] = "";
        int n = 0;
        for (size_t i = 0; i < xc_registry_count(reg, fam); i++) {
            const xc_impl *e = xc_registry_at(reg, fam, i);
            if (e->caps & XC_CAP_RUNTIME) {
                xc_fmt(names + strlen(names), sizeof names - strlen(names), "%s%s", n ? ", " : "", e->name);
                g->impl = e;
                n++;
            }
        }
        if (n == 0)
            return xc_cli_failf(cmd, "nothing to judge: give -plugin LIB.so (a plugin with a %s "
                                "implementation), -impl NAME or -cmd 'TEMPLATE'", xc_family_name(fam));
        if (n > 1)
            return xc_cli_failf(cmd, "the plugins register %d %s implementations (%s): choose one with -impl", n,
                                xc_family_name(fam), names);
        char why[256];
        if (!xc_impl_available(g->impl, why, sizeof why))
            return xc_cli_failf(cmd, "%s: unavailable: %s", g->impl->name, why);
    }
    if (g->impl->caps & XC_CAP_REFERENCE)
        return xc_cli_failf(cmd, "-impl %s is a reference: the gate judges other implementations against it",
                            g->impl->name);
    g->label = g->impl->name;
    return 0;
}

/* The work folder: -work (made), or a temporary one.  0, or the exit code
 * after a message. */
static int make_work(gatectx *g, const char *work, const char *cmd)
{
    xc_error e;
    if (work) {
        if (xc_pathf(g->work, sizeof g->work, &e, "%s", work) || xc_mkdirs(g->work, &e))
            return xc_cli_fail(cmd, &e);
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    if (xc_pathf(g->work, sizeof g->work, &e, "%s/crosscheck-gate.XXXXXX", tmp && *tmp ? tmp : "/tmp"))
        return xc_cli_fail(cmd, &e);
    if (!mkdtemp(g->work))
        return xc_cli_failf(cmd, "%s: cannot create a temporary folder: %s", g->work, strerror(errno));
    g->own_work = 1;
    if (!g->keep)
        xc_atomic_live_dir(g->work);   /* a signal removes it with the temporaries */
    return 0;
}

/* One gate (kind: dedisperse, search or singlepulse); argv[0] is its name. */
enum { GATE_DD = 1, GATE_SEARCH, GATE_SP };
/* The options each gate refuses or needs together, and the single-pulse tolerances' defaults. */
static int check_opts(gatectx *g, int kind, int family, const char *cmd)
{
    const int dd = kind == GATE_DD, sp = kind == GATE_SP;
    int rc;
    if (!(g->timeout > 0))
        return xc_cli_failf(cmd, "-timeout: %g must be > 0", g->timeout);
    if (g->spinput && !sp)
        return xc_cli_failf(cmd, "-input is gate singlepulse's");
    if (g->spinput && !g->cmd)
        return xc_cli_failf(cmd, "-input dat: says what -cmd reads; give -cmd 'TEMPLATE'");
    if ((g->sp_snr_rtol >= 0 || g->sp_sample_tol >= 0) && !sp)
        return xc_cli_failf(cmd, "-snr_rtol and -sample_tol are gate singlepulse's");
    if ((g->sp_snr_rtol >= 0 || g->sp_sample_tol >= 0) && !g->cmd)
        return xc_cli_failf(cmd, "-snr_rtol and -sample_tol judge -cmd's candidates; give -cmd 'TEMPLATE'");
    g->sp_snr_rtol = g->sp_snr_rtol >= 0 ? g->sp_snr_rtol : 0.1;
    g->sp_sample_tol = g->sp_sample_tol >= 0 ? g->sp_sample_tol : 0.5;
    if (g->cmd && g->impl_name)
        return xc_cli_failf(cmd, "-cmd and -impl: judge either a command or an implementation, not both");
    if (g->cmd && !*g->cmd)
        return xc_cli_failf(cmd, "-cmd: empty command");
    if (!dd && g->format)
        return xc_cli_failf(cmd, "-format is gate dedisperse's (candidate files are recognised by name)");
    if (kind != GATE_SEARCH && family)
        return xc_cli_failf(cmd, "-family is gate search's");
    if (!dd && g->cls != GATE_CLASS_DEFAULT)
        return xc_cli_failf(cmd, "-exact, -float and -approx are gate dedisperse's");
    if ((rc = check_maxloss(g, cmd)) || (g->junit && (rc = xc_cli_writable(cmd, "-junit", g->junit))) ||
        (g->json && (rc = xc_cli_writable(cmd, "-json", g->json))))
        return rc;
    return 0;
}

static int gate_run(const xc_cmd *self, int kind, int argc, char **argv)
{
    gatectx g;
    memset(&g, 0, sizeof g);
    xc_vd_init(&g.vd);
    int dd = kind == GATE_DD, sp = kind == GATE_SP;
    g.what = dd ? "dedisperse" : sp ? "singlepulse" : "search";
    g.cv = xc_convention_get("crosscheck");
    g.timeout = 120;
    g.family = XC_FAMILY_ACCEL;
    g.sp_snr_rtol = g.sp_sample_tol = -1;
    const char *work = NULL;
    int family = 0;
    /* One table for both gates; each lists only its own options (help NULL:
     * taken, so that the other gate's option is refused by name). */
    const xc_opt opts[] = {
        XC_OPT_CHOICE("tier", &g.tier, "quick|standard|full", .arg = "T",
                      .help = "quick (seconds; what `make test` runs), standard or full", .def = "quick"),
        XC_OPT_STR("impl", &g.impl_name, .arg = "NAME",
                   .help = "which registered implementation to judge (gate search: of -family\n"
                           "when both search families have the name, as cpu; may be left out\n"
                           "when the plugins register exactly one of the family)"),
        XC_OPT_STR("cmd", &g.cmd, .arg = "'TEMPLATE'",
                   .help = "judge an external command instead: run through sh -c once per case,\n"
                           "with {placeholders} filled (above)"),
        XC_OPT_CHOICE("input", &g.spinput, "fil|dat", .arg = "I",
                      .help = sp ? "what -cmd reads: fil ({fil}) or PRESTO .dat/.inf per DM trial\n"
                                   "({dat}_DM<dm>.dat, <dm> as %.2f, as prepsubband writes them)"
                                 : NULL,
                      .def = "fil"),
        XC_OPT_NONNEG("snr_rtol", &g.sp_snr_rtol, .arg = "R",
                      .help = sp ? "-cmd: each burst's S/N within 1 +- R of the reference's" : NULL, .def = "0.1"),
        XC_OPT_NONNEG("sample_tol", &g.sp_sample_tol, .arg = "S",
                      .help = sp ? "-cmd: each burst's best box centred within S samples of the reference's"
                                 : NULL,
                      .def = "0.5"),
        XC_OPT_SET("exact", &g.cls, GATE_CLASS_EXACT, .help = dd ? "the tolerance class: bit for bit (above)" : NULL),
        XC_OPT_SET("float", &g.cls, GATE_CLASS_FLOAT,
                   .help = dd ? "the tolerance class: the float-summation bound (above)" : NULL),
        XC_OPT_CALL("approx", opt_approx, &g, .arg = "L",
                    .help = dd ? "the tolerance class: S/N at most a fraction L below the reference's" : NULL),
        XC_OPT_CALL("maxloss", xc_cli_opt_maxloss, &g.maxloss, .arg = "L", .def = "0.2",
                    .help = dd ? "the largest S/N-loss bound accepted (-approx, a declared one, the planes')" : NULL),
        XC_OPT_CALL("convention", opt_convention, &g, .arg = "P",
                    .help = "the conventions (k_DM, rounding, delay precision, output scaling) the\n"
                            "reference follows: crosscheck, sigproc, presto, dedisp or astroaccelerate;\n"
                            "when an output disagrees but matches another preset, the gate names it",
                    .def = "crosscheck"),
        XC_OPT_CHOICE("format", &g.format, GATE_FORMATS, .arg = "F",
                      .help = dd ? "what the command writes (auto: the first found of these):\n"
                                   "  plane  {out}.json + {out}.r0.npy (crosscheck dedisperse -o {out})\n"
                                   "  npy    {out}.npy, float32 [ndm][nsamp]\n"
                                   "  dat    {out}_DM<dm>.dat per trial, <dm> as %.2f (PRESTO prepsubband)\n"
                                   "  tim    {out}_DM<dm>.tim per trial (SIGPROC dedispersed time series)\n"
                                   "Sample 0 is the time of the highest channel; series longer than the\n"
                                   "reference's are compared over its length."
                                 : NULL,
                      .def = "auto"),
        XC_OPT_CHOICE("family", &family, "accel|pulscan", .arg = "F",
                      .help = kind == GATE_SEARCH ? "accel or pulscan: the reference searcher" : NULL, .def = "accel"),
        XC_OPT_STR("junit", &g.junit, .arg = "FILE.xml",
                   .help = "JUnit XML: one test case per check, failures with the measured value and\n"
                           "the bound"),
        XC_OPT_STR("json", &g.json, .arg = "FILE", .help = "every row as JSON"),
        XC_OPT_NONNEG("timeout", &g.timeout, .arg = "S", .help = "seconds one run of -cmd may take", .def = "120"),
        XC_OPT_STR("work", &work, .arg = "DIR",
                   .help = "keep the cases' inputs and outputs in DIR (default: a temporary folder,\n"
                           "removed at the end unless -keep)"),
        XC_OPT_FLAG("keep", &g.keep, .help = "keep the temporary folder (its path is printed)"),
        XC_OPT_FLAG("quiet", &g.quiet, .help = "the table at the end only (no rows as they come)"),
        XC_OPT_END};
    const xc_optspec spec_ = XC_CMD_SPEC(self, .after = GATE_EXIT), *spec = &spec_;
    int rc = xc_opts_parse(spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    static const char *const tiers[] = {"quick", "standard", "full"};
    g.tier_name = tiers[g.tier];
    g.family = family ? XC_FAMILY_PULSCAN : XC_FAMILY_ACCEL;
    if ((rc = check_opts(&g, kind, family, spec->cmd)))
        return rc;
    if ((rc = choose_impl(&g, dd, sp, spec->cmd)) || (rc = make_work(&g, work, spec->cmd)))
        return rc;
    g.vd.lines = g.quiet ? NULL : stdout;   /* the table, a row as it comes */
    g.vd.style = XC_VD_LINE_STATE;
    if (!g.quiet)
        fprintf(stderr, "crosscheck gate %s: tier %s, %s%s, convention %s, work folder %s\n", g.what, g.tier_name,
                g.cmd ? "command " : "implementation ", g.cmd ? g.cmd : g.label, g.cv->name, g.work);
    double t0 = xc_now();
    rc = dd ? gate_dedisperse(&g) : sp ? gate_singlepulse(&g) : gate_search(&g);
    double secs = xc_now() - t0;
    xc_vd_emit(&g.vd);
    xc_error e;
    if (rc == 0) {
        xc_vd_table_checks(&g.vd);
        printf("\n%zu checks, %zu failed, %.1f s\n", g.vd.rows.n, g.vd.rows.nfail, secs);
        char suite[64];
        xc_fmt(suite, sizeof suite, "crosscheck.gate.%s", g.what);
        xc_vd_junit(&g.vd, suite, secs, g.junit);
        if (g.json && !g.vd.fatal)
            xc_vd_note(&g.vd, write_json(&g, secs, &e), &e);
        rc = g.vd.fatal ? xc_cli_fail(spec->cmd, &g.vd.fatal_err) : xc_vd_exit_code(&g.vd);
    }
    xc_atomic_live_dir(NULL);
    if (g.own_work && !g.keep)
        xc_rmtree(g.work, NULL);
    else if (!g.quiet)
        fprintf(stderr, "crosscheck gate %s: inputs and outputs kept in %s\n", g.what, g.work);
    xc_vd_free(&g.vd);
    return rc;
}

static int gate_dd_cmd(const xc_cmd *self, int argc, char **argv)
{
    return gate_run(self, GATE_DD, argc, argv);
}

static int gate_ps_cmd(const xc_cmd *self, int argc, char **argv)
{
    return gate_run(self, GATE_SEARCH, argc, argv);
}

static int gate_sp_cmd(const xc_cmd *self, int argc, char **argv)
{
    return gate_run(self, GATE_SP, argc, argv);
}

int xc_cmd_gate(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self, .after = GATE_EXIT);
    static const xc_cmd gates[] = {
        {"gate dedisperse", gate_dd_cmd, "a dedisperser's planes against the reference's",
         "(-plugin LIB.so [-impl NAME] | -cmd 'TEMPLATE') [-tier T]\n"
         "                                  [-exact | -float | -approx L] [-format F] [-junit FILE.xml] ...",
         "For each case of the tier crosscheck synthesizes a SIGPROC filterbank with dispersed pulses\n"
         "(quick: 8-bit 64 channels, 4-bit 37 channels, float32 48 channels, and lone impulses one channel\n"
         "at a time), dedisperses it with the reference over the case's DM list, and judges the plugin's\n"
         "implementation or the command's output:\n"
         "  plane vs reference   every sample of every DM trial (class below); a failure names the first\n"
         "                       differing DM, trial and sample, the largest difference, and a convention\n"
         "                       preset the output matches instead, if one does\n"
         "  pulse N              each injected pulse found within one DM step of the reference's peak,\n"
         "                       S/N within 10% of the reference's (-approx: at most L below it)\n"
         "  lone-channel impulses  an impulse in one channel at a time: names the channels, DMs and\n"
         "                       samples where the output puts an impulse elsewhere than the reference\n"
         "  conformance: suite   (standard and full, -plugin/-impl only) the conformance suite the\n"
         "                       built-in implementations pass: hand-worked cases, linearity, shifts,\n"
         "                       every nbits and convention preset, kill masks, gulps\n"
         "Tolerance class: -exact (bit for bit, every input), -float (within the float-summation bound\n"
         "N*2^-24*max|ref|, N = channels, on every input), -approx L (no sample-by-sample check: the\n"
         "pulses' S/N at most a fraction L below the reference's).  Default: a plugin's declared class\n"
         "(its descriptor's tolerance), -float for -cmd.\n\n"
         "Placeholders of -cmd (a case's files are in its own folder {dir}):\n"
         "  {in}      the filterbank (SIGPROC .fil)       {out}    the output prefix (see -format)\n"
         "  {dmlist}  the DM trials, one a line (text)    {dmjson} the same as JSON {\"dms\": [...], ...}\n"
         "  {dm_lo} {dm_hi} first and last trial DM       {dm_end} {dm_hi} + {dm_step} (range end, excluded)\n"
         "  {dm_step} {ndm}  spacing and count            {nbits} {nchans} {nsamp}\n"
         "  {tsamp} (s)  {tsamp_us}  {fch1} {foff} (MHz)  {case} the case's name, {dir} its folder\n"
         "  {{ and }} are literal braces.\n" GATE_JUDGED},
        {"gate search", gate_ps_cmd, "a periodicity search's candidates against the truth and the reference's",
         "-cmd 'TEMPLATE' [-tier T] [-family accel|pulscan] [-junit FILE.xml] ...\n"
         "       crosscheck gate search -plugin LIB.so [-impl NAME] ...   (a Pulscan searcher plugin)",
         "For each case of the tier crosscheck synthesizes a dedispersed series of a pulsar (PRESTO .dat\n"
         "+ .inf, and its .fft) with a truth file, searches it with the reference searcher of -family\n"
         "(accel: the matched-filter accel search [default]; pulscan: the boxcar search), runs the command\n"
         "and reads its candidates in any format `compare cands` reads (our CSV, Pulscan .pulscand, PRESTO\n"
         "_ACCEL_), chosen by the file name the command writes.  Checks:\n"
         "  recovers truth r, z   the fundamental detected: a candidate with sigma > 6 within 1% of\n"
         "                        the pulsar's frequency, r within 2 bins and z within 4 of the truth\n"
         "                        (signed with -family accel: a matched filter knows the drift's sign)\n"
         "  r and f_hz agree      every candidate's r and frequency columns agree at the case's T\n"
         "                        within 0.1 bin (the truth is judged on both)\n"
         "  pure noise at sigma 0 vs reference   (-plugin/-impl) pure noise searched at sigma 0: the\n"
         "                        raw peaks (pulscan) or candidates (accel) as the reference's, one for one\n"
         "  finds the reference's strongest candidates   each of the reference's candidates with sigma\n"
         "                        above the case's cut (the pulsar and its harmonics) has a counterpart\n"
         "                        within 1 bin in r and 4 in z (any harmonic count)\n"
         "Placeholders of -cmd: {fft} the spectrum (.fft, .inf beside it), {dat} the series (.dat),\n"
         "  {inf}, {root} the files' path without suffix, {out} the candidate file to write (name it\n"
         "  in the command: {out}.csv, {out}.pulscand or {root}_ACCEL_{zmax}), {zmax}, {numharm},\n"
         "  {sigma}, {nbins}, {tsamp} (s), {T} (s), {case}, {dir}.  The candidate file is looked for\n"
         "  as {out}.csv, {out}.pulscand, {out}_ACCEL_{zmax}, {root}_ACCEL_{zmax}, in that order.\n" GATE_JUDGED},
        {"gate singlepulse", gate_sp_cmd, "a single-pulse searcher through its family's conformance suite",
         "-plugin LIB.so [-impl NAME] [-junit FILE.xml] ...   (a single-pulse searcher plugin)\n"
         "       crosscheck gate singlepulse -cmd 'TEMPLATE' [-input fil|dat] [-junit FILE.xml] ...",
         "The single-pulse searcher (a plugin's, xc_plugin.h's xcp_spsearcher, or one named with -impl)\n"
         "searches the conformance suite's DM-time planes beside the reference, every preset (heimdall,\n"
         "presto, astroaccelerate); one check per case, every tier:\n"
         "  planted/PRESET-RxN    boxes of awkward widths (across block boundaries, at the row's end) on\n"
         "                        integer-valued planes: the candidate list identical to the reference's\n"
         "                        (sample, width, DM trial, members, begin/end), S/N bit for bit\n"
         "  noise-thr3/PRESET-RxN pure noise at threshold 3, where borderline boxes are many: the same\n"
         "  float/PRESET-9x1500   float planes: the same list, S/N within 4 n 2^-53 sum|x| / (s sqrt(w))\n"
         "  threads/1-vs-3        the same list with one thread and with three\n"
         "A failure names the case, the first candidate that differs and the reference's.\n\n"
         "With -cmd, an external searcher (PRESTO's single_pulse_search.py, Heimdall, your own) runs on\n"
         "synthetic filterbanks (64 channels x 8 bits, 1500..1248 MHz, 256 us, 8.192 s; DM trials 90..108\n"
         "step 2; boxes to 38.4 ms) and is judged against the truth and the reference search of the same\n"
         "file, presto preset:\n"
         "  sp-bursts: finds every burst   three bursts at DM 100 (1, 4, 10 ms): each found with its box\n"
         "                        centre within one width and DM within one step of the truth\n"
         "  sp-bursts: burst positions vs reference   each burst's best box centred within 0.5 sample\n"
         "                        of the reference's best at the same DM trial (-sample_tol)\n"
         "  sp-bursts: burst S/N vs reference   that S/N within 10% of the reference's (-snr_rtol)\n"
         "  sp-noise: events above S/N 4 on noise   both lists' candidates at or above 4 clustered\n"
         "                        alike (Heimdall's friends of friends): the count within 5 + 50% of\n"
         "                        the reference's\n"
         "Placeholders of -cmd: {fil} the filterbank; {dat} the series prefix ({dat}_DM<dm>.dat/.inf,\n"
         "  -input dat), also {root}; {out} the candidate prefix: {out}.csv, {out}.cand (Heimdall) or\n"
         "  {out}.singlepulse, else every {dat}_DM*.singlepulse (PRESTO's one file per series) is read;\n"
         "  {dmplan} (lo:hi:step:1), {dmlo} {dmhi} {dmstep}, {threshold}, {maxwidth_s}, {tsamp} (s),\n"
         "  {case}, {dir}.\n"},
    };
    return xc_subcmd_run(&spec, "gate", gates, sizeof gates / sizeof gates[0], argc, argv);
}
