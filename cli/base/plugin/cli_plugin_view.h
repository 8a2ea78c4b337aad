/* cli_plugin_view.h: the plugin ABI's views (include/crosscheck/xc_plugin.h)
 * made from crosscheck's internal structs for one call, member by member,
 * and the host table's services (errors, scaling, raw peaks).  Nothing of an
 * internal layout reaches a plugin: an internal struct may grow or be
 * reordered and the views stay as the header pins them. */
#ifndef XC_CLI_PLUGIN_VIEW_H
#define XC_CLI_PLUGIN_VIEW_H

#include "core/base/xc_error.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/search/xc_search.h"
#include "core/sp/xc_spsearch.h"
#include "include/crosscheck/xc_plugin.h"

/* A job's view with its ranges (owned). */
typedef struct {
    xcp_ddjob v;
    xcp_ddrange *range;
} xc_plugin_jobview;

/* Fills jv from job (its block may be unset: a plan's job).  XC_ENOMEM. */
xc_status xc_plugin_job_view(const xc_ddjob *job, xc_plugin_jobview *jv, xc_error *err);
void xc_plugin_job_view_free(xc_plugin_jobview *jv);

/* A plane's view (ranges owned). */
xc_status xc_plugin_plane_view(xc_plane *pl, xcp_plane *v, xc_error *err);
void xc_plugin_plane_view_free(xcp_plane *v);

void xc_plugin_spectrum_view(const xc_spectrum *sp, xcp_spectrum *v);
void xc_plugin_psopts_view(const xc_psopts *o, xcp_psopts *v);

/* A single-pulse searcher's configuration and plane (host memory). */
void xc_plugin_spconf_view(const xc_spconf *c, xcp_spconf *v);
void xc_plugin_spplane_view(const xc_spplane *pl, xcp_spplane *v);

/* The handle a single-pulse searcher pushes its detections into: crosscheck's
 * list, and the plane and widths a detection is checked against. */
struct xcp_spdets {
    xc_spdets *list;
    size_t nrows, nsamp;
    int nwidths;
    const int32_t *widths;
};

/* The handle a searcher's peaks stage pushes into (xcp_peaks is opaque in
 * the header): crosscheck's list, and what a peak is checked against. */
struct xcp_peaks {
    xc_pspeaks *list;
    int scored;        /* own_powers: the peak's logp and filled are taken */
    int zmax, numharm;
    size_t nbins;
};

/* The plugin's status and message as crosscheck's: a status outside
 * xc_plugin.h's codes becomes XC_EIO naming it; an empty message is
 * replaced by the code's text.  who names the implementation. */
xc_status xc_plugin_error_in(xcp_status st, const xcp_error *pe, const char *who, xc_error *err);
/* crosscheck's error as the plugin's (the host table's callbacks). */
xcp_status xc_plugin_error_out(const xc_error *e, xcp_error *pe);

/* The host table's services (xcp_host): error_set, scale_int, scale_real,
 * peaks_push, spdets_push, sp_row_stats, sp_box_baseline. */
xcp_status xc_plugin_host_error_set(xcp_error *err, xcp_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
float xc_plugin_host_scale_int(const xcp_ddjob *job, uint64_t sum, int ds);
float xc_plugin_host_scale_real(const xcp_ddjob *job, double sum, int ds);
xcp_status xc_plugin_host_peaks_push(xcp_peaks *pk, const xcp_peak *p, xcp_error *err);
xcp_status xc_plugin_host_spdets_push(xcp_spdets *out, const xcp_spdet *d, xcp_error *err);
void xc_plugin_host_sp_row_stats(const xcp_spconf *c, const float *x, size_t n, double *m, double *s, double *tmp);
double xc_plugin_host_sp_box_baseline(const xcp_spconf *c, const double *m, size_t n, size_t t, size_t w);

#endif
