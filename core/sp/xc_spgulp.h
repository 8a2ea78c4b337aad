/* xc_spgulp.h: the single-pulse search of a filterbank in gulps: the file is
 * read and dedispersed gulp by gulp, each gulp's window searched, the runs
 * each gulp owns kept and all of them clustered once.  docs/SINGLEPULSE.md
 * ("Gulps") states which samples each statistic uses and the exact
 * difference from the search of the whole plane. */
#ifndef XC_SPGULP_H
#define XC_SPGULP_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/xc_progress.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/io/xc_filterbank.h"
#include "core/sp/xc_spsearch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the search pass's planes are made, when not on the host: plane
 * dedisperses block in through p (the search's plan) into pl, laid out in
 * memory the source owns (valid until its next call; device memory when
 * `device` is set, searched there through device views).  The passes of
 * the whole rows' statistics read host planes whatever the source. */
typedef struct {
    xc_status (*plane)(void *ctx, xc_ddplan *p, const xc_block *in, xc_plane *pl, xc_error *err);
    void *ctx;
    int device;
} xc_spgulp_source;

typedef struct {
    const xc_spsearcher *search;
    const xc_spopts *opts;
    const xc_dedisperser *dd;
    const xc_convention *conv;
    const xc_dmplan *plan;
    int threads;               /* the dedisperser's (0: all) */
    size_t gulp;               /* series samples each gulp owns (0: the whole when it fits, see xc_spgulp_choose) */
    double max_memory;         /* bytes (0: half the machine's, for the choice only) */
    xc_progress_cb progress;   /* ("singlepulse", series samples done, total) after each gulp */
    const char *input_name;    /* for messages */
    xc_spgulp_source source;   /* the search pass's planes (plane NULL: host planes of the dedisperser) */
} xc_spgulp_args;

/* What a search holds and how it is cut. */
typedef struct {
    size_t gulp;               /* series samples each gulp owns */
    size_t ngulps;
    size_t total;              /* series samples of output (the file's less the largest delay) */
    int64_t max_delay;         /* samples */
    size_t widest;             /* the widest box over the ranges, series samples */
    size_t span;               /* the longest window, series samples */
    double bytes;              /* a gulp's input and plane at the longest window */
    double whole;              /* the same for one gulp of the whole file */
    int rms_passes;            /* passes gathering the whole rows' statistics before the search (0: none) */
} xc_spgulp_info;

/* The window [*a, *e) gulp j searches in a row of n samples with blocks of
 * L (1 for statistics of no blocks) and widest box w, owning [lo, hi).
 * docs/SINGLEPULSE.md gives the rule. */
void xc_spgulp_window(size_t n, size_t L, size_t w, size_t lo, size_t hi, size_t *a, size_t *e);

/* The gulp and the memory for r under a.  XC_EINVAL naming -gulp (or
 * -max_memory) and the least it can be when the gulp is shorter than the
 * largest delay plus the widest box; XC_EINVAL for a plan longer than the
 * file; XC_ENOMEM when even the least gulp exceeds the machine. */
xc_status xc_spgulp_choose(xc_fbreader *r, const xc_spgulp_args *a, xc_spgulp_info *info, xc_error *err);

/* The search of everything r holds, in gulps (xc_spgulp_choose), into out
 * (sorted, tsamp the file's).  info (may be NULL) gets the cut.  Nothing is
 * printed. */
xc_status xc_sp_search_fil(xc_fbreader *r, const xc_spgulp_args *a, xc_spcandlist *out, xc_spgulp_info *info,
                           xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
