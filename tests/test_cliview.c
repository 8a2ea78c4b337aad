/* What the command line shows while and after it works: the progress meter
 * (its estimate and its throttle, with a fake clock) and the verdict table
 * (its width, each check once, the full text of a failure). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/base/cli_meter.h"
#include "cli/base/cli_verdict.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

static double fake_t;
static double fake_clock(void) { return fake_t; }

XC_TEST(test_meter_duration, "meter: durations in s, min and h")
{
    char b[32];
    xc_meter_duration(b, sizeof b, 0.4);
    CU_ASSERT_STRING_EQUAL(b, "0 s");
    xc_meter_duration(b, sizeof b, 59.4);
    CU_ASSERT_STRING_EQUAL(b, "59 s");
    xc_meter_duration(b, sizeof b, 185);
    CU_ASSERT_STRING_EQUAL(b, "3 min 05 s");
    xc_meter_duration(b, sizeof b, 7620);
    CU_ASSERT_STRING_EQUAL(b, "2 h 07 min");
}

XC_TEST(test_meter_eta, "meter: done/total, elapsed and the linear estimate of the time left")
{
    xc_progress p;
    fake_t = 100;
    xc_progress_start_on(&p, "dedisperse", 1000, XC_METER_LOG, 0, fake_clock, stderr);
    p.unit = "spectra";
    p.done = 250;
    char b[256];
    /* 25 % in 10 s: 30 s left at the same rate */
    xc_meter_text(b, sizeof b, &p, 110);
    CU_ASSERT_STRING_EQUAL(b, "dedisperse: 25% (250/1000 spectra), 10 s elapsed, about 30 s left");
    /* nothing done yet: no estimate */
    p.done = 0;
    p.unit = NULL;
    xc_meter_text(b, sizeof b, &p, 300);
    CU_ASSERT_STRING_EQUAL(b, "dedisperse: 0% (0/1000), 3 min 20 s elapsed");
}

/* Drives a log meter with the fake clock: done = total * t / T, an update
 * every dt s from 0 to T, then the end; returns the times of the lines. */
static int drive(int forced, double T, double dt, double *at, int max, char *text, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    xc_progress p;
    fake_t = 0;
    xc_progress_start_on(&p, "step", 1000, XC_METER_LOG, forced, fake_clock, fp);
    int k = 0, lines = 0;
    for (fake_t = dt; fake_t <= T + 1e-9; fake_t = ++k * dt + dt) {
        xc_progress_update(&p, (uint64_t)(1000 * fake_t / T + 1e-9));
        if (p.lines > lines && lines < max)
            at[lines] = fake_t;
        lines = p.lines;
    }
    fake_t = T;
    xc_progress_end(&p);
    fclose(fp);
    snprintf(text, n, "%s", buf ? buf : "");
    free(buf);
    return lines;
}

XC_TEST(test_meter_log_throttle, "meter: in a log, a line per tenth at least 10 s apart, and one every 30 s")
{
    double at[64];
    char text[8192];
    /* 100 s of steady work: nothing before 5 s, then one line per tenth
     * (every 10 s), the last at the end */
    int n = drive(0, 100, 1, at, 64, text, sizeof text);
    CU_ASSERT_EQUAL(n, 9);   /* at 10, 20, ..., 90 s, then the end's */
    for (int i = 0; i < n && i < 64; i++)
        XC_ASSERT_NEAR(at[i], 10.0 * (i + 1), 1e-9);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "step: 50% (500/1000), 50 s elapsed, about 50 s left\n"));
    /* the end's line, once */
    const char *end = strstr(text, "step: 100% (1000/1000), 1 min 40 s elapsed\n");
    CU_ASSERT_PTR_NOT_NULL(end);
    CU_ASSERT_TRUE(end && !strstr(end + 1, "step: 100%"));
    /* 2000 s: a tenth each 200 s, so a line every 30 s keeps the log alive */
    n = drive(0, 2000, 1, at, 64, text, sizeof text);
    CU_ASSERT_TRUE(n >= 2000 / 30);
    for (int i = 1; i < n && i < 64; i++)
        CU_ASSERT_TRUE(at[i] - at[i - 1] <= XC_METER_LOG_EVERY + 1e-9);
    /* 3 s of work: silent, not even the end */
    n = drive(0, 3, 0.01, at, 64, text, sizeof text);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_STRING_EQUAL(text, "");
    /* the same forced (-progress): a line per tenth from the start, and the end */
    n = drive(1, 3, 0.01, at, 64, text, sizeof text);
    CU_ASSERT_EQUAL(n, 10);   /* 0 %, 10 %, ..., 90 %, then the end's */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "step: 100% (1000/1000), 3 s elapsed\n"));
}

/* Display columns of a line of UTF-8. */
static size_t cols(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* The widest line of text, in columns. */
static size_t widest(const char *text)
{
    size_t w = 0;
    for (const char *s = text; *s;) {
        size_t l = strcspn(s, "\n");
        if (cols(s, l) > w)
            w = cols(s, l);
        s += l + (s[l] == '\n');
    }
    return w;
}

XC_TEST(test_vdtable_width, "verdict table: every line within 120 columns; a failure's whole text under its row")
{
    xc_check_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.impl, sizeof r.impl, "tree-padded-reference");
    snprintf(r.check, sizeof r.check, "synthetic-16bit-odd: approximate vs its reference (bit for bit), a long name");
    char msg[400] = "";
    for (int i = 0; i < 30; i++)
        snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "word%02d ", i);
    snprintf(r.measured, sizeof r.measured, "%s\xce\xbc-end", msg);   /* a UTF-8 character too */
    snprintf(r.bound, sizeof r.bound, "S/N loss <= the declared bound at every trial");
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    for (int impl = 0; impl < 2; impl++) {
        xc_vd_print_header(fp, impl);
        r.state = XC_CHECK_PASS;
        xc_vd_print_row(fp, &r, impl);
        r.state = XC_CHECK_FAIL;
        xc_vd_print_row(fp, &r, impl);
    }
    fclose(fp);
    size_t w = widest(buf);
    if (w > XC_VD_WIDTH)
        printf("\n%s", buf);
    CU_ASSERT_TRUE(w <= XC_VD_WIDTH);   /* observed w, limit 120 */
    CU_ASSERT_TRUE(w >= XC_VD_WIDTH - 4);   /* the cut rows use the width */
    /* the cut cells end in "...", the failure's message is whole below it */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "PASS tree-padded-reference synthetic-16bit-odd: approximate vs its r... word00 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, " word29\n                \xce\xbc-end\n"));   /* wrapped on spaces */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "      bound:    S/N loss <= the declared bound at every trial\n"));
    char *first = strstr(buf, "measured: word00");
    CU_ASSERT_PTR_NOT_NULL(first);
    free(buf);
    /* a short row is not cut nor padded at its end */
    snprintf(r.measured, sizeof r.measured, "identical bytes");
    r.state = XC_CHECK_SKIP;
    char line[XC_VD_WIDTH * 4 + 16];
    snprintf(r.check, sizeof r.check, "c");
    xc_vd_row_line(line, sizeof line, &r, 0);
    CU_ASSERT_STRING_EQUAL(line, "SKIP c                                                    identical bytes");
}

/* A small filterbank for the command-line cases (made once). */
static const char *small_fil(void)
{
    static char path[600];
    if (!path[0]) {
        snprintf(path, sizeof path, "%s/small.fil", xc_test_tmpdir());
        char args[1024];
        snprintf(args, sizeof args, "synth -nchans 32 -nbits 8 -tsamp 1000 -tobs 4 -fch1 1500 -foff -4 -seed 5 "
                                    "-o '%s' -quiet", path);
        CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    }
    return path;
}

XC_TEST_IF(test_progress_log, "dedisperse -progress, stderr a file: throttled lines with the total and the estimate",
           xc_fx_skip_no_bin)
{
    char args[2048], err[8192];
    const char *fil = small_fil();
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s/p' -impl reference -dmplan 0:100:1:1 -progress", fil,
             xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
    /* the memory first, then one line per tenth at most (gulps of 1/64 of the
     * data, doubling while they are fast), the last at 100 % */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "crosscheck dedisperse: about "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, " MiB of memory (gulps of up to "));
    int n = 0, last = -1, rising = 1;
    for (const char *s = err; (s = strstr(s, "\ndedisperse: ")); s++) {
        int pct = -1;
        unsigned long long done = 0, total = 0;
        CU_ASSERT_EQUAL(sscanf(s, "\ndedisperse: %d%% (%llu/%llu samples)", &pct, &done, &total), 3);
        rising &= pct > last;
        last = pct;
        n++;
        CU_ASSERT_PTR_NOT_NULL(strstr(s, " elapsed"));
    }
    if (n < 3 || n > 11 || !rising || last != 100)
        printf("\n%s", err);
    CU_ASSERT_TRUE(n >= 3 && n <= 11);   /* observed n lines: several, never more than a line per tenth and the end */
    CU_ASSERT_TRUE(rising);
    CU_ASSERT_EQUAL(last, 100);
    CU_ASSERT_PTR_NULL(strchr(err, '\r'));   /* no terminal redraws in a log */
    /* without -progress a run this short is silent but for its summary; -quiet is silent */
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s/p' -impl reference -dmplan 0:100:1:1", fil,
             xc_test_tmpdir());
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(strstr(err, "%"));
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s/p' -impl reference -dmplan 0:100:1:1 -quiet -progress",
             fil, xc_test_tmpdir());
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(err, "");
}

/* The progress lines of one command's stderr "LABEL: P% (D/T...", counted;
 * 1 when they rise to 100 % with neither more than a line per tenth and
 * the end nor a terminal redraw. */
static int progress_lines(const char *err, const char *label, int *n)
{
    char key[64];
    snprintf(key, sizeof key, "%s: ", label);
    int last = -1, rising = 1;
    *n = 0;
    for (const char *s = err; (s = strstr(s, key)); s++) {
        if (s != err && s[-1] != '\n')
            continue;
        int pct = -1;
        unsigned long long done = 0, total = 0;
        if (sscanf(s + strlen(key), "%d%% (%llu/%llu)", &pct, &done, &total) != 3)
            continue;
        rising &= pct > last && done <= total;
        last = pct;
        (*n)++;
    }
    return rising && last == 100 && *n <= 11 && !strchr(err, '\r');
}

XC_TEST_IF(test_progress_search, "pulscan and accel -progress: lines rising to 100 % with the total; -quiet silent",
           xc_fx_skip_no_bin)
{
    char args[2048], err[8192];
    const char *tmp = xc_test_tmpdir();
    snprintf(args, sizeof args, "synth -dedispersed -nchans 16 -nbits 8 -tsamp 256 -tobs 20 -fch1 1500 -foff -4 "
                                "-period 40 -snrpeak 2 -dm 10 -seed 4 -o '%s/ps' -quiet", tmp);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    snprintf(args, sizeof args, "fft -i '%s/ps.dat' -o '%s/ps'", tmp, tmp);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    /* the Pulscan reference reports each width of each stage (11 x 2), the
     * accel pipeline its start and each block: at least a line at 0 % and
     * one at 100 % */
    static const char *const cmd[2][2] = {{"pulscan", "-impl reference -zmax 20 -numharm 2"},
                                          {"accel", "-impl cpu -zmax 20 -numharm 2"}};
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "%s -i '%s/ps.fft' %s -o '%s/c%d.csv' -progress", cmd[k][0], tmp, cmd[k][1], tmp,
                 k);
        CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
        int n = 0, ok = progress_lines(err, cmd[k][0], &n);
        if (!ok || n < 2)
            printf("\n%s", err);
        CU_ASSERT_TRUE(ok);
        CU_ASSERT_TRUE(n >= 2);
        snprintf(args, sizeof args, "%s -i '%s/ps.fft' %s -o '%s/c%d.csv' -progress -quiet", cmd[k][0], tmp, cmd[k][1],
                 tmp, k);
        CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
        CU_ASSERT_STRING_EQUAL(err, "");
    }
}

XC_TEST_IF(test_max_memory, "dedisperse -max_memory: smaller gulps, the same plane; refused (exit 2) below its least",
           xc_fx_skip_no_bin)
{
    char args[2048], err[4096];
    const char *fil = small_fil(), *tmp = xc_test_tmpdir();
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s/whole' -impl cpu -dmplan 0:100:1:1,100:200:2:2 -quiet",
             fil, tmp);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    /* 150 trials of 32 channels, the largest delay 68 samples: 2.1 MiB in
     * one gulp of 3932 samples (664 bytes each), 24 KiB in the smallest (2) */
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s/bounded' -impl cpu -dmplan 0:100:1:1,100:200:2:2 "
                                "-max_memory 500K -progress", fil, tmp);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
    double kib = 0;
    const char *m = strstr(err, "about ");
    CU_ASSERT_TRUE_FATAL(m && sscanf(m, "about %lf KiB", &kib) == 1);
    XC_ASSERT_NEAR(kib, 500, 0.7);   /* the gulp as large as the bound allows: within one gulp sample (0.65 KiB) */
    CU_ASSERT_TRUE(kib <= 500.05);   /* and not above it (0.05: the printed rounding) */
    for (int k = 0; k < 2; k++) {
        char a[700], b[700], da[1 << 16], db[1 << 16];
        snprintf(a, sizeof a, "%s/whole.r%d.npy", tmp, k);
        snprintf(b, sizeof b, "%s/bounded.r%d.npy", tmp, k);
        FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fa);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fb);
        size_t na, nb, same = 1, total = 0;
        while ((na = fread(da, 1, sizeof da, fa)) > 0) {
            nb = fread(db, 1, sizeof db, fb);
            same &= na == nb && !memcmp(da, db, na);
            total += na;
        }
        same &= fread(db, 1, 1, fb) == 0;
        fclose(fa);
        fclose(fb);
        CU_ASSERT_TRUE(same && total > 0);   /* bit for bit: the gulps do not change the plane */
    }
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s/refused' -impl cpu -dmplan 0:100:1:1,100:200:2:2 "
                                "-max_memory 20K", fil, tmp);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "in gulps of 2: needs about 24.1 KiB, more than -max_memory 20.0 KiB"));
    snprintf(args, sizeof args, "%s/refused.json", tmp);
    CU_ASSERT_FALSE(xc_fx_exists(args));
    snprintf(args, sizeof args, "dedisperse -i '%s' -o '%s/bad' -max_memory 4Q", fil, tmp);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-max_memory: '4Q'"));
}

/* Occurrences of needle in hay. */
static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *s = hay; (s = strstr(s, needle)); s++)
        n++;
    return n;
}

XC_TEST_IF(test_run_table_once, "run: each check once in stdout and stderr together, every line within 120 columns",
           xc_fx_skip_no_bin)
{
    const char *tmp = xc_test_tmpdir();
    char spec[700], cmd[3000], out[700];
    snprintf(spec, sizeof spec, "%s/tiny.json", tmp);
    snprintf(out, sizeof out, "%s/both.txt", tmp);
    xc_fx_write_text(spec, "{\"description\": \"tiny\", \"convention\": \"crosscheck\", \"synthetic\": [{\"name\": "
                           "\"tiny-8bit\", \"dmplan\": \"0:100:1:1,100:200:2:2\", \"synth\": {\"nchans\": 64, "
                           "\"nbits\": 8, \"tsamp_us\": 128, \"tobs_s\": 1.0, \"fch1\": 1500.0, \"foff\": -2.0, "
                           "\"seed\": 3, \"pulses\": [{\"t_s\": 0.5, \"dm\": 50.0, \"width_ms\": 2.0, \"snr\": "
                           "20.0}]}}]}\n");
    /* as make run shows it: stdout and stderr on one screen */
    snprintf(cmd, sizeof cmd, "'%s' run -spec '%s' -impl cpu -threads 2 -out '%s/run' > '%s' 2>&1", xc_fx_bin(), spec,
             tmp, out);
    int rc = system(cmd);
    CU_ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    static char text[1 << 16];
    xc_fx_slurp_into(out, text, sizeof text);
    /* 7 checks: the plane, one thread against many, the pulse in each plane;
     * the single-pulse search of the reference plane by the reference and
     * cpu searchers, each finding the pulse, and cpu's list against the
     * reference's */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "7 checks, 0 failed"));
    CU_ASSERT_EQUAL(count(text, "tiny-8bit: plane vs reference"), 1);
    CU_ASSERT_EQUAL(count(text, "tiny-8bit: 1 thread vs many"), 1);
    CU_ASSERT_EQUAL(count(text, "tiny-8bit: pulse 0 (DM 50 at 0.500 s)"), 2);   /* reference and cpu */
    CU_ASSERT_EQUAL(count(text, "     impl "), 1);   /* one header */
    CU_ASSERT_EQUAL(count(text, "tiny-8bit: single-pulse search: pulse 0"), 2);
    CU_ASSERT_EQUAL(count(text, "tiny-8bit: single-pulse candidates"), 1);
    CU_ASSERT_EQUAL(count(text, "PASS "), 7);
    size_t w = widest(text);
    if (w > XC_VD_WIDTH)
        printf("\n%s", text);
    CU_ASSERT_TRUE(w <= XC_VD_WIDTH);   /* observed w, limit 120 */
    CU_ASSERT_PTR_NULL(strstr(text, "nan"));
}

XC_TEST_MAIN("cliview")
