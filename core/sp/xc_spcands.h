/* xc_spcands.h: single-pulse (FRB) search candidates, the list every
 * single-pulse implementation, reader and comparator shares.
 *
 * One candidate is one cluster of boxcar detections in (time, DM, width),
 * represented by its best member (largest S/N), as Heimdall merges its
 * "giants" (Barsdell et al. 2012; heimdall-astro, pipeline/label_candidate_clusters).
 * Conventions (docs/SINGLEPULSE.md states them and what each file format
 * translates to):
 *   sample    first sample of the best member's box, counted from the first
 *             sample of the dedispersed series (the plane's first output sample)
 *   width     boxcar width of the best member, samples
 *   time_s    sample * tsamp, seconds from the start of the series
 *   dm_index  DM trial of the best member in the plan; dm its DM, pc cm^-3
 *   snr       the best member's S/N: the box's sum above the baseline over
 *             (rms * sqrt(width))
 *   members   detections merged into the cluster
 *   begin,end the first and one-past-last sample covered by any member's box
 *   dm_lo,dm_hi  the lowest and highest DM trial index among the members
 */
#ifndef XC_SPCANDS_H
#define XC_SPCANDS_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double snr;
    double time_s;
    int64_t sample;
    int32_t width;
    int32_t dm_index;
    double dm;
    int64_t members;
    int64_t begin, end;
    int32_t dm_lo, dm_hi;
} xc_spcand;

typedef struct {
    xc_spcand *c;
    size_t n, cap;
    double tsamp;        /* s; 0 if unknown */
    char source[64];     /* "crosscheck", "heimdall", "presto" */
} xc_spcandlist;

void xc_spcandlist_init(xc_spcandlist *l);
void xc_spcandlist_free(xc_spcandlist *l);
/* Appends a copy of c.  XC_ENOMEM. */
xc_status xc_spcandlist_add(xc_spcandlist *l, const xc_spcand *c, xc_error *err);
/* Sorts by descending snr, ties by ascending sample, then dm_index, then
 * width (deterministic, the order every writer uses). */
void xc_spcandlist_sort(xc_spcandlist *l);

#ifdef __cplusplus
}
#endif
#endif
