#include "core/base/xc_dlsym.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int xc_dlsym(void *lib, const char *libname, const char *name, void *slot, size_t size, char *why, size_t nwhy)
{
    void *p = dlsym(lib, name);
    if (!p || size != sizeof p) {
        snprintf(why, nwhy, "%s has no %s", libname, name);
        return 0;
    }
    memcpy(slot, &p, sizeof p);
    return 1;
}
