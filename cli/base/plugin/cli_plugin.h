/* cli_plugin.h: plugins (include/crosscheck/xc_plugin.h) loaded into the process's
 * registry: `-plugin LIB.so` on any command and CROSSCHECK_PLUGINS, and the
 * child process every call into a plugin's kernel runs in. */
#ifndef XC_CLI_PLUGIN_H
#define XC_CLI_PLUGIN_H

#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"

/* Takes every `-plugin P` / `--plugin P` / `-plugin=P` out of argv[1..]
 * (argv[0], the command's name, stays) and queues P for loading; *argc is
 * updated.  Returns 0, or 2 after a message on stderr when -plugin lacks its
 * value. */
int xc_cli_plugin_args(const char *cmd, int *argc, char **argv);
/* 1 when a -plugin was queued. */
int xc_cli_plugin_queued(void);

/* Loads the plugins of CROSSCHECK_PLUGINS (colon-separated) and then the
 * queued ones into reg.  XC_EIO (cannot be opened, no entry point),
 * XC_EINVAL (another ABI version, a descriptor refused), the plugin's own. */
xc_status xc_cli_plugins_load(xc_registry *reg, xc_error *err);
/* Loads one plugin into reg. */
xc_status xc_cli_plugin_load(xc_registry *reg, const char *path, xc_error *err);

/* The help lines of the options every command takes (printed by each
 * command's -h). */
void xc_cli_common_help(void);

#endif
