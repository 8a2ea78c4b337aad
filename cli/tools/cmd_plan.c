/* crosscheck plan: a DM plan as a table (and JSON), with each range's delays. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/base/cli_plan.h"
#include "core/base/xc_atomic.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/io/xc_filterbank.h"

/* The plan as JSON in the file json, written atomically. */
static xc_status write_json(const xc_convention *cv, const xc_geometry *g, const xc_dmplan *plan,
                            const int64_t *maxd, int64_t total, const char *json, xc_error *err)
{
    xc_status st = XC_OK;
    json_t *root = json_object(), *ranges = json_array(), *flat = json_array();
    for (int k = 0; k < plan->nranges; k++) {
        const xc_dmrange *r = &plan->r[k];
        json_t *dms = xc_planefile_range_dms(r, flat);
        json_array_append_new(ranges, json_pack("{s:f,s:f,s:f,s:i,s:I,s:I,s:I,s:o}", "lo", r->lo, "hi", r->hi,
                                                "step", r->step, "downsample", r->ds, "ndm", (json_int_t)r->ndm,
                                                "max_delay", (json_int_t)(maxd[k] / r->ds),
                                                "max_delay_samples", (json_int_t)maxd[k], "dms", dms));
    }
    json_object_set_new(root, "convention", json_string(cv->name));
    json_object_set_new(root, "plan_kind", json_string(plan->kind));
    json_object_set_new(root, "nchans", json_integer(g->nchans));
    json_object_set_new(root, "tsamp", json_real(g->tsamp));
    json_object_set_new(root, "fch1", json_real(g->fch1));
    json_object_set_new(root, "foff", json_real(g->foff));
    json_object_set_new(root, "ndm", json_integer((json_int_t)xc_dmplan_ndm(plan)));
    json_object_set_new(root, "max_delay", json_integer(total));
    json_object_set_new(root, "ranges", ranges);
    json_object_set_new(root, "dms", flat);
    json_object_set_new(root, "command_line", json_string(xc_cli_cmdline()));
    xc_atomic a;
    if (!(st = xc_atomic_open(&a, json, 0, err))) {
        if (json_dumpf(root, a.fp, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0) {
            xc_atomic_abort(&a);
            st = xc_error_set(err, XC_EIO, "%s: write failed", json);
        } else {
            st = xc_atomic_commit(&a, err);
        }
    }
    json_decref(root);
    return st;
}

/* The plan as a table on stdout (with what it leaves of the nsamp samples
 * of the file input, when given), and as JSON in the file json (NULL: none). */
static xc_status show_plan(const xc_convention *cv, const xc_geometry *g, const xc_dmplan *plan, const char *input,
                           uint64_t nsamp, const char *json, xc_error *err)
{
    xc_status st = XC_OK;
    int64_t *maxd = calloc((size_t)plan->nranges, sizeof *maxd), total = 0;
    if (!maxd)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    /* Every delay and every range's output first: nothing is printed or
     * written when one fails. */
    for (int k = 0; k < plan->nranges && !st; k++) {
        xc_dmplan one = *plan;
        one.nranges = 1;
        one.r = &plan->r[k];
        st = xc_dmplan_max_delay(cv, g, &one, &maxd[k], err);
        if (!st && maxd[k] > total)
            total = maxd[k];
    }
    if (!st && input && (uint64_t)total >= nsamp)
        st = xc_error_set(err, XC_EINVAL, "%s: the plan's largest delay (%lld samples, %.6f s) leaves no output "
                          "sample of its %llu (%lld): lower -hidm or give a longer file", input, (long long)total,
                          (double)total * g->tsamp, (unsigned long long)nsamp, (long long)nsamp - total);
    /* output sample t of every trial holds what arrived at the highest
     * channel in samples t*ds .. t*ds+ds-1; the plan's largest delay cuts the end */
    for (int k = 0; k < plan->nranges && !st && input; k++)
        if ((nsamp - (uint64_t)total) / (uint64_t)plan->r[k].ds == 0)
            st = xc_error_set(err, XC_EINVAL, "%s: range %d (downsample %d) gets no output sample: %llu remain "
                              "after the largest delay", input, k, plan->r[k].ds,
                              (unsigned long long)(nsamp - (uint64_t)total));
    if (!st && json)
        st = write_json(cv, g, plan, maxd, total, json, err);
    if (st) {
        free(maxd);
        return st;
    }
    printf("# convention %s: k_DM %.9g, %s, delays from the highest channel\n", cv->name, cv->kdm,
           xc_rounding_name(cv->rounding));
    printf("# %d channels, fch1 %.6f MHz, foff %.6f MHz, tsamp %.3f us\n", g->nchans, g->fch1, g->foff, g->tsamp * 1e6);
    printf("%5s %10s %10s %8s %7s %4s %12s %9s  %s\n", "range", "DM lo", "DM hi", "step", "trials", "ds",
           "max delay", "(samples)", "each trial covers (arrival at the highest channel)");
    for (int k = 0; k < plan->nranges; k++) {
        const xc_dmrange *r = &plan->r[k];
        double lastdm = r->dms[r->ndm - 1];
        char covers[96];
        if (input) {
            uint64_t nout = (nsamp - (uint64_t)total) / (uint64_t)r->ds;
            snprintf(covers, sizeof covers, "0 - %.6f s (%llu samples)", (double)nout * r->ds * g->tsamp,
                     (unsigned long long)nout);
        } else {
            snprintf(covers, sizeof covers, "0 - (T - %.6f s)", (double)total * g->tsamp);
        }
        printf("%5d %10.4f %10.4f %8.4g %7zu %4d %12lld %9s  %s\n", k, r->lo, r->step > 0 ? r->hi : lastdm,
               r->step, r->ndm, r->ds, (long long)(maxd[k] / r->ds), r->ds > 1 ? "(x ds)" : "", covers);
    }
    printf("total: %zu trials; largest delay %lld samples (%.6f s)\n", xc_dmplan_ndm(plan), (long long)total,
           (double)total * g->tsamp);
    if (input)
        printf("input: %llu samples -> %lld output samples at full resolution; a pulse arriving at the "
               "highest channel after %.6f s is in no trial's output\n",
               (unsigned long long)nsamp, (long long)nsamp - total, (double)(nsamp - (uint64_t)total) * g->tsamp);
    else
        printf("of T seconds of data, a pulse arriving at the highest channel in the last %.6f s is in no "
               "trial's output\n", (double)total * g->tsamp);
    free(maxd);
    return XC_OK;
}

int xc_cmd_plan(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-ddplan") || !strcmp(argv[i], "--ddplan"))
            return xc_cmd_plan_ddplan(argc, argv);
    const char *input = NULL, *json = NULL;
    xc_geometry g = {0, 0, 0, 0};
    double tsamp_us = 0;
    int have[4] = {0, 0, 0, 0};   /* -nchans, -tsamp, -fch1, -foff given */
    xc_cli_planopts po;
    xc_cli_planopts_init(&po);
    const xc_opt opts[] = {
        XC_OPT_STR("i", &input, .arg = "FILE.fil", .help = "take nchans, tsamp, fch1, foff from a filterbank header"),
        {.name = "nchans", .kind = XC_OPTK_INT, .dest = &g.nchans, .lo = 1, .hi = 1 << 24, .given = &have[0],
         .arg = "N", .help = "number of channels"},
        {.name = "tsamp", .kind = XC_OPTK_DOUBLE, .dest = &tsamp_us, .given = &have[1], .arg = "US",
         .help = "sample time in microseconds"},
        {.name = "fch1", .kind = XC_OPTK_DOUBLE, .dest = &g.fch1, .given = &have[2], .arg = "MHZ",
         .help = "frequency of channel 0"},
        {.name = "foff", .kind = XC_OPTK_DOUBLE, .dest = &g.foff, .given = &have[3], .arg = "MHZ",
         .help = "channel width (negative: channel 0 is the highest)"},
        XC_OPT_TABLE(po.table),
        XC_OPT_STR("json", &json, .arg = "FILE", .help = "also write the plan as JSON (with a flat 'dms' list)"),
        XC_OPT_END,
    };
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    if (have[1])
        g.tsamp = tsamp_us * 1e-6;
    const xc_convention *cv = xc_cli_plan_convention("plan", &po);
    if (!cv)
        return 2;
    xc_error err;
    xc_error_clear(&err);
    xc_status st;
    uint64_t nsamp = 0;
    if (input) {
        xc_fbreader *r;
        if ((st = xc_fbreader_open(&r, input, NULL, &err)))
            return xc_cli_fail("plan", &err);
        const xc_fbheader *h = xc_fbreader_header(r);
        g.nchans = h->nchans;
        g.tsamp = h->tsamp;
        g.fch1 = h->fch1;
        g.foff = h->foff;
        nsamp = h->nsamp;
        xc_fbreader_close(r);
    } else if (!(have[0] && have[1] && have[2] && have[3])) {
        return xc_cli_failf("plan", "give -i FILE.fil or all of -nchans, -tsamp, -fch1 and -foff");
    }
    if (!(g.tsamp > 0))
        return xc_cli_failf("plan", "-tsamp: %g us must be > 0", g.tsamp * 1e6);
    if (g.foff == 0)
        return xc_cli_failf("plan", "-foff: must not be 0");
    xc_dmplan plan;
    if ((st = xc_cli_plan_build(&po, &g, &plan, &err)))
        return xc_cli_fail("plan", &err);
    st = show_plan(cv, &g, &plan, input, nsamp, json, &err);
    xc_dmplan_free(&plan);
    return st ? xc_cli_fail("plan", &err) : 0;
}
