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

/* A delay in samples, rounded as the convention says; PLANTED_BUG
 * truncates whatever the convention says. */
static int64_t rounded(double d, xc_rounding r)
{
#ifdef PLANTED_BUG
    (void)r;
    return (int64_t)d;   /* the slip: truncation */
#else
    switch (r) {
    case XC_ROUND_HALF_EVEN: return (int64_t)nearbyint(d);
    case XC_ROUND_TRUNC: return (int64_t)trunc(d);
    case XC_ROUND_HALF_AWAY: break;
    }
    return (int64_t)round(d);
#endif
}

/* The delays of every channel at DM dm, in samples of dt, measured from the
 * highest frequency fref: in double from the exact formula, or (conventions
 * of dedisp and AstroAccelerate, XC_PREC_FLOAT) from dedisp's float table,
 * the product taken in float. */
static void delays(const xc_convention *cv, const xc_geometry *g, int nc, double dm, double fref, double dt,
                   int64_t *out)
{
    for (int c = 0; c < nc; c++) {
        if (cv->precision == XC_PREC_DOUBLE) {
            double f = g->fch1 + c * g->foff;
            out[c] = rounded(cv->kdm * dm * (1.0 / (f * f) - 1.0 / (fref * fref)) / dt, cv->rounding);
        } else {
            float a = 1.f / ((float)g->fch1 + (float)c * (float)g->foff), b = 1.f / (float)fref;
            float table = (float)(cv->kdm / dt * (double)(a * a - b * b));
            out[c] = rounded((double)((float)dm * table), cv->rounding);
        }
    }
}

static xc_status my_run(const xc_dedisperser *self, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    (void)self;
    const xc_block *in = job->in;
    const xc_geometry *g = &job->geom;
    int nc = in->nchans;
    double fref = g->fch1 + (g->foff > 0 ? (nc - 1) * g->foff : 0.0);
    int64_t *delay = malloc((size_t)nc * sizeof *delay);
    if (!delay)
        return host->error_set(err, XC_ENOMEM, IMPL_NAME ": out of memory for %d delays", nc);
    for (int k = 0; k < job->plan->nranges; k++) {
        const xc_dmrange *r = &job->plan->r[k];
        xc_planerange *o = &out->r[k];
        int ds = r->ds;
        for (size_t j = 0; j < r->ndm; j++) {
            delays(job->conv, g, nc, r->dms[j], fref, g->tsamp * ds, delay);
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
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = IMPL_NAME, .tol = {XC_TOL_ROUNDING, 1.0}, .caps = XC_CAP_RUNTIME,
             .desc = ""},
    .run = my_run};

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
