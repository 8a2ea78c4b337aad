/* cli_search.c: the pieces `crosscheck pulscan` and `crosscheck accel` share
 * (cli_search.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_meter.h"
#include "cli/base/cli_search.h"
#include "core/base/xc_progress.h"

xc_status xc_cli_opt_bins(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    unsigned long long u = 0;
    xc_status st = xc_cli_u64(opt, val, &u, err);
    if (!st && (u < (unsigned long long)o->lo || u > (1ull << o->hi)))
        st = xc_error_set(err, XC_EINVAL, "option %s: %llu is outside %ld..2^%ld", opt, u, o->lo, o->hi);
    if (!st)
        *(size_t *)o->dest = (size_t)u;
    return st;
}

int xc_cli_search_parse(const xc_cmd *self, const xc_opt *opts, int argc, char **argv, const char **input)
{
    const xc_optspec spec = XC_CMD_SPEC(self, .max_args = XC_OPTS_ANY_ARGS);
    const char *cmd = spec.cmd;
    int first, rc = xc_opts_parse(&spec, opts, argc, argv, &first);
    if (rc != XC_OPTS_GO)
        return rc;
    if (!*input && first == argc - 1)
        *input = argv[first++];
    if (first < argc)
        return xc_cli_failf(cmd, "unexpected argument '%s' (crosscheck %s -h)", argv[first], cmd);
    if (!*input)
        return xc_cli_failf(cmd, "no input: -i X.fft is required (crosscheck %s -h)", cmd);
    return XC_OPTS_GO;
}

int xc_cli_fft_root(const char *input)
{
    size_t len = strlen(input);
    return len >= 4 && !strcmp(input + len - 4, ".fft") ? (int)(len - 4) : (int)len;
}

/* Every value of the spectrum read from file is finite; else the message
 * (naming the file, the bin and the byte offset) and 2. */
static int check_finite(const char *cmd, const char *file, const xc_spectrum *sp)
{
    for (size_t k = 0; k < 2 * sp->nbins; k++)
        if (!isfinite(sp->data[k]))
            return xc_cli_failf(cmd, "%s: bin %zu %s part is %g (byte offset %zu): not finite", file, k / 2,
                                k % 2 ? "imaginary" : "real", (double)sp->data[k], k * sizeof(float));
    return 0;
}

/* A search's error, after the input's name; a message that starts with the
 * command's own name ("accel: ...") loses it, so it does not read twice. */
static int search_fail(const xc_cli_search *s, const xc_error *err)
{
    const char *m = err->msg;
    size_t n = strlen(s->cmd);
    if (!strncmp(m, s->cmd, n) && m[n] == ':' && m[n + 1] == ' ')
        m += n + 2;
    return xc_cli_failf(s->cmd, "%s: %s", s->input, m);
}

xc_status xc_cli_search_once(const xc_impl *impl, const xc_spectrum *sp, const xc_psearch_opts *o, xc_progress_cb cb,
                             xc_candlist *cl, xc_error *err)
{
    xc_psearch *ps = NULL;
    xc_status st = xc_psearch_open(&ps, impl, sp->nbins, sp->T, o, 1, err);
    if (!st) {
        xc_psearch_progress(ps, cb);
        st = xc_psearch_run(ps, sp, cl, err);
    }
    xc_psearch_close(ps);
    return st;
}

int xc_cli_search_run(const xc_cli_search *s)
{
    xc_error err;
    xc_error_clear(&err);
    xc_spectrum sp;
    xc_status st = xc_spectrum_load(&sp, s->input, &err);
    if (st)
        return xc_cli_fail(s->cmd, &err);
    int rc = check_finite(s->cmd, s->input, &sp);
    if (rc) {
        xc_spectrum_free(&sp);
        return rc;
    }
    xc_candlist cl;
    xc_candlist_init(&cl);
    xc_progress meter;
    xc_progress_start(&meter, s->cmd, 1, s->want);
    double t0 = xc_now();
    st = s->search(s, &sp, &cl, xc_progress_callback(&meter), &err);
    double secs = xc_now() - t0;
    if (!st)
        xc_progress_end(&meter);
    if (st) {
        xc_candlist_free(&cl);
        xc_spectrum_free(&sp);
        return search_fail(s, &err);
    }
    st = s->write(s, &sp, &cl, &err);
    if (!st && !s->quiet)
        s->summary(s, &sp, &cl, secs);
    xc_candlist_free(&cl);
    xc_spectrum_free(&sp);
    return st ? xc_cli_fail(s->cmd, &err) : 0;
}
