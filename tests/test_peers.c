/* The peer report's glue without a peer (examples/peers/): the report skips
 * every peer not given, with a line naming it, and the single-pulse check
 * passes a stand-in that finds what crosscheck finds and fails one that
 * finds nothing (tests/peers/single-pulse/).  The real peers are judged by
 * `make peers-report`, never here. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* Runs `sh -c CMD` from the repository root (xc_fx_sh). */
static int run(char *out, size_t n, const char *cmd)
{
    return xc_fx_sh(out, n, cmd);
}

static int has(const char *out, const char *text)
{
    if (strstr(out, text))
        return 1;
    printf("\n  expected \"%s\" in:\n%s", text, out);
    return 0;
}

XC_TEST_IF(test_report_skips, "peers report: a peer not given is a skipped line, exit 0", xc_fx_skip_no_bin)
{
    char root[PATH_MAX], cmd[4 * PATH_MAX], out[8192];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(root, sizeof root));
    /* in the temporary folder: the report writes build/peers-report there */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env -u PEER_PRESTO -u PEER_PULSCAN -u PEER_SIGPROC -u PEER_SIGPYPROC -u PEER_DEDISP "
             "sh '%s/examples/peers/report.sh' '%s/%s'", xc_test_tmpdir(), root, root, xc_fx_bin());
    XC_ASSERT_NEAR(run(out, sizeof out, cmd), 0, 0);
    CU_ASSERT(has(out, "skipped: PEER_PRESTO not set (prepsubband, realfft, accelsearch, single_pulse_search.py)"));
    CU_ASSERT(has(out, "skipped: PEER_SIGPYPROC not set (sigpyproc dedisperse and rfft)"));
    CU_ASSERT(has(out, "skipped: PEER_PULSCAN not set"));
    CU_ASSERT(has(out, "skipped: PEER_SIGPROC not set"));
    CU_ASSERT(has(out, "skipped: PEER_DEDISP not set"));
}

/* The check needs a python with numpy and scipy (python-of.sh), as the
 * script it runs does. */
static int skip_no_python(char *why, size_t n)
{
    char out[512];
    if (xc_fx_skip_no_bin(why, n))
        return 1;
    if (run(out, sizeof out, "sh examples/peers/presto/python-of.sh") == 0)
        return 0;
    snprintf(why, n, "no python with numpy and scipy (examples/peers/presto/python-of.sh)");
    return 1;
}

/* The check is `gate singlepulse -cmd -input dat` on the script; with the
 * stand-in (tests/peers/single-pulse/single_pulse_search.py) for it. */
XC_TEST_IF(test_single_pulse_check, "single-pulse check: a stand-in that searches passes the gate, an empty one fails",
           skip_no_python)
{
    char cmd[4 * PATH_MAX], out[16384];
    /* finds nothing: no burst, and no event on noise (the reference has tens) */
    snprintf(cmd, sizeof cmd, "sh examples/peers/presto/single-pulse-check.sh tests/peers/single-pulse %s '%s/sp0'",
             xc_fx_bin(), xc_test_tmpdir());
    XC_ASSERT_NEAR(run(out, sizeof out, cmd), 1, 0);
    CU_ASSERT(has(out, "single_pulse_search.py DIFFERS: sp-bursts: finds every burst; sp-noise: events above S/N 4 "
                       "on noise"));
    CU_ASSERT(has(out, "0 of 3 found"));
    /* the stand-in's numpy search of the presto preset: every row passes */
    snprintf(cmd, sizeof cmd, "SP_STANDIN=search sh examples/peers/presto/single-pulse-check.sh "
             "tests/peers/single-pulse %s '%s/sp1'", xc_fx_bin(), xc_test_tmpdir());
    XC_ASSERT_NEAR(run(out, sizeof out, cmd), 0, 0);
    CU_ASSERT(has(out, "3 of 3 found"));
    CU_ASSERT(has(out, "single_pulse_search.py agrees"));
}

XC_TEST_MAIN("peers")
