/* xc_cands.c: candidate lists, our CSV, Pulscan's .pulscand and PRESTO's
 * _ACCEL_<zmax> fundamentals table, each translated to our r/z convention
 * (xc_cands.h). */
#include "core/search/xc_cands.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_atomic.h"
#include "core/base/xc_lines.h"
#include "core/search/cands/xc_cands_util.h"

static const char *const csv_cols[] = {"r",     "f_hz", "z",     "width",     "numharm",    "power",
                                       "dof",   "logp", "sigma", "fdot_hz_s", "accel_m_s2", "ntrials"};
#define NCSV 12
/* The matched-filter (accel) CSV: the same columns with w after z. */
#define NCSVW 13

static const char *const psc_cols[] = {"sigma", "power", "period_ms",    "frequency_hz", "rbin",
                                       "f-dot", "z",     "acceleration", "logp",         "harmonic"};
#define NPSC 10


/* ---- our CSV -------------------------------------------------------------- */

static xc_status write_csv(const xc_candlist *l, const char *path, int with_w, xc_error *err)
{
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    int bad = 0;
    for (int i = 0; i < NCSV; i++) {
        bad |= fprintf(a.fp, "%s%s", i ? "," : "", csv_cols[i]) < 0;
        if (with_w && i == 2)
            bad |= fputs(",w", a.fp) == EOF;
    }
    bad |= fputc('\n', a.fp) == EOF;
    /* %.17g: every double reads back to the same bits. */
    for (size_t i = 0; i < l->n && !bad; i++) {
        const xc_cand *c = &l->c[i];
        bad |= fprintf(a.fp, "%.17g,%.17g,%.17g,", c->r, c->f_hz, c->z) < 0;
        if (with_w)
            bad |= fprintf(a.fp, "%.17g,", c->w) < 0;
        bad |= fprintf(a.fp, "%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", c->width, c->numharm, c->power,
                       c->dof, c->logp, c->sigma, c->fdot_hz_s, c->accel_m_s2, c->ntrials) < 0;
    }
    if (bad) {
        st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
        xc_atomic_abort(&a);
        return st;
    }
    return xc_atomic_commit(&a, err);
}

xc_status xc_cands_write_csv(const xc_candlist *l, const char *path, xc_error *err)
{
    return write_csv(l, path, 0, err);
}

xc_status xc_cands_write_csv_w(const xc_candlist *l, const char *path, xc_error *err)
{
    return write_csv(l, path, 1, err);
}


/* A candidate file read line by line: each line (newline removed) through
 * `line`, the first failure ending the read. */
typedef struct reader reader;
struct reader {
    xc_candlist *l;
    const char *path;
    const char *source;    /* the list's source: "crosscheck", "pulscan" */
    xc_status (*line)(const reader *rd, char *line, int lineno, xc_error *err);
    double T;              /* .pulscand: the observation length */
};

static xc_status each_line(void *user, char *line, int lineno, xc_error *err)
{
    const reader *rd = user;
    return rd->line(rd, line, lineno, err);
}

/* Resets rd->l to rd->source and reads rd->path into it; an unreadable or
 * empty file fails, and on any failure the list is left empty. */
static xc_status read_lines(const reader *rd, xc_error *err)
{
    xc_cands_reset_(rd->l, rd->source);
    int nlines;
    xc_status st = xc_lines_each(rd->path, each_line, (void *)rd, &nlines, err);
    if (!st && nlines == 0)
        st = xc_error_set(err, XC_EFORMAT, "%s: empty file (no header line)", rd->path);
    if (st)
        xc_cands_reset_(rd->l, rd->source);
    return st;
}

/* One line of a crosscheck CSV (the header first) into the list. */
static xc_status csv_line(const reader *rd, char *line, int lineno, xc_error *err)
{
    xc_candlist *l = rd->l;
    const char *path = rd->path;
    if (lineno == 1) {
        char want[256] = "", wantw[256] = "";
        for (int i = 0; i < NCSV; i++) {
            strcat(want, i ? "," : "");
            strcat(want, csv_cols[i]);
            strcat(wantw, i ? "," : "");
            strcat(wantw, csv_cols[i]);
            if (i == 2)
                strcat(wantw, ",w");
        }
        /* the accel search's CSV (w after z): a matched filter, signed z;
         * the list's source says which form the rows have */
        if (!strcmp(line, wantw))
            snprintf(l->source, sizeof l->source, "accel");
        else if (strcmp(line, want))
            return xc_error_set(err, XC_EFORMAT, "%s: line 1: header '%s' is not '%s' (or, for the accel search, "
                                "'%s')", path, line, want, wantw);
        return XC_OK;
    }
    int with_w = !strcmp(l->source, "accel"), ncol = with_w ? NCSVW : NCSV;
    char *fields[NCSVW + 1];
    int nf = 0;
    for (char *p = line;;) {
        if (nf <= ncol)
            fields[nf] = p;
        nf++;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    if (nf != ncol)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: %d columns, expected %d (%s)", path, lineno,
                            nf, ncol, nf < ncol ? "too few" : "too many");
    xc_cand c;
    memset(&c, 0, sizeof c);
    if (with_w) {
        /* w: parsed here, the other columns shifted back into place */
        if (xc_cands_parse_double_(fields[3], &c.w))
            return xc_error_set(err, XC_EFORMAT, "%s: line %d, column 4 (w): '%s' is not a number", path, lineno,
                                fields[3]);
        memmove(fields + 3, fields + 4, (NCSV - 3) * sizeof *fields);
    }
    double *dst[NCSV] = {&c.r,     &c.f_hz,  &c.z,     NULL,         NULL,          &c.power,
                         &c.dof,   &c.logp,  &c.sigma, &c.fdot_hz_s, &c.accel_m_s2, &c.ntrials};
    xc_status st = XC_OK;
    for (int i = 0; i < NCSV && !st; i++) {
        int bad = i == 3 ? xc_cands_parse_int_(fields[i], &c.width)
                : i == 4 ? xc_cands_parse_int_(fields[i], &c.numharm)
                         : xc_cands_parse_double_(fields[i], dst[i]);
        if (bad)
            st = xc_error_set(err, XC_EFORMAT, "%s: line %d, column %d (%s): '%s' is not %s", path,
                              lineno, i + 1, csv_cols[i], fields[i],
                              i == 3 || i == 4 ? "an integer" : "a number");
    }
    if (!st) {
        char where[600];
        snprintf(where, sizeof where, "%s: line %d", path, lineno);
        st = xc_cand_check(&c, where, err);
    }
    return st ? st : xc_candlist_add(l, &c, err);
}

xc_status xc_cands_read_csv(xc_candlist *l, const char *path, xc_error *err)
{
    reader rd = {l, path, "crosscheck", csv_line, 0};
    xc_status st = read_lines(&rd, err);
    if (!st)
        l->T = xc_cands_T_from_rows_(l);
    return st;
}

/* ---- Pulscan .pulscand ----------------------------------------------------- */

/* Pulscan's reported start: rbin = (first bin of the boxcar) - 1 + floor(z/2);
 * our r is the boxcar's centre, first bin + z/2.  Pulscan's z is a width - 1,
 * so it carries no sign; |z| is written. */
static long pulscan_rbin(const xc_cand *c, int *zi)
{
    *zi = (int)lround(fabs(c->z));
    long start = lround(c->r - 0.5 * *zi);
    return start - 1 + *zi / 2;
}

xc_status xc_cands_write_pulscand(const xc_candlist *l, const char *path, xc_error *err)
{
    if (!(l->T > 0) || !isfinite(l->T))
        return xc_error_set(err, XC_EINVAL, "%s: the candidate list has no observation length T (%g)",
                            path, l->T);
    /* Pulscan's columns are floats computed from T */
    if (!(l->T <= FLT_MAX))
        return xc_error_set(err, XC_EINVAL, "%s: T %g s is beyond a float: write CSV instead", path, l->T);
    /* its harmonic column counts from 1 (the .pulscand reader refuses 0) */
    for (size_t i = 0; i < l->n; i++)
        if (l->c[i].numharm < 1)
            return xc_error_set(err, XC_EINVAL, "%s: candidate %zu: numharm %d: Pulscan's harmonic column starts at "
                                "1; write CSV instead", path, i + 1, l->c[i].numharm);
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    int bad = fprintf(a.fp, "%10s %10s %10s %14s %10s %14s %10s %14s %14s %10s\n", psc_cols[0],
                      psc_cols[1], psc_cols[2], psc_cols[3], psc_cols[4], psc_cols[5], psc_cols[6],
                      psc_cols[7], psc_cols[8], psc_cols[9]) < 0;
    /* The derived columns are computed as Pulscan does, in float from its own
     * rbin (pulscan.c frequency_from_observation_time_seconds etc.), so the
     * two files diff cleanly; the logp column is ours (the sigma's dof). */
    const float Tf = (float)l->T;
    for (size_t i = 0; i < l->n && !bad; i++) {
        const xc_cand *c = &l->c[i];
        if (!(c->r >= 0 && c->r < (double)INT_MAX && fabs(c->z) < (double)INT_MAX / 2)) {
            xc_atomic_abort(&a);
            return xc_error_set(err, XC_EINVAL,
                                "%s: candidate %zu: r %g, z %g: Pulscan's .pulscand holds rbin and z as int (below "
                                "2^31); write CSV instead",
                                path, i + 1, c->r, c->z);
        }
        int zi;
        long rbin = pulscan_rbin(c, &zi);
        float freq = (int)rbin / Tf;
        float period_ms = (float)(1000.0 / freq);
        float fdot = zi / (Tf * Tf);
        float accel = (float)(fdot * XC_SOL / freq);
        bad |= fprintf(a.fp, "%10.6lf %10.4f %10.6f %14.6f %10ld %14.8f %10d %14.6f %14.6f %10d\n",
                       c->sigma, (double)(float)c->power, (double)period_ms, (double)freq, rbin,
                       (double)fdot, zi, (double)accel, (double)(float)c->logp, c->numharm) < 0;
    }
    if (bad) {
        st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
        xc_atomic_abort(&a);
        return st;
    }
    return xc_atomic_commit(&a, err);
}


/* One line of a .pulscand (the header first) into the list. */
static xc_status pulscand_line(const reader *rd, char *line, int lineno, xc_error *err)
{
    const char *path = rd->path;
    const double T = rd->T;
    char *tok[NPSC + 1];
    int n = xc_cands_split_ws_(line, tok, NPSC + 1);
    if (lineno == 1) {
        int ok = n == NPSC;
        for (int i = 0; ok && i < NPSC; i++)
            ok = !strcmp(tok[i], psc_cols[i]);
        if (!ok)
            return xc_error_set(err, XC_EFORMAT,
                                "%s: line 1: not Pulscan's header (sigma power period_ms frequency_hz "
                                "rbin f-dot z acceleration logp harmonic)", path);
        return XC_OK;
    }
    if (n == 0)
        return XC_OK;
    if (n != NPSC)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: %d columns, expected %d", path, lineno, n, NPSC);
    double v[NPSC];
    long rbin = 0;
    int zi = 0, h = 0;
    xc_status st = XC_OK;
    for (int i = 0; i < NPSC && !st; i++) {
        int bad = i == 4 ? xc_cands_parse_long_(tok[i], &rbin)
                : i == 6 ? xc_cands_parse_int_(tok[i], &zi) || zi < 0
                : i == 9 ? xc_cands_parse_int_(tok[i], &h) || h < 1
                         : xc_cands_parse_double_(tok[i], &v[i]);
        if (bad)
            st = xc_error_set(err, XC_EFORMAT, "%s: line %d, column %d (%s): '%s' is not %s", path,
                              lineno, i + 1, psc_cols[i], tok[i],
                              i == 6   ? "an integer >= 0"
                              : i == 9 ? "an integer >= 1"
                              : i == 4 ? "an integer"
                                       : "a number");
    }
    if (st)
        return st;
    xc_cand c;
    memset(&c, 0, sizeof c);
    c.sigma = v[0];
    c.power = v[1];
    c.z = zi;
    c.width = zi + 1;
    c.r = (double)rbin + 1 - zi / 2 + 0.5 * zi;
    c.numharm = h;
    /* (z+1) fundamental bins, each summing h(h+1)/2 bins of 2 dof */
    c.dof = (double)(zi + 1) * h * (h + 1);
    /* As written by Pulscan: its logp uses dof z*h(h+1), not the sigma's. */
    c.logp = v[8];
    c.ntrials = NAN;
    xc_cand_derive(&c, T);
    char where[600];
    snprintf(where, sizeof where, "%s: line %d", path, lineno);
    st = xc_cand_check(&c, where, err);
    return st ? st : xc_candlist_add(rd->l, &c, err);
}

xc_status xc_cands_read_pulscand(xc_candlist *l, const char *path, double T, xc_error *err)
{
    xc_cands_reset_(l, "pulscan");
    if (!(T > 0) || !isfinite(T))
        return xc_error_set(err, XC_EINVAL,
                            "%s: a .pulscand needs the observation length T (from -T or the .inf); got %g",
                            path, T);
    reader rd = {l, path, "pulscan", pulscand_line, T};
    xc_status st = read_lines(&rd, err);
    if (!st)
        l->T = T;
    return st;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

xc_status xc_cands_read(xc_candlist *l, const char *path, double T, xc_error *err)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    xc_status st;
    if (ends_with(base, ".csv"))
        st = xc_cands_read_csv(l, path, err);
    else if (ends_with(base, ".pulscand"))
        return xc_cands_read_pulscand(l, path, T, err);
    else if (strstr(base, "_ACCEL_")) {
        if (ends_with(base, ".cand") || ends_with(base, ".txtcand"))
            return xc_error_set(err, XC_EINVAL,
                                "%s: PRESTO's .cand/.txtcand are not read; give the _ACCEL_<zmax> text "
                                "file beside it", path);
        st = xc_cands_read_accel(l, path, err);
    } else
        return xc_error_set(err, XC_EINVAL,
                            "%s: unknown candidate file type (expected NAME.csv, NAME.pulscand or "
                            "NAME_ACCEL_<zmax>)", path);
    /* A T given by the caller fills in one the file could not provide. */
    if (!st && !(l->T > 0) && T > 0 && isfinite(T)) {
        l->T = T;
        for (size_t i = 0; i < l->n; i++)
            xc_cand_derive(&l->c[i], T);
    }
    return st;
}
