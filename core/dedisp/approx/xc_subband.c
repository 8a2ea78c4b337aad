/* Subband plans: channel groups, nominal DMs, the delays of both stages and
 * the smearing bound of every output trial.  The semantics and the
 * derivation of the bound are in core/dedisp/approx/xc_subband.h. */
#include "core/dedisp/approx/xc_subband.h"
#include "core/dedisp/approx/xc_ddloss.h"
#include "core/base/xc_grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const align_names[] = {"centre", "highest", "early"};   /* the xc_subalign order */

const char *xc_subalign_name(int a)
{
    return a >= 0 && a < (int)(sizeof align_names / sizeof *align_names) ? align_names[a] : NULL;
}

int xc_subalign_parse(const char *s)
{
    for (int a = 0; s && a < (int)(sizeof align_names / sizeof *align_names); a++)
        if (!strcmp(s, align_names[a]))
            return a;
    return -1;
}

static const char *const split_names[] = {"spread", "width"};   /* the xc_subsplit order */

const char *xc_subsplit_name(int s)
{
    return s >= 0 && s < (int)(sizeof split_names / sizeof *split_names) ? split_names[s] : NULL;
}

/* 1/f^2 of channel c's centre: delays are linear in it. */
static double inv_f2(const xc_geometry *g, int c)
{
    double f = g->fch1 + c * g->foff;
    return 1 / (f * f);
}

/* Runs of channels in order, each of spread within d, cut greedily (a run takes channels while it can). */
static int runs_within(const xc_geometry *g, double d, int *first)
{
    int n = 0;
    for (int c0 = 0, c; c0 < g->nchans; c0 = c) {
        const double u0 = inv_f2(g, c0);
        for (c = c0 + 1; c < g->nchans && fabs(inv_f2(g, c) - u0) <= d; c++)
            ;
        if (first)
            first[n] = c0;
        n++;
    }
    if (first)
        first[n] = g->nchans;
    return n;
}

void xc_subband_split(const xc_geometry *g, int nsub, int split, int *first)
{
    const int nc = g->nchans;
    /* bisection on the spread: lo never fits in nsub runs, hi always does (the whole band is one run) */
    double lo = 0, hi = fabs(inv_f2(g, nc - 1) - inv_f2(g, 0));
    /* equal widths where asked, and for a band that is no band (a channel at 0 MHz: no finite spread fits) */
    if (split != XC_SUBSPLIT_SPREAD || nsub >= nc || !isfinite(hi) || runs_within(g, hi, NULL) > nsub) {
        for (int s = 0; s <= nsub; s++)
            first[s] = (int)((int64_t)s * nc / nsub);
        return;
    }
    if (runs_within(g, lo, NULL) > nsub)
        for (int it = 0; it < 200 && hi - lo > hi * 1e-15; it++) {
            const double mid = lo + (hi - lo) / 2;
            if (runs_within(g, mid, NULL) > nsub)
                lo = mid;
            else
                hi = mid;
        }
    else
        hi = lo;
    int n = runs_within(g, hi, first);
    /* fewer runs than nsub: halve the run of largest spread (the first of equal ones) until there are nsub */
    for (; n < nsub; n++) {
        int w = -1;
        double ws = -1;
        for (int s = 0; s < n; s++) {
            const double v = fabs(inv_f2(g, first[s + 1] - 1) - inv_f2(g, first[s]));
            if (first[s + 1] - first[s] > 1 && v > ws) {
                ws = v;
                w = s;
            }
        }
        memmove(first + w + 2, first + w + 1, (size_t)(n - w) * sizeof *first);
        first[w + 1] = first[w] + (first[w + 2] - first[w]) / 2;
    }
}

double xc_subband_loss_expected(double width, double smear)
{
    return smear > 0 && width > 0 ? 1 - sqrt(width / sqrt(width * width + smear * smear)) : 0;
}

/* The convention's rounding mode, in double (the direct tables' for
 * XC_PREC_DOUBLE conventions). */
static double round_as(const xc_convention *cv, double v)
{
    switch (cv->rounding) {
    case XC_ROUND_HALF_EVEN: return nearbyint(v);
    case XC_ROUND_TRUNC: return trunc(v);
    default: return round(v);
    }
}

static double freq(const xc_geometry *g, int c) { return g->fch1 + c * g->foff; }

/* Reference frequency f_s of subband s (channels [c0, c1)) under align. */
static double sub_ref(const xc_geometry *g, int c0, int c1, int align)
{
    double fa = freq(g, c0), fb = freq(g, c1 - 1);
    double hi = fmax(fa, fb), lo = fmin(fa, fb);
    if (align == XC_SUBALIGN_EARLY)
        return hi + fabs(g->foff) / 2;
    if (align == XC_SUBALIGN_CENTRE)
        return 1 / sqrt((1 / (hi * hi) + 1 / (lo * lo)) / 2);
    return hi;
}

/* G = max_c g_c - min_c g_c, g_c = K (1/f_c^2 - 1/f_s^2) / dt: the spread per
 * unit of |mu - DM| (S_cont = |mu - DM| G, the deviations being linear in
 * mu - DM). */
static double spread_per_dm(const xc_subplan *sp, const xc_geometry *g, const xc_convention *cv, double dt)
{
    double gmax = -INFINITY, gmin = INFINITY;
    for (int s = 0; s < sp->nsub; s++) {
        int c0 = sp->sub_first[s], c1 = sp->sub_first[s + 1];
        double fs = sub_ref(g, c0, c1, sp->align);
        for (int c = c0; c < c1; c++) {
            double f = freq(g, c), v = cv->kdm * (1 / (f * f) - 1 / (fs * fs)) / dt;
            gmax = fmax(gmax, v);
            gmin = fmin(gmin, v);
        }
    }
    return gmax - gmin;
}

double xc_subband_spread(const xc_subplan *sp, const xc_geometry *g, const xc_convention *cv, double mu,
                         double dm, double dt)
{
    return fabs(mu - dm) * spread_per_dm(sp, g, cv, dt);
}

static void range_free(xc_subrange *r)
{
    xc_free_each(9, r->first, r->nominal, r->a, r->b, r->maxa, r->maxb, r->clamp, r->smear, r->bound);
    memset(r, 0, sizeof *r);
}

void xc_subplan_free(xc_subplan *sp)
{
    if (!sp)
        return;
    for (int k = 0; sp->r && k < sp->nranges; k++)
        range_free(&sp->r[k]);
    xc_free_each(2, sp->r, sp->sub_first);
    memset(sp, 0, sizeof *sp);
}

/* Groups the trials of range r: a group grows while the DM span stays below
 * dmsub (dmsub > 0) or half of it times G within the budget. */
static xc_status make_groups(xc_subrange *o, const xc_dmrange *r, double dmsub, double budget, double G,
                             xc_error *err)
{
    o->first = malloc((r->ndm + 1) * sizeof *o->first);
    o->nominal = malloc((r->ndm ? r->ndm : 1) * sizeof *o->nominal);
    if (!o->first || !o->nominal)
        return xc_error_set(err, XC_ENOMEM, "subband: out of memory for the groups of %zu trials", r->ndm);
    int n = 0;
    for (size_t i0 = 0, i; i0 < r->ndm; i0 = i) {
        for (i = i0 + 1; i < r->ndm; i++) {
            double span = r->dms[i] - r->dms[i0];
            if (dmsub > 0 ? !(span < dmsub * (1 - 1e-9)) : !(span / 2 * G <= budget))
                break;
        }
        o->first[n] = i0;
        o->nominal[n] = (r->dms[i0] + r->dms[i - 1]) / 2;
        n++;
    }
    o->first[n] = r->ndm;
    o->ngroups = n;
    return XC_OK;
}

static xc_status make_range(xc_subplan *sp, const xc_ddjob *job, int k, xc_error *err)
{
    const xc_dmrange *r = &job->plan->r[k];
    const xc_geometry *g = &job->geom;
    const xc_convention *cv = job->conv;
    xc_subrange *o = &sp->r[k];
    const int nc = sp->nchans, ns = sp->nsub;
    const double dt = g->tsamp * r->ds;
    const double G = spread_per_dm(sp, g, cv, dt);
    const int64_t L = job->max_delay / r->ds;
    double ftop = -INFINITY;
    for (int c = 0; c < nc; c++)
        ftop = fmax(ftop, freq(g, c));
    o->ds = r->ds;
    o->ndm = r->ndm;
    xc_status st = make_groups(o, r, sp->dmsub, sp->budget, G, err);
    if (st)
        return st;
    const size_t ng = (size_t)o->ngroups, nd = r->ndm ? r->ndm : 1;
    o->a = malloc((ng ? ng : 1) * (size_t)nc * sizeof *o->a);
    o->maxa = malloc((ng ? ng : 1) * (size_t)ns * sizeof *o->maxa);
    o->maxb = calloc(ng ? ng : 1, sizeof *o->maxb);
    o->b = malloc(nd * (size_t)ns * sizeof *o->b);
    o->clamp = calloc(nd, sizeof *o->clamp);
    o->smear = malloc(nd * sizeof *o->smear);
    o->bound = malloc(nd * sizeof *o->bound);
    int32_t *m = malloc((size_t)ns * sizeof *m), *cut = malloc((size_t)ns * sizeof *cut);
    double *fs = malloc((size_t)ns * sizeof *fs);
    if (!o->a || !o->maxa || !o->maxb || !o->b || !o->clamp || !o->smear || !o->bound || !m || !cut || !fs) {
        free(m);
        free(cut);
        free(fs);
        return xc_error_set(err, XC_ENOMEM, "subband: out of memory for the delays of range %d", k);
    }
    for (int s = 0; s < ns; s++)
        fs[s] = sub_ref(g, sp->sub_first[s], sp->sub_first[s + 1], sp->align);
    for (size_t j = 0; j < ng && !st; j++) {
        const double mu = o->nominal[j];
        int32_t *a = o->a + j * (size_t)nc;
        for (int s = 0; s < ns && !st; s++) {
            int c0 = sp->sub_first[s], c1 = sp->sub_first[s + 1];
            double pmin = INFINITY;
            for (int c = c0; c < c1; c++) {
                double f = freq(g, c);
                double p = round_as(cv, cv->kdm * mu * (1 / (f * f) - 1 / (fs[s] * fs[s])) / dt);
                if (!(fabs(p) < 1e9)) {
                    st = xc_error_set(err, XC_EINVAL, "subband: delay of channel %d at nominal DM %g is out of range",
                                      c, mu);
                    break;
                }
                a[c] = (int32_t)p;
                pmin = fmin(pmin, p);
            }
            m[s] = (int32_t)pmin;
            int32_t mx = 0, ct = 0;
            for (int c = c0; c < c1 && !st; c++) {
                a[c] -= m[s];
                if (a[c] > L) {    /* only at the gulp's edge: cut, and counted in the bound */
                    ct = a[c] - (int32_t)L > ct ? a[c] - (int32_t)L : ct;
                    a[c] = (int32_t)L;
                }
                mx = a[c] > mx ? a[c] : mx;
            }
            o->maxa[j * (size_t)ns + (size_t)s] = mx;
            cut[s] = ct;
        }
        for (size_t i = o->first[j]; i < o->first[j + 1] && !st; i++) {
            const double dm = r->dms[i];
            int32_t z = 0;
            for (int s = 0; s < ns; s++) {
                double q = round_as(cv, cv->kdm * dm * (1 / (fs[s] * fs[s]) - 1 / (ftop * ftop)) / dt) + m[s];
                double hi = (double)L - o->maxa[j * (size_t)ns + (size_t)s];
                double bv = q < 0 ? 0 : q > hi ? hi : q;
                int32_t zs = (int32_t)fabs(bv - q) + cut[s];
                z = zs > z ? zs : z;
                o->b[i * (size_t)ns + (size_t)s] = (int32_t)bv;
                if ((int32_t)bv > o->maxb[j])
                    o->maxb[j] = (int32_t)bv;
            }
            o->clamp[i] = z;
            o->smear[i] = fabs(mu - dm) * G;
            o->bound[i] = (int32_t)floor(o->smear[i]) + 3 + z;
        }
    }
    free(m);
    free(cut);
    free(fs);
    return st;
}

/* A candidate nsub's declared loss and cost: additions per output sample,
 * stage 1 (every group's nominal DM over every channel) and stage 2 (every
 * trial over the subbands), per range divided by its downsample factor. */
static xc_status eval_nsub(const xc_ddjob *job, void *ctx, xc_ddloss *loss, double *cost, xc_error *err)
{
    (void)ctx;
    xc_subplan sp;
    xc_status st = xc_subplan_make(&sp, job, err);
    if (st)
        return st;
    xc_ddloss_init(loss, &job->opts);
    *cost = 0;
    for (int k = 0; k < sp.nranges; k++) {
        const xc_subrange *r = &sp.r[k];
        *cost += ((double)r->ngroups * sp.nchans + (double)r->ndm * sp.nsub) / r->ds;
        for (size_t i = 0; i < r->ndm; i++)
            xc_ddloss_add(loss, k, i, job->plan->r[k].dms[i], r->bound[i], r->smear[i]);
    }
    xc_subplan_free(&sp);
    return XC_OK;
}

/* opts.nsub 0: the cheapest power of two (or nchans) within the loss limit
 * (core/dedisp/approx/xc_ddloss.h). */
static xc_status default_nsub(const xc_ddjob *job, int *nsub, xc_error *err)
{
    int cand[32], n = 0;
    const int nc = job->geom.nchans;
    for (int s = 2; s < nc && n < 31; s *= 2)
        cand[n++] = s;
    cand[n++] = nc;
    return xc_ddloss_choose(job, cand, n, eval_nsub, NULL, nsub, err);
}

xc_status xc_subplan_make(xc_subplan *sp, const xc_ddjob *job, xc_error *err)
{
    memset(sp, 0, sizeof *sp);
    const xc_ddopts *o = &job->opts;
    if (!job->plan || !job->conv || job->geom.nchans < 1)
        return xc_error_set(err, XC_EINVAL, "subband: the job is not prepared");
    if (o->nsub < 0)
        return xc_error_set(err, XC_EINVAL, "subband: nsub: %d must be 0 (default) or positive", o->nsub);
    if (!(o->dmsub >= 0) || !isfinite(o->dmsub))
        return xc_error_set(err, XC_EINVAL, "subband: dmsub: %g must be 0 (from the budget) or positive", o->dmsub);
    if (!(o->subbudget >= 0) || !isfinite(o->subbudget))
        return xc_error_set(err, XC_EINVAL, "subband: budget: %g samples must be 0 (default) or positive",
                            o->subbudget);
    if (!xc_subsplit_name(o->subsplit))
        return xc_error_set(err, XC_EINVAL, "subband: split %d is not spread (0) or width (1)", o->subsplit);
    if (!xc_subalign_name(o->subalign))
        return xc_error_set(err, XC_EINVAL, "subband: alignment %d is not centre (0), highest (1) or early (2)",
                            o->subalign);
    const int nc = job->geom.nchans;
    if (o->nsub > nc)   /* the default (0) is clamped below; a number asked for is not */
        return xc_error_set(err, XC_EINVAL, "subband: nsub (-nsub) = %d: more than the input's %d channels", o->nsub,
                            nc);
    sp->nchans = nc;
    sp->nsub = o->nsub;
    xc_status st = XC_OK;
    if (!sp->nsub && (st = default_nsub(job, &sp->nsub, err)))
        return st;
    if (sp->nsub > nc)
        sp->nsub = nc;
    sp->align = o->subalign;
    sp->split = o->subsplit;
    sp->dmsub = o->dmsub;
    sp->budget = o->subbudget > 0 ? o->subbudget : XC_SUBBAND_BUDGET;
    sp->sub_first = malloc(((size_t)sp->nsub + 1) * sizeof *sp->sub_first);
    sp->r = calloc((size_t)job->plan->nranges, sizeof *sp->r);
    if (!sp->sub_first || !sp->r) {
        xc_subplan_free(sp);
        return xc_error_set(err, XC_ENOMEM, "subband: out of memory");
    }
    sp->nranges = job->plan->nranges;
    xc_subband_split(&job->geom, sp->nsub, sp->split, sp->sub_first);
    for (int k = 0; k < sp->nranges && !st; k++)
        st = make_range(sp, job, k, err);
    if (st)
        xc_subplan_free(sp);
    return st;
}
