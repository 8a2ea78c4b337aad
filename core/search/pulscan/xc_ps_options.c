/* The search options and the input checks every searcher runs first. */
#include "core/search/xc_search.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_sf_erf.h>
#include <omp.h>

#include "core/io/xc_presto.h"
#include "core/search/stats/xc_signif.h"

void xc_psopts_default(xc_psopts *o)
{
    /* every field not named is 0 */
    *o = (xc_psopts){.zmax = 200, .numharm = 1, .sigma = 2.0, .zstep = 2, .chunkwidth = 32768, .normwidth = 6000,
                     .flo = 1.0, .rlo = NAN};
}

xc_status xc_psopts_check(const xc_psopts *o, xc_error *err)
{
    if (o->zmax < 0 || o->zmax > 100000)
        return xc_error_set(err, XC_EINVAL, "-zmax %d is outside 0..100000", o->zmax);
    if (o->numharm < 1 || o->numharm > 8)
        return xc_error_set(err, XC_EINVAL, "-numharm %d is outside 1..8", o->numharm);
    if (!(o->sigma >= 0) || !isfinite(o->sigma))
        return xc_error_set(err, XC_EINVAL, "-sigma %g must be a finite number >= 0", o->sigma);
    if (o->zstep < 1)
        return xc_error_set(err, XC_EINVAL, "-zstep %d must be >= 1", o->zstep);
    if (o->chunkwidth < 1)
        return xc_error_set(err, XC_EINVAL, "-chunkwidth must be >= 1 bin");
    if (o->normwidth < 16)
        return xc_error_set(err, XC_EINVAL, "-normalizechunkwidth %zu must be >= 16 bins", o->normwidth);
    if (o->threads < 0 || o->tile < 0)
        return xc_error_set(err, XC_EINVAL, "threads (%d) and tile (%d) must be >= 0", o->threads, o->tile);
    if (!(o->flo >= 0) || !isfinite(o->flo))
        return xc_error_set(err, XC_EINVAL, "-flo %g must be a finite frequency >= 0 Hz", o->flo);
    if (!isnan(o->rlo) && (!(o->rlo >= 0) || !isfinite(o->rlo)))
        return xc_error_set(err, XC_EINVAL, "-rlo %g must be a finite bin >= 0", o->rlo);
    if (o->rednoise != 0 && o->rednoise != 1)
        return xc_error_set(err, XC_EINVAL, "rednoise %d must be 0 or 1", o->rednoise);
    if (o->norm != XC_NORM_EXACT && o->norm != XC_NORM_MOM)
        return xc_error_set(err, XC_EINVAL, "normalisation mode %d is unknown", (int)o->norm);
    if (o->logp != XC_LOGP_EXACT && o->logp != XC_LOGP_POLY)
        return xc_error_set(err, XC_EINVAL, "logp mode %d is unknown", (int)o->logp);
    return XC_OK;
}

double xc_pulscan_rlo(const xc_psopts *o, double T)
{
    double r = isnan(o->rlo) ? floor(o->flo * T) : o->rlo;
    return r > 1 ? r : 1;
}

xc_status xc_pulscan_check_shape(const xc_spectrum *sp, xc_error *err)
{
    if (!sp || !sp->data || sp->nbins < 2)
        return xc_error_set(err, XC_EINVAL, "the spectrum needs at least 2 complex bins (has %zu)",
                            sp && sp->data ? sp->nbins : 0);
    if (!(sp->T > 0))
        return xc_error_set(err, XC_EINVAL, "observation length T = %g s is not > 0", sp->T);
    return XC_OK;
}

xc_status xc_pulscan_check_input(const xc_spectrum *sp, const xc_psopts *o, xc_error *err)
{
    xc_status st = xc_psopts_check(o, err);
    if (!st)
        st = xc_pulscan_check_shape(sp, err);
    if (st)
        return st;
    /* An OR over the exponent bits vectorises; the slow search for the
     * culprit runs only when there is one. */
    unsigned bad = 0;
    size_t n = 2 * sp->nbins;
    for (size_t k = 0; k < n; k++) {
        uint32_t u;
        memcpy(&u, &sp->data[k], sizeof u);
        bad |= (u & 0x7f800000u) == 0x7f800000u;
    }
    for (size_t k = 0; bad && k < n; k++)
        if (!isfinite(sp->data[k]))
            return xc_error_set(err, XC_EFORMAT, "bin %zu (%s part, byte offset %zu) is %g: not finite", k / 2,
                                k % 2 ? "imaginary" : "real", k * sizeof(float), (double)sp->data[k]);
    return XC_OK;
}

