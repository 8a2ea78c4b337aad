/* xc_progress.h: how long work tells its caller how far it has got.  The
 * library never prints: it calls a callback the caller gave it, and the CLI's
 * meter (cli/base/cli_meter.h) draws PRESTO's "Amount Complete" line on a terminal. */
#ifndef XC_PROGRESS_H
#define XC_PROGRESS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Called with the stage's label, the work done and the total, in the same
 * units, done rising to total.  Must not fail. */
typedef void (*xc_progress_fn)(void *ctx, const char *label, uint64_t done, uint64_t total);

typedef struct {
    xc_progress_fn fn;     /* NULL: nobody listens */
    void *ctx;
} xc_progress_cb;

static inline void xc_progress_report(const xc_progress_cb *cb, const char *label, uint64_t done, uint64_t total)
{
    if (cb && cb->fn)
        cb->fn(cb->ctx, label, done, total);
}

/* Monotonic wall clock in seconds. */
double xc_now(void);

#ifdef __cplusplus
}
#endif
#endif
