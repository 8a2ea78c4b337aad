#include "core/dedisp/plan/xc_dmplan.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_lines.h"

/* The presets: data, not code paths.  Constants and orderings as each code defines them:
 * SIGPROC src/dmdelay.c, PRESTO src/dispersion.c, dedisp src/kernels.cuh,
 * AstroAccelerate src/aa_ddtr_strategy.cpp; the "Conventions" table of docs/REFERENCE.md. */
static const xc_convention conventions[] = {
    {"crosscheck", 4148.808, XC_ROUND_HALF_AWAY, XC_PREC_DOUBLE, XC_SCALE_SUM,
     "PINT/your k_DM 4148.808; nearest (half away from zero) on double; raw sum"},
    {"sigproc", 4148.741601, XC_ROUND_TRUNC, XC_PREC_DOUBLE, XC_SCALE_SUM,
     "SIGPROC src/dmdelay.c k_DM 4148.741601; truncated on double (src/dmshift.c (int)); raw sum"},
    {"presto", 1.0 / 2.41e-4, XC_ROUND_HALF_AWAY, XC_PREC_DOUBLE, XC_SCALE_SUM,
     "PRESTO src/dispersion.c k_DM 1/2.41e-4 (TEMPO); NEAREST_LONG on double; raw sum"},
    {"dedisp", 4.15e3, XC_ROUND_HALF_EVEN, XC_PREC_FLOAT, XC_SCALE_DEDISP,
     "dedisp src/kernels.cuh k_DM 4.15e3; float table, __float2uint_rn; sum*out/(in_range*nchans)*0.7529"},
    {"astroaccelerate", 4148.741601, XC_ROUND_TRUNC, XC_PREC_FLOAT, XC_SCALE_MEAN_AA,
     "AstroAccelerate k_DM 4148.741601; truncation (single, not its two-part split); sum/nchans/inBin"},
};

const xc_convention *xc_convention_list(size_t *n)
{
    if (n)
        *n = sizeof conventions / sizeof conventions[0];
    return conventions;
}

const xc_convention *xc_convention_get(const char *name)
{
    for (size_t i = 0; i < sizeof conventions / sizeof conventions[0]; i++)
        if (name && !strcmp(name, conventions[i].name))
            return &conventions[i];
    return NULL;
}

/* Names by enum value (each enum counts from 0); "?" for any other value. */
static const char *name_of(const char *const *names, size_t n, int v)
{
    return v >= 0 && (size_t)v < n ? names[v] : "?";
}

const char *xc_rounding_name(xc_rounding r)
{
    static const char *const names[] = {[XC_ROUND_HALF_AWAY] = "nearest, half away from zero",
                                        [XC_ROUND_HALF_EVEN] = "nearest, half to even",
                                        [XC_ROUND_TRUNC] = "truncate"};
    return name_of(names, sizeof names / sizeof names[0], (int)r);
}

const char *xc_scaling_name(xc_scaling s)
{
    static const char *const names[] = {
        [XC_SCALE_SUM] = "sum", [XC_SCALE_DEDISP] = "dedisp", [XC_SCALE_MEAN_AA] = "sum/nchans/ds"};
    return name_of(names, sizeof names / sizeof names[0], (int)s);
}

float xc_scale_real(const xc_convention *cv, double sum, int nchans, int ds, int nbits)
{
    switch (cv->scaling) {
    case XC_SCALE_SUM:
        return (float)sum;
    case XC_SCALE_DEDISP:
        return (float)sum * 1.0f / (xc_dedisp_in_range(nbits) * (float)nchans) * XC_DEDISP_SCALE;
    case XC_SCALE_MEAN_AA:
        return (float)sum / (float)nchans / (float)ds;
    }
    return (float)sum;
}

float xc_scale_int(const xc_convention *cv, uint64_t sum, int nchans, int ds, int nbits)
{
    /* Sums stay below 2^53 (16-bit x 2^31 channel-samples), so (double) is exact
     * and both entry points round identically. */
    return xc_scale_real(cv, (double)sum, nchans, ds, nbits);
}

void xc_dmplan_init(xc_dmplan *p)
{
    memset(p, 0, sizeof *p);
    strcpy(p->kind, "ranges");
}

void xc_dmplan_free(xc_dmplan *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nranges; i++)
        free(p->r[i].dms);
    free(p->r);
    xc_dmplan_init(p);
}

size_t xc_dmplan_ndm(const xc_dmplan *p)
{
    size_t n = 0;
    for (int i = 0; i < p->nranges; i++)
        n += p->r[i].ndm;
    return n;
}

static xc_status add_range(xc_dmplan *p, double lo, double hi, double step, int ds,
                           const char *source, int idx, xc_error *err)
{
    if (!(step > 0) || !isfinite(step))
        return xc_error_set(err, XC_EINVAL, "%s: range %d: step: %g must be > 0", source, idx, step);
    if (!(hi > lo) || !isfinite(lo) || !isfinite(hi))
        return xc_error_set(err, XC_EINVAL, "%s: range %d: %g:%g is empty (hi must exceed lo)",
                            source, idx, lo, hi);
    if (lo < 0)
        return xc_error_set(err, XC_EINVAL, "%s: range %d: lo: %g is negative", source, idx, lo);
    if (ds < 1)
        return xc_error_set(err, XC_EINVAL, "%s: range %d: downsample: %d must be >= 1", source, idx, ds);
    if (p->nranges > 0) {
        const xc_dmrange *prev = &p->r[p->nranges - 1];
        if (lo < prev->hi - 1e-9 * fabs(prev->hi))
            return xc_error_set(err, XC_EINVAL,
                                "%s: range %d: lo %g is below the previous range's hi %g (ranges must be ascending and not overlap)",
                                source, idx, lo, prev->hi);
    }
    double nd = round((hi - lo) / step);
    if (nd < 1)
        return xc_error_set(err, XC_EINVAL, "%s: range %d: %g:%g:%g holds no trial", source, idx, lo, hi, step);
    /* checked before anything is allocated: the whole plan, not the range */
    if (nd + (double)xc_dmplan_ndm(p) > XC_DMPLAN_MAX_TRIALS)
        return xc_error_set(err, XC_EINVAL, "%s: range %d: %g:%g:%g holds %.0f trials, the plan %.0f: more than %d",
                            source, idx, lo, hi, step, nd, nd + (double)xc_dmplan_ndm(p), XC_DMPLAN_MAX_TRIALS);
    xc_dmrange *nr = realloc(p->r, (size_t)(p->nranges + 1) * sizeof *nr);
    if (!nr)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", source);
    p->r = nr;
    xc_dmrange *r = &p->r[p->nranges];
    r->lo = lo;
    r->hi = hi;
    r->step = step;
    r->ds = ds;
    r->ndm = (size_t)nd;
    r->dms = malloc(r->ndm * sizeof(double));
    if (!r->dms)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", source);
    for (size_t j = 0; j < r->ndm; j++)
        r->dms[j] = lo + (double)j * step;
    p->nranges++;
    return XC_OK;
}

/* Parses one "lo:hi:step[:ds]" item (or whitespace-separated when sep == ' '). */
static xc_status parse_item(xc_dmplan *p, const char *item, const char *source, int idx, xc_error *err)
{
    double v[4] = {0, 0, 0, 1};
    const char *s = item;
    int n = 0;
    while (n < 4) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        char *end;
        errno = 0;
        v[n] = strtod(s, &end);
        if (end == s || errno)
            return xc_error_set(err, XC_EINVAL, "%s: range %d: '%s': field %d is not a number",
                                source, idx, item, n + 1);
        n++;
        s = end;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == ':' || *s == ',')
            s++;
        else if (*s && !isdigit((unsigned char)*s) && *s != '.' && *s != '-' && *s != '+')
            return xc_error_set(err, XC_EINVAL, "%s: range %d: '%s': unexpected '%c'", source, idx, item, *s);
    }
    while (*s == ' ' || *s == '\t')
        s++;
    if (n < 3 || *s)
        return xc_error_set(err, XC_EINVAL, "%s: range %d: '%s': expected lo:hi:step[:downsample]",
                            source, idx, item);
    if (v[3] != floor(v[3]) || v[3] < 1 || v[3] > XC_DMPLAN_MAX_DS)
        return xc_error_set(err, XC_EINVAL, "%s: range %d: downsample: %g must be an integer in 1..%d",
                            source, idx, v[3], XC_DMPLAN_MAX_DS);
    return add_range(p, v[0], v[1], v[2], (int)v[3], source, idx, err);
}

/* The end of a parse: a plan with no range fails too (`where`: `none`); a
 * failed plan is freed. */
static xc_status parse_end(xc_dmplan *p, xc_status st, const char *where, const char *none, xc_error *err)
{
    if (!st && p->nranges == 0)
        st = xc_error_set(err, XC_EINVAL, "%s: %s", where, none);
    if (st)
        xc_dmplan_free(p);
    return st;
}

xc_status xc_dmplan_parse(xc_dmplan *p, const char *spec, const char *source, xc_error *err)
{
    xc_dmplan_init(p);
    if (!spec || !*spec)
        return xc_error_set(err, XC_EINVAL, "%s: empty DM plan", source);
    char *copy = strdup(spec);
    if (!copy)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    xc_status st = XC_OK;
    int idx = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        st = parse_item(p, tok, source, idx++, err);
        if (st)
            break;
    }
    free(copy);
    return parse_end(p, st, source, "empty DM plan", err);
}

/* One line of a plan file (xc_lines_each): '#' starts a comment; blank
 * lines are skipped. */
typedef struct {
    xc_dmplan *p;
    const char *path;
} plan_file;

static xc_status plan_line(void *user, char *line, int lineno, xc_error *err)
{
    plan_file *f = user;
    char *h = strchr(line, '#');
    if (h)
        *h = '\0';
    char *s = line;
    while (isspace((unsigned char)*s))
        s++;
    size_t L = strlen(s);
    while (L && isspace((unsigned char)s[L - 1]))
        s[--L] = '\0';
    if (!*s)
        return XC_OK;
    char where[1100];
    snprintf(where, sizeof where, "%s line %d", f->path, lineno);
    if (!strncmp(s, "range", 5) && isspace((unsigned char)s[5])) {
        /* AstroAccelerate: range lo hi step inBin outBin (outBin deprecated) */
        double lo, hi, step, inbin, outbin;
        if (sscanf(s + 5, "%lf %lf %lf %lf %lf", &lo, &hi, &step, &inbin, &outbin) < 4)
            return xc_error_set(err, XC_EINVAL, "%s: expected 'range lo hi step inBin outBin'", where);
        if (inbin != floor(inbin) || inbin < 1 || inbin > XC_DMPLAN_MAX_DS)
            return xc_error_set(err, XC_EINVAL, "%s: inBin: %g must be an integer in 1..%d", where, inbin,
                                XC_DMPLAN_MAX_DS);
        return add_range(f->p, lo, hi, step, (int)inbin, where, f->p->nranges, err);
    }
    return parse_item(f->p, s, where, f->p->nranges, err);
}

xc_status xc_dmplan_read(xc_dmplan *p, const char *path, xc_error *err)
{
    xc_dmplan_init(p);
    /* whole lines of any length (a fixed buffer would split a long comment
     * and read its tail as a range), and no NUL byte (it would end the line) */
    plan_file f = {p, path};
    xc_status st = xc_lines_each(path, plan_line, &f, NULL, err);
    /* a plan is an argument: every refusal of its text is XC_EINVAL, as the
     * plan strings' (xc_lines_each calls a NUL byte a format error) */
    if (st == XC_EFORMAT)
        st = XC_EINVAL;
    return parse_end(p, st, path, "no DM range in file", err);
}

xc_status xc_dmplan_tolerance(xc_dmplan *p, double lo, double hi, double tsamp,
                              double pulse_width_us, double f0, double df, int nchans,
                              double tol, xc_error *err)
{
    xc_dmplan_init(p);
    if (!(tol > 1) || !isfinite(tol))
        return xc_error_set(err, XC_EINVAL, "-dm_tol: %g must be > 1 (dedisp loops forever at 1)", tol);
    if (!(tsamp > 0))
        return xc_error_set(err, XC_EINVAL, "tsamp: %g must be > 0", tsamp);
    if (!(pulse_width_us >= 0))
        return xc_error_set(err, XC_EINVAL, "-dm_pulse_width: %g must be >= 0", pulse_width_us);
    if (nchans < 1)
        return xc_error_set(err, XC_EINVAL, "nchans: %d must be >= 1", nchans);
    if (!(lo >= 0) || !(hi >= lo))
        return xc_error_set(err, XC_EINVAL, "-lodm/-hidm: %g..%g is not an ascending non-negative range", lo, hi);
    /* dedisp keeps the list in float: every DM, the last (first >= hi) one
     * included, must be a finite float, so hi must be one too */
    if (!(hi <= FLT_MAX) || !isfinite(tsamp) || !isfinite(pulse_width_us))
        return xc_error_set(err, XC_EINVAL, "-hidm %g, tsamp %g, -dm_pulse_width %g: must be finite (DMs are floats)",
                            hi, tsamp, pulse_width_us);
    df = -fabs(df);  /* dedisp_create_plan forces df negative; f0 is the highest channel */
    double dt_us = tsamp * 1e6, ti = pulse_width_us;
    double f = (f0 + ((nchans / 2) - 0.5) * df) * 1e-3;
    if (!(f > 0))
        return xc_error_set(err, XC_EINVAL, "centre frequency %g GHz must be > 0", f);
    double tol2 = tol * tol, a = 8.3 * df / (f * f * f), a2 = a * a;
    double b2 = a2 * (double)nchans * (double)nchans / 16.0;
    double c = (dt_us * dt_us + ti * ti) * (tol2 - 1.0);
    size_t cap = 1024, n = 0;
    double *dms = malloc(cap * sizeof *dms);
    if (!dms)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    /* Stored as float after every step, as dedisp's std::vector<float>. */
    double dm = (float)lo;
    dms[n++] = dm;
    while (dm < hi) {
        double prev = dm;
        double next = (b2 * prev + sqrt(-a2 * b2 * prev * prev + (a2 + b2) * (c + tol2 * a2 * prev * prev))) / (a2 + b2);
        if (!(next <= FLT_MAX)) {
            free(dms);
            return xc_error_set(err, XC_EINVAL, "-dm_tol %g: the trial after DM %g is %g, beyond a float", tol, prev,
                                next);
        }
        dm = (float)next;
        if (!(dm > prev)) {
            free(dms);
            return xc_error_set(err, XC_EINVAL, "DM list does not advance at DM %g", prev);
        }
        if (n >= XC_DMPLAN_MAX_TRIALS) {
            free(dms);
            return xc_error_set(err, XC_EINVAL,
                                "-dm_tol %g over %g..%g: more than %d trials (DM %g reached); raise -dm_tol or lower "
                                "-hidm",
                                tol, lo, hi, XC_DMPLAN_MAX_TRIALS, dm);
        }
        if (n == cap) {
            double *nd = realloc(dms, 2 * cap * sizeof *nd);
            if (!nd) {
                free(dms);
                return xc_error_set(err, XC_ENOMEM, "out of memory");
            }
            dms = nd;
            cap *= 2;
        }
        dms[n++] = dm;
    }
    p->r = calloc(1, sizeof *p->r);
    if (!p->r) {
        free(dms);
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    }
    p->nranges = 1;
    p->r[0].lo = lo;
    p->r[0].hi = dms[n - 1];
    p->r[0].step = 0;
    p->r[0].ds = 1;
    p->r[0].ndm = n;
    p->r[0].dms = dms;
    strcpy(p->kind, "tolerance");
    p->tol = tol;
    p->pulse_width_us = pulse_width_us;
    return XC_OK;
}

static double round_mode(double x, xc_rounding r)
{
    switch (r) {
    case XC_ROUND_HALF_AWAY: return round(x);
    case XC_ROUND_HALF_EVEN: return nearbyint(x);   /* default FE_TONEAREST */
    case XC_ROUND_TRUNC: return trunc(x);
    }
    return round(x);
}

static float round_modef(float x, xc_rounding r)
{
    switch (r) {
    case XC_ROUND_HALF_AWAY: return roundf(x);
    case XC_ROUND_HALF_EVEN: return nearbyintf(x);
    case XC_ROUND_TRUNC: return truncf(x);
    }
    return roundf(x);
}

xc_status xc_delays_compute(const xc_convention *cv, const xc_geometry *g,
                            const xc_dmrange *r, int32_t *out, xc_error *err)
{
    int nc = g->nchans;
    if (nc < 1)
        return xc_error_set(err, XC_EINVAL, "nchans: %d must be >= 1", nc);
    if (!(g->tsamp > 0))
        return xc_error_set(err, XC_EINVAL, "tsamp: %g must be > 0", g->tsamp);
    double flo = g->fch1 + (g->foff < 0 ? (nc - 1) * g->foff : 0.0);
    double fref = g->fch1 + (g->foff > 0 ? (nc - 1) * g->foff : 0.0);
    if (!(flo > 0))
        return xc_error_set(err, XC_EINVAL, "channel frequency %g MHz must be > 0 (fch1 %g, foff %g)",
                            flo, g->fch1, g->foff);
    double dt = g->tsamp * r->ds;
    if (cv->precision == XC_PREC_DOUBLE) {
        for (size_t j = 0; j < r->ndm; j++) {
            double dm = r->dms[j];
            for (int c = 0; c < nc; c++) {
                double f = g->fch1 + c * g->foff;
                double d = cv->kdm * dm * (1.0 / (f * f) - 1.0 / (fref * fref)) / dt;
                double v = round_mode(d, cv->rounding);
                if (v < 0 || v > 2147483647.0)
                    return xc_error_set(err, XC_EINVAL, "delay of channel %d at DM %g: %g samples is out of range", c, dm, v);
                out[j * (size_t)nc + c] = (int32_t)v;
            }
        }
        return XC_OK;
    }
    /* dedisp src/kernels.cuh: float table, product in float. */
    float *table = malloc((size_t)nc * sizeof *table);
    if (!table)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    float b = 1.f / (float)fref;
    for (int c = 0; c < nc; c++) {
        float a = 1.f / ((float)g->fch1 + (float)c * (float)g->foff);
        table[c] = (float)(cv->kdm / dt * (double)(a * a - b * b));
    }
    xc_status st = XC_OK;
    for (size_t j = 0; j < r->ndm && !st; j++) {
        float dm = (float)r->dms[j];
        for (int c = 0; c < nc; c++) {
            float v = round_modef(dm * table[c], cv->rounding);
            if (v < 0 || v > 2147483520.0f) {
                st = xc_error_set(err, XC_EINVAL, "delay of channel %d at DM %g: %g samples is out of range", c, (double)dm, (double)v);
                break;
            }
            out[j * (size_t)nc + c] = (int32_t)v;
        }
    }
    free(table);
    return st;
}

xc_status xc_dmplan_max_delay(const xc_convention *cv, const xc_geometry *g,
                              const xc_dmplan *p, int64_t *maxd, xc_error *err)
{
    int64_t m = 0;
    for (int k = 0; k < p->nranges; k++) {
        const xc_dmrange *r = &p->r[k];
        /* The largest delay is at the lowest channel and the largest DM, but with
         * float tables and rounding we take the max over every channel of the
         * last trial rather than trust monotonicity. */
        xc_dmrange last = *r;
        last.ndm = 1;
        last.dms = &r->dms[r->ndm - 1];
        int32_t *d = malloc((size_t)g->nchans * sizeof *d);
        if (!d)
            return xc_error_set(err, XC_ENOMEM, "out of memory");
        xc_status st = xc_delays_compute(cv, g, &last, d, err);
        if (st) {
            free(d);
            return st;
        }
        for (int c = 0; c < g->nchans; c++)
            if ((int64_t)d[c] * r->ds > m)
                m = (int64_t)d[c] * r->ds;
        free(d);
    }
    *maxd = m;
    return XC_OK;
}
