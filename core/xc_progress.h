/* xc_progress.h: a one-line progress meter on stderr, shown only when stderr is
 * a terminal and neither CI nor quiet mode is set (PRESTO's "Amount Complete"). */
#ifndef XC_PROGRESS_H
#define XC_PROGRESS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
/* Monotonic wall clock in seconds. */
double xc_now(void);

#ifdef __cplusplus
}
#endif
#endif
