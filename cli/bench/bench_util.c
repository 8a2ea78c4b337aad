/* What the bench commands share on top of the benchmark library (bench_util.h). */
#include "cli/bench/bench_util.h"

#include <jansson.h>
#include <stdio.h>

#include "cli/base/cli.h"
#include "core/base/xc_nbits.h"

int xc_bench_check_nbits(const char *cmd, const int *nbits, int n)
{
    for (int i = 0; i < n; i++)
        if (!xc_nbits_is_int(nbits[i]))
            return xc_cli_failf(cmd, "-nbits: %d is not one of 1, 2, 4, 8, 16", nbits[i]);
    return 0;
}

int xc_bench_write_json(const char *cmd, const char *path, const json_t *root)
{
    xc_error err;
    if (xc_cli_write_json(path, root, JSON_INDENT(2) | JSON_REAL_PRECISION(10), &err))
        return xc_cli_fail(cmd, &err);
    printf("\nwrote %s\n", path);
    return 0;
}

int xc_bench_no_cuda(const char *cmd)
{
    return xc_cli_failf(cmd, "built without CUDA (CUDA=0): no gpu implementation to time");
}
