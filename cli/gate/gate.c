/* crosscheck gate: the user's external command (-cmd 'TEMPLATE'): its
 * placeholders filled, run in its own process group with a time limit, and
 * a failed row when it did not run cleanly (gate.h); and what every
 * case starts from: its paths and its synthetic observation's parameters. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/gate/gate.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_fs.h"
#include "core/base/xc_progress.h"

static int shell_safe(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+-@%", *s))
            return 0;
    return 1;
}

xc_status gate_fill(const char *opt, const char *tmpl, const gate_kv *kv, size_t n, char *out, size_t outn,
                    xc_error *err)
{
    size_t at = 0;
#define PUT(ch) \
    do { \
        if (at + 1 >= outn) \
            return xc_error_set(err, XC_EINVAL, "%s: the command is longer than %zu bytes once filled", opt, outn); \
        out[at++] = (ch); \
    } while (0)
    for (const char *p = tmpl; *p; p++) {
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            PUT(*p);
            p++;
            continue;
        }
        if (*p != '{') {
            PUT(*p);
            continue;
        }
        const char *end = strchr(p, '}');
        if (!end)
            return xc_error_set(err, XC_EINVAL, "%s: '{' at offset %zu is never closed (write {{ for a brace)",
                                opt, (size_t)(p - tmpl));
        size_t len = (size_t)(end - p - 1);
        const gate_kv *hit = NULL;
        for (size_t i = 0; i < n; i++)
            if (strlen(kv[i].key) == len && !strncmp(kv[i].key, p + 1, len))
                hit = &kv[i];
        if (!hit) {
            char names[1024] = "";
            for (size_t i = 0; i < n; i++)
                xc_fmt(names + strlen(names), sizeof names - strlen(names), "%s{%s}", i ? " " : "", kv[i].key);
            return xc_error_set(err, XC_EINVAL, "%s: unknown placeholder {%.*s}; there are %s", opt, (int)len, p + 1,
                                names);
        }
        int quote = !shell_safe(hit->val);
        if (quote)
            PUT('\'');
        for (const char *v = hit->val; *v; v++) {
            if (*v == '\'') {   /* ' -> '\'' */
                PUT('\'');
                PUT('\\');
                PUT('\'');
            }
            PUT(*v);
        }
        if (quote)
            PUT('\'');
        p = end;
    }
#undef PUT
    out[at] = 0;
    return XC_OK;
}

/* `sh -c cmd` as gate_cmd_output runs it: *code is its exit status, 128 +
 * signal when killed, -1 when it overran; tail gets the log's last line. */
static xc_status spawn(const gatectx *g, const char *cmd, const char *log, int *code, char *tail, size_t ntail,
                     xc_error *err)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return xc_error_set(err, XC_EIO, "%s: cannot create the command's log: %s", log, strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        return xc_error_set(err, XC_EIO, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fd);
    setpgid(pid, pid);
    double deadline = xc_now() + g->timeout;
    int status = 0, over = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            status = 0;
            break;
        }
        if (xc_now() > deadline) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            over = 1;
            break;
        }
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    *code = over ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
    /* the log's last non-empty line */
    tail[0] = 0;
    FILE *fp = fopen(log, "r");
    if (fp) {
        char line[1024];
        while (fgets(line, sizeof line, fp)) {
            line[strcspn(line, "\n")] = 0;
            if (line[0])
                xc_fmt(tail, ntail, "%s", line);
        }
        fclose(fp);
    }
    return XC_OK;
}

/* One row for a command that did not run cleanly; 1 when it did not. */
static int cmd_failed(gatectx *g, const char *obs, const char *cmd, const char *log, int code, const char *tail)
{
    if (code == 0)
        return 0;
    char why[1024];
    if (code < 0)
        xc_fmt(why, sizeof why, "the command did not finish within %g s (-timeout); killed. Command: %s", g->timeout,
               cmd);
    else if (g->own_work && !g->keep)   /* the log goes with the temporary folder: name only what remains */
        xc_fmt(why, sizeof why, "the command exited %d%s%s (its log is removed with the temporary work folder; "
               "-keep keeps it). Command: %s", code, tail[0] ? ": " : "", tail, cmd);
    else
        xc_fmt(why, sizeof why, "the command exited %d%s%s (log %s). Command: %s", code, tail[0] ? ": " : "", tail,
               log, cmd);
    xc_vd_fail(&g->vd, obs, g->label, "command runs", why, "exit status 0");
    return 1;
}

int gate_cmd_output(gatectx *g, const char *obs, const gate_kv *kv, size_t n, const char *log)
{
    char cmd[16384], tail[512];
    int code = 0;
    xc_error e;
    if (gate_fill("-cmd", g->cmd, kv, n, cmd, sizeof cmd, &e) || spawn(g, cmd, log, &code, tail, sizeof tail, &e)) {
        xc_vd_note(&g->vd, XC_EINVAL, &e);
        return 0;
    }
    return !cmd_failed(g, obs, cmd, log, code, tail);
}

int gate_case_due(const gatectx *g, int tier, const char *what, const char *name)
{
    if (tier > g->tier)
        return 0;
    if (!g->quiet)
        fprintf(stderr, "crosscheck gate %s: %s\n", what, name);
    return 1;
}

void gate_case_synth(const gatectx *g, int nchans, int nbits, double tsamp, double tobs, uint64_t seed,
                     xc_synth_params *p)
{
    xc_synth_params_init_obs(p, nchans, nbits, tsamp, tobs);
    p->seed = seed;
    p->convention = g->cv;
}

xc_status gate_case_paths(char *dir, const char *work, const char *obs, const char *const *name, char *const *path,
                          size_t n, xc_error *err)
{
    xc_status st = xc_pathf(dir, GATE_PATH, err, "%s/%s", work, obs);
    for (size_t k = 0; k < n && !st; k++)
        st = xc_pathf(path[k], GATE_PATH, err, "%s/%s", dir, name[k]);
    return st;
}
