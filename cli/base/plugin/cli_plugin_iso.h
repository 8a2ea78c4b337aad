/* cli_plugin_iso.h: the child process with a time limit that every call
 * into a plugin's kernel runs in, so that a plugin that crashes or hangs
 * becomes an error message, never the end of the process. */
#ifndef XC_CLI_PLUGIN_ISO_H
#define XC_CLI_PLUGIN_ISO_H

#include <stddef.h>

#include "core/base/xc_error.h"

/* One call into a plugin: call runs the plugin's code (in the child, or
 * in-process without isolation), send writes its results to the pipe (in
 * the child; 0 or -1), recv reads them back into the caller's outputs. */
typedef struct {
    xc_status (*call)(void *ctx, xc_error *err);
    int (*send)(void *ctx, int fd);
    xc_status (*recv)(void *ctx, int fd, double deadline, xc_error *err);
} xc_plugin_calls;

/* Runs ic's call for implementation impl of plugin file in a child process
 * limited to CROSSCHECK_PLUGIN_TIMEOUT seconds (default 60), or in-process
 * when CROSSCHECK_PLUGIN_ISOLATE=0.  what names the call in messages ("its
 * dedispersion").  XC_EIO for a crash (naming the signal), a time-out or
 * results cut short; the call's own error otherwise. */
xc_status xc_plugin_isolate(const char *impl, const char *file, const char *what, const xc_plugin_calls *ic,
                            void *ctx, xc_error *err);

/* For send: the whole buffer, retrying short writes.  0, or -1. */
int xc_plugin_send(int fd, const void *buf, size_t n);
/* For recv: n bytes before the deadline, else XC_EIO (the child died or
 * overran; xc_plugin_isolate then says which). */
xc_status xc_plugin_recv(int fd, void *buf, size_t n, double deadline, xc_error *err);

#endif
