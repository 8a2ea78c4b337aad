/* The crosscheck program refusing bad input before any work: exit 2 and a
 * message naming the option (or file) and the value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "optimized/gpu/xc_gpu.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define runf xc_fx_run_clif

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
    xc_fx_write_text(spec, "{\"real\": [{\"name\": \"gone\", \"file\": \"gone.fil\", \"dmplan\": \"0:10:1\"}]}\n");
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

/* Copies file a to b with the 4 or 8 bytes at offset replaced by the float
 * (or double) v. */
static void copy_poked(const char *a, const char *b, long offset, double v, int dbl)
{
    FILE *in = fopen(a, "rb"), *out = fopen(b, "wb");
    CU_ASSERT_FATAL(in && out);
    int c;
    long at = 0;
    unsigned char buf[8];
    float f = (float)v;
    memcpy(buf, dbl ? (const void *)&v : (const void *)&f, dbl ? 8 : 4);
    while ((c = fgetc(in)) != EOF) {
        if (at >= offset && at < offset + (dbl ? 8 : 4))
            c = buf[at - offset];
        fputc(c, out);
        at++;
    }
    fclose(in);
    fclose(out);
}

XC_TEST(test_nonfinite_inputs, "fft, accel, dedisperse: infinite/NaN values named with file and place")
{
    char err[4096], s[700], p[700], q[700];
    const char *t = xc_test_tmpdir();
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "synth -quiet -tobs 0.5 -nchans 64 -dedispersed -dm 10 -o '%s/nf'", t), 0);
    snprintf(s, sizeof s, "%s/nf.dat", t);
    snprintf(p, sizeof p, "%s/inf1.dat", t);
    copy_poked(s, p, 7 * 4, INFINITY, 0);
    snprintf(q, sizeof q, "cp '%s/nf.inf' '%s/inf1.inf'", t, t);
    CU_ASSERT_EQUAL_FATAL(system(q), 0);
    CU_ASSERT_EQUAL(runf(err, sizeof err, "fft -i '%s' -o '%s/inf1'", p, t), 2);
    assert_has(err, "inf1.dat: sample 7 is inf");
    /* a spectrum with a NaN: the file, the bin and no doubled "accel: accel:" */
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "fft -i '%s' -o '%s/nf'", s, t), 0);
    snprintf(s, sizeof s, "%s/nf.fft", t);
    snprintf(p, sizeof p, "%s/nan1.fft", t);
    copy_poked(s, p, 5 * 8, NAN, 0);
    snprintf(q, sizeof q, "cp '%s/nf.inf' '%s/nan1.inf'", t, t);
    CU_ASSERT_EQUAL_FATAL(system(q), 0);
    CU_ASSERT_EQUAL(runf(err, sizeof err, "accel -i '%s' -zmax 10 -numharm 2", p), 2);
    assert_has(err, "nan1.fft: bin 5 real part is nan");
    CU_ASSERT_PTR_NULL(strstr(err, "accel: accel:"));
    /* a filterbank whose fch1 is NaN */
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "synth -quiet -tobs 0.2 -nchans 64 -o '%s/nf.fil'", t), 0);
    snprintf(s, sizeof s, "%s/nf.fil", t);
    snprintf(p, sizeof p, "%s/nanf.fil", t);
    FILE *fp = fopen(s, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char head[512];
    size_t n = fread(head, 1, sizeof head, fp);
    fclose(fp);
    long at = -1;
    for (size_t i = 0; i + 4 <= n && at < 0; i++)
        if (!memcmp(head + i, "fch1", 4))
            at = (long)i + 4;
    CU_ASSERT_FATAL(at > 0);
    copy_poked(s, p, at, NAN, 1);
    CU_ASSERT_EQUAL(runf(err, sizeof err, "dedisperse -quiet -i '%s' -o '%s/nn' -impl reference -dmplan 0:10:1", p, t), 2);
    assert_has(err, "nanf.fil: fch1: nan is not finite");
}

XC_TEST(test_version, "--version prints the Makefile's XC_VERSION and exits 0")
{
    char want[64] = "", line[256], out[256] = "";
    FILE *mk = fopen("Makefile", "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mk);
    while (fgets(line, sizeof line, mk))
        if (sscanf(line, "XC_VERSION := %63s", want) == 1)
            break;
    fclose(mk);
    CU_ASSERT_FATAL(*want);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --version", xc_fx_bin());
    FILE *p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    if (!fgets(out, sizeof out, p))
        out[0] = '\0';
    int rc = pclose(p);
    CU_ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    char expect[128];
    snprintf(expect, sizeof expect, "crosscheck %s\n", want);
    if (strcmp(out, expect))
        fprintf(stderr, "\n  got '%s', expected '%s'\n", out, expect);
    CU_ASSERT_STRING_EQUAL(out, expect);
}

/* `crosscheck ARGS 2>&1` into out; the exit code. */
static int run_all_out(const char *args, char *out, size_t n)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", xc_fx_bin(), args);
    FILE *p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = '\0';
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

XC_TEST(test_gate_log_only_if_kept, "gate -cmd: a failed command's log is named only when it is kept")
{
    static char out[1 << 16];
    char args[1024];
    /* the temporary work folder is removed at the end: no log path in the rows */
    CU_ASSERT_EQUAL(run_all_out("gate dedisperse -quiet -tier quick -cmd 'echo boom >&2; exit 3'", out, sizeof out), 1);
    assert_has(out, "removed with the temporary work folder");
    CU_ASSERT_PTR_NULL(strstr(out, "cmd.log"));
    /* -work DIR keeps it: the path is named and the file is there */
    snprintf(args, sizeof args, "gate dedisperse -quiet -tier quick -work '%s/gw' -cmd 'echo boom >&2; exit 3'",
             xc_test_tmpdir());
    CU_ASSERT_EQUAL(run_all_out(args, out, sizeof out), 1);
    /* the row's cell may be cut to fit 120 columns: the whole text is on the "measured:" line under it */
    const char *at = strstr(out, "measured: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    at = strstr(at, "(log ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    char log[1024];
    CU_ASSERT_FATAL(sscanf(at + 5, "%1023[^)]", log) == 1);
    assert_has(log, "/gw/");
    CU_ASSERT_TRUE(xc_fx_exists(log));
}

XC_TEST(test_run_report_names_what_remains, "run: the report names a work file only with -keep")
{
    char err[4096], spec[700], html[700];
    static char text[1 << 20];
    const char *t = xc_test_tmpdir();
    snprintf(spec, sizeof spec, "%s/ps-run.json", t);
    xc_fx_write_text(spec, "{\"periodicity\": [{\"name\": \"tiny\", \"zmax\": 0, \"numharm\": 1, \"sigma\": 3.0, "
                           "\"synth\": {\"nchans\": 16, \"nbits\": 8, \"tsamp_us\": 256, \"tobs_s\": 4.096, "
                           "\"fch1\": 1500.0, \"foff\": -4.0, \"seed\": 21, \"period_ms\": 40.0, "
                           "\"width_pct\": 5.0, \"snrpeak\": 3, \"dm\": 10.0}}]}\n");
    /* the verdicts do not matter here (0 or 1), only what the report names */
    int rc = runf(err, sizeof err, "run -quiet -impl cpu -spec '%s' -out '%s/rw'", spec, t);
    CU_ASSERT(rc == 0 || rc == 1);
    snprintf(html, sizeof html, "%s/rw/index.html", t);
    xc_fx_read_text(html, text, sizeof text);
    assert_has(text, "synthesized in the work folder (removed at the end; -keep keeps it)");
    CU_ASSERT_PTR_NULL(strstr(text, "rw/work/"));
    rc = runf(err, sizeof err, "run -quiet -keep -impl cpu -spec '%s' -out '%s/rk'", spec, t);
    CU_ASSERT(rc == 0 || rc == 1);
    snprintf(html, sizeof html, "%s/rk/index.html", t);
    xc_fx_read_text(html, text, sizeof text);
    assert_has(text, "rk/work/tiny.fft");
}

#ifdef XC_HAVE_CUDA
/* Runs only where no NVIDIA kernel driver is loaded (no GPU here). */
static int skip_has_driver(char *why, size_t n)
{
    if (access("/proc/driver/nvidia/version", F_OK) != 0)
        return 0;
    snprintf(why, n, "an NVIDIA driver is loaded: the no-device message is not what this machine gives");
    return 1;
}

XC_TEST_IF(test_gpu_no_device_reason, "no GPU: list and the GPU skips say no CUDA-capable device", skip_has_driver)
{
    char why[256] = "";
    CU_ASSERT_EQUAL(xc_gpu_available(why, sizeof why), 0);
    assert_has(why, "no CUDA-capable device");
    char cmd[1024], line[2048];
    snprintf(cmd, sizeof cmd, "%s list 2>&1", xc_fx_bin());
    FILE *p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    int rows = 0;
    while (fgets(line, sizeof line, p))
        if (strstr(line, "unavailable:")) {
            rows++;
            assert_has(line, "no CUDA-capable device");
            CU_ASSERT_PTR_NULL(strstr(line, "insufficient"));
        }
    pclose(p);
    CU_ASSERT(rows > 0);   /* the CUDA build registers its gpu implementations */
}
#endif

XC_TEST_MAIN("cli_input")
