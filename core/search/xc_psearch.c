/* The periodicity-search contract (core/search/xc_psearch.h): the calls go
 * by the implementation's family to that family's sessions, through one
 * table (fams below), so that no caller has to tell the families apart. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/xc_psearch.h"

struct xc_psearch {
    const struct fam *f;
    size_t n;
    size_t nbins;
    double T;
    void **ss;             /* the family's sessions: Pulscan one per configuration, accel one */
    size_t nss;
};

/* What a family supplies: its options' defaults and checks, where the
 * options every family has lie in them (offsets into the family's member of
 * the union), and its sessions' open (of the n configurations, into
 * ss[0..nss-1]), run, fit and close. */
struct fam {
    xc_family family;
    int joint;             /* configurations searched as one (xc_psearch_joint) */
    void (*defaults)(xc_psearch_opts *o);
    xc_status (*check)(const xc_psearch_opts *o, xc_error *err);
    size_t zmax, numharm, sigma, threads, flo, rednoise;
    xc_status (*open)(xc_psearch *s, const xc_impl *impl, const xc_psearch_opts *o, xc_error *err);
    xc_status (*run)(xc_psearch *s, const xc_spectrum *sp, xc_candlist *out, xc_error *err);
    int (*fits)(const xc_psearch *s, const xc_spectrum *sp);
    void (*close)(void *session);
    void (*progress)(void *session, xc_progress_cb cb);
    xc_status (*refit)(void *session, size_t nbins, double T, xc_error *err);
    int (*gate)(void *session, const xc_devgate *g);
};

/* ---- Pulscan: a session per configuration ----------------------------------- */

static void ps_defaults(xc_psearch_opts *o) { xc_psopts_default(&o->ps); }
static xc_status ps_check(const xc_psearch_opts *o, xc_error *err) { return xc_psopts_check(&o->ps, err); }

static xc_status ps_open(xc_psearch *s, const xc_impl *impl, const xc_psearch_opts *o, xc_error *err)
{
    xc_status st = XC_OK;
    while (s->nss < s->n && !st) {
        xc_pulscan_session *q = NULL;
        st = xc_pulscan_session_open(xc_searcher_of(impl), s->nbins, &o[s->nss].ps, &q, err);
        s->ss[s->nss++] = q;
    }
    return st;
}

static xc_status ps_run(xc_psearch *s, const xc_spectrum *sp, xc_candlist *out, xc_error *err)
{
    xc_status st = XC_OK;
    for (size_t c = 0; c < s->n && !st; c++)
        st = xc_pulscan_session_run(s->ss[c], sp, &out[c], err);
    return st;
}

/* The Pulscan search does not depend on T (its frequencies take the
 * spectrum's own). */
static int ps_fits(const xc_psearch *s, const xc_spectrum *sp) { return sp->nbins == s->nbins; }

static void ps_close(void *ss) { xc_pulscan_session_close(ss); }
static void ps_progress(void *ss, xc_progress_cb cb) { xc_pulscan_session_progress(ss, cb); }
static xc_status ps_refit(void *ss, size_t nbins, double T, xc_error *err)
{
    (void)T;
    return xc_pulscan_session_refit(ss, nbins, err);
}
/* A Pulscan searcher's device memory is its kept plan's: no slot. */
static int ps_gate(void *ss, const xc_devgate *g)
{
    (void)ss;
    (void)g;
    return 0;
}

/* ---- accel: one session over every configuration (a sweep) -------------------- */

static void ac_defaults(xc_psearch_opts *o) { xc_accel_opts_default(&o->ac); }
static xc_status ac_check(const xc_psearch_opts *o, xc_error *err) { return xc_accel_opts_check(&o->ac, err); }

static xc_status ac_open(xc_psearch *s, const xc_impl *impl, const xc_psearch_opts *o, xc_error *err)
{
    xc_accel_opts *ao = malloc(s->n * sizeof *ao);
    if (!ao)
        return xc_error_set(err, XC_ENOMEM, "accel sweep: out of memory");
    for (size_t c = 0; c < s->n; c++)
        ao[c] = o[c].ac;
    xc_accel_session *q = NULL;
    xc_status st = xc_accel_session_open(xc_accel_searcher_of(impl), s->nbins, s->T, ao, s->n, &q, err);
    s->ss[s->nss++] = q;
    free(ao);
    return st;
}

static xc_status ac_run(xc_psearch *s, const xc_spectrum *sp, xc_candlist *out, xc_error *err)
{
    return xc_accel_session_run(s->ss[0], sp, out, err);
}

static int ac_fits(const xc_psearch *s, const xc_spectrum *sp) { return xc_accel_session_fits(s->ss[0], sp); }

static void ac_close(void *ss) { xc_accel_session_close(ss); }
static void ac_progress(void *ss, xc_progress_cb cb) { xc_accel_session_progress(ss, cb); }
static xc_status ac_refit(void *ss, size_t nbins, double T, xc_error *err)
{
    return xc_accel_session_refit(ss, nbins, T, err);
}
static int ac_gate(void *ss, const xc_devgate *g) { return xc_accel_session_gate(ss, g); }

/* The common options have these types in every family's options. */
#define IS(type, T, name) _Generic(((T *)0)->name, type: 1, default: 0)
#define TYPED(T)                                                                                              \
    (IS(int, T, zmax) && IS(int, T, numharm) && IS(double, T, sigma) && IS(int, T, threads) &&              \
     IS(double, T, flo) && IS(int, T, rednoise))
_Static_assert(TYPED(xc_psopts) && TYPED(xc_accel_opts), "zmax, numharm, threads, rednoise int; sigma, flo double");
#undef TYPED
#undef IS

#define FIELDS(T)                                                                                             \
    offsetof(T, zmax), offsetof(T, numharm), offsetof(T, sigma), offsetof(T, threads), offsetof(T, flo),      \
        offsetof(T, rednoise)
static const struct fam fams[] = {
    {XC_FAMILY_PULSCAN, 0, ps_defaults, ps_check, FIELDS(xc_psopts), ps_open, ps_run, ps_fits, ps_close,
     ps_progress, ps_refit, ps_gate},
    {XC_FAMILY_ACCEL, 1, ac_defaults, ac_check, FIELDS(xc_accel_opts), ac_open, ac_run, ac_fits, ac_close,
     ac_progress, ac_refit, ac_gate},
};
#undef FIELDS

static const struct fam *fam_of(xc_family f)
{
    for (size_t k = 0; k < sizeof fams / sizeof fams[0]; k++)
        if (fams[k].family == f)
            return &fams[k];
    return NULL;
}

/* ---- options ------------------------------------------------------------------ */

void xc_psearch_opts_default(xc_psearch_opts *o, xc_family family)
{
    memset(o, 0, sizeof *o);
    o->family = family;
    const struct fam *f = fam_of(family);
    if (f)
        f->defaults(o);
}

xc_status xc_psearch_opts_check(const xc_psearch_opts *o, xc_error *err)
{
    const struct fam *f = fam_of(o->family);
    if (!f)
        return xc_error_set(err, XC_EINVAL, "options of family %d: not a periodicity search", (int)o->family);
    return f->check(o, err);
}

/* The family's member of the union holding a common option (every member
 * starts where the union does). */
#define FIELD(type, o, f, name) ((type *)((char *)&(o)->ps + (f)->name))
#define CFIELD(type, o, f, name) (*(const type *)((const char *)&(o)->ps + (f)->name))

void xc_psearch_opts_set(xc_psearch_opts *o, int zmax, int numharm, double sigma)
{
    const struct fam *f = fam_of(o->family);
    if (!f)
        return;
    *FIELD(int, o, f, zmax) = zmax;
    *FIELD(int, o, f, numharm) = numharm;
    *FIELD(double, o, f, sigma) = sigma;
}

void xc_psearch_opts_get(const xc_psearch_opts *o, int *zmax, int *numharm, double *sigma)
{
    const struct fam *f = fam_of(o->family);
    if (zmax)
        *zmax = f ? CFIELD(int, o, f, zmax) : 0;
    if (numharm)
        *numharm = f ? CFIELD(int, o, f, numharm) : 0;
    if (sigma)
        *sigma = f ? CFIELD(double, o, f, sigma) : 0;
}

void xc_psearch_opts_threads(xc_psearch_opts *o, int threads)
{
    const struct fam *f = fam_of(o->family);
    if (f)
        *FIELD(int, o, f, threads) = threads;
}

void xc_psearch_opts_lowfreq(xc_psearch_opts *o, double flo, int rednoise)
{
    const struct fam *f = fam_of(o->family);
    if (!f)
        return;
    *FIELD(double, o, f, flo) = flo;
    *FIELD(int, o, f, rednoise) = rednoise;
}

#undef FIELD
#undef CFIELD

/* ---- searches ------------------------------------------------------------------- */

int xc_psearch_joint(const xc_impl *impl, size_t n)
{
    const struct fam *f = impl ? fam_of(impl->family) : NULL;
    return f && f->joint && n > 1;
}

void xc_psearch_close(xc_psearch *s)
{
    if (!s)
        return;
    for (size_t k = 0; k < s->nss; k++)
        s->f->close(s->ss[k]);
    free(s->ss);
    free(s);
}

xc_status xc_psearch_open(xc_psearch **s, const xc_impl *impl, size_t nbins, double T, const xc_psearch_opts *o,
                          size_t n, xc_error *err)
{
    *s = NULL;
    const struct fam *f = impl ? fam_of(impl->family) : NULL;
    if (!f)
        return xc_error_set(err, XC_EINVAL, "%s: not a periodicity searcher (family %s)",
                            impl ? impl->name : "(none)", impl ? xc_family_name(impl->family) : "-");
    if (!o || n == 0)
        return xc_error_set(err, XC_EINVAL, "%s: no configurations to search", impl->name);
    for (size_t c = 0; c < n; c++)
        if (o[c].family != impl->family)
            return xc_error_set(err, XC_EINVAL, "%s: configuration %zu holds options of another family than %s",
                                impl->name, c, xc_family_name(impl->family));
    xc_psearch *q = calloc(1, sizeof *q);
    if (!q || !(q->ss = calloc(n, sizeof *q->ss))) {
        free(q);
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", impl->name);
    }
    q->f = f;
    q->n = n;
    q->nbins = nbins;
    q->T = T;
    xc_status st = f->open(q, impl, o, err);
    if (st) {
        xc_psearch_close(q);
        return st;
    }
    *s = q;
    return XC_OK;
}

int xc_psearch_fits(const xc_psearch *s, const xc_spectrum *sp) { return s && sp && s->f->fits(s, sp); }

xc_status xc_psearch_refit(xc_psearch *s, const xc_spectrum *sp, xc_error *err)
{
    if (!s || !sp)
        return xc_error_set(err, XC_EINVAL, "periodicity search: no search or spectrum");
    if (s->f->fits(s, sp))
        return XC_OK;
    s->nbins = 0;   /* until every session is made again: fit only for close */
    xc_status st = XC_OK;
    for (size_t k = 0; k < s->nss && !st; k++)
        st = s->f->refit(s->ss[k], sp->nbins, sp->T, err);
    if (!st) {
        s->nbins = sp->nbins;
        s->T = sp->T;
    }
    return st;
}

int xc_psearch_gate(xc_psearch *s, const xc_devgate *g)
{
    int taken = s && s->nss > 0;
    for (size_t k = 0; s && k < s->nss; k++)
        taken &= s->f->gate(s->ss[k], g);
    return taken;
}

void xc_psearch_progress(xc_psearch *s, xc_progress_cb cb)
{
    for (size_t k = 0; s && k < s->nss; k++)
        s->f->progress(s->ss[k], cb);
}

xc_status xc_psearch_run(xc_psearch *s, const xc_spectrum *sp, xc_candlist *out, xc_error *err)
{
    if (!s || !out)
        return xc_error_set(err, XC_EINVAL, "periodicity search: no search or outputs");
    return s->f->run(s, sp, out, err);
}

xc_status xc_psearch_memory(const xc_impl *impl, size_t nbins, double T, const xc_psearch_opts *o, size_t n,
                            double *bytes, xc_error *err)
{
    *bytes = 0;
    for (size_t c = 0; c < n; c++) {
        double b = 0;
        if (!impl || o[c].family != impl->family)
            return xc_error_set(err, XC_EINVAL, "%s: configuration %zu is not of its family",
                                impl ? impl->name : "(none)", c);
        if (impl->family == XC_FAMILY_PULSCAN) {
            b = xc_pulscan_memory(xc_searcher_of(impl), nbins, &o[c].ps);
        } else {
            xc_accel_plan p;
            xc_status st = xc_accel_plan_make(&p, &o[c].ac, nbins, T, err);
            if (st)
                return st;
            b = xc_accel_memory(xc_accel_searcher_of(impl), &p);
            xc_accel_plan_free(&p);
        }
        if (b > *bytes)
            *bytes = b;
    }
    return XC_OK;
}

xc_status xc_psearch_once(const xc_impl *impl, const xc_spectrum *sp, const xc_psearch_opts *o, size_t n,
                          xc_candlist *out, xc_error *err)
{
    if (!sp)
        return xc_error_set(err, XC_EINVAL, "periodicity search: no spectrum");
    xc_psearch *s = NULL;
    xc_status st = xc_psearch_open(&s, impl, sp->nbins, sp->T, o, n, err);
    if (!st)
        st = xc_psearch_run(s, sp, out, err);
    xc_psearch_close(s);
    return st;
}
