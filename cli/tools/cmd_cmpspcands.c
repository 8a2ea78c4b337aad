/* cmd_cmpspcands.c: `compare cands` on single-pulse candidate files
 * (Heimdall .cand, PRESTO .singlepulse, our CSV): A against B, and each
 * against a synthetic truth's pulses (compare/xc_spmatch.h). */
#include "cli/tools/cmd_cmpspcands.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli/base/cli.h"

xc_status xc_cmpcands_verdict(json_t *root, int agree, const char *json_out, xc_error *err)
{
    json_object_set_new(root, "verdict", json_string(agree ? "agree" : "disagree"));
    xc_status st = json_out ? xc_cli_write_json(json_out, root, JSON_INDENT(2) | JSON_REAL_PRECISION(17), err) : XC_OK;
    if (!st)
        printf("overall: %s\n", agree ? "AGREE" : "DISAGREE");
    return st;
}

int xc_cmpsp_wanted(const char *const *path, int nfiles, const char *format)
{
    if (format)
        return 1;
    for (int k = 0; k < nfiles; k++)
        if (xc_spformat_of_path(path[k]) == XC_SPFMT_AUTO)
            return 0;
    return nfiles > 0;
}

/* root["truth"] gets one object per file, each against t's pulses. */
static xc_status against_truth(const xc_cmpsp_args *a, const xc_spcandlist *l, const xc_truth *t, json_t *root,
                               int *agree, xc_error *err)
{
    json_t *arr = json_array();
    if (!arr || json_object_set_new(root, "truth", arr))
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    for (int k = 0; k < a->nfiles; k++) {
        xc_sptruth_result tr;
        xc_status st = xc_spmatch_truth(&l[k], a->path[k], t, &a->o, &tr, err);
        if (!st)
            st = xc_sptruth_print(a->path[k], &l[k], t, &tr, &a->o, stdout, err);
        json_t *j = st ? NULL : xc_sptruth_json(t, &tr);
        *agree = *agree && tr.pass;
        xc_sptruth_result_free(&tr);
        if (st)
            return st;
        if (!j || json_object_set_new(j, "file", json_string(a->path[k])) || json_array_append_new(arr, j))
            return xc_error_set(err, XC_ENOMEM, "out of memory");
    }
    return XC_OK;
}

static xc_status compare_two(const xc_cmpsp_args *a, const xc_spcandlist *l, json_t *root, int *agree,
                             xc_error *err)
{
    xc_spmatch_result r;
    xc_status st = xc_spmatch(&l[0], &l[1], a->path[0], a->path[1], &a->o, &r, err);
    if (st)
        return st;
    st = xc_spmatch_print(&l[0], &l[1], &r, &a->o, a->list, stdout, err);
    json_t *j = st ? NULL : xc_spmatch_json(&r, &a->o);
    *agree = r.agree;
    xc_spmatch_result_free(&r);
    if (!st && (!j || json_object_set_new(root, "compare", j)))
        st = xc_error_set(err, XC_ENOMEM, "out of memory");
    return st;
}

/* Reads the files and the truth, compares, prints, fills root. */
static xc_status compare_all(const char *cmd, const xc_cmpsp_args *a, xc_spcandlist *l, xc_truth *truth,
                             json_t *root, int *agree, xc_error *err)
{
    xc_status st = XC_OK;
    for (int k = 0; k < a->nfiles && !st; k++)
        st = xc_spcands_read(&l[k], a->path[k], a->format, err);
    if (!st && a->truth_path)
        st = xc_truth_load_pulses(truth, a->truth_path, err);
    if (st)
        return st;
    json_object_set_new(root, "command", json_string(cmd));
    json_object_set_new(root, "command_line", json_string(xc_cli_cmdline()));
    json_object_set_new(root, "kind", json_string("single-pulse"));
    for (int k = 0; k < a->nfiles; k++) {
        printf("%s: %s: %zu single-pulse candidates from %s, tsamp %s%.9g s\n", k ? "B" : "A", a->path[k], l[k].n,
               l[k].source, l[k].tsamp > 0 ? "" : "unknown ", l[k].tsamp);
        json_object_set_new(root, k ? "b" : "a", json_string(a->path[k]));
    }
    if ((a->nfiles == 2 && (st = compare_two(a, l, root, agree, err))) ||
        (a->truth_path && (st = against_truth(a, l, truth, root, agree, err))))
        return st;
    return xc_cmpcands_verdict(root, *agree, a->json_out, err);
}

int xc_cmpsp_run(const char *cmd, const xc_cmpsp_args *a)
{
    xc_error err;
    xc_error_clear(&err);
    xc_spcandlist l[2];
    xc_spcandlist_init(&l[0]);
    xc_spcandlist_init(&l[1]);
    xc_truth truth;
    memset(&truth, 0, sizeof truth);
    json_t *root = json_object();
    int agree = 1;
    xc_status st = root ? compare_all(cmd, a, l, &truth, root, &agree, &err)
                        : xc_error_set(&err, XC_ENOMEM, "out of memory");
    int rc = st ? xc_cli_fail(cmd, &err) : (agree ? 0 : 1);
    json_decref(root);
    xc_truth_free(&truth);
    xc_spcandlist_free(&l[0]);
    xc_spcandlist_free(&l[1]);
    return rc;
}
