/* The appendix polynomial for ln p against the exact ln Q (xc_approx_logp.h). */
#include "approx/pulscan/xc_approx_logp.h"

#include <math.h>
#include <string.h>

xc_status xc_approx_logp(xc_logp_check *out, xc_error *err)
{
    static const double dofs[XC_APPROX_NDOFCURVE] = {2, 6, 20, 60, 200, 2000, 24020};
    memset(out, 0, sizeof *out);
    xc_logp_poly_grid g = {2, 24020, 40, 1.0, 1000.0, 301, 0.01};
    out->grid = g;
    xc_status st = xc_logp_poly_error(&g, &out->e1, err);
    if (st)
        return st;
    g.rel_tol = 0.10;
    if ((st = xc_logp_poly_error(&g, &out->e10, err)))
        return st;
    for (int j = 0; j < XC_APPROX_NRATIO; j++)
        out->ratio[j] = pow(1000.0, (double)j / (XC_APPROX_NRATIO - 1));
    for (int i = 0; i < XC_APPROX_NDOFCURVE; i++) {
        double dof = out->dof[i] = dofs[i];
        out->valid1[i] = out->valid10[i] = NAN;
        int ok1 = 1, ok10 = 1;
        for (int j = XC_APPROX_NRATIO - 1; j >= 0; j--) {
            double chi2 = dof * out->ratio[j], p = xc_logp_poly(chi2, dof), e = xc_chi2_logq(chi2, dof);
            double ae = fabs(p - e), re = e != 0 ? ae / fabs(e) : (ae == 0 ? 0 : INFINITY);
            out->abserr[i][j] = isnan(p) ? NAN : ae;
            out->relerr[i][j] = isnan(p) ? NAN : re;
            ok1 = ok1 && re <= 0.01;
            ok10 = ok10 && re <= 0.10;
            if (ok1)
                out->valid1[i] = out->ratio[j];
            if (ok10)
                out->valid10[i] = out->ratio[j];
        }
    }
    return XC_OK;
}
