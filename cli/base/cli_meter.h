/* cli_meter.h: the progress meter on stderr.  It listens to the library
 * through xc_progress_cb (the library never prints) and shows the work done,
 * the total, the time elapsed and an estimate of the time left:
 *   - on a terminal, one line redrawn in place (PRESTO's "Amount Complete");
 *   - elsewhere (a log, CI: stderr not a terminal, or CI set), whole lines,
 *     throttled: one at each further tenth of the work, at least 10 s apart,
 *     and one at least every 30 s; only for work running past 5 s, so that
 *     short commands stay silent, unless -progress asks for every tenth from
 *     the start;
 *   - nothing with -quiet. */
#ifndef XC_CLI_METER_H
#define XC_CLI_METER_H

#include <stdint.h>
#include <stdio.h>

#include "core/base/xc_progress.h"

/* What a command's options ask for (the last argument of xc_progress_start;
 * a command with -quiet alone passes its flag: 0 auto, 1 quiet). */
enum { XC_PROGRESS_AUTO = 0, XC_PROGRESS_QUIET = 1, XC_PROGRESS_FORCE = 2 };
static inline int xc_progress_want(int quiet, int progress)
{
    return quiet ? XC_PROGRESS_QUIET : progress ? XC_PROGRESS_FORCE : XC_PROGRESS_AUTO;
}

typedef enum { XC_METER_OFF, XC_METER_TTY, XC_METER_LOG } xc_meter_mode;

/* Throttling of the log mode, seconds. */
#define XC_METER_LOG_DELAY 5.0    /* nothing before (unless forced) */
#define XC_METER_LOG_GAP 10.0     /* between lines at tenths (unless forced) */
#define XC_METER_LOG_EVERY 30.0   /* a line at least this often */

typedef struct {
    xc_meter_mode mode;
    int forced;                /* -progress */
    int enabled;               /* mode != OFF */
    const char *label;
    const char *unit;          /* of done and total ("spectra", "pulsars"); NULL: none shown */
    uint64_t total, done;
    double t0, last;           /* the start; the last line (log) or draw (terminal) */
    int last_step;             /* tenths (log) or thousandths (terminal) at the last line */
    int lines;                 /* lines written (log) */
    int width;                 /* characters of the last draw (terminal) */
    double (*clock)(void);     /* xc_now; a test gives a fake one */
    FILE *out;                 /* stderr */
} xc_progress;

/* want: XC_PROGRESS_AUTO, _QUIET or _FORCE (or a -quiet flag). */
void xc_progress_start(xc_progress *p, const char *label, uint64_t total, int want);
/* The same with the mode, the clock and the stream given (tests). */
void xc_progress_start_on(xc_progress *p, const char *label, uint64_t total, xc_meter_mode mode, int forced,
                          double (*clock)(void), FILE *out);
void xc_progress_update(xc_progress *p, uint64_t done);
void xc_progress_end(xc_progress *p);
/* A callback that drives the meter p (started by the caller; the total the
 * library reports replaces p's). */
xc_progress_cb xc_progress_callback(xc_progress *p);
/* The same for callbacks of the shape (ctx, done, total), as synth's and
 * population's: ctx is the meter, started with the total. */
void xc_progress_step(void *meter, uint64_t done, uint64_t total);

/* "12 s", "3 min 05 s", "2 h 07 min" (s rounded to whole seconds). */
void xc_meter_duration(char *buf, size_t n, double s);
/* The meter's text without line ending: "label: 42% (420/1000 unit), 12 s
 * elapsed, about 17 s left" (no estimate before 1 % or 1 s). */
void xc_meter_text(char *buf, size_t n, const xc_progress *p, double now);
/* 1 when the log mode writes a line at time now (the throttle). */
int xc_meter_log_due(const xc_progress *p, double now);

#endif
