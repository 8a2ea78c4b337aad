/* crosscheck compare cands: two candidate lists (ours, Pulscan .pulscand,
 * PRESTO _ACCEL_<zmax>) against each other and/or one or two against truth. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "compare/xc_cmpcands.h"

static void usage(void)
{
    xc_cmpcands_opts o;
    xc_cmpcands_opts_init(&o);
    printf("usage: crosscheck compare cands A [B] [options]\n\n"
           "Compares candidate list A with B, and/or scores each against a synthetic pulsar's truth.\n"
           "Files: NAME.csv (crosscheck pulscan), NAME.pulscand (Pulscan CPU), NAME_ACCEL_<zmax> (PRESTO\n"
           "accelsearch, fundamentals table; power doubled to chi-square units).  All are translated to one\n"
           "convention: r = mid-observation Fourier bin of the fundamental, z = bins drifted (Pulscan's\n"
           "rbin is the boxcar centre minus one: r = rbin + 1 - floor(z/2) + z/2).\n"
           "Matching: same numharm, |rA - rB| <= dr, |zA - zB| <= dz (|z| unless both are PRESTO lists),\n"
           "greedy from A's highest sigma, closest first.  Agreement: every candidate above -sigma (plus\n"
           "-dsigma) in either list matched, and matched pairs within -rtol_power and -dsigma.\n"
           "Truth (the Pulscan paper's definition): a candidate above -truth_sigma within -ftol of the\n"
           "spin frequency; harmonics n*f0 and subharmonics f0/n are counted separately.\n"
           "Exit status: 0 agree (and, with -truth, every list detects), 1 otherwise, 2 error.\n\n"
           "options:\n"
           "  -truth T.json      truth file (f0_hz, optional r and z, tobs_s; crosscheck synth writes one)\n"
           "  -T SECONDS         observation length for .pulscand files (default: N*dt of the .inf beside\n"
           "                     the file, NAME.inf or ROOT.inf for ROOT_ZMAX_..._TURBO_t.pulscand)\n"
           "  -dr BINS           match tolerance in r (default %g)\n"
           "  -dz BINS           match tolerance in z (default %g)\n"
           "  -dw BINS           match tolerance in w, for jerk searches (accel CSVs, _ACCEL_Z_JERK_W files;\n"
           "                     default %g)\n"
           "  -anyharm           match candidates of different numharm\n"
           "  -sigma S           candidates above S must be matched (default %g)\n"
           "  -rtol_power R      relative power tolerance for matched pairs (default %g)\n"
           "  -dsigma D          absolute sigma tolerance for matched pairs (default %g)\n"
           "  -truth_sigma S     detection threshold against truth (default %g, the paper's)\n"
           "  -ftol F            relative frequency window against truth (default %g, i.e. 1 %%)\n"
           "  -maxharm N         harmonics/subharmonics considered against truth (default %d)\n"
           "  -fundamental       the truth verdict needs a detection at the fundamental\n"
           "  -truth_dr BINS     ... and its |r error| within BINS (default: not checked)\n"
           "  -truth_dz BINS     ... and its ||z| error| within BINS (default: not checked)\n"
           "  -list N            unmatched candidates listed per side (default 20)\n"
           "  -json FILE         also write the result as JSON (written atomically)\n"
           "  -h                 show this help\n",
           o.dr, o.dz, o.dw, o.sigma_min, o.rtol_power, o.dsigma, o.truth_sigma, o.ftol, o.maxharm);
}

int xc_cmd_compare_cands(int argc, char **argv)
{
    static const xc_optspec spec = {"compare cands", usage, XC_OPTS_ANY_ARGS};
    const char *cmd = "compare cands";
    xc_cmpcands_opts o;
    xc_cmpcands_opts_init(&o);
    const char *truth_path = NULL, *json_out = NULL;
    double T = 0;
    int list = 20;
    const xc_opt opts[] = {
        XC_OPT_STR("truth", &truth_path),
        XC_OPT_NONNEG("T", &T),
        XC_OPT_NONNEG("dr", &o.dr),
        XC_OPT_NONNEG("dz", &o.dz),
        XC_OPT_NONNEG("dw", &o.dw),
        XC_OPT_FLAG("anyharm", &o.anyharm),
        XC_OPT_DOUBLE("sigma", &o.sigma_min),
        XC_OPT_NONNEG("rtol_power", &o.rtol_power),
        XC_OPT_NONNEG("dsigma", &o.dsigma),
        XC_OPT_DOUBLE("truth_sigma", &o.truth_sigma),
        XC_OPT_NONNEG("ftol", &o.ftol),
        XC_OPT_INT("maxharm", &o.maxharm, 1, 1000),
        XC_OPT_FLAG("fundamental", &o.fundamental),
        XC_OPT_NONNEG("truth_dr", &o.truth_dr),
        XC_OPT_NONNEG("truth_dz", &o.truth_dz),
        XC_OPT_INT("list", &list, 0, 1000000),
        XC_OPT_STR("json", &json_out),
        XC_OPT_END,
    };
    int first, rc = xc_opts_parse(&spec, opts, argc, argv, &first);
    if (rc != XC_OPTS_GO)
        return rc;
    int nfiles = argc - first;
    if (nfiles < 1 || nfiles > 2 || (nfiles == 1 && !truth_path))
        return xc_cli_failf(cmd, "expected two candidate files A B, or one with -truth (got %d files; see "
                                 "crosscheck compare cands -h)", nfiles);
    const char *path[2] = {argv[first], nfiles == 2 ? argv[first + 1] : NULL};
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
    json_object_set_new(root, "verdict", json_string(agree ? "agree" : "disagree"));
    if (json_out && xc_cli_write_json(json_out, root, JSON_INDENT(2) | JSON_REAL_PRECISION(17), &err))
        goto fail;
    printf("overall: %s\n", agree ? "AGREE" : "DISAGREE");
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
