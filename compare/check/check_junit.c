/* Verdict rows as JUnit XML (xc_junit.h). */
#include "compare/check/xc_junit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/base/xc_atomic.h"

/* s with &, <, >, " and ' escaped; other control characters than tab and
 * newline (not allowed in XML 1.0) as '?'. */
static void put_escaped(FILE *fp, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&apos;", fp); break;
        default: fputc(c < 0x20 && c != '\t' && c != '\n' ? '?' : c, fp);
        }
    }
}

static void put_attr(FILE *fp, const char *name, const char *value)
{
    fprintf(fp, " %s=\"", name);
    put_escaped(fp, value);
    fputc('"', fp);
}

xc_status xc_checks_write_junit(const xc_checks *l, const char *suite, double seconds, const char *path,
                                xc_error *err)
{
    if (!l || !suite || !path)
        return xc_error_set(err, XC_EINVAL, "junit: missing rows, suite name or path");
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    FILE *fp = a.fp;
    if (!isfinite(seconds) || seconds < 0)
        seconds = 0;
    fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    put_attr(fp, "name", suite);
    fprintf(fp, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n", l->n, l->nfail,
            l->nskip, seconds);
    fprintf(fp, "  <testsuite");
    put_attr(fp, "name", suite);
    fprintf(fp, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n", l->n, l->nfail,
            l->nskip, seconds);
    for (size_t i = 0; i < l->n; i++) {
        const xc_check_row *r = &l->row[i];
        char cls[400];
        snprintf(cls, sizeof cls, "%s.%s", suite, r->impl[0] ? r->impl : "-");
        fprintf(fp, "    <testcase");
        put_attr(fp, "classname", cls);
        put_attr(fp, "name", r->check);
        fprintf(fp, " time=\"0\"");
        if (r->state == XC_CHECK_PASS) {
            fprintf(fp, ">\n      <system-out>");
            put_escaped(fp, r->measured);
            fprintf(fp, " (bound: ");
            put_escaped(fp, r->bound);
            fprintf(fp, ")</system-out>\n    </testcase>\n");
            continue;
        }
        char msg[1400], num[160] = "";
        if (!isnan(r->observed) || !isnan(r->expected))
            snprintf(num, sizeof num, "; measured %.6g, bound %.6g", r->observed, r->expected);
        snprintf(msg, sizeof msg, "%s (bound: %s)%s", r->measured, r->bound, num);
        if (r->state == XC_CHECK_SKIP) {
            fprintf(fp, ">\n      <skipped");
            put_attr(fp, "message", msg);
            fprintf(fp, "/>\n    </testcase>\n");
        } else {
            fprintf(fp, ">\n      <failure");
            put_attr(fp, "message", msg);
            put_attr(fp, "type", "crosscheck.FAIL");
            fprintf(fp, ">");
            put_escaped(fp, msg);
            fprintf(fp, "</failure>\n    </testcase>\n");
        }
    }
    fprintf(fp, "  </testsuite>\n</testsuites>\n");
    if (ferror(fp)) {
        xc_atomic_abort(&a);
        return xc_error_set(err, XC_EIO, "%s: write failed", path);
    }
    return xc_atomic_commit(&a, err);
}
