/* xc_tree.h: tree dedispersion's geometry, delays and smearing bound.
 *
 * The tree algorithm (Taylor 1974, A&AS 15, 367; Barsdell et al. 2012, MNRAS
 * 422, 379, section 3) sums M = 2^m channels along every "digital line"
 * from delay 0 at the first channel to delay n at the last (n < M) in
 * log2(M) steps of pairwise adds, like an FFT.  Real sweeps are quadratic in
 * frequency, so two variants approximate them (both Barsdell et al. 3.1):
 *   piecewise  the padded band is cut into nsub subbands of M channels;
 *              stage 1 is the tree within each subband (a linear sweep per
 *              subband), stage 2 adds the subbands along the quadratic
 *              curve (the piecewise-linear method; subbanding as Manchester
 *              et al. 1996);
 *   padded     the channels are placed on a grid linear in 1/f^2, empty
 *              positions between them ("frequency padding", Manchester et
 *              al. 2001 as Barsdell et al. 3.1.2 describe it), so the sweep
 *              is linear across the whole grid: one tree, nsub = 1.
 * This file holds what every implementation shares, as core/dedisp/approx/xc_subband.h
 * does for subband dedispersion: the channel -> position map, every trial's
 * line index and stage-2 delay, and the bound.  Implementations only add.
 *
 * ---- semantics (per DM range k of the plan, units of dt = ds*tsamp) ---------
 * Positions run from the highest frequency down.  piecewise: channel c sits at
 * p = c (foff < 0) or nchans-1-c (foff > 0); the positions are padded with
 * empty ones to P = nsub*M, a power of two (nsub: opts.nsub, a power of two,
 * default the fewest within the loss limit, core/dedisp/approx/xc_ddloss.h).  padded: p(c) = round((1/f_c^2 - 1/f_top^2)/q)
 * with q the smallest gap in 1/f^2 between frequency-adjacent channels (so no
 * two channels share a position), and M = P the next power of two above the
 * largest p.  Subband s holds positions [sM, sM + M); u = p - sM.
 *
 * The tree line: d_M(n, u), n, u in [0, M), defined by d_1 = 0 and
 *   d_2h(n, u) = d_h(floor(n/2), u)                        u < h
 *              = ceil(n/2) + d_h(floor(n/2), u - h)        u >= h
 * (the step that adds the two halves of 2h channels: the lower one shifted
 * by ceil(n/2)); d_M(n, 0) = 0, d_M(n, M-1) = n, non-decreasing in u.  Sweeps
 * beyond the diagonal (more than M-1 samples across a subband) are reached as
 * Barsdell et al. 3.1.3 do, by imposing a diagonal delay of j samples per
 * channel before the tree: the line of total sweep n >= 0 is
 *   D_M(n, u) = j u + d_M(n', u),   j = floor(n/(M-1)), n' = n mod (M-1)
 * (M = 1: D = 0).  Time scrunching beyond the diagonal is the plan's: each
 * range runs at its own ds (DDplan.py / dedisp pick ds where the DM smear
 * passes the sample), and its diagonal DM, where the steepest subband's sweep
 * is one sample per channel, is reported (xc_treerange.diag_dm).
 * With K the convention's k_DM, f_top the highest channel, rho_c = K (1/f_c^2 -
 * 1/f_top^2) / dt (the exact delay per unit DM), per subband s (first real
 * position u = 0 holding channel c0, last real position u_l holding c_l):
 *   piecewise  beta_s = rho_c0,  sigma_s = (rho_cl - rho_c0) (M-1)/u_l  (0 if u_l = 0)
 *   padded     beta = 0,         sigma = K q (M-1) / dt
 * so beta_s DM + sigma_s DM u/(M-1) is the straight line through the exact
 * delays at u = 0 and u_l (piecewise) or the exact delay on the grid (padded).
 * For trial DM_i:
 *   n(s, i) = round(sigma_s DM_i),  b(s, i) = round(beta_s DM_i),
 * then, so that every read stays inside the gulp (L = max_delay/ds, the room
 * direct dedispersion leaves): n is lowered until D_M(n, u_l) <= L and b is
 * clamped to [0, L - D_M(n, u_l)] (the clamps z_n, z_b are counted in the bound).
 *   out[i][t] = scale( sum_{c real, unmasked} x_ds[t + b(s_c, i) + D_M(n(s_c, i), u_c)][c] )
 * Integer input is summed exactly (uint64) and scaled with xc_scale_int (with
 * the real, unpadded nchans) like the direct dedispersers, so the reference
 * and every fast version agree bit for bit; at DM 0 every delay is 0 and the
 * plane is the direct one.
 *
 * ---- the smearing bound (derived; Barsdell et al. App. A redone) ------------
 * Against direct dedispersion at the same DM, which reads channel c at
 * R(rho_c DM) (R the convention's rounding), channel c is read e_c samples
 * later, and a pulse direct lines up exactly is spread over max_c e_c - min_c e_c
 * extra samples.  Write the tree's delay of channel c (subband s, position u) as
 *   b + D_M(n, u) = rho_c DM + DM g_c                 (continuous deviation)
 *                 + (b - beta_s DM)                   (|.| <= 1/2)
 *                 + (n - sigma_s DM) u/(M-1)          (|.| <= 1/2)
 *                 + (d_M(n', u) - n' u/(M-1))         (the tree's digital line)
 * with g_c = beta_s + sigma_s u/(M-1) - rho_c.  The spread of a sum is at most
 * the sum of the spreads, so over all channels
 *   max e - min e <= S_cont + 1 + 1 + T_M + 1 (direct's own rounding),
 *   S_cont = DM (max_c g_c - min_c g_c),
 *   T_M = max - min over n', u of (d_M(n', u) - n' u/(M-1))  (enumerated once;
 *         0, 0, 0.67, 0.86, 1.33, 1.55, 2, 2.22 for M = 1, 2, ..., 128: about
 *         log2(M)/3, each level's ceil/floor split adding a third on average).
 * piecewise: g_c is the chord's deviation from the curve.  The delay is
 * K DM / f^2 with f linear in position (f = f_0 - |foff| u), whose second
 * derivative in u, 6 K DM foff^2 / f^4 / dt, is largest at the band's lowest
 * frequency; a chord over an interval of length u_l deviates from a convex
 * function by at most u_l^2/8 times that (the interpolation error bound of
 * Barsdell et al. eq. 34), and always on one side (g_c >= 0, 0 at both ends), so
 *   S_cont <= DM (M-1)^2 (6 K foff^2 / f_lo^4) / (8 dt)
 *          =  (3/4) (M-1)^2 K DM foff^2 / (f_lo^4 dt)      (Barsdell et al. eq. 37)
 * (the code takes max - min of g_c exactly, which is at most this).
 * padded: g_c is the rounding of the position, |g_c| <= K q / (2 dt), so
 * S_cont <= K q DM / dt: one position's sweep, at most j + 1 samples.  The
 * continuous curve is exact (Barsdell et al.: "no additional sources of
 * smear"); what remains is that the grid of positions is discrete.
 * Every e_c is an integer, so with the clamps
 *   S(i) = floor(S_cont(i) + T_M + 3) + z_n + z_b     samples of range k
 * and, for a boxcar pulse of W samples under a matched boxcar (the model and
 * helper of core/dedisp/approx/xc_subband.h), loss <= 1 - sqrt(W / (W + S(i))).
 * (The convention's float-precision delay tables, dedisp's, can put direct's
 * own rounding error slightly above 1/2; the crosscheck convention's are
 * double.)
 */
#ifndef XC_TREE_H
#define XC_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/approx/xc_ddbound.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { XC_TREE_PIECEWISE = 0, XC_TREE_PADDED = 1 } xc_tree_kind;

#define XC_TREE_SUBSIZE 32       /* channels per subband Barsdell et al. found fastest (piecewise, opts.nsub 0
                                  * chooses from the geometry instead: core/dedisp/approx/xc_ddloss.h) */
#define XC_TREE_MAXPOS (1 << 20) /* largest padded grid */

/* One range of a tree plan. */
typedef struct {
    int ds;
    size_t ndm;
    int32_t *n;           /* [ndm][nsub]: total line index (sweep across the subband, samples) */
    int32_t *b;           /* [ndm][nsub]: stage-2 delay of subband s */
    int32_t *clamp;       /* ndm: z_n + z_b, the largest over the subbands */
    double *smear;        /* ndm: S_cont(i) */
    int32_t *bound;       /* ndm: S(i) */
    int jmax;             /* largest block j = floor(n/(M-1)) of any trial */
    double diag_dm;       /* DM where the steepest subband sweeps one sample per channel */
} xc_treerange;

typedef struct {
    int kind;             /* xc_tree_kind */
    int nchans, npos, m, nsub;   /* npos = nsub * m, a power of two; m = M */
    int *chan;            /* [npos]: channel at position p, -1 if empty */
    int *pos;             /* [nchans]: position of channel c */
    int *ulast;           /* [nsub]: last real position in subband s (u), -1 if none */
    double tm;            /* T_M */
    int nranges;
    xc_treerange *r;
} xc_treeplan;

/* Makes the tree plan of a prepared job (delays, max_delay and opts set;
 * job->in may be NULL).  piecewise: opts.nsub 0 (the fewest subbands within
 * opts.maxloss, core/dedisp/approx/xc_ddloss.h) or a
 * power of two at most P; padded ignores nsub.  XC_EINVAL for a bad nsub,
 * a padded grid above XC_TREE_MAXPOS or non-positive frequencies; XC_ENOMEM. */
xc_status xc_treeplan_make(xc_treeplan *tp, const xc_ddjob *job, int kind, xc_error *err);
void xc_treeplan_free(xc_treeplan *tp);

/* d_M(n, u) for n, u in [0, M), M a power of two. */
int32_t xc_tree_line(int m, int n, int u);
/* D_M(n, u) for any n >= 0 (the imposed diagonal j = floor(n/(M-1)) and d_M). */
int32_t xc_tree_delay(int m, int32_t n, int u);
/* T_M (see above). */
double xc_tree_line_spread(int m);

#ifdef __cplusplus
}
#endif
#endif
