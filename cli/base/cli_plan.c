#include "cli/base/cli_plan.h"

#include <math.h>
#include <string.h>

#include "cli/base/cli.h"
#include "core/dedisp/plan/xc_ddplan_presto.h"

void xc_cli_planopts_init(xc_cli_planopts *o)
{
    o->dmplan = o->dmplanfile = o->ddplan = 0;
    o->lodm = 0.0;
    o->hidm = 1000.0;
    o->dm_tol = 1.25;
    o->dm_pulse_width = 40.0;
    o->tol_given = 0;
    o->convention = "crosscheck";
    const xc_opt t[] = {
        XC_OPT_STR("dmplan", &o->dmplan, .arg = "LO:HI:STEP:DS[,...]",
                   .help = "DM plan (exactly one of -dmplan, -dmplanfile, -lodm/-hidm/-dm_tol/-dm_pulse_width):\n"
                           "ranges, AstroAccelerate style: round((HI-LO)/STEP) trials\n"
                           "LO + j*STEP (HI excluded, no rounding up to 64); DS = downsample\n"
                           "factor (samples summed in groups of DS, delays in DS*tsamp units)\n"
                           "e.g. the AstroAccelerate paper's Table 2:\n"
                           "0:150:0.1:1,150:300:0.2:1,300:500:0.25:1 (3050 trials)"),
        XC_OPT_STR("dmplanfile", &o->dmplanfile, .arg = "FILE",
                   .help = "the same, one range per line ('lo hi step ds', 'lo:hi:step:ds'\n"
                           "or AstroAccelerate's 'range lo hi step inBin outBin'; # comments)"),
        {.name = "lodm", .kind = XC_OPTK_DOUBLE, .dest = &o->lodm, .given = &o->tol_given, .arg = "A",
         .help = "dedisp/Heimdall tolerance list: the lowest DM", .def = "0"},
        {.name = "hidm", .kind = XC_OPTK_DOUBLE, .dest = &o->hidm, .given = &o->tol_given, .arg = "B",
         .help = "the highest: the last trial is the first DM >= B, as dedisp", .def = "1000"},
        {.name = "dm_tol", .kind = XC_OPTK_DOUBLE, .dest = &o->dm_tol, .given = &o->tol_given, .arg = "T",
         .help = "smearing allowed between trials, as a factor", .def = "1.25"},
        {.name = "dm_pulse_width", .kind = XC_OPTK_DOUBLE, .dest = &o->dm_pulse_width, .given = &o->tol_given,
         .arg = "US", .help = "the pulse width the tolerance list is made for, in us", .def = "40"},
        XC_OPT_STR("convention", &o->convention, .arg = "NAME",
                   .help = "delay convention: crosscheck (k_DM 4148.808, round half away, raw sum),\n"
                           "sigproc, presto, dedisp, astroaccelerate (see README)",
                   .def = "crosscheck"),
        XC_OPT_END,
    };
    _Static_assert(sizeof t == sizeof o->table, "xc_cli_planopts.table holds the plan options and the end");
    memcpy(o->table, t, sizeof t);
}

const xc_convention *xc_cli_plan_convention(const char *cmd, const xc_cli_planopts *o)
{
    const xc_convention *cv = xc_convention_get(o->convention);
    if (!cv)
        xc_cli_failf(cmd, "-convention: '%s' is not one of crosscheck, sigproc, presto, dedisp, astroaccelerate",
                     o->convention);
    return cv;
}

xc_status xc_cli_plan_build(const xc_cli_planopts *o, const xc_geometry *g, xc_dmplan *plan, xc_error *err)
{
    int ways = (o->dmplan != 0) + (o->dmplanfile != 0) + (o->tol_given != 0) + (o->ddplan != 0);
    if (ways == 0)
        return xc_error_set(err, XC_EINVAL, "no DM plan: give -dmplan, -dmplanfile or -lodm/-hidm/-dm_tol");
    if (ways > 1)
        return xc_error_set(err, XC_EINVAL, "give only one of -dmplan, -dmplanfile%s and -lodm/-hidm/-dm_tol",
                            o->ddplan ? ", -ddplan" : "");
    if (o->ddplan)
        return xc_ddp_read(plan, o->ddplan, err);
    if (o->dmplan)
        return xc_dmplan_parse(plan, o->dmplan, "-dmplan", err);
    if (o->dmplanfile)
        return xc_dmplan_read(plan, o->dmplanfile, err);
    /* dedisp's f0 is the highest channel. */
    double f0 = g->foff < 0 ? g->fch1 : g->fch1 + (g->nchans - 1) * g->foff;
    return xc_dmplan_tolerance(plan, o->lodm, o->hidm, g->tsamp, o->dm_pulse_width, f0, fabs(g->foff),
                               g->nchans, o->dm_tol, err);
}

void xc_cli_tileopts(xc_opt t[4], xc_ddtune *tune)
{
    const xc_opt o[4] = {
        XC_OPT_INT("tile_t", &tune->tile_t, 0, 1 << 24, .arg = "N", .help = "time tile of the cpu implementation",
                   .def = "0: its default"),
        XC_OPT_INT("tile_dm", &tune->tile_dm, 0, 1 << 24, .arg = "N", .help = "DM tile of the cpu implementation",
                   .def = "0: its default"),
        XC_OPT_INT("tile_c", &tune->tile_c, 0, 1 << 24, .arg = "N", .help = "channel tile of the cpu implementation",
                   .def = "0: its default"),
        XC_OPT_END,
    };
    memcpy(t, o, sizeof o);
}
