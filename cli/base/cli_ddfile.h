/* cli_ddfile.h: a filterbank file through a dedisperser into a plane file,
 * as `run` and `gate` judge them. */
#ifndef XC_CLI_DDFILE_H
#define XC_CLI_DDFILE_H

#include "core/base/xc_error.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"

/* Streams fil through impl into the plane file out (out.json) with the
 * command line as its provenance; *secs, if given, gets the dedispersion
 * time. */
xc_status xc_cli_dedisperse_file(const char *fil, const char *out, const xc_dedisperser *impl, const xc_dmplan *plan,
                                 const xc_convention *cv, int threads, double *secs, xc_error *err);
/* The same with the request's options (threads, an approximate
 * dedisperser's parameters and loss limit; NULL: defaults) and the stream's
 * memory bounded (xc_ddstream_args.max_memory; 0: none). */
xc_status xc_cli_dedisperse_file_opts(const char *fil, const char *out, const xc_dedisperser *impl,
                                      const xc_dmplan *plan, const xc_convention *cv, const xc_ddopts *o,
                                      double max_memory, double *secs, xc_error *err);

/* What an approximate dedisperser (one with a bound method) declares for
 * fil's geometry and plan under options o: *loss its worst declared loss
 * and *nsub the nsub it resolves (0 where it records none).  XC_EINVAL,
 * naming the bound, when that loss is above o's limit
 * (core/dedisp/approx/xc_ddloss.h); fil's errors. */
struct xc_ddloss_s;
xc_status xc_cli_approx_declared(const char *fil, const xc_dedisperser *impl, const xc_dmplan *plan,
                                 const xc_convention *cv, const xc_ddopts *o, double *loss, int *nsub,
                                 xc_error *err);

#endif
