/* cli_plugin_reg.h: a plugin's descriptors (include/crosscheck/xc_plugin.h)
 * checked and registered as crosscheck's own: each becomes an internal
 * descriptor whose impl.data is the host's record of the plugin's one, and
 * whose methods make the views, call the plugin in its child process
 * (cli/base/plugin/cli_plugin_iso.h) and bring the results back. */
#ifndef XC_CLI_PLUGIN_REG_H
#define XC_CLI_PLUGIN_REG_H

#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"
#include "include/crosscheck/xc_plugin.h"

/* Registers d (from plugin file) in reg.  XC_EINVAL naming the file and the
 * descriptor for what xc_plugin.h's rules refuse, XC_ENOMEM. */
xc_status xc_plugin_add_dedisperser(xc_registry *reg, const char *file, const xcp_dedisperser *d, xc_error *err);
xc_status xc_plugin_add_searcher(xc_registry *reg, const char *file, const xcp_searcher *s, xc_error *err);
xc_status xc_plugin_add_spsearcher(xc_registry *reg, const char *file, const xcp_spsearcher *s, xc_error *err);

/* The file a runtime implementation came from, or NULL for one that is not
 * a plugin's. */
const char *xc_cli_plugin_file(const xc_impl *impl);

#endif
