/* report-sample DIR: writes a report holding every kind of plot the report
 * writer draws (line plots with and without markers, log axes, error bars,
 * points; a heatmap with non-finite cells; colour-coded scatter plots, one
 * empty; a histogram, grouped bars and all-zero bars) to DIR/index.html, for
 * scripts/report-check.sh to load in a browser.  The data are fixed: the
 * same program writes the same bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "reports/xc_report.h"

#define N 80

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    xc_error err;
    xc_report *r;
    if (xc_report_new(&r, "crosscheck report sample: every plot kind", &err)) {
        fprintf(stderr, "report-sample: %s\n", err.msg);
        return 1;
    }

    static double dm[N], snr[3][N], f[N], pw[N], lo[12], hi[12], xs[12], ys[12];
    for (int i = 0; i < N; i++) {
        dm[i] = 50 + i * 0.25;
        for (int k = 0; k < 3; k++)
            snr[k][i] = (20 - 2 * k) / sqrt(1 + pow((dm[i] - 60) / (0.8 + 0.4 * k), 2));
        f[i] = pow(10, -1 + 4.0 * i / (N - 1));
        pw[i] = 1e3 / (1 + f[i] * f[i] / 100) + 0.5;
    }
    for (int i = 0; i < 12; i++) {
        xs[i] = 1 + i;
        ys[i] = 5 + 0.8 * i + (i % 3 - 1) * 0.6;
        lo[i] = ys[i] - 0.4 - 0.05 * i;
        hi[i] = ys[i] + 0.4 + 0.05 * i;
    }
    xc_series snrs[4] = {{"reference", dm, snr[0], N},
                         {"cpu subband", dm, snr[1], N},
                         {"cpu tree", dm, snr[2], N},
                         {"measured (error bars)", xs, ys, 12, lo, hi, 1}};
    xc_lineplot lp1 = {"S/N against trial DM", "DM (pc cm^-3)", "S/N", snrs, 3, 0, 0};
    xc_series spec = {"power spectrum", f, pw, N};
    xc_lineplot lp2 = {"Power spectrum (log axes)", "frequency (Hz)", "power", &spec, 1, 1, 1};
    xc_lineplot lp3 = {"Points with error bars", "trial", "value (units^2)", &snrs[3], 1, 0, 0};

    enum { R = 180, C = 420 };
    float *plane = malloc((size_t)R * C * sizeof *plane);
    if (!plane) {
        xc_report_free(r);
        return 1;
    }
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            double t = j - 200 - 0.002 * (i - 90) * (i - 90);
            plane[i * C + j] = (float)(10 * exp(-t * t / 20) * exp(-(i - 90.0) * (i - 90.0) / 800) +
                                       ((i * 37 + j * 11) % 17) / 17.0);
        }
    plane[5 * C + 5] = NAN;
    xc_heatmap hm = {"DM-time plane", plane, R, C, 0, C * 64e-6, 40, 76, "time (s)", "DM (pc cm^-3)", "S/N",
                     XC_CMAP_VIRIDIS, XC_REDUCE_MAX, 0, 0};

    static double tx[60], ty[60], tc[60];
    for (int i = 0; i < 60; i++) {
        tx[i] = 5 + 2.5 * i;
        ty[i] = tx[i] * (1 + 0.08 * sin(i * 1.7));
        tc[i] = 6 + 0.25 * i;
    }
    xc_scatter sc = {"Measured against injected DM", "injected DM (pc cm^-3)", "measured DM (pc cm^-3)",
                     "injected S/N", tx, ty, tc, 60, XC_CMAP_VIRIDIS, 0, 0, 0, 0, 1};
    xc_scatter sclog = sc;
    sclog.title = "Measured against injected DM (log axes)";
    sclog.logx = sclog.logy = 1;
    xc_scatter empty = {"Unique detections", "DM (pc cm^-3)", "S/N", "width (ms)", NULL, NULL, NULL, 0,
                        XC_CMAP_VIRIDIS, 0, 0, 0, 0, 0};

    static double edges[13], h1[12], h2[12], zero[12];
    for (int i = 0; i <= 12; i++)
        edges[i] = i * 0.5;
    for (int i = 0; i < 12; i++) {
        h1[i] = floor(40 * exp(-(i - 4.0) * (i - 4.0) / 6));
        h2[i] = floor(30 * exp(-(i - 7.0) * (i - 7.0) / 8));
        zero[i] = 0;
    }
    const double *one[1] = {h1}, *two[2] = {h1, h2}, *none[1] = {zero};
    const char *labels[2] = {"presto", "crosscheck"};
    xc_bars hist = {"Histogram of S/N loss", "S/N loss (%)", "candidates", edges, 12, one, NULL, 1};
    xc_bars grouped = {"Detections per S/N bin", "S/N", "detections", edges, 12, two, labels, 2};
    xc_bars nobars = {"Detections only one search made", "S/N", "detections", edges, 12, none, labels, 1};

    xc_status st = xc_report_add_verdict(r, "sample", "every plot kind drawn", "10 plots", "10", 1, &err);
    const xc_lineplot *lines[3] = {&lp1, &lp2, &lp3};
    const xc_scatter *scatters[3] = {&sc, &sclog, &empty};
    const xc_bars *bars[3] = {&hist, &grouped, &nobars};
    st = st ? st : xc_report_add_section(r, "Line plots", &err);
    for (int i = 0; i < 3; i++)
        st = st ? st : xc_report_add_lines(r, lines[i], &err);
    st = st ? st : xc_report_add_section(r, "Heatmap", &err);
    st = st ? st : xc_report_add_heatmap(r, &hm, &err);
    st = st ? st : xc_report_add_section(r, "Scatter plots", &err);
    for (int i = 0; i < 3; i++)
        st = st ? st : xc_report_add_scatter(r, scatters[i], &err);
    st = st ? st : xc_report_add_section(r, "Bars", &err);
    for (int i = 0; i < 3; i++)
        st = st ? st : xc_report_add_bars(r, bars[i], &err);
    st = st ? st : xc_report_write(r, argv[1], &err);
    free(plane);
    xc_report_free(r);
    if (st) {
        fprintf(stderr, "report-sample: %s\n", err.msg);
        return 1;
    }
    printf("%s/index.html\n", argv[1]);
    return 0;
}
