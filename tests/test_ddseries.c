/* test_ddseries.c: dedisperse -format presto and -format tim, on a small
 * synthetic pulsar (20 Hz, DM 40, 32 channels, 2 s): each series equals its
 * row of the plane bit for bit, its .inf holds the filterbank's header as
 * PRESTO's spectra_info_to_inf fills it, padding is the trial's mean and is
 * recorded as on/off pairs, and the chain dedisperse -> fft -> accel finds
 * the pulsar. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/run/xc_ddseries.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/io/xc_filterbank.h"
#include "core/io/xc_presto.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define SYNTH "synth -quiet -nchans 32 -nbits 8 -tsamp 256 -tobs 2 -fch1 1500 -foff -4 -period 50 -dm 40 " \
              "-snrpeak 2 -seed 3 -width 5 -tstart 58000.25"
#define PLAN "-dmplan 38:42:1 -impl reference -quiet"
enum { NTRIAL = 4 };

static int runf(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int runf(char *err, size_t n, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    int rc = xc_fx_run_cli_err(args, err, n);
    if (rc != 0 && err)
        printf("\n  crosscheck %s -> %d: %s", args, rc, err);
    return rc;
}

/* The synthetic file and its plane (made once per run). */
static const char *make_inputs(xc_planefile *pf)
{
    static char fil[512];
    char err[2048], plane[600];
    xc_fx_tmp_path(fil, sizeof fil, "dds.fil");
    snprintf(plane, sizeof plane, "%s/dds_plane", xc_test_tmpdir());
    if (!xc_fx_exists(fil))
        CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, SYNTH " -o '%s'", fil), 0);
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "dedisperse -i '%s' " PLAN " -o '%s'", fil, plane), 0);
    char json[700];
    snprintf(json, sizeof json, "%s.json", plane);
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_planefile_read(pf, json, &e), XC_OK);
    CU_ASSERT_EQUAL_FATAL(pf->plane.nranges, 1);
    CU_ASSERT_EQUAL_FATAL(pf->plane.r[0].ndm, NTRIAL);
    return fil;
}

/* The inputs, then `dedisperse ... EXTRA -o <tmpdir>/STEM`; base gets that path. */
static void dedisperse_to(xc_planefile *pf, const char *stem, const char *extra, char *base, size_t nb)
{
    const char *fil = make_inputs(pf);
    char err[2048];
    snprintf(base, nb, "%s/%s", xc_test_tmpdir(), stem);
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "dedisperse -i '%s' " PLAN " %s -o '%s'", fil, extra, base), 0);
}

/* -format tim: a SIGPROC time series the filterbank reader takes (nchans 1,
 * nbits 32, data_type 2, refdm), holding the plane's row of DM 38 + d. */
static void check_tim(const char *base, int d, const xc_planerange *pr)
{
    char path[700];
    snprintf(path, sizeof path, "%s_DM%.2f.tim", base, 38.0 + d);
    xc_fbreader *r;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, &e), XC_OK);
    const xc_fbheader *h = xc_fbreader_header(r);
    const double got[] = {h->nchans, h->nifs, h->nbits, h->data_type, h->refdm, h->tsamp, (double)h->nsamp};
    const double want[] = {1, 1, 32, 2, 38.0 + d, 256e-6, (double)pr->nsamp};
    xc_fx_assert_fields("nchans nifs nbits data_type refdm tsamp nsamp", got, want, 7);
    float *x = malloc(pr->nsamp * sizeof *x);
    CU_ASSERT_EQUAL(xc_fbreader_read_f32(r, 0, pr->nsamp, 0, x, &e), XC_OK);
    CU_ASSERT_EQUAL(memcmp(x, pr->data + (size_t)d * pr->nsamp, pr->nsamp * sizeof *x), 0);
    free(x);
    xc_fbreader_close(r);
}

/* -format presto and -format tim of the same plan, trial by trial. */
XC_TEST_IF(test_series, "presto_and_tim_series", xc_fx_skip_no_bin)
{
    xc_planefile pf;
    char base[512], tbase[512], path[700];
    dedisperse_to(&pf, "dds", "-format presto", base, sizeof base);
    xc_planefile_free(&pf);
    dedisperse_to(&pf, "ddt", "-format tim", tbase, sizeof tbase);
    const xc_planerange *pr = &pf.plane.r[0];
    for (int d = 0; d < NTRIAL; d++) {
        check_tim(tbase, d, pr);
        /* prepsubband's names: "%s_DM%.2f" */
        snprintf(path, sizeof path, "%s_DM%.2f.dat", base, 38.0 + d);
        float *x = NULL;
        size_t n = 0;
        xc_error e;
        CU_ASSERT_EQUAL_FATAL(xc_dat_read(path, &x, &n, &e), XC_OK);
        CU_ASSERT_EQUAL(n, pr->nsamp);
        CU_ASSERT(n == pr->nsamp && memcmp(x, pr->data + (size_t)d * pr->nsamp, n * sizeof *x) == 0);
        free(x);
        snprintf(path, sizeof path, "%s_DM%.2f.inf", base, 38.0 + d);
        xc_inf inf;
        CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, path, &e), XC_OK);
        /* N, dt, DM, low channel centre 1500 - 31*4, band 32*4, channels, width, MJD:
         * every value written with %.12g or wider, so equal as numbers */
        const double got[] = {inf.n, inf.dt, inf.dm, inf.freq_low, inf.bw, inf.nchan, inf.chan_wid, inf.mjd};
        const double want[] = {(double)pr->nsamp, 256e-6, 38.0 + d, 1376, 128, 32, 4, 58000.25};
        xc_fx_assert_fields("n dt dm freq_low bw nchan chan_wid mjd", got, want, 8);
        CU_ASSERT_EQUAL(inf.breaks, 0);
        CU_ASSERT_STRING_EQUAL(inf.band, "Radio");
        char name[700];
        snprintf(name, sizeof name, "%s_DM%.2f", base, 38.0 + d);
        CU_ASSERT_STRING_EQUAL(inf.name, name);
    }
    xc_planefile_free(&pf);
}

/* -numout pads with the mean of the data, says so with prepdata's pairs,
 * and the padded series goes through fft and accel to the pulsar. */
XC_TEST_IF(test_padded_chain, "padded_chain", xc_fx_skip_no_bin)
{
    xc_planefile pf;
    char err[2048], base[512], path[700];
    dedisperse_to(&pf, "ddp", "-format presto -numout 8192", base, sizeof base);
    size_t nd = pf.plane.r[0].nsamp;
    snprintf(path, sizeof path, "%s_DM40.00.inf", base);
    xc_inf inf;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_inf_read(&inf, path, &e), XC_OK);
    CU_ASSERT_EQUAL(inf.n, 8192);
    CU_ASSERT_EQUAL(inf.breaks, 1);
    CU_ASSERT_EQUAL_FATAL(inf.numonoff, 2);
    CU_ASSERT(inf.onoff[0] == 0 && inf.onoff[1] == (double)nd - 1 && inf.onoff[2] == 8191 && inf.onoff[3] == 8191);
    CU_ASSERT_EQUAL(xc_inf_data_bins(&inf), (double)nd);
    snprintf(path, sizeof path, "%s_DM40.00.dat", base);
    float *x = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(xc_dat_read(path, &x, &n, &e), XC_OK);
    CU_ASSERT_EQUAL_FATAL(n, 8192);
    /* the pad: the data's mean, summed in time order in double, then rounded
     * to float32 once: equal, not close */
    double sum = 0;
    for (size_t i = 0; i < nd; i++)
        sum += x[i];
    size_t bad = 0;
    for (size_t i = nd; i < n; i++)
        bad += x[i] != (float)(sum / (double)nd);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(memcmp(x, pf.plane.r[0].data + 2 * nd, nd * sizeof *x), 0);
    free(x);
    char fft[600], acc[600];
    snprintf(fft, sizeof fft, "%s40", base);
    snprintf(acc, sizeof acc, "%s40.acc", base);
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "fft -i '%s' -o '%s'", path, fft), 0);
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "accel -zmax 0 -numharm 4 -i '%s.fft' -o '%s'", fft, acc), 0);
    /* the first candidate is the pulsar: 20 Hz within the Fourier
     * resolution of the padded series, 1/T = 1/(8192 * 256 us) = 0.48 Hz */
    char text[4096];
    xc_fx_read_text(acc, text, sizeof text);
    const char *row = strchr(text, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    double r, f;
    CU_ASSERT_EQUAL_FATAL(sscanf(row + 1, "%lf,%lf", &r, &f), 2);
    XC_ASSERT_CLOSE(f, 20.0, 1.0 / (8192 * 256e-6));
    xc_planefile_free(&pf);
}

/* Refusals: exit 2, a message naming the option and value, no file left. */
XC_TEST_IF(test_series_refused, "series_refused", xc_fx_skip_no_bin)
{
    char fil[512], base[512], err[2048];
    xc_fx_tmp_path(fil, sizeof fil, "ddr.fil");
    snprintf(base, sizeof base, "%s/ddr_out", xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, SYNTH " -tobs 0.5 -o '%s'", fil), 0);
    /* DM 40.000 .. 40.004 all print as 40.00 */
    char args[2048];
    snprintf(args, sizeof args, "dedisperse -quiet -impl reference -dmplan 40:40.005:0.001 -format presto -i '%s' -o '%s'",
             fil, base);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "print as DM 40.00 with -dmprec 2"));
    CU_ASSERT_EQUAL(xc_fx_count_prefix("ddr_out"), 0);
    snprintf(args, sizeof args, "dedisperse -quiet -impl reference -dmplan 40:40.005:0.001 -dmprec 3 -format presto "
             "-i '%s' -o '%s'", fil, base);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
    CU_ASSERT_EQUAL(xc_fx_count_prefix("ddr_out_DM40.00"), 10);   /* 40.000 .. 40.004, .dat and .inf */
    snprintf(args, sizeof args, "dedisperse -quiet -impl reference -dmplan 40:41:1 -format tim -numout 4096 "
             "-i '%s' -o '%s_t'", fil, base);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-numout 4096"));
    CU_ASSERT_EQUAL(xc_fx_count_prefix("ddr_out_t"), 0);
}

XC_TEST_MAIN("ddseries")
