/* Plugins: dlopen, the ABI check, registration, and the child process with
 * a time limit that every call into a plugin's kernel runs in (so a plugin
 * that crashes or hangs becomes an error message, never the end of the
 * process).
 *
 * Each registered plugin implementation gets a record of the host's own
 * (ddslot, psslot below) that its descriptor's data points at, so one set
 * of methods serves every plugin. */
#include "cli/cli_plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/xc_plugin.h"

/* ---- the queue of -plugin arguments --------------------------------------- */

#define MAXQUEUED 16
static const char *queued[MAXQUEUED];
static int nqueued;

int xc_cli_plugin_queued(void) { return nqueued > 0; }

int xc_cli_plugin_args(const char *cmd, int *argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (!strcmp(a, "--")) {   /* everything after is positional */
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        const char *name = a[0] == '-' ? (a[1] == '-' ? a + 2 : a + 1) : NULL;
        if (name && !strncmp(name, "plugin", 6) && (name[6] == 0 || name[6] == '=')) {
            if (name[6] == '=') {
                val = name + 7;
            } else if (i + 1 < *argc) {
                val = argv[++i];
            } else {
                fprintf(stderr, "crosscheck %s: option -plugin needs a value (a plugin's .so file)\n", cmd);
                return 2;
            }
            if (nqueued == MAXQUEUED) {
                fprintf(stderr, "crosscheck %s: -plugin: more than %d plugins\n", cmd, MAXQUEUED);
                return 2;
            }
            queued[nqueued++] = val;
            continue;
        }
        argv[out++] = argv[i];
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

void xc_cli_common_help(void)
{
    printf("\noptions every command takes:\n"
           "  -plugin LIB.so  load a plugin's implementations (core/xc_plugin.h; repeatable; also the\n"
           "                  colon-separated list CROSSCHECK_PLUGINS); each call into a plugin runs in a\n"
           "                  child process limited to CROSSCHECK_PLUGIN_TIMEOUT seconds (default 60)\n");
}

/* ---- isolation --------------------------------------------------------------- */

static double timeout_seconds(void)
{
    const char *s = getenv("CROSSCHECK_PLUGIN_TIMEOUT");
    char *end;
    double t = s ? strtod(s, &end) : 0;
    return s && end != s && !*end && t > 0 && isfinite(t) ? t : 60.0;
}

static int isolated(void)
{
    const char *s = getenv("CROSSCHECK_PLUGIN_ISOLATE");
    return !(s && !strcmp(s, "0"));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One call into a plugin: call runs the plugin's code (in the child, or
 * in-process without isolation), send writes its results to the pipe (in
 * the child), recv reads them back into the caller's outputs. */
typedef struct {
    xc_status (*call)(void *ctx, xc_error *err);
    int (*send)(void *ctx, int fd);
    xc_status (*recv)(void *ctx, int fd, double deadline, xc_error *err);
} isocalls;

/* The child's writes: whole buffers, retrying short writes. */
static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads n bytes before the deadline: 0, 1 at end of file (the child died),
 * 2 past the deadline, -1 on a read error. */
static int read_all(int fd, void *buf, size_t n, double deadline)
{
    char *p = buf;
    while (n > 0) {
        double left = deadline - now_s();
        if (left <= 0)
            return 2;
        struct pollfd pf = {fd, POLLIN, 0};
        int r = poll(&pf, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return 2;
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            return 1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

/* Set by the recv functions when read_all did not return 0. */
static int recv_rc;

static xc_status recv_bytes(int fd, void *buf, size_t n, double deadline, xc_error *err)
{
    recv_rc = read_all(fd, buf, n, deadline);
    return recv_rc ? xc_error_set(err, XC_EIO, "the plugin's results were cut short") : XC_OK;
}

static xc_status isolate(const char *impl, const char *file, const char *what, const isocalls *ic, void *ctx,
                         xc_error *err)
{
    if (!isolated())
        return ic->call(ctx, err);
    double limit = timeout_seconds();
    int fd[2];
    if (pipe(fd))
        return xc_error_set(err, XC_EIO, "plugin %s: pipe: %s", impl, strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return xc_error_set(err, XC_EIO, "plugin %s: fork: %s", impl, strerror(errno));
    }
    if (pid == 0) {
        /* The child: the parent's signal handler would remove the parent's
         * temporaries; the child has none. */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        /* A fault in the plugin ends the child by its signal, named in the
         * message, also under a sanitizer that would catch it otherwise. */
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        signal(SIGFPE, SIG_DFL);
        signal(SIGILL, SIG_DFL);
        close(fd[0]);
        xc_error e;
        memset(&e, 0, sizeof e);
        e.code = ic->call(ctx, &e);
        if (e.code && !e.msg[0])
            snprintf(e.msg, sizeof e.msg, "%s (no message)", xc_strerror(e.code));
        int bad = write_all(fd[1], &e, sizeof e) || (e.code == XC_OK && ic->send(ctx, fd[1]));
        close(fd[1]);
        _exit(bad ? 3 : 0);
    }
    close(fd[1]);
    double deadline = now_s() + limit;
    xc_error ce;
    recv_rc = read_all(fd[0], &ce, sizeof ce, deadline);
    xc_status st = XC_OK;
    if (recv_rc == 0) {
        ce.msg[sizeof ce.msg - 1] = 0;
        if (ce.code != XC_OK)
            st = xc_error_set(err, ce.code, "%s", ce.msg);
        else
            st = ic->recv(ctx, fd[0], deadline, err);
    }
    int timed_out = recv_rc == 2;
    if (timed_out)
        kill(pid, SIGKILL);
    close(fd[0]);
    int status = 0;
    /* The child has sent everything (or was killed): it ends at once. */
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (timed_out)
        return xc_error_set(err, XC_EIO, "plugin %s (%s) did not finish its %s within %g s "
                            "(CROSSCHECK_PLUGIN_TIMEOUT); killed", impl, file, what, limit);
    if (WIFSIGNALED(status))
        return xc_error_set(err, XC_EIO, "plugin %s (%s) crashed in its %s: killed by signal %d (%s)", impl, file,
                            what, WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (recv_rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return xc_error_set(err, XC_EIO, "plugin %s (%s): its %s ended without its results (exit status %d)", impl,
                            file, what, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return st;
}

/* ---- dedispersers -------------------------------------------------------------- */

/* The host's descriptor of a plugin's implementation: every call goes to
 * the plugin's own descriptor (inner) in a child process.  outer.impl.data
 * points back at the record, so one set of functions serves every plugin.
 * Records live as long as the process (the registry points into them),
 * chained from the lists below. */
typedef struct ddslot {
    xc_dedisperser outer;
    const xc_dedisperser *inner;
    const char *file;
    struct ddslot *next;
} ddslot;

typedef struct psslot {
    xc_searcher outer;
    const xc_searcher *inner;
    const char *file;
    struct psslot *next;
} psslot;

static ddslot *dds;
static psslot *pss;

typedef struct {
    const ddslot *s;
    const xc_ddjob *job;
    xc_plane *out;
} ddcall;

static xc_status dd_call(void *v, xc_error *err)
{
    ddcall *c = v;
    const xc_dedisperser *in = c->s->inner;
    if (in->run)
        return in->run(in, c->job, c->out, err);
    xc_ddjob proto = *c->job;
    proto.in = NULL;
    void *state = NULL;
    xc_status st = in->plan(in, &proto, &state, err);
    if (st)
        return st;
    st = in->execute(in, state, c->job, c->out, err);
    if (in->destroy)
        in->destroy(in, state);
    return st;
}

static int dd_send(void *v, int fd)
{
    ddcall *c = v;
    for (int k = 0; k < c->out->nranges; k++) {
        const xc_planerange *r = &c->out->r[k];
        if (write_all(fd, r->data, r->ndm * r->nsamp * sizeof(float)))
            return -1;
    }
    return 0;
}

static xc_status dd_recv(void *v, int fd, double deadline, xc_error *err)
{
    ddcall *c = v;
    for (int k = 0; k < c->out->nranges; k++) {
        xc_planerange *r = &c->out->r[k];
        xc_status st = recv_bytes(fd, r->data, r->ndm * r->nsamp * sizeof(float), deadline, err);
        if (st)
            return st;
    }
    return XC_OK;
}

static const isocalls dd_calls = {dd_call, dd_send, dd_recv};

static xc_status dd_run(const xc_dedisperser *self, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    const ddslot *s = self->impl.data;
    ddcall c = {s, job, out};
    return isolate(s->outer.impl.name, s->file, "dedispersion", &dd_calls, &c, err);
}

static xc_status dd_bound(const xc_dedisperser *self, const xc_ddjob *job, xc_ddbound ***b, xc_error *err)
{
    const ddslot *s = self->impl.data;
    return s->inner->bound(s->inner, job, b, err);
}

/* ---- Pulscan searchers ----------------------------------------------------------- */

typedef struct {
    const psslot *s;
    const xc_spectrum *sp;
    const xc_psopts *o;
    double *P;
    const double *Pin, *thr;
    xc_pspeaks *pk;
    size_t n0;
} pscall;

static xc_status pow_call(void *v, xc_error *err)
{
    pscall *c = v;
    return c->s->inner->powers(c->s->inner, c->sp, c->o, c->P, err);
}

static int pow_send(void *v, int fd)
{
    pscall *c = v;
    return write_all(fd, c->P, c->sp->nbins * sizeof(double));
}

static xc_status pow_recv(void *v, int fd, double deadline, xc_error *err)
{
    pscall *c = v;
    return recv_bytes(fd, c->P, c->sp->nbins * sizeof(double), deadline, err);
}

static const isocalls pow_calls = {pow_call, pow_send, pow_recv};

static xc_status peaks_call(void *v, xc_error *err)
{
    pscall *c = v;
    return c->s->inner->peaks(c->s->inner, c->sp, c->o, c->Pin, c->thr, c->pk, err);
}

static int peaks_send(void *v, int fd)
{
    pscall *c = v;
    uint64_t n = c->pk->n - c->n0;
    return write_all(fd, &n, sizeof n) || write_all(fd, c->pk->p + c->n0, n * sizeof(xc_pspeak));
}

static xc_status peaks_recv(void *v, int fd, double deadline, xc_error *err)
{
    pscall *c = v;
    uint64_t n;
    xc_status st = recv_bytes(fd, &n, sizeof n, deadline, err);
    if (st)
        return st;
    if (n > SIZE_MAX / sizeof(xc_pspeak))
        return xc_error_set(err, XC_EIO, "plugin %s: %llu peaks", c->s->outer.impl.name, (unsigned long long)n);
    xc_pspeaks got = {malloc(n ? n * sizeof(xc_pspeak) : 1), (size_t)n, (size_t)n};
    if (!got.p)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %llu peaks", (unsigned long long)n);
    st = recv_bytes(fd, got.p, n * sizeof(xc_pspeak), deadline, err);
    if (!st)
        st = xc_pspeaks_move(c->pk, &got, err);
    xc_pspeaks_free(&got);
    return st;
}

static const isocalls peaks_calls = {peaks_call, peaks_send, peaks_recv};

static xc_status ps_powers(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, double *P,
                           xc_error *err)
{
    const psslot *s = self->impl.data;
    pscall c = {s, sp, o, P, NULL, NULL, NULL, 0};
    return isolate(s->outer.impl.name, s->file, "powers stage", &pow_calls, &c, err);
}

static xc_status ps_peaks(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                          const double *thr, xc_pspeaks *pk, xc_error *err)
{
    const psslot *s = self->impl.data;
    pscall c = {s, sp, o, NULL, P, thr, pk, pk->n};
    return isolate(s->outer.impl.name, s->file, "peaks stage", &peaks_calls, &c, err);
}

/* The plugin's own availability, asked with its own descriptor. */
static int plugin_available(const xc_impl *self, char *why, size_t n)
{
    const xc_impl *in = self->family == XC_FAMILY_DEDISPERSE ? &((const ddslot *)self->data)->inner->impl
                                                             : &((const psslot *)self->data)->inner->impl;
    return in->available(in, why, n);
}

const char *xc_cli_plugin_file(const xc_impl *impl)
{
    if (impl->family == XC_FAMILY_DEDISPERSE && ((const xc_dedisperser *)impl)->run == dd_run)
        return ((const ddslot *)impl->data)->file;
    if (impl->family == XC_FAMILY_PULSCAN && ((const xc_searcher *)impl)->powers == ps_powers)
        return ((const psslot *)impl->data)->file;
    return NULL;
}

/* ---- loading ------------------------------------------------------------------------ */

#define MAXLOADED 32
static int nloaded;

typedef struct {
    xc_registry *reg;
    const char *file;
    const char *plugin;   /* its own name */
    int added;
} hostctx;

static xc_status host_add(const xc_plugin_host *h, const xc_impl *impl, xc_error *err)
{
    hostctx *c = h->ctx;
    if (!impl || !impl->name || !impl->name[0])
        return xc_error_set(err, XC_EINVAL, "plugin %s: host->add: a descriptor without a name", c->file);
    const char *n = impl->name;
    if (!(impl->caps & XC_CAP_RUNTIME))
        return xc_error_set(err, XC_EINVAL, "plugin %s: implementation '%s': caps must carry XC_CAP_RUNTIME",
                            c->file, n);
    if (impl->caps & XC_CAP_REFERENCE)
        return xc_error_set(err, XC_EINVAL, "plugin %s: implementation '%s': a plugin cannot be a reference "
                            "(XC_CAP_REFERENCE): the built-in references define the semantics", c->file, n);
    if (impl->family == XC_FAMILY_DEDISPERSE) {
        const xc_dedisperser *d = (const xc_dedisperser *)impl;
        if (!d->run && !(d->plan && d->execute))
            return xc_error_set(err, XC_EINVAL, "plugin %s: dedisperser '%s' gives neither run nor plan and execute",
                                c->file, n);
        ddslot *s = calloc(1, sizeof *s);
        if (!s)
            return xc_error_set(err, XC_ENOMEM, "plugin %s: out of memory", c->file);
        s->inner = d;
        s->file = c->file;
        s->outer.impl = *impl;
        s->outer.impl.data = s;
        s->outer.impl.available = impl->available ? plugin_available : NULL;
        s->outer.run = dd_run;
        s->outer.bound = d->bound ? dd_bound : NULL;
        xc_error e;
        xc_status st = xc_registry_add(c->reg, &s->outer.impl, &e);
        if (st) {
            free(s);
            return xc_error_set(err, st, "plugin %s: %s", c->file, e.msg);
        }
        s->next = dds;
        dds = s;
    } else if (impl->family == XC_FAMILY_PULSCAN) {
        const xc_searcher *d = (const xc_searcher *)impl;
        if (!d->powers || !d->peaks)
            return xc_error_set(err, XC_EINVAL, "plugin %s: searcher '%s' lacks powers or peaks", c->file, n);
        psslot *s = calloc(1, sizeof *s);
        if (!s)
            return xc_error_set(err, XC_ENOMEM, "plugin %s: out of memory", c->file);
        s->inner = d;
        s->file = c->file;
        s->outer.impl = *impl;
        s->outer.impl.data = s;
        s->outer.impl.available = impl->available ? plugin_available : NULL;
        s->outer.powers = ps_powers;
        s->outer.peaks = ps_peaks;
        s->outer.own_powers = d->own_powers;
        xc_error e;
        xc_status st = xc_registry_add(c->reg, &s->outer.impl, &e);
        if (st) {
            free(s);
            return xc_error_set(err, st, "plugin %s: %s", c->file, e.msg);
        }
        s->next = pss;
        pss = s;
    } else {
        const char *f = xc_family_name(impl->family);
        return xc_error_set(err, XC_EINVAL, "plugin %s: implementation '%s' of family %s: plugin ABI %d.%d takes "
                            "dedisperse and pulscan implementations only", c->file, n, f ? f : "(unknown)",
                            XC_PLUGIN_ABI_MAJOR, XC_PLUGIN_ABI_MINOR);
    }
    c->added++;
    return XC_OK;
}

xc_status xc_cli_plugin_load(xc_registry *reg, const char *path, xc_error *err)
{
    /* dlopen searches the library path for a name without a slash: a file
     * here is what a person means by `-plugin libmine.so`. */
    char buf[4200];
    struct stat sb;
    if (!strchr(path, '/') && stat(path, &sb) == 0) {
        snprintf(buf, sizeof buf, "./%s", path);
        path = buf;
    }
    char *file = strdup(path);   /* kept for messages while the process lives */
    if (!file)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        xc_error_set(err, XC_EIO, "plugin %s: cannot be loaded: %s", file, why ? why : "dlopen failed");
        free(file);
        return XC_EIO;
    }
    xc_plugin_entry_fn entry;
    void *sym = dlsym(h, XC_PLUGIN_ENTRY_NAME);
    memcpy(&entry, &sym, sizeof entry);
    const xc_plugin_info *info = entry ? entry() : NULL;
    xc_status st = XC_OK;
    if (!entry)
        st = xc_error_set(err, XC_EIO, "plugin %s: exports no %s (XC_PLUGIN_DEFINE in core/xc_plugin.h): not a "
                          "crosscheck plugin", file, XC_PLUGIN_ENTRY_NAME);
    else if (!info)
        st = xc_error_set(err, XC_EINVAL, "plugin %s: %s returned NULL", file, XC_PLUGIN_ENTRY_NAME);
    else if (info->abi_major != XC_PLUGIN_ABI_MAJOR || info->abi_minor > XC_PLUGIN_ABI_MINOR)
        st = xc_error_set(err, XC_EINVAL, "plugin %s was built against plugin ABI %d.%d; this crosscheck has "
                          "plugin ABI %d.%d%s: rebuild it against this crosscheck's xc_plugin.h", file,
                          info->abi_major, info->abi_minor, XC_PLUGIN_ABI_MAJOR, XC_PLUGIN_ABI_MINOR,
                          info->abi_major == XC_PLUGIN_ABI_MAJOR ? " (an older minor version)" : "");
    else if (!info->init)
        st = xc_error_set(err, XC_EINVAL, "plugin %s: no init function", file);
    if (st) {
        dlclose(h);
        free(file);
        return st;
    }
    /* The host table outlives the plugin's init: a plugin keeps the
     * pointer for its kernels (host->scale_int, host->error_set). */
    static hostctx ctxs[MAXLOADED];
    static xc_plugin_host hosts[MAXLOADED];
    if (nloaded == MAXLOADED) {
        dlclose(h);
        xc_error_set(err, XC_EINVAL, "plugin %s: more than %d plugins", file, MAXLOADED);
        free(file);
        return XC_EINVAL;
    }
    hostctx *ctx = &ctxs[nloaded];
    xc_plugin_host *host = &hosts[nloaded++];
    *ctx = (hostctx){reg, file, info->name ? info->name : file, 0};
    *host = (xc_plugin_host){XC_PLUGIN_ABI_MAJOR, XC_PLUGIN_ABI_MINOR, ctx, host_add, xc_error_set, xc_scale_int,
                             xc_scale_real};
    xc_error e;
    xc_error_clear(&e);
    st = info->init(host, &e);
    if (st)   /* host_add's messages already name the file */
        return strstr(e.msg, file) ? xc_error_set(err, st, "%s", e.msg)
                                   : xc_error_set(err, st, "plugin %s: %s", file, e.msg);
    if (ctx->added == 0)
        return xc_error_set(err, XC_EINVAL, "plugin %s (%s) registered no implementation", file, ctx->plugin);
    /* The handle and the name stay: the registry points into the plugin. */
    return XC_OK;
}

xc_status xc_cli_plugins_load(xc_registry *reg, xc_error *err)
{
    const char *env = getenv("CROSSCHECK_PLUGINS");
    if (env && *env) {
        char *list = strdup(env), *save = NULL;
        if (!list)
            return xc_error_set(err, XC_ENOMEM, "out of memory");
        xc_status st = XC_OK;
        xc_error e;
        for (char *p = strtok_r(list, ":", &save); p && !st; p = strtok_r(NULL, ":", &save))
            if ((st = xc_cli_plugin_load(reg, p, &e)))
                xc_error_set(err, st, "CROSSCHECK_PLUGINS: %s", e.msg);
        free(list);
        if (st)
            return st;
    }
    for (int i = 0; i < nqueued; i++) {
        xc_error e;
        xc_status st = xc_cli_plugin_load(reg, queued[i], &e);
        if (st)
            return xc_error_set(err, st, "-plugin: %s", e.msg);
    }
    return XC_OK;
}
