/* The DM plan of a printed DDplan.py plan (xc_ddplan_presto.h: xc_ddp_read):
 * the rows of its table, each a range of #DMs trials dDM apart from Low DM at
 * the row's downsample factor. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_lines.h"
#include "core/dedisp/plan/xc_ddplan_presto.h"

/* DDplan.py's header lines: without subbands
 *   "  Low DM    High DM     dDM  DownSamp   #DMs  WorkFract"
 * with them
 *   "  Low DM    High DM     dDM  DownSamp  dsubDM   #DMs  DMs/call  calls  WorkFract" */
typedef struct {
    const char *path;
    int state;       /* 0: before the header, 1: in the table, 2: after it */
    int sub;         /* the subband columns are there */
    int nrows;
    char *spec;      /* the rows as "lo:hi:step:ds,..." (owned) */
    size_t len;
} ddp_file;

static int blank(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return !*s;
}

/* Appends one range to f->spec. */
static xc_status add_row(ddp_file *f, double lo, double hi, double ddm, int ds, xc_error *err)
{
    char item[128];
    int n = snprintf(item, sizeof item, "%s%.17g:%.17g:%.17g:%d", f->nrows ? "," : "", lo, hi, ddm, ds);
    char *s = realloc(f->spec, f->len + (size_t)n + 1);
    if (!s)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", f->path);
    memcpy(s + f->len, item, (size_t)n + 1);
    f->spec = s;
    f->len += (size_t)n;
    f->nrows++;
    return XC_OK;
}

static xc_status ddp_line(void *user, char *line, int lineno, xc_error *err)
{
    ddp_file *f = user;
    if (f->state == 0) {
        const char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!strncmp(s, "Low DM", 6) && strstr(s, "DownSamp") && strstr(s, "#DMs")) {
            f->state = 1;
            f->sub = strstr(s, "dsubDM") != NULL;
        }
        return XC_OK;
    }
    if (f->state == 2 || blank(line)) {
        if (f->nrows)
            f->state = 2;   /* the table ends at its first blank line */
        return XC_OK;
    }
    double lo, hi, ddm, ds, sub, ndm;
    int n = f->sub ? sscanf(line, "%lf %lf %lf %lf %lf %lf", &lo, &hi, &ddm, &ds, &sub, &ndm)
                   : sscanf(line, "%lf %lf %lf %lf %lf", &lo, &hi, &ddm, &ds, &ndm);
    char where[1100];
    snprintf(where, sizeof where, "%s line %d", f->path, lineno);
    if (n != (f->sub ? 6 : 5))
        return xc_error_set(err, XC_EINVAL, "%s: '%.200s': expected a row 'Low DM, High DM, dDM, DownSamp, %s#DMs, ...'",
                            where, line, f->sub ? "dsubDM, " : "");
    if (ds != floor(ds) || ds < 1 || ds > XC_DMPLAN_MAX_DS)
        return xc_error_set(err, XC_EINVAL, "%s: DownSamp: %g must be an integer in 1..%d", where, ds,
                            XC_DMPLAN_MAX_DS);
    if (!(ddm > 0) || !(hi > lo) || !isfinite(hi) || ndm != round((hi - lo) / ddm))
        return xc_error_set(err, XC_EINVAL, "%s: #DMs: %g is not (High DM - Low DM) / dDM = (%g - %g) / %g", where,
                            ndm, hi, lo, ddm);
    return add_row(f, lo, hi, ddm, (int)ds, err);
}

xc_status xc_ddp_read(xc_dmplan *p, const char *path, xc_error *err)
{
    xc_dmplan_init(p);
    ddp_file f = {path, 0, 0, 0, NULL, 0};
    xc_status st = xc_lines_each(path, ddp_line, &f, NULL, err);
    if (st == XC_EFORMAT)
        st = XC_EINVAL;   /* a plan is an argument, as xc_dmplan_read's */
    if (!st && !f.nrows)
        st = xc_error_set(err, XC_EINVAL, "%s: no DDplan.py table (a 'Low DM  High DM  dDM  DownSamp ... #DMs' "
                          "header and its rows)", path);
    if (!st)
        st = xc_dmplan_parse(p, f.spec, path, err);
    free(f.spec);
    return st;
}
