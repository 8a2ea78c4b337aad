/* The process's registry, made on first use from the built-in table, and the
 * one place the CLI turns a typed -impl name into an implementation. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/base/cli.h"
#include "cli/base/plugin/cli_plugin.h"
#include "optimized/xc_impls.h"

static xc_registry *registry;

static void drop_registry(void) { xc_registry_destroy(registry); }

xc_registry *xc_cli_registry(void)
{
    if (!registry) {
        xc_error err;
        if (xc_registry_builtin(&registry, &err)) {
            /* Only an allocation can fail here: the table is fixed at build time. */
            fprintf(stderr, "crosscheck: %s\n", err.msg);
            exit(2);
        }
        atexit(drop_registry);
        /* Plugins (CROSSCHECK_PLUGINS, -plugin) join every command that takes
         * its implementations from here. */
        if (xc_cli_plugins_load(registry, &err)) {
            fprintf(stderr, "crosscheck: %s\n", err.msg);
            exit(2);
        }
    }
    return registry;
}

const xc_impl *xc_cli_impl(const char *cmd, xc_family f, const char *name)
{
    const xc_registry *reg = xc_cli_registry();
    const xc_impl *impl;
    if (!name) {
        impl = xc_registry_pick(reg, f, XC_CLI_DEFAULT_WANT, XC_CLI_DEFAULT_AVOID);
        if (!impl)
            xc_cli_failf(cmd, "no %s implementation is available here (crosscheck list)", xc_family_name(f));
        return impl;
    }
    if (!(impl = xc_registry_find(reg, f, name))) {
        xc_cli_failf(cmd, "-impl: '%s' is not a registered %s implementation (crosscheck list)", name,
                     xc_family_name(f));
        return NULL;
    }
    char why[256];
    if (!xc_impl_available(impl, why, sizeof why)) {
        xc_cli_failf(cmd, "-impl %s: unavailable: %s", name, why);
        return NULL;
    }
    return impl;
}
