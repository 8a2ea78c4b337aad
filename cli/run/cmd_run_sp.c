/* crosscheck run: the single-pulse search by every single-pulse searcher of
 * a synthetic observation's reference plane (each injected pulse must be
 * found, compare/check/check_sp.c), of a real file's reference plane and of a
 * PRESTO series (each declared burst must be found, compare/check/xc_known.h); each
 * list must equal the reference searcher's. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run/run.h"
#include "compare/check/xc_checks.h"
#include "core/base/xc_fmt.h"
#include "core/io/xc_presto.h"
#include "core/sp/xc_spsearch.h"

/* S/N of a searcher against the reference's: the same formula over double
 * prefix sums of at most a few million float samples, so a relative 1e-9 is
 * thousands of times the rounding bound (docs/SINGLEPULSE.md). */
#define RUN_SP_RTOL 1e-9

/* The widest box of a real file's search: 50 ms, wider than the published
 * widths of the bursts and pulses declared, and narrow enough that Heimdall's
 * friends of friends (three widths) does not join pulses a period apart. */
#define RUN_SP_REAL_WMAX_S 0.05

/* What a searcher's list is judged on besides the reference's list. */
typedef void (*sp_judge_fn)(runctx *c, const char *obs, const char *impl, const xc_spcandlist *l, const void *user);

/* Every wanted single-pulse searcher over the views v[0..nv) (trials dms,
 * series sample tsamp) under o: a row for a search that fails, each list
 * after the reference's against it, then judge's rows.  Returns how many
 * lists were judged. */
static int sp_searches(runctx *c, const char *obs, const xc_spplane *v, int nv, double tsamp, const double *dms,
                        size_t ndms, const xc_spopts *o, sp_judge_fn judge, const void *user)
{
    xc_spcandlist want;
    xc_spcandlist_init(&want);
    int have_ref = 0, judged = 0;
    size_t i = 0;
    const xc_impl *im;
    while ((im = run_next_impl(c, obs, "single-pulse search", XC_FAMILY_SINGLEPULSE, &i))) {
        xc_spcandlist l;
        xc_spcandlist_init(&l);
        xc_error e;
        xc_error_clear(&e);
        if (xc_sp_search(xc_spsearcher_of(im), o, v, nv, tsamp, dms, ndms, &l, &e)) {
            xc_vd_fail(&c->vd, obs, im->name, "single-pulse search", e.msg, "runs without error");
            xc_vd_emit(&c->vd);
            continue;
        }
        l.tsamp = tsamp;
        if (!have_ref && (im->caps & XC_CAP_REFERENCE))
            have_ref = 1;
        else if (have_ref)
            xc_vd_note(&c->vd, xc_check_sp_same(&c->vd.rows, obs, im->name, &l, &want, RUN_SP_RTOL, &e), &e);
        judge(c, obs, im->name, &l, user);
        judged++;
        xc_vd_emit(&c->vd);
        if (have_ref && !want.c && (im->caps & XC_CAP_REFERENCE))
            want = l;
        else
            xc_spcandlist_free(&l);
    }
    xc_spcandlist_free(&want);
    return judged;
}

/* The memory a search of the views v[0..nv) needs: the plane it searches
 * and each thread's scratch (xc_sp_search_memory); the other planes the
 * dedispersion holds are said by its own line.  Under -max_memory, fewer
 * threads when all of them do not fit (the lists do not depend on the
 * count); when one does not, a failed row (run_memory).  Non-zero: no
 * search. */
static int sp_memory(runctx *c, const char *obs, const xc_spplane *v, int nv, xc_spopts *o)
{
    int nth = o->threads > 0 ? o->threads : omp_get_max_threads();
    double one = xc_sp_search_memory(o, v, nv, 1), plane = 0;
    for (int k = 0; k < nv; k++)
        plane += (double)v[k].nrows * (double)v[k].stride * sizeof(float);
    if (c->max_memory > 0 && plane + nth * one > c->max_memory && nth > 1) {
        double room = (c->max_memory - plane) / one;
        nth = room < 1 ? 1 : room < nth ? (int)room : nth;
        o->threads = nth;
    }
    char what[96], b[32], p[32];
    xc_fmt_bytes(b, sizeof b, plane);
    xc_fmt_bytes(p, sizeof p, one);
    xc_fmt(what, sizeof what, "the plane's %s, %d thread%s of %s", b, nth, nth > 1 ? "s" : "", p);
    return run_memory(c, obs, "single-pulse search", plane + nth * one, what);
}

/* sp_searches over the ranges of a plane (ref's); its count. */
static int sp_plane(runctx *c, const char *obs, const planerun *ref, const xc_spopts *o, sp_judge_fn judge,
                    const void *user)
{
    int judged = 0;
    const xc_planefile *pf = &ref->pf;
    size_t ndms = xc_dmplan_ndm(&pf->plan);
    double *dms = malloc((ndms ? ndms : 1) * sizeof *dms);
    xc_spplane *v = calloc((size_t)(pf->plane.nranges ? pf->plane.nranges : 1), sizeof *v);
    if (!dms || !v)
        xc_vd_fail(&c->vd, obs, "-", "single-pulse search", "out of memory for the DM trials", "runs without error");
    else {
        xc_spplane_views(&pf->plan, &pf->plane, pf->meta.tsamp, v, dms);
        xc_spopts fit = *o;
        if (!sp_memory(c, obs, v, pf->plane.nranges, &fit))
            judged = sp_searches(c, obs, v, pf->plane.nranges, pf->meta.tsamp, dms, ndms, &fit, judge, user);
    }
    xc_vd_emit(&c->vd);
    free(dms);
    free(v);
    return judged;
}

typedef struct {
    const xc_dmplan *plan;
    const xc_synth_params *sp;
} pulses_user;

static void judge_pulses(runctx *c, const char *obs, const char *impl, const xc_spcandlist *l, const void *user)
{
    const pulses_user *u = user;
    xc_error e;
    for (size_t p = 0; p < u->sp->npulses; p++) {
        const xc_synth_pulse *pu = &u->sp->pulses[p];
        xc_pulse_truth t;
        xc_pulse_truth_init(&t, p, pu->t_s, pu->dm, pu->width_ms * 1e-3, pu->snr, l->tsamp);
        xc_vd_note(&c->vd, xc_check_sp_pulse(&c->vd.rows, obs, impl, l, u->plan, &t, &e), &e);
    }
}

void run_singlepulse(runctx *c, const char *obs, const planerun *ref, const xc_synth_params *sp)
{
    xc_spopts o;
    xc_spopts_default(&o, XC_SP_HEIMDALL);
    /* The widest box twice the widest pulse: Heimdall's friends of friends
     * joins boxes within three widths, so the default 4096-sample box would
     * join pulses a second apart into one cluster (docs/SINGLEPULSE.md). */
    double wmax = 4 * ref->pf.meta.tsamp;
    for (size_t p = 0; p < sp->npulses; p++)
        if (2e-3 * sp->pulses[p].width_ms > wmax)
            wmax = 2e-3 * sp->pulses[p].width_ms;
    o.wmax_s = wmax;
    o.threads = c->threads;
    pulses_user u = {&ref->pf.plan, sp};
    sp_plane(c, obs, ref, &o, judge_pulses, &u);
}

typedef struct {
    const xc_dmplan *plan;    /* NULL: a series of one DM */
    const xc_known *k;
    size_t nk;
} known_user;

static void judge_known(runctx *c, const char *obs, const char *impl, const xc_spcandlist *l, const void *user)
{
    const known_user *u = user;
    xc_error e;
    for (size_t j = 0; j < u->nk; j++)
        if (u->k[j].kind == XC_KNOWN_BURST)
            xc_vd_note(&c->vd, xc_check_known_sp(&c->vd.rows, obs, impl, l, u->plan, &u->k[j], &e), &e);
}

static size_t count_bursts(const xc_known *k, size_t nk)
{
    size_t n = 0;
    for (size_t j = 0; j < nk; j++)
        n += k[j].kind == XC_KNOWN_BURST;
    return n;
}

/* The bursts of k[0..nk) as skipped rows, where no searcher judged them. */
static void skip_bursts(runctx *c, const char *obs, const xc_known *k, size_t nk)
{
    xc_error e;
    for (size_t j = 0; j < nk; j++)
        if (k[j].kind == XC_KNOWN_BURST)
            xc_vd_note(&c->vd, xc_check_known_burst(&c->vd.rows, obs, &k[j], &e), &e);
    xc_vd_emit(&c->vd);
}

static void real_opts(const runctx *c, xc_spopts *o)
{
    xc_spopts_default(o, XC_SP_HEIMDALL);
    o->wmax_s = RUN_SP_REAL_WMAX_S;
    o->threads = c->threads;
}

void run_sp_known(runctx *c, const char *obs, const planerun *ref, const xc_known *k, size_t nk)
{
    if (!count_bursts(k, nk))
        return;
    xc_spopts o;
    real_opts(c, &o);
    known_user u = {&ref->pf.plan, k, nk};
    if (!sp_plane(c, obs, ref, &o, judge_known, &u))
        skip_bursts(c, obs, k, nk);
}

void run_sp_series(runctx *c, const char *obs, const char *fftpath, const xc_known *k, size_t nk)
{
    if (!count_bursts(k, nk))
        return;
    char base[4600], path[4700];
    size_t len = strlen(fftpath);
    xc_fmt(base, sizeof base, "%.*s", (int)(len > 4 && !strcmp(fftpath + len - 4, ".fft") ? len - 4 : len),
           fftpath);
    xc_inf inf;
    float *x = NULL;
    size_t n = 0;
    xc_error e;
    xc_fmt(path, sizeof path, "%s.inf", base);
    xc_status st = xc_inf_read(&inf, path, &e);
    if (!st) {
        xc_fmt(path, sizeof path, "%s.dat", base);
        st = xc_dat_read(path, &x, &n, &e);
    }
    if (st) {
        xc_vd_fail(&c->vd, obs, "-", "the series of the declared bursts (BASE.dat, BASE.inf beside the .fft)", e.msg,
                   "readable");
        xc_vd_emit(&c->vd);
        return;
    }
    char line[4800];
    xc_fmt(line, sizeof line, "single-pulse search of the series %s.dat (%zu samples of %g s, DM %g)",
           run_shown_path(c, base), n, inf.dt, inf.dm);
    xc_vd_text(&c->vd, line);
    double dm = inf.dm;
    xc_spplane v = {x, 1, n, n, 0, inf.dt, 1, 0, &dm};
    xc_spopts o;
    real_opts(c, &o);
    known_user u = {NULL, k, nk};
    if (sp_memory(c, obs, &v, 1, &o) || !sp_searches(c, obs, &v, 1, inf.dt, &dm, 1, &o, judge_known, &u))
        skip_bursts(c, obs, k, nk);
    xc_vd_emit(&c->vd);
    free(x);
}
