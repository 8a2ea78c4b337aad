/* Candidate-list checks of xc_checks.h: against the reference's list, and
 * against the truth of a synthetic pulsar. */
#include "compare/check/xc_checks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

xc_status xc_check_cands(xc_checks *l, const char *obs, const char *impl, const xc_candlist *a,
                         const xc_candlist *ref, const xc_cmpcands_opts *o, xc_error *err)
{
    const char *check = "candidates vs reference";
    if (!a || !ref || !o)
        return xc_error_set(err, XC_EINVAL, "candidates check: no list or options");
    xc_cmpcands_result res;
    memset(&res, 0, sizeof res);
    xc_error e;
    xc_error_clear(&e);
    xc_status st = xc_compare_cands(a, ref, o, &res, &e);
    if (xc_checks_failed_call(l, obs, impl, check, st, &e, "comparable", &st, err)) {
        xc_cmpcands_result_free(&res);
        return st;
    }
    char bound[256];
    snprintf(bound, sizeof bound, "all matched (|dr| <= %g, |dz| <= %g), power rel. %.0e, sigma %.0e", o->dr, o->dz,
             o->rtol_power, o->dsigma);
    double bad = (double)(res.na_only_fail + res.nb_only_fail + res.npower_bad + res.nsigma_bad);
    st = xc_checks_addf(l, obs, impl, check, res.agree ? XC_CHECK_PASS : XC_CHECK_FAIL, bad, 0.0, bound, err,
                        "%zu vs %zu candidates, %zu matched, %zu/%zu unmatched; max |dr| %.3g, max |dsigma| %.3g, "
                        "max power rel. diff %.2g", res.na, res.nb, res.npairs, res.na_only, res.nb_only,
                        res.dr.max_abs, res.dsigma.max_abs, res.dpower_rel.max_abs);
    xc_cmpcands_result_free(&res);
    return st;
}

xc_status xc_check_truth(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c,
                         const xc_truth *t, const xc_cmpcands_opts *o, xc_error *err)
{
    const char *check = "recovers truth r, z";
    if (!c || !t || !o)
        return xc_error_set(err, XC_EINVAL, "truth check: no list, truth or options");
    xc_truthmatch m;
    memset(&m, 0, sizeof m);
    xc_error e;
    xc_error_clear(&e);
    xc_status st = xc_cands_match_truth(c, t, o, &m, &e);
    if (xc_checks_failed_call(l, obs, impl, check, st, &e, "-", &st, err))
        return st;
    char bound[256];
    snprintf(bound, sizeof bound, "sigma > %g, |dr| <= %g, %s <= %g", o->truth_sigma, o->truth_dr,
             o->truth_signed_z ? "|z - z_true|" : "||z| - |z_true||", o->truth_dz);
    xc_check_state s = m.pass ? XC_CHECK_PASS : XC_CHECK_FAIL;
    if (!m.fund.found)
        return xc_checks_addf(l, obs, impl, check, s, NAN, m.r_true, bound, err,
                              "fundamental not found above sigma %g", o->truth_sigma);
    /* the judged quantities: r and z against the truth at the list's T, and
     * the frequency that made the candidate the fundamental */
    return xc_checks_addf(l, obs, impl, check, s, m.fund.r, m.r_true, bound, err,
                          "sigma %.1f at r %.2f (truth %.2f, dr %+.2f), z %.1f (truth %.1f, dz %+.1f), f %.6f Hz; "
                          "%zu other candidates above %g",
                          m.fund.sigma, m.fund.r, m.r_true, m.fund.dr, m.fund.z, m.z_true, m.fund.dz, m.fund.f_hz,
                          m.nother, o->truth_sigma);
}

xc_status xc_check_cands_rf(xc_checks *l, const char *obs, const char *impl, const xc_candlist *c, double T,
                            double tol, xc_error *err)
{
    const char *check = "r and f_hz agree";
    if (!c || !(T > 0) || !(tol >= 0))
        return xc_error_set(err, XC_EINVAL, "r-f check: no list, T %g or tolerance %g", T, tol);
    double worst = 0;
    size_t iw = 0, nbad = 0, n = 0;
    for (size_t i = 0; i < c->n; i++) {
        const xc_cand *k = &c->c[i];
        if (!isfinite(k->f_hz))
            continue;
        n++;
        double d = fabs(k->r - k->f_hz * T);
        if (isnan(d))
            d = INFINITY;
        nbad += !(d <= tol);
        if (d > worst) {   /* a failing one is worse than every passing one */
            worst = d;
            iw = i;
        }
    }
    char bound[128];
    snprintf(bound, sizeof bound, "|r - f_hz T| <= %g bins, T %.9g s", tol, T);
    if (!nbad)
        return xc_checks_addf(l, obs, impl, check, XC_CHECK_PASS, worst, tol, bound, err,
                              "%zu candidates with both columns, max |r - f_hz T| %.3g bins", n, worst);
    const xc_cand *k = &c->c[iw];
    return xc_checks_addf(l, obs, impl, check, XC_CHECK_FAIL, worst, tol, bound, err,
                          "%zu of %zu candidates disagree; worst: candidate %zu: r %.2f but f_hz %.9g Hz x T = %.2f "
                          "bins (r - f_hz T = %+.2f)",
                          nbad, n, iw + 1, k->r, k->f_hz, k->f_hz * T, k->r - k->f_hz * T);
}

/* The judged column of a pair: got's value against ref's, relative. */
typedef struct {
    double worst, got, ref, r;
    size_t n, nbad;
} col_diff;

static void col_judge(col_diff *d, double got, double ref, double r, double rtol)
{
    if (!isfinite(got) || !(ref > 0))
        return;
    double rel = fabs(got - ref) / ref;
    if (isnan(rel))
        rel = INFINITY;
    d->n++;
    d->nbad += !(rel <= rtol);
    if (d->n == 1 || rel > d->worst) {
        d->worst = rel;
        d->got = got;
        d->ref = ref;
        d->r = r;
    }
}

/* The candidate of got matching a: within dr in r and dz in z (signed_z) or
 * |z|, the same harmonic count; the closest in r, or NULL. */
static const xc_cand *same_cand(const xc_candlist *got, const xc_cand *a, double dr, double dz, int signed_z)
{
    const xc_cand *best = NULL;
    for (size_t j = 0; j < got->n; j++) {
        const xc_cand *b = &got->c[j];
        double ddz = signed_z ? fabs(b->z - a->z) : fabs(fabs(b->z) - fabs(a->z));
        if (b->numharm == a->numharm && fabs(b->r - a->r) <= dr && ddz <= dz &&
            (!best || fabs(b->r - a->r) < fabs(best->r - a->r)))
            best = b;
    }
    return best;
}

xc_status xc_check_cands_power(xc_checks *l, const char *obs, const char *impl, const xc_candlist *got,
                               const xc_candlist *ref, const xc_powercheck *pc, xc_error *err)
{
    const char *check = "power and sigma vs reference";
    if (!got || !ref || !pc || !(pc->rtol >= 0))
        return xc_error_set(err, XC_EINVAL, "power check: no list, or tolerance %g", pc ? pc->rtol : NAN);
    col_diff pw = {0}, sg = {0};
    size_t want = 0, paired = 0;
    for (size_t i = 0; i < ref->n; i++) {
        const xc_cand *a = &ref->c[i];
        if (!(a->sigma > pc->sigma_min))
            continue;
        want++;
        const xc_cand *b = same_cand(got, a, pc->dr, pc->dz, pc->signed_z);
        if (!b)
            continue;
        paired++;
        col_judge(&pw, b->power, a->power, a->r, pc->rtol);
        col_judge(&sg, b->sigma, a->sigma, a->r, pc->rtol);
    }
    char bound[160];
    snprintf(bound, sizeof bound, "each within %.3g %% of the reference's (same numharm, sigma > %g)", 100 * pc->rtol,
             pc->sigma_min);
    if (!pw.n && !sg.n)
        return xc_checks_addf(l, obs, impl, check, XC_CHECK_SKIP, NAN, 0.0, bound, err,
                              "no column to judge: %zu of %zu reference candidates paired with the same numharm, "
                              "none with a finite power or sigma", paired, want);
    const col_diff *w = pw.n && (!sg.n || pw.worst >= sg.worst) ? &pw : &sg;
    return xc_checks_addf(l, obs, impl, check, pw.nbad + sg.nbad ? XC_CHECK_FAIL : XC_CHECK_PASS, w->worst, pc->rtol,
                          bound, err,
                          "%zu pairs; power max rel. diff %.3g (%zu over), sigma %.3g (%zu over); worst: %s %.6g, "
                          "reference %.6g at r %.2f",
                          paired, pw.worst, pw.nbad, sg.worst, sg.nbad, w == &pw ? "power" : "sigma", w->got, w->ref,
                          w->r);
}
