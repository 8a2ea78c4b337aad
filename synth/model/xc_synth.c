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

/* ---- bursts ---------------------------------------------------------------------- */

void xc_synth_pulse_init(xc_synth_pulse *pl, double t_s, double dm, double width_ms, double snr)
{
    *pl = (xc_synth_pulse){t_s, dm, width_ms, snr, 0.0, 0.0, XC_SYNTH_TAU_REF_MHZ, XC_SYNTH_TAU_INDEX, 0.0};
}

int xc_synth_pulse_is_burst(const xc_synth_pulse *pl)
{
    return pl->fluence_jyms != 0 || pl->tau_ms != 0 || pl->alpha != 0;
}

double xc_synth_pulse_snr(const xc_synth_params *p, const xc_synth_pulse *pl)
{
    if (!(pl->fluence_jyms > 0))
        return pl->snr;
    const double w = pl->width_ms * 1e-3;
    /* the area of the unit-peak profile: the top hat's width, sigma sqrt(2 pi) of the Gaussian */
    const double weq = p->profile == XC_PROFILE_GAUSSIAN ? w / 2.3548200450309493 * 2.5066282746310002 : w;
    const double speak = pl->fluence_jyms * 1e-3 / weq;
    return speak / p->sefd_jy * sqrt((double)p->npol * p->nchans * fabs(p->foff) * 1e6 * p->tsamp);
}

double xc_synth_pulse_tau(const xc_synth_pulse *pl, double f)
{
    return pl->tau_ms > 0 ? pl->tau_ms * 1e-3 * pow(f / pl->tau_ref_mhz, pl->tau_index) : 0.0;
}

double xc_synth_pulse_spectral_mean(const xc_synth_params *p, const xc_synth_pulse *pl)
{
    if (pl->alpha == 0)
        return 1.0;
    double s = 0;
    for (int c = 0; c < p->nchans; c++)
        s += pow((p->fch1 - c * fabs(p->foff)) / p->fch1, pl->alpha);
    return s / p->nchans;
}

double xc_synth_pulse_spectral_weight(const xc_synth_params *p, const xc_synth_pulse *pl, int c, double mean)
{
    return pl->alpha == 0 ? 1.0 : pow((p->fch1 - c * fabs(p->foff)) / p->fch1, pl->alpha) / mean;
}
