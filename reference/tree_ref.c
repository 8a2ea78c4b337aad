/* The reference tree dedispersers: the semantics of core/dedisp/approx/xc_tree.h as the
 * obvious loops, exact sums (uint64 for integer input, double for float).
 *
 * Tree dedispersion: Taylor 1974, A&AS 15, 367; the piecewise-linear and
 * frequency-padded variants of Barsdell et al. 2012, MNRAS 422, 379,
 * section 3.1.  The reference does not run the tree: it reads each channel at
 * the delay the tree's digital line gives it, b(s, i) + D_M(n(s, i), u), and
 * adds directly, so it states what the fast versions (which run the
 * log2(M)-step tree) must produce:
 *   out[i][t] = scale( sum_{c real, unmasked} x_ds[t + b + D_M(n, u_c)][c] ).
 *
 * Declared tolerance (signal-loss 0.8): the conformance suite's measure is
 * the peak single sample of a pulse one sample wide, which keeps at least
 * 1/(S + 1) of the pulse; its cases (64 channels or fewer over a few hundred
 * MHz, DM up to 40) give bounds S <= 4 samples (T_M <= 1.55 for M <= 32, the
 * continuous deviation below a sample, +3), a loss of at most 0.8.  Every
 * trial's own bound is in the tree plan and tests/test_tree.c measures
 * against it. */
#include <stdlib.h>

#include "core/dedisp/approx/xc_ddapprox.h"
#include "core/dedisp/approx/xc_tree.h"
#include "reference/xc_reference.h"

/* One plan for both trees (xc_ddapprox_plan_new): the kind is the
 * descriptor's (core/dedisp/approx/xc_ddapprox.h). */
static xc_status tree_execute(const xc_dedisperser *self, void *state, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    (void)self;
    const xc_treeplan *tp = &((const xc_ddapprox_plan *)state)->tp;
    const xc_block *in = job->in;
    const int nc = tp->nchans, M = tp->m, ns = tp->nsub;
    int32_t *D = malloc((size_t)nc * sizeof *D);
    if (!D)
        return xc_error_set(err, XC_ENOMEM, "tree-reference: out of memory");
    for (int k = 0; k < job->plan->nranges; k++) {
        const xc_treerange *r = &tp->r[k];
        xc_planerange *o = &out->r[k];
        if (o->ndm != r->ndm || o->nsamp != job->nout / (size_t)r->ds) {
            free(D);
            return xc_error_set(err, XC_EINVAL, "tree-reference: plane range %d has the wrong shape", k);
        }
        for (size_t i = 0; i < r->ndm; i++) {
            for (int c = 0; c < nc; c++) {
                const int s = tp->pos[c] / M, u = tp->pos[c] % M;
                D[c] = r->b[i * (size_t)ns + (size_t)s] + xc_tree_delay(M, r->n[i * (size_t)ns + (size_t)s], u);
            }
            for (size_t t = 0; t < o->nsamp; t++) {
                double v = 0;   /* an exact integer below 2^53 for integer input */
                for (int c = 0; c < nc; c++)
                    if (!job->killmask || job->killmask[c])
                        v += xc_ref_scrunched(in, t + (size_t)D[c], c, r->ds);
                o->data[i * o->nsamp + t] = xc_block_is_float(in) ? xc_scale_real(job->conv, v, nc, r->ds, in->nbits)
                                                            : xc_scale_int(job->conv, (uint64_t)v, nc, r->ds,
                                                                           in->nbits);
            }
        }
    }
    free(D);
    return XC_OK;
}

const xc_dedisperser xc_dd_tree_reference = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "tree-reference", .tol = {XC_TOL_SIGNAL_LOSS, 0.8},
             .caps = XC_CAP_REFERENCE | XC_CAP_APPROXIMATE, .data = &xc_ddapprox_tree,
             .desc = "piecewise-linear tree dedispersion (Taylor 1974; Barsdell et al. 2012 s3.1.1), the tree's "
                     "delays, direct loops, exact sums"},
    .plan = xc_ddapprox_plan_new, .execute = tree_execute, .destroy = xc_ddapprox_plan_delete,
    .bound = xc_ddapprox_bounds};

const xc_dedisperser xc_dd_tree_padded_reference = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "tree-padded-reference", .tol = {XC_TOL_SIGNAL_LOSS, 0.8},
             .caps = XC_CAP_REFERENCE | XC_CAP_APPROXIMATE, .data = &xc_ddapprox_tree_padded,
             .desc = "frequency-padded tree dedispersion (Barsdell et al. 2012 s3.1.2), the tree's delays, direct "
                     "loops, exact sums"},
    .plan = xc_ddapprox_plan_new, .execute = tree_execute, .destroy = xc_ddapprox_plan_delete,
    .bound = xc_ddapprox_bounds};
