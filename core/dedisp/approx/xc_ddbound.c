/* The per-trial bounds of approximate dedispersers (core/dedisp/approx/xc_ddbound.h). */
#include "core/dedisp/approx/xc_ddbound.h"

#include <math.h>
#include <stdlib.h>

void xc_ddbound_free(xc_ddbound **b, int nranges)
{
    for (int k = 0; b && k < nranges; k++)
        free(b[k]);
    free(b);
}

double xc_subband_loss_bound(double width, double spread)
{
    return spread > 0 && width > 0 ? 1 - sqrt(width / (width + spread)) : 0;
}
