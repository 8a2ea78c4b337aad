/* xc_runspec.h: the run specification `crosscheck run -spec FILE` reads
 * (datasets/default-run.json is the example), read through one table of
 * fields: each has its JSON key, its type, where it goes and its bounds.
 *
 *   { "description": "...", "convention": "crosscheck",
 *     "synthetic":   [ {"name", "dmplan", "synth": {xc_synth_params_from_json fields}} ],
 *     "real":        [ {"name", "file", "dmplan", "line": {"dm", "freq_hz"}, "approximate",
 *                       "prepsubband": {"dmplan", "nsub", "dmsub", "root"}, "known", "note"} ],
 *     "periodicity": [ {"name", "fft" | "synth", "zmax", "numharm", "sigma", "f_hz", "known", "note"} ],
 *     "accel":       [ {"name", "fft" | "synth", "zmax", "wmax", "numharm", "sigma", "rlo", "rhi",
 *                       "truth": {"r", "z", "w"}, "dr", "dz", "dw", "accelsearch", "known", "note"} ] }
 *
 * "known": [ {"kind", "name", "f_hz", "ftol_hz", "maxharm", "sigma", "dm", "dmtol", "t_s", "ttol_s"} ]
 * declares the signals a real file holds (compare/check/xc_known.h: pulsars and
 * birdies judged by the periodicity searches, bursts by the single-pulse
 * search: of the reference plane of a real entry, of the PRESTO series
 * BASE.dat beside a spectrum entry's BASE.fft).
 *
 * Types are strict: an integer field takes only a JSON integer, a number
 * field an integer or a real, a string field only a string.  An unknown
 * field, a wrong type, a value out of bounds or a missing required field is
 * XC_EINVAL with a message naming the file and the field's JSON path, e.g.
 *   spec.json: periodicity[0].zmax: expected integer, got string "64"
 * The synth objects, DM plans and the convention are checked when read, so a
 * run never starts on a spec it cannot finish. */
#ifndef XC_RUNSPEC_H
#define XC_RUNSPEC_H

#include <stddef.h>

#include <jansson.h>

#include "compare/check/xc_known.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Strings and objects point into the spec's JSON, which the spec owns. */
typedef struct {
    const char *name;          /* default "synthetic" */
    const char *dmplan;        /* required */
    const json_t *synth;       /* required */
    int approximate;           /* 1: the approximate dedispersers too (default 0: they are slow to judge) */
} xc_rs_synthetic;

typedef struct {
    const char *name;          /* default "real" */
    const char *file;          /* required; relative to the spec's folder unless absolute */
    const char *dmplan;        /* required */
    double line_dm;            /* "line": {"dm", "freq_hz"}; NaN when there is no line */
    double line_freq_hz;
    int approximate;           /* as xc_rs_synthetic's */
    /* "prepsubband": {"dmplan", "nsub", "dmsub", "root"}: PRESTO prepsubband's
     * .dat series of the file (root_DM<dm to 2 decimals>.dat), each compared
     * with the subband dedispersers' plane under the presto convention;
     * ps_root NULL when there are none */
    const char *ps_dmplan, *ps_root;
    int ps_nsub;               /* default 32, prepsubband's */
    double ps_dmsub;           /* default 0: every trial from one nominal DM per plan range group */
    xc_known *known;           /* the file's known signals (bursts; nknown of them) */
    size_t nknown;
} xc_rs_real;

typedef struct {
    const char *name;          /* default "periodicity" */
    const char *fft;           /* a spectrum file, or NULL; exactly one of fft and synth */
    const json_t *synth;
    int zmax, numharm;         /* defaults: xc_psopts_default */
    double sigma;
    double f_hz;               /* the pulsar's frequency for the top-candidate check; NaN when none */
    xc_known *known;           /* known signals of a spectrum file and its series (nknown of them) */
    size_t nknown;
} xc_rs_periodicity;

/* The matched-filter accel search on one spectrum (cli/run/cmd_run_accel.c). */
typedef struct {
    const char *name;          /* default "accel" */
    const char *fft;           /* a spectrum file, or NULL; exactly one of fft and synth */
    const json_t *synth;       /* synthesized, dedispersed and FFT'd; the truth file gives r, z (and w) */
    int zmax, wmax, numharm;   /* defaults 0, 0, 1 */
    double sigma;              /* default 2 (accelsearch's) */
    double rlo, rhi;           /* the searched bins (NaN: the whole spectrum; the reference needs a narrow range) */
    double truth_r, truth_z, truth_w;   /* "truth": {"r", "z", "w"} for a spectrum file; NaN when none */
    double dr, dz, dw;         /* truth windows (defaults 1 bin, 2 and 20: one step of each grid) */
    const char *accelsearch;   /* accelsearch's _ACCEL_ table of the same search, or NULL */
    xc_known *known;           /* known signals of a spectrum file and its series (nknown of them) */
    size_t nknown;
} xc_rs_accel;

typedef struct {
    json_t *root;
    char source[1024];         /* the file name, as messages start */
    const char *convention;    /* default "crosscheck" */
    xc_rs_synthetic *syn;
    size_t nsyn;
    xc_rs_real *real;
    size_t nreal;
    xc_rs_periodicity *per;
    size_t nper;
    xc_rs_accel *acc;
    size_t nacc;
} xc_runspec;

/* Reads and checks the file.  XC_EIO when it cannot be read, XC_EFORMAT for
 * invalid JSON (line and column), XC_EINVAL as above, XC_ENOMEM.  s is empty
 * (safe to free) after an error. */
xc_status xc_runspec_load(xc_runspec *s, const char *path, xc_error *err);
/* The same from JSON in memory (a new reference is taken); source names it. */
xc_status xc_runspec_from_json(xc_runspec *s, json_t *root, const char *source, xc_error *err);
void xc_runspec_free(xc_runspec *s);

#ifdef __cplusplus
}
#endif
#endif
