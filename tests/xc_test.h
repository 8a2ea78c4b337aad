/* xc_test.h: the small harness every CUnit test program shares.
 * Each tests/test_<module>.c is its own executable with a table of cases;
 * tests/run.sh runs them all and adds up the counts. */
#ifndef XC_TEST_H
#define XC_TEST_H

#include <CUnit/CUnit.h>
#include <stddef.h>

#include "tests/xc_assert.h"

typedef struct {
    const char *name;
    void (*fn)(void);
    /* NULL, or returns non-zero with a reason when the case cannot run here
     * (no CUDA device...): the case is then marked inactive, never passed. */
    int (*skip)(char *why, size_t n);
} xc_testcase;

/* Runs the cases as one suite (only those named in the comma-separated
 * environment variable XC_TEST_ONLY when it is set: the others are inactive,
 * e.g. to keep a compute-sanitizer run short; none named in XC_TEST_SKIP,
 * e.g. cases that make CUDA report errors on purpose), with XC_TEST_TIMES set a line
 * "XC-TIME <suite>/<case> cpu=S wall=S" after each case, prints CUnit's summary and a line
 * "XC-SUMMARY <suite> run=N failed=F inactive=I" for tests/run.sh.
 * Returns the process exit code (0 only if nothing failed). */
int xc_test_run(const char *suite, const xc_testcase *cases, size_t n);

/* Directory holding the repository's datasets (XC_DATASETS or "datasets"). */
const char *xc_test_datasets(void);
/* A fresh temporary directory for this test program (removed at exit). */
const char *xc_test_tmpdir(void);

#define XC_NCASES(a) (sizeof(a) / sizeof((a)[0]))

/* Cases that register themselves, so no test program keeps a table:
 *
 *   XC_TEST(test_sort, "sort")
 *   {
 *       ...CUnit assertions...
 *   }
 *   XC_TEST_IF(test_gpu_device, "gpu_device", xc_fx_skip_gpu) { ... }
 *   XC_TEST_MAIN("cands")
 *
 * defines the case function (static void fn(void)) and, run before main, adds
 * it under the name (with its skip test, or NULL) to this program's list;
 * xc_test_main runs that list through xc_test_run in the order the cases
 * stand in the file. */
void xc_test_register(const char *name, void (*fn)(void), int (*skip)(char *why, size_t n), int line);
int xc_test_main(const char *suite);

#define XC_TEST_IF(fn, name, skipfn) \
    static void fn(void); \
    __attribute__((constructor)) static void fn##_xc_register(void) \
    { \
        xc_test_register((name), fn, (skipfn), __LINE__); \
    } \
    static void fn(void)
#define XC_TEST(fn, name) XC_TEST_IF(fn, name, NULL)
/* main() of a test program that needs nothing before its cases run. */
#define XC_TEST_MAIN(suite) \
    int main(void) \
    { \
        return xc_test_main(suite); \
    }

/* Asserts |a - b| <= tol; on failure prints both values and the tolerance. */
#define XC_ASSERT_CLOSE(a, b, tol) XC_ASSERT_NEAR(a, b, tol)

#endif
