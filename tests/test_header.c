/* test_header.c: crosscheck header on a synthetic filterbank (every key and
 * the derived geometry, as JSON), a SIGPROC .tim, PRESTO's padded .dat/.inf,
 * and bad files (exit 2 naming the file, the field and the value). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* Runs `crosscheck header ARGS -json` and parses what it prints; NULL
 * (with the exit status in *rc) when it fails. */
static json_t *header_json(const char *args, int *rc)
{
    char cmd[4096], out[1 << 16];
    snprintf(cmd, sizeof cmd, "'%s' header %s -json 2>/dev/null", xc_fx_bin(), args);
    FILE *p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (*rc != 0)
        return NULL;
    json_error_t je;
    json_t *o = json_loads(out, 0, &je);
    if (!o)
        printf("\n  not JSON (%s): %.200s", je.text, out);
    return o;
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    if (!json_is_number(v))
        printf("\n  key '%s' missing or not a number", k);
    CU_ASSERT_FATAL(json_is_number(v));
    return json_number_value(v);
}

static const char *make_fil(void)
{
    static char fil[512];
    xc_fx_tmp_path(fil, sizeof fil, "hdr.fil");
    char args[1024];
    snprintf(args, sizeof args, "synth -quiet -nchans 32 -nbits 8 -tsamp 256 -tobs 1 -fch1 1500 -foff -4 -period 50 "
             "-dm 40 -seed 5 -tstart 58000.5 -o '%s'", fil);
    if (!xc_fx_exists(fil))
        CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    return fil;
}

XC_TEST_IF(test_filterbank_keys, "filterbank_keys", xc_fx_skip_no_bin)
{
    const char *fil = make_fil();
    char args[1024];
    snprintf(args, sizeof args, "'%s' -dm 40", fil);
    int rc;
    json_t *o = header_json(args, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    /* SIGPROC's keywords as written, and the derived geometry: 1 s of 256 us
     * samples (3906), 32 one-byte channels, channel centres 1500 .. 1376 MHz
     * so edges 1502 and 1374 */
    const char *k[] = {"nchans", "nbits", "nifs", "tsamp", "fch1", "foff", "tstart", "data_type", "nsamples",
                       "bytes_per_spectrum", "ftop", "fbottom", "fcentre", "bandwidth"};
    const double want[] = {32, 8, 1, 256e-6, 1500, -4, 58000.5, 1, 3906, 32, 1502, 1374, 1438, 128};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        double got = num(o, k[i]);
        if (got != want[i])
            printf("\n  %s: %.17g, expected %.17g (exact)", k[i], got, want[i]);
        CU_ASSERT_EQUAL(got, want[i]);
    }
    /* tobs = nsamples * tsamp, and the header's own size plus the data's is the file's */
    XC_ASSERT_CLOSE(num(o, "tobs"), 3906 * 256e-6, 1e-12);
    size_t size = 0;
    free(xc_fx_slurp(fil, &size));
    CU_ASSERT_EQUAL(num(o, "headersize") + num(o, "datasize"), (double)size);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "kind")), "SIGPROC filterbank");
    /* the largest delay at DM 40 under the crosscheck convention (k_DM
     * 4148.808, nearest sample): k DM (1/1376^2 - 1/1500^2) / tsamp = 54.27 */
    double d = 4148.808 * 40 * (1 / (1376.0 * 1376.0) - 1 / (1500.0 * 1500.0)) / 256e-6;
    CU_ASSERT_EQUAL(num(o, "max_delay_samples"), floor(d + 0.5));
    CU_ASSERT_EQUAL(num(o, "output_samples"), 3906 - floor(d + 0.5));
    json_decref(o);
}

/* A PRESTO padded series: the .inf beside the .dat, its on/off pairs and
 * the data and padding they mean. */
XC_TEST_IF(test_presto_keys, "presto_keys", xc_fx_skip_no_bin)
{
    char args[1024];
    snprintf(args, sizeof args, "'%s'", xc_fx_dataset("presto/parkes_x2_nsub32_DM40.00.dat"));
    int rc;
    json_t *o = header_json(args, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    const char *k[] = {"N", "dt", "breaks", "data_bins", "padding_bins", "dm", "nchan", "bytes"};
    const double want[] = {8192, 0.000512, 1, 2400, 5792, 40, 832, 32768};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        CU_ASSERT_EQUAL(num(o, k[i]), want[i]);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(o, "onoff")), 2);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "telescope")), "Parkes");
    json_decref(o);
}

/* Bad files: exit 2, the file, the field and the value named. */
XC_TEST_IF(test_bad_files, "bad_files", xc_fx_skip_no_bin)
{
    const char *fil = make_fil();
    char cut[512], dat[512], inf[512], args[1400], err[2048];
    /* a header cut inside the keyword list */
    xc_fx_tmp_path(cut, sizeof cut, "hdr_cut.fil");
    size_t n = 0;
    unsigned char *b = xc_fx_slurp(fil, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    FILE *fp = fopen(cut, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fwrite(b, 1, 60, fp);
    fclose(fp);
    free(b);
    snprintf(args, sizeof args, "header '%s'", cut);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, cut));
    /* a .dat shorter than its .inf's N */
    xc_fx_tmp_path(dat, sizeof dat, "hdr_short.dat");
    xc_fx_tmp_path(inf, sizeof inf, "hdr_short.inf");
    b = xc_fx_slurp(xc_fx_dataset("presto/parkes_x2_nsub32_DM40.00.inf"), &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    fp = fopen(inf, "wb");
    fwrite(b, 1, n, fp);
    fclose(fp);
    free(b);
    fp = fopen(dat, "wb");
    float zero[100] = {0};
    fwrite(zero, sizeof(float), 100, fp);
    fclose(fp);
    snprintf(args, sizeof args, "header '%s'", dat);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "size: 400 bytes, but N = 8192"));
    /* a fuzz finding: an .npy whose header length claims 1.9 GB */
    snprintf(args, sizeof args, "header '%s'", xc_fx_dataset("fuzz-findings/header-length.npy"));
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "header length: 1919903271 bytes"));
    /* -dm applies to filterbanks only */
    snprintf(args, sizeof args, "header '%s' -dm 10", inf);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "filterbanks only"));
}

XC_TEST_MAIN("header")
