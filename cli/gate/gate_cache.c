/* crosscheck gate's cache of what a case starts from (gate.h): with
 * CROSSCHECK_GATE_CACHE=DIR, a case's synthetic input and the reference's
 * output are kept in DIR once made, and later runs of the same crosscheck
 * binary, convention and case copy them from there instead of making them
 * again (the same bytes: synthesis and the reference are deterministic).
 * For running the gate many times in a row, as the test suite does; never
 * part of a verdict: an entry that cannot be read or written is made afresh.
 * An entry is a folder DIR/<key>/ written whole (into a temporary folder,
 * then renamed), so a reader sees all of it or none of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/gate/gate.h"
#include "core/base/xc_fs.h"

int gate_cache_key(const char *what, const char *name, const xc_convention *cv, char *dir, size_t n)
{
    const char *root = getenv("CROSSCHECK_GATE_CACHE");
    struct stat sb;
    if (!root || !*root || stat("/proc/self/exe", &sb) != 0)
        return 0;
    /* the binary by its file (another build is another key), the convention
     * by its values as well as its name */
    int len = snprintf(dir, n, "%s/%s-%s-%s-%.17g-%d-%d-%d-%llx-%llx-%llx-%lld.%09ld", root, what, name, cv->name, cv->kdm,
                       (int)cv->rounding, (int)cv->precision, (int)cv->scaling, (unsigned long long)sb.st_dev,
                       (unsigned long long)sb.st_ino, (unsigned long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
                       sb.st_mtim.tv_nsec);
    return len > 0 && (size_t)len < n;
}

/* Copies the file from to to (created or truncated); 0 on success. */
static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return -1;
    FILE *out = fopen(to, "wb");
    int bad = !out;
    char buf[1 << 16];
    size_t r;
    while (!bad && (r = fread(buf, 1, sizeof buf, in)) > 0)
        bad = fwrite(buf, 1, r, out) != r;
    bad |= ferror(in);
    fclose(in);
    if (out)
        bad |= fclose(out) != 0;
    return bad ? -1 : 0;
}

/* Copies files[0..n) from folder src into folder dst; 0 when all were. */
static int copy_files(const char *src, const char *dst, const char *const *files, size_t n)
{
    char a[GATE_PATH], b[GATE_PATH];
    for (size_t i = 0; i < n; i++) {
        xc_error e;
        if (xc_pathf(a, sizeof a, &e, "%s/%s", src, files[i]) || xc_pathf(b, sizeof b, &e, "%s/%s", dst, files[i]) ||
            copy_file(a, b))
            return -1;
    }
    return 0;
}

int gate_cache_get(const char *dir, const char *const *files, size_t n, const char *dest)
{
    struct stat sb;
    return stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) && copy_files(dir, dest, files, n) == 0;
}

void gate_cache_put(const char *dir, const char *const *files, size_t n, const char *src)
{
    char tmp[GATE_PATH];
    xc_error e;
    if (xc_pathf(tmp, sizeof tmp, &e, "%s.tmp%ld", dir, (long)getpid()) || xc_mkdirs(tmp, &e))
        return;
    /* a rename onto an entry another run wrote first fails: that one stays */
    if (copy_files(src, tmp, files, n) || rename(tmp, dir) != 0)
        xc_rmtree(tmp, &e);
}
