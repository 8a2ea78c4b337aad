/* test_regress.c: inputs that once broke a reader (datasets/fuzz-findings,
 * found by libFuzzer under ASan and UBSan) and the class each belonged to:
 * every one must give a clear error naming the field and its value, and no
 * allocation may be sized by a header field before the file's size
 * confirms it.  Each case checks the status and the message. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "compare/xc_cmpcands.h"
#include "core/search/xc_cands.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/io/xc_filterbank.h"
#include "core/io/xc_npy.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/io/xc_presto.h"
#include "tests/xc_assert.h"
#include "tests/xc_test.h"

static const char *finding(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/fuzz-findings/%s", xc_test_datasets(), name);
    return buf;
}

static void expect(xc_status st, xc_status want, const xc_error *e, const char *needle)
{
    if (st != want || !strstr(e->msg, needle))
        printf("\n  observed status %d, message '%s'; expected status %d with '%s'", (int)st, st ? e->msg : "",
               (int)want, needle);
    CU_ASSERT_EQUAL(st, want);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->msg, needle));
}

/* A .npy whose header is what the caller gives, then nbytes of data. */
static const char *npy_with(const char *name, int version, const char *dict, size_t nbytes)
{
    static char path[600];
    snprintf(path, sizeof path, "%s/%s", xc_test_tmpdir(), name);
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return path;
    size_t hl = strlen(dict);
    fwrite("\x93NUMPY", 1, 6, fp);
    fputc(version, fp);
    fputc(0, fp);
    fputc((int)(hl & 0xff), fp);
    fputc((int)(hl >> 8), fp);
    if (version > 1) {
        fputc(0, fp);
        fputc(0, fp);
    }
    fwrite(dict, 1, hl, fp);
    for (size_t i = 0; i < nbytes; i++)
        fputc(0, fp);
    fclose(fp);
    return path;
}

XC_TEST(test_regress_npy, "npy header and shape checked against the file's size")
{
    char p[600];
    float *d = NULL;
    size_t r = 0, c = 0;
    xc_error e;
    expect(xc_npy_read_f32(finding("header-length.npy", p, sizeof p), &d, &r, &c, &e), XC_EFORMAT, &e,
           "header length");
    CU_ASSERT_PTR_NULL(d);
    /* a shape whose product overflows size_t, and one larger than the data */
    const char *big = "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }";
    expect(xc_npy_read_f32(npy_with("big.npy", 1, big, 64), &d, &r, &c, &e), XC_EFORMAT, &e, "shape");
    const char *more = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }";
    expect(xc_npy_read_f32(npy_with("short.npy", 1, more, 59), &d, &r, &c, &e), XC_EFORMAT, &e, "shape");
    CU_ASSERT_PTR_NULL(d);
    /* a dimension with a sign: %llu made (-1, 0) a 2^64 - 1 row array */
    expect(xc_npy_read_f32(finding("negative-shape.npy", p, sizeof p), &d, &r, &c, &e), XC_EFORMAT, &e,
           "shape: (-1, 0) holds a sign");
    /* the same header with the right amount of data reads */
    CU_ASSERT_EQUAL(xc_npy_read_f32(npy_with("ok.npy", 1, more, 60), &d, &r, &c, &e), XC_OK);
    CU_ASSERT_EQUAL(r, 3u);
    CU_ASSERT_EQUAL(c, 5u);
    free(d);
}

XC_TEST(test_regress_dmplan, "DM plan numbers range-checked before use")
{
    char p[600];
    xc_dmplan pl;
    xc_error e;
    expect(xc_dmplan_read(&pl, finding("huge-inbin.dmplan", p, sizeof p), &e), XC_EINVAL, &e, "inBin");
    expect(xc_dmplan_parse(&pl, "0:10:1:1e300", "-dmplan", &e), XC_EINVAL, &e, "downsample");
    /* more trials than any plane could hold: refused before the list is made */
    expect(xc_dmplan_parse(&pl, "0:1e9:1", "-dmplan", &e), XC_EINVAL, &e, "trials");
    expect(xc_dmplan_parse(&pl, "0:6e6:1,6e6:12e6:1", "-dmplan", &e), XC_EINVAL, &e, "the plan 12000000");
    expect(xc_dmplan_tolerance(&pl, 0, 1e6, 64e-6, 40, 1500, -0.1, 4096, 1 + 1e-12, &e), XC_EINVAL, &e,
           "trials");
    /* fuzz_cmdline: -dm_tol 7.7e43 made the second trial inf (converted to
     * float out of range); an -hidm beyond a float never ends in a float */
    expect(xc_dmplan_tolerance(&pl, 0, 1000, 64e-6, 40, 1500, -0.1, 4096, 7.7777e43, &e), XC_EINVAL, &e,
           "beyond a float");
    expect(xc_dmplan_tolerance(&pl, 0, 1e39, 64e-6, 40, 1500, -0.1, 4096, 1.25, &e), XC_EINVAL, &e, "-hidm 1e+39");
    /* a comment line longer than 1024 bytes, with "50:60:1" in its tail:
     * one range, the tail is still comment */
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_read(&pl, finding("long-comment.dmplan", p, sizeof p), &e), XC_OK);
    CU_ASSERT_EQUAL(pl.nranges, 1);
    CU_ASSERT_EQUAL(xc_dmplan_ndm(&pl), 10u);
    xc_dmplan_free(&pl);
    snprintf(p, sizeof p, "%s/nul.dmplan", xc_test_tmpdir());
    FILE *nf = fopen(p, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(nf);
    fwrite("0:10:1:1\0 50:60:1\n", 1, 19, nf);
    fclose(nf);
    expect(xc_dmplan_read(&pl, p, &e), XC_EINVAL, &e, "line 1: holds a NUL byte");
    CU_ASSERT_EQUAL(xc_dmplan_parse(&pl, "0:100:0.5:2", "-dmplan", &e), XC_OK);
    CU_ASSERT_EQUAL(xc_dmplan_ndm(&pl), 200u);
    xc_dmplan_free(&pl);
}

XC_TEST(test_regress_cands, "candidate fields range-checked; .pulscand refuses an r beyond its int")
{
    char p[600];
    xc_candlist l;
    xc_error e;
    xc_candlist_init(&l);
    expect(xc_cands_read_accel(&l, finding("huge-r_ACCEL_200", p, sizeof p), &e), XC_EFORMAT, &e, "line 7: r:");
    xc_candlist_free(&l);
    /* a CSV with z = inf and one with r = -3 */
    const char *csv[] = {"r,f_hz,z,width,numharm,power,dof,logp,sigma,fdot_hz_s,accel_m_s2,ntrials\n"
                         "10,1,inf,0,1,30,2,-15,4,0,0,100\n",
                         "r,f_hz,z,width,numharm,power,dof,logp,sigma,fdot_hz_s,accel_m_s2,ntrials\n"
                         "-3,1,0,0,1,30,2,-15,4,0,0,100\n"};
    const char *field[] = {"z: inf", "r: -3"};
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/bad%d.csv", xc_test_tmpdir(), k);
        FILE *fp = fopen(p, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        fputs(csv[k], fp);
        fclose(fp);
        xc_candlist_init(&l);
        expect(xc_cands_read_csv(&l, p, &e), XC_EFORMAT, &e, field[k]);
        xc_candlist_free(&l);
    }
    /* fuzz_cands_csv: a CSV row with numharm 0 (in range for our CSV) was
     * written to a .pulscand that the .pulscand reader refuses */
    xc_candlist_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_cands_read_csv(&l, finding("numharm-zero.csv", p, sizeof p), &e), XC_OK);
    CU_ASSERT_EQUAL_FATAL(l.n, 2u);
    CU_ASSERT_EQUAL(l.c[1].numharm, 0);
    snprintf(p, sizeof p, "%s/h0.pulscand", xc_test_tmpdir());
    expect(xc_cands_write_pulscand(&l, p, &e), XC_EINVAL, &e, "candidate 2: numharm 0");
    struct stat sb0;
    CU_ASSERT_NOT_EQUAL(stat(p, &sb0), 0);
    xc_candlist_free(&l);
    /* the fuzz input as found: NUL bytes inside lines would cut them short
     * and hide the rest of each line; every text reader of candidates
     * refuses them */
    xc_candlist_init(&l);
    expect(xc_cands_read_csv(&l, finding("nul-in-line.csv", p, sizeof p), &e), XC_EFORMAT, &e,
           "line 3: holds a NUL byte");
    CU_ASSERT_EQUAL(l.n, 0u);
    snprintf(p, sizeof p, "%s/nul.pulscand", xc_test_tmpdir());
    FILE *nf = fopen(p, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(nf);
    fputs("     sigma      power  period_ms   frequency_hz       rbin          f-dot          z   acceleration"
          "           logp   harmonic\n", nf);
    static const char row[] = "  5.000000    30.0000 100.000000       10.000000       1000     0.00000000          0"
                              "       0.000000     -15.000000          1\0junk\n";
    fwrite(row, 1, sizeof row - 1, nf);
    fclose(nf);
    expect(xc_cands_read_pulscand(&l, p, 100, &e), XC_EFORMAT, &e, "line 2: holds a NUL byte");
    xc_candlist_free(&l);
    /* the writer: r beyond Pulscan's int is refused, and no file is left */
    xc_candlist_init(&l);
    l.T = 100;
    xc_cand c;
    memset(&c, 0, sizeof c);
    c.r = 3e9;
    c.numharm = 1;
    c.sigma = 5;
    CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&l, &c, &e), XC_OK);
    snprintf(p, sizeof p, "%s/big.pulscand", xc_test_tmpdir());
    expect(xc_cands_write_pulscand(&l, p, &e), XC_EINVAL, &e, "int");
    struct stat sb;
    CU_ASSERT_NOT_EQUAL(stat(p, &sb), 0);
    xc_candlist_free(&l);
}

/* A plan whose tables cannot fit is refused before they are made, with the
 * size it needs and the option that avoids it. */
XC_TEST(test_regress_plan_memory, "delay tables beyond memory refused before allocating")
{
    xc_dmplan pl;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&pl, "0:1000000:0.1", "-dmplan", &e), XC_OK);
    xc_geometry g = {65536, 1500, -0.01, 64e-6};
    xc_ddjob job;
    xc_status st = xc_ddjob_prepare(&job, 65536, 8, &pl, xc_convention_get("crosscheck"), &g, NULL, &e);
    expect(st, XC_ENOMEM, &e, "would need 2.62e+03 GB");
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "-dmplan"));
    if (!st)
        xc_ddjob_free(&job);
    xc_dmplan_free(&pl);
}

/* Writes text to o with its first from (when from is given and found) replaced by to. */
static void put_replaced(FILE *o, const char *text, const char *from, const char *to)
{
    const char *at = from ? strstr(text, from) : NULL;
    if (at) {
        fwrite(text, 1, (size_t)(at - text), o);
        fputs(to, o);
        fputs(at + strlen(from), o);
    } else {
        fputs(text, o);
    }
}

/* A plane-file fuzz input (JSON, a NUL byte, range 0's .npy) written out as
 * p.json and p.r0.npy, with the JSON's text `from` replaced by `to` and, if
 * fix, the finding's nchans_used 17 made 16. */
static const char *plane_with(const char *finding_name, const char *from, const char *to, int fix)
{
    static char json[700];
    char p[600], npy[700];
    FILE *fp = fopen(finding(finding_name, p, sizeof p), "rb");
    if (!fp)
        return "";
    static char buf[1 << 16], text[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    const char *nul = memchr(buf, 0, n);
    if (!nul)
        return "";
    size_t jl = (size_t)(nul - buf);
    memcpy(text, buf, jl);
    text[jl] = '\0';
    char *u = fix ? strstr(text, "\"nchans_used\": 17") : NULL;
    if (u)
        u[strlen("\"nchans_used\": 1")] = '6';
    snprintf(json, sizeof json, "%s/p.json", xc_test_tmpdir());
    snprintf(npy, sizeof npy, "%s/p.r0.npy", xc_test_tmpdir());
    FILE *j = fopen(json, "w"), *a = fopen(npy, "wb");
    if (!j || !a)
        return "";
    put_replaced(j, text, from, to);
    fwrite(nul + 1, 1, n - jl - 1, a);
    fclose(j);
    fclose(a);
    return json;
}

XC_TEST(test_regress_planefile, "plane-file numbers range-checked before use; nchans confirmed by freqs_mhz")
{
    xc_planefile pf;
    xc_error e;
    expect(xc_planefile_read(&pf, plane_with("nchans-used.plane", NULL, NULL, 0), &e), XC_EFORMAT, &e,
           "nchans_used: 17 is outside 0..nchans (16)");
    /* the same file with the count it should have reads */
    CU_ASSERT_EQUAL_FATAL(xc_planefile_read(&pf, plane_with("nchans-used.plane", NULL, NULL, 1), &e), XC_OK);
    CU_ASSERT_EQUAL(pf.meta.nchans_used, 16);
    CU_ASSERT_EQUAL(pf.plane.r[0].ndm, 3u);
    xc_planefile_free(&pf);
    /* the class: a channel count the file does not hold (it sized an
     * allocation), a downsample of 0, DMs out of order, nbits 3, tsamp 0 */
    const char *from[] = {"\"nchans\": 16", "\"downsample\": 2", "0.0,\n    1.0", "\"nbits\": 8",
                          "\"tsamp\": 0.001"};
    const char *to[] = {"\"nchans\": 2000000000", "\"downsample\": 0", "1.0,\n    0.0", "\"nbits\": 3",
                        "\"tsamp\": 0"};
    const char *field[] = {"nchans: 2000000000", "downsample: 0", "dms[1]", "nbits: 3", "tsamp: 0"};
    for (int k = 0; k < 5; k++)
        expect(xc_planefile_read(&pf, plane_with("nchans-used.plane", from[k], to[k], 1), &e), XC_EFORMAT, &e, field[k]);
}

XC_TEST(test_regress_cli_u64, "a u64 option takes digits only (a blank then -1 was 2^64-1)")
{
    const char *bin = getenv("XC_BIN");
    char cmd[1400];
    const char *vals[] = {"' -1'", "\"$(printf '\\v-1')\"", "-1", "+7"};
    for (int k = 0; k < 4; k++) {
        snprintf(cmd, sizeof cmd, "\"%s\" synth -seed %s -nchans 8 -nbits 8 -tobs 0.01 -o %s/u64.fil 2>/dev/null",
                 bin && *bin ? bin : "bin/crosscheck", vals[k], xc_test_tmpdir());
        int rc = system(cmd);
        if (!(WIFEXITED(rc) && WEXITSTATUS(rc) == 2))
            printf("\n  %s: exit %d, expected 2", cmd, WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
        CU_ASSERT(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    }
    /* digits still parse */
    snprintf(cmd, sizeof cmd, "\"%s\" synth -seed 18446744073709551615 -nchans 8 -nbits 8 -tobs 0.01 -o %s/u64.fil "
             ">/dev/null 2>&1", bin && *bin ? bin : "bin/crosscheck", xc_test_tmpdir());
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/* A text finding with its first `from` replaced by `to`, written as `name`
 * in the test's folder. */
static const char *text_with(const char *finding_name, const char *from, const char *to, const char *name)
{
    static char out[700];
    char p[600], text[1 << 14];
    FILE *fp = fopen(finding(finding_name, p, sizeof p), "r");
    if (!fp)
        return "";
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    snprintf(out, sizeof out, "%s/%s", xc_test_tmpdir(), name);
    FILE *o = fopen(out, "w");
    if (!o)
        return "";
    put_replaced(o, text, from, to);
    fclose(o);
    return out;
}

XC_TEST(test_regress_inf, ".inf N a whole number >= 1, dt > 0, MJD >= 0 (the writer's layout)")
{
    char p[600];
    xc_inf inf;
    xc_error e;
    expect(xc_inf_read(&inf, finding("n-zero.inf", p, sizeof p), &e), XC_EFORMAT, &e,
           "Number of bins in the time series: 0 is not a whole number");
    expect(xc_inf_read(&inf, finding("negative-mjd.inf", p, sizeof p), &e), XC_EFORMAT, &e,
           "Epoch of observation (MJD): -0.5 must be >= 0");
    /* the class: a fractional N, a negative dt; and the good file reads */
    const char *nline = "time series      =  0";
    expect(xc_inf_read(&inf, text_with("n-zero.inf", nline, "time series      =  1.5", "half.inf"), &e), XC_EFORMAT,
           &e, "1.5 is not a whole number");
    const char *good = text_with("n-zero.inf", nline, "time series      =  64", "good.inf");
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, good, &e), XC_OK);
    CU_ASSERT_EQUAL(inf.n, 64.0);
    /* a NUL byte inside a line ("=  64" NUL, then the next line's text):
     * the rest of the line went unseen */
    expect(xc_inf_read(&inf, finding("nul-in-line.inf", p, sizeof p), &e), XC_EFORMAT, &e,
           "line 10: holds a NUL byte");
    expect(xc_inf_read(&inf, text_with("n-zero.inf", "=  0\n Width of each time series bin (sec)    =  0.001",
                                       "=  64\n Width of each time series bin (sec)    =  -0.001", "negdt.inf"), &e),
           XC_EFORMAT, &e,
           "Width of each time series bin (sec): -0.001 must be > 0");
}

XC_TEST(test_regress_truth, "truth r = f0 T must be finite")
{
    char p[600];
    xc_truth t;
    xc_error e;
    expect(xc_truth_read(&t, finding("huge-r.truth.json", p, sizeof p), 0, &e), XC_EFORMAT, &e,
           "r = f0 1e+300 Hz x T 1e+300 s is not finite");
    /* with the caller's T the product is finite and the file reads */
    CU_ASSERT_EQUAL(xc_truth_read(&t, p, 1000, &e), XC_OK);
    CU_ASSERT_DOUBLE_EQUAL(t.r, 1e303, 1e288);
}

XC_TEST(test_regress_fb_empty, "a filterbank needs one spectrum: only the data confirm nchans")
{
    char p[600];
    xc_fbreader *r = NULL;
    xc_error e;
    expect(xc_fbreader_open(&r, finding("header-only.fil", p, sizeof p), NULL, &e), XC_EFORMAT, &e,
           "no spectra after the header (byte 106); 2147483640 channels");
    CU_ASSERT_PTR_NULL(r);
}

XC_TEST_MAIN("regress")
