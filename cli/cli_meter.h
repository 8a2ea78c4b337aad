/* cli_meter.h: the one-line progress meter on stderr, shown only when stderr
 * is a terminal and neither CI nor quiet mode is set (PRESTO's "Amount
 * Complete").  It listens to the library through xc_progress_cb. */
#ifndef XC_CLI_METER_H
#define XC_CLI_METER_H

#include <stdint.h>

#include "core/base/xc_progress.h"

typedef struct {
    int enabled;
    const char *label;
    uint64_t total;
    int last_pct;
    double t0;
} xc_progress;

void xc_progress_start(xc_progress *p, const char *label, uint64_t total, int quiet);
void xc_progress_update(xc_progress *p, uint64_t done);
void xc_progress_end(xc_progress *p);
/* A callback that drives the meter p (started by the caller; the total the
 * library reports replaces p's). */
xc_progress_cb xc_progress_callback(xc_progress *p);
/* The same for callbacks of the shape (ctx, done, total), as synth's and
 * population's: ctx is the meter, started with the total. */
void xc_progress_step(void *meter, uint64_t done, uint64_t total);

#endif
