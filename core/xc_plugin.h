/* xc_plugin.h: the C ABI of crosscheck plugins: a shared library that adds
 * its own implementations to crosscheck's registry, so `list`, `run`,
 * `bench`, `gate`, the conformance suite and the study runner judge them like
 * the built-in ones.  Installed as <prefix>/include/crosscheck/xc_plugin.h
 * (`make install`); build a plugin with
 *
 *   cc -shared -fPIC -O2 $(pkg-config --cflags crosscheck) -o libmine.so mine.c
 *
 * A plugin links nothing of crosscheck: it includes the headers for the
 * descriptors' layout and calls back into crosscheck only through the host
 * table it is handed (xc_plugin_host: error messages, output scaling).
 *
 * A plugin exports one symbol, xc_plugin_entry (XC_PLUGIN_DEFINE writes it),
 * which returns its xc_plugin_info; crosscheck checks the ABI version the
 * plugin was built against before it touches anything else, refusing a
 * plugin of another major version (or of a newer minor one) with a message
 * naming both versions, then calls info->init, in which the plugin adds its
 * descriptors with host->add.
 *
 *   static xc_status my_run(const xc_dedisperser *self, const xc_ddjob *job, xc_plane *out, xc_error *err);
 *   static const xc_dedisperser mine = {
 *       .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "mine", .desc = "my direct dedisperser",
 *                .tol = {XC_TOL_ROUNDING, 1.0}, .caps = XC_CAP_RUNTIME},
 *       .run = my_run};
 *   static xc_status init(const xc_plugin_host *host, xc_error *err)
 *   {
 *       return host->add(host, &mine.impl, err);
 *   }
 *   XC_PLUGIN_DEFINE("mine", "1.0", init)
 *
 * Families: XC_FAMILY_DEDISPERSE (xc_dedisperser, core/dedisp/xc_dedisperse.h) and
 * XC_FAMILY_PULSCAN (xc_searcher, core/search/xc_search.h).  XC_FAMILY_ACCEL
 * (xc_accel_searcher) is reserved for a later minor version and refused now.
 *
 * Rules the host enforces (host->add returns XC_EINVAL naming the plugin and
 * the descriptor otherwise): the descriptor and its strings stay valid while
 * the plugin is loaded (static const); caps carry XC_CAP_RUNTIME and not
 * XC_CAP_REFERENCE (a plugin never defines the semantics); the name is not
 * one already registered in the family.
 *
 * Isolation: every call into a plugin's kernel (a dedisperser's run, or its
 * plan + execute + destroy; a searcher's powers and peaks) runs in a child
 * process (fork) with a time limit, so a plugin that crashes or hangs is
 * reported as a failed check ("killed by signal 11", "did not finish within
 * 60 s") and never takes crosscheck down.  Environment:
 *   CROSSCHECK_PLUGINS            colon-separated list of plugins to load
 *   CROSSCHECK_PLUGIN_TIMEOUT     seconds one call may take (default 60)
 *   CROSSCHECK_PLUGIN_ISOLATE=0   call the plugin in-process (debuggers, bench)
 * available() and an approximate dedisperser's bound() are called in-process.
 * A plugin that uses OpenMP in the child process may deadlock when crosscheck
 * had started its own OpenMP threads before the fork (libgomp is not
 * fork-safe); the time limit then reports it.  Set CROSSCHECK_PLUGIN_ISOLATE=0
 * for such a plugin, or give it its own threads. */
#ifndef XC_PLUGIN_H
#define XC_PLUGIN_H

#include <stdint.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/xc_dmplan.h"
#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"
#include "core/search/xc_search.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version.  Major: the layout of a descriptor, job, plane or of the
 * structs below changed (a plugin of another major is refused).  Minor:
 * members added at the end of xc_plugin_host (a plugin built against a newer
 * minor than the host's is refused: it may call what the host lacks). */
#define XC_PLUGIN_ABI_MAJOR 1
#define XC_PLUGIN_ABI_MINOR 0

/* The symbol a plugin exports. */
#define XC_PLUGIN_ENTRY_NAME "xc_plugin_entry"

typedef struct xc_plugin_host xc_plugin_host;

/* What crosscheck hands a plugin's init. */
struct xc_plugin_host {
    int abi_major, abi_minor;  /* the host's XC_PLUGIN_ABI_MAJOR / MINOR */
    void *ctx;                 /* the host's; not for the plugin */
    /* Registers impl, the head of a static const xc_dedisperser or
     * xc_searcher (family chosen by impl->family).  XC_EINVAL (see the rules
     * above), XC_ENOMEM. */
    xc_status (*add)(const xc_plugin_host *host, const xc_impl *impl, xc_error *err);
    /* xc_error_set: fills err and returns code. */
    xc_status (*error_set)(xc_error *err, xc_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
    /* xc_scale_int / xc_scale_real (core/dedisp/xc_dmplan.h): the convention's output
     * scaling of an integer or float channel sum.  nchans is the block's. */
    float (*scale_int)(const xc_convention *cv, uint64_t sum, int nchans, int ds, int nbits);
    float (*scale_real)(const xc_convention *cv, double sum, int nchans, int ds, int nbits);
};

/* What a plugin's xc_plugin_entry returns.  abi_major and abi_minor come
 * first in every version, so any host can read them. */
typedef struct {
    int abi_major, abi_minor;  /* XC_PLUGIN_ABI_MAJOR / MINOR the plugin was built with */
    const char *name;          /* the plugin's name, for messages */
    const char *version;       /* the plugin's own version */
    xc_status (*init)(const xc_plugin_host *host, xc_error *err);
} xc_plugin_info;

typedef const xc_plugin_info *(*xc_plugin_entry_fn)(void);

/* Defines the exported entry point of a plugin named NAME (a string), of
 * version VERSION, whose init function is INIT. */
#define XC_PLUGIN_DEFINE(NAME, VERSION, INIT) \
    __attribute__((visibility("default"))) const xc_plugin_info *xc_plugin_entry(void); \
    __attribute__((visibility("default"))) const xc_plugin_info *xc_plugin_entry(void) \
    { \
        static const xc_plugin_info info = {XC_PLUGIN_ABI_MAJOR, XC_PLUGIN_ABI_MINOR, (NAME), (VERSION), (INIT)}; \
        return &info; \
    }

#ifdef __cplusplus
}
#endif
#endif
