/* xc_cands_presto.c: PRESTO's _ACCEL_<zmax>[_JERK_<wmax>] fundamentals table
 * (accelsearch's output_fundamentals), read into our convention
 * (core/search/xc_cands.h); split from xc_cands.c. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_lines.h"
#include "core/search/xc_cands.h"
#include "core/search/cands/xc_cands_util.h"

#define split_ws xc_cands_split_ws_
#define parse_double xc_cands_parse_double_
#define parse_long xc_cands_parse_long_
#define parse_int xc_cands_parse_int_
#define T_from_rows xc_cands_T_from_rows_
#define reset xc_cands_reset_

/* ---- PRESTO _ACCEL_<zmax> -------------------------------------------------- */

/* PRESTO's nice_output_1/2 forms (src/output.c): "val(err)", "val(e.e)",
 * "mant(err)x10^exp", "int(err)x10^exp".  Returns -1 if s is none of them. */
static int parse_val_err(const char *s, double *val)
{
    char *end;
    errno = 0;
    double m = strtod(s, &end);
    if (end == s || *end != '(' || errno)
        return -1;
    /* the error: "50", or nice_output_2's "2.0" */
    const char *p = end + 1;
    if (!isdigit((unsigned char)*p))
        return -1;
    while (isdigit((unsigned char)*p) || *p == '.')
        p++;
    if (*p++ != ')')
        return -1;
    if (!*p) {
        *val = m;
        return 0;
    }
    if (strncmp(p, "x10^", 4)) {
        /* accelsearch's fixed-width field can cut "x10^e" short ("0.0(2.0)x1"
         * in its jerk tables, for w = 0): the value is the mantissa only if
         * that is 0. */
        size_t n = strlen(p);
        if (n < 4 && !strncmp(p, "x10^", n) && m == 0) {
            *val = 0;
            return 0;
        }
        return -1;
    }
    long e;
    if (parse_long(p + 4, &e) || e < -330 || e > 330)
        return -1;
    *val = m * pow(10.0, (double)e);
    return 0;
}

/* The value after '=' of an .inf line PRESTO appended (cat root.inf >> file). */
static int inf_value(const char *line, const char *label, double *out)
{
    const char *p = strstr(line, label);
    if (!p)
        return 0;
    const char *eq = strchr(p, '=');
    if (!eq)
        return 0;
    char *end;
    double v = strtod(eq + 1, &end);
    if (end == eq + 1)
        return 0;
    *out = v;
    return 1;
}

/* The reader's place in the file: state 0 before the fundamentals table, 1 its
 * titles, 2 the dashes, 3 its rows, 4 after it (the appended .inf). */
typedef struct {
    xc_candlist *l;
    const char *path;
    int state, jerk;
    double nbins, dt;
} accel_reader;

static const char *const accel_cols[] = {"Cand", "Sigma", "Summed Power", "Coherent Power", "Num Harm",
                                         "Period (ms)", "Frequency (Hz)", "FFT 'r' (bin)",
                                         "Freq Deriv (Hz/s)", "FFT 'z' (bins)", "FFT 'w' (bins)",
                                         "Accel (m/s^2)"};

/* One row of the fundamentals table (its n >= 1 columns in tok) into the list. */
static xc_status accel_row(accel_reader *R, char **tok, int n, int lineno, xc_error *err)
{
    const char *path = R->path;
    const int jerk = R->jerk;
    int nval = jerk ? 12 : 11;   /* columns before the notes */
    if (n < nval)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: %d columns, expected at least %d", path, lineno, n,
                            nval);
    double v[12];
    int cand = 0, nh = 0;
    for (int i = 0; i < nval; i++) {
        int k = (!jerk && i >= 10) ? i + 1 : i;   /* column name index */
        int bad = k == 0   ? parse_int(tok[i], &cand)
                : k == 4   ? parse_int(tok[i], &nh) || nh < 1
                : k <= 3   ? parse_double(tok[i], &v[k])
                           : parse_val_err(tok[i], &v[k]);
        if (bad)
            return xc_error_set(err, XC_EFORMAT, "%s: line %d, column %d (%s): '%s' is not %s", path, lineno,
                                i + 1, accel_cols[k], tok[i],
                                k == 0 || k == 4 ? "a positive integer"
                                : k <= 3         ? "a number"
                                                 : "a value(error)");
    }
    xc_cand c;
    memset(&c, 0, sizeof c);
    c.sigma = v[1];
    c.power = 2 * v[2];   /* PRESTO's mean-1 powers; ours are chi-square, mean 2 per bin */
    c.numharm = nh;
    c.dof = 2.0 * nh;
    c.f_hz = v[6];
    c.r = v[7];
    c.fdot_hz_s = v[8];
    c.z = v[9];
    c.w = jerk ? v[10] : 0;
    c.accel_m_s2 = v[11];
    c.width = 0;
    c.logp = NAN;
    c.ntrials = NAN;
    char where[600];
    snprintf(where, sizeof where, "%s: line %d", path, lineno);
    xc_status st = xc_cand_check(&c, where, err);
    return st ? st : xc_candlist_add(R->l, &c, err);
}

static xc_status accel_line(void *user, char *line, int lineno, xc_error *err)
{
    accel_reader *R = user;
    switch (R->state) {
    case 4:
        inf_value(line, "Number of bins in the time series", &R->nbins);
        inf_value(line, "Width of each time series bin (sec)", &R->dt);
        return XC_OK;
    case 0:
        if (strstr(line, "Summed") && strstr(line, "Coherent")) {
            R->jerk = strstr(line, "FFT 'w'") != NULL;
            R->state = 1;
        }
        return XC_OK;
    case 1:
        R->state = strstr(line, "Cand") && strstr(line, "Sigma") ? 2 : 0;
        return XC_OK;
    case 2:
        if (strspn(line, "- ") != strlen(line) || !*line)
            return xc_error_set(err, XC_EFORMAT, "%s: line %d: expected the dashed line under the "
                                "fundamentals table's titles", R->path, lineno);
        R->state = 3;
        return XC_OK;
    default:
        break;
    }
    char *tok[32];
    int n = split_ws(line, tok, 32);
    if (n == 0) {
        R->state = 4;
        return XC_OK;
    }
    return accel_row(R, tok, n, lineno, err);
}

xc_status xc_cands_read_accel(xc_candlist *l, const char *path, xc_error *err)
{
    reset(l, "presto");
    accel_reader R = {.l = l, .path = path, .nbins = NAN, .dt = NAN};
    int nlines = 0;
    xc_status st = xc_lines_each(path, accel_line, &R, &nlines, err);
    if (!st && R.state < 3)
        st = xc_error_set(err, XC_EFORMAT, "%s: no fundamentals table (the 'Summed'/'Coherent', 'Cand' "
                          "and dashed title lines) in %d lines", path, nlines);
    if (st) {
        reset(l, "presto");
        return st;
    }
    /* T from the appended .inf when present (then f, fdot and accel are
     * recomputed at full precision), else from the printed r and f. */
    if (R.nbins > 0 && R.dt > 0) {
        l->T = R.nbins * R.dt;
        for (size_t i = 0; i < l->n; i++)
            xc_cand_derive(&l->c[i], l->T);
    } else {
        l->T = T_from_rows(l);
    }
    return XC_OK;
}
