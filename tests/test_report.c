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
#ifdef XC_HAVE_CAIRO
#include <cairo.h>
#include <dlfcn.h>
#endif

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
    static double sx[3] = {1, 2, 3}, sy[3] = {1.1, 1.9, 3.2}, sc[3] = {5, 7, 9}, edges[4] = {0, 1, 2, 3};
    static const double c0[3] = {1, 4, 2}, c1[3] = {0, 3, 5};
    static const double *const counts[2] = {c0, c1};
    static const char *const labels[2] = {"presto", "crosscheck"};
    xc_scatter sp = {"DM found against injected", "injected DM", "found DM", "S/N", sx, sy, sc, 3,
                     XC_CMAP_VIRIDIS, 0, 0, 0, 0, 1};
    xc_bars bars = {"Detections per S/N", "S/N", "count", edges, 3, counts, labels, 2};
    xc_status st = xc_report_add_verdict(r, "cpu", "plane vs reference (exact)", "0 of 34580 differ", "0", 1, &err);
    st = st ? st : xc_report_add_verdict(r, "gpu", "plane vs reference (bound)", "3.1e-6", "2.2e-6", 0, &err);
    st = st ? st : xc_report_add_section(r, "Inputs", &err);
    st = st ? st : xc_report_add_text(r, "First paragraph.\n\nSecond <paragraph> & more.", &err);
    st = st ? st : xc_report_add_kv(r, "nchans", "37", &err);
    st = st ? st : xc_report_add_kv(r, "tsamp", "64 us", &err);
    st = st ? st : xc_report_add_section(r, "Plots", &err);
    st = st ? st : xc_report_add_lines(r, &lp, &err);
    st = st ? st : xc_report_add_heatmap(r, &hm, &err);
    st = st ? st : xc_report_add_scatter(r, &sp, &err);
    st = st ? st : xc_report_add_bars(r, &bars, &err);
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
    /* Four plots, each one <img> (or, built without cairo, one paragraph). */
    if (xc_plots_built()) {
        XC_ASSERT_NEAR(count(h, "<img src=\"data:image/png;base64,iVBORw0KGgo"), 4, 0);
        XC_ASSERT_NEAR(count(h, "<p class=\"noplot\">"), 0, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(h, "\" width=\"720\" height=\"420\" alt=\"Time per trial\">"));
        CU_ASSERT_PTR_NOT_NULL(strstr(h, "\" width=\"720\" height=\"440\" alt=\"DM-time plane\" "
                                         "title=\"300 x 500 samples; each cell the maximum of 2 x 3\">"));
        CU_ASSERT_PTR_NOT_NULL(strstr(h, "alt=\"DM found against injected\">"));
        CU_ASSERT_PTR_NOT_NULL(strstr(h, "alt=\"Detections per S/N\">"));
    } else {
        XC_ASSERT_NEAR(count(h, "<img"), 0, 0);
        XC_ASSERT_NEAR(count(h, "<p class=\"noplot\">"), 4, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(h, "<p class=\"noplot\">Heatmap &#8220;DM-time plane&#8221;: not drawn"));
    }
    XC_ASSERT_NEAR(count(h, "<svg"), 0, 0);
    /* The check the browser runs (scripts/report-check.sh reads its attributes). */
    CU_ASSERT_PTR_NOT_NULL(strstr(h, "setAttribute(\"data-broken-images\",bad)"));
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
    /* Four PNGs inline; built without plots, four short paragraphs. */
    XC_ASSERT_ABOVE(hl[0], xc_plots_built() ? 50000 : 4000);
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
    lim.rlim_cur = 2048;   /* summary.json is below, index.html (4 kB without plots) above */
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

/* The pieces on their own: escaping, base64, colour map ends, run folder. */
XC_TEST(test_pieces, "escaping, base64, colours, run folder")
{
    xc_error err;
    xc_text t;
    xc_text_init(&t);
    CU_ASSERT_EQUAL(xc_text_escape(&t, "a<b>&\"c'"), XC_OK);
    CU_ASSERT_STRING_EQUAL(t.s, "a&lt;b&gt;&amp;&quot;c&#39;");
    xc_text_free(&t);

    /* RFC 4648's test vectors, appended one after another. */
    static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    for (size_t i = 0; i < XC_NCASES(in); i++)
        CU_ASSERT_EQUAL(xc_text_base64(&t, in[i], strlen(in[i])), XC_OK);
    CU_ASSERT_STRING_EQUAL(t.s, "Zg==Zm8=Zm9vZm9vYg==Zm9vYmE=Zm9vYmFy");
    XC_ASSERT_NEAR(t.len, 36, 0);
    xc_text_free(&t);
    const unsigned char all[3] = {0xfb, 0xff, 0x00};
    CU_ASSERT_EQUAL(xc_text_base64(&t, all, 3), XC_OK);
    CU_ASSERT_STRING_EQUAL(t.s, "+/8A");
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
    CU_ASSERT_EQUAL(xc_report_run_dir(buf, sizeof buf, "runs", 86400 * 365, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(buf, "runs/19710101-000000");
    CU_ASSERT_EQUAL(xc_report_run_dir(buf, 10, "runs", 0, &err), XC_EINVAL);
}

/* One plot call that must fail with XC_EINVAL, a message holding `msg`, and
 * nothing appended. */
#define REFUSED(call, want) \
    do { \
        xc_text t_; \
        xc_error e_ = {0}; \
        char m_[1400]; \
        xc_text_init(&t_); \
        xc_status st_ = call(&t_, arg_, &e_); \
        XC_ASSERT_NEAR(st_, XC_EINVAL, 0); \
        XC_ASSERT_NEAR(t_.len, 0, 0); \
        snprintf(m_, sizeof m_, "%s: message '%s', expected it to hold '%s'", #call, e_.msg, want); \
        CU_assertImplementation(strstr(e_.msg, want) ? CU_TRUE : CU_FALSE, __LINE__, m_, __FILE__, __func__, \
                                CU_FALSE); \
        xc_text_free(&t_); \
    } while (0)

/* Planted failures: input no plot can be drawn from, refused with the
 * documented error, in builds with and without cairo alike. */
XC_TEST(test_refused, "plots refuse invalid input")
{
    double x[3] = {-1, 0, 1}, y[3] = {1, 2, 3};
    xc_lineplot lp = {"empty", "x", "y", NULL, 0, 0, 0};
    const void *arg_ = &lp;
    REFUSED(xc_plot_lines, "line plot 'empty': no series");
    REFUSED(xc_plot_lines, "no series");
    xc_series s = {"s", x, NULL, 3};
    lp.series = &s;
    lp.nseries = 1;
    REFUSED(xc_plot_lines, "series 0 has no data");
    s.y = y;
    s.ylo = y;
    REFUSED(xc_plot_lines, "series 0 has ylo but not yhi");
    s.ylo = NULL;
    s.x = x;
    s.n = 2;
    lp.logx = 1;   /* x = -1 and 0: nothing on a log axis */
    REFUSED(xc_plot_lines, "no point to draw (log axes skip values <= 0)");

    xc_heatmap hm = {0};
    arg_ = &hm;
    REFUSED(xc_plot_heatmap, "no data");
    float d[2] = {1, 2};
    hm = (xc_heatmap){"h", d, 1, 2, 0, NAN, 0, 1};
    REFUSED(xc_plot_heatmap, "axis limits must be finite");

    arg_ = NULL;
    REFUSED(xc_plot_scatter, "scatter plot: no plot");
    xc_scatter sc = {"sc", "x", "y", "c", NULL, y, NULL, 3};
    arg_ = &sc;
    REFUSED(xc_plot_scatter, "3 points but no x or y");

    double edges[4] = {0, 1, 1, 2}, c0[3] = {1, 2, 3}, cn[3] = {1, NAN, 3};
    const double *counts[2] = {c0, NULL};
    xc_bars b = {"b", "x", "n", edges, 0, counts, NULL, 1};
    arg_ = &b;
    REFUSED(xc_plot_bars, "bar plot 'b': no bins");
    b.nbins = 3;
    REFUSED(xc_plot_bars, "edge 2 (1) is not finite or not above the one before");
    edges[2] = 1.5;
    b.nseries = 2;
    REFUSED(xc_plot_bars, "series 1 has no counts");
    counts[1] = cn;
    REFUSED(xc_plot_bars, "series 1, bin 1: count nan is not finite");
    b.counts = NULL;
    REFUSED(xc_plot_bars, "no series");

    /* The report passes the error on and adds nothing. */
    xc_report *r;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_report_new(&r, "refusals", &err), XC_OK);
    CU_ASSERT_EQUAL(xc_report_add_bars(r, &b, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_report_add_scatter(r, NULL, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_report_add_heatmap(r, &hm, &err), XC_EINVAL);
    xc_report_free(r);
}

#ifdef XC_HAVE_CAIRO

/* ---- the drawn PNGs, decoded again --------------------------------------- */

typedef struct {
    unsigned char *p;
    size_t n, at;
} membuf;

static cairo_status_t mem_read(void *closure, unsigned char *data, unsigned int len)
{
    membuf *m = closure;
    if (m->n - m->at < len)
        return CAIRO_STATUS_READ_ERROR;
    memcpy(data, m->p + m->at, len);
    m->at += len;
    return CAIRO_STATUS_SUCCESS;
}

static int b64val(int c)
{
    const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c ? strchr(tab, c) : NULL;
    return p ? (int)(p - tab) : -1;
}

/* A figure as the plot functions write it: its size attributes, its title
 * attribute (note) and the PNG decoded by cairo (NULL if it does not decode). */
typedef struct {
    int w, h;
    char note[256];
    cairo_surface_t *img;
} figure;

static figure decode_figure(const char *html)
{
    figure f = {0};
    const char *p = strstr(html, "data:image/png;base64,");
    if (!p)
        return f;
    p += strlen("data:image/png;base64,");
    size_t len = strcspn(p, "\"");
    membuf m = {malloc(len), 0, 0};
    if (!m.p)
        return f;
    unsigned v = 0;
    int bits = 0;
    for (size_t i = 0; i < len && p[i] != '='; i++) {
        int k = b64val(p[i]);
        if (k < 0)
            break;
        v = (v << 6) | (unsigned)k;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            m.p[m.n++] = (unsigned char)(v >> bits);
        }
    }
    sscanf(p + len, "\" width=\"%d\" height=\"%d\"", &f.w, &f.h);
    const char *t = strstr(p + len, " title=\"");
    if (t)
        sscanf(t, " title=\"%255[^\"]", f.note);
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(mem_read, &m);
    free(m.p);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return f;
    }
    f.img = s;
    return f;
}

/* Draws with `call` and decodes what it appended. */
#define DRAW(fig, call, arg) \
    do { \
        xc_text t_; \
        xc_error e_; \
        xc_text_init(&t_); \
        CU_ASSERT_EQUAL_FATAL(call(&t_, arg, &e_), XC_OK); \
        CU_ASSERT_EQUAL(strncmp(t_.s, "<img src=\"data:image/png;base64,", 32), 0); \
        fig = decode_figure(t_.s); \
        xc_text_free(&t_); \
        CU_ASSERT_PTR_NOT_NULL_FATAL(fig.img); \
    } while (0)

/* Pixels of exactly colour rgb (0xRRGGBB) in columns [x0, x1): how many,
 * and their mean column and row. */
typedef struct {
    double n, x, y;
} spot;

static spot find(cairo_surface_t *s, uint32_t rgb, int x0, int x1)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *d = cairo_image_surface_get_data(s);
    spot r = {0, NAN, NAN};
    double sx = 0, sy = 0;
    x1 = x1 < w ? x1 : w;
    for (int y = 0; y < h; y++)
        for (int x = x0; x < x1; x++)
            if ((*(const uint32_t *)(const void *)(d + (size_t)y * (size_t)stride + 4 * (size_t)x) & 0xffffff) == rgb) {
                r.n++;
                sx += x;
                sy += y;
            }
    if (r.n) {
        r.x = sx / r.n;
        r.y = sy / r.n;
    }
    return r;
}

/* The row holding most pixels of colour rgb. */
static int busiest_row(cairo_surface_t *s, uint32_t rgb)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s), best = -1;
    double bestn = 0;
    for (int y = 0; y < h; y++) {
        int stride = cairo_image_surface_get_stride(s);
        const unsigned char *d = cairo_image_surface_get_data(s) + (size_t)y * (size_t)stride;
        double n = 0;
        for (int x = 0; x < w; x++)
            n += (*(const uint32_t *)(const void *)(d + 4 * (size_t)x) & 0xffffff) == rgb;
        if (n > bestn) {
            bestn = n;
            best = y;
        }
    }
    return best;
}

/* Longest vertical run of colour rgb in any column. */
static int longest_column_run(cairo_surface_t *s, uint32_t rgb)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s), best = 0;
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *d = cairo_image_surface_get_data(s);
    for (int x = 0; x < w; x++)
        for (int y = 0, run = 0; y < h; y++) {
            int hit = (*(const uint32_t *)(const void *)(d + (size_t)y * (size_t)stride + 4 * (size_t)x) & 0xffffff) ==
                      rgb;
            run = hit ? run + 1 : 0;
            best = run > best ? run : best;
        }
    return best;
}

/* Mean row of colour rgb in column x (NAN if absent). */
static double column_row(cairo_surface_t *s, uint32_t rgb, int x)
{
    spot p = find(s, rgb, x, x + 1);
    return p.y;
}

/* The left edge of the colour bar: from the rightmost column holding
 * colour rgb (the bar's top or bottom end), leftwards while columns hold it
 * (the white gap before the bar has none). */
static int colourbar_left(cairo_surface_t *s, uint32_t rgb)
{
    int x = cairo_image_surface_get_width(s) - 1;
    while (x > 0 && find(s, rgb, x, x + 1).n == 0)
        x--;
    while (x > 0 && find(s, rgb, x - 1, x).n > 0)
        x--;
    return x;
}

static void check_size(const figure *f, int w, int h)
{
    XC_ASSERT_NEAR(f->w, w, 0);
    XC_ASSERT_NEAR(f->h, h, 0);
    XC_ASSERT_NEAR(cairo_image_surface_get_width(f->img), XC_PLOT_SCALE * w, 0);
    XC_ASSERT_NEAR(cairo_image_surface_get_height(f->img), XC_PLOT_SCALE * h, 0);
}

enum { BLUE = 0x1f77b4, RED = 0xd62728, GREEN = 0x2ca02c, V0 = 0x440154, V1 = 0xfde725, MAGENTA = 0xff00ff };

XC_TEST(test_png_lines, "line plot PNG: series where they belong, error bars, log axes")
{
    enum { N = 100 };
    static double x[N], y0[N], y1[N], sq[N];
    for (int i = 0; i < N; i++) {
        x[i] = i;
        y0[i] = 0;
        y1[i] = 1;
    }
    double px = 50, py = 0.5, lo = 0.1, hi = 0.9;
    xc_series s[3] = {{"zero", x, y0, N}, {"one", x, y1, N}, {"point", &px, &py, 1, &lo, &hi, 1}};
    xc_lineplot lp = {"Two lines", "x", "y", s, 3, 0, 0};
    figure f;
    DRAW(f, xc_plot_lines, &lp);
    check_size(&f, 720, 420);
    XC_ASSERT_NEAR(f.note[0], 0, 0);
    /* y = 0 runs along the bottom, y = 1 along the top, 0.8 of the axis
     * (0 to 1) apart in the frame of about 330 of the 420 CSS pixels. */
    int r0 = busiest_row(f.img, BLUE), r1 = busiest_row(f.img, RED);
    XC_ASSERT_ABOVE(r0 - r1, 0.7 * XC_PLOT_SCALE * 420);
    XC_ASSERT_BELOW(r0 - r1, 0.85 * XC_PLOT_SCALE * 420);
    spot b = find(f.img, BLUE, 0, 1 << 30), r = find(f.img, RED, 0, 1 << 30);
    XC_ASSERT_ABOVE(b.n, 2 * 0.8 * XC_PLOT_SCALE * 720);   /* two rows across most of the width */
    XC_ASSERT_ABOVE(r.n, 2 * 0.8 * XC_PLOT_SCALE * 720);
    /* The point's error bar: 0.8 of the axis tall, far longer than its marker. */
    int run = longest_column_run(f.img, GREEN);
    XC_ASSERT_ABOVE(run, 0.7 * (r0 - r1));
    XC_ASSERT_BELOW(run, 0.9 * (r0 - r1));
    cairo_surface_destroy(f.img);
    s[2].ylo = s[2].yhi = NULL;
    DRAW(f, xc_plot_lines, &lp);
    XC_ASSERT_BELOW(longest_column_run(f.img, GREEN), 8 * XC_PLOT_SCALE);   /* only the marker */
    XC_ASSERT_ABOVE(longest_column_run(f.img, GREEN), 4 * XC_PLOT_SCALE);
    cairo_surface_destroy(f.img);

    /* y = x^2 from 1 to 100: straight on log-log axes, bent on linear ones.
     * Rows of the curve at 30, 50 and 70 % of the width (inside the frame). */
    for (int i = 0; i < N; i++) {
        x[i] = pow(10, 2.0 * i / (N - 1));
        sq[i] = x[i] * x[i];
    }
    xc_series q = {NULL, x, sq, N};
    xc_lineplot ll = {"Square", "x", "x^2", &q, 1, 1, 1};
    double bend[2];
    for (int logs = 1; logs >= 0; logs--) {
        ll.logx = ll.logy = logs;
        DRAW(f, xc_plot_lines, &ll);
        int W = XC_PLOT_SCALE * 720;
        double a = column_row(f.img, BLUE, W * 3 / 10), m = column_row(f.img, BLUE, W / 2),
               c = column_row(f.img, BLUE, W * 7 / 10);
        bend[logs] = m - (a + c) / 2;
        cairo_surface_destroy(f.img);
    }
    XC_ASSERT_NEAR(bend[1], 0, 2);
    XC_ASSERT_ABOVE(bend[0], 20);   /* convex: the middle lies below the chord (36 drawn) */
}

XC_TEST(test_png_heatmap, "heatmap PNG: cells, NaN and colour bar where they belong")
{
    enum { R = 10, C = 20 };
    float d[R * C];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            d[i * C + j] = j < C / 2 ? 0.f : 1.f;
    d[0] = NAN;   /* row 0 is drawn at the bottom: the bottom-left cell */
    xc_heatmap hm = {"Halves", d, R, C, 0, 2, 0, 1, "x", "y", "z", XC_CMAP_VIRIDIS, XC_REDUCE_MAX, 0, 0};
    figure f;
    DRAW(f, xc_plot_heatmap, &hm);
    check_size(&f, 720, 440);
    CU_ASSERT_STRING_EQUAL(f.note, "10 x 20 samples; 1 cell not finite (magenta)");
    int W = XC_PLOT_SCALE * 720, bar = colourbar_left(f.img, V1);
    XC_ASSERT_ABOVE(bar, 0.8 * W);
    XC_ASSERT_BELOW(bar, 0.95 * W);
    spot lo = find(f.img, V0, 0, bar), hi = find(f.img, V1, 0, bar), nan = find(f.img, MAGENTA, 0, bar);
    /* The two halves: equal areas (less the NaN cell), left and right. */
    XC_ASSERT_NEAR(lo.n / hi.n, 99.0 / 100.0, 0.02);
    XC_ASSERT_ABOVE(hi.x - lo.x, 0.3 * W);
    XC_ASSERT_NEAR(lo.y, hi.y, 0.05 * XC_PLOT_SCALE * 440);
    /* The NaN cell: 1/200 of the area, bottom left. */
    XC_ASSERT_NEAR(nan.n / hi.n, 1.0 / 100.0, 0.002);
    XC_ASSERT_BELOW(nan.x, lo.x);
    XC_ASSERT_ABOVE(nan.y, lo.y);
    /* The colour bar: high values on top. */
    spot blo = find(f.img, V0, bar, W), bhi = find(f.img, V1, bar, W);
    XC_ASSERT_ABOVE(blo.n, 0);
    XC_ASSERT_ABOVE(bhi.n, 0);
    XC_ASSERT_ABOVE(blo.y - bhi.y, 0.5 * XC_PLOT_SCALE * 300);
    cairo_surface_destroy(f.img);
}

XC_TEST(test_png_scatter, "scatter PNG: colours by value, diagonal, empty")
{
    double x[3] = {1, 9, 5}, y[3] = {1, 9, 5}, c[3] = {0, 1, 0.5};
    xc_scatter sc = {"Found against injected", "injected", "found", "S/N", x, y, c, 3, XC_CMAP_VIRIDIS,
                     0, 0, 0, 0, 1};
    figure f;
    DRAW(f, xc_plot_scatter, &sc);
    check_size(&f, 720, 460);
    int W = XC_PLOT_SCALE * 720, bar = colourbar_left(f.img, V1);
    XC_ASSERT_ABOVE(bar, 0.8 * W);
    XC_ASSERT_BELOW(bar, 0.95 * W);
    uint8_t mid[3];
    xc_cmap_rgb(XC_CMAP_VIRIDIS, 0.5, mid);
    spot p0 = find(f.img, V0, 0, bar), p1 = find(f.img, V1, 0, bar);
    spot pm = find(f.img, (uint32_t)mid[0] << 16 | (uint32_t)mid[1] << 8 | mid[2], 0, bar);
    /* c = 0 at (1, 1) bottom left, c = 1 at (9, 9) top right, 0.5 between. */
    XC_ASSERT_ABOVE(p0.n, 50);
    XC_ASSERT_NEAR(p1.n, p0.n, 0.1 * p0.n);   /* same marker size */
    XC_ASSERT_ABOVE(p1.x - p0.x, 0.5 * W);
    XC_ASSERT_ABOVE(p0.y - p1.y, 0.4 * XC_PLOT_SCALE * 460);
    XC_ASSERT_NEAR(pm.x, (p0.x + p1.x) / 2, 2);
    XC_ASSERT_NEAR(pm.y, (p0.y + p1.y) / 2, 2);
    /* The y = x line, dashed grey, through all three. */
    spot diag = find(f.img, 0x555555, 0, bar);
    XC_ASSERT_ABOVE(diag.n, 300);
    cairo_surface_destroy(f.img);
    /* The same with c NULL: one colour, no colour bar. */
    sc.c = NULL;
    DRAW(f, xc_plot_scatter, &sc);
    XC_ASSERT_NEAR(find(f.img, BLUE, 0, W).n, p0.n * 3, 0.1 * p0.n * 3);
    XC_ASSERT_NEAR(find(f.img, V0, 0, W).n, 0, 0);
    cairo_surface_destroy(f.img);

    /* Nothing to draw (n = 0, and points on a log axis all <= 0): an image
     * with a "no data" note, not an error. */
    sc.c = c;
    sc.n = 0;
    DRAW(f, xc_plot_scatter, &sc);
    check_size(&f, 720, 460);
    CU_ASSERT_STRING_EQUAL(f.note, "no data");
    bar = colourbar_left(f.img, V1);
    XC_ASSERT_ABOVE(bar, 0.8 * W);
    XC_ASSERT_NEAR(find(f.img, V0, 0, bar).n, 0, 0);
    XC_ASSERT_ABOVE(find(f.img, V0, bar, W).n, 0);   /* the colour bar is still there */
    cairo_surface_destroy(f.img);
    double neg[3] = {-1, -2, 0};
    sc.x = neg;
    sc.n = 3;
    sc.logx = 1;
    DRAW(f, xc_plot_scatter, &sc);
    CU_ASSERT_STRING_EQUAL(f.note, "no data");
    cairo_surface_destroy(f.img);
}

XC_TEST(test_png_bars, "bar PNG: heights and places, all-zero")
{
    double edges[4] = {0, 1, 2, 3}, a[3] = {4, 0, 0}, b[3] = {0, 0, 8};
    const double *counts[2] = {a, b};
    const char *labels[2] = {"a", "b"};
    xc_bars bars = {"Grouped", "x", "count", edges, 3, counts, labels, 2};
    figure f;
    DRAW(f, xc_plot_bars, &bars);
    check_size(&f, 720, 420);
    spot pa = find(f.img, BLUE, 0, 1 << 30), pb = find(f.img, RED, 0, 1 << 30);
    /* Bar b (8, last bin) twice the area of bar a (4, first bin); the
     * legend's two equal swatches add a little to both. */
    XC_ASSERT_NEAR(pb.n / pa.n, 2, 0.1);
    XC_ASSERT_ABOVE(pb.x - pa.x, 0.5 * XC_PLOT_SCALE * 600);
    XC_ASSERT_BELOW(pb.y, pa.y);   /* the taller bar's middle is higher */
    cairo_surface_destroy(f.img);

    /* One series: a histogram, bins filling their width. */
    bars.nseries = 1;
    bars.labels = NULL;
    double h[3] = {2, 2, 2};
    counts[0] = h;
    DRAW(f, xc_plot_bars, &bars);
    spot ph = find(f.img, BLUE, 0, 1 << 30);
    XC_ASSERT_ABOVE(ph.n, 0.6 * 0.8 * XC_PLOT_SCALE * 720 * XC_PLOT_SCALE * 300 * 0.75);
    cairo_surface_destroy(f.img);

    /* Every count zero: a "no data" note, no bars. */
    double z[3] = {0, 0, 0};
    counts[0] = z;
    DRAW(f, xc_plot_bars, &bars);
    check_size(&f, 720, 420);
    CU_ASSERT_STRING_EQUAL(f.note, "no data (every count is zero)");
    XC_ASSERT_NEAR(find(f.img, BLUE, 0, 1 << 30).n, 0, 0);
    cairo_surface_destroy(f.img);
}

#else

XC_TEST(test_noplots, "PLOTS=0: a paragraph instead of a plot")
{
    double x[2] = {0, 1};
    xc_series s = {"s", x, x, 2};
    xc_lineplot lp = {"A <line>", "x", "y", &s, 1, 0, 0};
    xc_text t;
    xc_error err;
    xc_text_init(&t);
    CU_ASSERT_EQUAL(xc_plots_built(), 0);
    CU_ASSERT_EQUAL_FATAL(xc_plot_lines(&t, &lp, &err), XC_OK);
    CU_ASSERT_STRING_EQUAL(t.s, "<p class=\"noplot\">Line plot &#8220;A &lt;line&gt;&#8221;: not drawn, this "
                                "crosscheck was built without plots (PLOTS=0).</p>\n");
    xc_text_free(&t);
}

#endif

int main(void)
{
    int rc = xc_test_main("report");
#ifdef XC_HAVE_CAIRO
    /* Frees cairo's font caches (which hold fontconfig's patterns) and
     * fontconfig's configuration (FcFini, found at run time: fontconfig comes
     * with cairo, the test does not link it by name), so a leak check at exit
     * (ASan) sees only what the plots themselves leave. */
    cairo_debug_reset_static_data();
    void (*fc_fini)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "FcFini");
    if (fc_fini)
        fc_fini();
#endif
    return rc;
}
