/* What the bench commands share on top of the benchmark library (bench_util.h). */
#include "cli/bench/bench_util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_fs.h"
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

/* -peer PATH: appended to the list. */
static xc_status add_peer(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    xc_cli_peers *p = o->dest;
    if (p->n == XC_BENCH_MAX_PEERS)
        return xc_error_set(err, XC_EINVAL, "%s %s: more than %d peers", opt, val, XC_BENCH_MAX_PEERS);
    p->path[p->n++] = val;
    return XC_OK;
}

void xc_cli_peeropts(xc_opt t[XC_CLI_PEEROPTS], xc_cli_peers *p, const char *what)
{
    p->timeout = XC_BENCH_PEER_TIMEOUT;
    t[0] = (xc_opt)XC_OPT_CALL("peer", add_peer, p, .arg = "PATH",
                               .help = what);
    t[1] = (xc_opt)XC_OPT_STR("peer_kind", &p->kind, .arg = "NAME",
                              .help = "what the -peer programs are (accelsearch, pulscan, fake,\n"
                                      "prepsubband, dedisperse), where their file names do not say it",
                              .def = "the program's file name");
    t[2] = (xc_opt)XC_OPT_STR("peer_dir", &p->dir, .arg = "DIR",
                              .help = "folder for the peers' input, output and logs (kept)",
                              .def = "a temporary folder, removed at the end");
    t[3] = (xc_opt)XC_OPT_NONNEG("peer_timeout", &p->timeout, .arg = "S",
                                 .help = "seconds one run of a peer may take: a peer still running then is\n"
                                         "killed (with what it started) and the benchmark exits 2 naming it;\n"
                                         "0: no limit", .def = "3600");
    t[4] = (xc_opt)XC_OPT_END;
}

static int work_dir(const char *cmd, xc_cli_peers *p);

int xc_cli_peers_ready(const char *cmd, xc_cli_peers *p, unsigned want)
{
    xc_error err;
    char names[256] = "";
    for (int k = 0; k < XC_PEER_NKINDS; k++)
        if (want & XC_PEER_BIT(k))
            xc_fmt(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? " or " : "",
                   xc_bench_peer_kind_name((xc_bench_peer_kind)k));
    for (int i = 0; i < p->n; i++) {
        if (xc_bench_peer_init(&p->peer[i], p->path[i], p->kind, &err))
            return xc_cli_fail(cmd, &err);
        if (!(want & XC_PEER_BIT(p->peer[i].kind)))
            return xc_cli_failf(cmd, "-peer %s is %s; this benchmark compares with %s", p->path[i],
                                xc_bench_peer_kind_name(p->peer[i].kind), names);
    }
    if (!p->n && (p->kind || p->dir))
        return xc_cli_failf(cmd, "%s without -peer", p->kind ? "-peer_kind" : "-peer_dir");
    return p->n ? work_dir(cmd, p) : 0;
}

int xc_cli_peers_cmd(const char *cmd, xc_cli_peers *p, const char *tmpl)
{
    if (!tmpl)
        return p->dir ? xc_cli_failf(cmd, "-peer_dir without -peer_cmd") : 0;
    memset(&p->peer[0], 0, sizeof p->peer[0]);
    p->peer[0].path = tmpl;
    xc_fmt(p->peer[0].exe, sizeof p->peer[0].exe, "/bin/sh");
    p->peer[0].kind = XC_PEER_CMD;
    p->n = 1;
    return work_dir(cmd, p);
}

/* The peers' work folder: -peer_dir, or a temporary one. */
static int work_dir(const char *cmd, xc_cli_peers *p)
{
    xc_error err;
    if (p->dir)
        return xc_mkdirs(p->dir, &err) ? xc_cli_fail(cmd, &err) : 0;
    const char *tmp = getenv("TMPDIR");
    if (xc_pathf(p->tmp, sizeof p->tmp, &err, "%s/crosscheck-peer-XXXXXX", tmp && *tmp ? tmp : "/tmp"))
        return xc_cli_fail(cmd, &err);
    if (!mkdtemp(p->tmp))
        return xc_cli_failf(cmd, "cannot make a work folder %s: %s", p->tmp, strerror(errno));
    p->dir = p->tmp;
    return 0;
}

xc_bench_peers xc_cli_peers_of(const xc_cli_peers *p, int runs)
{
    return (xc_bench_peers){p->peer, p->n, p->dir, runs, p->timeout};
}

void xc_cli_peers_done(xc_cli_peers *p)
{
    xc_error err;
    if (p->tmp[0])
        (void)xc_rmtree(p->tmp, &err);
    p->tmp[0] = 0;
}

int xc_cli_peers_fail(const char *cmd, xc_cli_peers *p, xc_error *err)
{
    if (p->tmp[0]) {
        size_t len = strlen(err->msg);
        xc_fmt(err->msg + len, sizeof err->msg - len, "; the temporary folder %s is removed (-peer_dir DIR keeps "
               "the peers' files and logs)", p->tmp);
    }
    xc_cli_peers_done(p);
    return xc_cli_fail(cmd, err);
}

void xc_cli_print_peer(const json_t *r)
{
    const json_t *ps = json_object_get(r, "peer_seconds");
    if (!ps)
        return;
#define NUM(k) json_number_value(json_object_get(r, k))
    printf("  vs %s %s: peer %.3f s (cpu %.3f s), ours %.3f s (cpu %.3f s): ratio %.2f, cpu ratio %.2f (medians of %d)\n",
           json_string_value(json_object_get(r, "peer_kind")), json_string_value(json_object_get(r, "peer")),
           json_number_value(ps), NUM("peer_cpu_seconds"), NUM("seconds"), NUM("cpu_seconds"), NUM("ratio"),
           NUM("cpu_ratio"), (int)NUM("runs"));
#undef NUM
}
