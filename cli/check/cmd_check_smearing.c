/* crosscheck check smearing: every approximate dedisperser against direct
 * dedispersion on injected pulses, across DM, pulse width and nsub, the
 * measured S/N loss of each trial against the bound derived for it
 * (compare/xc_smear.h, core/dedisp/approx/xc_subband.h, core/dedisp/approx/xc_tree.h, docs/SUBBAND.md). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_meter.h"
#include "core/base/xc_strlist.h"
#include "cli/base/cli_opts.h"
#include "compare/xc_smear.h"
#include "core/dedisp/run/xc_ddrecord.h"
#include "core/dedisp/approx/xc_subband.h"
#include "core/io/xc_filterbank.h"
#include "optimized/xc_impls.h"
#include "reports/xc_report.h"

#define MAXL 16

/* One plot of the report: measured loss, its bound and the quadrature
 * estimate against DM, for the rows of one implementation, nsub and width. */
static xc_status plot_rows(xc_report *rep, const char *impl, int nsub, int width, const xc_smear_row *rows, size_t n,
                           xc_error *err)
{
    double *v = malloc((4 * n + 1) * sizeof *v);
    if (!v)
        return xc_error_set(err, XC_ENOMEM, "check smearing: out of memory for a plot of %zu pulses", n);
    double *dm = v, *loss = v + n, *bound = v + 2 * n, *expect = v + 3 * n;
    for (size_t i = 0; i < n; i++) {
        dm[i] = rows[i].dm;
        loss[i] = rows[i].snr_loss;
        bound[i] = rows[i].bound;
        expect[i] = rows[i].expected;
    }
    char title[160];
    snprintf(title, sizeof title, "%s, nsub %d, pulse of %d sample%s (%.0f us in range 0)", impl, nsub, width,
             width == 1 ? "" : "s", n ? rows[0].width_us : 0.0);
    const xc_series ser[] = {{"measured S/N loss", dm, loss, n},
                             {"bound 1 - sqrt(W/(W+S))", dm, bound, n},
                             {"quadrature estimate (DDplan.py)", dm, expect, n}};
    const xc_lineplot lp = {title, "DM (pc cm^-3)", "S/N loss against direct", ser, 3, 0, 0};
    xc_status st = xc_report_add_lines(rep, &lp, err);
    free(v);
    return st;
}

/* One pulse's JSON record. */
static json_t *row_json(const char *impl, int nsub, const xc_smear_row *r)
{
    json_t *j = json_object();
    json_object_set_new(j, "impl", json_string(impl));
    json_object_set_new(j, "nsub", json_integer(nsub));
    const struct {
        const char *key;
        double v;
    } reals[] = {{"dm", r->dm}, {"nominal_dm", r->nominal}, {"width_us", r->width_us}, {"snr_loss", r->snr_loss},
                 {"bound", r->bound}, {"expected", r->expected}, {"smear_samples", r->smear}};
    for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++)
        json_object_set_new(j, reals[k].key, json_real(reals[k].v));
    json_object_set_new(j, "bound_samples", json_integer(r->bound_samples));
    json_object_set_new(j, "pass", json_boolean(r->pass));
    return j;
}

/* The implementations measured: the approximate ones (-impl names them, or
 * every one but the references), available here. */
static int wanted(const xc_impl *ie, const char *impls)
{
    if (!(ie->caps & XC_CAP_APPROXIMATE) || (impls ? !xc_strlist_has(impls, ie->name) : !!(ie->caps & XC_CAP_REFERENCE)))
        return 0;
    return xc_impl_available(ie, NULL, 0);
}

/* With -i: the nsub the implementation resolves for the geometry (nsub 0:
 * its default), printed with its declared loss; -1 after printing an error. */
static int resolve_nsub(const xc_dedisperser *d, const xc_smear_cfg *cfg, const xc_ddopts *o, xc_error *err)
{
    xc_geometry g = {cfg->nchans, cfg->fch1, cfg->foff, cfg->tsamp};
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    xc_ddjob job;
    memset(&job, 0, sizeof job);
    json_t *rec = NULL;
    xc_ddloss loss;
    char setup[256];
    int nsub = -1;
    xc_status st = xc_dmplan_parse(&plan, cfg->plan, "-dmplan", err);
    if (!st && !(st = xc_ddjob_prepare(&job, g.nchans, 8, &plan, xc_convention_get(cfg->convention), &g, NULL, err))) {
        job.opts = *o;
        st = xc_ddapprox_record(d, &job, &rec, &loss, setup, sizeof setup, err);
    }
    if (!st) {
        nsub = (int)json_integer_value(json_object_get(json_object_get(rec, "parameters"), "nsub"));
        printf("%-12s %s: declared loss at most %.1f %% for a pulse of %g samples (DM %g, S %d)\n", d->impl.name,
               setup, 100 * loss.loss, loss.width, loss.dm, (int)loss.bound);
    }
    json_decref(rec);
    xc_ddjob_free(&job);
    xc_dmplan_free(&plan);
    return nsub;
}

/* -i: the geometry of a filterbank's header into cfg. */
static xc_status file_geometry(const char *path, xc_smear_cfg *cfg, xc_error *err)
{
    xc_fbreader *r;
    xc_status st = xc_fbreader_open(&r, path, NULL, err);
    if (st)
        return st;
    const xc_fbheader *h = xc_fbreader_header(r);
    cfg->nchans = h->nchans;
    cfg->fch1 = h->fch1;
    cfg->foff = h->foff;
    cfg->tsamp = h->tsamp;
    printf("# %s: %d channels, fch1 %.6f MHz, foff %.6f MHz, tsamp %.3f us; plan %s\n", path, h->nchans, h->fch1,
           h->foff, h->tsamp * 1e6, cfg->plan);
    xc_fbreader_close(r);
    return XC_OK;
}

/* One implementation, nsub (shown) and width (cfg): its rows into arr and
 * rep, one line on stdout, the counts added. */
static xc_status measure(const xc_dedisperser *d, const xc_dedisperser *direct, int shown, const xc_ddopts *o,
                         const xc_smear_cfg *cfg, json_t *arr, xc_report *rep, size_t *total, size_t *nfail,
                         xc_error *err)
{
    const int W = cfg->widths[0];
    xc_smear_row *rows = NULL;
    size_t n = 0, fails = 0, worst = 0;
    double ratio = 0;
    xc_status st = xc_smear_measure_bounds(d, d->bound, direct, o, cfg, &rows, &n, err);
    if (st)
        return st;
    for (size_t i = 0; i < n; i++) {
        const xc_smear_row *r = &rows[i];
        fails += !r->pass;
        worst = r->snr_loss > rows[worst].snr_loss ? i : worst;
        if (r->bound > 0)
            ratio = fmax(ratio, r->snr_loss / r->bound);
        json_array_append_new(arr, row_json(d->impl.name, shown, r));
    }
    if (rep && n) {
        char head[128];
        snprintf(head, sizeof head, "%s, nsub %d, width %d: %zu pulses, %zu above their bound", d->impl.name, shown,
                 W, n, fails);
        if (!(st = xc_report_add_section(rep, head, err)))
            st = plot_rows(rep, d->impl.name, shown, W, rows, n, err);
    }
    if (n)
        printf("%-12s %5d %5d %8.0f %7zu %10.4f %10.4f %10.3f %6zu\n", d->impl.name, shown, W, rows[0].width_us, n,
               rows[worst].snr_loss, rows[worst].bound, ratio, fails);
    fflush(stdout);
    *total += n;
    *nfail += fails;
    free(rows);
    return st;
}

/* The command, for its help and messages. */
/* The -report: its first line says the band and the plan measured. */
static xc_status open_report(xc_report **rep, const xc_smear_cfg *geo, int every, xc_error *err)
{
    xc_status st = xc_report_new(rep, "crosscheck check smearing", err);
    if (st)
        return st;
    char line[256];
    snprintf(line, sizeof line, "%d channels, fch1 %.3f MHz, foff %.4f MHz, %.0f us; plan %s; a pulse at every "
             "%d-th trial", geo->nchans, geo->fch1, geo->foff, geo->tsamp * 1e6, geo->plan, every);
    if ((st = xc_report_add_text(*rep, line, err))) {
        xc_report_free(*rep);
        *rep = NULL;
    }
    return st;
}

/* -json and -report, once every configuration is measured. */
static xc_status write_outputs(const char *json, json_t *arr, xc_report *rep, const char *repdir, xc_error *err)
{
    xc_status st = json ? xc_cli_write_json(json, arr, JSON_INDENT(1), err) : XC_OK;
    if (!st && rep && !(st = xc_report_write(rep, repdir, err)))
        printf("report: %s/index.html\n", repdir);
    return st;
}

int xc_cmd_check_smearing(const xc_cmd *self, int argc, char **argv)
{
    const char *json = NULL, *impls = NULL, *plan = "0:150:0.5,150:300:1:2", *repdir = NULL, *input = NULL;
    int nsub_given = 0;
    xc_ddopts base;
    memset(&base, 0, sizeof base);
    int nsub_v[MAXL] = {8, 16, 32}, w_v[MAXL] = {1, 2, 4, 8}, align = 0, split = 0, nchans = 256, every = 4;
    int quiet = 0, progress = 0;
    xc_cli_ints nsub = {nsub_v, 3, MAXL}, widths = {w_v, 4, MAXL};
    double dmsub = 0;
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json, .arg = "FILE",
                   .help = "records {impl, nsub, dm, width_us, snr_loss, bound, expected, smear_samples,\n"
                           "bound_samples, pass} (written atomically)"),
        XC_OPT_STR("impl", &impls, .arg = "LIST",
                   .help = "approximate implementations (default: every approximate one but references)"),
        XC_OPT_STR("i", &input, .arg = "FILE.fil", .help = "take nchans, fch1, foff and tsamp from this filterbank"),
        XC_OPT_INTS("nsub", &nsub, 1, 1 << 16, .arg = "LIST", .help = "subband counts", .given = &nsub_given,
                    .def = "8,16,32; with -i each implementation's own choice"),
        XC_OPT_CALL("maxloss", xc_cli_opt_maxloss, &base.maxloss, .arg = "L",
                    .help = "the loss limit the implementations' own choice of nsub meets (with -i)", .def = "0.2"),
        XC_OPT_NONNEG("width", &base.losswidth, .arg = "W", .help = "the pulse width that limit is judged at",
                      .def = "8"),
        XC_OPT_INTS("widths", &widths, 1, 1 << 12, .arg = "LIST", .help = "pulse widths in samples of each range",
                    .def = "1,2,4,8"),
        XC_OPT_STR("dmplan", &plan, .arg = "PLAN", .help = "lo:hi:step:ds,...", .def = "0:150:0.5,150:300:1:2"),
        XC_OPT_NONNEG("dmsub", &dmsub, .arg = "D", .help = "nominal DM spacing (default: from the 0.8-sample budget)"),
        XC_OPT_CHOICE("subalign", &align, "centre|highest|early", .arg = "A", .help = "centre, highest or early",
                      .def = "centre"),
        XC_OPT_CHOICE("subsplit", &split, "spread|width", .arg = "S",
                      .help = "subbands of equal delay spread, or of equal width", .def = "spread"),
        XC_OPT_INT("nchans", &nchans, 1, 1 << 16, .arg = "N", .help = "channels over the 300 MHz", .def = "256"),
        XC_OPT_INT("every", &every, 1, 1 << 20, .arg = "N", .help = "measure every N-th trial", .def = "4"),
        XC_OPT_FLAG("progress", &progress, .help = "progress lines in a log from the start (not only past 5 s)"),
        XC_OPT_FLAG("quiet", &quiet, .help = "no progress meter"),
        XC_OPT_STR("report", &repdir, .arg = "DIR",
                   .help = "HTML report in DIR: per implementation, nsub and width, the measured S/N\n"
                           "loss of every pulse against DM beside its bound and the quadrature estimate\n"
                           "(the dedisp paper's Figs 3 and 4, upper panels, from measurements)"),
        XC_OPT_END,
    };
    const xc_optspec spec = XC_CMD_SPEC(self);
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    const xc_registry *reg = xc_cli_registry();
    const xc_dedisperser *direct = xc_dedisperser_of(
        xc_registry_pick(reg, XC_FAMILY_DEDISPERSE, XC_CLI_DEFAULT_WANT, XC_CLI_DEFAULT_AVOID));
    if (!direct)
        return xc_cli_failf("check smearing", "no direct dedisperser is available here");
    json_t *arr = json_array();
    size_t total = 0, nfail = 0, nimpl = 0;
    xc_error err;
    xc_status st = XC_OK;
    xc_smear_cfg geo = {nchans, 1550 - 150.0 / nchans, -300.0 / nchans, 64e-6, plan, "crosscheck", NULL, 1,
                        (size_t)every, 1.0};
    if (input && (st = file_geometry(input, &geo, &err))) {
        json_decref(arr);
        return xc_cli_fail("check smearing", &err);
    }
    if (input && !nsub_given) {
        nsub_v[0] = 0;   /* each implementation's own choice */
        nsub.n = 1;
    }
    xc_report *rep = NULL;
    if (repdir && (st = open_report(&rep, &geo, every, &err))) {
        json_decref(arr);
        return xc_cli_fail("check smearing", &err);
    }
    /* the meter counts measured configurations (implementation, nsub, width) */
    size_t nconf = 0, dconf = 0;
    for (size_t e = 0; e < xc_registry_count(reg, XC_FAMILY_DEDISPERSE); e++)
        nconf += wanted(xc_registry_at(reg, XC_FAMILY_DEDISPERSE, e), impls) * (size_t)nsub.n * (size_t)widths.n;
    xc_progress meter;
    xc_progress_start(&meter, "check smearing", nconf, xc_progress_want(quiet, progress));
    meter.unit = "configurations";
    printf("%-12s %5s %5s %8s %7s %10s %10s %10s %6s\n", "impl", "nsub", "W", "W_us", "pulses", "max_loss",
           "its_bound", "loss/bound", "fail");
    for (size_t e = 0; e < xc_registry_count(reg, XC_FAMILY_DEDISPERSE) && !st; e++) {
        const xc_impl *ie = xc_registry_at(reg, XC_FAMILY_DEDISPERSE, e);
        char why[256];
        if (!(ie->caps & XC_CAP_APPROXIMATE) || (impls ? !xc_strlist_has(impls, ie->name) : !!(ie->caps & XC_CAP_REFERENCE)))
            continue;
        if (!xc_impl_available(ie, why, sizeof why)) {
            if (meter.mode == XC_METER_TTY && meter.width)
                fputc('\n', stderr);
            printf("%-12s unavailable: %s (skipped)\n", ie->name, why);
            continue;
        }
        nimpl++;
        for (int q = 0; q < nsub.n && !st; q++) {
            xc_ddopts o = base;
            o.nsub = nsub_v[q];
            o.dmsub = dmsub;
            o.subalign = align;
            o.subsplit = split;
            int shown = input ? resolve_nsub(xc_dedisperser_of(ie), &geo, &o, &err) : nsub_v[q];
            if (shown < 0) {
                st = XC_EINVAL;
                break;
            }
            for (int w = 0; w < widths.n && !st; w++) {
                xc_smear_cfg cfg = geo;
                cfg.widths = &w_v[w];
                st = measure(xc_dedisperser_of(ie), direct, shown, &o, &cfg, arr, rep, &total, &nfail, &err);
                xc_progress_update(&meter, ++dconf);
            }
        }
    }
    if (!st)
        xc_progress_end(&meter);
    else if (meter.mode == XC_METER_TTY && meter.width)
        fputc('\n', stderr);
    if (!st)
        st = write_outputs(json, arr, rep, repdir, &err);
    xc_report_free(rep);
    json_decref(arr);
    if (st)
        return xc_cli_fail("check smearing", &err);
    printf("%zu pulses over %zu implementations, %zu above their bound\n", total, nimpl, nfail);
    return nfail ? 1 : 0;
}
