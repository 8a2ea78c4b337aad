/* The crosscheck program end to end: exit codes, messages, outputs. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "reports/xc_report.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"


/* Runs `crosscheck ARGS`, stderr to a file; returns the exit code. */
static int run(const char *args, char *errbuf, size_t n) { return xc_fx_run_cli_err(args, errbuf, n); }

#define runf xc_fx_run_clif

XC_TEST(test_plan_heimdall_defaults, "plan: Heimdall defaults give 1197 trials")
{
    char args[1024], json[600], err[4096];
    snprintf(json, sizeof json, "%s/plan.json", xc_test_tmpdir());
    snprintf(args, sizeof args,
             "plan -nchans 1024 -tsamp 64 -fch1 1581.804688 -foff -0.390625 -lodm 0 -hidm 1000 "
             "-dm_tol 1.25 -dm_pulse_width 40 -json '%s'", json);
    CU_ASSERT_EQUAL_FATAL(run(args, err, sizeof err), 0);
    json_error_t je;
    json_t *root = json_load_file(json, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *dms = json_object_get(root, "dms");
    CU_ASSERT_EQUAL(json_array_size(dms), 1197u);
    XC_ASSERT_CLOSE(json_number_value(json_array_get(dms, 1)), 0.180007, 1e-6);
    XC_ASSERT_CLOSE(json_number_value(json_array_get(dms, 1196)), 1001.48, 0.01);
    json_decref(root);
}

XC_TEST(test_plan_table2, "plan: AstroAccelerate Table 2 gives 3050 trials")
{
    char args[1024], json[600];
    snprintf(json, sizeof json, "%s/plan2.json", xc_test_tmpdir());
    snprintf(args, sizeof args,
             "plan -nchans 4096 -tsamp 64 -fch1 1550 -foff -0.0732421875 "
             "-dmplan 0:150:0.1:1,150:300:0.2:1,300:500:0.25:1 -json '%s'", json);
    CU_ASSERT_EQUAL_FATAL(run(args, NULL, 0), 0);
    json_error_t je;
    json_t *root = json_load_file(json, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(root, "dms")), 3050u);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(root, "ranges")), 3u);
    json_decref(root);
}

XC_TEST(test_errors_exit_2, "errors exit 2 and name the file/field/value")
{
    char err[4096], args[1024];
    /* bad plans */
    CU_ASSERT_EQUAL(run("plan -nchans 64 -tsamp 64 -fch1 1400 -foff -1 -dmplan 10:5:1:1", err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "10:5"));
    CU_ASSERT_EQUAL(run("plan -nchans 64 -tsamp 64 -fch1 1400 -foff -1 -dmplan 0:50:1:1,40:60:1:1", err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "ascending"));
    CU_ASSERT_EQUAL(run("plan -nchans 64 -tsamp 64 -fch1 1400 -foff -1 -lodm 0 -hidm 100 -dm_tol 1", err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "dm_tol"));
    CU_ASSERT_EQUAL(run("plan -nchans 64 -tsamp 64 -fch1 1400 -foff -1 -dmplan 0:x:1", err, sizeof err), 2);
    /* unknown option, unknown command, missing file */
    CU_ASSERT_EQUAL(run("plan -bogus 3", err, sizeof err), 2);
    CU_ASSERT_EQUAL(run("nosuchcommand", err, sizeof err), 2);
    snprintf(args, sizeof args, "dedisperse -i '%s/missing.fil' -o '%s/out' -impl reference -dmplan 0:10:1:1",
             xc_test_tmpdir(), xc_test_tmpdir());
    CU_ASSERT_EQUAL(run(args, err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "missing.fil"));
    /* a file with nbits 3: the message names the file, the field and the value */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/nbits3.fil", xc_test_tmpdir());
    FILE *fp = fopen(bad, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    const char *keys[] = {"HEADER_START", "nbits", NULL};
    for (int i = 0; keys[i]; i++) {
        int32_t n = (int32_t)strlen(keys[i]);
        fwrite(&n, 4, 1, fp);
        fwrite(keys[i], 1, (size_t)n, fp);
    }
    int32_t three = 3;
    fwrite(&three, 4, 1, fp);
    int32_t n = 10;
    fwrite(&n, 4, 1, fp);
    fwrite("HEADER_END", 1, 10, fp);
    fclose(fp);
    CU_ASSERT_EQUAL(runf(err, sizeof err, "dedisperse -i '%s' -o '%s/o3' -impl cpu -dmplan 0:10:1:1", bad, xc_test_tmpdir()), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nbits3.fil"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nbits"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "3"));
    snprintf(args, sizeof args, "%s/o3.json", xc_test_tmpdir());
    CU_ASSERT_FALSE(xc_fx_exists(args));
}

/* dedisperse a real file with both implementations and compare: exit 0; then a
 * different convention: compare exits 1. */
XC_TEST(test_dedisperse_compare_tutorial, "dedisperse + compare planes on tutorial.fil")
{
    char err[4096], a[600], b[600], c[600];
    const char *d = xc_test_datasets();
    snprintf(a, sizeof a, "%s/tut_ref", xc_test_tmpdir());
    snprintf(b, sizeof b, "%s/tut_cpu", xc_test_tmpdir());
    snprintf(c, sizeof c, "%s/tut_presto", xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "dedisperse -quiet -i '%s/sigpyproc3/tutorial.fil' -o '%s' -impl reference -dmplan 0:40:2:1,40:60:4:2", d, a), 0);
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "dedisperse -quiet -i '%s/sigpyproc3/tutorial.fil' -o '%s' -impl cpu -dmplan 0:40:2:1,40:60:4:2", d, b), 0);
    /* The tutorial's delays are too small (17 samples at DM 30) for k_DM to matter: use the Crab file. */
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "dedisperse -quiet -i '%s/sigpyproc3/parkes_8bit_1.fil' -o '%s' -impl cpu -convention presto -dmplan 0:100:5:1", d, c), 0);
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "dedisperse -quiet -i '%s/sigpyproc3/parkes_8bit_1.fil' -o '%s_x' -impl cpu -dmplan 0:100:5:1", d, c), 0);
    char path[700];
    snprintf(path, sizeof path, "%s.r1.npy", b);
    CU_ASSERT(xc_fx_exists(path));
    snprintf(path, sizeof path, "%s.json", b);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(root, "dms")), 25u);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(root, "impl")), "cpu");
    json_decref(root);
    CU_ASSERT_EQUAL(runf(err, sizeof err, "compare planes '%s.json' '%s.json'", b, a), 0);
    CU_ASSERT_EQUAL(runf(err, sizeof err, "compare planes '%s.json' '%s_x.json'", c, c), 1);
    /* planes with different DM lists are refused (exit 2) */
    CU_ASSERT_EQUAL(runf(err, sizeof err, "compare planes '%s.json' '%s.json'", c, a), 2);
}

/* The subband plan's cut and alignment recorded in a plane's OUT.json. */
static int subband_plan_is(const char *json, const char *align, const char *split)
{
    json_error_t je;
    json_t *root = json_load_file(json, 0, &je);
    json_t *p = json_object_get(json_object_get(root, "approximate"), "parameters");
    const char *a = json_string_value(json_object_get(p, "alignment")), *s = json_string_value(json_object_get(p, "split"));
    int ok = a && s && !strcmp(a, align) && !strcmp(s, split);
    if (!ok)
        fprintf(stderr, "  %s: alignment %s, split %s; expected %s, %s\n", json, a ? a : "(none)", s ? s : "(none)",
                align, split);
    json_decref(root);
    return ok;
}

/* -convention presto gives prepsubband's subbands (equal widths, the highest channel) unless -subalign or
 * -subsplit is given; crosscheck's defaults are equal delay spreads referred to their centres. */
XC_TEST(test_dedisperse_subband_convention, "dedisperse: -convention presto takes prepsubband's subbands")
{
    char err[4096], o[600], json[700];
    const char *d = xc_test_datasets();
    snprintf(o, sizeof o, "%s/sbconv", xc_test_tmpdir());
    snprintf(json, sizeof json, "%s.json", o);
    static const struct {
        const char *opts, *align, *split;
    } cases[] = {
        {"", "centre", "spread"},
        {"-convention presto", "highest", "width"},
        {"-convention presto -subalign centre", "centre", "width"},
        {"-convention presto -subsplit spread", "highest", "spread"},
        {"-subalign highest -subsplit width", "highest", "width"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "dedisperse -quiet -i '%s/sigpyproc3/parkes_8bit_1.fil' -o '%s' "
                                                    "-impl subband -nsub 16 -dmplan 0:100:5:1 %s", d, o, cases[i].opts), 0);
        CU_ASSERT(subband_plan_is(json, cases[i].align, cases[i].split));
    }
}

XC_TEST(test_list_and_help, "list and -h of every subcommand")
{
    char err[4096];
    CU_ASSERT_EQUAL(run("list", err, sizeof err), 0);
    const char *cmds[] = {"list",          "plan",          "dedisperse",   "synth",     "population",
                          "fft",           "pulscan",       "compare",      "check",     "run",
                          "bench",         "bench dedisperse", "bench pulscan", "bench synth", "bench gpu",
                          "bench gpu-pulscan"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        CU_ASSERT_EQUAL(runf(err, sizeof err, "%s -h", cmds[i]), 0);
    }
}

/* The option parser every subcommand shares (cli/base/cli_opts.c), through the
 * binary: each case's exit code, and a part of its message where it has one. */
XC_TEST(test_option_parser, "option parser: bad values, unknown options, -h, stray arguments")
{
    static const struct {
        const char *args;
        int code;
        const char *msg;
    } cases[] = {
        /* a bad value: exit 2, the message names the option and the value */
        {"pulscan -zmax 12x a.fft", 2, "crosscheck pulscan: option -zmax: '12x' is not an integer"},
        {"bench synth -nbits 33", 2, "option -nbits: 33 is outside 1..32"},
        {"plan -lodm ten", 2, "option -lodm: 'ten' is not a number"},
        {"population -seed -1", 2, "option -seed: '-1' is not a non-negative integer"},
        {"compare cands -dr -1 a b", 2, "option -dr: -1 must be a finite number >= 0"},
        {"bench dedisperse -nchans 512,x", 2, "option -nchans: 'x' is not an integer"},
        {"dedisperse -bitorder mid", 2, "-bitorder: 'mid' is not lsb or msb"},
        /* the first bad value ends the parse, before a later unknown option */
        {"dedisperse -if x -bogus", 2, "option -if: 'x' is not an integer"},
        /* an unknown option, a missing value, an ambiguous abbreviation */
        {"fft -bogus", 2, "unknown option or missing value: -bogus (see crosscheck fft -h)"},
        {"synth -o", 2, "unknown option or missing value: -o"},
        {"plan -dmpl 0:10:1:1", 2, "unknown option or missing value: -dmpl"},
        /* -h, -help and --help, wherever they stand */
        {"fft -h", 0, NULL},
        {"compare planes -help", 0, NULL},
        {"bench pulscan --help", 0, NULL},
        {"synth -nchans 64 -h", 0, NULL},
        /* a positional argument the command does not take */
        {"list extra", 2, "crosscheck list: unexpected argument 'extra'"},
        {"population -spec s.json -n 1 -out d extra", 2, "unexpected argument 'extra'"},
        {"pulscan -i a.fft b.fft", 2, "unexpected argument 'b.fft'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[4096];
        int rc = run(cases[i].args, err, sizeof err);
        int ok = rc == cases[i].code && (!cases[i].msg || strstr(err, cases[i].msg));
        if (!ok)
            fprintf(stderr, "\n  crosscheck %s: exit %d, stderr: %s", cases[i].args, rc, err);
        CU_ASSERT(ok);
    }
}

/* synth's parameters override its -spec file wherever -spec stands on the line. */
XC_TEST(test_synth_options_override_spec, "synth: options override -spec wherever it stands")
{
    char err[4096], spec[600], fil[600], truth[700];
    snprintf(spec, sizeof spec, "%s/override.json", xc_test_tmpdir());
    snprintf(fil, sizeof fil, "%s/override.fil", xc_test_tmpdir());
    snprintf(truth, sizeof truth, "%s/override.truth.json", xc_test_tmpdir());
    FILE *fp = fopen(spec, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("{\"nchans\": 32, \"tsamp_us\": 200, \"tobs_s\": 0.1, \"seed\": 5, \"smear\": true}\n", fp);
    fclose(fp);
    CU_ASSERT_EQUAL_FATAL(runf(err, sizeof err, "synth -quiet -nchans 16 -seed 9 -nosmear -tsamp 100 -spec '%s' -o '%s'", spec, fil), 0);
    json_error_t je;
    json_t *root = json_load_file(truth, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *par = json_object_get(root, "params");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(par, "nchans")), 16);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(par, "seed")), 9);
    CU_ASSERT(json_is_false(json_object_get(par, "smear")));
    XC_ASSERT_CLOSE(json_real_value(json_object_get(par, "tsamp_us")), 100, 1e-9);
    XC_ASSERT_CLOSE(json_real_value(json_object_get(par, "tobs_s")), 0.1, 1e-12);   /* from the spec */
    json_decref(root);
    /* a bad parameter is reported after the spec is read, as before */
    CU_ASSERT_EQUAL(runf(err, sizeof err, "synth -nchans x -spec '%s/missing.json' -o '%s'", xc_test_tmpdir(), fil), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "missing.json"));
}

/* The whole default job on a small spec: exit 0, a report with plots. */
XC_TEST(test_run_small, "run: the default job on a small spec")
{
    char args[1024], err[4096], path[700];
    snprintf(args, sizeof args, "run -quiet -spec '%s/ci-run.json' -out '%s/run'", xc_test_datasets(),
             xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(run(args, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/run/index.html", xc_test_tmpdir());
    CU_ASSERT(xc_fx_exists(path));
    snprintf(path, sizeof path, "%s/run/summary.json", xc_test_tmpdir());
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT(json_integer_value(json_object_get(root, "n_checks")) >= 8);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "n_failed")), 0);
    CU_ASSERT(json_is_true(json_object_get(root, "passed")));
    /* the declared single pulse of J1807-0847 (a series) and the GMRT burst of
       your/28.fil (a filterbank) judged by each single-pulse searcher */
    static const char *const bursts[] = {"known burst PSR J1807-0847", "known burst GMRT burst"};
    for (int b = 0; b < 2; b++) {
        size_t i, nburst = 0;
        json_t *v;
        json_array_foreach(json_object_get(root, "verdicts"), i, v) {
            const char *check = json_string_value(json_object_get(v, "check"));
            if (check && strstr(check, bursts[b])) {
                nburst++;
                CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(v, "verdict")), "PASS");
            }
        }
        if (nburst < 2)
            printf("\n    %s: %zu rows, expected >= 2 (the reference and cpu)", bursts[b], nburst);
        CU_ASSERT(nburst >= 2);
    }
    json_decref(root);
    snprintf(path, sizeof path, "%s/run/work", xc_test_tmpdir());
    CU_ASSERT_FALSE(xc_fx_exists(path));
}

/* bench accel on a tiny grid: every record has the fields bench accel -h names,
 * the cpu's a ratio to the reference at the same settings, a per-record
 * peak memory and its method (the numbers themselves are not judged here:
 * speed is measured by bench, not asserted by tests). */
XC_TEST(test_bench_accel_records, "bench accel: records, ratios and peak memory")
{
    char args[1024], json[600], err[4096];
    snprintf(json, sizeof json, "%s/bench-accel.json", xc_test_tmpdir());
    snprintf(args, sizeof args, "bench accel -nbins 4096 -zmax 0,8 -numharm 1,2 -ncpus 1,0 -impl both -json '%s'",
             json);
    CU_ASSERT_EQUAL_FATAL(run(args, err, sizeof err), 0);
    json_error_t je;
    json_t *root = json_load_file(json, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    json_t *recs = json_object_get(root, "records");
    size_t n = json_array_size(recs), ratios = 0;
    printf("\n  %zu records", n);
    CU_ASSERT(n >= 16);
    static const char *keys[] = {"impl", "nbins", "zmax", "wmax", "numharm", "threads", "seconds",
                                 "templates_per_second", "plane_points_per_second", "peak_rss_mb", "memory_method"};
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(recs, i);
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            if (!json_object_get(r, keys[k])) {
                printf("\n  record %zu lacks %s", i, keys[k]);
                CU_FAIL("a record lacks a field");
            }
        CU_ASSERT(json_number_value(json_object_get(r, "seconds")) > 0);
        CU_ASSERT(json_number_value(json_object_get(r, "peak_rss_mb")) > 0);
        CU_ASSERT(json_integer_value(json_object_get(r, "threads")) >= 1);
        ratios += json_object_get(r, "speedup_vs_reference") != NULL;
    }
    /* every cpu record (8 of 16) has its ratio to the reference */
    CU_ASSERT(ratios >= 8);
    json_decref(root);
}

/* check smearing -report: one section and one plot (measured loss, bound,
 * quadrature estimate against DM) per implementation, nsub and width, and
 * the JSON rows; no pulse above its bound, exit 0. */
XC_TEST(test_check_smearing_report, "check smearing -report draws loss against bound")
{
    char err[512], dir[600], json[600], path[700];
    snprintf(dir, sizeof dir, "%s/smear-report", xc_test_tmpdir());
    snprintf(json, sizeof json, "%s/smear.json", xc_test_tmpdir());
    CU_ASSERT_EQUAL(runf(err, sizeof err,
                         "check smearing -impl subband,tree -nsub 16 -widths 1,4 -nchans 32 -every 16 "
                         "-dmplan 0:60:1 -json '%s' -report '%s'",
                         json, dir),
                    0);
    snprintf(path, sizeof path, "%s/index.html", dir);
    size_t n = 0;
    unsigned char *html = xc_fx_slurp(path, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    /* One plot each: a PNG <img> (its legend drawn in it), or built with
     * PLOTS=0 a paragraph saying it was not drawn. */
    int plots = 0, sections = 0;
    const char *plot = xc_plots_built() ? "<img src=\"data:image/png;base64," : "<p class=\"noplot\">";
    for (const char *p = (const char *)html; (p = strstr(p, plot)); p++)
        plots++;
    for (const char *p = (const char *)html; (p = strstr(p, "subband, nsub 16, width ")); p++)
        sections++;
    XC_ASSERT_NEAR(plots, 4, 0);   /* 2 implementations x 2 widths */
    CU_ASSERT(sections >= 2);
    CU_ASSERT_PTR_NOT_NULL(strstr((const char *)html, xc_plots_built()
                                                          ? "alt=\"subband, nsub 16, pulse of 4 samples (256 us in range 0)\""
                                                          : "Line plot &#8220;subband, nsub 16, pulse of 4 samples"));
    free(html);
    json_error_t je;
    json_t *root = json_load_file(json, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT(json_array_size(root) >= 8);
    json_decref(root);
}

XC_TEST(test_bench_curve_report, "bench dedisperse -replot -report: speed against loss and where each curve lies")
{
    char err[512], dir[600], json[600], path[700];
    snprintf(dir, sizeof dir, "%s/curve-report", xc_test_tmpdir());
    snprintf(json, sizeof json, "%s/curve.json", xc_test_tmpdir());
    /* two subband points (one inside the subband goal), a tree point, a
     * direct record (no loss: not drawn) */
    FILE *f = fopen(json, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"records\": ["
          "{\"impl\": \"cpu\", \"nchans\": 64, \"nbits\": 8, \"threads\": 1, \"seconds\": 1.0},"
          "{\"impl\": \"subband\", \"nchans\": 64, \"nbits\": 8, \"threads\": 1, "
          "\"speedup_vs_direct_cpu\": 2.5, \"worst_snr_loss\": 0.3},"
          "{\"impl\": \"subband\", \"nchans\": 64, \"nbits\": 8, \"threads\": 1, "
          "\"speedup_vs_direct_cpu\": 9.0, \"worst_snr_loss\": 0.08},"
          "{\"impl\": \"tree\", \"nchans\": 64, \"nbits\": 8, \"threads\": 1, "
          "\"speedup_vs_direct_cpu\": 1.5, \"worst_snr_loss\": 0.34}]}",
          f);
    fclose(f);
    CU_ASSERT_EQUAL(runf(err, sizeof err, "bench dedisperse -replot '%s' -report '%s'", json, dir), 0);
    snprintf(path, sizeof path, "%s/index.html", dir);
    size_t n = 0;
    unsigned char *html = xc_fx_slurp(path, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    const char *h = (const char *)html;
    const char *plot = xc_plots_built() ? "<img src=\"data:image/png;base64," : "<p class=\"noplot\">";
    int plots = 0;
    for (const char *p = h; (p = strstr(p, plot)); p++)
        plots++;
    XC_ASSERT_NEAR(plots, 1, 0);
    /* the subband curve: sorted by loss, its fastest point under 10 % loss named */
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "2 points; least loss 0.080; fastest 9.00x; fastest at &lt;= 10 % loss: 9.00x; "
                                     "at &lt; 5 %: none"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "1 point; least loss 0.340; fastest 1.50x; fastest at &lt;= 10 % loss: none"));
    CU_ASSERT_PTR_NULL(strstr(h, "cpu, 64 ch"));
    free(html);
    /* not a bench dedisperse JSON: exit 2 naming the file */
    CU_ASSERT_EQUAL(runf(err, sizeof err, "bench dedisperse -replot '%s/index.html' -report '%s/x'", dir,
                         xc_test_tmpdir()),
                    2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-replot"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "index.html"));
    CU_ASSERT_EQUAL(runf(err, sizeof err, "bench dedisperse -replot '%s'", json), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs -report"));
}

XC_TEST_MAIN("cli")
