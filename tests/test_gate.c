/* Plugins and `crosscheck gate` end to end: the example plugin
 * (examples/plugin-dedisp/) correct and with its planted bug, plugins that
 * crash, hang or were built for another ABI, external commands and each
 * output format of -cmd (plane, npy, dat, tim), JUnit output, and the CI
 * script docs/ci.md shows (scripts/ci-gate-example.sh). */
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/io/xc_filterbank.h"
#include "core/io/xc_npy.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/io/xc_presto.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

static char bin[PATH_MAX], plugins[PATH_MAX], root[PATH_MAX];

static int skip_no_bin(char *why, size_t n)
{
    if (xc_fx_skip_no_bin(why, n))
        return 1;
    if (!realpath(xc_fx_bin(), bin)) {
        snprintf(why, n, "%s: cannot resolve", xc_fx_bin());
        return 1;
    }
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", bin);
    snprintf(plugins, sizeof plugins, "%s/plugins", dirname(tmp));
    /* The plugins are built with the binary (make test-only): missing ones
     * fail the cases, they are not a reason to skip. */
    if (!getcwd(root, sizeof root)) {
        snprintf(why, n, "getcwd failed");
        return 1;
    }
    return 0;
}

/* Runs a shell command line (printf-formatted), stdout and stderr into out;
 * returns the exit status (-1 if it did not exit). */
__attribute__((format(printf, 3, 4))) static int sh(char *out, size_t n, const char *fmt, ...)
{
    char cmd[8 * PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    CU_ASSERT_FATAL(len > 0 && (size_t)len < sizeof cmd - 8);
    strcat(cmd, " 2>&1");
    FILE *p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    size_t got = 0;
    if (out && n) {
        size_t r;
        while (got + 1 < n && (r = fread(out + got, 1, n - 1 - got, p)) > 0)
            got += r;
        out[got] = 0;
        /* a failed row's message, wrapped under the verdict table's row
         * (cli_vdtable.c: continuation lines indented 16), joined again */
        char *w = out;
        for (const char *q = out; *q; q++) {
            if (q[0] == '\n' && !strncmp(q + 1, "                ", 16) && q[17] != ' ') {
                *w++ = ' ';
                q += 16;
            } else {
                *w++ = *q;
            }
        }
        *w = 0;
    }
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0)
        ;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The number after `key="` in the JUnit file's first <testsuite ...>. */
static long junit_count(const char *xml, const char *key)
{
    const char *s = strstr(xml, "<testsuite ");
    char k[64];
    snprintf(k, sizeof k, " %s=\"", key);
    const char *v = s ? strstr(s, k) : NULL;
    return v ? strtol(v + strlen(k), NULL, 10) : -1;
}

/* The <testcase> element named name (up to its end tag), or "" if none. */
static void junit_case(const char *xml, const char *name, char *out, size_t n)
{
    char k[512];
    snprintf(k, sizeof k, "name=\"%s\"", name);
    const char *s = strstr(xml, k), *e = s ? strstr(s, "</testcase>") : NULL;
    while (s && s > xml && strncmp(s, "<testcase", 9))   /* from the element's start: its classname */
        s--;
    out[0] = 0;
    if (s && e)
        snprintf(out, n, "%.*s", (int)(e - s), s);
}

static char buf[1 << 16];
static char xml[1 << 17];

/* The JUnit test case name holds want (fail: with a <failure>, else
 * without); prints what it holds when not. */
static void expect_case(const char *name, int fail, const char *want)
{
    char tc[8192];
    junit_case(xml, name, tc, sizeof tc);
    int ok = tc[0] && !strstr(tc, "<failure") == !fail && (!want || strstr(tc, want));
    if (!ok)
        printf("\n  %s: observed %s\n  expected %s%s%s\n", name, tc[0] ? tc : "(no such test case)",
               fail ? "a failure" : "a pass", want ? " with " : "", want ? want : "");
    CU_ASSERT_TRUE(ok);
}

/* ---- docs/ci.md's script, run once per variant ---------------------------

   scripts/ci-gate-example.sh, with the example plugin
   (examples/plugin-dedisp/dedisp.c) as "your plugin" and crosscheck's own
   dedisperser as "your tool", runs the very gates some cases below judge:
   step 3 the example plugin's quick tier (-junit gate-plugin.xml), step 4
   the -cmd quick tier (gate-cmd.xml); compiled with -DPLANTED_BUG, step 3
   is the buggy plugin's quick tier and the script stops there.  Each
   variant runs once, in a fresh folder of its own, whichever case needs it
   first; the cases read its output and JUnit files. */
typedef struct {
    int done, rc;
    char dir[PATH_MAX];
    char out[1 << 16];
} ci_run;
static ci_run ci_runs[2];

static const ci_run *ci_script(int bug)
{
    ci_run *c = &ci_runs[bug];
    if (c->done)
        return c;
    c->done = 1;
    snprintf(c->dir, sizeof c->dir, "%s", xc_fx_tmp(bug ? "ci-bug" : "ci"));
    /* With the crosscheck `make install` staged (make test sets XC_STAGE),
     * as a CI job has it: the installed program, the plugin built with
     * pkg-config's flags against the installed header alone; else the
     * source tree's; without the test's gate cache. */
    const char *stage = getenv("XC_STAGE");
    char env[3 * PATH_MAX + 128];
    if (stage && *stage)
        snprintf(env, sizeof env, "export PKG_CONFIG_PATH='%s/lib/pkgconfig'; %s CROSSCHECK='%s/bin/crosscheck'", stage,
                 bug ? "export XC_CFLAGS=\"$(pkg-config --cflags crosscheck) -DPLANTED_BUG\";" : "", stage);
    else
        snprintf(env, sizeof env, "export XC_CFLAGS='-I%s/include/crosscheck%s'; CROSSCHECK='%s'", root,
                 bug ? " -DPLANTED_BUG" : "", bin);
    c->rc = sh(c->out, sizeof c->out,
               "unset CROSSCHECK_GATE_CACHE; mkdir -p '%s' && cd '%s' && %s "
               "PLUGIN_SRC='%s/examples/plugin-dedisp/dedisp.c' DEDISP_CMD=\"'%s' dedisperse -i {in} -o {out} "
               "-impl cpu -dmplan {dm_lo}:{dm_end}:{dm_step}:1\" sh '%s/scripts/ci-gate-example.sh'",
               c->dir, c->dir, env, root, bin, root);
    return c;
}

/* The run's JUnit file name into xml. */
static void ci_junit(const ci_run *c, const char *name)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", c->dir, name);
    xc_fx_slurp_into(p, xml, sizeof xml);
}

/* The docs script's run (bug: with the planted bug) ended with exit bug, its
 * JUnit file name (in xml) holds the 9 quick checks. */
static const ci_run *ci_expect(int bug, const char *name)
{
    const ci_run *c = ci_script(bug);
    if (c->rc != bug)
        printf("\n%s\n", c->out);
    CU_ASSERT_EQUAL(c->rc, bug);
    ci_junit(c, name);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 9, 0);
    return c;
}

XC_TEST_IF(test_list_plugin, "list -plugin shows the plugin's implementation (caps runtime)", skip_no_bin)
{
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' list -plugin '%s/libxcdd_ok.so'", bin, plugins), 0);
    const char *row = strstr(buf, "mydedisp ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    const char *eol = strchr(row, '\n');
    CU_ASSERT_PTR_NOT_NULL(strstr(row, "runtime"));
    CU_ASSERT_TRUE(strstr(row, "runtime") < eol);
    /* and CROSSCHECK_PLUGINS, as a colon list with the buggy one */
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "CROSSCHECK_PLUGINS='%s/libxcdd_ok.so:%s/libxcdd_bug.so' '%s' list -json",
                       plugins, plugins, bin), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"mydedisp\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"mydedisp-buggy\""));
}

XC_TEST_IF(test_gate_correct_plugin, "gate dedisperse: the correct example plugin passes every check", skip_no_bin)
{
    /* docs/ci.md's script, step 3: the plugin built from the example's source, as a user builds it.  The
     * script (set -e) reaching step 4, which writes gate-cmd.xml, is step 3's exit status 0. */
    const ci_run *c = ci_script(0);
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/gate-cmd.xml", c->dir);
    if (!xc_fx_exists(p))
        printf("\n%s\n", c->out);
    CU_ASSERT_TRUE(xc_fx_exists(p));
    ci_junit(c, "gate-plugin.xml");
    /* 4 cases: 3 plane rows, 4 pulses, impulses plane + per channel */
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 9, 0);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    CU_ASSERT_PTR_NULL(strstr(xml, "<failure"));
    expect_case("impulses-64ch: lone-channel impulses", 0, "64 channels");
}

XC_TEST_IF(test_gate_buggy_plugin, "gate dedisperse: the planted rounding bug fails, located by DM, sample, channel",
           skip_no_bin)
{
    /* docs/ci.md's script with -DPLANTED_BUG: step 3 fails (exit 1) and the script stops there */
    ci_expect(1, "gate-plugin.xml");
    /* the planes (every case) and the impulses fail; the pulses, found one DM
     * step off at most, pass */
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 5, 0);
    expect_case("8bit-64ch: plane vs reference", 1, "first at DM 2 (trial 1), sample 0");
    expect_case("8bit-64ch: plane vs reference", 1, "measured ");
    expect_case("8bit-64ch: plane vs reference", 1, "bound 0");
    expect_case("8bit-64ch: pulse 0 (DM 60 at 0.450 s)", 0, NULL);
    /* The channel: truncating a delay of 0.5 samples or more moves the
     * impulse one sample; channel 1 (1498 MHz) is the first, at DM 28. */
    expect_case("impulses-64ch: lone-channel impulses", 1, "first: channel 1 (1498 MHz) at DM 28 (trial 7)");
    expect_case("impulses-64ch: lone-channel impulses", 1,
                "(delay 1 samples), the output&apos;s peak is at sample 543 (delay 0)");
}

XC_TEST_IF(test_gate_isolation, "a plugin that crashes or hangs is a failed check, never the end of the gate",
           skip_no_bin)
{
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -plugin '%s/libxcdd_crash.so' -quiet", bin, plugins), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "crashed in its dedispersion: killed by signal 11"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "4 checks, 4 failed"));   /* every case reached, each a failed row */
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "CROSSCHECK_PLUGIN_TIMEOUT=0.1 '%s' gate dedisperse -plugin '%s/libxcdd_hang.so' "
                       "-quiet", bin, plugins), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "did not finish its dedispersion within 0.1 s"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "4 checks, 4 failed"));
}

XC_TEST_IF(test_run_plugin_junit, "run -plugin -impl judges the plugin like a built-in one; -junit on run", skip_no_bin)
{
    const char *spec = xc_fx_tmp("tiny.json"), *j = xc_fx_tmp("run.xml"), *out = xc_fx_tmp("run");
    /* two ranges, downsample 2 in the second: the job's whole plan goes to the plugin */
    xc_fx_write_text(spec, "{\"description\": \"tiny\", \"convention\": \"crosscheck\", \"synthetic\": [{\"name\": "
                           "\"tiny-8bit\", \"dmplan\": \"0:100:1:1,100:200:2:2\", \"synth\": {\"nchans\": 64, "
                           "\"nbits\": 8, \"tsamp_us\": 128, \"tobs_s\": 1.0, \"fch1\": 1500.0, \"foff\": -2.0, "
                           "\"seed\": 3, \"pulses\": [{\"t_s\": 0.5, \"dm\": 50.0, \"width_ms\": 2.0, \"snr\": "
                           "20.0}]}}]}\n");
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' run -spec '%s' -plugin '%s/libxcdd_ok.so' -impl mydedisp -out '%s' "
                       "-junit '%s' -quiet", bin, spec, plugins, out, j), 0);
    xc_fx_slurp_into(j, xml, sizeof xml);
    expect_case("tiny-8bit: plane vs reference", 0, "crosscheck.run.mydedisp");
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' run -spec '%s' -plugin '%s/libxcdd_bug.so' -impl mydedisp-buggy -out '%s' "
                       "-junit '%s' -quiet", bin, spec, plugins, out, j), 1);
    xc_fx_slurp_into(j, xml, sizeof xml);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 1, 0);
    expect_case("tiny-8bit: plane vs reference", 1, "crosscheck.run.mydedisp-buggy");
}

XC_TEST_IF(test_plugin_refused, "a plugin of another ABI major version, or no plugin at all, is refused (exit 2)",
           skip_no_bin)
{
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' list -plugin '%s/libxcdd_abi.so'", bin, plugins), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "built against plugin ABI 1.0; this crosscheck has plugin ABI 2.2"));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' list -plugin '%s'", bin, bin), 2);   /* an executable, not a library */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "cannot be loaded"));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' list -plugin", bin), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "-plugin needs a value"));
    /* gate with nothing to judge, and with two plugin implementations */
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -quiet", bin), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "nothing to judge"));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -plugin '%s/libxcdd_ok.so' -plugin '%s/libxcdd_bug.so'",
                       bin, plugins, plugins), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "choose one with -impl"));
}

/* The single-pulse example (examples/plugin-dedisp/sp.c) as a user gates it
 * (docs/ci.md): listed in its family, through gate singlepulse (the
 * conformance suite, one row per case) clean and with its planted bug, and
 * through `crosscheck singlepulse -plugin -impl` on a filterbank, where its
 * list is the cpu searcher's byte for byte (integer input: both the
 * reference's exactly). */
XC_TEST_IF(test_gate_singlepulse_plugin, "gate singlepulse: the single-pulse example passes and its planted bug "
           "fails (named by case)", skip_no_bin)
{
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' list -json -plugin '%s/libxcsp_ok.so'", bin, plugins), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"family\": \"singlepulse\",\n    \"name\": \"mysp\","));
    const char *j = xc_fx_tmp("gate-sp.xml");
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate singlepulse -plugin '%s/libxcsp_ok.so' -junit '%s' -quiet", bin,
                       plugins, j), 0);
    xc_fx_slurp_into(j, xml, sizeof xml);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 23, 0);   /* the class, 18 planted/noise, 3 float, threads */
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    expect_case("conformance: noise-thr3/presto-13x2003", 0, "116 candidates, as the reference");
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate singlepulse -plugin '%s/libxcsp_bug.so' -junit '%s' -quiet", bin,
                       plugins, j), 1);
    xc_fx_slurp_into(j, xml, sizeof xml);
    CU_ASSERT(junit_count(xml, "failures") >= 10);
    /* every box one sample short: a planted box falls below the threshold */
    expect_case("conformance: planted/heimdall-1x997", 1, "expected 3 candidates (the reference");
    expect_case("conformance: threads/1-vs-3", 0, NULL);   /* the bug is deterministic */
    /* the command a person runs: the same candidates as the cpu searcher */
    const char *fil = xc_fx_tmp("sp.fil"), *a = xc_fx_tmp("sp-plugin.csv"), *b = xc_fx_tmp("sp-cpu.csv");
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' synth -o '%s' -nchans 32 -nbits 8 -tsamp 256 -tobs 1 -fch1 1500 "
                       "-foff -4 -seed 5 -pulse 0.5,60,3,15", bin, fil), 0);
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' singlepulse -i '%s' -dmplan 0:100:2:1 -plugin '%s/libxcsp_ok.so' "
                       "-impl mysp -o '%s'", bin, fil, plugins, a), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "mysp, preset heimdall"));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' singlepulse -i '%s' -dmplan 0:100:2:1 -impl cpu -o '%s'", bin, fil, b),
                    0);
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "cmp '%s' '%s'", a, b), 0);
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "grep -c . '%s'", a), 0);   /* the header and at least the burst */
    CU_ASSERT(atoi(buf) >= 2);
}

/* `ENV crosscheck gate singlepulse -quiet OPTS -junit J -cmd "CMD"`: its
 * exit status; its output in buf, its JUnit file in xml. */
static int gate_sp_cmd(const char *env, const char *opts, const char *j, const char *cmd)
{
    int rc = sh(buf, sizeof buf, "%s '%s' gate singlepulse -quiet %s -junit '%s' -cmd \"%s\"", env, bin, opts, j, cmd);
    xc_fx_slurp_into(j, xml, sizeof xml);
    return rc;
}

/* gate singlepulse -cmd with a tool that needs no python
 * (tests/peers/single-pulse/xc-singlepulse.sh: crosscheck singlepulse
 * itself, presto preset, CSV): every row passes, the bursts' boxes at the
 * reference's to the sample (0.5-sample bound, the default); the same tool
 * writing every candidate one sample late and the bursts' S/N times 0.85
 * fails the positions row by +1.00 sample at -sample_tol 0.5 and the S/N
 * row (1 +- 0.1), in JUnit too, and passes with -sample_tol 1 -snr_rtol 0.2:
 * the slip is exactly 1 sample, the bound inclusive. */
XC_TEST_IF(test_gate_singlepulse_cmd, "gate singlepulse -cmd: crosscheck's own search passes; one sample late fails",
           skip_no_bin)
{
    const char *j = xc_fx_tmp("gate-sp-cmd.xml");
    const char *tmpl = "sh '%s/tests/peers/single-pulse/xc-singlepulse.sh' '%s' {fil} {dmplan} {maxwidth_s} "
                       "{threshold} {out}.csv";
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, tmpl, root, bin);
    CU_ASSERT_EQUAL(gate_sp_cmd("XC_SHIFT=0", "", j, cmd), 0);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 4, 0);   /* found, positions, S/N; noise events */
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    expect_case("sp-bursts: finds every burst", 0, "3 of 3 found");
    expect_case("sp-bursts: burst positions vs reference", 0, "+0.00 (DM 100.00), +0.00 (DM 100.00)");
    expect_case("sp-bursts: burst positions vs reference", 0, "centre within 0.5 sample of the reference&apos;s");
    expect_case("sp-noise: events above S/N 4 on noise", 0, NULL);
    /* every candidate one sample late and the bursts' S/N times 0.85: the
     * positions row fails at half a sample and the S/N row by its default
     * bound, the rest passes; -sample_tol 1 and -snr_rtol 0.2 take both
     * (the centres are compared in samples, so the slip is 1 exactly, not
     * a round-off above it) and say so */
    CU_ASSERT_EQUAL(gate_sp_cmd("XC_SHIFT=1 XC_SNR_SCALE=0.85", "-sample_tol 0.5", j, cmd), 1);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 2, 0);
    expect_case("sp-bursts: burst positions vs reference", 1, "+1.00 (DM 100.00)");
    expect_case("sp-bursts: burst positions vs reference", 1, "centre within 0.5 sample of the reference&apos;s");
    expect_case("sp-bursts: burst S/N vs reference (presto preset)", 1, "worst ratio 0.850");
    expect_case("sp-bursts: burst S/N vs reference (presto preset)", 1, "each ratio within 1 +- 0.1");
    expect_case("sp-bursts: finds every burst", 0, "3 of 3 found");
    CU_ASSERT_EQUAL(gate_sp_cmd("XC_SHIFT=1 XC_SNR_SCALE=0.85", "-sample_tol 1 -snr_rtol 0.2", j, cmd), 0);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    expect_case("sp-bursts: burst positions vs reference", 0, "+1.00 (DM 100.00), +1.00 (DM 100.00), +1.00");
    expect_case("sp-bursts: burst positions vs reference", 0, "centre within 1 sample of the reference&apos;s");
    expect_case("sp-bursts: burst S/N vs reference (presto preset)", 0, "each ratio within 1 +- 0.2");
    /* the tolerances judge -cmd's candidates only */
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate singlepulse -snr_rtol 0.2 -impl cpu", bin), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "-snr_rtol and -sample_tol judge -cmd's candidates"));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate search -sample_tol 1 -cmd true", bin), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "-snr_rtol and -sample_tol are gate singlepulse's"));
    /* -input belongs to -cmd */
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate singlepulse -input dat -impl cpu", bin), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "-input dat: says what -cmd reads"));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate search -input dat -cmd true", bin), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "-input is gate singlepulse's"));
}

/* The PRESTO stand-in (tests/peers/single-pulse/single_pulse_search.py,
 * SP_STANDIN=search: the presto preset's search in numpy on the .dat series
 * -input dat writes) through the gate: it passes; planted one box width
 * late (SP_SHIFT=width) it fails the positions row.  Skipped without a
 * python that imports numpy. */
static char numpy_py[PATH_MAX];
static int skip_no_numpy(char *why, size_t n)
{
    if (skip_no_bin(why, n))
        return 1;
    char out[PATH_MAX] = "";
    FILE *p = popen("for p in ${PYTHON:-python3 /usr/bin/python3}; do \"$p\" -c 'import numpy' 2>/dev/null && "
                    "command -v \"$p\" && break; done", "r");
    if (p) {
        if (!fgets(out, sizeof out, p))
            out[0] = 0;
        pclose(p);
    }
    out[strcspn(out, "\n")] = 0;
    if (!out[0]) {
        snprintf(why, n, "no python that imports numpy (set PYTHON; make deps installs python3-numpy)");
        return 1;
    }
    snprintf(numpy_py, sizeof numpy_py, "%s", out);
    return 0;
}

XC_TEST_IF(test_gate_singlepulse_presto_standin, "gate singlepulse -cmd -input dat: the PRESTO stand-in passes; "
           "one width late fails", skip_no_numpy)
{
    const char *j = xc_fx_tmp("gate-sp-presto.xml");
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/peers/single-pulse/single_pulse_search.py' -m {maxwidth_s} "
             "-t {threshold} {dat}_DM*.dat", numpy_py, root);
    CU_ASSERT_EQUAL(gate_sp_cmd("SP_STANDIN=search", "-input dat", j, cmd), 0);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 4, 0);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    expect_case("sp-bursts: finds every burst", 0, "3 of 3 found");
    CU_ASSERT_EQUAL(gate_sp_cmd("SP_STANDIN=search SP_SHIFT=width", "-input dat", j, cmd), 1);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 1, 0);
    expect_case("sp-bursts: burst positions vs reference", 1, "+6.00 (DM 100.00)");
}

XC_TEST_IF(test_gate_cmd, "gate dedisperse -cmd: a tool that agrees passes; one on another convention is named",
           skip_no_bin)
{
    /* docs/ci.md's script, step 4: crosscheck dedisperse -impl cpu as the -cmd, quick tier, -float (the
     * default class of -cmd) */
    ci_expect(0, "gate-cmd.xml");
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    /* the tool follows PRESTO's k_DM: the gate says so */
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -cmd \"'%s' dedisperse -i {in} -o {out} -impl cpu "
                       "-convention presto -dmplan {dm_lo}:{dm_end}:{dm_step}:1\" -quiet", bin, bin), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "it matches convention preset 'presto' instead"));
}

XC_TEST_IF(test_gate_cmd_faults, "gate -cmd: a failing command, no output, a bad placeholder", skip_no_bin)
{
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -cmd 'echo cannot open {in} >&2; exit 3' -quiet", bin), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "the command exited 3: cannot open "));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -cmd 'true' -quiet", bin), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "the command wrote none of"));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -cmd 'sleep 5' -timeout 0.2 -quiet", bin), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "did not finish within 0.2 s"));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -cmd 'x {input}' -quiet", bin), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "unknown placeholder {input}"));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -cmd 'x' -approx 1.5", bin), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "-approx: 1.5"));
}

XC_TEST_IF(test_gate_search, "gate search -cmd: candidates against truth and the reference", skip_no_bin)
{
    const char *j = xc_fx_tmp("search.xml");
    int rc = sh(buf, sizeof buf, "'%s' gate search -cmd \"'%s' accel -i {fft} -impl cpu -zmax {zmax} -numharm "
                "{numharm} -o {out}.csv\" -tier quick -junit '%s' -quiet", bin, bin, j);
    if (rc != 0)
        printf("\n%s\n", buf);
    CU_ASSERT_EQUAL(rc, 0);
    xc_fx_slurp_into(j, xml, sizeof xml);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 14, 0);   /* accel-psr 4, tone-drift and tone-harm 5 each */
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    /* accelsearch's own file format, read by name */
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate search -cmd \"'%s' accel -i {fft} -impl cpu -zmax {zmax} -numharm "
                       "{numharm} -preset presto -format accel -o {root}\" -quiet", bin, bin), 0);
    /* a search that finds nothing */
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate search -cmd \"printf 'r,f_hz,z,w,width,numharm,power,dof,logp,"
                       "sigma,fdot_hz_s,accel_m_s2,ntrials\\n' > {out}.csv\" -quiet", bin), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "fundamental not found above sigma 6"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "0 of 1 found"));
}

XC_TEST_IF(test_docs_ci_example, "docs/ci.md's gate script, as the document shows it, passes and fails as it should",
           skip_no_bin)
{
    /* The document holds the script verbatim. */
    size_t ns = 0, nd = 0;
    char *script = (char *)xc_fx_slurp("scripts/ci-gate-example.sh", &ns);
    char *doc = (char *)xc_fx_slurp("docs/ci.md", &nd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(script);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_PTR_NOT_NULL(strstr(doc, script));
    free(script);
    free(doc);
    /* Run it (ci_script: in a fresh folder, the example plugin as "your
     * plugin", crosscheck's own dedisperser as "your tool"). */
    const ci_run *c = ci_expect(0, "gate-plugin.xml");
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    ci_junit(c, "gate-cmd.xml");
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    /* The same script with the plugin's planted bug compiled in: the CI job fails. */
    c = ci_script(1);
    CU_ASSERT_EQUAL(c->rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(c->out, "mydedisp-buggy"));
}

/* ---- the -cmd output formats: this program as the user's tool --------------

   `test_gate --as-tool FORMAT PLANE.json OUT CASE [C=DEFECT ...]` turns
   crosscheck's own plane (from `crosscheck dedisperse -o X`) into what a
   user's tool would write: OUT.npy (float32 [ndm][nsamp]), one PRESTO
   OUT_DM<dm>.dat + .inf per trial, or one SIGPROC dedispersed OUT_DM<dm>.tim
   per trial (nchans 1, nbits 32).  CASE is the gate's {case}; each C=DEFECT
   plants a realistic slip in case C only, so one gate run shows the reader
   right on the clean cases and the slips caught, each named, on the others:
     shift    trial 1's series starts one sample late
     short    npy: the last trial left out; dat, tim: trial 2 one sample short
     wrongdm  trial 1's file named with its DM + 0.01 (dat, tim)
     shiftall every trial's series starts one sample late
     lateall  every trial's features one sample late (its series starts one early)
     half     every sample times 0.5
     plusone  trial 1, sample 5 one count high
     ulp      trial 1, sample 5 one float step (ulp) high: far inside the
              float-summation bound, a difference only bit for bit sees
     prestotail  PRESTO prepsubband's output (src/prepsubband.c, blocks of
              2400 spectra): data only in the first floor(N/2400) - 2 blocks
              of N input spectra, the rest of every series padding at the
              written data's average (0 when none is written) */
static char self[PATH_MAX];

static int as_tool(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: --as-tool npy|dat|tim PLANE.json OUT CASE [CASE=shift|short|wrongdm ...]\n");
        return 2;
    }
    const char *fmt = argv[0], *plane = argv[1], *out = argv[2], *cs = argv[3];
    int shift = 0, cut = 0, wrongdm = 0, plusone = 0, ulp = 0, shiftall = 0, lateall = 0, half = 0, tail = 0;
    for (int i = 4; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        size_t k = eq ? (size_t)(eq - argv[i]) : 0;
        if (!eq || strlen(cs) != k || strncmp(argv[i], cs, k))
            continue;
        shift |= !strcmp(eq + 1, "shift");
        cut |= !strcmp(eq + 1, "short");
        wrongdm |= !strcmp(eq + 1, "wrongdm");
        plusone |= !strcmp(eq + 1, "plusone");
        ulp |= !strcmp(eq + 1, "ulp");
        shiftall |= !strcmp(eq + 1, "shiftall");
        half |= !strcmp(eq + 1, "half");
        lateall |= !strcmp(eq + 1, "lateall");
        tail |= !strcmp(eq + 1, "prestotail");
    }
    int npy = !strcmp(fmt, "npy"), dat = !strcmp(fmt, "dat");
    if (!npy && !dat && strcmp(fmt, "tim")) {
        fprintf(stderr, "as-tool: unknown format %s\n", fmt);
        return 2;
    }
    xc_planefile pf;
    xc_error e;
    memset(&pf, 0, sizeof pf);
    if (xc_planefile_read(&pf, plane, &e)) {
        fprintf(stderr, "as-tool: %s\n", e.msg);
        return 3;
    }
    const xc_planerange *r = &pf.plane.r[0];
    const xc_dmrange *dr = &pf.plan.r[0];
    if (shift && r->ndm > 1 && r->nsamp > 1)
        memmove(r->data + r->nsamp, r->data + r->nsamp + 1, (r->nsamp - 1) * sizeof(float));
    for (size_t d = 0; shiftall && r->nsamp > 1 && d < r->ndm; d++)
        memmove(r->data + d * r->nsamp, r->data + d * r->nsamp + 1, (r->nsamp - 1) * sizeof(float));
    for (size_t d = 0; lateall && r->nsamp > 1 && d < r->ndm; d++)
        memmove(r->data + d * r->nsamp + 1, r->data + d * r->nsamp, (r->nsamp - 1) * sizeof(float));
    for (size_t i = 0; half && i < r->ndm * r->nsamp; i++)
        r->data[i] *= 0.5f;
    size_t blocks = (size_t)(pf.meta.nsamp_in / 2400), keep = blocks > 2 ? (blocks - 2) * 2400 : 0;
    keep = keep < r->nsamp ? keep : r->nsamp;
    for (size_t d = 0; tail && d < r->ndm; d++) {
        float *x = r->data + d * r->nsamp;
        double avg = 0;
        for (size_t i = 0; i < keep; i++)
            avg += x[i];
        for (size_t i = keep; i < r->nsamp; i++)
            x[i] = keep ? (float)(avg / (double)keep) : 0.0f;
    }
    if ((plusone || ulp) && r->ndm > 1 && r->nsamp > 5) {
        float *x = r->data + r->nsamp + 5;
        *x = plusone ? *x + 1.0f : nextafterf(*x, INFINITY);
    }
    int rc = 0;
    char path[PATH_MAX + 64] = "";
    if (npy) {
        snprintf(path, sizeof path, "%s.npy", out);
        rc = xc_npy_write_f32(path, r->data, r->ndm - (cut && r->ndm > 1), r->nsamp, &e) != XC_OK;
    }
    for (size_t d = 0; !rc && !npy && d < r->ndm; d++) {
        const float *x = r->data + d * r->nsamp;
        size_t n = r->nsamp - (cut && d == 2 && r->nsamp > 0);
        double dm = dr->dms[d] + (wrongdm && d == 1 ? 0.01 : 0);
        if (dat) {
            snprintf(path, sizeof path, "%s_DM%.2f.dat", out, dm);
            rc = xc_dat_write(path, x, n, &e) != XC_OK;
            xc_inf inf;
            xc_inf_init(&inf);
            inf.n = (double)n;
            inf.dt = pf.meta.tsamp;
            inf.dm = dm;
            snprintf(path, sizeof path, "%s_DM%.2f.inf", out, dm);
            rc = rc || xc_inf_write(&inf, path, &e) != XC_OK;
        } else {
            snprintf(path, sizeof path, "%s_DM%.2f.tim", out, dm);
            xc_fbheader h;
            xc_fbheader_init(&h);
            xc_fbheader_tim(&h, dm);
            h.tsamp = pf.meta.tsamp;
            h.fch1 = pf.meta.fch1;
            h.foff = pf.meta.foff;
            const xc_fbkey keys[] = {XC_FB_TSAMP, XC_FB_FCH1, XC_FB_FOFF, XC_FB_TSTART};
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                xc_fbheader_set(&h, keys[k]);
            FILE *fp = fopen(path, "wb");
            if (!fp)
                xc_error_set(&e, XC_EIO, "cannot write");
            rc = !fp || xc_fbheader_write(&h, fp, path, &e) != XC_OK || fwrite(x, sizeof *x, n, fp) != n;
            if (fp)
                rc |= fclose(fp) != 0;
            xc_fbheader_free(&h);
        }
    }
    if (rc)
        fprintf(stderr, "as-tool: %s: %s\n", path, e.msg);
    xc_planefile_free(&pf);
    return rc ? 3 : 0;
}

/* The quick tier with this program as the tool writing fmt, planting the
 * defects ("C=DEFECT ...", "" for none): the gate's exit status; its output
 * in buf, its JUnit file in xml. */
static int gate_format_class(const char *fmt, const char *defects, const char *cls)
{
    const char *j = xc_fx_tmp("fmt.xml");
    remove(j);
    int rc = sh(buf, sizeof buf,
                "'%s' gate dedisperse -cmd \"'%s' dedisperse -i {in} -o {out}.p -impl cpu -dmplan "
                "{dm_lo}:{dm_end}:{dm_step}:1 -quiet && '%s' --as-tool %s {out}.p.json {out} {case} %s\" -format %s "
                "-tier quick -junit '%s' -quiet %s",
                bin, bin, self, fmt, defects, fmt, j, cls);
    xc_fx_slurp_into(j, xml, sizeof xml);
    return rc;
}

static int gate_format(const char *fmt, const char *defects)
{
    return gate_format_class(fmt, defects, "");
}

/* The clean run: exit 0, every quick check (9) a pass. */
static void expect_clean(const char *fmt)
{
    int rc = gate_format(fmt, "");
    if (rc != 0)
        printf("\n%s: exit %d, expected 0:\n%s\n", fmt, rc, buf);
    CU_ASSERT_EQUAL(rc, 0);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 9, 0);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    CU_ASSERT_PTR_NULL(strstr(xml, "<failure"));
    /* read bit for bit where the tool's sums are exact (integer inputs) */
    expect_case("8bit-64ch: plane vs reference", 0, "max |diff| 0 ");
    expect_case("impulses-64ch: lone-channel impulses", 0, "64 channels x 50 DM trials");
}

/* The run with the defects: exit 1, tests and failures as given, and trial
 * 1 of 8bit-64ch one sample late named by the plane check. */
static void expect_defects(const char *fmt, const char *defects, long tests, long failures)
{
    int rc = gate_format(fmt, defects);
    if (rc != 1)
        printf("\n%s (%s): exit %d, expected 1:\n%s\n", fmt, defects, rc, buf);
    CU_ASSERT_EQUAL(rc, 1);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), tests, 0);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), failures, 0);
    expect_case("8bit-64ch: plane vs reference", 1, "differ in 1 DM trials; first at DM 2 (trial 1), sample 0:");
    /* the slip moves no pulse, and the clean cases pass */
    expect_case("8bit-64ch: pulse 0 (DM 60 at 0.450 s)", 0, NULL);
    expect_case("impulses-64ch: plane vs reference", 0, NULL);
}

/* Per output format: the defects planted, and the test cases (name, whether it
 * fails, the text it holds) they must show beside the plane check's slip. */
static const struct {
    const char *fmt, *defects;
    struct {
        const char *name;
        int fail;
        const char *want;
    } cases[3];
} formats[] = {
    /* float32-48ch without its last trial: its output is unreadable as the case (no plane, no pulse check) */
    {"npy",
     "8bit-64ch=shift float32-48ch=short",
     {{"float32-48ch: output readable", 1, "/out.npy: 79 rows; the case has 80 DM trials"},
      {"4bit-42ch: plane vs reference", 0, NULL}}},
    /* 4bit-42ch's trial 1 (DM 1.5) written as DM 1.51: the file the gate
     * looks for is missing, a failed check (exit 1, not an error) */
    {"dat",
     "8bit-64ch=shift 4bit-42ch=wrongdm",
     {{"4bit-42ch: output readable", 1, "DM 1.5 (trial 1): "},
      {"4bit-42ch: output readable", 1, "/out_DM1.50.dat: cannot open: No such file or directory"},
      {"float32-48ch: plane vs reference", 0, NULL}}},
    /* float32-48ch's trial 2 (DM 1.5) one sample short of the reference */
    {"tim",
     "8bit-64ch=shift float32-48ch=short",
     {{"float32-48ch: output readable", 1, "/out_DM1.50.tim: 3752 samples; the reference has 3753"},
      {"4bit-42ch: plane vs reference", 0, NULL}}},
};

/* formats[k]: the clean run, then the run with its defects (8 tests, 2 failures). */
static void gate_cmd_format(int k)
{
    expect_clean(formats[k].fmt);
    expect_defects(formats[k].fmt, formats[k].defects, 8, 2);
    for (int c = 0; c < 3 && formats[k].cases[c].name; c++)
        expect_case(formats[k].cases[c].name, formats[k].cases[c].fail, formats[k].cases[c].want);
}

XC_TEST_IF(test_gate_cmd_npy, "gate -cmd -format npy: {out}.npy read and passed; a slipped trial and a missing one fail",
           skip_no_bin)
{
    gate_cmd_format(0);
}

XC_TEST_IF(test_gate_cmd_dat, "gate -cmd -format dat: .dat per trial read and passed; a slip and a misnamed trial fail",
           skip_no_bin)
{
    gate_cmd_format(1);
}

XC_TEST_IF(test_gate_cmd_tim, "gate -cmd -format tim: .tim per trial read and passed; a slip and a short trial fail",
           skip_no_bin)
{
    gate_cmd_format(2);
}

/* The quick search tier of family fam with crosscheck's search of that
 * family as the tool, its CSV passed through awk: column col becomes
 * col * mul + add, printed to 17 digits.  The gate's exit status; its
 * output in buf, its JUnit file in xml. */
static int gate_search_family_edit(const char *fam, int col, double mul, double add)
{
    const char *script = xc_fx_tmp("edit-col.sh"), *j = xc_fx_tmp("search-edit.xml");
    xc_fx_write_text(script, "awk -F, -v c=\"$3\" -v m=\"$4\" -v d=\"$5\" 'BEGIN{OFS=\",\"; OFMT=CONVFMT=\"%.17g\"} "
                             "NR==1{print;next} {$c=$c*m+d; print}' \"$1\" > \"$2\"\n");
    remove(j);
    int rc = sh(buf, sizeof buf, "'%s' gate search -family %s -cmd \"'%s' %s -i {fft} -impl cpu -zmax {zmax} -numharm "
                "{numharm} -o {out}.raw.csv && sh '%s' {out}.raw.csv {out}.csv %d %.17g %.17g\" -tier quick -junit '%s' "
                "-quiet", bin, fam, bin, fam, script, col, mul, add, j);
    xc_fx_slurp_into(j, xml, sizeof xml);
    return rc;
}

static int gate_search_edit(int col, double mul, double add)
{
    return gate_search_family_edit("accel", col, mul, add);
}

XC_TEST_IF(test_gate_search_judged_columns, "gate search: r z power and sigma judged as printed (r shifted with f "
           "right fails; z signed; sigma or power 0.25 % off fails)",
           skip_no_bin)
{
    /* the tool's CSV with its power 0.15 % high: every check passes (the
     * judged r, z and power printed; power and sigma are judged against the
     * reference's within 0.2 %, relative) */
    CU_ASSERT_EQUAL(gate_search_edit(7, 1.0015, 0), 0);
    expect_case("accel-psr: recovers truth r, z", 0, "at r 2299.00 (truth 2299.16, dr -0.16), z -2.0 (truth -2.6");
    expect_case("accel-psr: r and f_hz agree", 0, "max |r - f_hz T| 0 bins");
    expect_case("accel-psr: power and sigma vs reference", 0, "1 pairs; power max rel. diff 0.0015 (0 over)");
    /* the tone cases' power against the direct correlation (0.2 %, the
     * searchers' declared tolerance; the unedited CSV is 5e-7 off) */
    expect_case("tone-harm: power vs direct correlation", 0, "rel. diff 0.0015");
    expect_case("tone-drift: power vs direct correlation", 0, NULL);
    /* power 0.25 % high: just beyond, on the oracle as on the reference */
    CU_ASSERT_EQUAL(gate_search_edit(7, 1.0025, 0), 1);
    expect_case("tone-harm: power vs direct correlation", 1, "rel. diff 0.0025");
    expect_case("tone-drift: power vs direct correlation", 1, "rel. diff 0.0025");
    /* sigma 0.25 % high, r, z and the truth right: fails on the sigma printed */
    CU_ASSERT_EQUAL(gate_search_edit(10, 1.0025, 0), 1);
    expect_case("accel-psr: power and sigma vs reference", 1, "sigma 0.0025 (1 over); worst: sigma");
    expect_case("accel-psr: recovers truth r, z", 0, NULL);
    /* r shifted by 30 bins, its frequency column left right: the columns
     * disagree, and the truth, judged on r, fails on the r it prints */
    CU_ASSERT_EQUAL(gate_search_edit(1, 1, 30), 1);
    expect_case("accel-psr: r and f_hz agree", 1, "candidate 1: r 2329.00 but f_hz 136.976736 Hz x T = 2299.00 bins");
    expect_case("accel-psr: recovers truth r, z", 1, "at r 2329.00 (truth 2299.16, dr +29.84)");
    /* r by 2.2 bins: dr 2.04, just beyond the truth's 2; the columns disagree */
    CU_ASSERT_EQUAL(gate_search_edit(1, 1, 2.2), 1);
    expect_case("accel-psr: recovers truth r, z", 1, "dr +2.04)");
    expect_case("accel-psr: r and f_hz agree", 1, "(r - f_hz T = +2.20)");
    /* the sign of z flipped (a matched filter knows it): z 2.0 against the
     * truth's -2.6 is 4.6 off, beyond 4 */
    CU_ASSERT_EQUAL(gate_search_edit(3, -1, 0), 1);
    expect_case("accel-psr: recovers truth r, z", 1, "z 2.0 (truth -2.6, dz +4.6)");
    expect_case("accel-psr: r and f_hz agree", 0, NULL);
}

/* The Pulscan quick tier, its CSV's sigma (column 9) multiplied by mul. */
static int gate_pulscan_sigma(double mul)
{
    return gate_search_family_edit("pulscan", 9, mul, 0);
}

XC_TEST_IF(test_gate_search_sigma_oracle, "gate search: each sigma against the Gaussian equivalent of its logp, "
           "1e-10 relative (0.5e-10 off passes, 2e-10 fails); the two-pulsar case keeps both", skip_no_bin)
{
    /* the unedited CSV matches the oracle exactly; the truth 5 bins above
     * the loud tone's second harmonic is kept by sifting */
    CU_ASSERT_EQUAL(gate_pulscan_sigma(1 + 0.5e-10), 0);
    expect_case("tone-pair: sigma vs Gaussian equivalent of logp", 0, "deepest ln p -13025.1 (needed below -10000");
    expect_case("tone-pair: recovers truth r, z", 0, "at r 10005.00 (truth 10005.00, dr +0.00)");
    expect_case("tone-pair: r and f_hz agree", 0, "2 candidates with both columns");
    /* just beyond: 2e-10 off fails on the sigma printed, its loud tone's */
    CU_ASSERT_EQUAL(gate_pulscan_sigma(1 + 2e-10), 1);
    expect_case("tone-pair: sigma vs Gaussian equivalent of logp", 1, "rel. diff 2e-10");
    expect_case("tone-pair: recovers truth r, z", 0, NULL);
}

XC_TEST_IF(test_gate_search_impl_family, "gate search -impl cpu judges the cpu searcher of -family (both families "
           "have one)", skip_no_bin)
{
    static const char *const fam[2] = {"accel", "pulscan"};
    for (int k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate search -family %s -impl cpu -tier quick -quiet", bin, fam[k]), 0);
        char want[64];
        snprintf(want, sizeof want, "the %s reference's", fam[k]);
        if (!strstr(buf, want))
            printf("\n%s", buf);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
        CU_ASSERT_PTR_NULL(strstr(buf, k ? "the accel reference's" : "the pulscan reference's"));
    }
}

XC_TEST_IF(test_gate_exact_class, "gate dedisperse -exact: one count or one ulp off in one sample fails; -float "
           "passes the ulp", skip_no_bin)
{
    /* 8bit-64ch one count high, 4bit-42ch one ulp high, in trial 1, sample 5 */
    const char *defects = "8bit-64ch=plusone 4bit-42ch=ulp";
    CU_ASSERT_EQUAL(gate_format_class("npy", defects, "-exact"), 1);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 3, 0);
    expect_case("8bit-64ch: plane vs reference", 1, "1 of 441400 samples differ in 1 DM trials; first at DM 2 (trial 1), "
                "sample 5: 8495, reference 8494");
    expect_case("8bit-64ch: plane vs reference", 1, "bit for bit");
    expect_case("8bit-64ch: plane vs reference", 1, "largest |diff| 1 at DM 2");
    expect_case("4bit-42ch: plane vs reference", 1, "1 of 446480 samples differ");
    expect_case("4bit-42ch: plane vs reference", 1, "bit for bit");
    /* -exact is bit for bit on float input too, where the tool (cpu) sums
     * in another order than the reference */
    expect_case("float32-48ch: plane vs reference", 1, "bit for bit");
    expect_case("impulses-64ch: plane vs reference", 0, "max |diff| 0 (bound: bit for bit)");
    /* The float-summation bound (-cmd's default class) is a fraction of a
     * count here: the count still fails, the ulp passes, which is why the
     * exact class must never be judged by it. */
    CU_ASSERT_EQUAL(gate_format_class("npy", defects, ""), 1);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 1, 0);
    expect_case("8bit-64ch: plane vs reference", 1, "largest |diff| 1 at DM 2, sample 5 (bound: |diff| &lt;= 0.0558 ");
    expect_case("4bit-42ch: plane vs reference", 0, "max |diff| 3.05e-05 (bound: |diff| &lt;= 0.00138 ");
}

XC_TEST_IF(test_gate_dd_messages, "gate dedisperse: a late output is named as a shift; a scaled one by its "
           "amplitude ratio", skip_no_bin)
{
    CU_ASSERT_EQUAL(gate_format("npy", "8bit-64ch=half impulses-64ch=lateall"), 1);
    expect_case("8bit-64ch: plane vs reference", 1, "DM 0 (trial 0) is the reference&apos;s series times 0.5 "
                "(amplitude ratio 0.5)");
    expect_case("impulses-64ch: plane vs reference", 1, "is the reference&apos;s series shifted by 1 sample: output "
                "sample t is reference sample t-1 (its features come 1 sample late)");
    /* the shift named, not a peak at the window's first sample */
    expect_case("impulses-64ch: lone-channel impulses", 1, "the reference puts its impulse at sample 271 (delay 0 "
                "samples), the output&apos;s trial is the reference&apos;s series shifted by 1 sample: output sample "
                "t is reference sample t-1 (its features come 1 sample late)");
    expect_case("4bit-42ch: plane vs reference", 0, NULL);
}

/* A peer's bug planted (docs/PEERS.md): PRESTO prepsubband writes data only
 * in whole blocks of 2400 spectra, all but the last two; on the quick
 * tier's short cases that is none at all (8bit-64ch: 4688 spectra), on the
 * impulses' 17679 spectra 12000 samples, the rest padding.  The gate must
 * fail both, naming the first padded sample. */
XC_TEST_IF(test_gate_peer_presto_tail, "gate dedisperse: a peer's bug planted (PRESTO prepsubband's "
           "block-wise tail) fails", skip_no_bin)
{
    CU_ASSERT_EQUAL(gate_format("dat", "8bit-64ch=prestotail impulses-64ch=prestotail"), 1);
    expect_case("8bit-64ch: plane vs reference", 1, "first at DM 0 (trial 0), sample 0: 0, reference");
    expect_case("impulses-64ch: plane vs reference", 1, "first at DM 0 (trial 0), sample 12000:");
    expect_case("4bit-42ch: plane vs reference", 0, NULL);
}

/* A peer's bug planted (docs/PEERS.md): sigpyproc unpacks 4-bit data high
 * nibble first, SIGPROC writes the low one first.  The stand-in
 * (tests/peers/sigpyproc/dedisperse.sh) is crosscheck's dedisperser reading
 * 2- and 4-bit files that way; the gate must fail exactly the 4-bit case,
 * with the counts sigpyproc itself gave (430649 of 446480 samples, S/N 42.49
 * against 63.82), and pass the 8-bit and float ones. */
XC_TEST_IF(test_gate_peer_sigpyproc_nibbles, "gate dedisperse: a peer's bug planted (sigpyproc's high-nibble-first "
           "4-bit reader) fails the 4-bit case only", skip_no_bin)
{
    const char *j = xc_fx_tmp("spp.xml");
    remove(j);
    int rc = sh(buf, sizeof buf, "'%s' gate dedisperse -cmd \"sh tests/peers/sigpyproc/dedisperse.sh '%s' {in} {out} "
                "{nbits} {dm_lo}:{dm_end}:{dm_step}\" -tier quick -junit '%s' -quiet", bin, bin, j);
    xc_fx_slurp_into(j, xml, sizeof xml);
    if (rc != 1)
        printf("\n  exit %d, expected 1:\n%s\n", rc, buf);
    CU_ASSERT_EQUAL(rc, 1);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 9, 0);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 2, 0);
    expect_case("4bit-42ch: plane vs reference", 1, "430649 of 446480 samples differ");
    expect_case("4bit-42ch: pulse 0 (DM 80 at 0.400 s)", 1, "S/N 42.49; the reference&apos;s: DM 81, S/N 63.82");
    expect_case("8bit-64ch: plane vs reference", 0, "max |diff| 0");
    expect_case("impulses-64ch: plane vs reference", 0, "max |diff| 0");
    expect_case("impulses-64ch: lone-channel impulses", 0, NULL);
    expect_case("float32-48ch: plane vs reference", 0, NULL);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--as-tool"))
        return as_tool(argc - 2, argv + 2);
    if (!realpath(argv[0], self))
        snprintf(self, sizeof self, "%s", argv[0]);
    /* The gate's runs share each case's synthetic input and reference
     * output, made by the first run that needs them (cli/gate/gate_cache.c):
     * every run still judges its tool against them. */
    setenv("CROSSCHECK_GATE_CACHE", xc_fx_tmp("gate-cache"), 1);
    return xc_test_main("gate");
}
