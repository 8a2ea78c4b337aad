/* The README's examples, run in order as written (scripts/readme-examples.sh):
 * the ```sh blocks here, the ```sh long ones under `make test-readme-long`.
 * And the runner itself: a failing example, a wrong exit status and an
 * expected non-zero one are judged as its header says. */
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

static char bindir[PATH_MAX], out[1 << 16];

static int skip_no_bin(char *why, size_t n)
{
    if (xc_fx_skip_no_bin(why, n))
        return 1;
    char tmp[PATH_MAX];
    if (!realpath(xc_fx_bin(), tmp)) {
        snprintf(why, n, "%s: cannot resolve", xc_fx_bin());
        return 1;
    }
    snprintf(bindir, sizeof bindir, "%s", dirname(tmp));
    return 0;
}

/* Runs the script (from the repository root, where the tests run) on
 * `readme` with the extra options; its output in `out`, its exit status
 * returned (-1: it did not exit). */
static int run_script(const char *opts, const char *readme)
{
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "sh scripts/readme-examples.sh -bin '%s' %s '%s' 2>&1", bindir, opts, readme);
    FILE *p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    size_t got = 0, r;
    while (got + 1 < sizeof out && (r = fread(out + got, 1, sizeof out - 1 - got, p)) > 0)
        got += r;
    out[got] = 0;
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static const char *write_readme(const char *name, const char *text)
{
    const char *path = xc_fx_tmp(name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    return path;
}

XC_TEST_IF(test_readme_examples, "readme_examples", skip_no_bin)
{
    int rc = run_script("", "README.md");
    printf("\n%s", out);
    if (rc != 0)
        printf("    exit %d, expected 0\n", rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "passed in"));
}

XC_TEST_IF(test_runner_judges, "runner_judges", skip_no_bin)
{
    /* the second command fails: exit 1, naming its line, the command and the
     * status; the third is never reached */
    const char *a = write_readme("ra.md", "text\n```sh\ntrue\n\n# a comment line\nfalse \\\n  --flag\n"
                                          "touch reached\n```\n");
    int rc = run_script("", a);
    if (rc != 1 || !strstr(out, "ra.md:6: exit 1 (expected 0)") || !strstr(out, "false    --flag") ||
        strstr(out, "touch reached"))
        printf("\n    exit %d (expected 1), output:\n%s", rc, out);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "ra.md:6: exit 1 (expected 0)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "false    --flag"));
    CU_ASSERT_PTR_NULL(strstr(out, "touch reached"));
    /* an expected status, met and missed; norun and long blocks skipped by
     * default, the long one run by -long */
    const char *b = write_readme("rb.md", "```sh\nsh -c 'exit 3'   # exit 3: as documented\n```\n"
                                          "```sh norun\nfalse\n```\n```sh long\nexit 5\n```\n```text\nfalse\n```\n");
    rc = run_script("", b);
    if (rc != 0 || !strstr(out, "1 examples of tier default passed"))
        printf("\n    exit %d (expected 0), output:\n%s", rc, out);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "1 examples of tier default passed"));
    rc = run_script("-long", b);
    if (rc != 1 || !strstr(out, "rb.md:8: exit 5 (expected 0)"))
        printf("\n    exit %d (expected 1), output:\n%s", rc, out);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "rb.md:8: exit 5 (expected 0)"));
    const char *c = write_readme("rc.md", "```sh\nsh -c 'exit 0'   # exit 3\n```\n");
    CU_ASSERT_EQUAL(run_script("", c), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "exit 0 (expected 3)"));
    /* no example: a usage error, not a pass */
    const char *d = write_readme("rd.md", "no examples\n");
    CU_ASSERT_EQUAL(run_script("", d), 2);
}

XC_TEST_MAIN("readme")
