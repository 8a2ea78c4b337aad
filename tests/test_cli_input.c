/* The crosscheck program refusing bad input before any work: exit 2 and a
 * message naming the option (or file) and the value. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* `crosscheck ARGS` (formatted as printf does), stderr into err; the exit code. */
__attribute__((format(printf, 3, 4))) static int runf(char *err, size_t n, const char *fmt, ...)
{
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    CU_ASSERT_FATAL(len >= 0 && (size_t)len < sizeof args);
    return xc_fx_run_cli_err(args, err, n);
}

/* Asserts that err holds want; prints both when not. */
static void assert_has(const char *err, const char *want)
{
    if (!strstr(err, want))
        fprintf(stderr, "\n  expected '%s' in: %s\n", want, err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
}

XC_TEST(test_synth_output_path, "synth: -o empty or a directory refused before writing")
{
    char err[4096];
    CU_ASSERT_EQUAL(runf(err, sizeof err, "synth -quiet -tobs 0.1 -o ''"), 2);
    assert_has(err, "-o ''");
    CU_ASSERT_EQUAL(runf(err, sizeof err, "synth -quiet -tobs 0.1 -o '%s'", xc_test_tmpdir()), 2);
    assert_has(err, "is a directory");
    assert_has(err, xc_test_tmpdir());
}

XC_TEST(test_synth_disk_space, "synth: an output larger than the free disk space is refused")
{
    char err[4096], out[700];
    snprintf(out, sizeof out, "%s/huge.fil", xc_test_tmpdir());
    /* 1e9 s x 4096 channels x 1 byte / 64 us: 6.4e16 bytes, more than any disk here */
    CU_ASSERT_EQUAL(runf(err, sizeof err, "synth -quiet -nchans 4096 -tobs 1e9 -o '%s'", out), 2);
    assert_has(err, "free");
    assert_has(err, "bytes");
    CU_ASSERT_FALSE(xc_fx_exists(out));
}

XC_TEST(test_synth_pulse_bounds, "synth: pulses outside the observation and negative S/N refused")
{
    char err[4096], out[700];
    snprintf(out, sizeof out, "%s/p.fil", xc_test_tmpdir());
    CU_ASSERT_EQUAL(runf(err, sizeof err, "synth -quiet -tobs 1 -pulse 5,10,1,8 -o '%s'", out), 2);
    assert_has(err, "pulses[0].t_s (-pulse) = 5");
    CU_ASSERT_EQUAL(runf(err, sizeof err, "synth -quiet -tobs 1 -pulse -0.5,10,1,8 -o '%s'", out), 2);
    assert_has(err, "= -0.5");
    CU_ASSERT_EQUAL(runf(err, sizeof err, "synth -quiet -tobs 1 -pulse 0.5,10,1,-3 -o '%s'", out), 2);
    assert_has(err, "snr (-pulse) = -3");
    CU_ASSERT_EQUAL(runf(err, sizeof err, "synth -quiet -tobs 1 -period 50 -snrpeak -1 -o '%s'", out), 2);
    assert_has(err, "snrpeak (-snrpeak) = -1");
    CU_ASSERT_FALSE(xc_fx_exists(out));
}

XC_TEST(test_compare_missing_plane, "compare planes: a missing file is named with the system's reason")
{
    char err[4096];
    CU_ASSERT_EQUAL(runf(err, sizeof err, "compare planes '%s/nonexist.json' '%s/other.json'", xc_test_tmpdir(),
                         xc_test_tmpdir()), 2);
    assert_has(err, "nonexist.json: cannot open: No such file or directory");
    CU_ASSERT_PTR_NULL(strstr(err, "line -1"));
}

XC_TEST(test_plan_no_table_on_error, "plan: nothing on stdout when it fails")
{
    char cmd[2048], out[4096] = "";
    snprintf(cmd, sizeof cmd, "%s plan -nchans 64 -tsamp 64 -fch1 1400 -foff -1 -dmplan 0:10:1 "
             "-json '%s/no/such/dir/p.json' 2>/dev/null", xc_fx_bin(), xc_test_tmpdir());
    FILE *p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    size_t got = fread(out, 1, sizeof out - 1, p);
    int rc = pclose(p);
    CU_ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    if (got)
        fprintf(stderr, "\n  expected no output, got: %s\n", out);
    CU_ASSERT_EQUAL(got, 0u);
}

XC_TEST(test_junit_unwritable, "run, gate, check: an unwritable -junit fails before the work")
{
    char err[4096], bad[700];
    snprintf(bad, sizeof bad, "%s/no/such/dir/j.xml", xc_test_tmpdir());
    CU_ASSERT_EQUAL(runf(err, sizeof err, "run -quiet -out '%s/r' -junit '%s'", xc_test_tmpdir(), bad), 2);
    assert_has(err, "-junit");
    assert_has(err, "No such file or directory");
    CU_ASSERT_EQUAL(runf(err, sizeof err, "gate dedisperse -quiet -cmd 'true {in} {out}' -junit '%s'", bad), 2);
    assert_has(err, "-junit");
    CU_ASSERT_EQUAL(runf(err, sizeof err, "check approximations -quick -junit '%s'", bad), 2);
    assert_has(err, "-junit");
}

XC_TEST(test_run_missing_input, "run: a spec naming a missing file is an error (2), not a failed check")
{
    char err[4096], spec[700];
    snprintf(spec, sizeof spec, "%s/missing-run.json", xc_test_tmpdir());
    FILE *fp = fopen(spec, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("{\"real\": [{\"name\": \"gone\", \"file\": \"gone.fil\", \"dmplan\": \"0:10:1\"}]}\n", fp);
    fclose(fp);
    CU_ASSERT_EQUAL(runf(err, sizeof err, "run -quiet -spec '%s' -out '%s/rm'", spec, xc_test_tmpdir()), 2);
    assert_has(err, "gone.fil");
    assert_has(err, "No such file or directory");
}

XC_TEST(test_dedisperse_nsub_over_nchans, "dedisperse: -nsub above the channel count refused")
{
    char err[4096];
    /* tutorial.fil has 64 channels */
    CU_ASSERT_EQUAL(runf(err, sizeof err, "dedisperse -quiet -i '%s/sigpyproc3/tutorial.fil' -o '%s/ns' -impl subband "
                         "-nsub 1000 -dmplan 0:10:1", xc_test_datasets(), xc_test_tmpdir()), 2);
    assert_has(err, "nsub (-nsub) = 1000");
}

XC_TEST_MAIN("cli_input")
