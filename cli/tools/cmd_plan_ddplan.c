/* crosscheck plan -ddplan: PRESTO DDplan.py's dedispersion plan (printed as
 * DDplan.py prints it, then its smearing columns; -json writes it), and with
 * -maxloss a subband plan chosen from a smearing budget.  The plan itself is
 * core/dedisp/plan/xc_ddplan_presto.h's. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "core/dedisp/plan/xc_ddplan_presto.h"
#include "core/io/xc_filterbank.h"

#define MAXW 16
#define MAXNSUB 32

/* The command, apart from its options (their help is in the table). */
static const xc_optspec spec = {
    .cmd = "plan",
    .usage = "-ddplan [-i FILE.fil] [-lodm A] [-hidm B] [-fctr MHZ] [-bw MHZ] [-nchans N]\n"
             "                       [-tsamp US | -dt S] [-nsub S] [-numprocs P] [-cdm DM] [-res MS]\n"
             "                       [-blocklen N] [-json FILE]\n"
             "                       [-maxloss PCT [-width US[,US...]] [-nsubs N,N,...]]",
    .about = "PRESTO DDplan.py's dedispersion plan for the same inputs, number for number: per range the low\n"
             "and high DM, DM step, downsample factor, (with -nsub: the subband DM step dsubDM), number of\n"
             "DMs, (with -nsub: DMs per prepsubband call and calls) and the work fraction, printed as\n"
             "DDplan.py prints it, followed by each range's smearing in ms (DM step, subband step, channel\n"
             "and total at the range's first and last DM).  Defaults are DDplan.py's.\n"};

typedef struct {
    double v[MAXW];
    int n;
} widths;

static xc_status opt_widths(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    widths *w = o->dest;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", val);
    w->n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (w->n == MAXW)
            return xc_error_set(err, XC_EINVAL, "%s: at most %d widths", opt, MAXW);
        xc_status st = xc_cli_double(opt, t, &w->v[w->n], err);
        if (st)
            return st;
        if (!(w->v[w->n] > 0))
            return xc_error_set(err, XC_EINVAL, "%s: width '%s' must be > 0", opt, t);
        w->n++;
    }
    return w->n ? XC_OK : xc_error_set(err, XC_EINVAL, "%s: no width in '%s'", opt, val);
}

/* -tsamp in microseconds (crosscheck plan's unit) and -dt in seconds
 * (DDplan.py -t) set the same value; the later one wins. */
static xc_status opt_time(const char *opt, const char *val, double scale, double *dt, xc_error *err)
{
    double v;
    xc_status st = xc_cli_double(opt, val, &v, err);
    if (st)
        return st;
    if (!(v > 0))
        return xc_error_set(err, XC_EINVAL, "%s: '%s' must be > 0", opt, val);
    *dt = v * scale;
    return XC_OK;
}

static xc_status opt_tsamp(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    return opt_time(opt, val, 1e-6, o->dest, err);
}

static xc_status opt_dt(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    return opt_time(opt, val, 1.0, o->dest, err);
}

/* DDplan.py's printout (dm_steps' prints, then each method and its work fraction). */
static void print_ddplan(const xc_ddp_plan *p)
{
    const xc_ddp_obs *o = &p->obs;
    printf("\nMinimum total smearing     : %.3g ms\n", p->min_total_smear);
    printf("--------------------------------------------\n");
    printf("Minimum channel smearing   : %.3g ms\n", p->min_chan_smear);
    printf("Minimum smearing across BW : %.3g ms\n", p->min_bw_smear);
    printf("Minimum sample time        : %.3g ms\n\n", p->min_dt);
    printf("Setting the new 'best' resolution to : %.3g ms\n", p->ok_smear);
    if (p->note == XC_DDP_NOTE_OKSMEAR)
        printf("   Note: ok_smearing > dt (i.e. data is higher resolution than needed)\n");
    else if (p->note == XC_DDP_NOTE_CHANSMEAR)
        printf("   Note: min_chan_smearing > dt (i.e. data is higher resolution than needed)\n");
    if (p->note != XC_DDP_NOTE_NONE)
        printf("         New dt is %d x %.12g ms = %.12g ms\n", p->first_downsamp, p->min_dt,
               p->min_dt * p->first_downsamp);
    printf("Best guess for optimal initial dDM is %.3f\n", p->guess_ddm);
    if (o->numprocs > 1) {
        printf("\nAssuming we are using mpiprepsubband with %d dedispersing CPUs:\n", o->numprocs);
        printf("Each line of the dedispersion plan is one or more distinct runs of\n");
        printf("mpiprepsubband, and each 'call' is the work that a single CPU is doing.\n");
    }
    if (o->nsub)
        printf("\n  Low DM    High DM     dDM  DownSamp  dsubDM   #DMs  DMs/call  calls  WorkFract\n");
    else
        printf("\n  Low DM    High DM     dDM  DownSamp   #DMs  WorkFract\n");
    for (int k = 0; k < p->nrows; k++) {
        const xc_ddp_row *r = &p->rows[k];
        if (o->nsub)
            printf("%9.3f  %9.3f  %6.2f    %4d  %6.2f  %6ld  %6ld  %6ld    %.4g\n", r->lodm, r->hidm, r->ddm,
                   r->downsamp, r->dsubdm, r->numdms, r->dms_per_call, r->calls, r->work_fract);
        else
            printf("%9.3f  %9.3f  %6.2f    %4d  %6ld   %.4g\n", r->lodm, r->hidm, r->ddm, r->downsamp, r->numdms,
                   r->work_fract);
    }
    printf("\n\n\n");
}

static void print_smearing(const xc_ddp_plan *p)
{
    printf("Smearing (ms; chan and total at the range's first .. last DM):\n");
    printf("  Low DM    High DM     dt*ds   BW_smear  sub_smear    chan_lo    chan_hi   total_lo   total_hi\n");
    for (int k = 0; k < p->nrows; k++) {
        const xc_ddp_row *r = &p->rows[k];
        printf("%9.3f  %9.3f  %8.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g\n", r->lodm, r->hidm,
               1000.0 * p->obs.dt * r->downsamp, r->bw_smear, r->sub_smear, r->chan_smear_lo, r->chan_smear_hi,
               r->total_smear_lo, r->total_smear_hi);
    }
}

static json_t *plan_json(const xc_ddp_plan *p)
{
    const xc_ddp_obs *o = &p->obs;
    json_t *rows = json_array();
    for (int k = 0; k < p->nrows; k++) {
        const xc_ddp_row *r = &p->rows[k];
        json_t *j = json_pack("{s:f,s:f,s:f,s:i,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "lodm", r->lodm, "hidm", r->hidm,
                              "ddm", r->ddm, "downsamp", r->downsamp, "numdms", (json_int_t)r->numdms, "work_fract",
                              r->work_fract, "bw_smear_ms", r->bw_smear, "sub_smear_ms", r->sub_smear,
                              "chan_smear_lo_ms", r->chan_smear_lo, "chan_smear_hi_ms", r->chan_smear_hi,
                              "total_smear_lo_ms", r->total_smear_lo, "total_smear_hi_ms", r->total_smear_hi);
        if (o->nsub) {
            json_object_set_new(j, "dsubdm", json_real(r->dsubdm));
            json_object_set_new(j, "dms_per_call", json_integer(r->dms_per_call));
            json_object_set_new(j, "calls", json_integer(r->calls));
        }
        json_array_append_new(rows, j);
    }
    return json_pack("{s:{s:f,s:f,s:f,s:f,s:i,s:f,s:i,s:i,s:f,s:f,s:i},s:f,s:f,s:f,s:f,s:f,s:i,s:f,s:o}", "inputs",
                     "lodm", o->lodm, "hidm", o->hidm, "fctr", o->fctr, "bw", o->bw, "nchans", o->nchans, "dt_s",
                     o->dt, "nsub", o->nsub, "numprocs", o->numprocs, "cdm", o->cdm, "res_ms", o->res_ms, "blocklen",
                     o->blocklen, "min_total_smear_ms", p->min_total_smear, "min_chan_smear_ms", p->min_chan_smear,
                     "min_bw_smear_ms", p->min_bw_smear, "min_dt_ms", p->min_dt, "ok_smear_ms", p->ok_smear,
                     "first_downsamp", p->first_downsamp, "guess_ddm", p->guess_ddm, "ranges", rows);
}

/* -maxloss: judges the candidates, prints them; *nsub the choice. */
static int budget(const xc_ddp_obs *o, xc_cli_ints *cand, const widths *w, double maxloss_pct, json_t *root,
                  int *nsub)
{
    int defaults[MAXNSUB], n = 0;
    const int *c = cand->v;
    if (cand->n) {
        n = cand->n;
    } else {
        defaults[n++] = 0;
        for (int s = 4; s < o->nchans && n < MAXNSUB - 1; s *= 2)
            defaults[n++] = s;
        defaults[n++] = o->nchans;
        c = defaults;
    }
    xc_ddp_alt alts[MAXNSUB];
    int choice;
    xc_error err;
    xc_error_clear(&err);
    if (xc_ddp_choose(o, c, n, w->v, w->n, maxloss_pct / 100, NULL, alts, &choice, &err))
        return xc_cli_fail("plan", &err);
    printf("Subband plans for at most %g %% S/N loss at width", maxloss_pct);
    for (int i = 0; i < w->n; i++)
        printf("%s %g", i ? "," : "", w->v[i]);
    printf(" us (bound of core/dedisp/approx/xc_subband.h, worst range):\n");
    printf("  nsub  ranges    #DMs  adds/sample  speedup  loss_bound  worst_range  width_us  spread  within\n");
    json_t *ja = json_array();
    for (int i = 0; i < n; i++) {
        const xc_ddp_alt *a = &alts[i];
        printf("%6d  %6d  %6ld  %11.4g  %7.3f  %9.2f%%  %11d  %8g  %6.0f  %s%s\n", a->nsub, a->nrows, a->ndm, a->adds,
               a->speedup, 100 * a->loss_bound, a->worst_row, a->worst_width_us, a->worst_spread,
               a->within ? "yes" : "no", i == choice ? "  <- chosen" : "");
        json_array_append_new(ja, json_pack("{s:i,s:i,s:I,s:f,s:f,s:f,s:f,s:i,s:f,s:f,s:b}", "nsub", a->nsub, "ranges",
                                            a->nrows, "ndm", (json_int_t)a->ndm, "adds_per_sample", a->adds,
                                            "adds_direct", a->adds_direct, "speedup", a->speedup, "loss_bound",
                                            a->loss_bound, "worst_range", a->worst_row, "worst_width_us",
                                            a->worst_width_us, "worst_spread_samples", a->worst_spread, "within",
                                            a->within));
    }
    json_t *jw = json_array();
    for (int i = 0; i < w->n; i++)
        json_array_append_new(jw, json_real(w->v[i]));
    json_object_set_new(root, "budget",
                        json_pack("{s:f,s:o,s:o,s:i}", "maxloss", maxloss_pct / 100, "widths_us", jw, "alternatives",
                                  ja, "chosen_nsub", choice >= 0 ? alts[choice].nsub : -1));
    if (choice < 0) {
        printf("no candidate is within %g %%\n", maxloss_pct);
        return 1;
    }
    printf("chosen: nsub %d (%s), %.3fx fewer additions than direct, S/N loss at most %.2f %%\n\n",
           alts[choice].nsub, alts[choice].nsub ? "subband" : "direct", alts[choice].speedup,
           100 * alts[choice].loss_bound);
    *nsub = alts[choice].nsub;
    return 0;
}

/* -i: the observation of a filterbank header, as DDplan.py takes it from a .fil. */
static xc_status obs_from_fil(const char *input, xc_ddp_obs *o, xc_error *err)
{
    xc_fbreader *r;
    xc_status st = xc_fbreader_open(&r, input, NULL, err);
    if (st)
        return st;
    const xc_fbheader *h = xc_fbreader_header(r);
    o->dt = h->tsamp;
    o->nchans = h->nchans;
    o->bw = fabs(h->foff) * h->nchans;
    o->fctr = h->fch1 + 0.5 * h->foff * h->nchans - 0.5 * h->foff;
    o->blocklen = 2400;   /* PRESTO src/sigproc_fb.c's spectra per subint */
    xc_fbreader_close(r);
    return XC_OK;
}

int xc_cmd_plan_ddplan(int argc, char **argv)
{
    const char *input = NULL, *json = NULL;
    xc_ddp_obs o;
    xc_ddp_obs_default(&o);
    double maxloss = -1;
    int flag = 0, have_loss = 0;
    widths w = {{40}, 1};
    int cand_v[MAXNSUB];
    xc_cli_ints cand = {cand_v, 0, MAXNSUB};
    char d[11][32];   /* the defaults the help shows: those of xc_ddp_obs_default (DDplan.py's) */
    snprintf(d[0], sizeof d[0], "%g", o.lodm);
    snprintf(d[1], sizeof d[1], "%g", o.hidm);
    snprintf(d[2], sizeof d[2], "%g", o.fctr);
    snprintf(d[3], sizeof d[3], "%g", o.bw);
    snprintf(d[4], sizeof d[4], "%d", o.nchans);
    snprintf(d[5], sizeof d[5], "%g", o.dt * 1e6);
    snprintf(d[6], sizeof d[6], "%d: none", o.nsub);
    snprintf(d[7], sizeof d[7], "%d", o.numprocs);
    snprintf(d[8], sizeof d[8], "%g", o.cdm);
    snprintf(d[9], sizeof d[9], "%g", o.res_ms);
    snprintf(d[10], sizeof d[10], "%d", o.blocklen);
    const xc_opt opts[] = {
        XC_OPT_FLAG("ddplan", &flag),
        XC_OPT_STR("i", &input, .arg = "FILE.fil",
                   .help = "take fctr, bw, nchans, dt from a filterbank header (and blocklen 2400),\n"
                           "as DDplan.py does for a .fil argument"),
        XC_OPT_DOUBLE("lodm", &o.lodm, .arg = "A", .help = "lowest DM (DDplan.py -l)", .def = d[0]),
        XC_OPT_DOUBLE("hidm", &o.hidm, .arg = "B", .help = "highest DM (DDplan.py -d)", .def = d[1]),
        XC_OPT_DOUBLE("fctr", &o.fctr, .arg = "MHZ", .help = "centre frequency (DDplan.py -f)", .def = d[2]),
        XC_OPT_DOUBLE("bw", &o.bw, .arg = "MHZ", .help = "bandwidth (DDplan.py -b)", .def = d[3]),
        XC_OPT_INT("nchans", &o.nchans, 1, 1 << 24, .arg = "N", .help = "channels (DDplan.py -n)", .def = d[4]),
        XC_OPT_CALL("tsamp", opt_tsamp, &o.dt, .arg = "US",
                    .help = "sample time in MICROSECONDS, as `crosscheck plan` takes it", .def = d[5]),
        XC_OPT_CALL("dt", opt_dt, &o.dt, .arg = "S",
                    .help = "sample time in SECONDS, as DDplan.py -t takes it (the later of the two wins)"),
        XC_OPT_INT("nsub", &o.nsub, 0, 1 << 24, .arg = "S", .help = "subbands (DDplan.py -s)", .def = d[6]),
        XC_OPT_INT("numprocs", &o.numprocs, 1, 1 << 20, .arg = "P",
                   .help = "dedispersing CPUs of mpiprepsubband (DDplan.py -p)", .def = d[7]),
        XC_OPT_DOUBLE("cdm", &o.cdm, .arg = "DM", .help = "coherent DM within channels (DDplan.py -c)",
                      .def = d[8]),
        XC_OPT_NONNEG("res", &o.res_ms, .arg = "MS", .help = "acceptable time resolution in ms (DDplan.py -r)",
                      .def = d[9]),
        XC_OPT_INT("blocklen", &o.blocklen, 1, 1 << 30, .arg = "N",
                   .help = "spectra per subint, for the downsample factors (DDplan.py -k)", .def = d[10]),
        XC_OPT_STR("json", &json, .arg = "FILE", .help = "also write the plan (and the budget's choice) as JSON"),
        {.name = "maxloss", .kind = XC_OPTK_NONNEG, .dest = &maxloss, .given = &have_loss, .arg = "PCT",
         .help = "subband plan from a smearing budget: the largest S/N loss allowed, in\n"
                 "percent: among the -nsubs candidates (default: 0 = direct, the powers of\n"
                 "two from 4 below nchans, and nchans) choose the one with the fewest\n"
                 "additions per sample (stage 1: calls x nchans, stage 2: DMs x nsub, per\n"
                 "range / downsample) whose S/N-loss bound (core/dedisp/approx/xc_subband.h:\n"
                 "1 - sqrt(W/(W+S)), S = floor(subband spread at dsubDM/2) + 3 samples) is\n"
                 "at most PCT at every -width; prints the choice, its plan, and every\n"
                 "alternative"},
        XC_OPT_CALL("width", opt_widths, &w, .arg = "US[,US...]", .help = "pulse widths in microseconds",
                    .def = "40"),
        XC_OPT_INTS("nsubs", &cand, 0, 1 << 24, .arg = "N,N,...", .help = "the candidate nsub values (0 is direct)"),
        XC_OPT_END,
    };
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    xc_error err;
    xc_error_clear(&err);
    if (input && obs_from_fil(input, &o, &err))
        return xc_cli_fail("plan", &err);
    json_t *root = json_object();
    int nsub_choice = o.nsub;
    if (have_loss) {
        int rc = budget(&o, &cand, &w, maxloss, root, &nsub_choice);
        if (rc) {
            json_decref(root);
            return rc;
        }
        o.nsub = nsub_choice;
    }
    xc_ddp_plan p;
    if (xc_ddp_make(&p, &o, &err)) {
        json_decref(root);
        return xc_cli_fail("plan", &err);
    }
    print_ddplan(&p);
    print_smearing(&p);
    json_object_set_new(root, "ddplan", plan_json(&p));
    json_object_set_new(root, "command_line", json_string(xc_cli_cmdline()));
    xc_status st = XC_OK;
    if (json)
        st = xc_cli_write_json(json, root, JSON_INDENT(1) | JSON_REAL_PRECISION(17), &err);
    json_decref(root);
    xc_ddp_free(&p);
    return st ? xc_cli_fail("plan", &err) : 0;
}
