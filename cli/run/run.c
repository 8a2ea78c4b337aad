/* crosscheck run: which implementations of a family judge an observation
 * (-impl, and what is available here). */
#include <stdio.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/run/run.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_strlist.h"

/* The reference always runs (every other one is compared with it); the
 * others unless -impl named a list without them. */
int run_wanted(const runctx *c, const xc_impl *impl)
{
    return (impl->caps & XC_CAP_REFERENCE) || !c->only || xc_strlist_has(c->only, impl->name);
}

/* An implementation that cannot run here is said so, and never counted as passed. */
void run_skip_text(runctx *c, const char *obs, const char *what, const char *name, const char *why)
{
    char line[400];
    xc_fmt(line, sizeof line, "%s: %s%s unavailable: %s (skipped, not counted as passed)", obs, what, name, why);
    xc_vd_text(&c->vd, line);
    if (!c->quiet)
        fprintf(stderr, "  skip %-10s %s\n", name, why);
}

const char *run_shown_path(const runctx *c, const char *path)
{
    size_t n = strlen(c->work);
    if (c->keep || strncmp(path, c->work, n) || path[n] != '/')
        return path;
    return "synthesized in the work folder (removed at the end; -keep keeps it)";
}

const char *run_begin(const runctx *c, const char *obs)
{
    if (!c->quiet)
        fprintf(stderr, "crosscheck run: %s\n", obs);
    return obs;
}

const xc_impl *run_next_impl(runctx *c, const char *obs, const char *what, xc_family fam, size_t *i)
{
    const xc_registry *reg = xc_cli_registry();
    for (; *i < xc_registry_count(reg, fam); (*i)++) {
        const xc_impl *impl = xc_registry_at(reg, fam, *i);
        if (!run_wanted(c, impl))
            continue;
        char why[256] = "";
        if (!xc_impl_available(impl, why, sizeof why)) {
            run_skip_text(c, obs, what, impl->name, why);
            continue;
        }
        (*i)++;
        return impl;
    }
    return NULL;
}

int run_memory(runctx *c, const char *obs, const char *step, double need, const char *what)
{
    char b[32], m[32];
    xc_fmt_bytes(b, sizeof b, need);
    if (!c->quiet)
        fprintf(stderr, "crosscheck run: %s: %s: about %s of memory (%s)\n", obs, step, b, what);
    if (!(c->max_memory > 0) || need <= c->max_memory)
        return 0;
    xc_fmt_bytes(m, sizeof m, c->max_memory);
    xc_error e;
    xc_vd_note(&c->vd, xc_error_set(&e, XC_EINVAL, "%s: %s needs about %s (%s), more than -max_memory %s", obs, step,
                                    b, what, m), &e);
    xc_vd_fail(&c->vd, obs, "-", "memory", e.msg, "within -max_memory");
    xc_vd_emit(&c->vd);
    return 1;
}

int run_dd_estimate(const runctx *c, const char *fil, const xc_dmplan *plan, xc_ddstream_est *est)
{
    xc_error e;
    xc_fbreader *r;
    xc_ddstream_args a;
    memset(&a, 0, sizeof a);
    a.conv = c->cv;
    a.plan = plan;
    a.input_name = fil;
    xc_status st = xc_fbreader_open(&r, fil, NULL, &e);
    if (!st) {
        st = xc_ddstream_estimate(r, &a, est, &e);
        xc_fbreader_close(r);
    }
    return st != XC_OK;
}
