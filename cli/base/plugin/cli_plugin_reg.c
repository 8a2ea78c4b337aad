/* A plugin's descriptors registered as crosscheck's own.  The internal
 * descriptor of each is a member of the host's record (impl.data points at
 * the record), so its methods find the plugin's descriptor, its `self` and
 * its file without a table of slots: any number of plugins per family. */
#include "cli/base/plugin/cli_plugin_reg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/plugin/cli_plugin_iso.h"
#include "cli/base/plugin/cli_plugin_view.h"
#include "core/dedisp/approx/xc_ddbound.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/search/xc_search.h"

/* The sizes of the descriptors in the version that introduced them: what
 * a plugin's descriptor must hold at least (a later minor version appends;
 * these stay). */
#define DD_SIZE_2_0 (offsetof(xcp_dedisperser, bound) + sizeof(((xcp_dedisperser *)0)->bound))
#define PS_SIZE_2_0 (offsetof(xcp_searcher, peaks) + sizeof(((xcp_searcher *)0)->peaks))
/* ABI 2.1's single-pulse searcher (the version that introduced it). */
#define SP_SIZE_2_1 (offsetof(xcp_spsearcher, detect) + sizeof(((xcp_spsearcher *)0)->detect))
#define CAPS_KNOWN (XCP_CAP_THREADED | XCP_CAP_DEVICE | XCP_CAP_APPROXIMATE | XCP_CAP_RUNTIME)

/* What every record starts with: the list of them, for xc_cli_plugin_file. */
typedef struct rec {
    const xc_impl *impl;           /* the internal descriptor's head */
    const void *self;              /* the plugin's descriptor, handed to its methods */
    const char *file;
    struct rec *next;
} rec;

typedef struct {
    rec head;
    xc_dedisperser outer;          /* registered; outer.impl.data is this record */
    xcp_dedisperser d;             /* the plugin's descriptor up to its size (members it lacks: 0) */
} ddrec;

typedef struct {
    rec head;
    xc_searcher outer;
    xcp_searcher d;
} psrec;

typedef struct {
    rec head;
    xc_spsearcher outer;
    xcp_spsearcher d;
} sprec;

static rec *recs;

const char *xc_cli_plugin_file(const xc_impl *impl)
{
    for (const rec *r = recs; r; r = r->next)
        if (impl == r->impl)
            return r->file;
    return NULL;
}

/* The members both families' descriptors share, as the family reads them
 * from its record's copy, and the internal head they make. */
typedef struct {
    const char *name, *desc;
    int tol_kind;
    unsigned caps;
    double tol_value;
    xc_family family;
    int (*available)(const xc_impl *self, char *why, size_t n);   /* NULL: always */
} head;

/* One family of descriptors: its name in messages, the size of its
 * descriptor in the ABI version that introduced it, its record (size, where the copy sits, the copy's size), and
 * fill: the head from the record's copy and the internal descriptor's
 * methods (*impl: its head), then the family's own checks. */
typedef struct {
    const char *fam;
    size_t min, recsize, at, have;
    int minor;                     /* the ABI minor version that introduced it */
    void (*fill)(void *rec, head *h, xc_impl **impl);
    xc_status (*check)(const void *rec, const char *file, xc_error *err);
} family;

static xc_status check_head(const char *file, const family *f, size_t size, const head *h, xc_error *err)
{
    const char *fam = f->fam;
    if (size < f->min)
        return xc_error_set(err, XC_EINVAL, "plugin %s: a %s descriptor of %zu bytes; plugin ABI %d.%d's holds %zu "
                            "(set .size = sizeof(xcp_%s))", file, fam, size, XC_PLUGIN_ABI_MAJOR, f->minor, f->min,
                            fam);
    if (!h->name || !h->name[0])
        return xc_error_set(err, XC_EINVAL, "plugin %s: a %s without a name", file, fam);
    if (h->caps & ~(unsigned)CAPS_KNOWN)
        return xc_error_set(err, XC_EINVAL, "plugin %s: %s '%s': caps 0x%x hold bits xc_plugin.h does not define "
                            "(a plugin cannot be a reference: the built-in references define the semantics)", file,
                            fam, h->name, h->caps);
    if (h->tol_kind < XCP_TOL_EXACT || h->tol_kind > XCP_TOL_SIGNAL_LOSS)
        return xc_error_set(err, XC_EINVAL, "plugin %s: %s '%s': tol_kind %d is not an XCP_TOL_ value", file, fam,
                            h->name, h->tol_kind);
    return XC_OK;
}

/* Registers the plugin's descriptor d (size bytes by its own count) of
 * family f as an internal one. */
static xc_status add_desc(xc_registry *reg, const char *file, const family *f, const void *d, size_t size,
                          xc_error *err)
{
    char *mem = d ? calloc(1, f->recsize) : NULL;
    if (!mem)
        return xc_error_set(err, d ? XC_ENOMEM : XC_EINVAL, "plugin %s: add_%s: %s", file, f->fam,
                            d ? "out of memory" : "no descriptor");
    memcpy(mem + f->at, d, size < f->have ? size : f->have);   /* members it lacks stay 0 */
    rec *r = (rec *)(void *)mem;   /* every record's first member */
    r->file = file;
    r->self = d;
    head h;
    xc_impl *impl;
    f->fill(r, &h, &impl);
    *impl = (xc_impl){.family = h.family, .name = h.name, .desc = h.desc ? h.desc : "",
                      .tol = {(xc_tol_kind)h.tol_kind, h.tol_value}, .caps = h.caps | XC_CAP_RUNTIME,
                      .available = h.available, .data = r};
    r->impl = impl;
    xc_status st = check_head(file, f, size, &h, err);
    if (!st)
        st = f->check(r, file, err);
    if (!st) {
        xc_error e;
        if ((st = xc_registry_add(reg, impl, &e)))
            xc_error_set(err, st, "plugin %s: %s", file, e.msg);
    }
    if (st) {
        free(mem);
        return st;
    }
    r->next = recs;
    recs = r;
    return XC_OK;
}

/* A plugin's available(), its reason terminated whatever it wrote. */
static int available(int ok, char *why, size_t n)
{
    if (why && n)
        why[n - 1] = 0;
    return ok;
}

/* ---- dedispersers ---------------------------------------------------------------- */

typedef struct {
    const ddrec *r;
    const xc_ddjob *job;
    xc_plane *out;
} ddcall;

/* run, or plan + execute + destroy (the state lives and dies in the child). */
static xcp_status dd_kernel(const ddrec *r, const xcp_ddjob *job, xcp_plane *out, xcp_error *pe)
{
    if (r->d.run)
        return r->d.run(r->head.self, job, out, pe);
    xcp_ddjob proto = *job;
    proto.nsamp = proto.nout = 0;
    proto.u16 = NULL;
    proto.f32 = NULL;
    void *state = NULL;
    xcp_status st = r->d.plan(r->head.self, &proto, &state, pe);
    if (st)
        return st;
    st = r->d.execute(r->head.self, state, job, out, pe);
    if (r->d.destroy)
        r->d.destroy(r->head.self, state);
    return st;
}

static xc_status dd_call(void *v, xc_error *err)
{
    ddcall *c = v;
    xc_plugin_jobview jv;
    xcp_plane pv;
    xc_status st = xc_plugin_job_view(c->job, &jv, err);
    if (st)
        return st;
    if ((st = xc_plugin_plane_view(c->out, &pv, err))) {
        xc_plugin_job_view_free(&jv);
        return st;
    }
    xcp_error pe = {0};
    st = xc_plugin_error_in(dd_kernel(c->r, &jv.v, &pv, &pe), &pe, c->r->outer.impl.name, err);
    xc_plugin_plane_view_free(&pv);
    xc_plugin_job_view_free(&jv);
    return st;
}

static int dd_send(void *v, int fd)
{
    ddcall *c = v;
    for (int k = 0; k < c->out->nranges; k++) {
        const xc_planerange *r = &c->out->r[k];
        if (xc_plugin_send(fd, r->data, r->ndm * r->nsamp * sizeof(float)))
            return -1;
    }
    return 0;
}

static xc_status dd_recv(void *v, int fd, double deadline, xc_error *err)
{
    ddcall *c = v;
    for (int k = 0; k < c->out->nranges; k++) {
        xc_planerange *r = &c->out->r[k];
        xc_status st = xc_plugin_recv(fd, r->data, r->ndm * r->nsamp * sizeof(float), deadline, err);
        if (st)
            return st;
    }
    return XC_OK;
}

static const xc_plugin_calls dd_calls = {dd_call, dd_send, dd_recv};

static xc_status dd_run(const xc_dedisperser *self, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    const ddrec *r = self->impl.data;
    ddcall c = {r, job, out};
    return xc_plugin_isolate(self->impl.name, r->head.file, "dedispersion", &dd_calls, &c, err);
}

static int dd_available(const xc_impl *self, char *why, size_t n)
{
    const ddrec *r = self->data;
    return available(r->d.available(r->head.self, why, n), why, n);
}

/* The plugin fills arrays crosscheck allocated; they are copied into the
 * internal bound's. */
static xc_status dd_bound(const xc_dedisperser *self, const xc_ddjob *job, xc_ddbound ***out, xc_error *err)
{
    const ddrec *r = self->impl.data;
    int nr = job->plan->nranges;
    xc_ddbound **b = calloc((size_t)nr, sizeof *b);
    xcp_ddbound **pb = calloc((size_t)nr, sizeof *pb);
    xc_status st = b && pb ? XC_OK : xc_error_set(err, XC_ENOMEM, "out of memory for a plugin's bounds");
    for (int k = 0; k < nr && !st; k++) {
        size_t n = job->plan->r[k].ndm ? job->plan->r[k].ndm : 1;
        b[k] = calloc(n, sizeof **b);
        pb[k] = calloc(n, sizeof **pb);
        if (!b[k] || !pb[k])
            st = xc_error_set(err, XC_ENOMEM, "out of memory for a plugin's bounds");
    }
    xc_plugin_jobview jv = {0};
    if (!st && !(st = xc_plugin_job_view(job, &jv, err))) {
        xcp_error pe = {0};
        st = xc_plugin_error_in(r->d.bound(r->head.self, &jv.v, pb, &pe), &pe, self->impl.name, err);
    }
    for (int k = 0; k < nr && !st; k++)
        for (size_t j = 0; j < job->plan->r[k].ndm; j++)
            b[k][j] = (xc_ddbound){pb[k][j].smear, pb[k][j].bound, pb[k][j].nominal};
    for (int k = 0; pb && k < nr; k++)
        free(pb[k]);
    free(pb);
    xc_plugin_job_view_free(&jv);
    if (st) {
        if (b)
            xc_ddbound_free(b, nr);
        return st;
    }
    *out = b;
    return XC_OK;
}

static void dd_fill(void *rec, head *h, xc_impl **impl)
{
    ddrec *r = rec;
    *h = (head){r->d.name, r->d.desc, r->d.tol_kind, r->d.caps, r->d.tol_value, XC_FAMILY_DEDISPERSE,
                r->d.available ? dd_available : NULL};
    *impl = &r->outer.impl;
    r->outer.run = dd_run;
    r->outer.bound = r->d.bound ? dd_bound : NULL;
}

static xc_status dd_check(const void *rec, const char *file, xc_error *err)
{
    const xcp_dedisperser *d = &((const ddrec *)rec)->d;
    if (!d->run && !(d->plan && d->execute))
        return xc_error_set(err, XC_EINVAL, "plugin %s: dedisperser '%s' gives neither run nor plan and execute",
                            file, d->name);
    if (!(d->caps & XCP_CAP_APPROXIMATE) != !d->bound)
        return xc_error_set(err, XC_EINVAL, "plugin %s: dedisperser '%s': %s", file, d->name,
                            d->bound ? "bound is for approximate ones (XCP_CAP_APPROXIMATE)"
                                     : "an approximate one declares its smearing bound (bound)");
    return XC_OK;
}

static const family dd_family = {"dedisperser", DD_SIZE_2_0, sizeof(ddrec), offsetof(ddrec, d),
                                 sizeof(xcp_dedisperser), 0, dd_fill, dd_check};

xc_status xc_plugin_add_dedisperser(xc_registry *reg, const char *file, const xcp_dedisperser *d, xc_error *err)
{
    return add_desc(reg, file, &dd_family, d, d ? d->size : 0, err);
}

/* ---- Pulscan searchers ----------------------------------------------------------------- */

typedef struct {
    const psrec *r;
    const xc_spectrum *sp;
    const xc_psopts *o;
    double *P;
    const double *Pin, *thr;
    xc_pspeaks *pk;
    size_t n0;
} pscall;

/* The powers stage (c->P set) or the peaks stage, in the child. */
static xc_status ps_call(void *v, xc_error *err)
{
    pscall *c = v;
    const psrec *r = c->r;
    xcp_spectrum sv;
    xcp_psopts ov;
    xc_plugin_spectrum_view(c->sp, &sv);
    xc_plugin_psopts_view(c->o, &ov);
    struct xcp_peaks h = {c->pk, r->d.own_powers != 0, c->o->zmax, c->o->numharm, c->sp->nbins};
    xcp_error pe = {0};
    xcp_status st = c->P ? r->d.powers(r->head.self, &sv, &ov, c->P, &pe)
                         : r->d.peaks(r->head.self, &sv, &ov, c->Pin, c->thr, &h, &pe);
    return xc_plugin_error_in(st, &pe, r->outer.impl.name, err);
}

static int pow_send(void *v, int fd)
{
    pscall *c = v;
    return xc_plugin_send(fd, c->P, c->sp->nbins * sizeof(double));
}

static xc_status pow_recv(void *v, int fd, double deadline, xc_error *err)
{
    pscall *c = v;
    return xc_plugin_recv(fd, c->P, c->sp->nbins * sizeof(double), deadline, err);
}

static const xc_plugin_calls pow_calls = {ps_call, pow_send, pow_recv};

/* A list's entries from n0 on, after their count (send), and a list of
 * entries of elem bytes read back into *arr (recv; the caller frees it). */
static int send_tail(int fd, const void *first, size_t n, size_t elem)
{
    uint64_t k = n;
    return xc_plugin_send(fd, &k, sizeof k) || xc_plugin_send(fd, first, n * elem);
}

static xc_status recv_list(int fd, double deadline, size_t elem, const char *who, const char *what, void **arr,
                           size_t *n, xc_error *err)
{
    uint64_t k;
    xc_status st = xc_plugin_recv(fd, &k, sizeof k, deadline, err);
    if (st)
        return st;
    if (k > SIZE_MAX / elem)
        return xc_error_set(err, XC_EIO, "plugin %s: %llu %s", who, (unsigned long long)k, what);
    if (!(*arr = malloc(k ? k * elem : 1)))
        return xc_error_set(err, XC_ENOMEM, "out of memory for %llu %s", (unsigned long long)k, what);
    *n = (size_t)k;
    return xc_plugin_recv(fd, *arr, k * elem, deadline, err);
}

static int peaks_send(void *v, int fd)
{
    pscall *c = v;
    return send_tail(fd, c->pk->p + c->n0, c->pk->n - c->n0, sizeof(xc_pspeak));
}

static xc_status peaks_recv(void *v, int fd, double deadline, xc_error *err)
{
    pscall *c = v;
    xc_pspeaks got = {NULL, 0, 0};
    void *arr = NULL;
    xc_status st = recv_list(fd, deadline, sizeof(xc_pspeak), c->r->outer.impl.name, "peaks", &arr, &got.n, err);
    got.p = arr;
    got.cap = got.n;
    if (!st)
        st = xc_pspeaks_move(c->pk, &got, err);
    xc_pspeaks_free(&got);
    return st;
}

static const xc_plugin_calls peaks_calls = {ps_call, peaks_send, peaks_recv};

static xc_status ps_powers(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, double *P,
                           xc_error *err)
{
    const psrec *r = self->impl.data;
    pscall c = {r, sp, o, P, NULL, NULL, NULL, 0};
    return xc_plugin_isolate(self->impl.name, r->head.file, "powers stage", &pow_calls, &c, err);
}

static xc_status ps_peaks(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                          const double *thr, xc_pspeaks *pk, xc_error *err)
{
    const psrec *r = self->impl.data;
    pscall c = {r, sp, o, NULL, P, thr, pk, pk->n};
    return xc_plugin_isolate(self->impl.name, r->head.file, "peaks stage", &peaks_calls, &c, err);
}

static int ps_available(const xc_impl *self, char *why, size_t n)
{
    const psrec *r = self->data;
    return available(r->d.available(r->head.self, why, n), why, n);
}

static void ps_fill(void *rec, head *h, xc_impl **impl)
{
    psrec *r = rec;
    *h = (head){r->d.name, r->d.desc, r->d.tol_kind, r->d.caps, r->d.tol_value, XC_FAMILY_PULSCAN,
                r->d.available ? ps_available : NULL};
    *impl = &r->outer.impl;
    r->outer.powers = r->d.powers ? ps_powers : NULL;
    r->outer.peaks = ps_peaks;
    r->outer.own_powers = r->d.own_powers != 0;
}

static xc_status ps_check(const void *rec, const char *file, xc_error *err)
{
    const xcp_searcher *s = &((const psrec *)rec)->d;
    if (!s->peaks || (!s->powers && !s->own_powers))
        return xc_error_set(err, XC_EINVAL, "plugin %s: searcher '%s' lacks %s", file, s->name,
                            s->peaks ? "powers (only one with own_powers may)" : "peaks");
    return XC_OK;
}

static const family ps_family = {"searcher", PS_SIZE_2_0, sizeof(psrec), offsetof(psrec, d), sizeof(xcp_searcher),
                                 0, ps_fill, ps_check};

xc_status xc_plugin_add_searcher(xc_registry *reg, const char *file, const xcp_searcher *s, xc_error *err)
{
    return add_desc(reg, file, &ps_family, s, s ? s->size : 0, err);
}

/* ---- single-pulse searchers ------------------------------------------------------------ */

typedef struct {
    const sprec *r;
    const xc_spconf *c;
    const xc_spplane *pl;
    xc_spdets *out;
    size_t n0;
} spcall;

/* detect, in the child. */
static xc_status sp_call(void *v, xc_error *err)
{
    spcall *c = v;
    xcp_spconf cv;
    xcp_spplane pv;
    xc_plugin_spconf_view(c->c, &cv);
    xc_plugin_spplane_view(c->pl, &pv);
    struct xcp_spdets h = {c->out, c->pl->nrows, c->pl->nsamp, c->c->nwidths, c->c->widths};
    xcp_error pe = {0};
    return xc_plugin_error_in(c->r->d.detect(c->r->head.self, &cv, &pv, &h, &pe), &pe, c->r->outer.impl.name, err);
}

static int sp_send(void *v, int fd)
{
    spcall *c = v;
    return send_tail(fd, c->out->d + c->n0, c->out->n - c->n0, sizeof(xc_spdet));
}

static xc_status sp_recv(void *v, int fd, double deadline, xc_error *err)
{
    spcall *c = v;
    xc_spdets got = {NULL, 0, 0};
    void *arr = NULL;
    xc_status st = recv_list(fd, deadline, sizeof(xc_spdet), c->r->outer.impl.name, "detections", &arr, &got.n, err);
    got.d = arr;
    got.cap = got.n;
    if (!st)
        st = xc_spdets_append(c->out, &got, err);
    xc_spdets_free(&got);
    return st;
}

static const xc_plugin_calls sp_calls = {sp_call, sp_send, sp_recv};

static xc_status sp_execute(const xc_spsearcher *self, void *state, const xc_spconf *c, const xc_spplane *pl,
                            xc_spdets *out, xc_error *err)
{
    (void)state;
    const sprec *r = self->impl.data;
    if (pl->device)
        return xc_error_set(err, XC_EINVAL, "%s: the plane is in device memory (a plugin's searcher takes host "
                            "planes)", self->impl.name);
    spcall call = {r, c, pl, out, out->n};
    return xc_plugin_isolate(self->impl.name, r->head.file, "single-pulse search", &sp_calls, &call, err);
}

static int sp_available(const xc_impl *self, char *why, size_t n)
{
    const sprec *r = self->data;
    return available(r->d.available(r->head.self, why, n), why, n);
}

static void sp_fill(void *rec, head *h, xc_impl **impl)
{
    sprec *r = rec;
    *h = (head){r->d.name, r->d.desc, r->d.tol_kind, r->d.caps, r->d.tol_value, XC_FAMILY_SINGLEPULSE,
                r->d.available ? sp_available : NULL};
    *impl = &r->outer.impl;
    r->outer.execute = sp_execute;
    r->outer.row_stats = r->d.row_stats != 0;   /* 0 for a descriptor of ABI 2.1 (members it lacks read 0) */
}

static xc_status sp_check(const void *rec, const char *file, xc_error *err)
{
    const xcp_spsearcher *s = &((const sprec *)rec)->d;
    if (!s->detect)
        return xc_error_set(err, XC_EINVAL, "plugin %s: single-pulse searcher '%s' lacks detect", file, s->name);
    if ((s->caps & XCP_CAP_APPROXIMATE) || (s->tol_kind != XCP_TOL_EXACT && s->tol_kind != XCP_TOL_ROUNDING))
        return xc_error_set(err, XC_EINVAL, "plugin %s: single-pulse searcher '%s': tol_kind %d, caps 0x%x: one is "
                            "XCP_TOL_EXACT or XCP_TOL_ROUNDING and never approximate", file, s->name, s->tol_kind,
                            s->caps);
    return XC_OK;
}

static const family sp_family = {"spsearcher", SP_SIZE_2_1, sizeof(sprec), offsetof(sprec, d),
                                 sizeof(xcp_spsearcher), 1, sp_fill, sp_check};

xc_status xc_plugin_add_spsearcher(xc_registry *reg, const char *file, const xcp_spsearcher *s, xc_error *err)
{
    return add_desc(reg, file, &sp_family, s, s ? s->size : 0, err);
}
