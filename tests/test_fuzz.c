/* test_fuzz.c: every fuzz target (fuzz/fuzz_<reader>.c) replays its seed
 * corpus (fuzz/corpus.txt) and datasets/fuzz-findings with its properties
 * checked: make test replays the corpora, make fuzz fuzzes.  The targets
 * are built with the ordinary compiler and fuzz/fuzz_main.c into
 * $BIN/fuzz/ (BIN from XC_BIN, which tests/run.sh sets); each runs in its
 * own process, so a property failure (abort) or a crash fails its case with
 * the target's output shown. */
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define MAXPATHS 4096

/* The repository root: the folder holding the datasets folder. */
static const char *root(void)
{
    static char r[4096];
    char d[4096];
    snprintf(d, sizeof d, "%s", xc_test_datasets());
    snprintf(r, sizeof r, "%s", dirname(d));
    return r;
}

static const char *bindir(void)
{
    static char b[4096];
    const char *x = getenv("XC_BIN");
    char t[4096];
    snprintf(t, sizeof t, "%s", x && *x ? x : "bin/crosscheck");
    snprintf(b, sizeof b, "%s", dirname(t));
    return b;
}

/* Runs one target over its corpus line's paths and the findings; returns
 * its exit status (0 when every input held), output in log. */
static int replay(const char *target, char *paths, const char *log, int *ninputs)
{
    char *argv[MAXPATHS + 3];
    int argc = 0;
    static char exe[4200];
    snprintf(exe, sizeof exe, "%s/fuzz/%s", bindir(), target);
    argv[argc++] = exe;
    glob_t g;
    memset(&g, 0, sizeof g);
    int flags = 0;
    char pat[4600];
    for (char *save = NULL, *p = strtok_r(paths, " \t\n", &save); p; p = strtok_r(NULL, " \t\n", &save)) {
        snprintf(pat, sizeof pat, "%s/%s", root(), p);
        if (glob(pat, flags, NULL, &g) == 0)
            flags = GLOB_APPEND;
    }
    snprintf(pat, sizeof pat, "%s/fuzz-findings", xc_test_datasets());
    glob(pat, flags, NULL, &g);
    for (size_t i = 0; i < g.gl_pathc && argc < MAXPATHS; i++)
        argv[argc++] = g.gl_pathv[i];
    argv[argc] = NULL;
    *ninputs = argc - 1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(log, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0)
            _exit(125);
        execv(exe, argv);
        perror(exe);
        _exit(126);
    }
    globfree(&g);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void show(const char *log)
{
    FILE *f = fopen(log, "r");
    char line[1024];
    int n = 0;
    printf("\n");
    while (f && fgets(line, sizeof line, f) && n++ < 40)
        printf("    %s", line);
    if (f)
        fclose(f);
}

XC_TEST(test_fuzz_replay, "every fuzz target replays its seed corpus and the fuzz findings, properties held")
{
    char path[4200];
    snprintf(path, sizeof path, "%s/fuzz/corpus.txt", root());
    FILE *fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    char line[4096];
    int targets = 0;
    while (fgets(line, sizeof line, fp)) {
        char target[128];
        long maxlen;
        int used = 0;
        if (line[0] == '#' || sscanf(line, "%127s %ld %n", target, &maxlen, &used) < 2)
            continue;
        targets++;
        char log[4200];
        snprintf(log, sizeof log, "%s/%s.log", xc_test_tmpdir(), target);
        int n = 0, rc = replay(target, line + used, log, &n);
        if (rc != 0) {
            printf("\n  %s: exit %d over %d inputs:", target, rc, n);
            show(log);
        }
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(n >= 2);   /* at least one seed and the findings */
    }
    fclose(fp);
    /* every fuzz/fuzz_<reader>.c has a corpus line */
    glob_t g;
    snprintf(path, sizeof path, "%s/fuzz/fuzz_*.c", root());
    CU_ASSERT_EQUAL_FATAL(glob(path, 0, NULL, &g), 0);
    CU_ASSERT_EQUAL((int)g.gl_pathc - 2, targets);   /* less fuzz_util.c and fuzz_main.c */
    globfree(&g);
}

/* Every target mutates its corpus briefly (fuzz/fuzz_main.c's XC_FUZZ_MUTATE:
 * random edits, no coverage feedback) with its properties checked, so each
 * submission's `make test` (CI) fuzzes every reader a little without clang;
 * XC_FUZZ_SECONDS sets the time per target (default 0.4), XC_FUZZ_SEED the
 * sequence (default 1).  A failing input is saved and named. */
XC_TEST(test_fuzz_mutate, "every fuzz target survives a brief mutation run of its corpus, properties held")
{
    char path[4200];
    snprintf(path, sizeof path, "%s/fuzz/corpus.txt", root());
    FILE *fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    const char *secs = getenv("XC_FUZZ_SECONDS");
    setenv("XC_FUZZ_MUTATE", secs && *secs ? secs : "0.4", 1);
    setenv("XC_FUZZ_CRASH_DIR", xc_test_tmpdir(), 1);
    char line[4096];
    int targets = 0;
    while (fgets(line, sizeof line, fp)) {
        char target[128], maxlen_s[32];
        long maxlen;
        int used = 0;
        if (line[0] == '#' || sscanf(line, "%127s %ld %n", target, &maxlen, &used) < 2)
            continue;
        targets++;
        snprintf(maxlen_s, sizeof maxlen_s, "%ld", maxlen);
        setenv("XC_FUZZ_MAXLEN", maxlen_s, 1);
        char log[4200];
        snprintf(log, sizeof log, "%s/%s.mutate.log", xc_test_tmpdir(), target);
        int n = 0, rc = replay(target, line + used, log, &n);
        /* the driver's last line (a target may print help texts before it) */
        char text[4097] = "";
        FILE *lf = fopen(log, "rb");
        if (lf) {
            fseek(lf, 0, SEEK_END);
            long sz = ftell(lf);
            fseek(lf, sz > 4096 ? sz - 4096 : 0, SEEK_SET);
            size_t got = fread(text, 1, 4096, lf);
            text[got] = 0;
            fclose(lf);
        }
        if (rc != 0) {
            printf("\n  %s: exit %d in the mutation run:", target, rc);
            show(log);
        }
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "mutated inputs in"));
    }
    fclose(fp);
    unsetenv("XC_FUZZ_MUTATE");
    unsetenv("XC_FUZZ_MAXLEN");
    unsetenv("XC_FUZZ_CRASH_DIR");
    XC_ASSERT_ABOVE((double)targets, 10);
}

XC_TEST(test_fuzz_mutate_saves_failure, "a failure in the mutation run exits non-zero and saves the input")
{
    char dir[4200], paths[4400], log[4300];
    snprintf(dir, sizeof dir, "%s/mutate-selftest", xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0777), 0);
    snprintf(paths, sizeof paths, "fuzz/seeds/dmplan");
    snprintf(log, sizeof log, "%s/selftest.log", dir);
    setenv("XC_FUZZ_MUTATE", "5", 1);
    setenv("XC_FUZZ_CRASH_DIR", dir, 1);
    setenv("XC_FUZZ_SELFTEST", "1", 1);
    int n = 0, rc = replay("fuzz_dmplan", paths, log, &n);
    unsetenv("XC_FUZZ_MUTATE");
    unsetenv("XC_FUZZ_CRASH_DIR");
    unsetenv("XC_FUZZ_SELFTEST");
    CU_ASSERT_NOT_EQUAL(rc, 0);
    char text[4096];
    xc_fx_slurp_into(log, text, sizeof text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "the input that failed is in"));
    char cmd[4600];
    snprintf(cmd, sizeof cmd, "ls %s/crash-fuzz_dmplan-* >/dev/null 2>&1", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

XC_TEST(test_fuzz_driver_fails, "the replay driver fails on an input it cannot read")
{
    char log[4200];
    snprintf(log, sizeof log, "%s/missing.log", xc_test_tmpdir());
    char paths[] = "fuzz/no-such-seed";
    int n = 0;
    /* the findings still replay; the missing path makes the exit status 1 */
    CU_ASSERT_EQUAL(replay("fuzz_dat", paths, log, &n), 0);
    char *argv[] = {NULL, "/nonexistent/fuzz-seed", NULL};
    char exe[4200];
    snprintf(exe, sizeof exe, "%s/fuzz/fuzz_dat", bindir());
    argv[0] = exe;
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(log, "w", stdout) || dup2(fileno(stdout), 2) < 0)
            _exit(125);
        execv(exe, argv);
        _exit(126);
    }
    int status = 0;
    CU_ASSERT_FATAL(pid > 0 && waitpid(pid, &status, 0) == pid);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
}

XC_TEST_MAIN("fuzz")
