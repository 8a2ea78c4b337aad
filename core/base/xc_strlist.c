/* xc_strlist.c: see xc_strlist.h. */
#include "core/base/xc_strlist.h"

#include <string.h>

int xc_strlist_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p = q ? q + 1 : NULL;
    }
    return 0;
}
