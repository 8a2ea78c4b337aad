/* cli_ddfile.h: a filterbank file through a dedisperser into a plane file,
 * as `run` and `gate` judge them. */
#ifndef XC_CLI_DDFILE_H
#define XC_CLI_DDFILE_H

#include "core/base/xc_error.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/xc_dmplan.h"

/* Streams fil through impl into the plane file out (out.json) with the
 * command line as its provenance; *secs, if given, gets the dedispersion
 * time. */
xc_status xc_cli_dedisperse_file(const char *fil, const char *out, const xc_dedisperser *impl, const xc_dmplan *plan,
                                 const xc_convention *cv, int threads, double *secs, xc_error *err);
/* The same with the stream's memory bounded (xc_ddstream_args.max_memory; 0: none). */
xc_status xc_cli_dedisperse_file_max(const char *fil, const char *out, const xc_dedisperser *impl,
                                     const xc_dmplan *plan, const xc_convention *cv, int threads, double max_memory,
                                     double *secs, xc_error *err);

#endif
