/* test_spfiles.c: single-pulse candidate files (Heimdall .cand, PRESTO
 * .singlepulse, our CSV): round trips of hand-made lists whose values stress
 * each format, files in each tool's exact output format, and bad input. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sp/files/xc_spfiles.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

static xc_spcand mk(double snr, int64_t sample, int32_t width, int32_t dm_index, double dm, double tsamp)
{
    xc_spcand c;
    memset(&c, 0, sizeof c);
    c.snr = snr;
    c.sample = sample;
    c.time_s = (double)sample * tsamp;
    c.width = width;
    c.dm_index = c.dm_lo = c.dm_hi = dm_index;
    c.dm = dm;
    c.members = 1;
    c.begin = sample;
    c.end = sample + width;
    return c;
}

/* Large samples (2^40), wide DM range (0 to 9000), widths 1 to 2^20,
 * clusters of many members. */
static void stress_list(xc_spcandlist *l, int pow2_widths)
{
    xc_spcandlist_init(l);
    l->tsamp = 6.4e-5;
    xc_error err;
    const int64_t samples[] = {0, 1, 31250, 123456789, (int64_t)1 << 40};
    const int32_t widths[] = {1, 2, 3, 64, 1 << 20};
    for (int i = 0; i < 5; i++) {
        int32_t w = pow2_widths ? (int32_t)1 << (i * 5) : widths[i];
        xc_spcand c = mk(6.25 + 3.5 * i, samples[i], w, 100 * i, 0.01 * 100 * 45 * i * i, l->tsamp);
        if (i == 2) {
            c.members = 1234567;
            c.begin -= 40;
            c.end += 17;
            c.dm_lo = c.dm_index - 3;
            c.dm_hi = c.dm_index + 9;
        }
        CU_ASSERT_EQUAL_FATAL(xc_spcandlist_add(l, &c, &err), XC_OK);
    }
}

/* l written by w to the temporary file name, read back (by its name) into m. */
static void write_read(const xc_spcandlist *l, xc_spcandlist *m, const char *name,
                       xc_status (*w)(const xc_spcandlist *, const char *, xc_error *), const char *source)
{
    xc_spcandlist_init(m);
    xc_error err;
    char path[512];
    xc_fx_tmp_path(path, sizeof path, name);
    CU_ASSERT_EQUAL_FATAL(w(l, path, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_spcands_read(m, path, XC_SPFMT_AUTO, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(m->source, source);
    CU_ASSERT_EQUAL_FATAL(m->n, l->n);
}

XC_TEST(test_heimdall_roundtrip, "heimdall .cand: write then read gives the list back (power-of-two widths)")
{
    xc_spcandlist l, m;
    stress_list(&l, 1);
    write_read(&l, &m, "rt.cand", xc_spcands_write_heimdall, "heimdall");
    /* tsamp from time / sample of 2^40 + 2^19 samples written with 9 decimals */
    XC_ASSERT_NEAR(m.tsamp, l.tsamp, 1e-18);
    for (size_t i = 0; i < l.n; i++) {
        const xc_spcand *a = &l.c[i], *b = &m.c[i];
        XC_ASSERT_NEAR(b->snr, a->snr, 5e-7);    /* %.6f */
        XC_ASSERT_NEAR(b->dm, a->dm, 5e-7);      /* %.6f */
        XC_ASSERT_NEAR(b->time_s, a->time_s, 2e-9 + 1e-15 * a->time_s);
        CU_ASSERT_EQUAL(b->sample, a->sample);
        CU_ASSERT_EQUAL(b->width, a->width);
        CU_ASSERT_EQUAL(b->dm_index, a->dm_index);
        CU_ASSERT_EQUAL(b->members, a->members);
        CU_ASSERT_EQUAL(b->begin, a->begin);
        CU_ASSERT_EQUAL(b->end, a->end);
        /* not in the file: read as dm_index */
        CU_ASSERT_EQUAL(b->dm_lo, a->dm_index);
        CU_ASSERT_EQUAL(b->dm_hi, a->dm_index);
    }
    xc_spcandlist_free(&l);
    xc_spcandlist_free(&m);
}

XC_TEST(test_heimdall_refuses_width, "heimdall .cand: a width that is not a power of two is refused, nothing written")
{
    xc_spcandlist l;
    stress_list(&l, 0);
    xc_error err;
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "bad.cand");
    CU_ASSERT_EQUAL(xc_spcands_write_heimdall(&l, path, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "width 3 samples"));
    struct stat sb;
    CU_ASSERT_NOT_EQUAL(stat(path, &sb), 0);
    xc_spcandlist_free(&l);
}

XC_TEST(test_presto_roundtrip, "presto .singlepulse: write then read, to the format's precision")
{
    xc_spcandlist l, m;
    stress_list(&l, 0);
    write_read(&l, &m, "rt.singlepulse", xc_spcands_write_presto, "presto");
    /* 1 us over 2^40 samples: tsamp to 1e-18 s */
    XC_ASSERT_NEAR(m.tsamp, l.tsamp, 1e-18);
    for (size_t i = 0; i < l.n; i++) {   /* written by DM, the list's DMs ascend with its order */
        const xc_spcand *a = &l.c[i], *b = &m.c[i];
        XC_ASSERT_NEAR(b->snr, a->snr, 0.005 + 1e-9);   /* %7.2f */
        XC_ASSERT_NEAR(b->dm, a->dm, 0.005 + 1e-9);     /* %7.2f */
        XC_ASSERT_NEAR(b->time_s, a->time_s, 1e-6);     /* %13.6f, then sample * tsamp */
        CU_ASSERT_EQUAL(b->sample, a->sample);
        CU_ASSERT_EQUAL(b->width, a->width);
        CU_ASSERT_EQUAL(b->dm_index, (int32_t)i);       /* the rank of its DM */
        CU_ASSERT_EQUAL(b->members, 1);
        CU_ASSERT_EQUAL(b->begin, a->sample);
        CU_ASSERT_EQUAL(b->end, a->sample + a->width);
    }
    xc_spcandlist_free(&l);
    xc_spcandlist_free(&m);
}

/* datasets/singlepulse/name into l (by its name), which must hold n candidates. */
static void read_dataset(xc_spcandlist *l, const char *name, size_t n)
{
    xc_spcandlist_init(l);
    xc_error err;
    char path[512];
    snprintf(path, sizeof path, "%s/singlepulse/%s", xc_test_datasets(), name);
    CU_ASSERT_EQUAL_FATAL(xc_spcands_read(l, path, XC_SPFMT_AUTO, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(l->n, n);
}

XC_TEST(test_presto_real_format, "presto .singlepulse in single_pulse_search.py's exact format (datasets/singlepulse)")
{
    xc_spcandlist l;
    read_dataset(&l, "presto_format.singlepulse", 6);
    XC_ASSERT_NEAR(l.tsamp, 6.4e-5, 1e-13);   /* 639.999936 s / 9999999 */
    /* Sample 0, Downfact 150: the box starts 75 samples before the data */
    CU_ASSERT_EQUAL(l.c[0].sample, -75);
    CU_ASSERT_EQUAL(l.c[0].width, 150);
    /* Sample 31250, Downfact 30: box 31235..31264, at DM 56.77 (rank 0) */
    CU_ASSERT_EQUAL(l.c[2].sample, 31235);
    XC_ASSERT_NEAR(l.c[2].time_s, 31235 * 6.4e-5, 1e-9);
    XC_ASSERT_NEAR(l.c[2].snr, 12.87, 1e-12);
    CU_ASSERT_EQUAL(l.c[2].dm_index, 0);
    /* Downfact 45 (odd): box 31251 - 22 */
    CU_ASSERT_EQUAL(l.c[3].sample, 31229);
    CU_ASSERT_EQUAL(l.c[4].dm_index, 1);
    XC_ASSERT_NEAR(l.c[4].dm, 57.77, 1e-12);
    CU_ASSERT_EQUAL(l.c[5].sample, 9999998);
    xc_spcandlist_free(&l);
}

XC_TEST(test_heimdall_real_format, "heimdall .cand in Heimdall's exact format (6 digits, trailing tabs)")
{
    xc_spcandlist l;
    read_dataset(&l, "heimdall_format.cand", 4);
    /* 6400 s / 99999999 samples: 6 significant digits, relative 1e-6 */
    XC_ASSERT_NEAR(l.tsamp, 6.4e-5, 6.4e-11);
    /* centre 31265, filter 5 (32 samples): box 31249..31280 */
    CU_ASSERT_EQUAL(l.c[0].width, 32);
    CU_ASSERT_EQUAL(l.c[0].sample, 31249);
    CU_ASSERT_EQUAL(l.c[0].begin, 31250 - 16);
    CU_ASSERT_EQUAL(l.c[0].end, 31280 + 15);
    CU_ASSERT_EQUAL(l.c[0].members, 37);
    CU_ASSERT_EQUAL(l.c[0].dm_index, 42);
    XC_ASSERT_NEAR(l.c[0].dm, 56.7735, 1e-12);
    CU_ASSERT_EQUAL(l.c[1].width, 1);
    CU_ASSERT_EQUAL(l.c[1].sample, 1234);
    CU_ASSERT_EQUAL(l.c[3].sample, 0);
    xc_spcandlist_free(&l);
}

XC_TEST(test_csv_read, "csv: the eleven columns, the first seven alone, in another order")
{
    xc_spcandlist l;
    xc_spcandlist_init(&l);
    xc_error err;
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "full.csv");
    /* the writer's formats: %.6f,%.9f,%lld,%d,%.6f,%d,%lld,%lld,%lld,%d,%d */
    xc_fx_write_text(path, "snr,time_s,sample,width,dm,dm_index,members,begin,end,dm_lo,dm_hi\n"
                           "12.500000,70368744.177664000,1099511627776,64,8999.990000,9000,33,1099511627770,"
                           "1099511627850,8990,9004\n"
                           "6.000001,0.000064000,1,1,0.000000,0,1,1,2,0,0\n");
    CU_ASSERT_EQUAL_FATAL(xc_spcands_read(&l, path, XC_SPFMT_AUTO, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(l.n, 2);
    XC_ASSERT_NEAR(l.tsamp, 6.4e-5, 1e-18);
    CU_ASSERT_EQUAL(l.c[0].sample, (int64_t)1 << 40);
    CU_ASSERT_EQUAL(l.c[0].dm_lo, 8990);
    CU_ASSERT_EQUAL(l.c[0].end, 1099511627850LL);
    XC_ASSERT_NEAR(l.c[0].dm, 8999.99, 1e-9);
    xc_fx_tmp_path(path, sizeof path, "seven.csv");
    xc_fx_write_text(path, "dm,snr,time_s,sample,width,dm_index,members\n"
                           "56.77,9.5,2.0,31250,16,5677,4\n\n");
    CU_ASSERT_EQUAL_FATAL(xc_spcands_read(&l, path, XC_SPFMT_CSV, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(l.n, 1);
    CU_ASSERT_EQUAL(l.c[0].begin, 31250);
    CU_ASSERT_EQUAL(l.c[0].end, 31266);
    CU_ASSERT_EQUAL(l.c[0].dm_lo, 5677);
    CU_ASSERT_EQUAL(l.c[0].dm_hi, 5677);
    XC_ASSERT_NEAR(l.c[0].dm, 56.77, 1e-12);
    xc_spcandlist_free(&l);
}

/* path holding text must be refused by fmt with a message holding want. */
static void refused(const char *name, const char *text, xc_spformat fmt, const char *want)
{
    xc_spcandlist l;
    xc_spcandlist_init(&l);
    xc_error err;
    char path[512];
    xc_fx_tmp_path(path, sizeof path, name);
    xc_fx_write_text(path, text);
    xc_status st = xc_spcands_read(&l, path, fmt, &err);
    CU_ASSERT_NOT_EQUAL(st, XC_OK);
    CU_ASSERT_EQUAL(l.n, 0);
    int has = st != XC_OK && strstr(err.msg, want) && strstr(err.msg, path);
    if (!has)
        fprintf(stderr, "%s: expected a message with '%s', got '%s'\n", name, want, st ? err.msg : "(accepted)");
    CU_ASSERT_TRUE(has);
    xc_spcandlist_free(&l);
}

/* A refused file: its name (the extension picks the reader, fmt AUTO), its
 * text, and what the message must hold (besides the path). */
typedef struct {
    const char *name, *text;
    xc_spformat fmt;
    const char *want;
} bad_case;

static const char *const csvh = "snr,time_s,sample,width,dm,dm_index,members\n";

XC_TEST(test_bad_input, "bad input: each refused with the file, line, column and value named")
{
    /* rows after csvh */
    static const bad_case rows[] = {
        {"nan.csv", "9,1,1,1,nan,0,1\n", XC_SPFMT_CSV, "line 2: column dm: 'nan' is not a finite number"},
        {"inf.csv", "9,1,1,1,inf,0,1\n", XC_SPFMT_CSV, "column dm: 'inf'"},
        {"negw.csv", "9,1,1,-4,1,0,1\n", XC_SPFMT_CSV, "line 2: width: -4 is outside 1..2^30"},
        {"bigdm.csv", "9,1,1,1,1e300,0,1\n", XC_SPFMT_CSV, "dm: 1e+300 is outside"},
        {"short.csv", "9,1,1,1,1,0\n", XC_SPFMT_CSV, "line 2: 6 columns, the header has 7"},
    };
    static const bad_case whole[] = {
        {"hdr.csv", "snr,time_s,sample,width,dm,dm_index,members,beam\n", XC_SPFMT_CSV, "column 8: 'beam'"},
        {"nohdr.csv", "snr,time_s,sample,width,dm,dm_index\n", XC_SPFMT_CSV, "lacks the column 'members'"},
        {"empty.csv", "", XC_SPFMT_CSV, "empty file"},
        {"x.cand", "12\t100\t0.1\t40\t0\t1\t1\t100\t101\n", XC_SPFMT_AUTO, "column filter: 40 is outside 0..30"},
        {"y.cand", "12\t100\t0.1\t2\t0\t1\t1\t100\n", XC_SPFMT_AUTO, "line 1: 8 columns"},
        {"z.cand", "12\t100\t0.1\t2\t0\t1\t0\t100\t101\n", XC_SPFMT_AUTO, "members: 0 is below 1"},
        {"b.cand", "12\t100\t0.1\t2\t0\t1\t1\t101\t102\n", XC_SPFMT_AUTO, "does not hold the box"},
        {"a.singlepulse", "# DM Sigma\n 1.00 7.00 0.1 100 -3\n", XC_SPFMT_AUTO, "column Downfact: -3"},
        {"c.singlepulse", "1.00 7.00 0.1 100x 3\n", XC_SPFMT_AUTO, "line 1: column Sample: '100x' is not"},
        {"d.singlepulse", "1.00 7.00 1e10 100 3\n", XC_SPFMT_AUTO, "time: 1e+10 s is outside"},
        {"four.singlepulse", "1.00 7.00 0.1 1\n", XC_SPFMT_AUTO, "line 1: 4 columns"},
        {"what.txt", "snr\n", XC_SPFMT_AUTO, "not a single-pulse candidate file"},
        {"periodic.csv", "r,f_hz,z\n", XC_SPFMT_AUTO, "not a single-pulse candidate file"},
    };
    char t[512];
    for (size_t k = 0; k < XC_NCASES(rows); k++) {
        snprintf(t, sizeof t, "%s%s", csvh, rows[k].text);
        refused(rows[k].name, t, rows[k].fmt, rows[k].want);
    }
    for (size_t k = 0; k < XC_NCASES(whole); k++)
        refused(whole[k].name, whole[k].text, whole[k].fmt, whole[k].want);
}

XC_TEST(test_format_names, "format names and extensions")
{
    xc_spformat f;
    xc_error err;
    CU_ASSERT_EQUAL(xc_spformat_parse("heimdall", &f, &err), XC_OK);
    CU_ASSERT_EQUAL(f, XC_SPFMT_HEIMDALL);
    CU_ASSERT_EQUAL(xc_spformat_parse("singlepulse", &f, &err), XC_OK);
    CU_ASSERT_EQUAL(f, XC_SPFMT_PRESTO);
    CU_ASSERT_EQUAL(xc_spformat_parse("fits", &f, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'fits'"));
    CU_ASSERT_STRING_EQUAL(xc_spformat_name(XC_SPFMT_PRESTO), "presto");
    CU_ASSERT_EQUAL(xc_spformat_of_path("a/b_DM56.77.singlepulse"), XC_SPFMT_PRESTO);
    CU_ASSERT_EQUAL(xc_spformat_of_path("2026-11-28-12:00:00_01.cand"), XC_SPFMT_HEIMDALL);
    CU_ASSERT_EQUAL(xc_spformat_of_path("/nonexistent.csv"), XC_SPFMT_AUTO);
}

XC_TEST_MAIN("spfiles")
