#include "cli/base/cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/base/xc_atomic.h"

/* The command line is process-wide by nature; only the CLI layer keeps it. */
static char cmdline[4096];

void xc_cli_set_cmdline(int argc, char **argv)
{
    size_t off = 0;
    cmdline[0] = '\0';
    for (int i = 0; i < argc && off + 1 < sizeof cmdline; i++) {
        int n = snprintf(cmdline + off, sizeof cmdline - off, "%s%s", i ? " " : "", argv[i]);
        if (n < 0)
            break;
        off += (size_t)n;
    }
}

const char *xc_cli_cmdline(void) { return cmdline; }

int xc_cli_fail(const char *cmd, const xc_error *err)
{
    fprintf(stderr, "crosscheck %s: %s\n", cmd, err->msg[0] ? err->msg : xc_strerror(err->code));
    return xc_status_exit_code(err->code ? err->code : XC_EINVAL);
}

int xc_cli_failf(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "crosscheck %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

xc_status xc_cli_write_json(const char *path, const json_t *root, size_t flags, xc_error *err)
{
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    if (json_dumpf(root, a.fp, flags) != 0 || fputc('\n', a.fp) == EOF) {
        xc_atomic_abort(&a);
        return xc_error_set(err, XC_EIO, "%s: write failed", path);
    }
    return xc_atomic_commit(&a, err);
}

xc_status xc_cli_double(const char *opt, const char *val, double *out, xc_error *err)
{
    char *end;
    errno = 0;
    double v = val ? strtod(val, &end) : 0;
    if (!val || end == val || *end || errno)
        return xc_error_set(err, XC_EINVAL, "option %s: '%s' is not a number", opt, val ? val : "");
    *out = v;
    return XC_OK;
}

xc_status xc_cli_int(const char *opt, const char *val, long lo, long hi, int *out, xc_error *err)
{
    char *end;
    errno = 0;
    long v = val ? strtol(val, &end, 10) : 0;
    if (!val || end == val || *end || errno)
        return xc_error_set(err, XC_EINVAL, "option %s: '%s' is not an integer", opt, val ? val : "");
    if (v < lo || v > hi)
        return xc_error_set(err, XC_EINVAL, "option %s: %ld is outside %ld..%ld", opt, v, lo, hi);
    *out = (int)v;
    return XC_OK;
}

xc_status xc_cli_u64(const char *opt, const char *val, unsigned long long *out, xc_error *err)
{
    char *end;
    errno = 0;
    /* digits only: strtoull skips leading blanks and takes a sign, so
     * " -1" would be 2^64 - 1 */
    unsigned long long v = val && isdigit((unsigned char)val[0]) ? strtoull(val, &end, 10) : 0;
    if (!val || !isdigit((unsigned char)val[0]) || end == val || *end || errno)
        return xc_error_set(err, XC_EINVAL, "option %s: '%s' is not a non-negative integer", opt,
                            val ? val : "");
    *out = v;
    return XC_OK;
}

void xc_cli_getopt_reset(void)
{
    optind = 0;   /* glibc: full re-initialisation */
    opterr = 0;
}

int xc_cli_badopt(const char *cmd, int argc, char **argv)
{
    const char *o = (optind - 1 >= 0 && optind - 1 < argc) ? argv[optind - 1] : "?";
    return xc_cli_failf(cmd, "unknown option or missing value: %s (see crosscheck %s -h)", o, cmd);
}

int xc_cli_writable(const char *cmd, const char *opt, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
        close(fd);
        unlink(path);
        return 0;
    }
    if (errno == EEXIST && (fd = open(path, O_WRONLY)) >= 0) {
        close(fd);
        return 0;
    }
    return xc_cli_failf(cmd, "%s '%s': cannot be written: %s", opt, path, strerror(errno));
}
