/* xc_ddstream.h: dedisperse a filterbank file of any size into a plane on disk,
 * gulp by gulp: each gulp reads nout + max_delay spectra and yields nout output
 * samples, nout a multiple of every range's downsample factor, so the result is
 * the same as one pass over the whole file.  One plan (xc_ddplan) serves every
 * gulp. */
#ifndef XC_DDSTREAM_H
#define XC_DDSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/io/xc_filterbank.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/dedisp/run/xc_ddseries.h"
#include "core/base/xc_progress.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const xc_dedisperser *impl;
    const xc_convention *conv;
    const xc_dmplan *plan;
    const uint8_t *killmask;    /* NULL = all channels */
    int ifno;                   /* which IF to dedisperse */
    size_t gulp;                /* output samples per gulp (0: chosen, see xc_ddstream_estimate) */
    xc_ddopts opts;
    xc_ddtune tune;             /* backend tuning (zero: defaults) */
    xc_progress_cb progress;    /* told after each gulp ("dedisperse", done, total); may be empty */
    const char *input_name;     /* for metadata and messages */
    const char *cmdline;
    xc_ddseries_opts series;    /* format XC_DDOUT_NPY (zero): the plane; else one series file per trial */
    double max_memory;          /* bytes the stream may hold (0: no bound but the machine's) */
} xc_ddstream_args;

/* What a stream holds at once: the delay tables, a gulp's input (the gulp
 * plus the largest delay) and its plane; the implementation's own working
 * memory (a few tiles; a device's buffers) comes on top. */
typedef struct {
    size_t gulp;                /* the largest gulp, output samples */
    size_t min_gulp;            /* the smallest possible (the downsample factors' lcm) */
    double fixed;               /* bytes held whatever the gulp: delay tables, the largest delay's input */
    double per_sample;          /* bytes per output sample of a gulp: its input and its plane */
    double bytes;               /* fixed + gulp * per_sample */
    double plane;               /* bytes of the whole output plane (what a reader of the file holds) */
} xc_ddstream_est;

/* The memory of a stream and the gulp it takes: a->gulp when given, else
 * about 64 MiB of input and at most 1 GiB of plane, within a->max_memory.
 * XC_EINVAL naming both when even the smallest gulp exceeds a->max_memory;
 * XC_ENOMEM when it exceeds the machine's memory. */
xc_status xc_ddstream_estimate(xc_fbreader *r, const xc_ddstream_args *a, xc_ddstream_est *est, xc_error *err);

/* Dedisperses everything r holds into OUT.json + OUT.r<k>.npy (atomically),
 * or with a->series.format presto/tim into OUT_DM<dm>.dat/.inf or .tim.
 * *seconds (if not NULL) gets the time spent inside the implementation. */
xc_status xc_dedisperse_stream(xc_fbreader *r, const char *out, const xc_ddstream_args *a,
                               double *seconds, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
