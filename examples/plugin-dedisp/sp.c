/* A crosscheck plugin: a single-pulse (FRB) searcher, the kind of code a
 * survey keeps in its own library.  Per DM trial row it takes the row's
 * baseline and rms from crosscheck's host table (the preset's statistics:
 * block medians and 1.4826 x the median absolute deviation, or the mean and
 * the standard deviation), sums every box through one prefix sum of the row
 * in double, and reports each run of boxes at or above the threshold by its
 * best box, as docs/SINGLEPULSE.md defines; crosscheck clusters the
 * detections into candidates.  On integer-valued planes the prefix sums are
 * exact, so the S/N is the reference's bit for bit.  It takes the whole
 * rows' rms (and mean) crosscheck gathers for a search in gulps
 * (row_stats = 1, xcp_spplane.row_s / row_m, ABI 2.2), so a gulped search
 * gives the whole file's candidates exactly.
 *
 * Built by crosscheck's Makefile, and by this folder's Makefile against an
 * installed crosscheck (pkg-config):
 *   libxcsp_ok.so    correct
 *   libxcsp_bug.so   -DPLANTED_BUG: one realistic slip, the box's sum taken
 *                    as P[t + w - 1] - P[t] (the prefix sum read as if it
 *                    were inclusive), so every box misses its last sample;
 *                    `crosscheck gate singlepulse` names the case and the
 *                    candidate whose S/N differs.
 *
 * Only xc_plugin.h is needed (pkg-config --cflags crosscheck); nothing of
 * libcrosscheck is linked.  The file is C11 and C++20 alike. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "xc_plugin.h"

#ifdef PLANTED_BUG
#define IMPL_NAME "mysp-buggy"
#define IMPL_DESC "example plugin: boxcar single-pulse search, planted bug (box sum misses its last sample)"
#else
#define IMPL_NAME "mysp"
#define IMPL_DESC "example plugin: boxcar single-pulse search by prefix sums (examples/plugin-dedisp/sp.c)"
#endif

static const xcp_host *host;

/* The sum of x[t .. t+w-1] from the prefix sums P (P[i] = x[0] + ... + x[i-1]). */
static double box_sum(const double *P, size_t t, size_t w)
{
#ifdef PLANTED_BUG
    return P[t + w - 1] - P[t];   /* the slip: the prefix sum read as inclusive */
#else
    return P[t + w] - P[t];
#endif
}

/* One width of one row: each run of boxes at or above the threshold pushed
 * as its best box (earliest on ties). */
static xcp_status row_width(const xcp_spconf *c, const double *P, const double *m, double s, size_t n, int r, int k,
                            xcp_spdets *out, xcp_error *err)
{
    size_t w = (size_t)c->widths[k];
    xcp_spdet d = {sizeof(xcp_spdet), 0, 0, (int32_t)w, k, r, 0, 0};
    int in_run = 0;
    for (size_t t = 0; t + w <= n; t++) {
        double snr = (box_sum(P, t, w) - host->sp_box_baseline(c, m, n, t, w)) / (s * sqrt((double)w));
        if (snr >= c->threshold) {
            if (!in_run || snr > d.snr) {
                d.snr = snr;
                d.sample = (int64_t)t;
            }
            if (!in_run)
                d.begin = (int64_t)t;
            in_run = 1;
            d.end = (int64_t)(t + w);
        } else if (in_run) {
            in_run = 0;
            xcp_status st = host->spdets_push(out, &d, err);
            if (st)
                return st;
        }
    }
    return in_run ? host->spdets_push(out, &d, err) : XCP_OK;
}

static xcp_status my_detect(const xcp_spsearcher *self, const xcp_spconf *c, const xcp_spplane *pl, xcp_spdets *out,
                            xcp_error *err)
{
    (void)self;
    size_t n = pl->nsamp, nb = n / c->block ? n / c->block : 1;
    double *P = (double *)malloc((n + 1) * sizeof *P), *m = (double *)malloc(nb * sizeof *m);
    double *tmp = (double *)malloc((n ? n : 1) * sizeof *tmp);
    xcp_status st = P && m && tmp ? XCP_OK
                                  : host->error_set(err, XCP_ENOMEM, IMPL_NAME ": out of memory for %zu samples", n);
    for (size_t r = 0; !st && n && r < pl->nrows; r++) {
        const float *x = pl->data + r * pl->stride;
        double s;
        host->sp_row_stats(c, x, n, m, &s, tmp);
        if (XCP_HAS(pl, xcp_spplane, row_s) && pl->row_s)   /* a gulp's window: the whole row's rms */
            s = pl->row_s[r];
        if (XCP_HAS(pl, xcp_spplane, row_m) && pl->row_m && c->stat == XCP_SP_MEAN_SD)
            m[0] = pl->row_m[r];
        if (!(s > 0))
            continue;
        P[0] = 0;
        for (size_t t = 0; t < n; t++)
            P[t + 1] = P[t] + (double)x[t];
        for (int k = 0; !st && k < c->nwidths; k++)
            st = row_width(c, P, m, s, n, (int)r, k, out, err);
    }
    free(P);
    free(m);
    free(tmp);
    return st;
}

static const xcp_spsearcher mine = {
    .size = sizeof(xcp_spsearcher),
    .name = IMPL_NAME,
    .desc = IMPL_DESC,
    .tol_kind = XCP_TOL_ROUNDING,
    .tol_value = 1.0,
    .detect = my_detect,
    .row_stats = 1,
};

static xcp_status init(const xcp_host *h, xcp_error *err)
{
    host = h;
    return h->add_spsearcher(h, &mine, err);
}

XC_PLUGIN_DEFINE("mysp", "1.0", init)
