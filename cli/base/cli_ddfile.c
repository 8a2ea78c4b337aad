/* cli_ddfile.c: see cli_ddfile.h. */
#include "cli/base/cli_ddfile.h"

#include <string.h>

#include "cli/base/cli.h"
#include "core/dedisp/run/xc_ddrecord.h"
#include "core/dedisp/run/xc_ddstream.h"

xc_status xc_cli_dedisperse_file(const char *fil, const char *out, const xc_dedisperser *impl, const xc_dmplan *plan,
                                 const xc_convention *cv, int threads, double *secs, xc_error *err)
{
    xc_ddopts o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    return xc_cli_dedisperse_file_opts(fil, out, impl, plan, cv, &o, 0, secs, err);
}

xc_status xc_cli_dedisperse_file_opts(const char *fil, const char *out, const xc_dedisperser *impl,
                                      const xc_dmplan *plan, const xc_convention *cv, const xc_ddopts *o,
                                      double max_memory, double *secs, xc_error *err)
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
    if (o)
        a.opts = *o;
    a.input_name = fil;
    a.cmdline = xc_cli_cmdline();
    a.max_memory = max_memory;
    st = xc_dedisperse_stream(r, out, &a, secs, err);
    xc_fbreader_close(r);
    return st;
}

xc_status xc_cli_approx_declared(const char *fil, const xc_dedisperser *impl, const xc_dmplan *plan,
                                 const xc_convention *cv, const xc_ddopts *o, double *loss, int *nsub,
                                 xc_error *err)
{
    xc_fbreader *r;
    xc_status st = xc_fbreader_open(&r, fil, NULL, err);
    if (st)
        return st;
    const xc_fbheader *h = xc_fbreader_header(r);
    const xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    xc_ddjob job;
    json_t *rec = NULL;
    xc_ddloss l;
    if (!(st = xc_ddjob_prepare(&job, g.nchans, h->nbits, plan, cv, &g, NULL, err))) {
        job.opts = *o;
        st = xc_ddapprox_record_checked(impl, &job, &rec, &l, err);
        xc_ddjob_free(&job);
    }
    xc_fbreader_close(r);
    if (st)
        return st;
    *loss = l.loss;
    *nsub = (int)json_integer_value(json_object_get(json_object_get(rec, "parameters"), "nsub"));
    json_decref(rec);
    return XC_OK;
}
