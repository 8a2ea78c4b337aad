/* crosscheck compare <what>: comparators.  `planes` compares two DM-time planes;
 * the second word leaves room for `cands` (candidate lists) beside it. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "compare/xc_compare.h"
#include "core/xc_planefile.h"

static void usage_compare(FILE *fp)
{
    fprintf(fp, "usage: crosscheck compare <what> [options]   (crosscheck compare <what> -h)\n\n"
                "  planes   compare a DM-time plane with a reference plane (exact or within a float bound)\n"
                "  cands    compare candidate lists (ours, .pulscand, _ACCEL_) with each other or with truth\n");
}

static void usage_planes(FILE *fp)
{
    fprintf(fp,
            "usage: crosscheck compare planes A.json B.json [options]\n\n"
            "Compares plane A (candidate) with plane B (reference), both written by `crosscheck dedisperse`.\n"
            "The DM trials must be the same (ranges, ds, trials, samples, DM values within 1e-9 relative).\n"
            "Integer input (nbits != 32) on both sides is compared exactly unless -rtol or -atol is given;\n"
            "otherwise each sample of range k must satisfy |A-B| <= rtol*max|B_k| + atol.\n"
            "Exit status: 0 agree, 1 disagree, 2 error (unreadable file, different DM trials, bad option).\n\n"
            "options:\n"
            "  -dm X        DM (pc cm^-3) whose trial (the nearest) gets the percentage difference\n"
            "               100*(A-B)/max|B| along time (default: the DM of B's peak)\n"
            "  -rtol R      relative tolerance, a fraction of max|B| per range (default: N*2^-24 with\n"
            "               N = unmasked channels * ds of the range; integer input: exact)\n"
            "  -atol A      absolute tolerance in plane units (default: 0)\n"
            "  -json FILE   also write the full result as JSON to FILE (written atomically)\n"
            "  -h           show this help\n");
}

static xc_status write_json(const char *path, const xc_cmpresult *res, xc_error *err)
{
    json_t *root = json_object();
    if (!root)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", path);
    xc_status st = XC_OK;
    if (json_object_set_new(root, "command", json_string("compare planes")) ||
        json_object_set_new(root, "command_line", json_string(xc_cli_cmdline())))
        st = xc_error_set(err, XC_ENOMEM, "%s: out of memory", path);
    if (!st)
        st = xc_cmpresult_json(res, root, err);
    if (!st)
        st = xc_cli_write_json(path, root, JSON_INDENT(2) | JSON_REAL_PRECISION(17), err);
    json_decref(root);
    return st;
}

/* planefile messages mostly start with the path; make sure every one names it. */
static int fail_file(const char *path, const xc_error *err)
{
    if (strstr(err->msg, path))
        return xc_cli_fail("compare", err);
    return xc_cli_failf("compare", "%s: %s", path, err->msg);
}

static int compare_planes(int argc, char **argv)
{
    static const struct option opts[] = {
        {"dm", required_argument, NULL, 'd'},
        {"rtol", required_argument, NULL, 'r'},
        {"atol", required_argument, NULL, 'a'},
        {"json", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    xc_cmpopts co;
    xc_error err;
    const char *json_out = NULL;
    int c;

    xc_cmpopts_init(&co);
    xc_error_clear(&err);
    while ((c = getopt_long_only(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (xc_cli_double("-dm", optarg, &co.dm, &err))
                return xc_cli_fail("compare", &err);
            if (!isfinite(co.dm))
                return xc_cli_failf("compare", "option -dm: '%s' is not a finite DM", optarg);
            break;
        case 'r':
            if (xc_cli_double("-rtol", optarg, &co.rtol, &err))
                return xc_cli_fail("compare", &err);
            if (!(co.rtol >= 0) || !isfinite(co.rtol))
                return xc_cli_failf("compare", "option -rtol: %s must be a finite number >= 0", optarg);
            break;
        case 'a':
            if (xc_cli_double("-atol", optarg, &co.atol, &err))
                return xc_cli_fail("compare", &err);
            if (!(co.atol >= 0) || !isfinite(co.atol))
                return xc_cli_failf("compare", "option -atol: %s must be a finite number >= 0", optarg);
            break;
        case 'j':
            json_out = optarg;
            break;
        case 'h':
            usage_planes(stdout);
            return 0;
        default:
            return xc_cli_badopt("compare planes", argc, argv);
        }
    }
    if (argc - optind != 2)
        return xc_cli_failf("compare", "planes: expected two plane files A.json B.json, got %d "
                                       "(see crosscheck compare planes -h)", argc - optind);
    const char *pa = argv[optind], *pb = argv[optind + 1];

    xc_planefile fa, fb;
    if (xc_planefile_read(&fa, pa, &err))
        return fail_file(pa, &err);
    if (xc_planefile_read(&fb, pb, &err)) {
        xc_planefile_free(&fa);
        return fail_file(pb, &err);
    }
    xc_cmpside sa = {pa, &fa.plane, &fa.meta, &fa.plan};
    xc_cmpside sb = {pb, &fb.plane, &fb.meta, &fb.plan};
    xc_cmpresult res;
    int rc;
    if (xc_compare_planes(&sa, &sb, &co, &res, &err) || xc_cmpresult_print(&res, stdout, &err) ||
        (json_out && write_json(json_out, &res, &err)))
        rc = xc_cli_fail("compare", &err);
    else
        rc = res.agree ? 0 : 1;
    xc_cmpresult_free(&res);
    xc_planefile_free(&fa);
    xc_planefile_free(&fb);
    return rc;
}

int xc_cmd_compare(int argc, char **argv)
{
    if (argc < 2) {
        usage_compare(stderr);
        return 2;
    }
    const char *what = argv[1];
    if (!strcmp(what, "-h") || !strcmp(what, "--help") || !strcmp(what, "-help")) {
        usage_compare(stdout);
        return 0;
    }
    if (!strcmp(what, "planes"))
        return compare_planes(argc - 1, argv + 1);
    if (!strcmp(what, "cands"))
        return xc_cmd_compare_cands(argc - 1, argv + 1);
    return xc_cli_failf("compare", "unknown comparison '%s' (known: planes, cands; see crosscheck compare -h)", what);
}
