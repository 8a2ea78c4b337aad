/* Known signals of real files (compare/check/xc_known.h): the declaration's
 * checks and the verdict rows. */
#include "compare/check/xc_known.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void xc_known_init(xc_known *k)
{
    memset(k, 0, sizeof *k);
    k->f_hz = k->ftol_hz = k->sigma = k->dm = k->t_s = NAN;
    k->maxharm = 1;
    k->dmtol = 1.0;
    k->ttol_s = 0.01;
}

xc_status xc_known_check(xc_known *k, const char *where, xc_error *err)
{
    static const char *const names[] = {"pulsar", "birdie", "burst"};
    int kind = -1;
    for (int i = 0; i < 3; i++)
        if (k->kind_name && !strcmp(k->kind_name, names[i]))
            kind = i;
    if (kind < 0)
        return xc_error_set(err, XC_EINVAL, "%s.kind: \"%s\": must be pulsar, birdie or burst", where,
                            k->kind_name ? k->kind_name : "");
    k->kind = (xc_known_kind)kind;
    if (!k->name)
        k->name = names[kind];
    if (k->kind != XC_KNOWN_BURST && isnan(k->f_hz))
        return xc_error_set(err, XC_EINVAL, "%s: a %s needs f_hz", where, names[kind]);
    if (k->kind == XC_KNOWN_BURST && (isnan(k->dm) || isnan(k->t_s)))
        return xc_error_set(err, XC_EINVAL, "%s: a burst needs dm and t_s", where);
    if (k->kind == XC_KNOWN_PULSAR && isnan(k->dm))
        return xc_error_set(err, XC_EINVAL, "%s: a pulsar needs dm (the DM its series was dedispersed at is judged)",
                            where);
    if (k->kind == XC_KNOWN_BIRDIE && !isnan(k->dm))
        return xc_error_set(err, XC_EINVAL, "%s: a birdie has no dm (it is not dispersed)", where);
    if (k->kind == XC_KNOWN_BURST && (!isnan(k->f_hz) || !isnan(k->sigma)))
        return xc_error_set(err, XC_EINVAL, "%s: a burst has no f_hz or sigma (give dm and t_s)", where);
    if (k->kind != XC_KNOWN_BURST && !isnan(k->t_s))
        return xc_error_set(err, XC_EINVAL, "%s: t_s is for a burst, not a %s", where, names[kind]);
    return XC_OK;
}

/* The harmonic n (> 0) or sub-harmonic (< 0) of f that fc is within tol
 * of, up to maxharm; 0 when none. */
static int harmonic_of(double fc, double f, double tol, int maxharm)
{
    for (int n = 1; n <= maxharm; n++) {
        if (fabs(fc - n * f) <= tol)
            return n;
        if (n > 1 && fabs(fc - f / n) <= tol)
            return -n;
    }
    return 0;
}

static void describe_harmonic(char *buf, size_t n, int h)
{
    if (h == 1)
        snprintf(buf, n, " = f");
    else if (h > 1)
        snprintf(buf, n, " = %d f", h);
    else if (h < 0)
        snprintf(buf, n, " = f / %d", -h);
    else
        buf[0] = '\0';
}

/* The frequency check: the strongest candidate (no sigma) or any above
 * sigma at f or a harmonic. */
static xc_status check_freq(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c, const xc_known *k,
                            xc_error *err)
{
    char check[256], bound[256], harm[32];
    const char *kind = k->kind == XC_KNOWN_PULSAR ? "pulsar" : "birdie";
    snprintf(check, sizeof check, "known %s %s at %g Hz", kind, k->name, k->f_hz);
    double tol = isnan(k->ftol_hz) ? 1.0 / c->T : k->ftol_hz;
    char hs[64] = "";
    if (k->maxharm > 1)
        snprintf(hs, sizeof hs, " (or n f, f / n, n <= %d)", k->maxharm);
    if (isnan(k->sigma)) {
        snprintf(bound, sizeof bound, "the strongest candidate within %.4g Hz of %g Hz%s", tol, k->f_hz, hs);
        if (!c->n)
            return xc_checks_fail(l, obs, impl, check, "no candidate", bound, err);
        size_t best = 0;
        for (size_t i = 1; i < c->n; i++)
            if (c->c[i].sigma > c->c[best].sigma)
                best = i;
        const xc_cand *t = &c->c[best];
        int h = harmonic_of(t->f_hz, k->f_hz, tol, k->maxharm);
        describe_harmonic(harm, sizeof harm, h);
        return xc_checks_addf(l, obs, impl, check, h ? XC_CHECK_PASS : XC_CHECK_FAIL, t->f_hz, k->f_hz, bound, err,
                              "strongest %.4f Hz%s (r %.1f, z %.0f, sigma %.1f)", t->f_hz, harm, t->r, t->z,
                              t->sigma);
    }
    snprintf(bound, sizeof bound, "a candidate with sigma > %g within %.4g Hz of %g Hz%s", k->sigma, tol, k->f_hz, hs);
    const xc_cand *found = NULL;
    int fh = 0;
    for (size_t i = 0; i < c->n; i++) {
        int h = c->c[i].sigma > k->sigma ? harmonic_of(c->c[i].f_hz, k->f_hz, tol, k->maxharm) : 0;
        if (h && (!found || c->c[i].sigma > found->sigma)) {
            found = &c->c[i];
            fh = h;
        }
    }
    if (!found)
        return xc_checks_addf(l, obs, impl, check, XC_CHECK_FAIL, NAN, k->f_hz, bound, err,
                              "none of %zu candidates above sigma %g there", c->n, k->sigma);
    describe_harmonic(harm, sizeof harm, fh);
    return xc_checks_addf(l, obs, impl, check, XC_CHECK_PASS, found->f_hz, k->f_hz, bound, err,
                          "%.4f Hz%s, sigma %.1f (r %.1f, z %.0f)", found->f_hz, harm, found->sigma, found->r,
                          found->z);
}

xc_status xc_check_known(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c, const xc_known *k,
                         double series_dm, xc_error *err)
{
    if (!c || !k)
        return xc_error_set(err, XC_EINVAL, "known signal check: no list or no signal");
    if (k->kind == XC_KNOWN_BURST)
        return xc_check_known_burst(l, obs, k, err);
    if (!(c->T > 0))
        return xc_error_set(err, XC_EINVAL, "known signal check: the list has no length T (%g s)", c->T);
    xc_status st = check_freq(l, obs, impl, c, k, err);
    if (st || k->kind != XC_KNOWN_PULSAR || isnan(series_dm))
        return st;
    char check[256], bound[128];
    snprintf(check, sizeof check, "known pulsar %s at DM %g", k->name, k->dm);
    snprintf(bound, sizeof bound, "the series' DM within %g of %g", k->dmtol, k->dm);
    int pass = fabs(series_dm - k->dm) <= k->dmtol;
    return xc_checks_addf(l, obs, impl, check, pass ? XC_CHECK_PASS : XC_CHECK_FAIL, series_dm, k->dm, bound, err,
                          "the series was dedispersed at DM %g", series_dm);
}

xc_status xc_check_known_burst(xc_checks *l, const char *obs, const xc_known *k, xc_error *err)
{
    char check[256], bound[128];
    snprintf(check, sizeof check, "known burst %s at DM %g, %g s", k->name, k->dm, k->t_s);
    snprintf(bound, sizeof bound, "the brightest single-pulse cluster within %g s: one DM step, one box width",
             k->ttol_s);
    return xc_checks_addf(l, obs, "-", check, XC_CHECK_SKIP, NAN, k->dm, bound, err,
                          "not judged: no single-pulse search of this entry ran");
}
