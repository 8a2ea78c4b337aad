/* The report document: pieces kept as rendered HTML fragments, verdict rows and
 * summary numbers, written out as index.html + summary.json. */
#include "reports/xc_report.h"
#include "core/base/xc_grow.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/base/xc_atomic.h"
#include "core/base/xc_fs.h"

typedef enum { IT_SECTION, IT_TEXT, IT_KV, IT_FIGURE } item_kind;

typedef struct {
    item_kind kind;
    char *a, *b;      /* section: heading; text: text; kv: key, value; figure: its HTML */
} item;

typedef struct {
    char *impl, *check, *measured, *bound;
    int pass;
} verdict;

struct xc_report {
    char *title;
    item *items;
    size_t nitems, capitems;
    verdict *rows;
    size_t nrows, caprows;
    json_t *numbers, *data;
};

static char *str_copy(const char *s)
{
    return strdup(s ? s : "");
}

xc_status xc_report_new(xc_report **rp, const char *title, xc_error *err)
{
    xc_report *r = calloc(1, sizeof *r);
    if (r) {
        r->title = str_copy(title);
        r->numbers = json_object();
        r->data = json_object();
    }
    if (!r || !r->title || !r->numbers || !r->data) {
        xc_report_free(r);
        *rp = NULL;
        return xc_error_set(err, XC_ENOMEM, "report: out of memory");
    }
    *rp = r;
    return XC_OK;
}

void xc_report_free(xc_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nitems; i++) {
        free(r->items[i].a);
        free(r->items[i].b);
    }
    for (size_t i = 0; i < r->nrows; i++)
        xc_free_each(4, r->rows[i].impl, r->rows[i].check, r->rows[i].measured, r->rows[i].bound);
    xc_free_each(3, r->items, r->rows, r->title);
    json_decref(r->numbers);
    json_decref(r->data);
    free(r);
}

/* Takes ownership of a and b (freed on failure). */
static xc_status add_item(xc_report *r, item_kind kind, char *a, char *b, xc_error *err)
{
    if (!a || (kind == IT_KV && !b))
        goto oom;
    if (r->nitems == r->capitems) {
        size_t cap = r->capitems ? 2 * r->capitems : 16;
        item *it = realloc(r->items, cap * sizeof *it);
        if (!it)
            goto oom;
        r->items = it;
        r->capitems = cap;
    }
    r->items[r->nitems++] = (item){kind, a, b};
    return XC_OK;
oom:
    free(a);
    free(b);
    return xc_error_set(err, XC_ENOMEM, "report: out of memory");
}

xc_status xc_report_add_section(xc_report *r, const char *heading, xc_error *err)
{
    return add_item(r, IT_SECTION, str_copy(heading), NULL, err);
}

xc_status xc_report_add_text(xc_report *r, const char *text, xc_error *err)
{
    return add_item(r, IT_TEXT, str_copy(text), NULL, err);
}

xc_status xc_report_add_kv(xc_report *r, const char *key, const char *value, xc_error *err)
{
    return add_item(r, IT_KV, str_copy(key), str_copy(value), err);
}

xc_status xc_report_add_verdict(xc_report *r, const char *impl, const char *check,
                                const char *measured, const char *bound, int pass, xc_error *err)
{
    if (r->nrows == r->caprows) {
        size_t cap = r->caprows ? 2 * r->caprows : 16;
        verdict *v = realloc(r->rows, cap * sizeof *v);
        if (!v)
            return xc_error_set(err, XC_ENOMEM, "report: out of memory");
        r->rows = v;
        r->caprows = cap;
    }
    verdict v = {str_copy(impl), str_copy(check), str_copy(measured), str_copy(bound), pass != 0};
    if (!v.impl || !v.check || !v.measured || !v.bound) {
        free(v.impl);
        free(v.check);
        free(v.measured);
        free(v.bound);
        return xc_error_set(err, XC_ENOMEM, "report: out of memory");
    }
    r->rows[r->nrows++] = v;
    return XC_OK;
}

static xc_status add_figure(xc_report *r, xc_text *fig, xc_status st, xc_error *err)
{
    if (st) {
        xc_text_free(fig);
        return st;
    }
    /* The text buffer's string becomes the item's. */
    return add_item(r, IT_FIGURE, fig->s, NULL, err);
}

typedef enum { FIG_LINES, FIG_HEATMAP, FIG_SCATTER, FIG_BARS } fig_kind;

/* Draws plot p of kind k (reports/xc_plot.h) and adds it. */
static xc_status add_plot(xc_report *r, fig_kind k, const void *p, xc_error *err)
{
    xc_text fig;
    xc_text_init(&fig);
    xc_status st = k == FIG_LINES     ? xc_plot_lines(&fig, p, err)
                   : k == FIG_HEATMAP ? xc_plot_heatmap(&fig, p, err)
                   : k == FIG_SCATTER ? xc_plot_scatter(&fig, p, err)
                                      : xc_plot_bars(&fig, p, err);
    return add_figure(r, &fig, st, err);
}

xc_status xc_report_add_lines(xc_report *r, const xc_lineplot *p, xc_error *err)
{
    return add_plot(r, FIG_LINES, p, err);
}

xc_status xc_report_add_heatmap(xc_report *r, const xc_heatmap *h, xc_error *err)
{
    return add_plot(r, FIG_HEATMAP, h, err);
}

xc_status xc_report_add_scatter(xc_report *r, const xc_scatter *s, xc_error *err)
{
    return add_plot(r, FIG_SCATTER, s, err);
}

xc_status xc_report_add_bars(xc_report *r, const xc_bars *b, xc_error *err)
{
    return add_plot(r, FIG_BARS, b, err);
}

xc_status xc_report_set_number(xc_report *r, const char *key, double value, xc_error *err)
{
    json_t *v = isfinite(value) ? json_real(value) : json_null();
    if (!key || !*key)
        return xc_error_set(err, XC_EINVAL, "report: number without a key");
    if (!v || json_object_set_new(r->numbers, key, v))
        return xc_error_set(err, XC_ENOMEM, "report: number '%s': out of memory", key);
    return XC_OK;
}

xc_status xc_report_set_json(xc_report *r, const char *key, json_t *value, xc_error *err)
{
    if (!key || !*key || !value) {
        json_decref(value);
        return xc_error_set(err, XC_EINVAL, "report: data entry needs a key and a value");
    }
    if (json_object_set_new(r->data, key, value))
        return xc_error_set(err, XC_ENOMEM, "report: data '%s': out of memory", key);
    return XC_OK;
}

size_t xc_report_nverdicts(const xc_report *r, size_t *nfailed)
{
    size_t f = 0;
    for (size_t i = 0; i < r->nrows; i++)
        f += !r->rows[i].pass;
    if (nfailed)
        *nfailed = f;
    return r->nrows;
}

/* ---- rendering ----------------------------------------------------------- */

static const char css[] =
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:#f6f7f9;color:#1d2330;font:15px/1.5 -apple-system,\"Segoe UI\",Helvetica,Arial,sans-serif}\n"
    "main{max-width:1280px;margin:0 auto;padding:24px 28px 40px}\n"
    "h1{font-size:26px;margin:8px 0 4px}\n"
    "h2{font-size:19px;margin:0 0 12px;padding-bottom:6px;border-bottom:1px solid #e1e4ea}\n"
    "section{background:#fff;border:1px solid #e1e4ea;border-radius:8px;padding:18px 22px;margin:18px 0}\n"
    "p{margin:0 0 10px}\n"
    ".overall{display:inline-block;font-weight:600;padding:4px 12px;border-radius:14px}\n"
    ".overall.pass{background:#e3f4e8;color:#17652f}.overall.fail{background:#fbe4e4;color:#a11d1d}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}\n"
    "th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #eceef2;vertical-align:top}\n"
    "th{background:#f1f3f6;font-weight:600}\n"
    "td.num{font-family:ui-monospace,\"SFMono-Regular\",Menlo,Consolas,monospace;white-space:normal;overflow-wrap:anywhere}\n"
    "table.verdicts td:nth-child(1){white-space:nowrap}table.verdicts td:nth-child(2){min-width:17em}\n"
    "table.kv{width:auto}table.kv th{background:none;font-weight:500;color:#4a5366;white-space:nowrap}\n"
    ".badge{display:inline-block;min-width:48px;text-align:center;font-weight:700;font-size:12px;"
    "padding:2px 8px;border-radius:10px}\n"
    ".badge.pass{background:#d5f0dc;color:#17652f}.badge.fail{background:#f8d3d3;color:#a11d1d}\n"
    "tr.fail td{background:#fff6f6}\n"
    "figure{margin:12px 0;overflow-x:auto}figure img{display:block;max-width:100%;height:auto}\n"
    "p.noplot{color:#6b7385;font-style:italic}\n"
    "footer{color:#6b7385;font-size:13px;text-align:center;padding:0 0 24px}\n";

static void render_verdicts(const xc_report *r, xc_text *o)
{
    size_t nf;
    size_t n = xc_report_nverdicts(r, &nf);
    if (!n)
        return;
    if (nf)
        xc_text_printf(o, "<p class=\"overall fail\">%zu of %zu checks failed</p>\n", nf, n);
    else
        xc_text_printf(o, "<p class=\"overall pass\">all %zu checks passed</p>\n", n);
    xc_text_put(o, "<section>\n<h2>Verdicts</h2>\n<table class=\"verdicts\">\n<thead><tr><th>Implementation"
                   "</th><th>Check</th><th>Measured</th><th>Bound</th><th>Verdict</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n; i++) {
        const verdict *v = &r->rows[i];
        xc_text_printf(o, "<tr class=\"%s\"><td>", v->pass ? "pass" : "fail");
        xc_text_escape(o, v->impl);
        xc_text_put(o, "</td><td>");
        xc_text_escape(o, v->check);
        xc_text_put(o, "</td><td class=\"num\">");
        xc_text_escape(o, v->measured);
        xc_text_put(o, "</td><td class=\"num\">");
        xc_text_escape(o, v->bound);
        xc_text_printf(o, "</td><td><span class=\"badge %s\">%s</span></td></tr>\n", v->pass ? "pass" : "fail",
                       v->pass ? "PASS" : "FAIL");
    }
    xc_text_put(o, "</tbody>\n</table>\n</section>\n");
}

static void render_text(xc_text *o, const char *s)
{
    /* Blank lines separate paragraphs. */
    while (*s) {
        const char *end = strstr(s, "\n\n");
        size_t n = end ? (size_t)(end - s) : strlen(s);
        char *para = strndup(s, n);
        if (!para) {
            o->oom = 1;
            return;
        }
        if (n) {
            xc_text_put(o, "<p>");
            xc_text_escape(o, para);
            xc_text_put(o, "</p>\n");
        }
        free(para);
        s += n;
        while (*s == '\n')
            s++;
    }
}

/* For scripts/report-check.sh, which loads the page in headless chromium
 * (whose log does not tell a console error from a console.log): the first
 * script counts console.error calls and error events (an uncaught exception,
 * a resource that fails); the last, on load, checks that every image has
 * decoded, names a broken one with console.error, and writes on <body>
 *     data-images          how many images
 *     data-broken-images   how many did not decode
 *     data-console-errors  the count above */
static const char err_hook[] =
    "<script>\n"
    "window.xcErrors=0;(function(){var e=console.error;"
    "console.error=function(){window.xcErrors++;return e.apply(console,arguments);};"
    "window.addEventListener(\"error\",function(){window.xcErrors++;},true);})();\n"
    "</script>\n";
static const char img_check[] =
    "<script>\n"
    "window.addEventListener(\"load\",function(){var n=0,bad=0;"
    "document.querySelectorAll(\"img\").forEach(function(i){n++;"
    "if(!i.complete||!i.naturalWidth){bad++;"
    "console.error(\"image does not decode: \"+(i.alt||i.src.slice(0,60)));}});"
    "document.body.setAttribute(\"data-images\",n);"
    "document.body.setAttribute(\"data-broken-images\",bad);"
    "document.body.setAttribute(\"data-console-errors\",window.xcErrors);});\n"
    "</script>\n";

static void render_html(const xc_report *r, xc_text *o)
{
    xc_text_put(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    xc_text_escape(o, r->title);
    xc_text_printf(o, "</title>\n%s<style>\n%s</style>\n</head>\n<body>\n<main>\n<h1>", err_hook, css);
    xc_text_escape(o, r->title);
    xc_text_put(o, "</h1>\n");
    render_verdicts(r, o);
    int open = 0, in_kv = 0;
    for (size_t i = 0; i < r->nitems; i++) {
        const item *it = &r->items[i];
        if (in_kv && it->kind != IT_KV) {
            xc_text_put(o, "</table>\n");
            in_kv = 0;
        }
        if (it->kind == IT_SECTION) {
            if (open)
                xc_text_put(o, "</section>\n");
            xc_text_put(o, "<section>\n<h2>");
            xc_text_escape(o, it->a);
            xc_text_put(o, "</h2>\n");
            open = 1;
            continue;
        }
        if (!open) {
            xc_text_put(o, "<section>\n");
            open = 1;
        }
        switch (it->kind) {
        case IT_TEXT:
            render_text(o, it->a);
            break;
        case IT_KV:
            if (!in_kv)
                xc_text_put(o, "<table class=\"kv\">\n");
            in_kv = 1;
            xc_text_put(o, "<tr><th>");
            xc_text_escape(o, it->a);
            xc_text_put(o, "</th><td>");
            xc_text_escape(o, it->b);
            xc_text_put(o, "</td></tr>\n");
            break;
        case IT_FIGURE:
            xc_text_printf(o, "<figure>\n%s</figure>\n", it->a);
            break;
        case IT_SECTION:
            break;
        }
    }
    if (in_kv)
        xc_text_put(o, "</table>\n");
    if (open)
        xc_text_put(o, "</section>\n");
    xc_text_put(o, "</main>\n<footer>Written by crosscheck; the verdict rows and numbers are also in "
                   "<a href=\"summary.json\">summary.json</a>.</footer>\n");
    xc_text_put(o, img_check);
    xc_text_put(o, "</body>\n</html>\n");
}

static json_t *summary_json(const xc_report *r)
{
    size_t nf;
    size_t n = xc_report_nverdicts(r, &nf);
    json_t *rows = json_array();
    json_t *root = json_object();
    if (!rows || !root)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        const verdict *v = &r->rows[i];
        json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:s}", "implementation", v->impl, "check", v->check,
                                "measured", v->measured, "bound", v->bound, "verdict", v->pass ? "PASS" : "FAIL");
        if (!row || json_array_append_new(rows, row))
            goto fail;
    }
    if (json_object_set_new(root, "title", json_string(r->title)) ||
        json_object_set_new(root, "passed", json_boolean(nf == 0)) ||
        json_object_set_new(root, "n_checks", json_integer((json_int_t)n)) ||
        json_object_set_new(root, "n_failed", json_integer((json_int_t)nf)) ||
        json_object_set(root, "verdicts", rows) || json_object_set(root, "numbers", r->numbers) ||
        json_object_set(root, "data", r->data))
        goto fail;
    json_decref(rows);
    return root;
fail:
    json_decref(rows);
    json_decref(root);
    return NULL;
}

/* ---- writing ------------------------------------------------------------- */

static xc_status write_all(xc_atomic *a, const char *path, const char *s, size_t n, xc_error *err)
{
    if (fwrite(s, 1, n, a->fp) != n)
        return xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
    return XC_OK;
}

xc_status xc_report_write(const xc_report *r, const char *dir, xc_error *err)
{
    if (!dir || !*dir)
        return xc_error_set(err, XC_EINVAL, "report: directory name missing");
    xc_path hp = XC_PATH_INIT, jp = XC_PATH_INIT;
    xc_status st = xc_path_setf(&hp, err, "%s/index.html", dir);
    if (!st && (st = xc_path_setf(&jp, err, "%s/summary.json", dir)))
        xc_path_free(&hp);
    if (st)
        return st;
    const char *html_path = hp.s, *json_path = jp.s;

    /* Everything is rendered in memory first: nothing touches the disk until
     * both files are known to be complete. */
    xc_text html;
    xc_text_init(&html);
    render_html(r, &html);
    json_t *sum = summary_json(r);
    char *js = sum ? json_dumps(sum, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(sum);
    if (html.oom || !js) {
        xc_text_free(&html);
        free(js);
        xc_path_free(&hp);
        xc_path_free(&jp);
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory while rendering the report", dir);
    }

    size_t first_new;
    xc_atomic ah = {0}, aj = {0};
    st = xc_mkdirs_new(dir, &first_new, err);
    if (!st)
        st = xc_atomic_open(&aj, json_path, 0, err);
    if (!st)
        st = xc_atomic_open(&ah, html_path, 0, err);
    if (!st)
        st = write_all(&aj, json_path, js, strlen(js), err);
    if (!st)
        st = write_all(&aj, json_path, "\n", 1, err);
    if (!st)
        st = write_all(&ah, html_path, html.s, html.len, err);
    if (!st)
        st = xc_atomic_commit(&aj, err);
    if (!st && (st = xc_atomic_commit(&ah, err)))
        remove(json_path);   /* the pair is written together or not at all */
    xc_atomic_abort(&aj);
    xc_atomic_abort(&ah);
    if (st)
        xc_rmdirs_new(dir, first_new);
    xc_text_free(&html);
    free(js);
    xc_path_free(&hp);
    xc_path_free(&jp);
    return st;
}

xc_status xc_report_run_dir(char *buf, size_t n, const char *base, time_t when, xc_error *err)
{
    struct tm tm;
    char stamp[32];
    if (!gmtime_r(&when, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm))
        return xc_error_set(err, XC_EINVAL, "report: time %lld cannot be formatted", (long long)when);
    int k = snprintf(buf, n, "%s/%s", base && *base ? base : ".", stamp);
    if (k < 0 || (size_t)k >= n)
        return xc_error_set(err, XC_EINVAL, "report: run directory %s/%s is longer than %zu bytes",
                            base ? base : ".", stamp, n);
    return XC_OK;
}
