/* Plugins and `crosscheck gate` end to end: the example plugin
 * (examples/plugin-dedisp/) correct and with its planted bug, plugins that
 * crash, hang or were built for another ABI, external commands, JUnit
 * output, and the CI script docs/ci.md shows (scripts/ci-gate-example.sh). */
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/xc_filterbank.h"
#include "core/xc_npy.h"
#include "core/xc_planefile.h"
#include "core/xc_presto.h"
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
    const char *j = xc_fx_tmp("ok.xml");
    int rc = sh(buf, sizeof buf, "'%s' gate dedisperse -plugin '%s/libxcdd_ok.so' -tier quick -junit '%s' -quiet",
                bin, plugins, j);
    if (rc != 0)
        printf("\n%s\n", buf);
    CU_ASSERT_EQUAL(rc, 0);
    xc_fx_slurp_into(j, xml, sizeof xml);
    /* 4 cases: 3 plane rows, 4 pulses, impulses plane + per channel */
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 9, 0);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    CU_ASSERT_PTR_NULL(strstr(xml, "<failure"));
    char tc[4096];
    junit_case(xml, "impulses-64ch: lone-channel impulses", tc, sizeof tc);
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "64 channels"));
}

XC_TEST_IF(test_gate_buggy_plugin, "gate dedisperse: the planted rounding bug fails, located by DM, sample, channel",
           skip_no_bin)
{
    const char *j = xc_fx_tmp("bug.xml");
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -plugin '%s/libxcdd_bug.so' -tier quick -junit '%s' -quiet",
                       bin, plugins, j), 1);
    xc_fx_slurp_into(j, xml, sizeof xml);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 9, 0);
    /* the planes (every case) and the impulses fail; the pulses, found one DM
     * step off at most, pass */
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 5, 0);
    char tc[4096];
    junit_case(xml, "8bit-64ch: plane vs reference", tc, sizeof tc);
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "<failure"));
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "first at DM 2 (trial 1), sample 0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "measured "));
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "bound 0"));
    junit_case(xml, "8bit-64ch: pulse 0 (DM 60 at 0.450 s)", tc, sizeof tc);
    CU_ASSERT_PTR_NULL(strstr(tc, "<failure"));
    /* The channel: truncating a delay of 0.5 samples or more moves the
     * impulse one sample; channel 1 (1498 MHz) is the first, at DM 28. */
    junit_case(xml, "impulses-64ch: lone-channel impulses", tc, sizeof tc);
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "<failure"));
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "first: channel 1 (1498 MHz) at DM 28 (trial 7)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "(delay 1 samples), the output&apos;s peak is at sample 543 (delay 0)"));
}

XC_TEST_IF(test_gate_isolation, "a plugin that crashes or hangs is a failed check, never the end of the gate",
           skip_no_bin)
{
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' gate dedisperse -plugin '%s/libxcdd_crash.so' -quiet", bin, plugins), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "crashed in its dedispersion: killed by signal 11"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "4 checks, 4 failed"));   /* every case reached, each a failed row */
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "CROSSCHECK_PLUGIN_TIMEOUT=0.3 '%s' gate dedisperse -plugin '%s/libxcdd_hang.so' "
                       "-quiet", bin, plugins), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "did not finish its dedispersion within 0.3 s"));
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
    char tc[4096];
    junit_case(xml, "tiny-8bit: plane vs reference", tc, sizeof tc);
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "crosscheck.run.mydedisp"));
    CU_ASSERT_PTR_NULL(strstr(tc, "<failure"));
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' run -spec '%s' -plugin '%s/libxcdd_bug.so' -impl mydedisp-buggy -out '%s' "
                       "-junit '%s' -quiet", bin, spec, plugins, out, j), 1);
    xc_fx_slurp_into(j, xml, sizeof xml);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 1, 0);
    junit_case(xml, "tiny-8bit: plane vs reference", tc, sizeof tc);
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "crosscheck.run.mydedisp-buggy"));
    CU_ASSERT_PTR_NOT_NULL(strstr(tc, "<failure"));
}

XC_TEST_IF(test_plugin_refused, "a plugin of another ABI major version, or no plugin at all, is refused (exit 2)",
           skip_no_bin)
{
    CU_ASSERT_EQUAL(sh(buf, sizeof buf, "'%s' list -plugin '%s/libxcdd_abi.so'", bin, plugins), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "built against plugin ABI 2.0; this crosscheck has plugin ABI 1.0"));
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

XC_TEST_IF(test_gate_cmd, "gate dedisperse -cmd: a tool that agrees passes; one on another convention is named",
           skip_no_bin)
{
    const char *j = xc_fx_tmp("cmd.xml");
    int rc = sh(buf, sizeof buf, "'%s' gate dedisperse -cmd \"'%s' dedisperse -i {in} -o {out} -impl cpu "
                "-dmplan {dm_lo}:{dm_end}:{dm_step}:1\" -tier quick -junit '%s' -quiet", bin, bin, j);
    if (rc != 0)
        printf("\n%s\n", buf);
    CU_ASSERT_EQUAL(rc, 0);
    xc_fx_slurp_into(j, xml, sizeof xml);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 9, 0);
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
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 2, 0);
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
    /* Run it in a fresh folder: the example plugin as "your plugin",
     * crosscheck's own dedisperser as "your tool". */
    char env[6 * PATH_MAX];
    snprintf(env, sizeof env, "CROSSCHECK='%s' XC_CFLAGS='-I%s/core -I%s' PLUGIN_SRC='%s/examples/plugin-dedisp/dedisp.c' "
             "DEDISP_CMD=\"'%s' dedisperse -i {in} -o {out} -impl cpu -dmplan {dm_lo}:{dm_end}:{dm_step}:1\"",
             bin, root, root, root, bin);
    const char *dir = xc_fx_tmp("ci");
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", dir);
    int rc = sh(buf, sizeof buf, "mkdir -p '%s' && cd '%s' && %s sh '%s/scripts/ci-gate-example.sh'", d, d, env, root);
    if (rc != 0)
        printf("\n%s\n", buf);
    CU_ASSERT_EQUAL(rc, 0);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/gate-plugin.xml", d);
    xc_fx_slurp_into(p, xml, sizeof xml);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    XC_ASSERT_NEAR(junit_count(xml, "tests"), 9, 0);
    snprintf(p, sizeof p, "%s/gate-cmd.xml", d);
    xc_fx_slurp_into(p, xml, sizeof xml);
    XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
    /* The same script with the plugin's planted bug compiled in: the CI job fails. */
    rc = sh(buf, sizeof buf, "cd '%s' && %s XC_CFLAGS='-I%s/core -I%s -DPLANTED_BUG' sh '%s/scripts/ci-gate-example.sh'",
            d, env, root, root, root);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "mydedisp-buggy"));
}

/* ---- the -cmd output formats: this program as the user's tool --------------

   `test_gate --as-tool FORMAT PLANE.json OUT [shift]` turns crosscheck's own
   plane (from `crosscheck dedisperse -o X`) into what a user's tool would
   write: OUT.npy (float32 [ndm][nsamp]), one PRESTO OUT_DM<dm>.dat + .inf per
   trial, or one SIGPROC dedispersed OUT_DM<dm>.tim per trial (nchans 1,
   nbits 32).  With "shift", trial 1's series starts one sample late: a
   realistic slip the gate must catch. */
static char self[PATH_MAX];

static int as_tool(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *fmt = argv[0], *plane = argv[1], *out = argv[2];
    int shift = argc > 3 && !strcmp(argv[3], "shift");
    xc_planefile pf;
    xc_error e;
    if (xc_planefile_read(&pf, plane, &e)) {
        fprintf(stderr, "as-tool: %s\n", e.msg);
        return 3;
    }
    const xc_planerange *r = &pf.plane.r[0];
    const xc_dmrange *dr = &pf.plan.r[0];
    if (shift && r->ndm > 1 && r->nsamp > 1)
        memmove(r->data + r->nsamp, r->data + r->nsamp + 1, (r->nsamp - 1) * sizeof(float));
    int rc = 0;
    char path[PATH_MAX + 64];
    if (!strcmp(fmt, "npy")) {
        snprintf(path, sizeof path, "%s.npy", out);
        rc = xc_npy_write_f32(path, r->data, r->ndm, r->nsamp, &e) != XC_OK;
    }
    for (size_t d = 0; !rc && d < r->ndm && strcmp(fmt, "npy"); d++) {
        const float *x = r->data + d * r->nsamp;
        if (!strcmp(fmt, "dat")) {
            snprintf(path, sizeof path, "%s_DM%.2f.dat", out, dr->dms[d]);
            rc = xc_dat_write(path, x, r->nsamp, &e) != XC_OK;
            xc_inf inf;
            xc_inf_init(&inf);
            inf.n = (double)r->nsamp;
            inf.dt = pf.meta.tsamp;
            inf.dm = dr->dms[d];
            snprintf(path, sizeof path, "%s_DM%.2f.inf", out, dr->dms[d]);
            rc = rc || xc_inf_write(&inf, path, &e) != XC_OK;
        } else {
            snprintf(path, sizeof path, "%s_DM%.2f.tim", out, dr->dms[d]);
            xc_fbheader h;
            xc_fbheader_init(&h);
            h.nchans = 1;
            h.nifs = 1;
            h.nbits = 32;
            h.data_type = 2;
            h.tsamp = pf.meta.tsamp;
            h.fch1 = pf.meta.fch1;
            h.foff = pf.meta.foff;
            h.refdm = dr->dms[d];
            const xc_fbkey keys[] = {XC_FB_DATA_TYPE, XC_FB_NCHANS, XC_FB_NIFS, XC_FB_NBITS, XC_FB_TSAMP,
                                     XC_FB_FCH1, XC_FB_FOFF, XC_FB_REFDM, XC_FB_TSTART};
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                xc_fbheader_set(&h, keys[k]);
            FILE *fp = fopen(path, "wb");
            rc = !fp || xc_fbheader_write(&h, fp, path, &e) != XC_OK ||
                 fwrite(x, sizeof *x, r->nsamp, fp) != r->nsamp;
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

/* The gate's -cmd, reading each format the user's tool may write: the
 * correct conversion passes every quick check (bit for bit against the
 * reference), and a one-sample slip of one trial fails, naming it. */
XC_TEST_IF(test_gate_cmd_formats, "gate -cmd reads npy and dat and tim outputs and catches a slip in each",
           skip_no_bin)
{
    static const char *const fmts[] = {"npy", "dat", "tim"};
    for (size_t i = 0; i < 3; i++) {
        const char *j = xc_fx_tmp("fmt.xml");
        int rc = sh(buf, sizeof buf,
                    "'%s' gate dedisperse -cmd \"'%s' dedisperse -i {in} -o {out}.p -impl cpu -dmplan "
                    "{dm_lo}:{dm_end}:{dm_step}:1 -quiet && '%s' --as-tool %s {out}.p.json {out}\" -format %s "
                    "-tier quick -junit '%s' -quiet",
                    bin, bin, self, fmts[i], fmts[i], j);
        if (rc != 0)
            printf("\n%s: %s\n", fmts[i], buf);
        CU_ASSERT_EQUAL(rc, 0);
        xc_fx_slurp_into(j, xml, sizeof xml);
        XC_ASSERT_NEAR(junit_count(xml, "tests"), 9, 0);
        XC_ASSERT_NEAR(junit_count(xml, "failures"), 0, 0);
        /* trial 1 one sample late: the plane check fails, naming the trial
         * (once: the good runs already show each reader's values are the
         * reference's, bit for bit) */
        if (i != 2)
            continue;
        rc = sh(buf, sizeof buf,
                "'%s' gate dedisperse -cmd \"'%s' dedisperse -i {in} -o {out}.p -impl cpu -dmplan "
                "{dm_lo}:{dm_end}:{dm_step}:1 -quiet && '%s' --as-tool %s {out}.p.json {out} shift\" -format %s "
                "-tier quick -quiet",
                bin, bin, self, fmts[i], fmts[i]);
        CU_ASSERT_EQUAL(rc, 1);
        if (!strstr(buf, "(trial 1)"))
            printf("\n%s shifted: %s\n", fmts[i], buf);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "(trial 1)"));
    }
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--as-tool"))
        return as_tool(argc - 2, argv + 2);
    if (!realpath(argv[0], self))
        snprintf(self, sizeof self, "%s", argv[0]);
    return xc_test_main("gate");
}
