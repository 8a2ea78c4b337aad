/* The single-pulse search's checks of xc_checks.h: injected pulses found in
 * the candidate list, and every searcher's list against the reference's. */
#include "compare/check/xc_checks.h"
#include "compare/check/xc_known.h"

#include <math.h>
#include <stdio.h>

/* The plan's DM step at trial j (plan order): to the next trial, or from the
 * previous one for the last; the range's step for a range of one trial. */
static double step_at(const xc_dmplan *plan, int32_t j)
{
    for (int k = 0; k < plan->nranges; k++) {
        const xc_dmrange *r = &plan->r[k];
        if (j < (int32_t)r->ndm) {
            if (r->ndm < 2)
                return r->step;
            return j + 1 < (int32_t)r->ndm ? r->dms[j + 1] - r->dms[j] : r->dms[j] - r->dms[j - 1];
        }
        j -= (int32_t)r->ndm;
    }
    return 0.0;
}

xc_status xc_check_sp_pulse(xc_checks *l, const char *obs, const char *impl, const xc_spcandlist *c,
                            const xc_dmplan *plan, const xc_pulse_truth *t, xc_error *err)
{
    char check[200], bound[256];
    snprintf(check, sizeof check, "single-pulse search: pulse %zu (DM %g at %.3f s)", t->index, t->dm, t->t_s);
    /* the brightest candidate whose box centre is within the window and
     * whose DM is within dm_steps of the truth's, at the candidate's step */
    const xc_spcand *best = NULL;
    double best_step = 0;
    for (size_t i = 0; i < c->n; i++) {
        const xc_spcand *x = &c->c[i];
        double centre = ((double)x->sample + 0.5 * x->width) * c->tsamp, step = step_at(plan, x->dm_index);
        /* 1e-9: DM values parsed from text sit a rounding error off the step */
        if (fabs(centre - t->t_s) <= t->window_s && fabs(x->dm - t->dm) <= t->dm_steps * step * (1 + 1e-9) &&
            (!best || x->snr > best->snr)) {
            best = x;
            best_step = step;
        }
    }
    snprintf(bound, sizeof bound,
             "a cluster within %g DM step(s) and %.4g s (box centre), box width within a factor 2 of the pulse's, "
             "S/N within %g%% of %.1f x min(sqrt(b/W), sqrt(W/b)) for box b, pulse W", t->dm_steps, t->window_s,
             100 * t->snr_rtol, t->snr_expected);
    if (!best)
        return xc_checks_addf(l, obs, impl, check, XC_CHECK_FAIL, NAN, t->dm, bound, err,
                              "no candidate near the pulse (%zu candidates)", c->n);
    /* A top hat of W samples in a box of b: the box holds min(b, W) of its
     * samples over sqrt(b) of noise, against sqrt(W) for the matched box; the
     * search's widths (powers of two) rarely match W, so its truth is the
     * matched box's S/N scaled by that ratio. */
    double W = t->width_s / c->tsamp, b = best->width;
    double want = t->snr_expected * (b < W ? sqrt(b / W) : sqrt(W / b));
    double rel = fabs(best->snr - want) / want;
    int pass = rel <= t->snr_rtol && b >= W / 2 && b <= 2 * W;
    return xc_checks_addf(l, obs, impl, check, pass ? XC_CHECK_PASS : XC_CHECK_FAIL, best->dm, t->dm, bound, err,
                          "DM %.3f (step %.3g), centre %.4f s, width %d (pulse %.1f), S/N %.2f (%.1f%% from %.1f)",
                          best->dm, best_step, ((double)best->sample + 0.5 * best->width) * c->tsamp, best->width, W,
                          best->snr, 100 * rel, want);
}

xc_status xc_check_sp_same(xc_checks *l, const char *obs, const char *impl, const xc_spcandlist *a,
                           const xc_spcandlist *ref, double rtol, xc_error *err)
{
    char bound[200];
    snprintf(bound, sizeof bound, "the same clusters (sample, width, DM trial, members), S/N within %g relative",
             rtol);
    size_t bad = a->n > ref->n ? a->n - ref->n : ref->n - a->n, first = (size_t)-1;
    for (size_t i = 0; i < a->n && i < ref->n; i++) {
        const xc_spcand *x = &a->c[i], *y = &ref->c[i];
        if (x->sample != y->sample || x->width != y->width || x->dm_index != y->dm_index ||
            x->members != y->members || !(fabs(x->snr - y->snr) <= rtol * fabs(y->snr))) {
            bad++;
            if (first == (size_t)-1)
                first = i;
        }
    }
    if (!bad)
        return xc_checks_addf(l, obs, impl, "single-pulse candidates vs reference", XC_CHECK_PASS, 0, 0, bound, err,
                              "%zu candidates, all equal", ref->n);
    if (first == (size_t)-1)
        return xc_checks_addf(l, obs, impl, "single-pulse candidates vs reference", XC_CHECK_FAIL, (double)bad, 0,
                              bound, err, "%zu candidates, the reference %zu", a->n, ref->n);
    const xc_spcand *x = &a->c[first], *y = &ref->c[first];
    return xc_checks_addf(l, obs, impl, "single-pulse candidates vs reference", XC_CHECK_FAIL, (double)bad, 0, bound,
                          err, "%zu of %zu differ; first #%zu: sample %lld width %d trial %d S/N %.6f, the reference "
                          "%lld %d %d %.6f", bad, ref->n, first, (long long)x->sample, x->width, x->dm_index, x->snr,
                          (long long)y->sample, y->width, y->dm_index, y->snr);
}

xc_status xc_check_known_sp(xc_checks *l, const char *obs, const char *impl, const xc_spcandlist *c,
                            const xc_dmplan *plan, const xc_known *k, xc_error *err)
{
    if (!c || !k || k->kind != XC_KNOWN_BURST)
        return xc_error_set(err, XC_EINVAL, "known burst check: no list or not a burst");
    char check[256], bound[256];
    snprintf(check, sizeof check, "known burst %s at DM %g, %g s", k->name, k->dm, k->t_s);
    if (plan)
        snprintf(bound, sizeof bound, "the brightest cluster with box centre within %g s: DM within one DM step "
                 "(the plan's at its trial), centre within one box width", k->ttol_s);
    else
        snprintf(bound, sizeof bound, "the brightest cluster with box centre within %g s: centre within one box "
                 "width; the series' DM within %g", k->ttol_s, k->dmtol);
    const xc_spcand *best = NULL;
    for (size_t i = 0; i < c->n; i++) {
        const xc_spcand *x = &c->c[i];
        double centre = ((double)x->sample + 0.5 * x->width) * c->tsamp;
        if (fabs(centre - k->t_s) <= k->ttol_s && (!best || x->snr > best->snr))
            best = x;
    }
    if (!best)
        return xc_checks_addf(l, obs, impl, check, XC_CHECK_FAIL, NAN, k->dm, bound, err,
                              "no cluster within %g s of %g s (%zu clusters)", k->ttol_s, k->t_s, c->n);
    double centre = ((double)best->sample + 0.5 * best->width) * c->tsamp, wsec = best->width * c->tsamp;
    /* 1e-9: DM values parsed from text sit a rounding error off the step */
    double dtol = plan ? step_at(plan, best->dm_index) * (1 + 1e-9) : k->dmtol;
    int pass = fabs(best->dm - k->dm) <= dtol && fabs(centre - k->t_s) <= wsec;
    return xc_checks_addf(l, obs, impl, check, pass ? XC_CHECK_PASS : XC_CHECK_FAIL, best->dm, k->dm, bound, err,
                          "DM %.3f (%s %.3g), centre %.5f s (%+.2f widths of %d samples), S/N %.2f, %lld members",
                          best->dm, plan ? "step" : "tolerance", dtol, centre, (centre - k->t_s) / wsec,
                          best->width, best->snr, (long long)best->members);
}
