/* xc_approx_logp.h: the appendix polynomial for ln p of the Pulscan paper
 * against the exact ln Q of chi-square (measurement 2 of xc_approx.h), over a
 * grid of power and dof (xc_logp_poly_error) and along chi2/dof curves. */
#ifndef XC_APPROX_LOGP_H
#define XC_APPROX_LOGP_H

#include "core/base/xc_error.h"
#include "core/search/stats/xc_signif.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XC_APPROX_NDOFCURVE 7
#define XC_APPROX_NRATIO 241

typedef struct {
    xc_logp_poly_grid grid;
    xc_logp_poly_err e1, e10;     /* the grid at rel_tol 1 % and 10 % */
    double dof[XC_APPROX_NDOFCURVE];
    double ratio[XC_APPROX_NRATIO];                          /* chi2/dof, log spaced */
    double relerr[XC_APPROX_NDOFCURVE][XC_APPROX_NRATIO];   /* |poly - exact| / |exact|; NAN outside */
    double abserr[XC_APPROX_NDOFCURVE][XC_APPROX_NRATIO];
    /* per curve dof: smallest ratio from which every larger one is within
     * 1 % / 10 % (NAN if the last is not) */
    double valid1[XC_APPROX_NDOFCURVE], valid10[XC_APPROX_NDOFCURVE];
} xc_logp_check;

/* The grid: dof 2..24020 (2 bins up to 10 harmonic bins x 1201 widths) in 40
 * log steps, chi2/dof 1..1000 in 301; curves at dof 2, 6, 20, 60, 200, 2000,
 * 24020 over chi2/dof 1..1000.  XC_EINVAL / XC_ENOMEM from xc_logp_poly_error. */
xc_status xc_approx_logp(xc_logp_check *out, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
