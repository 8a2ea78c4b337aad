#include "tests/xc_test.h"
#include "core/base/xc_strlist.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[256];

static void cleanup_tmpdir(void)
{
    if (tmpdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "warning: could not remove %s\n", tmpdir);
    }
}

const char *xc_test_tmpdir(void)
{
    if (!tmpdir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/xc_test.XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(2);
        }
        atexit(cleanup_tmpdir);
    }
    return tmpdir;
}

const char *xc_test_datasets(void)
{
    const char *d = getenv("XC_DATASETS");
    return d && *d ? d : "datasets";
}

/* XC_TEST_TIMES set: each case's CPU seconds (user + system, its threads
 * and the programs it waited for) and wall seconds, one line
 * "XC-TIME <suite>/<case> cpu=S wall=S" after the case, to find what makes
 * `make test` long. */
static double case_cpu0, case_wall0;

static double cpu_now(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) +
           1e-6 * (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec + kids.ru_stime.tv_usec);
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void case_start(void)
{
    case_cpu0 = cpu_now();
    case_wall0 = wall_now();
}

static void case_end(void)
{
    CU_pTest t = CU_get_current_test();
    CU_pSuite s = CU_get_current_suite();
    printf("\nXC-TIME %s/%s cpu=%.2f wall=%.2f\n", s ? s->pName : "?", t ? t->pName : "?", cpu_now() - case_cpu0,
           wall_now() - case_wall0);
}

int xc_test_run(const char *suite_name, const xc_testcase *cases, size_t n)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    const char *times = getenv("XC_TEST_TIMES");
    CU_pSuite s = times && *times ? CU_add_suite_with_setup_and_teardown(suite_name, NULL, NULL, case_start, case_end)
                                  : CU_add_suite(suite_name, NULL, NULL);
    if (!s)
        return 2;
    for (size_t i = 0; i < n; i++) {
        CU_pTest t = CU_add_test(s, cases[i].name, cases[i].fn);
        if (!t)
            return 2;
        char why[256] = "";
        const char *only = getenv("XC_TEST_ONLY"), *skip = getenv("XC_TEST_SKIP");
        if (only && *only && !xc_strlist_has(only, cases[i].name)) {
            CU_set_test_active(t, CU_FALSE);
            printf("SKIPPED %s/%s: not selected by XC_TEST_ONLY\n", suite_name, cases[i].name);
        } else if (skip && *skip && xc_strlist_has(skip, cases[i].name)) {
            CU_set_test_active(t, CU_FALSE);
            printf("SKIPPED %s/%s: left out by XC_TEST_SKIP\n", suite_name, cases[i].name);
        } else if (cases[i].skip && cases[i].skip(why, sizeof why)) {
            CU_set_test_active(t, CU_FALSE);
            printf("SKIPPED %s/%s: %s\n", suite_name, cases[i].name, why);
        }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned run = CU_get_number_of_tests_run();
    unsigned failed = CU_get_number_of_tests_failed();
    unsigned afail = CU_get_number_of_failures();
    unsigned inactive = CU_get_run_summary()->nTestsInactive;
    printf("\nXC-SUMMARY %s run=%u failed=%u inactive=%u\n", suite_name, run, failed, inactive);
    CU_cleanup_registry();
    return (failed || afail) ? 1 : 0;
}

/* The cases XC_TEST registered, with the line each stands at. */
#define XC_MAX_CASES 256
static xc_testcase registered[XC_MAX_CASES];
static int registered_line[XC_MAX_CASES];
static size_t nregistered;

void xc_test_register(const char *name, void (*fn)(void), int (*skip)(char *why, size_t n), int line)
{
    if (nregistered == XC_MAX_CASES) {
        fprintf(stderr, "xc_test_register: more than %d cases (%s)\n", XC_MAX_CASES, name);
        exit(2);
    }
    /* constructors may run in any order: keep the list sorted by line */
    size_t i = nregistered++;
    for (; i > 0 && registered_line[i - 1] > line; i--) {
        registered[i] = registered[i - 1];
        registered_line[i] = registered_line[i - 1];
    }
    registered[i] = (xc_testcase){name, fn, skip};
    registered_line[i] = line;
}

int xc_test_main(const char *suite)
{
    if (nregistered == 0) {
        fprintf(stderr, "%s: no cases registered\n", suite);
        return 2;
    }
    return xc_test_run(suite, registered, nregistered);
}
