/* A single-pulse searcher's options in a study spec: the names and checks of
 * `crosscheck singlepulse` (-preset -threshold -wmax -baseline -widths, the
 * dedisperser -ddimpl, the DM plan -dmplan or the dedisp/Heimdall tolerance
 * list -lodm -hidm -dm_tol -dm_pulse_width, -convention) and -maxloss of the
 * approximate dedispersers. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "study/spec/study_internal.h"

/* In label order. */
static const char *const names[] = {"preset", "threshold", "wmax",   "baseline", "widths",         "ddimpl",
                                    "dmplan", "lodm",      "hidm",   "dm_tol",   "dm_pulse_width", "convention",
                                    "maxloss"};
enum { NNAMES = sizeof names / sizeof *names };

int xc_study_spopt_rank(const char *name)
{
    for (int i = 0; i < NNAMES; i++)
        if (!strcmp(names[i], name))
            return i;
    return -1;
}

void xc_study_spconf_init(xc_study_spconf *c)
{
    memset(c, 0, sizeof *c);
    xc_spopts_default(&c->o, XC_SP_HEIMDALL);
    /* `crosscheck singlepulse`'s tolerance list defaults (Heimdall's) */
    c->lodm = 0.0;
    c->hidm = 1000.0;
    c->dm_tol = 1.25;
    c->dm_pulse_width = 40.0;
    snprintf(c->convention, sizeof c->convention, "crosscheck");
}

/* A finite number >= lo into *out. */
static xc_status num(const json_t *v, double lo, const char *where, double *out, char *text, size_t nt,
                     xc_error *err)
{
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < lo)
        return xc_error_set(err, XC_EINVAL, "%s: must be a finite number >= %g", where, lo);
    *out = json_number_value(v);
    snprintf(text, nt, "%.10g", *out);
    return XC_OK;
}

/* A string of 1..n-1 characters without commas, quotes or spaces into out. */
static xc_status str(const json_t *v, const char *where, char *out, size_t n, char *text, size_t nt, xc_error *err)
{
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    if (!s || !s[0] || strlen(s) >= n || strpbrk(s, "\" \t\n\r"))
        return xc_error_set(err, XC_EINVAL, "%s: must be a string of 1 to %zu characters without spaces or quotes",
                            where, n - 1);
    snprintf(out, n, "%s", s);
    snprintf(text, nt, "%s", s);
    return XC_OK;
}

/* The box widths: a list of ascending sample counts (the label joins them with '/'). */
static xc_status widths(const json_t *v, const char *where, xc_spopts *o, char *text, size_t nt, xc_error *err)
{
    size_t n = json_is_array(v) ? json_array_size(v) : 0;
    if (n == 0 || n > XC_SP_MAXW)
        return xc_error_set(err, XC_EINVAL, "%s: must be a list of 1 to %d widths in samples", where, XC_SP_MAXW);
    size_t len = 0;
    text[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *w = json_array_get(v, i);
        if (!json_is_integer(w) || json_integer_value(w) < 1 || json_integer_value(w) > (1 << 24) ||
            (i && json_integer_value(w) <= o->widths[i - 1]))
            return xc_error_set(err, XC_EINVAL, "%s[%zu]: must be an integer in 1..%d, above the one before it",
                                where, i, 1 << 24);
        o->widths[i] = (int32_t)json_integer_value(w);
        if (len < nt)
            len += (size_t)snprintf(text + len, nt - len, "%s%d", i ? "/" : "", (int)o->widths[i]);
    }
    o->nwidths = (int)n;
    return XC_OK;
}

xc_status xc_study_spopt_apply(const char *name, const json_t *v, const char *where, xc_study_spconf *c, char *text,
                               size_t nt, xc_error *err)
{
    switch (xc_study_spopt_rank(name)) {
    case 0: {
        int p = json_is_string(v) ? xc_sp_preset_find(json_string_value(v)) : -1;
        if (p < 0)
            return xc_error_set(err, XC_EINVAL, "%s: must be one of the strings heimdall|presto|astroaccelerate",
                                where);
        c->o.preset = (xc_sp_preset)p;
        snprintf(text, nt, "%s", json_string_value(v));
        return XC_OK;
    }
    case 1: return num(v, 0, where, &c->o.threshold, text, nt, err);
    case 2: return num(v, 0, where, &c->o.wmax_s, text, nt, err);
    case 3: return num(v, 0, where, &c->o.baseline_s, text, nt, err);
    case 4: return widths(v, where, &c->o, text, nt, err);
    case 5: return str(v, where, c->ddimpl, sizeof c->ddimpl, text, nt, err);
    case 6: return str(v, where, c->dmplan, sizeof c->dmplan, text, nt, err);
    case 7: return num(v, 0, where, &c->lodm, text, nt, err);
    case 8: return num(v, 0, where, &c->hidm, text, nt, err);
    case 9: return num(v, 0, where, &c->dm_tol, text, nt, err);
    case 10: return num(v, 0, where, &c->dm_pulse_width, text, nt, err);
    case 11: return str(v, where, c->convention, sizeof c->convention, text, nt, err);
    case 12: return num(v, 0, where, &c->maxloss, text, nt, err);
    default: break;
    }
    char list[300];
    size_t len = 0;
    for (int i = 0; i < NNAMES; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
    return xc_error_set(err, XC_EINVAL, "%s: unknown singlepulse option (expected one of %s)", where, list);
}

/* The checks `crosscheck singlepulse` makes before it reads a file: the
 * options resolve (at a nominal 1 ms; the burst's tsamp is checked when it
 * is searched), the plan parses, the convention exists. */
xc_status xc_study_spconf_check(const xc_study_spconf *c, const char *where, const char *label, xc_error *err)
{
    xc_spconf sc;
    xc_error e;
    xc_error_clear(&e);
    xc_status st = xc_spconf_make(&c->o, 1e-3, &sc, &e);
    if (!st && !xc_convention_get(c->convention))
        st = xc_error_set(&e, XC_EINVAL, "convention \"%s\" is not a preset (crosscheck plan -h lists them)",
                          c->convention);
    if (!st && c->dmplan[0]) {
        xc_dmplan p;
        xc_dmplan_init(&p);
        st = xc_dmplan_parse(&p, c->dmplan, "dmplan", &e);
        xc_dmplan_free(&p);
    } else if (!st && !(c->hidm > c->lodm && c->dm_tol > 1 && c->dm_pulse_width > 0)) {
        st = xc_error_set(&e, XC_EINVAL, "the tolerance list needs hidm > lodm, dm_tol > 1, dm_pulse_width > 0 "
                          "(lodm %g, hidm %g, dm_tol %g, dm_pulse_width %g)", c->lodm, c->hidm, c->dm_tol,
                          c->dm_pulse_width);
    }
    if (st)
        return xc_error_set(err, st, "%s (%s): %s", where, label, e.msg);
    return XC_OK;
}
