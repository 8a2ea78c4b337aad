/* xc_test.h: the small harness every CUnit test program shares.
 * Each tests/test_<module>.c is its own executable with a table of cases;
 * tests/run.sh runs them all and adds up the counts. */
#ifndef XC_TEST_H
#define XC_TEST_H

#include <CUnit/CUnit.h>
#include <stddef.h>

typedef struct {
    const char *name;
    void (*fn)(void);
    /* NULL, or returns non-zero with a reason when the case cannot run here
     * (no CUDA device...): the case is then marked inactive, never passed. */
    int (*skip)(char *why, size_t n);
} xc_testcase;

/* Runs the cases as one suite (only those named in the comma-separated
 * environment variable XC_TEST_ONLY when it is set: the others are inactive,
 * e.g. to keep a compute-sanitizer run short), prints CUnit's summary and a line
 * "XC-SUMMARY <suite> run=N failed=F inactive=I" for tests/run.sh.
 * Returns the process exit code (0 only if nothing failed). */
int xc_test_run(const char *suite, const xc_testcase *cases, size_t n);

/* Directory holding the repository's datasets (XC_DATASETS or "datasets"). */
const char *xc_test_datasets(void);
/* A fresh temporary directory for this test program (removed at exit). */
const char *xc_test_tmpdir(void);

#define XC_NCASES(a) (sizeof(a) / sizeof((a)[0]))

/* Asserts |a - b| <= tol and prints both on failure. */
#define XC_ASSERT_CLOSE(a, b, tol) CU_ASSERT_DOUBLE_EQUAL((a), (b), (tol))

#endif
