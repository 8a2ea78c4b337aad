/* cli_ddfile.c: see cli_ddfile.h. */
#include "cli/cli_ddfile.h"

#include <string.h>

#include "cli/cli.h"
#include "core/dedisp/xc_ddstream.h"

xc_status xc_cli_dedisperse_file(const char *fil, const char *out, const xc_dedisperser *impl, const xc_dmplan *plan,
                                 const xc_convention *cv, int threads, double *secs, xc_error *err)
{
    return xc_cli_dedisperse_file_max(fil, out, impl, plan, cv, threads, 0, secs, err);
}

xc_status xc_cli_dedisperse_file_max(const char *fil, const char *out, const xc_dedisperser *impl,
                                     const xc_dmplan *plan, const xc_convention *cv, int threads, double max_memory,
                                     double *secs, xc_error *err)
{
    xc_fbreader *r;
    xc_status st = xc_fbreader_open(&r, fil, NULL, err);
    if (st)
        return st;
    xc_ddstream_args a;
    memset(&a, 0, sizeof a);
    a.impl = impl;
    a.conv = cv;
    a.plan = plan;
    a.opts.threads = threads;
    a.input_name = fil;
    a.cmdline = xc_cli_cmdline();
    a.max_memory = max_memory;
    st = xc_dedisperse_stream(r, out, &a, secs, err);
    xc_fbreader_close(r);
    return st;
}
