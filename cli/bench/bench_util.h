/* bench_util.h: what the `crosscheck bench` commands share on top of the
 * benchmark library (bench/xc_bench.h): option checks and output. */
#ifndef XC_CLI_BENCH_UTIL_H
#define XC_CLI_BENCH_UTIL_H

#include "bench/xc_bench.h"

struct json_t;

/* 0 when every value of an -nbits list is a dedispersion input width (1, 2,
 * 4, 8, 16); else 2 after saying which is not. */
int xc_bench_check_nbits(const char *cmd, const int *nbits, int n);

/* Writes root to path (indented, 10 significant digits) and says so: 0, or the
 * exit status after the error. */
int xc_bench_write_json(const char *cmd, const char *path, const struct json_t *root);
/* The exit status of a GPU benchmark in a build without CUDA, after saying so. */
int xc_bench_no_cuda(const char *cmd);

#endif
