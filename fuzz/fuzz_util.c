/* fuzz_util.c: the private directory, input files and property failures of
 * the fuzz targets (fuzz_util.h). */
#include "fuzz/fuzz_util.h"

#include "core/base/xc_fs.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[4096];

static void remove_dir(void) { xc_rmtree(dir, NULL); }

const char *xc_fuzz_path(const char *name)
{
    /* eight buffers in turn, so a caller may hold a few paths at once */
    static char paths[8][8192];
    static unsigned next;
    char *path = paths[next++ % 8];
    if (!dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/xc-fuzz.XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(remove_dir);
    }
    snprintf(path, sizeof paths[0], "%s/%s", dir, name);
    return path;
}

const char *xc_fuzz_write(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || (n && fwrite(data, 1, n, fp) != n) || fclose(fp)) {
        perror("fuzz: writing the input file");
        abort();
    }
    return path;
}

const char *xc_fuzz_input(const char *name, const uint8_t *data, size_t size)
{
    return xc_fuzz_write(xc_fuzz_path(name), data, size);
}

char *xc_fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

uint64_t xc_fuzz_size(const char *path)
{
    struct stat sb;
    if (stat(path, &sb)) {
        perror("fuzz: stat");
        abort();
    }
    return (uint64_t)sb.st_size;
}

void xc_fuzz_slurp(const char *path, uint8_t **out, size_t *n)
{
    uint64_t size = xc_fuzz_size(path);
    FILE *fp = fopen(path, "rb");
    uint8_t *b = malloc(size ? size : 1);
    if (!fp || !b || fread(b, 1, size, fp) != size) {
        perror("fuzz: reading a file back");
        abort();
    }
    fclose(fp);
    *out = b;
    *n = size;
}

void xc_fuzz_remove(const char *name)
{
    unlink(xc_fuzz_path(name));
}

void xc_fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz property failed: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    abort();
}

int xc_fuzz_same(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}
