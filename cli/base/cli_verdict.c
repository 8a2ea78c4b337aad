/* cli_verdict.c: see cli_verdict.h. */
#include "cli/base/cli_verdict.h"

#include <math.h>
#include <string.h>

#include "compare/check/xc_junit.h"

void xc_vd_init(xc_vd *v)
{
    memset(v, 0, sizeof *v);
    xc_checks_init(&v->rows);
}

void xc_vd_free(xc_vd *v) { xc_checks_free(&v->rows); }

xc_status xc_vd_note(xc_vd *v, xc_status st, const xc_error *e)
{
    if (st && !v->fatal) {
        v->fatal = st;
        v->fatal_err = *e;
    }
    return st;
}

void xc_vd_fail(xc_vd *v, const char *obs, const char *impl, const char *check, const char *why, const char *bound)
{
    xc_error e;
    xc_vd_note(v, xc_checks_fail(&v->rows, obs, impl, check, why, bound, &e), &e);
}

void xc_vd_emit(xc_vd *v)
{
    for (; v->shown < v->rows.n; v->shown++) {
        const xc_check_row *r = &v->rows.row[v->shown];
        int pass = r->state == XC_CHECK_PASS;
        if (v->lines) {
            if (!v->headed)
                xc_vd_print_header(v->lines, v->style == XC_VD_LINE_IMPL);
            v->headed = 1;
            xc_vd_print_row(v->lines, r, v->style == XC_VD_LINE_IMPL);
            fflush(v->lines);
        }
        xc_error e;
        if (v->rep)
            xc_vd_note(v, xc_report_add_verdict(v->rep, r->impl, r->check, r->measured, r->bound, pass, &e), &e);
        if (v->json)
            json_array_append_new(v->json, json_pack("{s:s, s:s, s:s, s:s, s:b}", "impl", r->impl, "check", r->check,
                                                     "measured", r->measured, "bound", r->bound, "pass", pass));
    }
}

void xc_vd_section(xc_vd *v, const char *heading)
{
    xc_error e;
    if (v->rep)
        xc_vd_note(v, xc_report_add_section(v->rep, heading, &e), &e);
}

void xc_vd_text(xc_vd *v, const char *text)
{
    xc_error e;
    if (v->rep)
        xc_vd_note(v, xc_report_add_text(v->rep, text, &e), &e);
}

void xc_vd_kv(xc_vd *v, const char *key, const char *value)
{
    xc_error e;
    if (v->rep)
        xc_vd_note(v, xc_report_add_kv(v->rep, key, value, &e), &e);
}

void xc_vd_plot(xc_vd *v, const xc_lineplot *p)
{
    xc_error e;
    if (v->rep)
        xc_vd_note(v, xc_report_add_lines(v->rep, p, &e), &e);
}

void xc_vd_number(xc_vd *v, const char *key, double value)
{
    xc_error e;
    if (v->rep)
        xc_vd_note(v, xc_report_set_number(v->rep, key, value, &e), &e);
}

void xc_vd_json(xc_vd *v, const char *key, json_t *value)
{
    xc_error e;
    if (v->rep)
        xc_vd_note(v, xc_report_set_json(v->rep, key, value, &e), &e);
    else
        json_decref(value);
}

/* The table on stdout, unless the rows went there as they came. */
static void table(const xc_vd *v, int with_impl)
{
    if (v->lines == stdout)
        return;
    xc_vd_print_header(stdout, with_impl);
    for (size_t i = 0; i < v->rows.n; i++)
        xc_vd_print_row(stdout, &v->rows.row[i], with_impl);
}

void xc_vd_table(const xc_vd *v) { table(v, 1); }

void xc_vd_table_checks(const xc_vd *v) { table(v, 0); }

json_t *xc_vd_rows_json(const xc_vd *v)
{
    json_t *rows = json_array();
    for (size_t i = 0; rows && i < v->rows.n; i++) {
        const xc_check_row *r = &v->rows.row[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "check", r->check, "impl", r->impl, "state",
                              xc_check_state_name(r->state), "measured", r->measured, "bound", r->bound);
        json_object_set_new(o, "observed", isfinite(r->observed) ? json_real(r->observed) : json_null());
        json_object_set_new(o, "expected", isfinite(r->expected) ? json_real(r->expected) : json_null());
        json_array_append_new(rows, o);
    }
    return rows;
}

void xc_vd_junit(xc_vd *v, const char *suite, double seconds, const char *path)
{
    xc_error e;
    if (path && !v->fatal)
        xc_vd_note(v, xc_checks_write_junit(&v->rows, suite, seconds, path, &e), &e);
}

int xc_vd_exit_code(const xc_vd *v)
{
    return v->fatal ? 2 : v->rows.nfail == 0 && v->rows.npass > 0 ? 0 : 1;
}
