/* crosscheck compare cands: two candidate lists (ours, Pulscan .pulscand,
 * PRESTO _ACCEL_<zmax>) against each other and/or one or two against truth;
 * single-pulse files go to cli/cmd_cmpspcands.c. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/tools/cmd_cmpspcands.h"
#include "compare/xc_cmpcands.h"

/* The command, apart from its options (their help is in the table). */
static const xc_optspec spec = {
    .cmd = "compare cands",
    .max_args = XC_OPTS_ANY_ARGS,
    .usage = "A [B] [options]",
    .about = "Compares candidate list A with B, and/or scores each against a synthetic pulsar's truth.\n"
             "Files: NAME.csv (crosscheck pulscan), NAME.pulscand (Pulscan CPU), NAME_ACCEL_<zmax> (PRESTO\n"
             "accelsearch, fundamentals table; power doubled to chi-square units).  All are translated to one\n"
             "convention: r = mid-observation Fourier bin of the fundamental, z = bins drifted (Pulscan's\n"
             "rbin is the boxcar centre minus one: r = rbin + 1 - floor(z/2) + z/2).\n"
             "Matching: same numharm, |rA - rB| <= dr, |zA - zB| <= dz (|z| unless both are PRESTO lists),\n"
             "greedy from A's highest sigma, closest first.  Agreement: every candidate above -sigma (plus\n"
             "-dsigma) in either list matched, and matched pairs within -rtol_power and -dsigma.\n"
             "Truth (the Pulscan paper's definition): a candidate above -truth_sigma within -ftol of the\n"
             "spin frequency; harmonics n*f0 and subharmonics f0/n are counted separately.\n"
             "Single-pulse files (NAME.cand Heimdall, NAME.singlepulse PRESTO, a .csv of crosscheck singlepulse\n"
             "starting 'snr,', or any with -format): matched by box centre within -tol_s (default one width),\n"
             "DM within -tol_dm (default one DM step of the lists) and width ratio within -tol_width, greedy\n"
             "from A's highest S/N, closest first; agreement: every candidate above -snr (times 1 + -rtol_snr)\n"
             "matched, pairs' S/N within -rtol_snr.  Against -truth (its \"pulses\"): a pulse is found by a\n"
             "candidate within one DM step and max(its width, the pulse's width) of t_s; docs/SINGLEPULSE.md.\n"
             "Exit status: 0 agree (and, with -truth, every list detects), 1 otherwise, 2 error.\n"};

/* What the options fill. */
typedef struct {
    xc_cmpcands_opts o;
    const char *truth_path, *json_out;
    double T;
    int list;
    char d[9][40];   /* the defaults the help shows: those of xc_cmpcands_opts_init */
    const char *format;
    xc_spmatch_opts sp;
    char dsp[2][24];   /* those of xc_spmatch_opts_init */
} cands_cli;

/* Parses the options into c (initialised here); returns XC_OPTS_GO with the
 * files at argv[*first..], or the exit code. */
static int parse(cands_cli *c, int argc, char **argv, int *first)
{
    memset(c, 0, sizeof *c);
    xc_cmpcands_opts_init(&c->o);
    c->list = 20;
    const double v[] = {c->o.dr, c->o.dz, c->o.dw, c->o.sigma_min, c->o.rtol_power, c->o.dsigma};
    for (int k = 0; k < 6; k++)
        snprintf(c->d[k], sizeof c->d[k], "%g", v[k]);
    snprintf(c->d[6], sizeof c->d[6], "%g, the paper's", c->o.truth_sigma);
    snprintf(c->d[7], sizeof c->d[7], "%g, i.e. 1 %%", c->o.ftol);
    snprintf(c->d[8], sizeof c->d[8], "%d", c->o.maxharm);
    xc_cmpcands_opts *o = &c->o;
    xc_spmatch_opts *sp = &c->sp;
    xc_spmatch_opts_init(sp);
    snprintf(c->dsp[0], sizeof c->dsp[0], "%g", sp->tol_width);
    snprintf(c->dsp[1], sizeof c->dsp[1], "%g", sp->rtol_snr);
    const xc_opt opts[] = {
        XC_OPT_STR("truth", &c->truth_path, .arg = "T.json",
                   .help = "truth file (f0_hz, optional r and z, tobs_s; crosscheck synth writes one)"),
        XC_OPT_NONNEG("T", &c->T, .arg = "SECONDS", 
                      .help = "observation length for .pulscand files (default: N*dt of the .inf beside\n"
                              "the file, NAME.inf or ROOT.inf for ROOT_ZMAX_..._TURBO_t.pulscand)"),
        XC_OPT_NONNEG("dr", &o->dr, .arg = "BINS", .help = "match tolerance in r", .def = c->d[0]),
        XC_OPT_NONNEG("dz", &o->dz, .arg = "BINS", .help = "match tolerance in z", .def = c->d[1]),
        XC_OPT_NONNEG("dw", &o->dw, .arg = "BINS",
                      .help = "match tolerance in w, for jerk searches (accel CSVs, _ACCEL_Z_JERK_W files)",
                      .def = c->d[2]),
        XC_OPT_FLAG("anyharm", &o->anyharm, .help = "match candidates of different numharm"),
        XC_OPT_DOUBLE("sigma", &o->sigma_min, .arg = "S", .help = "candidates above S must be matched", .def = c->d[3]),
        XC_OPT_NONNEG("rtol_power", &o->rtol_power, .arg = "R", .help = "relative power tolerance for matched pairs",
                      .def = c->d[4]),
        XC_OPT_NONNEG("dsigma", &o->dsigma, .arg = "D", .help = "absolute sigma tolerance for matched pairs",
                      .def = c->d[5]),
        XC_OPT_DOUBLE("truth_sigma", &o->truth_sigma, .arg = "S", .help = "detection threshold against truth",
                      .def = c->d[6]),
        XC_OPT_NONNEG("ftol", &o->ftol, .arg = "F", .help = "relative frequency window against truth", .def = c->d[7]),
        XC_OPT_INT("maxharm", &o->maxharm, 1, 1000, .arg = "N",
                   .help = "harmonics/subharmonics considered against truth", .def = c->d[8]),
        XC_OPT_FLAG("fundamental", &o->fundamental, .help = "the truth verdict needs a detection at the fundamental"),
        XC_OPT_NONNEG("truth_dr", &o->truth_dr, .arg = "BINS", .help = "... and its |r error| within BINS",
                      .def = "not checked"),
        XC_OPT_NONNEG("truth_dz", &o->truth_dz, .arg = "BINS", .help = "... and its ||z| error| within BINS",
                      .def = "not checked"),
        XC_OPT_INT("list", &c->list, 0, 1000000, .arg = "N", .help = "unmatched candidates listed per side",
                   .def = "20"),
        XC_OPT_STR("json", &c->json_out, .arg = "FILE", .help = "also write the result as JSON (written atomically)"),
        XC_OPT_STR("format", &c->format, .arg = "F",
                   .help = "single-pulse files in format F: csv, heimdall (.cand) or presto (.singlepulse)",
                   .def = "by each file's name"),
        XC_OPT_NONNEG("tol_s", &sp->tol_s, .arg = "SECONDS", .help = "single pulses: time tolerance of box centres",
                      .def = "one width, the wider box's"),
        XC_OPT_NONNEG("tol_dm", &sp->tol_dm, .arg = "DM", .help = "single pulses: DM tolerance",
                      .def = "one DM step of the lists"),
        XC_OPT_NONNEG("tol_width", &sp->tol_width, .arg = "R", .help = "single pulses: largest width ratio of a pair",
                      .def = c->dsp[0]),
        XC_OPT_DOUBLE("snr", &sp->snr_min, .arg = "S", .help = "single pulses above S (times 1 + rtol_snr) must be "
                      "matched", .def = "0, every one"),
        XC_OPT_NONNEG("rtol_snr", &sp->rtol_snr, .arg = "R", .help = "single pulses: relative S/N tolerance of pairs",
                      .def = c->dsp[1]),
        XC_OPT_NONNEG("truth_rtol_snr", &sp->truth_rtol_snr, .arg = "R",
                      .help = "single pulses: a found pulse's S/N over the truth's within 1 +- R",
                      .def = "not checked"),
        XC_OPT_END,
    };
    return xc_opts_parse(&spec, opts, argc, argv, first);
}

int xc_cmd_compare_cands(int argc, char **argv)
{
    const char *cmd = "compare cands";
    cands_cli c;
    int first, rc = parse(&c, argc, argv, &first);
    if (rc != XC_OPTS_GO)
        return rc;
    const xc_cmpcands_opts o = c.o;
    const char *truth_path = c.truth_path, *json_out = c.json_out;
    double T = c.T;
    int list = c.list;
    int nfiles = argc - first;
    if (nfiles < 1 || nfiles > 2 || (nfiles == 1 && !truth_path))
        return xc_cli_failf(cmd, "expected two candidate files A B, or one with -truth (got %d files; see "
                                 "crosscheck compare cands -h)", nfiles);
    const char *path[2] = {argv[first], nfiles == 2 ? argv[first + 1] : NULL};
    if (xc_cmpsp_wanted(path, nfiles, c.format)) {
        xc_cmpsp_args a = {.path = {path[0], path[1]}, .nfiles = nfiles, .truth_path = truth_path,
                           .json_out = json_out, .o = c.sp, .list = (size_t)list};
        xc_error e;
        if (c.format && xc_spformat_parse(c.format, &a.format, &e))
            return xc_cli_fail(cmd, &e);
        return xc_cmpsp_run(cmd, &a);
    }
    xc_error err;
    xc_error_clear(&err);
    xc_candlist l[2];
    xc_candlist_init(&l[0]);
    xc_candlist_init(&l[1]);
    xc_cmpcands_result res;
    memset(&res, 0, sizeof res);
    xc_truth truth;
    xc_truthmatch tm[2];
    json_t *root = json_object();
    int agree = 1;
    if (!root) {
        xc_error_set(&err, XC_ENOMEM, "out of memory");
        goto fail;
    }
    for (int k = 0; k < nfiles; k++)
        if (xc_cands_load(&l[k], path[k], T, &err))
            goto fail;
    if (truth_path && xc_truth_read(&truth, truth_path, T, &err))
        goto fail;
    json_object_set_new(root, "command", json_string(cmd));
    json_object_set_new(root, "command_line", json_string(xc_cli_cmdline()));
    for (int k = 0; k < nfiles; k++) {
        printf("%s: %s: %zu candidates from %s, T = %.9g s\n", k ? "B" : "A", path[k], l[k].n,
               l[k].source[0] ? l[k].source : "?", l[k].T);
        json_object_set_new(root, k ? "b" : "a", json_string(path[k]));
    }
    if (nfiles == 2) {
        if (xc_compare_cands(&l[0], &l[1], &o, &res, &err) ||
            xc_cmpcands_print(&l[0], &l[1], &res, &o, (size_t)list, stdout, &err))
            goto fail;
        agree = res.agree;
        json_t *j = xc_cmpcands_json(&res, &o);
        if (!j || json_object_set_new(root, "compare", j)) {
            xc_error_set(&err, XC_ENOMEM, "out of memory");
            goto fail;
        }
    }
    if (truth_path) {
        json_t *arr = json_array();
        if (!arr || json_object_set_new(root, "truth", arr)) {
            xc_error_set(&err, XC_ENOMEM, "out of memory");
            goto fail;
        }
        for (int k = 0; k < nfiles; k++) {
            if (xc_cands_match_truth(&l[k], &truth, &o, &tm[k], &err) ||
                xc_truthmatch_print(path[k], &l[k], &truth, &tm[k], &o, stdout, &err))
                goto fail;
            agree = agree && tm[k].pass;
            json_t *j = xc_truthmatch_json(&truth, &tm[k]);
            if (!j || json_object_set_new(j, "file", json_string(path[k])) || json_array_append_new(arr, j)) {
                xc_error_set(&err, XC_ENOMEM, "out of memory");
                goto fail;
            }
        }
    }
    if (xc_cmpcands_verdict(root, agree, json_out, &err))
        goto fail;
    rc = agree ? 0 : 1;
    goto done;
fail:
    rc = xc_cli_fail(cmd, &err);
done:
    json_decref(root);
    xc_cmpcands_result_free(&res);
    xc_candlist_free(&l[0]);
    xc_candlist_free(&l[1]);
    return rc;
}
