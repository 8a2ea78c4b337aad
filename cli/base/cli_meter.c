/* cli_meter.c: see cli_meter.h. */
#include "cli/base/cli_meter.h"

#include <stdlib.h>
#include <unistd.h>

void xc_progress_start_on(xc_progress *p, const char *label, uint64_t total, xc_meter_mode mode, int forced,
                          double (*clock)(void), FILE *out)
{
    p->mode = mode;
    p->forced = forced;
    p->enabled = mode != XC_METER_OFF;
    p->label = label;
    p->unit = NULL;
    p->total = total ? total : 1;
    p->done = 0;
    p->clock = clock ? clock : xc_now;
    p->out = out ? out : stderr;
    p->t0 = p->last = p->clock();
    p->last_step = -1;
    p->lines = 0;
    p->width = 0;
}

void xc_progress_start(xc_progress *p, const char *label, uint64_t total, int want)
{
    const char *ci = getenv("CI");
    xc_meter_mode m = want == XC_PROGRESS_QUIET ? XC_METER_OFF
                      : isatty(STDERR_FILENO) && !(ci && *ci) ? XC_METER_TTY
                                                               : XC_METER_LOG;
    xc_progress_start_on(p, label, total, m, want == XC_PROGRESS_FORCE, xc_now, stderr);
}

void xc_meter_duration(char *buf, size_t n, double s)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t < 60)
        snprintf(buf, n, "%ld s", t);
    else if (t < 3600)
        snprintf(buf, n, "%ld min %02ld s", t / 60, t % 60);
    else
        snprintf(buf, n, "%ld h %02ld min", t / 3600, t / 60 % 60);
}

void xc_meter_text(char *buf, size_t n, const xc_progress *p, double now)
{
    double el = now - p->t0, frac = (double)p->done / (double)p->total;
    char e[32], left[48] = "";
    xc_meter_duration(e, sizeof e, el);
    if (p->done > 0 && p->done < p->total && (frac >= 0.01 || el >= 1.0)) {
        char r[32];
        xc_meter_duration(r, sizeof r, el * (1 - frac) / frac);
        snprintf(left, sizeof left, ", about %s left", r);
    }
    snprintf(buf, n, "%s: %d%% (%llu/%llu%s%s), %s elapsed%s", p->label, (int)(100 * frac),
             (unsigned long long)p->done, (unsigned long long)p->total, p->unit ? " " : "", p->unit ? p->unit : "",
             e, left);
}

int xc_meter_log_due(const xc_progress *p, double now)
{
    double since = now - p->last;
    if (!p->forced && now - p->t0 < XC_METER_LOG_DELAY)
        return 0;
    int step = (int)(10 * (double)p->done / (double)p->total);
    if (step > p->last_step && (p->forced || since >= XC_METER_LOG_GAP))
        return 1;
    return since >= XC_METER_LOG_EVERY;
}

static void draw(xc_progress *p, double now)
{
    char t[256];
    xc_meter_text(t, sizeof t, p, now);
    int w = fprintf(p->out, "\r%s", t) - 1;
    if (w < p->width)   /* clear what a longer line left */
        fprintf(p->out, "%*s", p->width - w, "");
    p->width = w;
    fflush(p->out);
}

void xc_progress_update(xc_progress *p, uint64_t done)
{
    if (!p->enabled)
        return;
    p->done = done < p->total ? done : p->total;
    double now = p->clock();
    if (p->mode == XC_METER_TTY) {
        /* a thousandth more, at most 5 draws a second (and one a second for the clock) */
        int step = (int)(1000 * (double)p->done / (double)p->total);
        if ((step == p->last_step || now - p->last < 0.2) && now - p->last < 1.0 && p->last_step >= 0)
            return;
        p->last_step = step;
        p->last = now;
        draw(p, now);
        return;
    }
    if (p->done == p->total || !xc_meter_log_due(p, now))   /* the end says 100 % */
        return;
    char t[256];
    xc_meter_text(t, sizeof t, p, now);
    fprintf(p->out, "%s\n", t);
    fflush(p->out);
    p->last_step = (int)(10 * (double)p->done / (double)p->total);
    p->last = now;
    p->lines++;
}

void xc_progress_end(xc_progress *p)
{
    if (!p->enabled || (p->mode == XC_METER_LOG && !p->lines && !p->forced))
        return;
    double now = p->clock();
    p->done = p->total;
    char t[256];
    xc_meter_text(t, sizeof t, p, now);
    if (p->mode == XC_METER_TTY) {
        draw(p, now);
        fputc('\n', p->out);
    } else {
        fprintf(p->out, "%s\n", t);
    }
    fflush(p->out);
    p->enabled = 0;
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
