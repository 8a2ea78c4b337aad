/* The observation's geometry from the synthesizer's parameters: the
 * channels' frequencies, the samples and the dispersion delay, below the
 * parameter checks and the timing model that both use them. */
#include "synth/model/xc_synth.h"

#include <math.h>

double xc_synth_lowest_freq(const xc_synth_params *p)
{
    return p->fch1 - ((double)p->nchans - 1 + (p->smear ? 0.5 : 0.0)) * fabs(p->foff);
}

uint64_t xc_synth_nsamp(const xc_synth_params *p)
{
    /* fake rounds up to a multiple of its 512-spectrum block; a test needs the
     * length it asked for. */
    double n = round(p->tobs / p->tsamp);
    return n > 0 ? (uint64_t)n : 0;
}

double xc_synth_foff(const xc_synth_params *p)
{
    /* fake: "make sure first channel is always highest frequency". */
    return -fabs(p->foff);
}

double xc_synth_delay(const xc_synth_params *p, double dm, double f)
{
    return p->convention->kdm * dm * (1.0 / (f * f) - 1.0 / (p->fch1 * p->fch1));
}
