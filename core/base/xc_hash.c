#include "core/base/xc_hash.h"

#include <errno.h>
#include <string.h>
#include <sys/types.h>

#define XC_HASH_PRIME 0x100000001b3ULL

uint64_t xc_hash64(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--)
            w = w << 8 | b[i + (size_t)k];
        h = (h ^ w) * XC_HASH_PRIME;
    }
    for (; i < n; i++)
        h = (h ^ b[i]) * XC_HASH_PRIME;
    return h;
}

xc_status xc_hash_stream(FILE *fp, const char *name, uint64_t *hash, uint64_t *bytes, xc_error *err)
{
    static const size_t N = 1 << 16;
    unsigned char buf[1 << 16];
    uint64_t h = XC_HASH_INIT, n = 0;
    if (fflush(fp) != 0 || fseeko(fp, 0, SEEK_SET) != 0)
        return xc_error_set(err, XC_EIO, "%s: cannot rewind: %s", name, strerror(errno));
    for (;;) {
        size_t got = fread(buf, 1, N, fp);
        /* every chunk but the last is N bytes, a whole number of words:
         * the same hash as of the file in one piece */
        h = xc_hash64(h, buf, got);
        n += got;
        if (got < N)
            break;
    }
    if (ferror(fp))
        return xc_error_set(err, XC_EIO, "%s: read error at byte %llu: %s", name, (unsigned long long)n,
                            strerror(errno));
    *hash = h;
    *bytes = n;
    return XC_OK;
}
