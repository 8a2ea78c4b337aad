#include "core/base/xc_atomic.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* The temporaries open now, for a signal handler (xc_atomic_remove_live).
 * A slot is claimed by compare-and-swap 0 -> 1, its path written, then
 * published 1 -> 2; the handler removes only published ones. */
static struct {
    atomic_int state;
    char path[4200];
} live[XC_ATOMIC_LIVE];

static int live_add(const char *tmp)
{
    for (int i = 0; i < XC_ATOMIC_LIVE; i++) {
        int z = 0;
        if (atomic_compare_exchange_strong(&live[i].state, &z, 1)) {
            snprintf(live[i].path, sizeof live[i].path, "%s", tmp);
            atomic_store(&live[i].state, 2);
            return i;
        }
    }
    return -1;
}

static void live_drop(int i)
{
    if (i >= 0 && i < XC_ATOMIC_LIVE)
        atomic_store(&live[i].state, 0);
}

/* The working folder (xc_atomic_live_dir), published as the slots are. */
static struct {
    atomic_int state;
    char path[4096];
} live_dir;

void xc_atomic_live_dir(const char *dir)
{
    atomic_store(&live_dir.state, 0);
    if (dir && snprintf(live_dir.path, sizeof live_dir.path, "%s", dir) < (int)sizeof live_dir.path)
        atomic_store(&live_dir.state, 2);
}

static int remove_live_dir(void)
{
    if (atomic_load(&live_dir.state) != 2)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        char *const argv[] = {"rm", "-rf", "--", live_dir.path, NULL};
        char *const envp[] = {NULL};
        execve("/bin/rm", argv, envp);
        _exit(127);
    }
    int ws = 0;
    return pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
}

int xc_atomic_remove_live(void)
{
    int n = remove_live_dir();
    for (int i = 0; i < XC_ATOMIC_LIVE; i++)
        if (atomic_load(&live[i].state) == 2 && unlink(live[i].path) == 0)
            n++;
    return n;
}

/* Removes dir/base.tmp.<pid>.<n> of every pid that no longer runs (kill(pid,
 * 0) fails with ESRCH).  Best effort: an unreadable directory is left to the
 * open that follows, which reports its own error. */
static void remove_stale(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path) ? (int)(slash - path) : 1, path);
    else
        snprintf(dir, sizeof dir, ".");
    size_t bl = strlen(base);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *nm = e->d_name;
        if (strncmp(nm, base, bl) != 0 || strncmp(nm + bl, ".tmp.", 5) != 0)
            continue;
        char *end;
        errno = 0;
        long pid = strtol(nm + bl + 5, &end, 10);
        if (errno || end == nm + bl + 5 || *end != '.' || pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char full[8400];
        snprintf(full, sizeof full, "%s/%s", dir, nm);
        unlink(full);
    }
    closedir(d);
}

xc_status xc_atomic_open(xc_atomic *a, const char *path, int rw, xc_error *err)
{
    /* A counter keeps two outputs of one process apart; it holds no state a
     * kernel reads, only a unique suffix. */
    static atomic_uint serial;
    unsigned n = atomic_fetch_add(&serial, 1u);
    memset(a, 0, sizeof *a);
    if (strlen(path) >= sizeof a->path)
        return xc_error_set(err, XC_EINVAL, "%s: path too long", path);
    strcpy(a->path, path);
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%ld.%u", path, (long)getpid(), n);
    remove_stale(path);
    a->live = live_add(a->tmp);
    a->fp = fopen(a->tmp, rw ? "w+b" : "wb");
    if (!a->fp) {
        int e = errno;
        live_drop(a->live);
        return xc_error_set(err, XC_EIO, "%s: cannot create: %s", path, strerror(e));
    }
    return XC_OK;
}

xc_status xc_atomic_commit(xc_atomic *a, xc_error *err)
{
    int bad = 0;
    if (!a->fp)
        return xc_error_set(err, XC_EIO, "%s: not open", a->path);
    if (fflush(a->fp) != 0 || ferror(a->fp))
        bad = errno ? errno : EIO;
    if (fclose(a->fp) != 0 && !bad)
        bad = errno ? errno : EIO;
    a->fp = NULL;
    if (bad) {
        remove(a->tmp);
        live_drop(a->live);
        return xc_error_set(err, XC_EIO, "%s: write failed: %s", a->path, strerror(bad));
    }
    if (rename(a->tmp, a->path) != 0) {
        int e = errno;
        remove(a->tmp);
        live_drop(a->live);
        return xc_error_set(err, XC_EIO, "%s: cannot rename from %s: %s", a->path, a->tmp,
                            strerror(e));
    }
    live_drop(a->live);
    return XC_OK;
}

void xc_atomic_abort(xc_atomic *a)
{
    if (a->fp) {
        fclose(a->fp);
        a->fp = NULL;
        remove(a->tmp);
        live_drop(a->live);
    }
}

xc_status xc_atomic_write(const char *path, const void *buf, size_t n, xc_error *err)
{
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    if (n && fwrite(buf, 1, n, a.fp) != n) {
        st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
        xc_atomic_abort(&a);
        return st;
    }
    return xc_atomic_commit(&a, err);
}
