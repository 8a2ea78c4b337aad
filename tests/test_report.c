/* The report writer: content, determinism, atomicity. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "reports/xc_report.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* A report with every kind of piece; the plane is 300 x 500 so the heatmap
 * has to reduce it (to 150 x 167 cells). */
static xc_report *sample_report(void)
{
    xc_error err;
    xc_report *r;
    if (xc_report_new(&r, "Dedispersion <cross-check>", &err))
        return NULL;
    static double x[50], y1[50], y2[50];
    for (int i = 0; i < 50; i++) {
        x[i] = i * 2.0;
        y1[i] = sin(i * 0.2) * 10;
        y2[i] = i == 20 ? NAN : cos(i * 0.2) * 10;
    }
    xc_series s[2] = {{"cpu", x, y1, 50}, {"gpu & friends", x, y2, 50}};
    xc_lineplot lp = {"Time per trial", "DM (pc cm^-3)", "time (ms)", s, 2, 0, 0};
    float *plane = malloc(300 * 500 * sizeof *plane);
    if (!plane) {
        xc_report_free(r);
        return NULL;
    }
    for (int i = 0; i < 300; i++)
        for (int j = 0; j < 500; j++)
            plane[i * 500 + j] = (float)((i * 7 + j * 13) % 101) + (i == 150 && j == 250 ? 500.f : 0.f);
    xc_heatmap hm = {"DM-time plane", plane, 300, 500, 0, 500 * 64e-6, 0, 300, "time (s)",
                     "DM (pc cm^-3)", "S/N", XC_CMAP_VIRIDIS, XC_REDUCE_MAX, 0, 0};
    xc_status st = xc_report_add_verdict(r, "cpu", "plane vs reference (exact)", "0 of 34580 differ", "0", 1, &err);
    st = st ? st : xc_report_add_verdict(r, "gpu", "plane vs reference (bound)", "3.1e-6", "2.2e-6", 0, &err);
    st = st ? st : xc_report_add_section(r, "Inputs", &err);
    st = st ? st : xc_report_add_text(r, "First paragraph.\n\nSecond <paragraph> & more.", &err);
    st = st ? st : xc_report_add_kv(r, "nchans", "37", &err);
    st = st ? st : xc_report_add_kv(r, "tsamp", "64 us", &err);
    st = st ? st : xc_report_add_section(r, "Plots", &err);
    st = st ? st : xc_report_add_lines(r, &lp, &err);
    st = st ? st : xc_report_add_heatmap(r, &hm, &err);
    st = st ? st : xc_report_set_number(r, "max_abs_diff", 0.5, &err);
    st = st ? st : xc_report_set_number(r, "not_a_number", NAN, &err);
    st = st ? st : xc_report_set_json(r, "plan", json_pack("{s:i}", "ndm", 40), &err);
    free(plane);
    if (st) {
        fprintf(stderr, "sample report: %s\n", err.msg);
        xc_report_free(r);
        return NULL;
    }
    return r;
}

XC_TEST(test_write, "index.html and summary.json")
{
    xc_error err;
    char dir[512], html[600], js[600];
    xc_report *r = sample_report();
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    size_t nf;
    CU_ASSERT_EQUAL(xc_report_nverdicts(r, &nf), 2);
    CU_ASSERT_EQUAL(nf, 1);
    /* Missing parents are created. */
    snprintf(dir, sizeof dir, "%s/runs/one", xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(xc_report_write(r, dir, &err), XC_OK);
    snprintf(html, sizeof html, "%s/index.html", dir);
    snprintf(js, sizeof js, "%s/summary.json", dir);

    char *h = (char *)xc_fx_slurp(html, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_EQUAL(strncmp(h, "<!DOCTYPE html>", 15), 0);
    CU_ASSERT_EQUAL(count(h, "<svg xmlns"), 2);
    CU_ASSERT_EQUAL(count(h, "</svg>"), 3);   /* the heatmap nests a clipping <svg> */
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "<td>cpu</td><td>plane vs reference (exact)</td>"
                                     "<td class=\"num\">0 of 34580 differ</td><td class=\"num\">0</td>"
                                     "<td><span class=\"badge pass\">PASS</span></td>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "<td>gpu</td><td>plane vs reference (bound)</td>"
                                     "<td class=\"num\">3.1e-6</td><td class=\"num\">2.2e-6</td>"
                                     "<td><span class=\"badge fail\">FAIL</span></td>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "1 of 2 checks failed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "<title>Dedispersion &lt;cross-check&gt;</title>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "<p>Second &lt;paragraph&gt; &amp; more.</p>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th>tsamp</th><td>64 us</td></tr>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "gpu &amp; friends"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "DM (pc cm^-3)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "300 x 500 samples; each cell the maximum of 2 x 3"));
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "data:image/png;base64,iVBORw0KGgo"));
    /* Nothing but the two files (no temporaries left). */
    CU_ASSERT_EQUAL(count(h, "tmp."), 0);
    free(h);

    json_error_t je;
    json_t *root = json_load_file(js, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(root, "title")), "Dedispersion <cross-check>");
    CU_ASSERT_TRUE(json_is_false(json_object_get(root, "passed")));
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "n_failed")), 1);
    json_t *rows = json_object_get(root, "verdicts");
    CU_ASSERT_EQUAL_FATAL(json_array_size(rows), 2);
    json_t *r1 = json_array_get(rows, 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r1, "implementation")), "gpu");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r1, "measured")), "3.1e-6");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r1, "bound")), "2.2e-6");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r1, "verdict")), "FAIL");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(rows, 0), "verdict")), "PASS");
    json_t *nums = json_object_get(root, "numbers");
    CU_ASSERT_EQUAL(json_real_value(json_object_get(nums, "max_abs_diff")), 0.5);
    CU_ASSERT_TRUE(json_is_null(json_object_get(nums, "not_a_number")));
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(json_object_get(root, "data"), "plan"),
                                                       "ndm")), 40);
    json_decref(root);
    xc_report_free(r);
}

/* The same report built twice and written to two folders: identical bytes. */
XC_TEST(test_deterministic, "same input, same bytes")
{
    xc_error err;
    const char *names[2] = {"det1", "det2"};
    char *h[2], *j[2];
    size_t hl[2], jl[2];
    for (int i = 0; i < 2; i++) {
        char dir[512], p[600];
        xc_report *r = sample_report();
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        snprintf(dir, sizeof dir, "%s/%s", xc_test_tmpdir(), names[i]);
        CU_ASSERT_EQUAL_FATAL(xc_report_write(r, dir, &err), XC_OK);
        /* Writing again into the same folder replaces the files with the same bytes. */
        CU_ASSERT_EQUAL_FATAL(xc_report_write(r, dir, &err), XC_OK);
        xc_report_free(r);
        snprintf(p, sizeof p, "%s/index.html", dir);
        h[i] = (char *)xc_fx_slurp(p, &hl[i]);
        snprintf(p, sizeof p, "%s/summary.json", dir);
        j[i] = (char *)xc_fx_slurp(p, &jl[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(h[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j[i]);
    }
    CU_ASSERT_TRUE(hl[0] > 10000);
    CU_ASSERT_EQUAL(hl[0], hl[1]);
    CU_ASSERT_EQUAL(jl[0], jl[1]);
    CU_ASSERT_EQUAL(memcmp(h[0], h[1], hl[0] < hl[1] ? hl[0] : hl[1]), 0);
    CU_ASSERT_EQUAL(memcmp(j[0], j[1], jl[0] < jl[1] ? jl[0] : jl[1]), 0);
    for (int i = 0; i < 2; i++) {
        free(h[i]);
        free(j[i]);
    }
}

static size_t entries(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    unsigned long n = 999;
    if (p) {
        if (fscanf(p, "%lu", &n) != 1)
            n = 999;
        pclose(p);
    }
    return n;
}

XC_TEST(test_failed_write, "a failed write leaves nothing")
{
    xc_error err;
    char base[512], file[600], p[800], cmd[1200];
    static char dir[4200];
    xc_report *r = sample_report();
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    snprintf(base, sizeof base, "%s/fail", xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(mkdir(base, 0777), 0);

    /* A parent that is a regular file: the folder cannot be created. */
    snprintf(file, sizeof file, "%s/plainfile", base);
    FILE *fp = fopen(file, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fclose(fp);
    snprintf(dir, sizeof dir, "%s/sub/run", file);
    CU_ASSERT_EQUAL(xc_report_write(r, dir, &err), XC_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot create directory"));
    CU_ASSERT_EQUAL(entries(base), 1);

    /* The folder exists but index.html cannot be renamed into place (a
     * folder of that name holds a file): summary.json must not stay. */
    snprintf(dir, sizeof dir, "%s/new/run", base);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/new/run/index.html' && touch '%s/new/run/index.html/keep'",
             base, base);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    CU_ASSERT_EQUAL(xc_report_write(r, dir, &err), XC_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "index.html"));
    snprintf(p, sizeof p, "%s/new/run/summary.json", base);
    CU_ASSERT_FALSE(xc_fx_exists(p));
    CU_ASSERT_EQUAL(entries(dir), 1);   /* only the index.html folder made above */

    /* Folders the write creates are removed when it fails after making them:
     * here the folder path fits, but the files' paths exceed 4095 bytes. */
    size_t n = (size_t)snprintf(dir, sizeof dir, "%s/fresh", base);
    while (n + 201 <= 4085) {
        dir[n++] = '/';
        memset(dir + n, 'd', 200);
        n += 200;
    }
    memset(dir + n, 'e', 4085 - n);
    dir[4085] = '\0';
    CU_ASSERT_EQUAL(xc_report_write(r, dir, &err), XC_EINVAL);
    snprintf(p, sizeof p, "%s/fresh", base);
    CU_ASSERT_FALSE(xc_fx_exists(p));
    CU_ASSERT_EQUAL(entries(base), 2);   /* plainfile and new */

    /* A write that fails part way (file size limit, like a full disk):
     * summary.json (small) is renamed, index.html is not, and both go. */
    struct rlimit old, lim;
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 4096;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    snprintf(dir, sizeof dir, "%s/full/run", base);
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &lim), 0);
    xc_status st = xc_report_write(r, dir, &err);
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, prev);
    CU_ASSERT_EQUAL(st, XC_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "index.html"));
    snprintf(p, sizeof p, "%s/full", base);
    CU_ASSERT_FALSE(xc_fx_exists(p));
    CU_ASSERT_EQUAL(entries(base), 2);
    xc_report_free(r);
}

/* The pieces on their own: escaping, PNG framing, colour map ends, run folder. */
XC_TEST(test_pieces, "escaping, PNG, colours, run folder")
{
    xc_error err;
    xc_text t;
    xc_text_init(&t);
    CU_ASSERT_EQUAL(xc_text_escape(&t, "a<b>&\"c'"), XC_OK);
    CU_ASSERT_STRING_EQUAL(t.s, "a&lt;b&gt;&amp;&quot;c&#39;");
    xc_text_free(&t);

    /* 1 x 1 red pixel: signature 8 + IHDR 25 + IDAT 27 + IEND 12 = 72 bytes -> 96 base64
     * chars (checked with Python's zlib: CRCs and the stored deflate block decode). */
    uint8_t px[3] = {255, 0, 0};
    CU_ASSERT_EQUAL(xc_png_base64(&t, px, 1, 1, &err), XC_OK);
    CU_ASSERT_EQUAL(t.len, 96);
    CU_ASSERT_STRING_EQUAL(t.s + 32, "CAIAAACQd1PeAAAAD0lEQVR4AQEEAPv/AP8AAAMBAQCNHeWCAAAAAElFTkSuQmCC");
    CU_ASSERT_EQUAL(strncmp(t.s, "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", 32), 0);
    xc_text_free(&t);
    CU_ASSERT_EQUAL(xc_png_base64(&t, px, 0, 1, &err), XC_EINVAL);
    xc_text_free(&t);

    uint8_t c[3];
    xc_cmap_rgb(XC_CMAP_VIRIDIS, 0, c);
    CU_ASSERT(c[0] == 0x44 && c[1] == 0x01 && c[2] == 0x54);
    xc_cmap_rgb(XC_CMAP_VIRIDIS, 1, c);
    CU_ASSERT(c[0] == 0xfd && c[1] == 0xe7 && c[2] == 0x25);
    xc_cmap_rgb(XC_CMAP_GREY, 0.5, c);
    CU_ASSERT(c[0] == 128 && c[1] == 128 && c[2] == 128);
    xc_cmap_rgb(XC_CMAP_GREY, NAN, c);
    CU_ASSERT(c[0] == 255 && c[1] == 0 && c[2] == 255);

    char buf[64];
    CU_ASSERT_EQUAL(xc_report_run_dir(buf, sizeof buf, "reports/runs", 86400 * 365, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(buf, "reports/runs/19710101-000000");
    CU_ASSERT_EQUAL(xc_report_run_dir(buf, 10, "reports/runs", 0, &err), XC_EINVAL);

    /* Plots refuse input they cannot draw. */
    xc_lineplot lp = {"empty", "x", "y", NULL, 0, 0, 0};
    CU_ASSERT_EQUAL(xc_svg_lines(&t, &lp, &err), XC_EINVAL);
    double x[2] = {-1, 0}, y[2] = {1, 2};
    xc_series s = {"neg", x, y, 2};
    lp.series = &s;
    lp.nseries = 1;
    lp.logx = 1;
    CU_ASSERT_EQUAL(xc_svg_lines(&t, &lp, &err), XC_EINVAL);
    xc_heatmap hm = {0};
    CU_ASSERT_EQUAL(xc_svg_heatmap(&t, &hm, &err), XC_EINVAL);
    xc_text_free(&t);
}

XC_TEST_MAIN("report")
