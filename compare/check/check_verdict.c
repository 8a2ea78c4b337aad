/* The verdict row list of xc_checks.h. */
#include "compare/check/xc_checks.h"
#include "core/base/xc_grow.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xc_checks_init(xc_checks *l)
{
    memset(l, 0, sizeof *l);
}

void xc_checks_free(xc_checks *l)
{
    free(l->row);
    memset(l, 0, sizeof *l);
}

const char *xc_check_state_name(xc_check_state s)
{
    return s == XC_CHECK_PASS ? "PASS" : s == XC_CHECK_SKIP ? "SKIP" : "FAIL";
}

static xc_status add(xc_checks *l, const char *obs, const char *impl, const char *check, xc_check_state state,
                     double observed, double expected, const char *bound, const char *fmt, va_list ap, xc_error *err)
{
    if (!l || !check || !fmt)
        return xc_error_set(err, XC_EINVAL, "checks: no list, check name or message");
    if (l->n == l->cap) {
        xc_check_row *r = xc_grow(l->row, &l->cap, sizeof *r, 32);
        if (!r)
            return xc_error_set(err, XC_ENOMEM, "checks: out of memory past %zu rows", l->cap);
        l->row = r;
    }
    xc_check_row *r = &l->row[l->n];
    memset(r, 0, sizeof *r);
    if (obs)
        snprintf(r->check, sizeof r->check, "%s: %s", obs, check);
    else
        snprintf(r->check, sizeof r->check, "%s", check);
    snprintf(r->impl, sizeof r->impl, "%s", impl ? impl : "-");
    r->state = state;
    r->observed = observed;
    r->expected = expected;
    vsnprintf(r->measured, sizeof r->measured, fmt, ap);
    snprintf(r->bound, sizeof r->bound, "%s", bound ? bound : "-");
    l->n++;
    *(state == XC_CHECK_PASS ? &l->npass : state == XC_CHECK_SKIP ? &l->nskip : &l->nfail) += 1;
    return XC_OK;
}

xc_status xc_checks_addf(xc_checks *l, const char *obs, const char *impl, const char *check, xc_check_state state,
                         double observed, double expected, const char *bound, xc_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    xc_status st = add(l, obs, impl, check, state, observed, expected, bound, fmt, ap, err);
    va_end(ap);
    return st;
}

xc_status xc_checks_fail(xc_checks *l, const char *obs, const char *impl, const char *check, const char *why,
                         const char *bound, xc_error *err)
{
    return xc_checks_addf(l, obs, impl, check, XC_CHECK_FAIL, NAN, NAN, bound, err, "%s", why ? why : "failed");
}

int xc_checks_failed_call(xc_checks *l, const char *obs, const char *impl, const char *check, xc_status st,
                          const xc_error *e, const char *bound, xc_status *ret, xc_error *err)
{
    if (st == XC_OK)
        return 0;
    *ret = st == XC_ENOMEM ? xc_error_set(err, st, "%s", e->msg) : xc_checks_fail(l, obs, impl, check, e->msg, bound, err);
    return 1;
}
