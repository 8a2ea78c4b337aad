#include "cli/cli_meter.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void xc_progress_start(xc_progress *p, const char *label, uint64_t total, int quiet)
{
    const char *ci = getenv("CI");
    p->enabled = !quiet && isatty(STDERR_FILENO) && !(ci && *ci);
    p->label = label;
    p->total = total ? total : 1;
    p->last_pct = -1;
    p->t0 = xc_now();
}

void xc_progress_update(xc_progress *p, uint64_t done)
{
    if (!p->enabled)
        return;
    int pct = (int)(100.0 * (double)done / (double)p->total);
    if (pct == p->last_pct)
        return;
    p->last_pct = pct;
    fprintf(stderr, "\r%s: %3d%% (%.1f s)", p->label, pct, xc_now() - p->t0);
    fflush(stderr);
}

void xc_progress_end(xc_progress *p)
{
    if (p->enabled) {
        fprintf(stderr, "\r%s: 100%% (%.1f s)\n", p->label, xc_now() - p->t0);
        fflush(stderr);
    }
}

static void on_progress(void *ctx, const char *label, uint64_t done, uint64_t total)
{
    xc_progress *p = ctx;
    (void)label;
    p->total = total ? total : 1;
    xc_progress_update(p, done);
}

xc_progress_cb xc_progress_callback(xc_progress *p)
{
    return (xc_progress_cb){on_progress, p};
}

void xc_progress_step(void *meter, uint64_t done, uint64_t total)
{
    (void)total;
    xc_progress_update(meter, done);
}
