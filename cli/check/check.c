/* crosscheck check approximations: how a measurement's results are shown
 * (check.h): rows of numbers and verdicts on stdout, in the report and
 * in the JSON. */
#include <math.h>
#include <stdio.h>

#include "cli/check/check.h"

void ck_jset(json_t *o, const char *k, json_t *v)
{
    if (v)
        json_object_set_new(o, k, v);
}

json_t *ck_jpart(json_t *o, const char *k)
{
    json_t *v = json_object();
    ck_jset(o, k, v);
    return v;
}

void ck_rows(ctx *c, const xc_row *r, int n)
{
    for (int k = 0; k < n; k++) {
        printf("  %-44s %s\n", r[k].key, r[k].value);
        xc_vd_kv(&c->vd, r[k].key, r[k].value);
    }
}

/* Each verdict becomes a row of compare/check/xc_checks.h, which the verdict
 * object shows on stdout and puts in the report and the JSON. */
void ck_verdicts(ctx *c, const xc_verdict *v, int n)
{
    xc_error e;
    for (int k = 0; k < n; k++) {
        if (xc_checks_addf(&c->vd.rows, NULL, v[k].impl, v[k].check, v[k].pass ? XC_CHECK_PASS : XC_CHECK_FAIL, NAN,
                           NAN, v[k].bound, &e, "%s", v[k].measured)) {
            xc_vd_note(&c->vd, e.code, &e);
            return;
        }
        xc_vd_emit(&c->vd);
    }
}

void ck_section(ctx *c, const char *title, const char *text)
{
    printf("\n%s\n", title);
    xc_vd_section(&c->vd, title);
    if (text)
        xc_vd_text(&c->vd, text);
}

void ck_plot(ctx *c, const char *title, const char *xl, const char *yl, const xc_series *s, size_t ns, int logx,
             int logy)
{
    xc_lineplot p = {title, xl, yl, s, ns, logx, logy};
    xc_vd_plot(&c->vd, &p);
}
