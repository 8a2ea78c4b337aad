/* xc_assert.h: CUnit assertions on numbers that say, when they fail, what was
 * observed and what was expected.  CU_ASSERT_DOUBLE_EQUAL records only the
 * expression's text (tests use XC_ASSERT_NEAR, or XC_ASSERT_CLOSE, which is
 * the same); these record
 *   "<observed expr> = <value>, expected <expected expr> = <value>,
 *    tolerance <tol> (|difference| <d>)"
 * as the failure's condition, which CUnit's summary prints with file and line.
 * A NAN on either side fails. */
#ifndef XC_ASSERT_H
#define XC_ASSERT_H

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>

static inline CU_BOOL xc_assert_near_impl(double obs, double exp, double tol, const char *so, const char *se,
                                          unsigned line, const char *file, const char *fn, CU_BOOL fatal)
{
    CU_BOOL ok = fabs(obs - exp) <= tol ? CU_TRUE : CU_FALSE;
    char msg[512];
    if (ok)
        snprintf(msg, sizeof msg, "XC_ASSERT_NEAR(%s, %s)", so, se);
    else
        snprintf(msg, sizeof msg, "%s = %.17g, expected %s = %.17g, tolerance %.6g (|difference| %.6g)", so, obs, se,
                 exp, tol, fabs(obs - exp));
    return CU_assertImplementation(ok, line, msg, file, fn, fatal);
}

/* obs < bound (below = 1) or obs > bound (below = 0), with both values on failure. */
static inline CU_BOOL xc_assert_bound_impl(double obs, double bound, int below, const char *so, const char *sb,
                                           unsigned line, const char *file, const char *fn)
{
    CU_BOOL ok = (below ? obs < bound : obs > bound) ? CU_TRUE : CU_FALSE;
    char msg[512];
    snprintf(msg, sizeof msg, "%s = %.17g, expected %s %s = %.17g", so, obs, below ? "<" : ">", sb, bound);
    return CU_assertImplementation(ok, line, msg, file, fn, CU_FALSE);
}

/* |obs - exp| <= tol */
#define XC_ASSERT_NEAR(obs, exp, tol) \
    xc_assert_near_impl((obs), (exp), (tol), #obs, #exp, __LINE__, __FILE__, __func__, CU_FALSE)
#define XC_ASSERT_NEAR_FATAL(obs, exp, tol) \
    xc_assert_near_impl((obs), (exp), (tol), #obs, #exp, __LINE__, __FILE__, __func__, CU_TRUE)
/* obs < bound, obs > bound */
#define XC_ASSERT_BELOW(obs, bound) xc_assert_bound_impl((obs), (bound), 1, #obs, #bound, __LINE__, __FILE__, __func__)
#define XC_ASSERT_ABOVE(obs, bound) xc_assert_bound_impl((obs), (bound), 0, #obs, #bound, __LINE__, __FILE__, __func__)

#endif
