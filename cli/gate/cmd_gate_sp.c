/* crosscheck gate singlepulse: a single-pulse searcher (a plugin's, or one
 * named with -impl) through the conformance suite of its family
 * (compare/conform/xc_conform_sp.h), one row per case: planted boxes on
 * integer-valued planes (lists identical to the reference's, S/N bit for
 * bit), pure noise at threshold 3, float planes within the rounding bound,
 * one thread against three.  The suite takes a second or two, so every
 * tier runs all of it. */
#include <stdio.h>

#include "cli/base/cli.h"
#include "cli/gate/gate.h"
#include "compare/conform/xc_conform_sp.h"

int gate_singlepulse(gatectx *g)
{
    const xc_impl *ri = xc_registry_pick(xc_cli_registry(), XC_FAMILY_SINGLEPULSE, XC_CAP_REFERENCE,
                                         XC_CAP_APPROXIMATE | XC_CAP_RUNTIME | XC_CAP_DEVICE);
    if (!ri)
        return xc_cli_failf("gate singlepulse", "no reference single-pulse searcher is registered");
    if (g->cmd)
        return gate_singlepulse_cmd(g, ri);
    if (!g->quiet)
        fprintf(stderr, "crosscheck gate singlepulse: the conformance suite against %s\n", ri->name);
    xc_conform_report rep;
    xc_conform_report_init(&rep);
    xc_conform_opts o;
    xc_conform_opts_default(&o);
    xc_error e;
    xc_status st = xc_conform_spsearcher(xc_spsearcher_of(g->impl), xc_spsearcher_of(ri), &o, &rep, &e);
    if (st == XC_ENOMEM)
        xc_vd_note(&g->vd, st, &e);
    else if (st)
        xc_vd_fail(&g->vd, "conformance", g->label, "suite", e.msg, "runs");
    for (size_t i = 0; !st && i < rep.n && !g->vd.fatal; i++) {
        const xc_conform_row *r = &rep.rows[i];
        xc_status add = r->pass ? xc_checks_addf(&g->vd.rows, "conformance", g->label, r->name, XC_CHECK_PASS, 0, 0,
                                                 r->tolerance, &e, "%s", r->observed)
                                : xc_checks_addf(&g->vd.rows, "conformance", g->label, r->name, XC_CHECK_FAIL, 1, 0,
                                                 r->tolerance, &e, "%s; expected %s", r->observed, r->expected);
        xc_vd_note(&g->vd, add, &e);
        xc_vd_emit(&g->vd);
    }
    xc_conform_report_free(&rep);
    return 0;
}
