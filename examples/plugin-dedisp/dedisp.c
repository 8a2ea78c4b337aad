/* A crosscheck plugin: a straightforward CPU dedisperser, the kind of code a
 * survey keeps in its own library.  It computes its own per-channel delays
 * from the DM, the channel frequencies and the convention's k_DM and
 * rounding (as a user's library would: it does not use the delays crosscheck
 * hands it in job->range[k].delays), sums the channels in the obvious loops
 * and scales the sum with the convention's scaling through the host table.
 *
 * Built by crosscheck's Makefile, and by this folder's Makefile against an
 * installed crosscheck (pkg-config):
 *   libxcdd_ok.so    correct
 *   libxcdd_bug.so   -DPLANTED_BUG: one realistic slip, the delay truncated
 *                    instead of rounded to the nearest sample, so a channel
 *                    whose delay has a fractional part >= 0.5 is summed one
 *                    sample early; `crosscheck gate dedisperse` names the DM,
 *                    the sample and the channel.
 * Three more variants are the test suite's fixtures: -DPLANTED_CRASH (a null
 * write) and -DPLANTED_HANG (an endless loop) for the isolation of plugins,
 * -DPLANTED_ABI (built as if against plugin ABI 1.0) for the version check.
 *
 * Only xc_plugin.h is needed (pkg-config --cflags crosscheck); nothing of
 * libcrosscheck is linked: what the plugin calls of crosscheck comes through
 * the host table.  The file is C11 and C++20 alike (the test suite also
 * builds it with c++ and nvcc). */
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

static const xcp_host *host;

/* A delay in samples, rounded as the convention says; PLANTED_BUG
 * truncates whatever the convention says. */
static int64_t rounded(double d, int rounding)
{
#ifdef PLANTED_BUG
    (void)rounding;
    return (int64_t)d;   /* the slip: truncation */
#else
    switch (rounding) {
    case XCP_ROUND_HALF_EVEN: return (int64_t)nearbyint(d);
    case XCP_ROUND_TRUNC: return (int64_t)trunc(d);
    default: return (int64_t)round(d);
    }
#endif
}

/* The delays of every channel at DM dm, in samples of dt, measured from the
 * highest frequency fref: in double from the exact formula, or (conventions
 * of dedisp and AstroAccelerate, XCP_PREC_FLOAT) from dedisp's float table,
 * the product taken in float. */
static void delays(const xcp_ddjob *job, double dm, double fref, double dt, int64_t *out)
{
    for (int c = 0; c < job->nchans; c++) {
        if (job->precision == XCP_PREC_DOUBLE) {
            double f = job->fch1 + c * job->foff;
            out[c] = rounded(job->kdm * dm * (1.0 / (f * f) - 1.0 / (fref * fref)) / dt, job->rounding);
        } else {
            float a = 1.f / ((float)job->fch1 + (float)c * (float)job->foff), b = 1.f / (float)fref;
            float table = (float)(job->kdm / dt * (double)(a * a - b * b));
            out[c] = rounded((double)((float)dm * table), job->rounding);
        }
    }
}

/* Trial j of range k into out. */
static void trial(const xcp_ddjob *job, const xcp_ddrange *r, const int64_t *delay, float *out, size_t nsamp)
{
    int nc = job->nchans, ds = r->ds;
    for (size_t t = 0; t < nsamp; t++) {
        double fsum = 0;
        uint64_t isum = 0;
        for (int c = 0; c < nc; c++) {
            if (job->killmask && !job->killmask[c])
                continue;
            for (int i = 0; i < ds; i++) {
                size_t idx = ((t + (size_t)delay[c]) * (size_t)ds + (size_t)i) * (size_t)nc + (size_t)c;
                if (job->nbits == 32)
                    fsum += job->f32[idx];
                else
                    isum += job->u16[idx];
            }
        }
        out[t] = job->nbits == 32 ? host->scale_real(job, fsum, ds) : host->scale_int(job, isum, ds);
    }
}

static xcp_status my_run(const xcp_dedisperser *self, const xcp_ddjob *job, xcp_plane *out, xcp_error *err)
{
    (void)self;
    double fref = job->fch1 + (job->foff > 0 ? (job->nchans - 1) * job->foff : 0.0);
    int64_t *delay = (int64_t *)malloc((size_t)job->nchans * sizeof *delay);
    if (!delay)
        return host->error_set(err, XCP_ENOMEM, IMPL_NAME ": out of memory for %d delays", job->nchans);
    for (int k = 0; k < job->nranges; k++) {
        const xcp_ddrange *r = &job->range[k];
        xcp_planerange *o = &out->range[k];
        for (size_t j = 0; j < r->ndm; j++) {
            delays(job, r->dms[j], fref, job->tsamp * r->ds, delay);
            trial(job, r, delay, o->data + j * o->nsamp, o->nsamp);
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
    return XCP_OK;
}

static const xcp_dedisperser mine = {
    .size = sizeof(xcp_dedisperser),
    .name = IMPL_NAME,
    .desc = IMPL_DESC,
    .tol_kind = XCP_TOL_ROUNDING,
    .tol_value = 1.0,
    .run = my_run,
};

static xcp_status init(const xcp_host *h, xcp_error *err)
{
    host = h;
    return h->add_dedisperser(h, &mine, err);
}

#ifdef PLANTED_ABI
/* The test suite's fixture for the version check: a plugin built against
 * the previous major version of the ABI. */
#undef XC_PLUGIN_ABI_MAJOR
#define XC_PLUGIN_ABI_MAJOR 1
#undef XC_PLUGIN_ABI_MINOR
#define XC_PLUGIN_ABI_MINOR 0
#endif

XC_PLUGIN_DEFINE("mydedisp", "1.0", init)
