/* cmd_cmpspcands.h: `compare cands` on single-pulse files
 * (cli/cmd_cmpspcands.c), which cli/cmd_cmpcands.c hands over to. */
#ifndef CMD_CMPSPCANDS_H
#define CMD_CMPSPCANDS_H

#include <stddef.h>

#include "compare/xc_spmatch.h"
#include "core/sp/files/xc_spfiles.h"

typedef struct {
    const char *path[2];
    int nfiles;
    const char *truth_path, *json_out;
    xc_spformat format;      /* XC_SPFMT_AUTO: each file's by its name */
    xc_spmatch_opts o;
    size_t list;             /* unmatched candidates listed per side */
} xc_cmpsp_args;

/* 1 when the comparison is of single-pulse lists: a format was given, or
 * every file is one by its name (xc_spformat_of_path). */
int xc_cmpsp_wanted(const char *const *path, int nfiles, const char *format);

/* What every `compare cands` ends with: root's "verdict", root written to
 * json_out (when given, atomically), "overall: AGREE|DISAGREE" printed. */
xc_status xc_cmpcands_verdict(struct json_t *root, int agree, const char *json_out, xc_error *err);

/* Runs the comparison and prints it; returns the exit status (0 agree,
 * 1 disagree or a pulse not found, 2 bad input). */
int xc_cmpsp_run(const char *cmd, const xc_cmpsp_args *a);

#endif
