/* xc_subband.h: subband dedispersion's geometry, delays and smearing bound.
 *
 * Subband dedispersion (Barsdell et al. 2012, MNRAS 422, 379, section 4 and
 * Appendix B; PRESTO's prepsubband) works in two stages:
 *   1. the channels are cut into nsub groups ("subbands"); each group is
 *      dedispersed directly at a few "nominal" DMs, giving for every nominal
 *      DM a miniature filterbank of nsub channels;
 *   2. each miniature filterbank is dedispersed directly to the output DMs
 *      its nominal DM serves.
 * This file holds what both stages need and every implementation shares, as
 * core's delay tables do for direct dedispersion: which channels form which
 * subband, which output trials each nominal DM serves, the integer delays of
 * both stages, and the analytic bound on the smearing the approximation adds
 * to each output trial.  Implementations only add.
 *
 * ---- semantics (per DM range k of the plan, units of ds*tsamp) -------------
 * Subband s holds channels [first_s, first_{s+1}), cut by split
 * (xc_subband_split; n channels, so nsub need not divide n):
 *   spread   the largest delay spread of a subband, 1/f_lo^2 - 1/f_hi^2 of
 *            its channels' centres, the least any cut into nsub contiguous
 *            subbands gives: subbands narrower at low frequencies, where
 *            1/f^2 is steeper -- the default;
 *   width    equal widths, first_s = floor(s n/nsub) (PRESTO prepsubband).
 * The smear of a trial is set by the subband of largest spread (below), so
 * with equal widths the lowest subband sets it and the others waste budget:
 * on 1250-1550 MHz it spans 1.36 times the mean, and the same budget takes
 * about 1.33 times as many groups (nominal DMs) as with equal spreads.
 * Its reference frequency f_s is, by alignment:
 *   centre   the frequency whose delay is midway between the subband's
 *            highest and lowest channels: 1/f_s^2 = (1/f_hi^2 + 1/f_lo^2)/2
 *            -- the default;
 *   highest  the centre of its highest-frequency channel (PRESTO prepsubband,
 *            which refers subband delays to the highest channel of each
 *            subband);
 *   early    the upper edge of that channel, f_hi + |foff|/2 (the "early"
 *            edge, where the pulse arrives first, as Barsdell et al. App. B).
 * The defaults lose least for their cost: measured on the bench's Table 2
 * plan (1024 channels, budget 0.8), spread with highest loses more than
 * width with highest on 4-sample pulses, spread with centre less
 * (docs/SUBBAND.md).
 * Output trials are grouped in plan order: a group starts at trial i0 and
 * takes the following trials while DM_i - DM_i0 < dmsub; with dmsub 0 it
 * takes them while the smear S(i) of every trial taken (below) stays within
 * `budget` samples.  The group's nominal DM is mu = (DM_first + DM_last)/2
 * (PRESTO makes the subbands of a call at the average DM of its trials), so
 * |mu - DM| <= dmsub/2 for every trial it serves.
 * With K = the convention's k_DM, dt = ds*tsamp, f_top the highest channel of
 * the band and R() the convention's rounding mode:
 *   p(c, mu) = R( K mu (1/f_c^2 - 1/f_s^2) / dt )     (channel c in subband s)
 *   q(s, DM) = R( K DM (1/f_s^2 - 1/f_top^2) / dt )
 *   stage 1: a(c, j) = p(c, mu_j) - m(s, j),  m(s, j) = min over the subband's channels of p
 *            sub_j[s][u] = sum_{c in s, unmasked} x_ds[u + a(c, j)][c]
 *   stage 2: b(s, i) = clamp( q(s, DM_i) + m(s, j), 0, L_k - max_c a(c, j) )
 *            out[i][t] = scale( sum_s sub_j[s][t + b(s, i)] )
 * where L_k = floor(max_delay / ds) is the largest delay the gulp leaves room
 * for (core's max_delay, made from the exact delays); stage-1 delays larger
 * than L_k are cut to L_k.  So channel c is read at t + a + b, which is
 * p + q (the two-stage delay) except where a clamp moved it to stay inside
 * the gulp.  Integer input is summed exactly (uint64) and scaled with
 * xc_scale_int like the direct dedispersers, so every implementation of
 * these semantics agrees bit for bit.  With nsub = nchans and alignment
 * highest or centre every a is 0 and b is the direct delay: the subband
 * plane is the direct one.  (The convention's float-precision delay tables,
 * dedisp's, are not copied here: subband delays are always computed in
 * double.)
 *
 * ---- the smearing bound (derived; Barsdell et al. App. B redone) -------------
 * Against direct dedispersion at the same trial DM (delay r_c = K DM (1/f_c^2 -
 * 1/f_top^2)/dt before rounding), the unrounded two-stage delay of channel c is
 *   p + q = r_c + x_c,   x_c = K (mu - DM) (1/f_c^2 - 1/f_s^2) / dt,
 * the deviation of the approximated dispersion curve from the exact one.  A
 * pulse that direct dedispersion lines up exactly lands, after subband
 * dedispersion, at offset x_c in channel c: the pulse is spread over
 *   S_cont = max_c x_c - min_c x_c
 * samples.  For alignment highest or early every x_c has the sign of mu - DM
 * and vanishes (nearly) at each subband's top, so with |mu - DM| <= dmsub/2
 *   S_cont <= K (dmsub/2) max_s (1/f_lo,s^2 - 1/f_s^2) / dt
 *         ~= (dmsub/2) * 2K (BW/nsub) / f^3 / dt      (lowest subband, f its frequency)
 * which is DDplan.py's subband_smear(dsubDM, nsub, BW, fctr) =
 * dm_smear(dsubDM/2, BW/nsub, fctr), 2K = 1/0.0001205 s MHz^2.  Barsdell et
 * al. take the full nominal spacing (the nominal DM at the low end of its
 * trials) and note that centring halves the smear; here the nominal DM is
 * always centred among its trials.  Centring the *frequency* (alignment
 * centre) halves the largest deviation |x_c| but not the spread: every
 * subband's deviations straddle 0 instead of starting at 0, so their union
 * still spans max_s of one subband's range.  The bound is the same; the
 * measured loss is smaller because the subbands' spreads overlap.
 * Rounding: the implementation reads channel c at R(p) + R(q) and direct at
 * R(r), so the integer offset is e_c = x_c + (three rounding errors, each
 * within 1/2): the integer spread is at most floor(S_cont) + 3.  A clamp
 * that moves subband s by z samples widens it by at most z.  The bound in
 * samples of trial i is therefore
 *   S(i) = floor(S_cont(i)) + 3 + Z(i),   Z(i) = largest clamp of any subband at i.
 * S/N loss: a boxcar pulse of W samples (fluence F, white noise sigma per
 * sample) found by a boxcar matched to it has S/N = F/(sigma sqrt(W)).  Spread
 * over at most W + S samples, all of F still falls in one boxcar of W + S, so
 *   loss <= 1 - sqrt(W / (W + S))         (xc_subband_loss_bound, a bound)
 * The quadrature model of DDplan.py (and Barsdell et al. eq. 42), W_eff =
 * sqrt(W^2 + t_smear^2), gives loss = 1 - sqrt(W / W_eff)
 * (xc_subband_loss_expected); it is an estimate, not a bound: a width-1
 * boxcar spread evenly over 1 more sample loses 23 % under a matched
 * boxcar, while the quadrature model predicts 16 %.  For the peak single
 * sample of a pulse one sample wide (what the conformance suite measures)
 * the loss is at most S/(S + 1).
 */
#ifndef XC_SUBBAND_H
#define XC_SUBBAND_H

#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/approx/xc_ddbound.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values of xc_ddopts.subalign. */
typedef enum {
    XC_SUBALIGN_CENTRE = 0,   /* midway in delay between the subband's highest and lowest channels (default) */
    XC_SUBALIGN_HIGHEST,      /* PRESTO prepsubband: the subband's highest channel */
    XC_SUBALIGN_EARLY         /* Barsdell et al.: the upper edge of that channel */
} xc_subalign;

/* Values of xc_ddopts.subsplit: how the channels are cut into subbands. */
typedef enum {
    XC_SUBSPLIT_SPREAD = 0,   /* equal delay spread: the largest 1/f_lo^2 - 1/f_hi^2 of a subband as small as the
                               * channels allow (the default) */
    XC_SUBSPLIT_WIDTH         /* equal width, floor(s n / nsub) (PRESTO prepsubband) */
} xc_subsplit;

#define XC_SUBBAND_NSUB 32       /* PRESTO prepsubband's default -nsub (xc_ddopts.nsub 0 chooses from the
                                  * geometry instead: core/dedisp/approx/xc_ddloss.h) */
#define XC_SUBBAND_BUDGET 0.8    /* xc_ddopts.subbudget 0: DDplan.py's 0.8 sample (of ds*tsamp) */

/* "spread", "width"; NULL out of range. */
const char *xc_subsplit_name(int s);

/* The first channel of each of nsub subbands (first[0 .. nsub], first[nsub] = g->nchans; 1 <= nsub <= nchans)
 * under split.  XC_SUBSPLIT_SPREAD: the smallest D such that the channels, taken in order, fall into at most
 * nsub runs each of spread 1/f_last^2 - 1/f_first^2 (channel centres) within D, found by bisection on D with
 * the greedy count (optimal for contiguous runs: a run cut later never has a smaller spread); where the
 * greedy cut makes fewer than nsub, the run of largest spread is halved until there are nsub.  The largest
 * spread, and with it the subband plan's smear per unit of |mu - DM|, is the least any contiguous cut into
 * nsub subbands gives; equal widths leave the lowest subband's spread (f_lo/f_hi)^-3 times the highest's. */
void xc_subband_split(const xc_geometry *g, int nsub, int split, int *first);

/* "centre", "highest", "early"; NULL out of range. */
const char *xc_subalign_name(int a);
/* The alignment named s, or -1. */
int xc_subalign_parse(const char *s);

/* One range of a subband plan. */
typedef struct {
    int ds;
    size_t ndm;
    int ngroups;
    size_t *first;        /* ngroups + 1: group j serves trials [first[j], first[j+1]) */
    double *nominal;      /* ngroups: mu_j */
    int32_t *a;           /* [ngroups][nchans]: stage-1 delay of channel c at mu_j */
    int32_t *b;           /* [ndm][nsub]: stage-2 delay of subband s at trial i */
    int32_t *maxa;        /* [ngroups][nsub]: largest a over the subband's channels */
    int32_t *maxb;        /* ngroups: largest b over the group's trials and subbands */
    int32_t *clamp;       /* ndm: largest clamp (samples) of any subband at trial i */
    double *smear;        /* ndm: S_cont(i), samples of this range */
    int32_t *bound;       /* ndm: S(i) = floor(S_cont) + 3 + clamp, samples */
} xc_subrange;

typedef struct {
    int nchans, nsub;
    int *sub_first;       /* nsub + 1: subband s holds channels [sub_first[s], sub_first[s+1]) */
    int align;            /* xc_subalign */
    int split;            /* xc_subsplit */
    double dmsub, budget; /* as resolved (dmsub 0: chosen from budget) */
    int nranges;
    xc_subrange *r;
} xc_subplan;

/* Makes the subband plan of a prepared job (delays, max_delay and opts set;
 * job->in may be NULL): opts.nsub (0: the cheapest within opts.maxloss,
 * core/dedisp/approx/xc_ddloss.h; more than nchans: nchans),
 * opts.dmsub (0: from the budget), opts.subalign, opts.subbudget (0:
 * XC_SUBBAND_BUDGET).  XC_EINVAL for negative or non-finite options or an
 * unknown alignment, XC_ENOMEM. */
xc_status xc_subplan_make(xc_subplan *sp, const xc_ddjob *job, xc_error *err);
void xc_subplan_free(xc_subplan *sp);

/* The continuous spread S_cont (samples of dt) of the two-stage curve at DM,
 * served by nominal mu, against the exact one (see above). */
double xc_subband_spread(const xc_subplan *sp, const xc_geometry *g, const xc_convention *cv, double mu,
                         double dm, double dt);

/* 1 - sqrt(W/sqrt(W^2 + t^2)): the quadrature estimate (DDplan.py). */
double xc_subband_loss_expected(double width, double smear);

#ifdef __cplusplus
}
#endif
#endif
