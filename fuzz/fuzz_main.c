/* fuzz_main.c: a driver for builds without libFuzzer.  Every file named on
 * the command line, and every regular file of every directory named, is fed
 * once to LLVMFuzzerTestOneInput; so `make test` replays the seed corpora and
 * the inputs that once failed with the targets' properties checked, using the
 * ordinary compiler.  Prints how many inputs it ran; a property failure or a
 * crash ends the process with a non-zero status (abort). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/fuzz_util.h"

static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    for (size_t got; b && (got = fread(b + n, 1, cap - n, fp)) > 0;) {
        n += got;
        if (n == cap) {
            unsigned char *nb = realloc(b, cap *= 2);
            if (!nb)
                free(b);
            b = nb;
        }
    }
    fclose(fp);
    if (!b) {
        fprintf(stderr, "%s: out of memory\n", path);
        return -1;
    }
    /* a private copy of exactly n bytes, as libFuzzer gives, so ASan sees overreads */
    unsigned char *in = malloc(n ? n : 1);
    if (!in) {
        free(b);
        return -1;
    }
    memcpy(in, b, n);
    free(b);
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    long count = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb)) {
            fprintf(stderr, "%s: not found\n", argv[i]);
            bad++;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            bad += run_file(argv[i]) != 0;
            count++;
            continue;
        }
        /* a directory: its regular files in name order */
        DIR *d = opendir(argv[i]);
        if (!d) {
            bad++;
            continue;
        }
        char **names = NULL;
        size_t nn = 0, cap = 0;
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            if (nn == cap) {
                char **t = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
                if (!t)
                    abort();
                names = t;
            }
            names[nn++] = strdup(e->d_name);
        }
        closedir(d);
        if (nn)
            qsort(names, nn, sizeof *names, cmp_names);
        for (size_t k = 0; k < nn; k++) {
            char p[8192];
            snprintf(p, sizeof p, "%s/%s", argv[i], names[k]);
            if (!stat(p, &sb) && S_ISREG(sb.st_mode)) {
                bad += run_file(p) != 0;
                count++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("%s: %ld inputs replayed, %ld unreadable\n", argv[0], count, bad);
    return bad ? 1 : 0;
}
