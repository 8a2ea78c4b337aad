#include "core/io/xc_npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/xc_atomic.h"

xc_status xc_npy_write_header(FILE *fp, size_t rows, size_t cols, size_t *hdr_bytes,
                              const char *path, xc_error *err)
{
    char dict[256];
    int n = snprintf(dict, sizeof dict,
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu, %zu), }", rows, cols);
    size_t total = 10 + (size_t)n + 1;          /* magic(6)+ver(2)+len(2)+dict+'\n' */
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)n + pad + 1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(hlen & 0xff), (unsigned char)(hlen >> 8)};
    if (fwrite(pre, 1, 10, fp) != 10 || fwrite(dict, 1, (size_t)n, fp) != (size_t)n)
        return xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
    for (size_t i = 0; i < pad; i++)
        if (fputc(' ', fp) == EOF)
            return xc_error_set(err, XC_EIO, "%s: write failed", path);
    if (fputc('\n', fp) == EOF)
        return xc_error_set(err, XC_EIO, "%s: write failed", path);
    if (hdr_bytes)
        *hdr_bytes = 10 + hlen;
    return XC_OK;
}

xc_status xc_npy_write_f32(const char *path, const float *data, size_t rows, size_t cols,
                           xc_error *err)
{
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    st = xc_npy_write_header(a.fp, rows, cols, NULL, path, err);
    if (!st && rows * cols != 0 && fwrite(data, sizeof(float), rows * cols, a.fp) != rows * cols)
        st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
    if (st) {
        xc_atomic_abort(&a);
        return st;
    }
    return xc_atomic_commit(&a, err);
}

/* Finds `key` in the header dict and returns a pointer just after its ':'. */
static const char *dict_value(const char *dict, const char *key)
{
    const char *p = strstr(dict, key);
    if (!p)
        return NULL;
    p = strchr(p + strlen(key), ':');
    if (!p)
        return NULL;
    p++;
    while (*p == ' ')
        p++;
    return p;
}

xc_status xc_npy_read_f32(const char *path, float **data, size_t *rows, size_t *cols,
                          xc_error *err)
{
    unsigned char pre[10];
    char *dict = NULL;
    xc_status st = XC_OK;
    *data = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (fread(pre, 1, 10, fp) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        st = xc_error_set(err, XC_EFORMAT, "%s: magic: not a .npy file (byte 0)", path);
        goto out;
    }
    size_t hlen;
    long off = 10;
    if (pre[6] == 1) {
        hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
    } else if (pre[6] == 2 || pre[6] == 3) {
        unsigned char b[2];
        if (fread(b, 1, 2, fp) != 2) {
            st = xc_error_set(err, XC_EFORMAT, "%s: header length truncated (byte 10)", path);
            goto out;
        }
        hlen = (size_t)pre[8] | ((size_t)pre[9] << 8) | ((size_t)b[0] << 16) | ((size_t)b[1] << 24);
        off = 12;
    } else {
        st = xc_error_set(err, XC_EFORMAT, "%s: version: %d unsupported (byte 6)", path, pre[6]);
        goto out;
    }
    /* nothing is allocated by a header field before the file's size
     * confirms it (a 4 GiB version 2/3 length from a 128-byte file) */
    struct stat sb;
    if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = xc_error_set(err, XC_EIO, "%s: not a regular file (cannot check its size)", path);
        goto out;
    }
    size_t fsize = (size_t)sb.st_size;
    if (hlen > fsize - (size_t)off) {
        st = xc_error_set(err, XC_EFORMAT, "%s: header length: %zu bytes, but the file has %zu after byte %ld", path,
                          hlen, fsize - (size_t)off, off);
        goto out;
    }
    dict = malloc(hlen + 1);
    if (!dict) {
        st = xc_error_set(err, XC_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    if (fread(dict, 1, hlen, fp) != hlen) {
        st = xc_error_set(err, XC_EFORMAT, "%s: header truncated (byte %ld)", path, off);
        goto out;
    }
    dict[hlen] = '\0';
    const char *d = dict_value(dict, "'descr'");
    if (!d || strncmp(d, "'<f4'", 5) != 0) {
        st = xc_error_set(err, XC_EFORMAT, "%s: descr: only '<f4' is supported (byte %ld)", path, off);
        goto out;
    }
    const char *fo = dict_value(dict, "'fortran_order'");
    if (!fo || strncmp(fo, "False", 5) != 0) {
        st = xc_error_set(err, XC_EFORMAT, "%s: fortran_order: must be False (byte %ld)", path, off);
        goto out;
    }
    const char *sh = dict_value(dict, "'shape'");
    unsigned long long a = 0, b = 0;
    int nd;
    if (!sh || (nd = sscanf(sh, "(%llu, %llu)", &a, &b)) < 1) {
        st = xc_error_set(err, XC_EFORMAT, "%s: shape: unreadable (byte %ld)", path, off);
        goto out;
    }
    /* %llu takes a sign: "(-1, 0)" would be a 2^64 - 1 row array of nothing */
    size_t shlen = strcspn(sh, ")");
    if (memchr(sh, '-', shlen) || memchr(sh, '+', shlen)) {
        st = xc_error_set(err, XC_EFORMAT, "%s: shape: %.*s) holds a sign (byte %ld)", path, (int)shlen, sh, off);
        goto out;
    }
    if (nd == 1) {
        b = a;
        a = 1;
    }
    size_t avail = fsize - (size_t)off - hlen;
    if ((b && a > avail / sizeof(float) / b) || a * b * sizeof(float) != avail) {
        st = xc_error_set(err, XC_EFORMAT,
                          "%s: shape: (%llu, %llu) float32 values need %s bytes, the file holds %zu after its header "
                          "(byte %ld)",
                          path, a, b, (b && a > avail / sizeof(float) / b) ? "more" : "a different number of", avail,
                          off + (long)hlen);
        goto out;
    }
    size_t n = (size_t)a * (size_t)b;
    *data = malloc(n ? n * sizeof(float) : 1);
    if (!*data) {
        st = xc_error_set(err, XC_ENOMEM, "%s: out of memory for %zu values", path, n);
        goto out;
    }
    if (fread(*data, sizeof(float), n, fp) != n) {
        st = xc_error_set(err, XC_EFORMAT, "%s: data: truncated, expected %zu float32 values", path, n);
        free(*data);
        *data = NULL;
        goto out;
    }
    *rows = (size_t)a;
    *cols = (size_t)b;
out:
    free(dict);
    fclose(fp);
    return st;
}
