#include "core/xc_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double xc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
