/* The child process every call into a plugin's kernel runs in: fork, a pipe
 * for the results, a deadline, and the child's end turned into a message. */
#include "cli/base/plugin/cli_plugin_iso.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

int xc_plugin_send(int fd, const void *buf, size_t n)
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
        int ready = poll(&pf, 1, (int)(left * 1000) + 1);
        ssize_t got = ready > 0 ? read(fd, p, n) : ready;   /* 0 from poll: nothing in time */
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? -1 : ready == 0 ? 2 : 1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

/* Set by xc_plugin_recv when read_all did not return 0: one call into a
 * plugin at a time (the CLI is one thread where it calls plugins). */
static int recv_rc;

xc_status xc_plugin_recv(int fd, void *buf, size_t n, double deadline, xc_error *err)
{
    recv_rc = read_all(fd, buf, n, deadline);
    return recv_rc ? xc_error_set(err, XC_EIO, "the plugin's results were cut short") : XC_OK;
}

/* The child: runs the call, writes its error and its results, ends. */
static _Noreturn void child(const xc_plugin_calls *ic, void *ctx, int fd)
{
    /* The parent's signal handler would remove the parent's temporaries;
     * the child has none. */
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
    xc_error e;
    memset(&e, 0, sizeof e);
    e.code = ic->call(ctx, &e);
    if (e.code && !e.msg[0])
        snprintf(e.msg, sizeof e.msg, "%s (no message)", xc_strerror(e.code));
    int bad = xc_plugin_send(fd, &e, sizeof e) || (e.code == XC_OK && ic->send(ctx, fd));
    close(fd);
    _exit(bad ? 3 : 0);
}

xc_status xc_plugin_isolate(const char *impl, const char *file, const char *what, const xc_plugin_calls *ic,
                            void *ctx, xc_error *err)
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
        close(fd[0]);
        child(ic, ctx, fd[1]);
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
