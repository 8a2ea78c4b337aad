/* The reference subband dedisperser: the two stages of core/dedisp/approx/xc_subband.h as
 * the obvious loops, exact sums (uint64 for integer input, double for float).
 *
 * Subband dedispersion: Barsdell et al. 2012, MNRAS 422, 379, section 4; the
 * two stages and the highest-channel alignment follow PRESTO's prepsubband.
 * For each range and each group j of output trials (one nominal DM mu_j):
 *   stage 1: sub[s][u] = sum_{c in s, unmasked} x_ds[u + a(c, j)][c]
 *            for u < nout/ds + max_i b(s, i) (what stage 2 reads, no more);
 *   stage 2: out[i][t] = scale( sum_s sub[s][t + b(s, i)] ), every trial i of j.
 * Delays, groups and clamps come from the subband plan (core), so the
 * implementations differ only in how they add.
 *
 * Its declared tolerance (signal-loss 0.8) is the bound it guarantees under
 * the default options for the measure the conformance suite applies, the
 * peak single-sample S/N of a pulse one sample wide: the default budget keeps
 * S_cont <= 0.8 sample, so a trial's integer spread is at most
 * floor(0.8) + 3 = 3 samples plus a clamp, which for the default highest
 * alignment is a rounding at the gulp's edge (at most 1): S <= 4, and the peak
 * sample keeps at least 1/(S + 1) of the pulse, a loss of at most 0.8.  Every
 * trial's own, usually much smaller, bound is in the plan (xc_subrange.bound)
 * and tests/test_subband.c measures against it. */
#include <stdlib.h>

#include "core/dedisp/approx/xc_ddapprox.h"
#include "core/dedisp/approx/xc_subband.h"
#include "reference/xc_reference.h"

/* One group: stage 1 into sub (nsub rows of len[s] values), then stage 2. */
static void group(const xc_ddjob *job, const xc_subplan *sp, const xc_subrange *r, size_t j, double *sub,
                  size_t stride, xc_planerange *o)
{
    const xc_block *in = job->in;
    const int ns = sp->nsub;
    const int32_t *a = r->a + j * (size_t)sp->nchans;
    for (int s = 0; s < ns; s++) {
        size_t len = 0;
        for (size_t i = r->first[j]; i < r->first[j + 1]; i++)
            if ((size_t)r->b[i * (size_t)ns + (size_t)s] > len)
                len = (size_t)r->b[i * (size_t)ns + (size_t)s];
        len += o->nsamp;
        double *row = sub + (size_t)s * stride;
        for (size_t u = 0; u < len; u++) {
            double v = 0;   /* an exact integer below 2^53 for integer input */
            for (int c = sp->sub_first[s]; c < sp->sub_first[s + 1]; c++)
                if (!job->killmask || job->killmask[c])
                    v += xc_ref_scrunched(in, u + (size_t)a[c], c, r->ds);
            row[u] = v;
        }
    }
    for (size_t i = r->first[j]; i < r->first[j + 1]; i++)
        for (size_t t = 0; t < o->nsamp; t++) {
            float *dst = &o->data[i * o->nsamp + t];
            if (xc_block_is_float(in)) {
                double sum = 0;
                for (int s = 0; s < ns; s++)
                    sum += sub[(size_t)s * stride + t + (size_t)r->b[i * (size_t)ns + (size_t)s]];
                *dst = xc_scale_real(job->conv, sum, sp->nchans, r->ds, in->nbits);
            } else {
                uint64_t sum = 0;
                for (int s = 0; s < ns; s++)
                    sum += (uint64_t)sub[(size_t)s * stride + t + (size_t)r->b[i * (size_t)ns + (size_t)s]];
                *dst = xc_scale_int(job->conv, sum, sp->nchans, r->ds, in->nbits);
            }
        }
}

static xc_status sub_execute(const xc_dedisperser *self, void *state, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    (void)self;
    const xc_subplan *sp = &((const xc_ddapprox_plan *)state)->sp;
    for (int k = 0; k < job->plan->nranges; k++) {
        const xc_subrange *r = &sp->r[k];
        xc_planerange *o = &out->r[k];
        if (o->ndm != r->ndm || o->nsamp != job->nout / (size_t)r->ds)
            return xc_error_set(err, XC_EINVAL, "subband-reference: plane range %d has the wrong shape", k);
        size_t maxb = 0;
        for (int j = 0; j < r->ngroups; j++)
            maxb = (size_t)r->maxb[j] > maxb ? (size_t)r->maxb[j] : maxb;
        size_t stride = o->nsamp + maxb;
        double *sub = malloc((size_t)sp->nsub * (stride ? stride : 1) * sizeof *sub);
        if (!sub)
            return xc_error_set(err, XC_ENOMEM, "subband-reference: out of memory for %d x %zu subband samples",
                                sp->nsub, stride);
        for (int j = 0; j < r->ngroups; j++)
            group(job, sp, r, (size_t)j, sub, stride, o);
        free(sub);
    }
    return XC_OK;
}

const xc_dedisperser xc_dd_subband_reference = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "subband-reference", .tol = {XC_TOL_SIGNAL_LOSS, 0.8},
             .caps = XC_CAP_REFERENCE | XC_CAP_APPROXIMATE, .data = &xc_ddapprox_subband,
             .desc = "two-stage subband dedispersion (PRESTO prepsubband, Barsdell et al. 2012 s4), direct loops, "
                     "exact sums"},
    .plan = xc_ddapprox_plan_new, .execute = sub_execute, .destroy = xc_ddapprox_plan_delete,
    .bound = xc_ddapprox_bounds};
