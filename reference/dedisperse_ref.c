/* The reference dedisperser: the obvious loops, exact accumulation.
 *
 * Integer input is summed in uint64 (exact for any size we accept), float input
 * in double.  Time scrunching sums ds input samples first (exactly), then the
 * range's delays are applied in units of ds samples.  This file defines the
 * semantics every other implementation is checked against; it trades all speed
 * for being obviously right. */
#include <stdlib.h>

#include "reference/xc_reference.h"

double xc_ref_scrunched(const xc_block *in, size_t j, int c, int ds)
{
    double s = 0;
    for (int i = 0; i < ds; i++) {
        size_t idx = (j * (size_t)ds + (size_t)i) * (size_t)in->nchans + (size_t)c;
        s += xc_block_is_float(in) ? (double)in->f32[idx] : (double)in->u16[idx];
    }
    return s;
}

xc_status xc_dedisperse_reference(const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    const xc_block *in = job->in;
    int nc = in->nchans;
    for (int k = 0; k < job->plan->nranges; k++) {
        const xc_dmrange *r = &job->plan->r[k];
        xc_planerange *o = &out->r[k];
        int ds = r->ds;
        if (o->ndm != r->ndm || o->nsamp != job->nout / (size_t)ds)
            return xc_error_set(err, XC_EINVAL, "reference: plane range %d has the wrong shape", k);
        for (size_t d = 0; d < r->ndm; d++) {
            const int32_t *delay = job->delays[k] + d * (size_t)nc;
            for (size_t t = 0; t < o->nsamp; t++) {
                if (xc_block_is_float(in)) {
                    double sum = 0;
                    for (int c = 0; c < nc; c++)
                        if (!job->killmask || job->killmask[c])
                            sum += xc_ref_scrunched(in, t + (size_t)delay[c], c, ds);
                    o->data[d * o->nsamp + t] = xc_scale_real(job->conv, sum, nc, ds, in->nbits);
                } else {
                    uint64_t sum = 0;
                    for (int c = 0; c < nc; c++)
                        if (!job->killmask || job->killmask[c])
                            sum += (uint64_t)xc_ref_scrunched(in, t + (size_t)delay[c], c, ds);
                    o->data[d * o->nsamp + t] = xc_scale_int(job->conv, sum, nc, ds, in->nbits);
                }
            }
        }
    }
    return XC_OK;
}

static xc_status ref_run(const xc_dedisperser *self, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    (void)self;
    return xc_dedisperse_reference(job, out, err);
}

const xc_dedisperser xc_dd_reference = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "reference", .tol = {XC_TOL_EXACT, 0}, .caps = XC_CAP_REFERENCE,
             .desc = "direct loops, exact sums (uint64 for integer input, double for float)"},
    .run = ref_run};
