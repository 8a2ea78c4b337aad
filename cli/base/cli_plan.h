/* cli_plan.h: the DM-plan options shared by `plan` and `dedisperse` (-dmplan,
 * -dmplanfile, -lodm/-hidm/-dm_tol/-dm_pulse_width) and -convention, as one
 * fragment of an option table (cli_opts.h); and the CPU tile options
 * (-tile_t/-tile_dm/-tile_c) of `dedisperse` and `bench dedisperse`. */
#ifndef XC_CLI_PLAN_H
#define XC_CLI_PLAN_H

#include "cli/base/cli_opts.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/base/xc_error.h"

typedef struct {
    const char *dmplan;        /* -dmplan lo:hi:step:ds,... */
    const char *dmplanfile;    /* -dmplanfile FILE */
    const char *ddplan;        /* -ddplan FILE: in the tables of the commands that add XC_CLI_OPT_DDPLAN */
    double lodm, hidm, dm_tol, dm_pulse_width;  /* Heimdall defaults */
    int tol_given;             /* any of -lodm/-hidm/-dm_tol/-dm_pulse_width given */
    const char *convention;    /* -convention NAME, default "crosscheck" */
    xc_opt table[8];           /* these options, for XC_OPT_TABLE(o.table) in a command's table */
} xc_cli_planopts;

/* -ddplan FILE, a fourth way to give the plan (xc_ddp_read: the table
 * DDplan.py printed), for a command's table beside XC_OPT_TABLE(o.table);
 * not in o.table, since `plan -ddplan` makes such a plan. */
#define XC_CLI_OPT_DDPLAN(o)                                                                                  \
    XC_OPT_STR("ddplan", &(o).ddplan, .arg = "FILE",                                                          \
               .help = "instead of those: the plan PRESTO's DDplan.py printed (its output saved, or\n"        \
                       "`crosscheck plan -ddplan`'s): each row of its table a range\n"                           \
                       "Low DM:High DM:dDM:DownSamp")

/* The defaults, and the table pointing at o's fields: o must not be copied or
 * moved after this. */
void xc_cli_planopts_init(xc_cli_planopts *o);
/* Builds the plan for the given geometry; exactly one of the ways must be used. */
xc_status xc_cli_plan_build(const xc_cli_planopts *o, const xc_geometry *g, xc_dmplan *plan, xc_error *err);
/* The -convention named, or NULL after printing "crosscheck <cmd>: -convention: ..." (exit 2). */
const xc_convention *xc_cli_plan_convention(const char *cmd, const xc_cli_planopts *o);

/* t[0..3]: -tile_t, -tile_dm, -tile_c into tune's CPU tiles, then the table's
 * end, for XC_OPT_TABLE(t) in a command's table. */
void xc_cli_tileopts(xc_opt t[4], xc_ddtune *tune);

#endif
