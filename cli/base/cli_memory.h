/* cli_memory.h: -max_memory (a size in bytes with a K, M or G suffix, powers
 * of 1024) and sizes as the commands print them. */
#ifndef XC_CLI_MEMORY_H
#define XC_CLI_MEMORY_H

#include <stddef.h>

#include "cli/base/cli_opts.h"

/* Parses "4G", "512M", "1.5G", "100000" into the double at o->dest (bytes,
 * > 0); XC_EINVAL naming opt and val otherwise. */
xc_status xc_cli_opt_bytes(const xc_opt *o, const char *opt, const char *val, xc_error *err);
/* Parses val into *bytes (the same rules). */
xc_status xc_cli_parse_bytes(const char *val, double *bytes);

/* The -max_memory option as commands list it (dest: a double, 0 = no bound). */
#define XC_CLI_OPT_MAX_MEMORY(p, what) \
    XC_OPT_CALL("max_memory", xc_cli_opt_bytes, (p), .arg = "BYTES", \
                .help = "bound on the memory " what " holds (K, M, G suffixes, powers of 1024): it\n" \
                        "works in smaller pieces, or stops at once (exit 2) naming its estimate", \
                .def = "none")

#endif
