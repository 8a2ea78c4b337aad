/* The device one of a node's processes takes (xc_devpick.h).  The CUDA
 * runtime reads CUDA_VISIBLE_DEVICES once, when it first initialises, and
 * applies it to every host thread of the process; a value naming one
 * device therefore binds the whole process (its worker threads and any
 * thread a searcher starts) to that device, where cudaSetDevice would have
 * to be called in each thread.  The list's syntax: the CUDA C Programming
 * Guide, "CUDA Environment Variables". */
#include "core/base/xc_devpick.h"

#include <stdio.h>
#include <string.h>

/* The length of the entry at s (up to ',' or the end), spaces trimmed:
 * *start gets its first character. */
static size_t entry(const char *s, const char **start)
{
    while (*s == ' ')
        s++;
    *start = s;
    size_t len = strcspn(s, ",");
    while (len > 0 && s[len - 1] == ' ')
        len--;
    return len;
}

int xc_devpick(const char *visible, int ndev, int local_rank, char *pick, size_t n)
{
    if (n)
        pick[0] = 0;
    if (local_rank < 0)
        local_rank = 0;
    if (!visible) {
        if (ndev < 1)
            return 0;
        return snprintf(pick, n, "%d", local_rank % ndev) < (int)n ? ndev : -1;
    }
    /* count the entries, up to the first empty or negative one */
    int count = 0;
    const char *s = visible, *e;
    for (;;) {
        size_t len = entry(s, &e);
        if (!len || *e == '-')
            break;
        count++;
        s = e + strcspn(e, ",");
        if (!*s++)
            break;
    }
    if (!count)
        return 0;
    int want = local_rank % count;
    s = visible;
    for (int k = 0;; k++) {
        size_t len = entry(s, &e);
        if (k == want) {
            if (len >= n)
                return -1;
            memcpy(pick, e, len);
            pick[len] = 0;
            return count;
        }
        s = e + strcspn(e, ",") + 1;
    }
}
