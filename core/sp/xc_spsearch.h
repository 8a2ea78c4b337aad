/* xc_spsearch.h: the single-pulse (FRB) search family: a DM-time plane in,
 * boxcar detections out; core clusters them into candidates
 * (core/sp/xc_spcands.h).  docs/SINGLEPULSE.md states the semantics and
 * their sources (Heimdall, PRESTO's single_pulse_search.py, AstroAccelerate).
 *
 * An implementation gives the detections of one plane (`execute`); core
 * resolves the options (xc_spconf_make), drives the ranges of a plan and
 * clusters the detections of every implementation with the same code
 * (xc_sp_cluster), so identical detections give identical candidates, as
 * core drives the Pulscan pipeline (core/search/xc_search.h).
 *
 * For every implementation, per DM trial row x[0..n-1]:
 *   blocks of L samples, the last one taking the remainder (L..2L-1 samples;
 *   a row shorter than L is one block); per block a baseline m_b, per row one
 *   rms s (presets heimdall, presto: m_b the block's median, s = 1.4826 x the
 *   median of |x_t - m_b(t)| over the row; astroaccelerate: one block, m the
 *   mean and s the standard deviation from the sums of x and x^2);
 *   a box of width w at t (t + w <= n): S = sum of x over the box,
 *   B = xc_sp_box_baseline (the blocks it overlaps in increasing order),
 *   snr = (S - B) / (s * sqrt(w)); a row with s = 0 gives nothing;
 *   per (row, width) each maximal run of t with snr >= threshold is one
 *   detection at its largest snr (earliest t on ties).
 * On integer-valued planes S, B and s are the same doubles in every
 * implementation, so snr is bit for bit the reference's (a device
 * implementation must not contract the formula into an FMA). */
#ifndef XC_SPSEARCH_H
#define XC_SPSEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/sp/xc_spcands.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XC_SP_MAXW 256          /* widths per search */
#define XC_SP_MAD_SCALE 1.4826  /* rms of a Gaussian over its median absolute deviation */

typedef enum { XC_SP_HEIMDALL = 0, XC_SP_PRESTO, XC_SP_ASTROACCELERATE, XC_SP_NPRESETS } xc_sp_preset;
typedef enum { XC_SP_MEDIAN_MAD = 0, XC_SP_MEAN_SD } xc_sp_stat;

/* "heimdall", "presto", "astroaccelerate"; NULL out of range. */
const char *xc_sp_preset_name(xc_sp_preset p);
/* The preset named, or -1. */
int xc_sp_preset_find(const char *name);

/* What a person asks for.  Zero (or a negative) number: the preset's. */
typedef struct {
    xc_sp_preset preset;
    double threshold;         /* S/N; heimdall, astroaccelerate 6, presto 5 */
    double baseline_s;        /* block length, s (heimdall 2; presto: 1000 samples; astroaccelerate: the row) */
    double wmax_s;            /* widest box, s (heimdall: 4096 samples) */
    int nwidths;              /* > 0: these widths, samples of the plane, instead of the preset's list */
    int32_t widths[XC_SP_MAXW];
    int sep_time, sep_width, sep_dm;  /* clustering (Heimdall's cand_sep_*: 3, 3, 200) */
    int threads;              /* 0: all */
} xc_spopts;

void xc_spopts_default(xc_spopts *o, xc_sp_preset preset);

/* What an implementation runs with, for one plane (one range of a plan). */
typedef struct {
    xc_sp_stat stat;
    double threshold;
    size_t block;             /* L, samples; >= 1 */
    int nwidths;              /* >= 1, ascending, each >= 1 */
    int32_t widths[XC_SP_MAXW];
    int threads;
} xc_spconf;

/* Resolves o for a plane of samples tsamp apart (seconds).  XC_EINVAL naming
 * the option and value (a width list not ascending, a threshold not finite). */
xc_status xc_spconf_make(const xc_spopts *o, double tsamp, xc_spconf *c, xc_error *err);

/* The plane a search reads: a view, not owned.  Row r (DM trial dm0 + r of
 * the plan) is data[r * stride + t], t < nsamp.  `device` says data is
 * device memory (a CUDA dedisperser's plane, searched where it lies, without
 * a copy); a host implementation refuses such a view (XC_EINVAL). */
typedef struct {
    const float *data;
    size_t nrows, nsamp, stride;
    int device;
    double tsamp;             /* seconds per sample of this plane (the file's tsamp x ds) */
    int ds;                   /* samples of the series per sample of this plane (a plan range's ds) */
    int32_t dm0;              /* plan trial of row 0 */
    const double *dms;        /* nrows DMs, pc cm^-3 (host memory) */
    /* Row statistics measured elsewhere (host memory, nrows each; NULL: the
     * view's own): row_s the rms s of every row, row_m (XC_SP_MEAN_SD only)
     * its mean m.  A gulp's window of a longer row passes the whole row's
     * (core/sp/xc_sprms.h), so its S/N is the whole search's.  Only a
     * searcher with `row_stats` set reads them. */
    const double *row_s, *row_m;
} xc_spplane;

/* The views of a dedispersed plane, one per range of plan (views: nranges
 * entries), and every trial's DM in plan order (dms: xc_dmplan_ndm entries);
 * tsamp is the series' sample time. */
void xc_spplane_views(const xc_dmplan *plan, const xc_plane *pl, double tsamp, xc_spplane *views, double *dms);

/* One detection: a run's best box.  Implementations fill snr, sample (t),
 * width (w), windex (w's index in the conf), dm_index (row), begin, end, in
 * samples of the plane; core rescales them to series samples (x ds) and
 * plan trials (+ dm0). */
typedef struct {
    double snr;
    int64_t sample;
    int32_t width, windex, dm_index;
    int64_t begin, end;
} xc_spdet;

typedef struct {
    xc_spdet *d;
    size_t n, cap;
} xc_spdets;

void xc_spdets_free(xc_spdets *d);
xc_status xc_spdets_add(xc_spdets *d, const xc_spdet *x, xc_error *err);
/* Places a plane's detections in the series: samples (sample, begin, end)
 * + shift, then samples and width x ds; trials + dm0. */
void xc_spdets_place(xc_spdets *d, int64_t shift, int ds, int32_t dm0);
/* Appends src's detections to dst. */
xc_status xc_spdets_append(xc_spdets *dst, const xc_spdets *src, xc_error *err);

/* B of the box [t, t+w): over the blocks it overlaps, in increasing order,
 * (its samples in the block) x m[b], summed from 0.0 in double.  m: the
 * nb = xc_sp_nblocks(n, L) baselines of a row of n samples. */
double xc_sp_box_baseline(const double *m, size_t n, size_t L, size_t t, size_t w);
/* Blocks of a row of n samples: max(1, n / L). */
size_t xc_sp_nblocks(size_t n, size_t L);
/* First sample of block b (block nb-1 ends at n). */
static inline size_t xc_sp_block_lo(size_t L, size_t b) { return b * L; }

/* The astroaccelerate preset's m and s of a row of n samples from sx and sxx,
 * the sums of x and x^2 in double in sample order: m = sx / n,
 * s = sqrt(sxx / n - m * m) (0 where that is not positive). */
void xc_sp_mean_sd(double sx, double sxx, size_t n, double *m, double *s);

/* The row statistics as the reference defines them, by sorting: m[b] for the
 * xc_sp_nblocks(n, c->block) blocks (one, the mean, for XC_SP_MEAN_SD) and
 * the rms *s; tmp holds n doubles. */
void xc_sp_row_stats(const float *x, size_t n, const xc_spconf *c, double *m, double *s, double *tmp);
/* The block medians alone (XC_SP_MEDIAN_MAD), as xc_sp_row_stats gives them. */
void xc_sp_block_medians(const float *x, size_t n, size_t L, double *m, double *tmp);
/* The median of v[0..n-1] (reordered): of an even count (a + b) / 2 of the
 * two middle values, as the rms takes it. */
double xc_sp_median(double *v, size_t n);
/* Row r's s and m (m[0], XC_SP_MEAN_SD) replaced by pl's given ones, if any. */
static inline void xc_sp_given_stats(const xc_spplane *pl, const xc_spconf *c, size_t r, double *m, double *s)
{
    if (pl->row_s)
        *s = pl->row_s[r];
    if (pl->row_m && c->stat == XC_SP_MEAN_SD)
        m[0] = pl->row_m[r];
}

/* Family XC_FAMILY_SINGLEPULSE.  plan (optional): state for planes of up to
 * nsamp samples under c (scratch, device buffers), reused from plane to
 * plane; execute: the detections of one plane, appended to out in row order,
 * widths ascending within a row, runs in time order within a width (the
 * order the reference gives; core does not depend on it); destroy frees the
 * state. */
typedef struct xc_spsearcher {
    xc_impl impl;
    xc_status (*plan)(const struct xc_spsearcher *self, const xc_spconf *c, size_t nsamp, void **state,
                      xc_error *err);
    xc_status (*execute)(const struct xc_spsearcher *self, void *state, const xc_spconf *c, const xc_spplane *pl,
                         xc_spdets *out, xc_error *err);
    void (*destroy)(const struct xc_spsearcher *self, void *state);
    int row_stats;            /* 1: execute takes a view's row_s / row_m in place of its own s and mean */
} xc_spsearcher;

/* The single-pulse searcher impl is, NULL if it is of another family. */
const xc_spsearcher *xc_spsearcher_of(const xc_impl *impl);

/* Detections of one plane through s (plan, execute, destroy). */
xc_status xc_sp_detect(const xc_spsearcher *s, const xc_spconf *c, const xc_spplane *pl, xc_spdets *out,
                       xc_error *err);

/* Clustering tolerances (friends of friends, Heimdall's are_coincident):
 * two detections are friends when |sample_i - sample_j| <= sep_time x
 * max(width_i, width_j), |windex_i - windex_j| <= sep_width and
 * |dm_index_i - dm_index_j| <= sep_dm. */
typedef struct {
    int sep_time, sep_width, sep_dm;
} xc_spsep;

/* o's tolerances (0: Heimdall's 3, 3, 200). */
xc_spsep xc_spopts_sep(const xc_spopts *o);

/* Clusters d (series samples, plan trials; reordered) into out: one
 * candidate per cluster, its best member (largest snr; ties: earliest sample,
 * lowest trial, smallest width), members, begin/end, dm_lo/dm_hi; time_s =
 * sample x tsamp and dm = dms[dm_index].  out is sorted (xc_spcandlist_sort). */
xc_status xc_sp_cluster(xc_spdets *d, const xc_spsep *sep, double tsamp, const double *dms, size_t ndms,
                        xc_spcandlist *out, xc_error *err);

/* The bytes a search of views[0..nviews) under o holds at its peak beside
 * the plane, with threads threads (each its own scratch: the in-tree CPU
 * searcher's prefix sums and baselines, 2 doubles a sample and more, the
 * largest of the host searchers); the detections found are not counted. */
double xc_sp_search_memory(const xc_spopts *o, const xc_spplane *views, int nviews, int threads);
/* The whole search of a plan's planes (one view per range; each view's
 * tsamp and ds its range's): detect each through s under o, then cluster
 * all together.  tsamp: the series' (undownsampled) sample time; dms: every
 * trial of the plan (ndms). */
xc_status xc_sp_search(const xc_spsearcher *s, const xc_spopts *o, const xc_spplane *views, int nviews, double tsamp,
                       const double *dms, size_t ndms, xc_spcandlist *out, xc_error *err);
/* The same through state, a plan of s kept by the caller (s->plan made for
 * planes of at least the views' samples; NULL: each view planned and
 * destroyed in turn, as xc_sp_search does), so a run of blocks pays the
 * searcher's setup (device buffers) once. */
xc_status xc_sp_search_planned(const xc_spsearcher *s, void *state, const xc_spopts *o, const xc_spplane *views,
                               int nviews, double tsamp, const double *dms, size_t ndms, xc_spcandlist *out,
                               xc_error *err);

/* The CSV every reader of crosscheck's lists takes: the header line
 * snr,time_s,sample,width,dm,dm_index,members,begin,end,dm_lo,dm_hi then one
 * row per candidate in the list's order.  XC_EIO naming path. */
xc_status xc_spcands_write_csv(const xc_spcandlist *l, const char *path, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
