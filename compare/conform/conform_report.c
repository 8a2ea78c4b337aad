/* The conformance report and the checks every family shares (xc_conform.h). */
#include "compare/conform/xc_conform.h"
#include "core/base/xc_grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xc_conform_opts_default(xc_conform_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->alpha = 1e-3;
    o->noise_spectra = 12;
}

void xc_conform_report_init(xc_conform_report *r) { memset(r, 0, sizeof *r); }

void xc_conform_report_free(xc_conform_report *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}

xc_status xc_conform_report_add(xc_conform_report *r, int pass, const char *name, const char *observed,
                                const char *expected, const char *tolerance, xc_error *err)
{
    if (r->n == r->cap) {
        xc_conform_row *rows = xc_grow(r->rows, &r->cap, sizeof *rows, 64);
        if (!rows)
            return xc_error_set(err, XC_ENOMEM, "conformance: out of memory past %zu report rows", r->cap);
        r->rows = rows;
    }
    xc_conform_row *w = &r->rows[r->n++];
    w->pass = !!pass;
    snprintf(w->name, sizeof w->name, "%s", name ? name : "");
    snprintf(w->observed, sizeof w->observed, "%s", observed ? observed : "");
    snprintf(w->expected, sizeof w->expected, "%s", expected ? expected : "");
    snprintf(w->tolerance, sizeof w->tolerance, "%s", tolerance ? tolerance : "");
    r->nfail += !pass;
    return XC_OK;
}

const xc_conform_row *xc_conform_report_failed(const xc_conform_report *r, const char *prefix)
{
    size_t n = prefix ? strlen(prefix) : 0;
    for (size_t i = 0; i < r->n; i++)
        if (!r->rows[i].pass && !strncmp(r->rows[i].name, prefix ? prefix : "", n))
            return &r->rows[i];
    return NULL;
}

xc_status xc_conform_check_pair(const xc_impl *impl, const xc_impl *ref, xc_conform_report *rep, xc_error *err)
{
    if (ref->tol.kind != XC_TOL_EXACT)
        return xc_error_set(err, XC_EINVAL, "conformance: the reference %s is not exact (class %s)", ref->name,
                            xc_tol_kind_name(ref->tol.kind));
    char why[256];
    const xc_impl *d[2] = {impl, ref};
    for (int i = 0; i < 2; i++)
        if (!xc_impl_available(d[i], why, sizeof why))
            return xc_error_set(err, XC_EUNAVAIL, "conformance: %s is not available here: %s", d[i]->name, why);
    snprintf(rep->impl, sizeof rep->impl, "%s", impl->name);
    snprintf(rep->ref, sizeof rep->ref, "%s", ref->name);
    return XC_OK;
}

xc_status xc_conform_check_class(const xc_impl *impl, xc_conform_report *rep, int *pass, xc_error *err)
{
    xc_tol_kind k = impl->tol.kind;
    double v = impl->tol.value;
    int dd = impl->family == XC_FAMILY_DEDISPERSE, sp = impl->family == XC_FAMILY_SINGLEPULSE;
    int known = dd   ? (k == XC_TOL_EXACT || k == XC_TOL_ROUNDING || k == XC_TOL_SIGNAL_LOSS)
                : sp ? (k == XC_TOL_EXACT || k == XC_TOL_ROUNDING)
                     : (k == XC_TOL_EXACT || k == XC_TOL_RELATIVE);
    int ok = known && isfinite(v) && v >= 0 && (k != XC_TOL_SIGNAL_LOSS || v < 1);
    char obs[128], exp[128];
    snprintf(obs, sizeof obs, "%s %g", xc_tol_kind_name(k), v);
    snprintf(exp, sizeof exp, "%s", dd   ? "exact, rounding v >= 0 or signal-loss 0 <= v < 1"
                                    : sp ? "exact or rounding v >= 0"
                                         : "exact or relative v >= 0");
    *pass = ok;
    return xc_conform_report_add(rep, ok, "class", obs, exp, "the classes xc_dedisperse.h / xc_search.h / xc_spsearch.h define",
                                 err);
}
