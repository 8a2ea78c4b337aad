/* bench dedisperse -report DIR: the approximate dedispersers' speed against
 * their measured S/N loss, one curve per implementation, channel count, bit width and thread
 * count, drawn with the goals as points: subband 8x direct at <= 10 % loss,
 * tree 3x at < 5 % (Barsdell et al. 2012 project 3x for the tree and up to
 * 20x for subband with large smearing).  Speed is against direct on the same
 * hardware: kernels against the direct gpu kernels for device entries, whole
 * executions against direct cpu for host entries. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xc_bench_dd.h"
#include "reports/xc_report.h"

#define MAXCURVE 32
#define MAXPT 64

typedef struct {
    char label[96];
    double loss[MAXPT], speed[MAXPT];
    size_t n;
} curve;

static int by_loss(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

xc_status xc_bench_dd_curve_report(const json_t *records, const char *dir, xc_error *err)
{
    curve *cv = calloc(MAXCURVE, sizeof *cv);
    if (!cv)
        return xc_error_set(err, XC_ENOMEM, "bench: out of memory for the speed-against-loss report");
    size_t nc = 0, npts = 0;
    size_t k;
    json_t *rec;
    json_array_foreach(records, k, rec) {
        json_t *loss = json_object_get(rec, "worst_snr_loss");
        json_t *sp = json_object_get(rec, "kernel_speedup_vs_direct_gpu");
        if (!sp)
            sp = json_object_get(rec, "speedup_vs_direct_cpu");
        if (!loss || !sp)
            continue;
        char label[96];
        snprintf(label, sizeof label, "%s, %lld ch, %lld-bit, %lld thr%s",
                 json_string_value(json_object_get(rec, "impl")),
                 (long long)json_integer_value(json_object_get(rec, "nchans")),
                 (long long)json_integer_value(json_object_get(rec, "nbits")),
                 (long long)json_integer_value(json_object_get(rec, "threads")),
                 json_object_get(rec, "kernel_speedup_vs_direct_gpu") ? " (kernels)" : "");
        size_t c = 0;
        while (c < nc && strcmp(cv[c].label, label))
            c++;
        if (c == nc) {
            if (nc == MAXCURVE)
                continue;
            snprintf(cv[nc++].label, sizeof cv->label, "%s", label);
        }
        if (cv[c].n < MAXPT) {
            cv[c].loss[cv[c].n] = json_real_value(loss);
            cv[c].speed[cv[c].n++] = json_real_value(sp);
            npts++;
        }
    }
    xc_report *rep = NULL;
    xc_status st = xc_report_new(&rep, "crosscheck bench dedisperse: speed against S/N loss", err);
    if (!st)
        st = xc_report_add_text(rep,
                                "Each point is one timed run of an approximate dedisperser on the Table 2 plan: its "
                                "speed against direct dedispersion on the same hardware, and its worst measured S/N "
                                "loss (pulses of 1 and 4 samples against direct). The goals are drawn as points"
                                ": subband 8x at 10 % loss, tree 3x at 5 %; a goal is met by a "
                                "point at or above and to the left of it.",
                                err);
    /* sorted by loss so that each curve reads left to right */
    double buf[2 * MAXPT];
    for (size_t c = 0; c < nc && !st; c++) {
        for (size_t i = 0; i < cv[c].n; i++) {
            buf[2 * i] = cv[c].loss[i];
            buf[2 * i + 1] = cv[c].speed[i];
        }
        qsort(buf, cv[c].n, 2 * sizeof *buf, by_loss);
        for (size_t i = 0; i < cv[c].n; i++) {
            cv[c].loss[i] = buf[2 * i];
            cv[c].speed[i] = buf[2 * i + 1];
        }
    }
    static const double gl_sub[1] = {0.10}, gs_sub[1] = {8.0}, gl_tree[1] = {0.05}, gs_tree[1] = {3.0};
    static const double d_loss[1] = {0.0}, d_speed[1] = {1.0};
    xc_series ser[MAXCURVE + 3];
    size_t ns = 0;
    ser[ns++] = (xc_series){"direct (no loss, 1x)", d_loss, d_speed, 1, NULL, NULL, 1};
    for (size_t c = 0; c < nc; c++)
        ser[ns++] = (xc_series){cv[c].label, cv[c].loss, cv[c].speed, cv[c].n, NULL, NULL, cv[c].n == 1};
    ser[ns++] = (xc_series){"goal: subband 8x at 10 % loss", gl_sub, gs_sub, 1, NULL, NULL, 1};
    ser[ns++] = (xc_series){"goal: tree 3x at 5 % loss", gl_tree, gs_tree, 1, NULL, NULL, 1};
    if (!st)
        st = xc_report_add_section(rep, "Speed against loss", err);
    if (!st) {
        const xc_lineplot lp = {"approximate dedispersion: speed against worst S/N loss", "worst S/N loss against direct",
                                "speed against direct (x)", ser, ns, 0, 1};
        st = xc_report_add_lines(rep, &lp, err);
    }
    /* where each curve lies against the goals, in words */
    for (size_t c = 0; c < nc && !st; c++) {
        double minloss = INFINITY, maxsp = 0, sp_at_10 = 0, sp_at_5 = 0;
        for (size_t i = 0; i < cv[c].n; i++) {
            minloss = fmin(minloss, cv[c].loss[i]);
            maxsp = fmax(maxsp, cv[c].speed[i]);
            if (cv[c].loss[i] <= 0.10)
                sp_at_10 = fmax(sp_at_10, cv[c].speed[i]);
            if (cv[c].loss[i] < 0.05)
                sp_at_5 = fmax(sp_at_5, cv[c].speed[i]);
        }
        char v[256], a[32] = "none", b[32] = "none";
        if (sp_at_10 > 0)
            snprintf(a, sizeof a, "%.2fx", sp_at_10);
        if (sp_at_5 > 0)
            snprintf(b, sizeof b, "%.2fx", sp_at_5);
        snprintf(v, sizeof v, "%zu point%s; least loss %.3f; fastest %.2fx; fastest at <= 10 %% loss: %s; at < 5 %%: %s",
                 cv[c].n, cv[c].n == 1 ? "" : "s", minloss, maxsp, a, b);
        st = xc_report_add_kv(rep, cv[c].label, v, err);
    }
    if (!st && npts == 0)
        st = xc_report_add_text(rep, "No approximate entry was timed with a loss measure: nothing to draw.", err);
    if (!st)
        st = xc_report_write(rep, dir, err);
    xc_report_free(rep);
    free(cv);
    return st;
}
