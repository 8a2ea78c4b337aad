/* test_faults.c: faults injected into the command line, nothing lost.
 *  - SIGINT / SIGTERM during a dedisperse: the temporaries are removed, one
 *    line says so on stderr, the process ends by that signal, and nothing
 *    appears under the final name; SIGTERM during a gate removes its
 *    temporary working folder;
 *  - SIGKILL at random points of a dedisperse that replaces an existing
 *    plane: afterwards the plane reads as the previous complete output or
 *    the new one, or is refused as a mix; never read as a whole while
 *    mixed; the next run completes and leaves no temporary behind;
 *  - a plane whose range file was replaced behind its manifest (what a kill
 *    between two renames leaves) is refused with a message naming the file.
 * The points in time come from a fixed seed; each case prints what it saw. */
#include <dirent.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/io/xc_filterbank.h"
#include "core/base/xc_mem.h"
#include "core/dedisp/run/xc_planefile.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* Runs crosscheck with argv (argv[0] ignored) in dir, stderr to errpath. */
static pid_t spawn(const char *dir, char *const argv[], const char *errpath)
{
    char bin[4096];
    if (!realpath(xc_fx_bin(), bin))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 2);
        if (nul >= 0)
            dup2(nul, 1);
        execv(bin, argv);
        _exit(127);
    }
    return pid;
}

static int run_to_end(const char *dir, char *const argv[], const char *errpath)
{
    int ws = 0;
    pid_t pid = spawn(dir, argv, errpath);
    if (pid < 0 || waitpid(pid, &ws, 0) != pid)
        return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Runs argv in dir, sends it sig after at seconds and waits for it: its wait status. */
static int signal_after(const char *dir, char *const argv[], const char *errpath, double at, int sig)
{
    pid_t pid = spawn(dir, argv, errpath);
    CU_ASSERT_FATAL(pid > 0);
    sleep_s(at);
    kill(pid, sig);
    int ws = 0;
    waitpid(pid, &ws, 0);
    return ws;
}

/* Files in dir whose name contains ".tmp." */
static int count_tmp(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    return n;
}

/* Runs argv in dir, sends it sig as soon as one of its temporaries exists
 * (so the signal lands while its outputs are open, however loaded the
 * machine: a fixed delay can land before the program is started) and waits
 * for it: its wait status.  A program that ends, or opens no temporary within
 * 60 s, is not signalled: *sent = 0. */
static int signal_when_open(const char *dir, char *const argv[], const char *errpath, int sig, int *sent)
{
    pid_t pid = spawn(dir, argv, errpath);
    CU_ASSERT_FATAL(pid > 0);
    int ws = 0;
    *sent = 0;
    for (int i = 0; i < 6000; i++) {
        if (count_tmp(dir) > 0) {
            kill(pid, sig);
            *sent = 1;
            break;
        }
        if (waitpid(pid, &ws, WNOHANG) == pid)
            return ws;
        sleep_s(0.01);
    }
    if (!*sent)
        kill(pid, SIGKILL);
    waitpid(pid, &ws, 0);
    return ws;
}

/* dir/name in one of 4 buffers used in turn: hold a result only briefly. */
static const char *in_dir(const char *dir, const char *name)
{
    static char p[4][700];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", dir, name);
    return p[i];
}

static const char *mkdir_in_tmp(const char *name)
{
    static char d[600];
    snprintf(d, sizeof d, "%s/%s", xc_test_tmpdir(), name);
    mkdir(d, 0755);
    return d;
}

/* A fresh directory under the test's temporary one, errpath set to its
 * err.txt, and an 8-bit noise filterbank `fil` of tobs seconds and nchans
 * channels made there by synth; the directory. */
static const char *setup(const char *name, const char *fil, const char *tobs, const char *nchans, char *errpath)
{
    const char *dir = mkdir_in_tmp(name);
    snprintf(errpath, 700, "%s", in_dir(dir, "err.txt"));
    char *sx[] = {"crosscheck", "synth", "-o", (char *)fil, "-tobs", (char *)tobs, "-nchans", (char *)nchans,
                  "-nbits", "8", NULL};
    CU_ASSERT_EQUAL(run_to_end(dir, sx, errpath), 0);
    return dir;
}

/* The reference dedisperser on 2 s of 256 channels takes seconds (here
 * 2.4 s): a signal sent when its first temporary appears lands while its
 * outputs are open. */
XC_TEST_IF(test_fault_signals, "SIGINT and SIGTERM remove temporaries and say so", xc_fx_skip_no_bin)
{
    char errpath[700];
    const char *dir = setup("faults-sig", "S.fil", "2", "256", errpath);
    const int sigs[] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; k++) {
        char *argv[] = {"crosscheck", "dedisperse", "-i", "S.fil", "-o", "R", "-impl", "reference", "-dmplan",
                        "0:100:1", NULL};
        int sent = 0;
        int ws = signal_when_open(dir, argv, errpath, sigs[k], &sent);
        if (!sent)
            printf("\n  signal %d: not sent: the program ended or opened no temporary within 60 s", sigs[k]);
        CU_ASSERT_FATAL(sent);
        char err[2048];
        xc_fx_slurp_into(errpath, err, sizeof err);
        struct stat sb;
        int final = stat(in_dir(dir, "R.json"), &sb) == 0 || stat(in_dir(dir, "R.r0.npy"), &sb) == 0;
        int tmp = count_tmp(dir);
        printf("\n  signal %d: ended by signal %d, final files %s, %d temporaries; stderr: %s", sigs[k],
               WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, final ? "present" : "absent", tmp, err);
        CU_ASSERT(WIFSIGNALED(ws) && WTERMSIG(ws) == sigs[k]);
        CU_ASSERT(!final);
        CU_ASSERT_EQUAL(tmp, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "interrupted by signal"));
    }
}

/* Entries of dir (its "." and ".." left out); *inner gets the entries of
 * its first crosscheck-gate.* folder. */
static int count_entries(const char *dir, int *inner)
{
    int n = 0;
    *inner = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        if (!strncmp(e->d_name, "crosscheck-gate.", 16) && !*inner) {
            char sub[1200];
            snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
            int dummy;
            *inner = count_entries(sub, &dummy);
        }
    }
    if (d)
        closedir(d);
    return n;
}

/* The gate's temporary working folder (under TMPDIR) goes with a SIGTERM
 * sent while its cases are being written, as the temporaries of any other
 * command do. */
XC_TEST_IF(test_fault_signal_gate_folder, "SIGTERM during gate removes its temporary working folder",
           xc_fx_skip_no_bin)
{
    const char *dir = mkdir_in_tmp("faults-gate");
    char tmp[700], errpath[700];
    snprintf(tmp, sizeof tmp, "%s/t", dir);
    mkdir(tmp, 0755);
    snprintf(errpath, sizeof errpath, "%s", in_dir(dir, "err.txt"));
    char *argv[] = {"crosscheck", "gate", "dedisperse", "-impl", "cpu", "-tier", "quick", NULL};
    const char *old = getenv("TMPDIR");
    char saved[700] = "";
    if (old)
        snprintf(saved, sizeof saved, "%s", old);
    setenv("TMPDIR", tmp, 1);
    pid_t pid = spawn(dir, argv, errpath);
    if (old)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    CU_ASSERT_FATAL(pid > 0);
    int ws = 0, sent = 0, inner = 0, ended = 0;
    for (int i = 0; i < 6000 && !sent && !ended; i++) {
        if (count_entries(tmp, &inner) > 0 && inner > 0) {
            kill(pid, SIGTERM);
            sent = 1;
        } else if (waitpid(pid, &ws, WNOHANG) == pid)
            ended = 1;
        else
            sleep_s(0.01);
    }
    if (!sent && !ended)
        kill(pid, SIGKILL);
    if (!ended)
        waitpid(pid, &ws, 0);
    int left = count_entries(tmp, &inner);
    char err[2048];
    xc_fx_slurp_into(errpath, err, sizeof err);
    if (!sent || left || !WIFSIGNALED(ws))
        printf("\n  gate: signal %s, ended by signal %d, %d entries left in TMPDIR (expected 0); stderr: %s",
               sent ? "sent" : "not sent (the gate ended or made no folder within 60 s)",
               WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, left, err);
    CU_ASSERT_FATAL(sent);
    CU_ASSERT(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGTERM);
    CU_ASSERT_EQUAL(left, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "interrupted by signal"));
}

/* 1 if the two planes hold the same shapes and values. */
static int plane_equals(const xc_planefile *a, const xc_planefile *b)
{
    if (a->plane.nranges != b->plane.nranges)
        return 0;
    for (int k = 0; k < a->plane.nranges; k++) {
        const xc_planerange *x = &a->plane.r[k], *y = &b->plane.r[k];
        if (x->ndm != y->ndm || x->nsamp != y->nsamp || memcmp(x->data, y->data, x->ndm * x->nsamp * sizeof(float)))
            return 0;
    }
    return 1;
}

XC_TEST_IF(test_fault_kill_dedisperse, "SIGKILL during dedisperse: old plane, new plane or refused; no stale temporary",
           xc_fx_skip_no_bin)
{
    const char *dir = mkdir_in_tmp("faults-kill");
    char *sx[] = {"crosscheck", "synth", "-o", "X.fil", "-tobs", "4", "-nchans", "256", "-nbits", "8", "-seed", "1", NULL};
    char *sy[] = {"crosscheck", "synth", "-o", "Y.fil", "-tobs", "4", "-nchans", "256", "-nbits", "8", "-seed", "2", NULL};
    char errpath[700];
    snprintf(errpath, sizeof errpath, "%s", in_dir(dir, "err.txt"));
    CU_ASSERT_EQUAL_FATAL(run_to_end(dir, sx, errpath), 0);
    CU_ASSERT_EQUAL_FATAL(run_to_end(dir, sy, errpath), 0);
    char *dx[] = {"crosscheck", "dedisperse", "-i", "X.fil", "-o", "P", "-impl", "cpu", "-threads", "1", "-dmplan",
                  "0:60:1,60:180:2:2", NULL};
    char *dq[] = {"crosscheck", "dedisperse", "-i", "Y.fil", "-o", "Q", "-impl", "cpu", "-threads", "1", "-dmplan",
                  "0:60:1,60:180:2:2", NULL};
    char *dy[] = {"crosscheck", "dedisperse", "-i", "Y.fil", "-o", "P", "-impl", "cpu", "-threads", "1", "-dmplan",
                  "0:60:1,60:180:2:2", NULL};
    struct timespec t0, t1;
    CU_ASSERT_EQUAL_FATAL(run_to_end(dir, dx, errpath), 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CU_ASSERT_EQUAL_FATAL(run_to_end(dir, dq, errpath), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double full = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    xc_planefile A, B;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_planefile_read(&A, in_dir(dir, "P.json"), &e), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_planefile_read(&B, in_dir(dir, "Q.json"), &e), XC_OK);
    CU_ASSERT_FATAL(!plane_equals(&A, &B));
    unsigned seed = 12345;
    int old = 0, new_ = 0, refused = 0, mixed = 0, tmps = 0;
    for (int i = 0; i < 8; i++) {
        seed = seed * 1103515245u + 12345u;
        double at = full * (double)((seed >> 8) % 1000) / 1000.0;
        signal_after(dir, dy, errpath, at, SIGKILL);
        tmps += count_tmp(dir);
        xc_planefile C;
        if (xc_planefile_read(&C, in_dir(dir, "P.json"), &e) == XC_OK) {
            int a = plane_equals(&C, &A), b = plane_equals(&C, &B);
            old += a;
            new_ += b && !a;
            mixed += !a && !b;
            xc_planefile_free(&C);
            if (b) {   /* completed before the kill: put the old plane back for the next round */
                CU_ASSERT_EQUAL_FATAL(run_to_end(dir, dx, errpath), 0);
            }
        } else {
            refused++;
            printf("\n  refused after a kill at %.3f s: %s", at, e.msg);
            CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "not the file"));
            CU_ASSERT_EQUAL_FATAL(run_to_end(dir, dx, errpath), 0);
        }
    }
    /* the next run completes and leaves nothing behind */
    CU_ASSERT_EQUAL(run_to_end(dir, dy, errpath), 0);
    int left = count_tmp(dir);
    xc_planefile D;
    CU_ASSERT_EQUAL_FATAL(xc_planefile_read(&D, in_dir(dir, "P.json"), &e), XC_OK);
    CU_ASSERT(plane_equals(&D, &B));
    xc_planefile_free(&D);
    printf("\n  8 kills within a %.2f s run: %d left the old plane, %d the new, %d refused as a mix, %d read as a "
           "mix (expected 0); %d temporaries seen after kills, %d after the next run (expected 0)",
           full, old, new_, refused, mixed, tmps, left);
    CU_ASSERT_EQUAL(mixed, 0);
    CU_ASSERT_EQUAL(left, 0);
    CU_ASSERT_EQUAL(old + new_ + refused, 8);

    /* a kill between the renames, made on purpose: P's manifest with Q's first range file */
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", in_dir(dir, "Q.r0.npy"), in_dir(dir, "P.r0.npy"));
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    CU_ASSERT_EQUAL_FATAL(run_to_end(dir, dx, errpath), 0);   /* P from X again ... */
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", in_dir(dir, "Q.r1.npy"), in_dir(dir, "P.r1.npy"));
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);                     /* ... then one range file of Y's */
    xc_planefile M;
    xc_status st = xc_planefile_read(&M, in_dir(dir, "P.json"), &e);
    printf("\n  manifest with another run's range file: status %d: %s", (int)st, st ? e.msg : "read as whole");
    CU_ASSERT_EQUAL(st, XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "P.r1.npy"));
    if (!st)
        xc_planefile_free(&M);
    xc_planefile_free(&A);
    xc_planefile_free(&B);
}

/* A filterbank cut short after it was opened (another process truncating
 * it): the read reports the byte offset where the data ended. */
XC_TEST_IF(test_fault_truncated_while_read, "file truncated while being read: error with the byte offset",
           xc_fx_skip_no_bin)
{
    char errpath[700], fil[700];
    const char *dir = setup("faults-trunc", "T.fil", "1", "64", errpath);
    snprintf(fil, sizeof fil, "%s", in_dir(dir, "T.fil"));
    xc_fbreader *r;
    xc_error e;
    xc_fbopts o = {XC_BITORDER_LSB, 0};
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, fil, &o, &e), XC_OK);
    const xc_fbheader *h = xc_fbreader_header(r);
    CU_ASSERT_FATAL(h->nsamp > 2000);
    size_t cut = (size_t)h->header_bytes + 64 * 1000 + 17;
    CU_ASSERT_EQUAL_FATAL(truncate(fil, (off_t)cut), 0);
    uint16_t *buf = malloc((size_t)h->nsamp * 64 * sizeof *buf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    xc_status st = xc_fbreader_read_u16(r, 0, (size_t)h->nsamp, 0, buf, &e);
    char want[64];
    snprintf(want, sizeof want, "byte %zu", cut);
    printf("\n  cut at byte %zu after opening: status %d: %s", cut, (int)st, st ? e.msg : "read as whole");
    CU_ASSERT_EQUAL(st, XC_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "shrank"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, want));
    free(buf);
    xc_fbreader_close(r);
}

#ifdef XC_HAVE_CUDA
static int skip_no_cuda(char *why, size_t n) { return xc_fx_skip_no_bin(why, n); }
#else
static int skip_no_cuda(char *why, size_t n)
{
    snprintf(why, n, "built without CUDA (CUDA=0): no gpu implementation to ask for");
    return 1;
}
#endif

/* No device at all (CUDA_VISIBLE_DEVICES=-1 hides every one; a machine
 * without a GPU is the same): asking for the gpu implementations gives one
 * line naming them and the reason, exit 2, and no output. */
XC_TEST_IF(test_fault_no_device, "no CUDA device: -impl gpu refused with the reason", skip_no_cuda)
{
    char errpath[700];
    const char *dir = setup("faults-nodev", "N.fil", "1", "64", errpath);
    setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
    char *dd[] = {"crosscheck", "dedisperse", "-i", "N.fil", "-o", "G", "-impl", "gpu", "-dmplan", "0:10:1", NULL};
    int rc = run_to_end(dir, dd, errpath);
    char err[2048];
    xc_fx_slurp_into(errpath, err, sizeof err);
    char fft[700];
    snprintf(fft, sizeof fft, "%s/sigpyproc3/GBT_J1807-0847.fft", xc_test_datasets());
    char *ac[] = {"crosscheck", "accel", "-i", fft, "-impl", "gpu", "-zmax", "0", "-numharm", "1", "-o", "A.csv", NULL};
    int rc2 = run_to_end(dir, ac, errpath);
    char err2[2048];
    xc_fx_slurp_into(errpath, err2, sizeof err2);
    unsetenv("CUDA_VISIBLE_DEVICES");
    struct stat sb;
    int out = stat(in_dir(dir, "G.json"), &sb) == 0 || stat(in_dir(dir, "A.csv"), &sb) == 0;
    printf("\n  dedisperse: exit %d: %s  accel: exit %d: %s  outputs %s", rc, err, rc2, err2, out ? "present" : "absent");
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(rc2, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-impl gpu: unavailable"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err2, "-impl gpu: unavailable"));
    CU_ASSERT(!out);
}

/* Resource limits: planes that cannot fit in memory are refused before any
 * of them is read, naming the size needed and the option that avoids it.
 * The range file is made sparse (twice the machine's memory on disk, no
 * blocks), so the test costs nothing. */
XC_TEST_IF(test_fault_plane_beyond_memory, "compare planes: planes beyond memory refused before reading, exit 2",
           xc_fx_skip_no_bin)
{
    const char *dir = mkdir_in_tmp("faults-mem");
    char errpath[700];
    snprintf(errpath, sizeof errpath, "%s", in_dir(dir, "err.txt"));
    char *sx[] = {"crosscheck", "synth", "-o", "X.fil", "-tobs", "1", "-nchans", "64", "-nbits", "8", "-seed", "1", NULL};
    char *dx[] = {"crosscheck", "dedisperse", "-i", "X.fil", "-o", "P", "-impl", "cpu", "-dmplan", "0:20:1", NULL};
    char *dy[] = {"crosscheck", "dedisperse", "-i", "X.fil", "-o", "Q", "-impl", "cpu", "-dmplan", "0:20:1", NULL};
    CU_ASSERT_EQUAL_FATAL(run_to_end(dir, sx, errpath), 0);
    CU_ASSERT_EQUAL_FATAL(run_to_end(dir, dx, errpath), 0);
    CU_ASSERT_EQUAL_FATAL(run_to_end(dir, dy, errpath), 0);
    double phys = xc_mem_physical();
    CU_ASSERT_FATAL(phys > 0);
    CU_ASSERT_EQUAL_FATAL(truncate(in_dir(dir, "Q.r0.npy"), (off_t)(2 * phys)), 0);
    char *cmp[] = {"crosscheck", "compare", "planes", "P.json", "Q.json", NULL};
    CU_ASSERT_EQUAL(run_to_end(dir, cmp, errpath), 2);
    char msg[2048];
    xc_fx_slurp_into(errpath, msg, sizeof msg);
    printf("\n  %s", msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "would need"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "the machine has"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "-dmplan"));
    /* the reader alone refuses it too (what run and check use) */
    xc_planefile pf;
    xc_error e;
    CU_ASSERT_EQUAL(xc_planefile_read(&pf, in_dir(dir, "Q.json"), &e), XC_ENOMEM);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "Q.json"));
    CU_ASSERT_EQUAL(truncate(in_dir(dir, "Q.r0.npy"), 0), 0);
}

/* SIGKILL at random points of `crosscheck population` (a resumable command):
 * the next run finishes it, every file and the manifest equal an
 * uninterrupted run's byte for byte, and no temporary is left. */
XC_TEST_IF(test_fault_kill_population, "SIGKILL during population: the next run resumes; same bytes; no temporary",
           xc_fx_skip_no_bin)
{
    const char *dir = mkdir_in_tmp("faults-pop");
    char spec[PATH_MAX], errpath[700];
    /* the command runs in dir: the spec by its absolute path */
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(xc_fx_dataset("population-test.json"), spec));
    snprintf(errpath, sizeof errpath, "%s", in_dir(dir, "err.txt"));
    char *ref[] = {"crosscheck", "population", "-spec", spec, "-n", "24", "-seed", "3", "-out", "ref", "-dedispersed",
                   "-threads", "1", "-quiet", NULL};
    char *run[] = {"crosscheck", "population", "-spec", spec, "-n", "24", "-seed", "3", "-out", "pop", "-dedispersed",
                   "-threads", "1", "-quiet", NULL};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CU_ASSERT_EQUAL_FATAL(run_to_end(dir, ref, errpath), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double full = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    unsigned seed = 777;
    int killed = 0, tmps = 0;
    for (int i = 0; i < 5; i++) {
        seed = seed * 1103515245u + 12345u;
        double at = full * (0.1 + 0.8 * (double)((seed >> 8) % 1000) / 1000.0);
        int ws = signal_after(dir, run, errpath, at, SIGKILL);
        killed += WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL;
        tmps += count_tmp(in_dir(dir, "pop"));
    }
    CU_ASSERT_EQUAL_FATAL(run_to_end(dir, run, errpath), 0);
    int left = count_tmp(in_dir(dir, "pop")), differ = 0, files = 0;
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "cd '%s' && ls ref", dir);
    FILE *ls = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ls);
    char name[600];
    while (fgets(name, sizeof name, ls)) {
        name[strcspn(name, "\n")] = 0;
        char a[1400], b[1400];
        snprintf(a, sizeof a, "%s/ref/%s", dir, name);
        snprintf(b, sizeof b, "%s/pop/%s", dir, name);
        files++;
        if (!xc_fx_same_file(a, b)) {
            differ++;
            printf("\n  %s differs after the kills", name);
        }
    }
    pclose(ls);
    printf("\n  5 kills within a %.2f s run (%d landed before the end): %d files compared, %d differ (expected 0); "
           "%d temporaries seen after kills, %d after the next run (expected 0)",
           full, killed, files, differ, tmps, left);
    XC_ASSERT_ABOVE((double)files, 24 * 4);   /* .dat, .inf, .truth.json, .done per pulsar, and the manifest */
    CU_ASSERT_EQUAL(differ, 0);
    CU_ASSERT_EQUAL(left, 0);
    XC_ASSERT_ABOVE((double)killed, 0);
}

XC_TEST_MAIN("faults")
