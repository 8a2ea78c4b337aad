/* A crosscheck plugin: a straightforward CPU dedisperser, the kind of code a
 * survey keeps in its own library.  It computes its own per-channel delays
 * from the DM, the channel frequencies and the convention's k_DM and
 * rounding (as a user's library would: it is not handed crosscheck's delay
 * table), sums the channels in the obvious loops and scales the sum with the
 * convention's scaling through the host table.
 *
 * Built twice by crosscheck's Makefile (and by this folder's Makefile against
 * an installed crosscheck):
 *   libxcdd_ok.so    correct
 *   libxcdd_bug.so   -DPLANTED_BUG: one realistic slip, the delay truncated
 *                    instead of rounded to the nearest sample, so a channel
 *                    whose delay has a fractional part >= 0.5 is summed one
 *                    sample early; `crosscheck gate dedisperse` names the DM,
 *                    the sample and the channel.
 * Three more variants are the test suite's fixtures: -DPLANTED_CRASH (a null
 * write) and -DPLANTED_HANG (an endless loop) for the isolation of plugins,
 * -DPLANTED_ABI (built as if against plugin ABI 2.0) for the version check.
 *
 * Only the headers of crosscheck are needed (pkg-config --cflags crosscheck);
 * nothing of libcrosscheck is linked: what the plugin calls of crosscheck
 * comes through the host table. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "xc_plugin.h"

#ifdef PLANTED_BUG
#define IMPL_NAME "mydedisp-buggy"
#define IMPL_DESC "example plugin: direct CPU dedispersion, planted bug (delay truncated, not rounded)"
#else
#define IMPL_NAME "mydedisp"
#define IMPL_DESC "example plugin: direct CPU dedispersion (examples/plugin-dedisp)"
#endif

static const xc_plugin_host *host;

/* The delay of channel frequency f at DM dm, in samples of dt, rounded as
 * the convention says (measured from the highest frequency fref). */
static int64_t delay_samples(const xc_convention *cv, double dm, double f, double fref, double dt)
{
    double d = cv->kdm * dm * (1.0 / (f * f) - 1.0 / (fref * fref)) / dt;
#ifdef PLANTED_BUG
    return (int64_t)d;   /* the slip: truncation, whatever the convention says */
#else
    switch (cv->rounding) {
    case XC_ROUND_HALF_EVEN: return (int64_t)rint(d);
    case XC_ROUND_TRUNC: return (int64_t)d;
    case XC_ROUND_HALF_AWAY: break;
    }
    return (int64_t)round(d);
#endif
}

static xc_status my_run(const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    const xc_block *in = job->in;
    const xc_geometry *g = &job->geom;
    int nc = in->nchans;
    if (job->conv->precision != XC_PREC_DOUBLE)
        return host->error_set(err, XC_EINVAL, IMPL_NAME ": convention %s: only delays computed in double are "
                               "supported", job->conv->name);
    double fref = g->fch1 + (g->foff > 0 ? (nc - 1) * g->foff : 0.0);
    int64_t *delay = malloc((size_t)nc * sizeof *delay);
    if (!delay)
        return host->error_set(err, XC_ENOMEM, IMPL_NAME ": out of memory for %d delays", nc);
    for (int k = 0; k < job->plan->nranges; k++) {
        const xc_dmrange *r = &job->plan->r[k];
        xc_planerange *o = &out->r[k];
        int ds = r->ds;
        for (size_t j = 0; j < r->ndm; j++) {
            for (int c = 0; c < nc; c++)
                delay[c] = delay_samples(job->conv, r->dms[j], g->fch1 + c * g->foff, fref, g->tsamp * ds);
            for (size_t t = 0; t < o->nsamp; t++) {
                double fsum = 0;
                uint64_t isum = 0;
                for (int c = 0; c < nc; c++) {
                    if (job->killmask && !job->killmask[c])
                        continue;
                    for (int i = 0; i < ds; i++) {
                        size_t idx = ((t + (size_t)delay[c]) * (size_t)ds + (size_t)i) * (size_t)nc + (size_t)c;
                        if (in->nbits == 32)
                            fsum += in->f32[idx];
                        else
                            isum += in->u16[idx];
                    }
                }
                o->data[j * o->nsamp + t] = in->nbits == 32 ? host->scale_real(job->conv, fsum, nc, ds, in->nbits)
                                                            : host->scale_int(job->conv, isum, nc, ds, in->nbits);
            }
        }
    }
#ifdef PLANTED_CRASH
    *(volatile int *)(uintptr_t)0 = 1;
#endif
#ifdef PLANTED_HANG
    for (volatile int spin = 1; spin;)
        ;
#endif
    free(delay);
    return XC_OK;
}

static const xc_dedisperser mine = {
    {XC_FAMILY_DEDISPERSE, IMPL_NAME, IMPL_DESC, {XC_TOL_ROUNDING, 1.0}, XC_CAP_RUNTIME, NULL},
    NULL, NULL, NULL, my_run, NULL};

static xc_status init(const xc_plugin_host *h, xc_error *err)
{
    host = h;
    return h->add(h, &mine.impl, err);
}

#ifdef PLANTED_ABI
/* The test suite's fixture for the version check: a plugin built against a
 * future major version of the ABI. */
#undef XC_PLUGIN_ABI_MAJOR
#define XC_PLUGIN_ABI_MAJOR 2
#endif

XC_PLUGIN_DEFINE("mydedisp", "1.0", init)
