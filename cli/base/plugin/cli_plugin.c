/* Plugins: the -plugin arguments, dlopen, the ABI check before anything
 * else of a plugin is called, and the host table its init registers its
 * descriptors through (cli/base/plugin/cli_plugin_reg.h: the descriptors; cli/base/plugin/cli_plugin_view.h:
 * the views and the table's services; cli/base/plugin/cli_plugin_iso.h: the child
 * process its kernels run in). */
#include "cli/base/plugin/cli_plugin.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/base/plugin/cli_plugin_reg.h"
#include "cli/base/plugin/cli_plugin_view.h"
#include "include/crosscheck/xc_plugin.h"

/* ---- the queue of -plugin arguments --------------------------------------- */

#define MAXQUEUED 16
static const char *queued[MAXQUEUED];
static int nqueued;

int xc_cli_plugin_queued(void) { return nqueued > 0; }

int xc_cli_plugin_args(const char *cmd, int *argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (!strcmp(a, "--")) {   /* everything after is positional */
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        const char *name = a[0] == '-' ? (a[1] == '-' ? a + 2 : a + 1) : NULL;
        if (name && !strncmp(name, "plugin", 6) && (name[6] == 0 || name[6] == '=')) {
            if (name[6] == '=') {
                val = name + 7;
            } else if (i + 1 < *argc) {
                val = argv[++i];
            } else {
                fprintf(stderr, "crosscheck %s: option -plugin needs a value (a plugin's .so file)\n", cmd);
                return 2;
            }
            if (nqueued == MAXQUEUED) {
                fprintf(stderr, "crosscheck %s: -plugin: more than %d plugins\n", cmd, MAXQUEUED);
                return 2;
            }
            queued[nqueued++] = val;
            continue;
        }
        argv[out++] = argv[i];
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

void xc_cli_common_help(void)
{
    printf("\noptions every command takes:\n"
           "  -plugin LIB.so  load a plugin's implementations (xc_plugin.h; repeatable; also the\n"
           "                  colon-separated list CROSSCHECK_PLUGINS); each call into a plugin runs in a\n"
           "                  child process limited to CROSSCHECK_PLUGIN_TIMEOUT seconds (default 60)\n");
}

/* ---- loading ------------------------------------------------------------------------ */

/* One loaded plugin: the host table it is handed (kept while the process
 * lives: a plugin keeps the pointer for its kernels) and what host->add_*
 * registers into. */
typedef struct loaded {
    xcp_host host;
    xc_registry *reg;
    const char *file;
    int added;
    struct loaded *next;   /* every plugin loaded, reachable while the process lives */
} loaded;

static loaded *plugins;

/* What host->add_* answers the plugin. */
static xcp_status added(loaded *l, xc_status st, const xc_error *e, xcp_error *err)
{
    l->added += st == XC_OK;
    return st ? xc_plugin_error_out(e, err) : XCP_OK;
}

static xcp_status host_add_dedisperser(const xcp_host *h, const xcp_dedisperser *d, xcp_error *err)
{
    loaded *l = h->ctx;
    xc_error e;
    return added(l, xc_plugin_add_dedisperser(l->reg, l->file, d, &e), &e, err);
}

static xcp_status host_add_searcher(const xcp_host *h, const xcp_searcher *s, xcp_error *err)
{
    loaded *l = h->ctx;
    xc_error e;
    return added(l, xc_plugin_add_searcher(l->reg, l->file, s, &e), &e, err);
}

static xcp_status host_add_spsearcher(const xcp_host *h, const xcp_spsearcher *s, xcp_error *err)
{
    loaded *l = h->ctx;
    xc_error e;
    return added(l, xc_plugin_add_spsearcher(l->reg, l->file, s, &e), &e, err);
}

/* The entry's answer checked before anything else of the plugin is called:
 * its ABI version first (readable in every version's xcp_info). */
static xc_status check_info(const char *file, int found, const xcp_info *info, xc_error *err)
{
    if (!found)
        return xc_error_set(err, XC_EIO, "plugin %s: exports no %s (XC_PLUGIN_DEFINE in xc_plugin.h): not a "
                            "crosscheck plugin", file, XC_PLUGIN_ENTRY_NAME);
    if (!info)
        return xc_error_set(err, XC_EINVAL, "plugin %s: %s returned NULL", file, XC_PLUGIN_ENTRY_NAME);
    if (info->abi_major != XC_PLUGIN_ABI_MAJOR || info->abi_minor > XC_PLUGIN_ABI_MINOR)
        return xc_error_set(err, XC_EINVAL, "plugin %s was built against plugin ABI %d.%d; this crosscheck has "
                            "plugin ABI %d.%d%s: rebuild it against this crosscheck's xc_plugin.h", file,
                            info->abi_major, info->abi_minor, XC_PLUGIN_ABI_MAJOR, XC_PLUGIN_ABI_MINOR,
                            info->abi_major == XC_PLUGIN_ABI_MAJOR ? " (a newer minor version)" : "");
    if (info->size < offsetof(xcp_info, init) + sizeof info->init)
        return xc_error_set(err, XC_EINVAL, "plugin %s: its xcp_info holds %zu bytes, ABI %d.%d's %zu", file,
                            info->size, XC_PLUGIN_ABI_MAJOR, XC_PLUGIN_ABI_MINOR,
                            offsetof(xcp_info, init) + sizeof info->init);
    if (!info->init)
        return xc_error_set(err, XC_EINVAL, "plugin %s: no init function", file);
    return XC_OK;
}

/* Calls the plugin's init with a host table of its own. */
static xc_status init_plugin(xc_registry *reg, const char *file, const xcp_info *info, xc_error *err)
{
    loaded *l = calloc(1, sizeof *l);   /* lives while the process does, as the plugin */
    if (!l)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    l->reg = reg;
    l->file = file;
    l->next = plugins;
    plugins = l;
    l->host = (xcp_host){
        .size = sizeof(xcp_host),
        .abi_major = XC_PLUGIN_ABI_MAJOR,
        .abi_minor = XC_PLUGIN_ABI_MINOR,
        .ctx = l,
        .add_dedisperser = host_add_dedisperser,
        .add_searcher = host_add_searcher,
        .error_set = xc_plugin_host_error_set,
        .scale_int = xc_plugin_host_scale_int,
        .scale_real = xc_plugin_host_scale_real,
        .peaks_push = xc_plugin_host_peaks_push,
        .add_spsearcher = host_add_spsearcher,
        .spdets_push = xc_plugin_host_spdets_push,
        .sp_row_stats = xc_plugin_host_sp_row_stats,
        .sp_box_baseline = xc_plugin_host_sp_box_baseline,
    };
    xcp_error pe = {0};
    xc_error e;
    if (xc_plugin_error_in(info->init(&l->host, &pe), &pe, info->name ? info->name : file, &e))
        /* the host's refusals already name the file */
        return strstr(e.msg, file) ? xc_error_set(err, e.code, "%s", e.msg)
                                   : xc_error_set(err, e.code, "plugin %s: %s", file, e.msg);
    if (l->added == 0)
        return xc_error_set(err, XC_EINVAL, "plugin %s (%s) registered no implementation", file,
                            info->name ? info->name : file);
    return XC_OK;
}

xc_status xc_cli_plugin_load(xc_registry *reg, const char *path, xc_error *err)
{
    /* dlopen searches the library path for a name without a slash: a file
     * here is what a person means by `-plugin libmine.so`. */
    struct stat sb;
    int here = !strchr(path, '/') && stat(path, &sb) == 0;
    char *file = malloc(strlen(path) + 3);   /* kept for messages while the process lives */
    if (!file)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    strcpy(file, here ? "./" : "");
    strcat(file, path);
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        xc_error_set(err, XC_EIO, "plugin %s: cannot be loaded: %s", file, why ? why : "dlopen failed");
        free(file);
        return XC_EIO;
    }
    xcp_entry_fn entry;
    void *sym = dlsym(h, XC_PLUGIN_ENTRY_NAME);
    memcpy(&entry, &sym, sizeof entry);
    const xcp_info *info = entry ? entry() : NULL;
    xc_status st = check_info(file, entry != NULL, info, err);
    if (st) {
        dlclose(h);
        free(file);
        return st;
    }
    /* From here the handle and the name stay (also when init fails after
     * adding a descriptor): the registry points into the plugin. */
    return init_plugin(reg, file, info, err);
}

xc_status xc_cli_plugins_load(xc_registry *reg, xc_error *err)
{
    const char *env = getenv("CROSSCHECK_PLUGINS");
    if (env && *env) {
        char *list = strdup(env), *save = NULL;
        if (!list)
            return xc_error_set(err, XC_ENOMEM, "out of memory");
        xc_status st = XC_OK;
        xc_error e;
        for (char *p = strtok_r(list, ":", &save); p && !st; p = strtok_r(NULL, ":", &save))
            if ((st = xc_cli_plugin_load(reg, p, &e)))
                xc_error_set(err, st, "CROSSCHECK_PLUGINS: %s", e.msg);
        free(list);
        if (st)
            return st;
    }
    for (int i = 0; i < nqueued; i++) {
        xc_error e;
        xc_status st = xc_cli_plugin_load(reg, queued[i], &e);
        if (st)
            return xc_error_set(err, st, "-plugin: %s", e.msg);
    }
    return XC_OK;
}
