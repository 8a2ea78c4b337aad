/* The field's programs timed in the same run as ours (xc_bench_peer.h). */
#include "bench/xc_bench_peer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/xc_fmt.h"
#include "core/base/xc_fs.h"
#include "core/io/xc_fft.h"
#include "core/io/xc_presto.h"
#include "synth/model/xc_synth.h"

extern char **environ;
#include "core/base/xc_progress.h"

static const char *const kind_names[XC_PEER_NKINDS] = {"accelsearch", "pulscan", "fake", "prepsubband",
                                                       "dedisperse", "cmd"};
/* what -peer takes: every kind but cmd (-peer_cmd's) */
#define PEER_NAMES "accelsearch, pulscan, fake, prepsubband or dedisperse"

const char *xc_bench_peer_kind_name(xc_bench_peer_kind k)
{
    return k >= 0 && k < XC_PEER_NKINDS ? kind_names[k] : "unknown";
}

xc_status xc_bench_peer_kind_of(const char *path, const char *kind_name, xc_bench_peer_kind *k, xc_error *err)
{
    const char *base = strrchr(path, '/');
    const char *name = kind_name ? kind_name : base ? base + 1 : path;
    for (int i = 0; i < XC_PEER_CMD; i++)
        if (!strcmp(name, kind_names[i])) {
            *k = (xc_bench_peer_kind)i;
            return XC_OK;
        }
    if (kind_name)
        return xc_error_set(err, XC_EINVAL, "-peer_kind: '%s' is not " PEER_NAMES, kind_name);
    return xc_error_set(err, XC_EINVAL,
                        "-peer %s: cannot tell which program it is from its name '%s' (" PEER_NAMES
                        "); say it with -peer_kind",
                        path, name);
}

xc_status xc_bench_peer_init(xc_bench_peer *p, const char *path, const char *kind_name, xc_error *err)
{
    memset(p, 0, sizeof *p);
    p->path = path;
    struct stat sb;
    errno = 0;
    if (stat(path, &sb) || !S_ISREG(sb.st_mode) || access(path, X_OK))
        return xc_error_set(err, XC_EINVAL, "-peer %s: not an executable file%s%s", path, errno ? ": " : "",
                            errno ? strerror(errno) : "");
    if (!realpath(path, p->exe))
        return xc_error_set(err, XC_EINVAL, "-peer %s: %s", path, strerror(errno));
    xc_status st = xc_bench_peer_kind_of(path, kind_name, &p->kind, err);
    if (st)
        return st;
    /* the build scripts leave the snapshot's commit beside the program
     * (scripts/peers/) or in the folder above its bin/ (examples/peers/) */
    char cpath[4200];
    const char *slash = strrchr(path, '/');
    xc_fmt(cpath, sizeof cpath, "%.*sCOMMIT", slash ? (int)(slash - path + 1) : 0, path);
    FILE *fp = fopen(cpath, "r");
    if (!fp) {
        xc_fmt(cpath, sizeof cpath, "%.*s../COMMIT", slash ? (int)(slash - path + 1) : 0, path);
        fp = fopen(cpath, "r");
    }
    if (fp) {
        if (fgets(p->commit, sizeof p->commit, fp))
            p->commit[strcspn(p->commit, "\n")] = 0;
        fclose(fp);
    }
    return XC_OK;
}

/* The log's last non-empty line into tail[0..n). */
static void log_tail(const char *log, char *tail, size_t n)
{
    tail[0] = 0;
    FILE *fp = fopen(log, "r");
    char line[1024];
    while (fp && fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0])
            xc_fmt(tail, n, "%s", line);
    }
    if (fp)
        fclose(fp);
}

/* Waits for pid until deadline (0: none): 1 when it ended (*status, *ru
 * set), 0 when the deadline came first (the group is then killed and
 * reaped), -1 with errno on failure.  A pidfd (Linux 5.3) wakes the wait
 * the moment the child ends, so the wall clock is not rounded up to a
 * polling step; where there is none, it polls every millisecond. */
static int wait_until(pid_t pid, double deadline, int *status, struct rusage *ru)
{
    int pfd = -1;
#ifdef SYS_pidfd_open
    if (deadline > 0)
        pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
    for (;;) {
        pid_t w = wait4(pid, status, deadline > 0 ? WNOHANG : 0, ru);
        if (w == pid || (w < 0 && errno != EINTR)) {
            if (pfd >= 0)
                close(pfd);
            return w == pid ? 1 : -1;
        }
        if (w < 0)
            continue;
        const double left = deadline - xc_now();
        if (left <= 0) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
                ;
            if (pfd >= 0)
                close(pfd);
            return 0;
        }
        if (pfd >= 0) {
            struct pollfd pf = {pfd, POLLIN, 0};
            (void)poll(&pf, 1, left > 1e6 ? 1000000000 : (int)(left * 1e3) + 1);
        } else {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
}

/* One program of a peer run, at most until deadline: *wall and *cpu grow
 * by its times. */
static xc_status spawn_one(const xc_bench_peer_cmd *c, char *const *argv, double deadline, double *wall,
                           double *cpu, xc_error *err)
{
    int logfd = open(c->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (logfd < 0)
        return xc_error_set(err, XC_EIO, "%s: cannot create the peer's log: %s", c->log, strerror(errno));
    int outfd = c->out ? open(c->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    if (c->out && outfd < 0) {
        close(logfd);
        return xc_error_set(err, XC_EIO, "%s: cannot create the peer's output: %s", c->out, strerror(errno));
    }
    /* the child: stdin /dev/null, stdout and stderr as asked, in the work
     * folder, in a process group of its own (a time limit kills the whole
     * group: a shell and what it started), the signals this process catches
     * back at their defaults */
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t def;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, outfd >= 0 ? outfd : logfd, 1);
    posix_spawn_file_actions_adddup2(&fa, logfd, 2);
    if (c->dir)
        posix_spawn_file_actions_addchdir_np(&fa, c->dir);
    posix_spawnattr_init(&at);
    sigemptyset(&def);
    sigaddset(&def, SIGINT), sigaddset(&def, SIGTERM), sigaddset(&def, SIGHUP);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    fflush(NULL);
    pid_t pid;
    double t0 = xc_now();
    int rc = posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(logfd);
    if (outfd >= 0)
        close(outfd);
    if (rc)
        return xc_error_set(err, XC_EIO, "peer %s: cannot run it: %s", argv[0], strerror(rc));
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    const int ended = wait_until(pid, deadline, &status, &ru);
    *wall += xc_now() - t0;
    if (ended < 0)
        return xc_error_set(err, XC_EIO, "peer %s: wait4: %s", argv[0], strerror(errno));
    *cpu += (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
            1e-6 * (double)ru.ru_stime.tv_usec;
    char tail[512];
    if (!ended)
        return xc_error_set(err, XC_EIO, "peer %s did not finish within %g s (-peer_timeout); killed (log %s)",
                            argv[0], c->timeout, c->log);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        log_tail(c->log, tail, sizeof tail);
        char how[64];
        if (WIFEXITED(status))
            xc_fmt(how, sizeof how, "exited %d", WEXITSTATUS(status));
        else
            xc_fmt(how, sizeof how, "was killed by signal %d", WTERMSIG(status));
        return xc_error_set(err, XC_EIO, "peer %s %s%s%s (log %s)", argv[0], how, tail[0] ? ": " : "", tail,
                            c->log);
    }
    return XC_OK;
}

xc_status xc_bench_peer_spawn(const xc_bench_peer_cmd *c, double *wall, double *cpu, xc_error *err)
{
    /* a fresh log for each run, which every program of the run appends to */
    FILE *lf = fopen(c->log, "w");
    if (!lf)
        return xc_error_set(err, XC_EIO, "%s: cannot create the peer's log: %s", c->log, strerror(errno));
    fclose(lf);
    *wall = *cpu = 0;
    const double deadline = c->timeout > 0 ? xc_now() + c->timeout : 0;
    xc_status st = XC_OK;
    if (c->nsteps > 0)
        for (int i = 0; i < c->nsteps && !st; i++)
            st = spawn_one(c, c->steps[i], deadline, wall, cpu, err);
    else
        st = spawn_one(c, c->argv, deadline, wall, cpu, err);
    if (st)
        return st;
    struct stat sb;
    if (c->expect && (stat(c->expect, &sb) || sb.st_size == 0)) {
        char tail[512];
        log_tail(c->log, tail, sizeof tail);
        char *const *argv = c->nsteps > 0 ? c->steps[c->nsteps - 1] : c->argv;
        return xc_error_set(err, XC_EIO, "peer %s exited 0 but wrote %s %s%s%s (log %s)", argv[0],
                            stat(c->expect, &sb) ? "no" : "an empty", c->expect, tail[0] ? "; its log ends: " : "",
                            tail, c->log);
    }
    return XC_OK;
}

static double user_sys(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

xc_status xc_bench_vs_peer(xc_bench_fn ours, void (*after)(void *ctx), void *ctx, const xc_bench_peer_cmd *c,
                           int runs, xc_bench_side *us, xc_bench_side *them, xc_error *err)
{
    if (runs < 1)
        runs = 1;
    double *w = malloc(4 * sizeof *w * (size_t)runs);
    if (!w)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    double *ucpu = w + runs, *pw = w + 2 * runs, *pcpu = w + 3 * runs;
    xc_status st = XC_OK;
    for (int r = 0; r < runs && !st; r++) {
        double c0 = user_sys(), t0 = xc_now();
        st = ours(ctx, err);
        w[r] = xc_now() - t0;
        ucpu[r] = user_sys() - c0;
        if (after)
            after(ctx);
        if (!st)
            st = xc_bench_peer_spawn(c, &pw[r], &pcpu[r], err);
        if (c->expect)
            remove(c->expect);
    }
    if (!st) {
        *us = (xc_bench_side){xc_bench_median(w, runs), xc_bench_median(ucpu, runs), runs};
        *them = (xc_bench_side){xc_bench_median(pw, runs), xc_bench_median(pcpu, runs), runs};
    }
    free(w);
    return st;
}

void xc_bench_peer_fields(json_t *rec, const xc_bench_peer *p, const xc_bench_side *us, const xc_bench_side *them,
                          int peer_threads)
{
    json_object_set_new(rec, "seconds", json_real(us->seconds));
    json_object_set_new(rec, "cpu_seconds", json_real(us->cpu_seconds));
    json_object_set_new(rec, "peer", json_string(p->path));
    json_object_set_new(rec, "peer_kind", json_string(xc_bench_peer_kind_name(p->kind)));
    if (p->commit[0])
        json_object_set_new(rec, "peer_commit", json_string(p->commit));
    json_object_set_new(rec, "peer_threads", json_integer(peer_threads));
    json_object_set_new(rec, "peer_seconds", json_real(them->seconds));
    json_object_set_new(rec, "peer_cpu_seconds", json_real(them->cpu_seconds));
    json_object_set_new(rec, "ratio", json_real(them->seconds / us->seconds));
    json_object_set_new(rec, "cpu_ratio", json_real(us->cpu_seconds > 0 ? them->cpu_seconds / us->cpu_seconds : 0));
    json_object_set_new(rec, "runs", json_integer(us->runs));
    json_object_set_new(rec, "timing",
                        json_string("ours and the peer in turn, runs times each; seconds and peer_seconds are "
                                    "wall-clock medians, cpu_seconds and peer_cpu_seconds medians of user + system "
                                    "(ours: getrusage of this process; the peer's: wait4 of its process)"));
}

xc_status xc_bench_peer_spectrum(const xc_spectrum *sp, const char *dir, char *fft, size_t n, xc_error *err)
{
    char inf[4200];
    xc_status st = xc_pathf(fft, n, err, "%s/bench.fft", dir);
    if (!st)
        st = xc_pathf(inf, sizeof inf, err, "%s/bench.inf", dir);
    if (st)
        return st;
    xc_inf r;
    xc_inf_init(&r);
    snprintf(r.name, sizeof r.name, "bench");
    snprintf(r.telescope, sizeof r.telescope, "None (Artificial Data Set)");
    snprintf(r.object, sizeof r.object, "crosscheck bench spectrum");
    r.n = 2.0 * (double)sp->nbins;
    r.dt = sp->dt;
    r.freq_low = 1250;
    r.bw = 300;
    r.nchan = 1;
    r.chan_wid = 300;
    snprintf(r.notes, sizeof r.notes, "the spectrum crosscheck bench searched, for a peer to search");
    st = xc_fft_write(fft, sp->data, 2 * sp->nbins, err);
    return st ? st : xc_inf_write(&r, inf, err);
}

xc_status xc_bench_peer_turns_cmd(const xc_bench_peers *ps, int k, xc_bench_peer_cmd c, xc_bench_fn ours,
                                  void (*after)(void *ctx), void *ctx, xc_bench_side *us, xc_bench_side *them,
                                  xc_error *err)
{
    char log[4200];
    xc_status st = xc_pathf(log, sizeof log, err, "%s/%s-%d.log", ps->dir,
                            xc_bench_peer_kind_name(ps->peers[k].kind), k);
    if (st)
        return st;
    c.dir = ps->dir;
    c.log = log;
    c.timeout = ps->timeout;
    return xc_bench_vs_peer(ours, after, ctx, &c, ps->runs, us, them, err);
}

xc_status xc_bench_peer_turns(const xc_bench_peers *ps, int k, char *const *argv, const char *out,
                              const char *expect, xc_bench_fn ours, void (*after)(void *ctx), void *ctx,
                              xc_bench_side *us, xc_bench_side *them, xc_error *err)
{
    const xc_bench_peer_cmd c = {.argv = argv, .out = out, .expect = expect};
    return xc_bench_peer_turns_cmd(ps, k, c, ours, after, ctx, us, them, err);
}

xc_status xc_bench_peer_filterbank(const char *fil, int nbits, int nchans, double tsamp, size_t nsamp, int threads,
                                   xc_error *err)
{
    xc_synth_params p;
    xc_synth_params_init_obs(&p, nchans, nbits, tsamp, (double)nsamp * tsamp);
    p.fch1 = 1550.0 - 150.0 / nchans;
    p.foff = -300.0 / nchans;
    p.nthreads = threads;
    xc_status st = xc_synth_params_check(&p, NULL, err);
    char truth[4300];
    if (!st)
        st = xc_synth_write(&p, fil, NULL, NULL, err);
    if (!st && !xc_synth_truth_path(fil, truth, sizeof truth, NULL))
        remove(truth);
    xc_synth_params_free(&p);
    return st;
}
