/* xc_junit.h: verdict rows (xc_checks.h) as JUnit XML, the report format CI
 * systems read (GitHub Actions' test reporters, GitLab's `artifacts:reports:
 * junit`, Jenkins): one <testcase> per row, classname "<suite>.<impl>", name
 * the check; a failed row has a <failure> whose message is what was measured
 * and the bound it was held to, a skipped row a <skipped> with its reason. */
#ifndef XC_JUNIT_H
#define XC_JUNIT_H

#include "compare/check/xc_checks.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes l's rows to path atomically (core/base/xc_atomic.h) as one <testsuite>
 * named suite inside <testsuites>, with the counts and the run's seconds.
 * Text is XML-escaped; control characters other than tab and newline become
 * '?'.  XC_EINVAL for a NULL argument, XC_EIO naming the file. */
xc_status xc_checks_write_junit(const xc_checks *l, const char *suite, double seconds, const char *path,
                                xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
