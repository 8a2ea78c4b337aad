/* The accel search's checks of xc_checks.h: a known signal found at its r,
 * z and w (signed: a matched filter knows the sign of the drift, unlike a
 * boxcar), and a list against accelsearch's own _ACCEL_ table. */
#include "compare/check/xc_checks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

xc_status xc_check_accel_truth(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c, double r,
                               double z, double w, double dr, double dz, double dw, double sigma_min, xc_error *err)
{
    const char *check = "finds truth r, z, w";
    if (!c || isnan(r))
        return xc_error_set(err, XC_EINVAL, "accel truth check: no list or no truth r");
    char bound[256];
    snprintf(bound, sizeof bound, "sigma > %g, |dr| <= %g", sigma_min, dr);
    if (!isnan(z))
        snprintf(bound + strlen(bound), sizeof bound - strlen(bound), ", |dz| <= %g", dz);
    if (!isnan(w))
        snprintf(bound + strlen(bound), sizeof bound - strlen(bound), ", |dw| <= %g", dw);
    /* the list is sorted by sigma: the first match is the strongest */
    for (size_t i = 0; i < c->n; i++) {
        const xc_cand *k = &c->c[i];
        if (!(k->sigma > sigma_min) || !(fabs(k->r - r) <= dr) || (!isnan(z) && !(fabs(k->z - z) <= dz)) ||
            (!isnan(w) && !(fabs(k->w - w) <= dw)))
            continue;
        /* a truth the file does not give is not shown (nor judged) */
        char zt[40] = "", wt[40] = "";
        if (!isnan(z))
            snprintf(zt, sizeof zt, " (truth %.1f)", z);
        if (!isnan(w))
            snprintf(wt, sizeof wt, " (truth %.0f)", w);
        return xc_checks_addf(l, obs, impl, check, XC_CHECK_PASS, k->r, r, bound, err,
                              "candidate %zu of %zu: r %.2f (truth %.2f), z %.1f%s, w %.0f%s, sigma %.2f", i + 1,
                              c->n, k->r, r, k->z, zt, k->w, wt, k->sigma);
    }
    if (!c->n)
        return xc_checks_addf(l, obs, impl, check, XC_CHECK_FAIL, NAN, r, bound, err, "no candidate at all");
    char win[96];
    int o = snprintf(win, sizeof win, "r %.2f", r);
    if (!isnan(z))
        o += snprintf(win + o, sizeof win - (size_t)o, ", z %.1f", z);
    if (!isnan(w))
        snprintf(win + o, sizeof win - (size_t)o, ", w %.0f", w);
    return xc_checks_addf(l, obs, impl, check, XC_CHECK_FAIL, c->c[0].r, r, bound, err,
                          "none of %zu candidates within the windows of %s; the strongest: r %.2f, z %.1f, w %.0f, "
                          "sigma %.2f",
                          c->n, win, c->c[0].r, c->c[0].z, c->c[0].w, c->c[0].sigma);
}

/* One direction: every candidate of a (sigma > smin, fundamental r in
 * [rlo, rhi]) has one in b with the same numharm, r within 0.5 bin, z within
 * 2, w within 20 and sigma within 0.2 (accelsearch prints sigma cut to 5
 * characters: from 1000 up the decimals are lost, so 1.2 there). */
static size_t unmatched(const xc_candlist *a, const xc_candlist *b, double smin, double rlo, double rhi, size_t maxn,
                        size_t *checked, double *wr, double *ws)
{
    size_t bad = 0, taken = 0;
    for (size_t i = 0; i < a->n && taken < maxn; i++) {
        const xc_cand *x = &a->c[i];
        if (!(x->sigma > smin) || x->r < rlo || x->r > rhi)
            continue;
        taken++;
        (*checked)++;
        int ok = 0;
        for (size_t j = 0; j < b->n && !ok; j++) {
            const xc_cand *y = &b->c[j];
            if (x->numharm != y->numharm || !(fabs(x->r - y->r) <= 0.5) || !(fabs(x->z - y->z) <= 2) ||
                !(fabs(x->w - y->w) <= 20))
                continue;
            double ds = fabs(x->sigma - y->sigma);
            ok = ds <= 0.2 + (fmax(x->sigma, y->sigma) >= 1000);
            *wr = fmax(*wr, fabs(x->r - y->r));
            *ws = fmax(*ws, ds);
        }
        bad += !ok;
    }
    return bad;
}

xc_status xc_check_accel_vs_accelsearch(xc_checks *l, const char *obs, const char *impl, const xc_candlist *ours,
                                        const xc_candlist *theirs, const char *table, double smin, double rlo,
                                        double rhi, size_t maxn, xc_error *err)
{
    const char *check = "candidates vs accelsearch";
    if (!ours || !theirs)
        return xc_error_set(err, XC_EINVAL, "accelsearch check: no list");
    size_t checked = 0;
    double wr = 0, ws = 0;
    size_t bad = unmatched(ours, theirs, smin, rlo, rhi, maxn, &checked, &wr, &ws) +
                 unmatched(theirs, ours, smin, rlo, rhi, maxn, &checked, &wr, &ws);
    char bound[200], which[48];
    if (maxn < (size_t)-1)
        snprintf(which, sizeof which, "the strongest %zu", maxn);
    else
        snprintf(which, sizeof which, "every candidate");
    snprintf(bound, sizeof bound, "%s with sigma > %g matched: |dr| <= 0.5, |dz| <= 2, |dw| <= 20, |dsigma| <= 0.2",
             which, smin);
    return xc_checks_addf(l, obs, impl, check, bad == 0 && checked > 0 ? XC_CHECK_PASS : XC_CHECK_FAIL, (double)bad,
                          0.0, bound, err, "%s: %zu candidates checked (r %.0f..%.0f), %zu unmatched; worst |dr| %.2f, "
                          "|dsigma| %.3f", table, checked, rlo, rhi, bad, wr, ws);
}
