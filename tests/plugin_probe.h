/* plugin_probe.h: what the test suite's probe plugin (tests/plugin_probe.c)
 * records of each call, exported as xcp_probe_seen so that tests/test_plugin.c
 * can compare the views a plugin sees with the internal structs crosscheck
 * made them from.  Includes only xc_plugin.h, as a plugin does. */
#ifndef XC_PLUGIN_PROBE_H
#define XC_PLUGIN_PROBE_H

#include "xc_plugin.h"

typedef struct {
    int calls;                    /* methods called (in this process) */
    int self_ok;                  /* every method got its own descriptor as self */
    const void *data;             /* self->data of the last call */
    xcp_ddjob plan_job, job;      /* plan's job (no block) and execute's */
    xcp_ddrange range[2];         /* the job's first two ranges */
    xcp_plane plane;
    xcp_planerange prange[2];
    xcp_spectrum sp;
    xcp_psopts opts;
    const double *thr;            /* what peaks got */
    xcp_spconf spconf;            /* what detect got */
    xcp_spplane spplane;
} xcp_probe_record;

#define XCP_PROBE_SYMBOL "xcp_probe_seen"

#endif
