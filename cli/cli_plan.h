/* cli_plan.h: the DM-plan and geometry options shared by `plan`, `dedisperse`
 * and `run` (-dmplan, -dmplanfile, -lodm/-hidm/-dm_tol/-dm_pulse_width). */
#ifndef XC_CLI_PLAN_H
#define XC_CLI_PLAN_H

#include "core/xc_dmplan.h"
#include "core/xc_error.h"

typedef struct {
    const char *dmplan;        /* -dmplan lo:hi:step:ds,... */
    const char *dmplanfile;    /* -dmplanfile FILE */
    double lodm, hidm, dm_tol, dm_pulse_width;  /* Heimdall defaults */
    int tol_given;             /* any of -lodm/-hidm/-dm_tol/-dm_pulse_width given */
} xc_cli_planopts;

void xc_cli_planopts_init(xc_cli_planopts *o);
/* Builds the plan for the given geometry; exactly one of the three ways must be used. */
xc_status xc_cli_plan_build(const xc_cli_planopts *o, const xc_geometry *g, xc_dmplan *plan, xc_error *err);
/* The help lines for these options. */
const char *xc_cli_plan_help(void);

#endif
