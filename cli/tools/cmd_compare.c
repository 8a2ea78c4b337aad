/* crosscheck compare <what>: comparators.  `planes` compares two DM-time planes;
 * the second word leaves room for `cands` (candidate lists) beside it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "compare/xc_compare.h"
#include "core/base/xc_mem.h"
#include "core/dedisp/run/xc_planefile.h"

static void usage_compare(FILE *fp)
{
    fprintf(fp, "usage: crosscheck compare <what> [options]   (crosscheck compare <what> -h)\n\n"
                "  planes   compare a DM-time plane with a reference plane (exact or within a float bound)\n"
                "  cands    compare candidate lists (ours, .pulscand, _ACCEL_) with each other or with truth\n");
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

/* -dm X: a finite DM (dest: double). */
static xc_status opt_dm(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    xc_status st = xc_cli_double(opt, val, o->dest, err);
    if (!st && !isfinite(*(double *)o->dest))
        st = xc_error_set(err, XC_EINVAL, "option %s: '%s' is not a finite DM", opt, val);
    return st;
}

static int compare_planes(int argc, char **argv)
{
    static const xc_optspec spec = {
        .cmd = "compare planes",
        .max_args = XC_OPTS_ANY_ARGS,
        .usage = "A.json B.json [options]",
        .about = "Compares plane A (candidate) with plane B (reference), both written by `crosscheck dedisperse`.\n"
                 "The DM trials must be the same (ranges, ds, trials, samples, DM values within 1e-9 relative).\n"
                 "Integer input (nbits != 32) on both sides is compared exactly unless -rtol or -atol is given;\n"
                 "otherwise each sample of range k must satisfy |A-B| <= rtol*max|B_k| + atol.\n"
                 "Exit status: 0 agree, 1 disagree, 2 error (unreadable file, different DM trials, bad option).\n"};
    xc_cmpopts co;
    xc_cmpopts_init(&co);
    const char *json_out = NULL;
    const xc_opt opts[] = {
        XC_OPT_CALL("dm", opt_dm, &co.dm, .arg = "X",
                    .help = "DM (pc cm^-3) whose trial (the nearest) gets the percentage difference\n"
                            "100*(A-B)/max|B| along time", .def = "the DM of B's peak"),
        XC_OPT_NONNEG("rtol", &co.rtol, .arg = "R",
                      .help = "relative tolerance, a fraction of max|B| per range (default: N*2^-24 with\n"
                              "N = unmasked channels * ds of the range; integer input: exact)"),
        XC_OPT_NONNEG("atol", &co.atol, .arg = "A", .help = "absolute tolerance in plane units", .def = "0"),
        XC_OPT_STR("json", &json_out, .arg = "FILE",
                   .help = "also write the full result as JSON to FILE (written atomically)"),
        XC_OPT_END,
    };
    int first, rc = xc_opts_parse(&spec, opts, argc, argv, &first);
    if (rc != XC_OPTS_GO)
        return rc;
    if (argc - first != 2)
        return xc_cli_failf("compare", "planes: expected two plane files A.json B.json, got %d "
                                       "(see crosscheck compare planes -h)", argc - first);
    const char *pa = argv[first], *pb = argv[first + 1];
    xc_error err;
    xc_error_clear(&err);

    /* Both planes are held at once: refuse a pair that cannot fit, before reading either. */
    double ba = 0, bb = 0;
    char what[9000];
    if (xc_planefile_disk_bytes(pa, &ba, &err))
        return fail_file(pa, &err);
    if (xc_planefile_disk_bytes(pb, &bb, &err))
        return fail_file(pb, &err);
    snprintf(what, sizeof what, "holding the planes of %s and %s in memory", pa, pb);
    if (xc_mem_check(ba + bb, "compare planes", what,
                     "compare planes of fewer DM trials (dedisperse both with a narrower -dmplan), or use a machine "
                     "with more memory", &err))
        return xc_cli_fail("compare", &err);
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

int xc_cmd_compare(const xc_cmd *self, int argc, char **argv)
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
    return xc_cli_failf(self->name, "unknown comparison '%s' (known: planes, cands; see crosscheck compare -h)", what);
}
