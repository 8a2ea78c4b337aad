/* A zmax/numharm sweep of one spectrum by one search (core/search/xc_accel.h,
 * xc_accel_run_sweep): the Pulscan paper's study (White et al. 2024,
 * section 3) searches every pulsar at 8 zmax x 2 numharm, and those 16
 * searches nest.  Why they do, with the steps of core/search/xc_accel.h:
 *  1. the grid: z = -zmax..zmax in steps of 2, so a smaller zmax's templates
 *     are a contiguous run of a larger one's; r and w do not depend on zmax
 *     (rlo, rhi come from flo/fhi or -rlo/-rhi only);
 *  2. normalisation (preset exact) does not depend on zmax or numharm;
 *  3. a template is R(d; z, w) over |d| <= hw(z, w): its own z and w only;
 *  4. stage H's sum at (i, z, w) adds the sub-harmonics at required_z/w of
 *     that z and w: the same whatever numharm, as long as H <= numharm;
 *  5-6. only the trials, and so the thresholds and sigmas, depend on zmax
 *     (numz) and on the stage; the selection is order-independent.
 * So the largest search, its thresholds lowered to the lowest any of the n
 * searches has at that stage, finds every point any of them would; each is
 * then cut back to what it would have found.  A session keeps the plans and
 * the searcher's state (made for the top plan: templates, FFT plans, device
 * buffers) for every spectrum of its length: the searcher interface already
 * calls plane/search many times on one state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "core/search/xc_accel.h"
#include "core/search/stats/xc_signif.h"

/* Everything but zmax, numharm and threads equal (NAN equal to NAN). */
static int same_but_zh(const xc_accel_opts *a, const xc_accel_opts *b)
{
#define SAMEF(f) ((isnan(a->f) && isnan(b->f)) || a->f == b->f)
    return a->wmax == b->wmax && SAMEF(sigma) && SAMEF(flo) && SAMEF(fhi) && SAMEF(rlo) && SAMEF(rhi) &&
           a->preset == b->preset && a->acc == b->acc && a->normwidth == b->normwidth &&
           a->outofcore == b->outofcore && a->devblock == b->devblock && a->rednoise == b->rednoise;
#undef SAMEF
}

int xc_accel_sweep_nests(const xc_accel_opts *o, size_t n)
{
    if (!o || n < 1 || o[0].preset != XC_ACCEL_EXACT)
        return 0;
    for (size_t c = 1; c < n; c++)
        if (!same_but_zh(&o[0], &o[c]))
            return 0;
    return 1;
}

static int stage_of(int H)
{
    int s = 0;
    while ((1 << s) < H)
        s++;
    return s;
}

/* Whether search c's fate of a stage-s peak is search d's: both search
 * stage s with the same zmax, trials and threshold (the group's sigma is
 * one), so the same peaks pass and get the same sigma (numharm 1 and 4 at
 * one zmax share stage 0's). */
static int same_stage(const xc_accel_plan *c, const xc_accel_plan *d, int s)
{
    return s < c->nstages && s < d->nstages && c->zmax == d->zmax && c->wmax == d->wmax &&
           c->ntrials[s] == d->ntrials[s] && c->thr[s] == d->thr[s];
}

/* The sigma search pc would give each of the superset's peaks (NAN: not
 * one of its peaks), computed on the search's threads (31 000 peaks x 16
 * configurations of the paper's study took 0.1 s on one thread); a stage
 * whose fate an earlier search of the group shares (donor[s], its sigmas
 * dsig[donor[s]]) is copied from it, the same values. */
static void cut_sigmas(const xc_accel_plan *pc, const xc_accel_peaks *all, const int *donor, double *const *dsig,
                       double *sig)
{
    const long n = (long)all->n;
    const int nth = pc->o.threads > 0 ? pc->o.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 64) num_threads(nth) if (n > 256)
    for (long k = 0; k < n; k++) {
        const xc_accel_peak *a = &all->p[k];
        int H = a->numharm, s = stage_of(H);
        if (s < pc->nstages && donor[s] >= 0) {
            sig[k] = dsig[donor[s]][k];
            continue;
        }
        /* the peak's z and w are the top template's divided by H (a power
         * of 2): exact, so the top template's z is recovered exactly */
        long zt = lround(a->z * H);
        sig[k] = H > pc->numharm || labs(zt) > pc->zmax || !(a->P > pc->thr[s])
                     ? NAN
                     : xc_candidate_sigma(2 * a->P, 2.0 * H, pc->ntrials[s], NULL);
    }
}

/* The superset's peaks that search pc would have kept, with its sigma
 * (sig, cut_sigmas'), in the superset's order. */
static xc_status cut(const xc_accel_plan *pc, const xc_accel_peaks *all, const double *sig, xc_accel_peaks *mine,
                     xc_error *err)
{
    xc_status st = XC_OK;
    for (size_t k = 0; k < all->n && !st; k++) {
        if (!(sig[k] > pc->o.sigma))    /* NAN: outside pc's search */
            continue;
        xc_accel_peak q = all->p[k];
        q.sigma = sig[k];
        st = xc_accel_peaks_push(mine, &q, err);
    }
    return st;
}

/* A group: searches that nest (or one alone), searched once with the top
 * plan and cut back to each member's plan. */
typedef struct {
    size_t n;
    size_t *member;        /* indices into the session's configurations */
    xc_accel_plan *pc;     /* each member's plan */
    size_t made;           /* plans made (for freeing) */
    xc_accel_plan top;
    int have_top;
    void *state;           /* the searcher's, for top */
} group_t;

struct xc_accel_session {
    const xc_accel_searcher *s;
    size_t nbins, n, ng;
    double T;
    group_t *g;
    xc_accel_opts *o;      /* the n configurations (for xc_accel_session_refit) */
};

static void group_free(const xc_accel_searcher *s, group_t *g)
{
    if (g->state && s->destroy)
        s->destroy(s, g->state);
    if (g->have_top)
        xc_accel_plan_free(&g->top);
    for (size_t c = 0; c < g->made; c++)
        xc_accel_plan_free(&g->pc[c]);
    free(g->pc);
    free(g->member);
}

void xc_accel_session_close(xc_accel_session *ss)
{
    if (!ss)
        return;
    for (size_t k = 0; k < ss->ng; k++)
        group_free(ss->s, &ss->g[k]);
    free(ss->g);
    free(ss->o);
    free(ss);
}

int xc_accel_session_fits(const xc_accel_session *ss, const xc_spectrum *sp)
{
    return ss && sp && sp->nbins == ss->nbins && sp->T == ss->T;
}

/* The group's plans, top (each stage: the lowest threshold and trials of
 * the members that have it; fewer templates, fewer trials, a lower
 * threshold). */
static xc_status group_plans(const xc_accel_opts *o, size_t nbins, double T, group_t *g, xc_error *err)
{
    if (!(g->pc = calloc(g->n, sizeof *g->pc)))
        return xc_error_set(err, XC_ENOMEM, "accel sweep: out of memory");
    xc_status st = XC_OK;
    xc_accel_opts big = o[g->member[0]];
    for (; g->made < g->n; g->made++) {
        if ((st = xc_accel_plan_make(&g->pc[g->made], &o[g->member[g->made]], nbins, T, err)))
            return st;
        if (g->pc[g->made].zmax > big.zmax)
            big.zmax = g->pc[g->made].zmax;
        if (g->pc[g->made].numharm > big.numharm)
            big.numharm = g->pc[g->made].numharm;
    }
    if ((st = xc_accel_plan_make(&g->top, &big, nbins, T, err)))
        return st;
    g->have_top = 1;
    for (int q = 0; q < g->top.nstages; q++)
        for (size_t c = 0; c < g->n; c++)
            if (q < g->pc[c].nstages) {
                g->top.thr[q] = fmin(g->top.thr[q], g->pc[c].thr[q]);
                g->top.ntrials[q] = fmin(g->top.ntrials[q], g->pc[c].ntrials[q]);
            }
    return XC_OK;
}

/* The plans and the searcher's state for top. */
static xc_status group_make(const xc_accel_searcher *s, const xc_accel_opts *o, size_t nbins, double T, group_t *g,
                            xc_error *err)
{
    xc_status st = group_plans(o, nbins, T, g, err);
    return !st && s->create ? s->create(s, &g->top, &g->state, err) : st;
}

/* The group's plans for nbins and T, its state kept where the searcher
 * says it serves the new top plan: the templates (a function of z, w and
 * the half-widths alone) are the same when zmax, wmax and acc are. */
static xc_status group_refit(const xc_accel_searcher *s, const xc_accel_opts *o, size_t nbins, double T, group_t *g,
                             xc_error *err)
{
    const xc_accel_plan old = g->top;   /* its hw freed below: only scalars read */
    const int had = g->have_top;
    for (size_t c = 0; c < g->made; c++)
        xc_accel_plan_free(&g->pc[c]);
    free(g->pc);
    g->pc = NULL;
    g->made = 0;
    if (g->have_top)
        xc_accel_plan_free(&g->top);
    g->have_top = 0;
    xc_status st = group_plans(o, nbins, T, g, err);
    if (st)
        return st;
    g->top.progress = old.progress;
    g->top.gate = old.gate;
    const int same = had && old.zmax == g->top.zmax && old.wmax == g->top.wmax && old.o.acc == g->top.o.acc &&
                     old.ntempl == g->top.ntempl && old.hwmax == g->top.hwmax;
    if (g->state && same && s->keeps && s->keeps(s, g->state, &g->top))
        return XC_OK;
    if (g->state && s->destroy)
        s->destroy(s, g->state);
    g->state = NULL;
    return s->create ? s->create(s, &g->top, &g->state, err) : XC_OK;
}

xc_status xc_accel_session_open(const xc_accel_searcher *s, size_t nbins, double T, const xc_accel_opts *o, size_t n,
                                xc_accel_session **ss, xc_error *err)
{
    *ss = NULL;
    if (!s || !s->plane)
        return xc_error_set(err, XC_EINVAL, "accel: no searcher (or one without a plane stage)");
    if (!o || n == 0)
        return xc_error_set(err, XC_EINVAL, "accel sweep: no configurations");
    xc_accel_session *q = calloc(1, sizeof *q);
    if (!q || !(q->g = calloc(n, sizeof *q->g))) {
        free(q);
        return xc_error_set(err, XC_ENOMEM, "accel sweep: out of memory");
    }
    q->s = s;
    q->nbins = nbins;
    q->T = T;
    q->n = n;
    if (!(q->o = malloc(n * sizeof *q->o))) {
        xc_accel_session_close(q);
        return xc_error_set(err, XC_ENOMEM, "accel sweep: out of memory");
    }
    memcpy(q->o, o, n * sizeof *o);
    /* groups: each configuration joins the first earlier one it nests with
     * (preset exact, every option but zmax, numharm and threads equal) */
    xc_status st = XC_OK;
    for (size_t c = 0; c < n && !st; c++) {
        size_t k = 0;
        for (; k < q->ng; k++) {
            const xc_accel_opts *h = &o[q->g[k].member[0]];
            if (h->preset == XC_ACCEL_EXACT && o[c].preset == XC_ACCEL_EXACT && same_but_zh(h, &o[c]))
                break;
        }
        if (k == q->ng) {
            if (!(q->g[k].member = malloc(n * sizeof *q->g[k].member))) {
                st = xc_error_set(err, XC_ENOMEM, "accel sweep: out of memory");
                break;
            }
            q->ng++;
        }
        q->g[k].member[q->g[k].n++] = c;
    }
    for (size_t k = 0; k < q->ng && !st; k++)
        st = group_make(s, o, nbins, T, &q->g[k], err);
    if (st) {
        xc_accel_session_close(q);
        return st;
    }
    *ss = q;
    return XC_OK;
}

void xc_accel_session_progress(xc_accel_session *ss, xc_progress_cb cb)
{
    for (size_t k = 0; ss && k < ss->ng; k++)
        ss->g[k].top.progress = cb;
}

xc_status xc_accel_session_refit(xc_accel_session *ss, size_t nbins, double T, xc_error *err)
{
    if (!ss)
        return xc_error_set(err, XC_EINVAL, "accel sweep: no session");
    if (nbins == ss->nbins && T == ss->T)
        return XC_OK;
    ss->nbins = 0;   /* until every group is made again: fit only for close */
    ss->T = 0;
    xc_status st = XC_OK;
    for (size_t k = 0; k < ss->ng && !st; k++)
        st = group_refit(ss->s, ss->o, nbins, T, &ss->g[k], err);
    if (!st) {
        ss->nbins = nbins;
        ss->T = T;
    }
    return st;
}

int xc_accel_session_gate(xc_accel_session *ss, const xc_devgate *g)
{
    if (!ss || !g || !ss->s->takes_gate)
        return 0;
    for (size_t k = 0; k < ss->ng; k++)
        ss->g[k].top.gate = *g;
    return 1;
}

/* One group's search, cut back to each member's lists. */
static xc_status group_run(group_t *g, const xc_accel_searcher *s, const xc_spectrum *sp, xc_candlist *out,
                           xc_error *err)
{
    xc_accel_peaks all = {0};
    xc_status st = xc_accel_run_peaks(s, g->state, sp, &g->top, &all, err);
    double **sig = st ? NULL : calloc(g->n, sizeof *sig);
    if (!st && !sig)
        st = xc_error_set(err, XC_ENOMEM, "accel sweep: out of memory");
    for (size_t c = 0; c < g->n && !st; c++) {
        if (!(sig[c] = malloc((all.n ? all.n : 1) * sizeof **sig))) {
            st = xc_error_set(err, XC_ENOMEM, "accel sweep: out of memory (%zu peaks)", all.n);
            break;
        }
        enum { NST = sizeof g->top.ntrials / sizeof g->top.ntrials[0] };
        int donor[NST];
        for (int q = 0; q < NST; q++) {
            donor[q] = -1;
            for (size_t d = 0; d < c && donor[q] < 0; d++)
                if (same_stage(&g->pc[c], &g->pc[d], q))
                    donor[q] = (int)d;
        }
        cut_sigmas(&g->pc[c], &all, donor, sig, sig[c]);
        xc_accel_peaks mine = {0};
        st = cut(&g->pc[c], &all, sig[c], &mine, err);
        if (!st)
            st = xc_accel_finish(&g->pc[c], &mine, sp->T, &out[g->member[c]], err);
        xc_accel_peaks_free(&mine);
    }
    for (size_t c = 0; sig && c < g->n; c++)
        free(sig[c]);
    free(sig);
    xc_accel_peaks_free(&all);
    return st;
}

xc_status xc_accel_session_run(xc_accel_session *ss, const xc_spectrum *sp, xc_candlist *out, xc_error *err)
{
    if (!ss || !out)
        return xc_error_set(err, XC_EINVAL, "accel sweep: no session or outputs");
    xc_status st = xc_accel_check(ss->s, sp, err);
    if (st)
        return st;
    if (!xc_accel_session_fits(ss, sp))
        return xc_error_set(err, XC_EINVAL, "accel sweep: a spectrum of %zu bins and T = %.17g s, the session is for "
                            "%zu bins and T = %.17g s", sp->nbins, sp->T, ss->nbins, ss->T);
    for (size_t k = 0; k < ss->ng && !st; k++)
        st = group_run(&ss->g[k], ss->s, sp, out, err);
    return st;
}

xc_status xc_accel_run_sweep(const xc_accel_searcher *s, const xc_spectrum *sp, const xc_accel_opts *o, size_t n,
                             xc_candlist *out, xc_error *err)
{
    if (n == 0)
        return XC_OK;
    xc_status st = xc_accel_check(s, sp, err);
    xc_accel_session *ss = NULL;
    if (!st)
        st = xc_accel_session_open(s, sp->nbins, sp->T, o, n, &ss, err);
    if (!st)
        st = xc_accel_session_run(ss, sp, out, err);
    xc_accel_session_close(ss);
    return st;
}
