/* test_presto.c: PRESTO .inf and .dat, checked against the GBT_J1807-0847
 * files PRESTO wrote (datasets/sigpyproc3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/io/xc_fft.h"
#include "core/io/xc_presto.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

static int skip_no_fixtures(char *why, size_t n)
{
    char path[512];
    xc_fx_sigpyproc_path(path, sizeof path, "GBT_J1807-0847.inf");
    return xc_fx_skip_missing(path, why, n);
}

/* Reads a text file into lines (at most max); returns the count or -1. */
static int read_lines(const char *path, char lines[][256], int max)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    int n = 0;
    while (n < max && fgets(lines[n], 256, fp))
        n++;
    fclose(fp);
    return n;
}

/* The numbers of an .inf in the order of inf_numbers' names: each is read
 * and written exactly, as decimal text. */
#define INF_NUMBERS "n dt beam_diam dm freq_low bw nchan chan_wid"
enum { NNUMBERS = 8 };

static void check_inf_numbers(const xc_inf *inf, const double want[NNUMBERS])
{
    const double got[NNUMBERS] = {inf->n, inf->dt, inf->beam_diam, inf->dm, inf->freq_low, inf->bw, inf->nchan,
                                  inf->chan_wid};
    xc_fx_assert_fields(INF_NUMBERS, got, want, NNUMBERS);
}

/* The names of an .inf: name, telescope, instrument, object, ra, dec and
 * observer. */
enum { NNAMES = 7 };

static void check_inf_names(const xc_inf *inf, const char *const want[NNAMES])
{
    const char *got[NNAMES] = {inf->name, inf->telescope, inf->instrument, inf->object, inf->ra, inf->dec,
                               inf->observer};
    for (int k = 0; k < NNAMES; k++)
        CU_ASSERT_STRING_EQUAL(got[k], want[k]);
}

static void set_inf_names(xc_inf *inf, const char *const v[NNAMES])
{
    char *dst[NNAMES] = {inf->name, inf->telescope, inf->instrument, inf->object, inf->ra, inf->dec, inf->observer};
    for (int k = 0; k < NNAMES; k++)
        strcpy(dst[k], v[k]);
}

static void set_inf_numbers(xc_inf *inf, const double v[NNUMBERS])
{
    inf->n = v[0];
    inf->dt = v[1];
    inf->beam_diam = v[2];
    inf->dm = v[3];
    inf->freq_low = v[4];
    inf->bw = v[5];
    inf->nchan = (int)v[6];
    inf->chan_wid = v[7];
}

XC_TEST_IF(test_fixture_inf, "fixture_inf", skip_no_fixtures)
{
    char path[512];
    xc_fx_sigpyproc_path(path, sizeof path, "GBT_J1807-0847.inf");
    xc_inf inf;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, path, &err), XC_OK);
    check_inf_names(&inf, (const char *const[NNAMES]){"GBT_J1807-0847", "GBT", "VEGAS", "J1807-0847", "18:07:37.9999",
                                                      "-08:47:43.7463", "unset"});
    XC_ASSERT_CLOSE(inf.mjd, 59313.309837974340741, 1e-9);
    CU_ASSERT_EQUAL(inf.barycentered, 0);
    CU_ASSERT_EQUAL(inf.breaks, 0);
    CU_ASSERT_STRING_EQUAL(inf.band, "Radio");
    check_inf_numbers(&inf, (const double[NNUMBERS]){131072.0, 0.00016384, 234000.0, 112.3802, 720.78125, 200.0, 256,
                                                     0.78125});
    CU_ASSERT_STRING_EQUAL(inf.analyzer, "pkumar");
    CU_ASSERT_STRING_EQUAL(inf.notes, "Project ID unset, Date: 2021-04-09T07:26:10.001.\n"
                                      "    4 polns were not summed.  Samples have 8 bits.\n");
}

/* Writing the parsed file back gives PRESTO's bytes, line for line.  The MJD
 * line is the exception: xc_inf holds the epoch in one double (about 7e-12 d
 * resolution at MJD 59313), PRESTO in an integer day plus a fraction, so its
 * last digits differ and it is compared as a number. */
XC_TEST_IF(test_fixture_rewrite, "fixture_rewrite", skip_no_fixtures)
{
    char in[512], out[512];
    xc_fx_sigpyproc_path(in, sizeof in, "GBT_J1807-0847.inf");
    xc_fx_tmp_path(out, sizeof out, "rewrite.inf");
    xc_inf inf;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, in, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_inf_write(&inf, out, &err), XC_OK);
    static char a[64][256], b[64][256];
    int na = read_lines(in, a, 64), nb = read_lines(out, b, 64);
    CU_ASSERT_EQUAL(na, 25);
    CU_ASSERT_EQUAL_FATAL(nb, na);
    int same = 0;
    for (int i = 0; i < na; i++) {
        if (strstr(a[i], "Epoch of observation")) {
            CU_ASSERT_EQUAL(memcmp(a[i], b[i], 44), 0);
            CU_ASSERT(strlen(a[i]) == strlen(b[i]));
            XC_ASSERT_CLOSE(strtod(a[i] + 42, NULL), strtod(b[i] + 42, NULL), 1e-10);
            continue;
        }
        if (strcmp(a[i], b[i]) != 0)
            printf("\n  line %d differs:\n  <%s  >%s", i + 1, a[i], b[i]);
        CU_ASSERT_STRING_EQUAL(a[i], b[i]);
        same++;
    }
    CU_ASSERT_EQUAL(same, 24);
    /* The layout rule itself: '=' at byte 40 on every key line. */
    for (int i = 0; i < 20 && i < nb; i++)
        CU_ASSERT_EQUAL(b[i][40], '=');
    CU_ASSERT_STRING_EQUAL(b[9], " Number of bins in the time series      =  131072     \n");
}

XC_TEST(test_roundtrip, "roundtrip")
{
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "rt.inf");
    xc_inf w, r;
    xc_error err;
    xc_inf_init(&w);
    /* the observer is written as PRESTO's "Unknown" */
    static const char *const names[NNAMES] = {"synthetic_DM30.00", "Parkes", "crosscheck synth", "P: 250 ms",
                                              "05:34:31.9700", "22:00:52.1000", ""};
    static const double numbers[NNUMBERS] = {187520, 0.00032, 840, 30.25, 1441.33, 69.76, 64, 1.09};
    set_inf_names(&w, names);
    w.mjd = 60000.5;
    w.barycentered = 1;
    set_inf_numbers(&w, numbers);
    strcpy(w.notes, "two\n    lines");
    CU_ASSERT_EQUAL_FATAL(xc_inf_write(&w, path, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&r, path, &err), XC_OK);
    check_inf_names(&r, (const char *const[NNAMES]){names[0], names[1], names[2], names[3], names[4], names[5],
                                                    "Unknown"});
    CU_ASSERT_EQUAL(r.mjd, 60000.5);
    CU_ASSERT_EQUAL(r.barycentered, 1);
    check_inf_numbers(&r, numbers);
    CU_ASSERT_STRING_EQUAL(r.analyzer, "crosscheck");
    CU_ASSERT_STRING_EQUAL(r.notes, "two\n    lines");
    static char lines[64][256];
    CU_ASSERT_EQUAL(read_lines(path, lines, 64), 24);
    CU_ASSERT_STRING_EQUAL(lines[7], " Epoch of observation (MJD)             =  60000.500000000000000\n");
    CU_ASSERT_STRING_EQUAL(lines[10], " Width of each time series bin (sec)    =  0.00032\n");

    /* Artificial data: PRESTO leaves out the observation and band lines. */
    strcpy(w.telescope, "None (Artificial Data Set)");
    CU_ASSERT_EQUAL_FATAL(xc_inf_write(&w, path, &err), XC_OK);
    CU_ASSERT_EQUAL(read_lines(path, lines, 64), 10);
    CU_ASSERT_STRING_EQUAL(lines[8], "    lines\n");
    CU_ASSERT_STRING_EQUAL(lines[1], " Telescope used                         =  None (Artificial Data Set)\n");
    CU_ASSERT_STRING_EQUAL(lines[2], " Number of bins in the time series      =  187520     \n");
    CU_ASSERT_STRING_EQUAL(lines[5], " Data analyzed by                       =  crosscheck\n");
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&r, path, &err), XC_OK);
    CU_ASSERT_EQUAL(r.n, 187520.0);
    CU_ASSERT_EQUAL(r.dt, 0.00032);
    CU_ASSERT_STRING_EQUAL(r.telescope, "None (Artificial Data Set)");

    /* A fraction that rounds up at 15 decimals carries into the day. */
    strcpy(w.telescope, "GBT");
    w.mjd = nextafter(1.0, 0.0);   /* fraction 1 - 1.1e-16 */
    CU_ASSERT_EQUAL_FATAL(xc_inf_write(&w, path, &err), XC_OK);
    CU_ASSERT_EQUAL(read_lines(path, lines, 64), 24);
    CU_ASSERT_STRING_EQUAL(lines[7], " Epoch of observation (MJD)             =  1.000000000000000\n");
}

XC_TEST(test_bad_inf, "bad_inf")
{
    char path[512];
    xc_inf inf;
    xc_error err;
    xc_fx_tmp_path(path, sizeof path, "bad.inf");

    /* Each text is refused, the message naming the file and saying each of
     * says. */
    static const struct {
        const char *text, *says[3];
    } bad[] = {
        {" Data file name without suffix          =  x\n"
         " Telescope used                         =  None (Artificial Data Set)\n"
         " Number of bins in the time series      =  12abc\n",
         {"line 3", "Number of bins in the time series", "'12abc'"}},
        {" Data file name without suffix          =  x\n"
         " Favourite colour                       =  blue\n",
         {"line 2", "'Favourite colour'"}},
        {" Data file name without suffix          =  x\n"
         " Telescope used                         =  None (Artificial Data Set)\n"
         " Number of bins in the time series      =  100\n"
         " Width of each time series bin (sec)    =  0.001\n"
         " Any breaks in the data? (1 yes, 0 no)  =  2\n",
         {"line 5", "Any breaks in the data?", "'2' is neither 0 nor 1"}},
        /* The short form (no '=' at byte 40) is read through the last '='. */
        {" Data file name without suffix = x\n"
         " Telescope used = None (Artificial Data Set)\n"
         " Number of bins in the time series = 100\n"
         " Any additional notes:\n    n\n\n",
         {"'Width of each time series bin (sec)' line missing"}},
    };
    for (size_t k = 0; k < XC_NCASES(bad); k++) {
        xc_fx_write_text(path, bad[k].text);
        CU_ASSERT_EQUAL(xc_inf_read(&inf, path, &err), XC_EFORMAT);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
        for (int j = 0; j < 3 && bad[k].says[j]; j++)
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[k].says[j]));
    }
    xc_fx_write_text(path, " Data file name without suffix = x\n"
                     " Telescope used = None (Artificial Data Set)\n"
                     " Number of bins in the time series = 100\n"
                     " Width of each time series bin (sec) = 2.5e-4\n"
                     " Any additional notes:\n    n\n\n");
    CU_ASSERT_EQUAL(xc_inf_read(&inf, path, &err), XC_OK);
    CU_ASSERT_EQUAL(inf.dt, 2.5e-4);
    CU_ASSERT_STRING_EQUAL(inf.notes, "n");

    /* Writing what PRESTO could not read back is refused, leaving no file. */
    char out[512];
    xc_fx_tmp_path(out, sizeof out, "refused.inf");
    xc_inf_init(&inf);
    strcpy(inf.band, "X-ray");
    CU_ASSERT_EQUAL(xc_inf_write(&inf, out, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "X-ray"));
    xc_inf_init(&inf);
    strcpy(inf.object, "two\nlines");
    CU_ASSERT_EQUAL(xc_inf_write(&inf, out, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "Object being observed"));
    CU_ASSERT(!xc_fx_exists(out));
}

/* An artificial-data .inf of N = 100 bins with the given breaks line and
 * pair lines. */
static void write_breaks_inf(const char *path, const char *breaks, const char *pairs)
{
    char text[2048];
    snprintf(text, sizeof text,
             " Data file name without suffix          =  x\n"
             " Telescope used                         =  None (Artificial Data Set)\n"
             " Number of bins in the time series      =  100\n"
             " Width of each time series bin (sec)    =  0.001\n"
             " Any breaks in the data? (1 yes, 0 no)  =  %s\n%s"
             " Data analyzed by                       =  me\n"
             " Any additional notes:\n    n\n\n", breaks, pairs);
    xc_fx_write_text(path, text);
}

#define PAIR(k, on, off) " On/Off bin pair #  " #k "                   =  " #on "          , " #off "        \n"

/* prepsubband's padded series: breaks 1, the data 0..2399 and the marker
 * pair (N-1, N-1); read, counted and written back byte for byte. */
XC_TEST(test_padded_inf, "padded_inf")
{
    const char *in = xc_fx_dataset("presto/parkes_x2_nsub32_DM40.00.inf");
    char out[512];
    xc_fx_tmp_path(out, sizeof out, "padded.inf");
    xc_inf inf;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, in, &err), XC_OK);
    CU_ASSERT_EQUAL(inf.breaks, 1);
    CU_ASSERT_EQUAL_FATAL(inf.numonoff, 2);
    const double want[4] = {0, 2399, 8191, 8191};
    for (int k = 0; k < 4; k++)
        CU_ASSERT_EQUAL(inf.onoff[k], want[k]);
    CU_ASSERT_EQUAL(xc_inf_data_bins(&inf), 2400.0);
    CU_ASSERT_EQUAL_FATAL(xc_inf_write(&inf, out, &err), XC_OK);
    static char a[64][256], b[64][256];
    int na = read_lines(in, a, 64), nb = read_lines(out, b, 64);
    CU_ASSERT_EQUAL(na, 27);
    CU_ASSERT_EQUAL_FATAL(nb, na);
    for (int i = 0; i < na; i++) {
        if (strstr(a[i], "Epoch of observation")) {   /* one double: see fixture_rewrite */
            XC_ASSERT_CLOSE(strtod(a[i] + 42, NULL), strtod(b[i] + 42, NULL), 1e-10);
            continue;
        }
        if (strcmp(a[i], b[i]) != 0)
            printf("\n  line %d differs:\n  <%s  >%s", i + 1, a[i], b[i]);
        CU_ASSERT_STRING_EQUAL(a[i], b[i]);
    }
    /* set_padding makes prepdata's pairs; data to the end means no breaks */
    xc_inf_set_padding(&inf, 100);
    CU_ASSERT(inf.breaks == 1 && inf.numonoff == 2 && inf.onoff[1] == 99 && inf.onoff[2] == 8191);
    CU_ASSERT_EQUAL(xc_inf_data_bins(&inf), 100.0);
    xc_inf_set_padding(&inf, 8192);
    CU_ASSERT(inf.breaks == 0 && inf.numonoff == 0);
    CU_ASSERT_EQUAL(xc_inf_data_bins(&inf), 8192.0);
}

/* Pairs PRESTO's readinf could not read, or that say nothing sound, are
 * refused naming the file, the line or pair, and the value. */
XC_TEST(test_bad_onoff, "bad_onoff")
{
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "onoff.inf");
    static const struct {
        const char *breaks, *pairs, *says[2];
    } bad[] = {
        {"0", PAIR(1, 0, 99), {"line 6", "is not 1 above it"}},
        {"1", "", {"1 needs 1 to 39 On/Off bin pair lines, 0 given"}},
        {"1", PAIR(1, 0, 50) PAIR(1, 60, 99), {"line 7", "expected pair #2"}},
        {"1", PAIR(1, 0, 50), {"pair #1", "ends at 50, not at N-1 = 99"}},
        {"1", PAIR(1, 0, 50) PAIR(2, 40, 99), {"pair #2", "40, 99 is not in order"}},
        {"1", PAIR(1, 0, 150), {"pair #1", "0, 150 is not in order inside 0..N-1 = 99"}},
        {"1", " On/Off bin pair #  1                   =  0 ; 99\n", {"line 6", "'0 ; 99' is not two bin numbers"}},
        {"1", " On/Off bin pair #  1                   =  0.5, 99\n", {"line 6", "'0.5, 99'"}},
    };
    xc_inf inf;
    xc_error err;
    for (size_t k = 0; k < XC_NCASES(bad); k++) {
        write_breaks_inf(path, bad[k].breaks, bad[k].pairs);
        CU_ASSERT_EQUAL(xc_inf_read(&inf, path, &err), XC_EFORMAT);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
        for (int j = 0; j < 2 && bad[k].says[j]; j++) {
            if (!strstr(err.msg, bad[k].says[j]))
                printf("\n  case %zu: '%s' lacks '%s'", k, err.msg, bad[k].says[j]);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[k].says[j]));
        }
    }
    /* three stretches of data, read and written back the same */
    write_breaks_inf(path, "1", PAIR(1, 0, 9) PAIR(2, 20, 29) PAIR(3, 40, 99));
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, path, &err), XC_OK);
    CU_ASSERT_EQUAL(inf.numonoff, 3);
    CU_ASSERT_EQUAL(xc_inf_data_bins(&inf), 80.0);
    char out[512];
    xc_fx_tmp_path(out, sizeof out, "onoff_out.inf");
    CU_ASSERT_EQUAL_FATAL(xc_inf_write(&inf, out, &err), XC_OK);
    xc_inf back;
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&back, out, &err), XC_OK);
    CU_ASSERT_EQUAL(back.numonoff, 3);
    CU_ASSERT_EQUAL(memcmp(back.onoff, inf.onoff, 6 * sizeof(double)), 0);
    char text[2048];
    xc_fx_read_text(out, text, sizeof text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, " On/Off bin pair #  2                   =  20         , 29         \n"));
    /* the writer refuses pairs readinf would misread, leaving no file */
    inf.onoff[5] = 98;
    CU_ASSERT_EQUAL(xc_inf_write(&inf, out, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ends at 98"));
}

/* `crosscheck fft` on prepsubband's padded series: exit 0, the .inf kept
 * with its on/off pairs, and the transform of all N = 8192 samples (data and
 * padding, as realfft) against a direct DFT in double at every 8th bin,
 * DC and Nyquist.  No PRESTO .fft of this series exists here; the
 * GBT_J1807-0847 fixture checks the same code against PRESTO's realfft
 * (tests/test_fft.c).  Tolerance 8 u log2(N) ||x||_2 with u = 2^-24: a
 * float32 FFT's rounding error per bin grows as u ||x||_2 times at most
 * log2 N (Higham, Accuracy and Stability, 24.1); this series' mean (1e5)
 * makes ||x||_2 large against the bins k >= 1, so the bound is set on it and
 * not on max|X| (measured: 19 against a bound of about 60; DC, a plain sum
 * of 8192 values near 1e5, is off by 61 in 8.7e8). */
XC_TEST_IF(test_padded_fft, "padded_fft", xc_fx_skip_no_bin)
{
    const char *dat = xc_fx_dataset("presto/parkes_x2_nsub32_DM40.00.dat");
    char out[512], args[1400], path[600];
    xc_fx_tmp_path(out, sizeof out, "padded_fft");
    snprintf(args, sizeof args, "fft -i '%s' -o '%s'", dat, out);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    xc_inf inf;
    xc_error err;
    snprintf(path, sizeof path, "%s.inf", out);
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, path, &err), XC_OK);
    CU_ASSERT(inf.breaks == 1 && inf.numonoff == 2 && inf.onoff[1] == 2399);
    float *x = NULL, *X = NULL;
    size_t n = 0, nX = 0;
    snprintf(path, sizeof path, "%s.fft", out);
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(dat, &x, &n, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fft_read(path, &X, &nX, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(n, 8192);
    CU_ASSERT_EQUAL_FATAL(nX, n);
    /* over all bins and over k >= 1 alone: DC holds the series' large mean */
    double maxabs[2] = {0, 0}, maxdiff[2] = {0, 0};
    for (size_t k = 0; k <= n / 2; k += 8) {
        double re = 0, im = 0;
        for (size_t j = 0; j < n; j++) {
            double ph = -2 * M_PI * (double)((j * k) % n) / (double)n;
            re += x[j] * cos(ph);
            im += x[j] * sin(ph);
        }
        /* realfft packing: bin 0 holds DC (real part) and Nyquist (imaginary part) */
        int edge = k == 0 || k == n / 2;
        double gr = k == 0 ? X[0] : k == n / 2 ? X[1] : X[2 * k];
        double gi = edge ? 0 : X[2 * k + 1], wi = edge ? 0 : im;
        for (int s = 0; s < 2; s++) {
            if (s == 1 && k == 0)
                continue;
            maxabs[s] = fmax(maxabs[s], hypot(re, wi));
            maxdiff[s] = fmax(maxdiff[s], hypot(gr - re, gi - wi));
        }
    }
    double norm = 0;
    for (size_t j = 0; j < n; j++)
        norm += (double)x[j] * x[j];
    double tol = 8 * 0x1p-24 * log2((double)n) * sqrt(norm);
    printf("\n  padded fft: max|ours - DFT| = %.3g of max|X| %.6g; k >= 1: %.3g of %.6g; bound %.3g", maxdiff[0],
           maxabs[0], maxdiff[1], maxabs[1], tol);
    /* k >= 1 against the bound; DC (in maxdiff[0] when it is the largest
     * error) is a plain float sum: within 1e-6 of itself, as in test_fft */
    CU_ASSERT(maxabs[1] > 0 && maxdiff[1] <= tol);
    CU_ASSERT(maxdiff[0] <= fmax(tol, 1e-6 * maxabs[0]));
    free(x);
    free(X);
}

XC_TEST(test_dat, "dat")
{
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "series.dat");
    float src[1001];
    for (int i = 0; i < 1001; i++)
        src[i] = (float)sin(0.01 * i) * 1e3f + (float)i * 1e-3f;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_dat_write(path, src, 1001, &err), XC_OK);
    float *back = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(path, &back, &n, &err), XC_OK);
    CU_ASSERT_EQUAL(n, 1001);
    CU_ASSERT_EQUAL(memcmp(back, src, sizeof src), 0);
    free(back);

    /* 7 bytes: one sample and 3 bytes over. */
    FILE *fp = fopen(path, "ab");
    CU_ASSERT_FATAL(fp != NULL);
    fwrite("abc", 1, 3, fp);
    fclose(fp);
    CU_ASSERT_EQUAL(xc_dat_read(path, &back, &n, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "4007 bytes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "3 bytes left over"));
    CU_ASSERT(back == NULL && n == 0);
}

XC_TEST_IF(test_fixture_dat, "fixture_dat", skip_no_fixtures)
{
    char path[512];
    xc_fx_sigpyproc_path(path, sizeof path, "GBT_J1807-0847.dat");
    float *d = NULL;
    size_t n = 0;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(path, &d, &n, &err), XC_OK);
    CU_ASSERT_EQUAL(n, 131072);
    size_t bad = 0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        bad += !isfinite(d[i]);
        sum += d[i];
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* Values seen in the file (native float32, little-endian). */
    CU_ASSERT_EQUAL(d[0], 444259.0f);
    CU_ASSERT_EQUAL(d[1], 445709.0f);
    CU_ASSERT_EQUAL(d[2], 445747.0f);
    XC_ASSERT_CLOSE(sum / (double)n, 445404.09, 0.01);
    /* Written back, it is the same bytes. */
    char out[512];
    xc_fx_tmp_path(out, sizeof out, "gbt.dat");
    CU_ASSERT_EQUAL(xc_dat_write(out, d, n, &err), XC_OK);
    float *e = NULL;
    size_t m = 0;
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(out, &e, &m, &err), XC_OK);
    CU_ASSERT_EQUAL(m, n);
    CU_ASSERT_EQUAL(memcmp(d, e, n * sizeof *d), 0);
    free(d);
    free(e);
}

XC_TEST_MAIN("presto")
