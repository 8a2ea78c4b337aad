/* xc_spfiles.h: single-pulse candidate files other tools read and write,
 * each translated to and from xc_spcand (core/sp/xc_spcands.h), whose
 * `sample` is the FIRST sample of the best member's box.
 *
 * CSV (crosscheck singlepulse -format csv; the writer is xc_spcands_write_csv):
 *   header  snr,time_s,sample,width,dm,dm_index,members,begin,end,dm_lo,dm_hi
 *   rows    %.6f,%.9f,%lld,%d,%.6f,%d,%lld,%lld,%lld,%d,%d, one per candidate.
 *   The reader also takes the first seven columns alone (begin = sample,
 *   end = sample + width, dm_lo = dm_hi = dm_index), and the columns in any
 *   order, by their header names; other columns are refused.
 *
 * Heimdall .cand (heimdall-astro Pipeline/pipeline: one line per cluster,
 * tab separated, the ostream's default 6 significant digits):
 *   snr  sample  time  filter  dm_trial  dm  members  begin  end
 *   snr       = snr
 *   sample    = box centre: sample + floor(width/2) (Heimdall's matched
 *               filter sums in[c - floor(W/2) .. c + ceil(W/2) - 1] at output c)
 *   time      = that centre sample * tsamp, s
 *   filter    = log2(width): Heimdall's widths are the powers of two, so a
 *               width that is not one cannot be written (XC_EINVAL naming the
 *               candidate and its width; nothing is written)
 *   dm_trial  = dm_index;  dm = dm;  members = members
 *   begin,end = Heimdall's first and one-past-last above-threshold box
 *               centre of the best member: written begin + floor(width/2)
 *               and end - ceil(width/2) + 1, the same for a cluster of one
 *               box (ours span every member's box, so the two differ for
 *               larger clusters); read back the other way.
 *   Not in the file: dm_lo, dm_hi (read as dm_index).
 *   We write snr and dm with %.6f and time with %.9f (more digits than
 *   Heimdall's, which readers of .cand files accept).
 *
 * PRESTO .singlepulse (bin/single_pulse_search.py, candidate.__str__):
 *   "# DM      Sigma      Time (s)     Sample    Downfact" then
 *   "%7.2f %7.2f %13.6f %10d     %3d" per candidate
 *   DM = dm (two decimals);  Sigma = snr (two decimals)
 *   Sample = box centre: sample + floor(width/2) (its kernels sum
 *            data[b - D//2 .. b - D//2 + D - 1] at bin b, odd and even D)
 *   Time = Sample * tsamp (1 us resolution);  Downfact = width
 *   Not in the file: dm_index (read as the rank of the DM among the file's
 *   distinct DMs, ascending), members (1), begin/end (the box),
 *   dm_lo/dm_hi (dm_index).  Rows are written by DM then sample, as a
 *   concatenation of PRESTO's one-file-per-DM output reads; comment lines
 *   (#) are accepted anywhere.  A box PRESTO centres less than half a width
 *   from the start (it pads the first chunk with zeros) reads with a
 *   negative sample: the box starts before the data.
 *
 * tsamp of a list read from .cand, .singlepulse or CSV: time / sample of
 * the row with the largest sample (0 when every sample is 0); rows of a
 * .singlepulse with another time/sample (PRESTO's downsampled DM ranges)
 * make it 0 (unknown), and each candidate's time_s is then its own row's
 * time moved to the box start.
 *
 * Every reader refuses, naming the file, line, column and value: a field
 * that is not a number, NaN or infinite values, widths < 1 or > 2^30,
 * a box starting more than its width before the data or after 2^53,
 * |snr| > 1e7, |time| > 1e9 s, DM outside
 * -1e4..1e6, members < 1, begin > sample or end < sample + width (or
 * either more than 2^40 samples beyond the box),
 * dm_lo > dm_index > dm_hi, a wrong column count, and a wrong header.  On any
 * failure the list is left empty. */
#ifndef XC_SPFILES_H
#define XC_SPFILES_H

#include "core/sp/xc_spcands.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    XC_SPFMT_AUTO = 0,   /* by the file's extension (and, for .csv, its header) */
    XC_SPFMT_CSV,
    XC_SPFMT_HEIMDALL,   /* .cand */
    XC_SPFMT_PRESTO      /* .singlepulse */
} xc_spformat;

/* "csv", "heimdall" (or "cand"), "presto" (or "singlepulse") into *f;
 * XC_EINVAL naming the value and the choices. */
xc_status xc_spformat_parse(const char *name, xc_spformat *f, xc_error *err);
const char *xc_spformat_name(xc_spformat f);
/* The format of path by its extension: .cand, .singlepulse; a .csv whose
 * first line starts with "snr," is a single-pulse CSV (the periodicity CSV
 * starts with "r,").  XC_SPFMT_AUTO when it is none of these. */
xc_spformat xc_spformat_of_path(const char *path);

xc_status xc_spcands_read_csv(xc_spcandlist *l, const char *path, xc_error *err);
xc_status xc_spcands_read_heimdall(xc_spcandlist *l, const char *path, xc_error *err);
xc_status xc_spcands_read_presto(xc_spcandlist *l, const char *path, xc_error *err);
/* Written atomically (a temporary renamed into place): never half a file. */
xc_status xc_spcands_write_heimdall(const xc_spcandlist *l, const char *path, xc_error *err);
xc_status xc_spcands_write_presto(const xc_spcandlist *l, const char *path, xc_error *err);

/* Reads path as fmt (XC_SPFMT_AUTO: xc_spformat_of_path; XC_EFORMAT naming
 * the path when that is none). */
xc_status xc_spcands_read(xc_spcandlist *l, const char *path, xc_spformat fmt, xc_error *err);

/* Checks one candidate against the ranges above; where names it in the
 * message ("FILE: line N"). */
xc_status xc_spcand_check(const xc_spcand *c, const char *where, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
