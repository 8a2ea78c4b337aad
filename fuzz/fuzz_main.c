/* fuzz_main.c: a driver for builds without libFuzzer.  Every file named on
 * the command line, and every regular file of every directory named, is fed
 * once to LLVMFuzzerTestOneInput; so `make test` replays the seed corpora and
 * the inputs that once failed with the targets' properties checked, using the
 * ordinary compiler.  Prints how many inputs it ran; a property failure or a
 * crash ends the process with a non-zero status (abort).
 *
 * With XC_FUZZ_MUTATE=SECONDS it then mutates those inputs for that long
 * (no coverage feedback, unlike libFuzzer: random byte flips, interesting
 * values, insertions, deletions, copies within and across inputs, and digit
 * edits for the text formats; XC_FUZZ_SEED, default 1, fixes the sequence;
 * inputs at most XC_FUZZ_MAXLEN bytes, default 65536).  So every target gets
 * a brief random run in `make test` (CI) without clang.  An input that
 * crashes, fails a property or runs longer than 20 s is written to
 * XC_FUZZ_CRASH_DIR (default .) as crash-<target>-<pid> before the process
 * dies, so the failure can be replayed and kept in datasets/fuzz-findings
 * (XC_FUZZ_SELFTEST=1 plants a failure at the first mutated input, for the
 * test of this driver). */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/fuzz_util.h"

/* The inputs read, for the mutation run. */
static unsigned char **seeds;
static size_t *seedlen, nseeds, seedcap;

static void keep_seed(const unsigned char *b, size_t n)
{
    if (nseeds == seedcap) {
        size_t cap = seedcap ? 2 * seedcap : 64;
        unsigned char **s2 = realloc(seeds, cap * sizeof *s2);
        size_t *l2 = realloc(seedlen, cap * sizeof *l2);
        if (!s2 || !l2)
            abort();
        seeds = s2;
        seedlen = l2;
        seedcap = cap;
    }
    unsigned char *c = malloc(n ? n : 1);
    if (!c)
        abort();
    memcpy(c, b, n);
    seeds[nseeds] = c;
    seedlen[nseeds++] = n;
}

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
    keep_seed(in, n);
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    return 0;
}

/* ---- the mutation run ------------------------------------------------------ */

static uint64_t rng_state = 1;
static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* What the crash handler writes (set before each run). */
static const unsigned char *volatile cur;
static volatile size_t curlen;
static char crash_path[4096];

static void on_fatal(int sig)
{
    int fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        size_t off = 0;
        while (off < curlen) {
            ssize_t w = write(fd, cur + off, curlen - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        close(fd);
    }
    static const char msg[] = "fuzz: the input that failed is in ";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    ignored = write(2, crash_path, strlen(crash_path));
    ignored = write(2, "\n", 1);
    (void)ignored;
    signal(sig == SIGALRM ? SIGABRT : sig, SIG_DFL);
    raise(sig == SIGALRM ? SIGABRT : sig);
}

static size_t mutate(unsigned char *b, size_t n, size_t maxlen)
{
    static const unsigned char interesting[] = {0, 1, 0x7f, 0x80, 0xff, 0xfe, '-', '9', 'e', '.', '"', '{', '[', ','};
    int k = 1 + (int)below(4);
    for (int m = 0; m < k; m++) {
        switch (below(8)) {
        case 0:   /* flip a bit */
            if (n)
                b[below(n)] ^= (unsigned char)(1u << below(8));
            break;
        case 1:   /* an interesting byte */
            if (n)
                b[below(n)] = interesting[below(sizeof interesting)];
            break;
        case 2: { /* insert random bytes */
            size_t add = 1 + below(8), at = below(n + 1);
            if (n + add > maxlen)
                break;
            memmove(b + at + add, b + at, n - at);
            for (size_t i = 0; i < add; i++)
                b[at + i] = (unsigned char)rnd();
            n += add;
            break;
        }
        case 3: { /* delete a range */
            if (!n)
                break;
            size_t at = below(n), len = 1 + below(n - at < 16 ? n - at : 16);
            memmove(b + at, b + at + len, n - at - len);
            n -= len;
            break;
        }
        case 4: { /* copy a range within the input over another place */
            if (n < 2)
                break;
            size_t from = below(n), to = below(n), len = 1 + below(32);
            if (from + len > n)
                len = n - from;
            if (to + len > n)
                len = n - to;
            memmove(b + to, b + from, len);
            break;
        }
        case 5: { /* splice: the head of this input, the tail of another */
            size_t j = below(nseeds), at = below(n + 1), from = below(seedlen[j] + 1);
            size_t tail = seedlen[j] - from;
            if (at + tail > maxlen)
                tail = maxlen - at;
            memcpy(b + at, seeds[j] + from, tail);
            n = at + tail;
            break;
        }
        case 6: { /* a digit of a number in a text format: another digit, or many */
            if (!n)
                break;
            size_t at = below(n);
            for (size_t t = 0; t < n && !(b[at] >= '0' && b[at] <= '9'); t++)
                at = (at + 1) % n;
            if (b[at] >= '0' && b[at] <= '9') {
                if (below(4) == 0 && n + 12 <= maxlen) {
                    memmove(b + at + 12, b + at, n - at);
                    memcpy(b + at, "999999999999", 12);
                    n += 12;
                } else {
                    b[at] = (unsigned char)('0' + below(10));
                }
            }
            break;
        }
        default:  /* a random byte */
            if (n)
                b[below(n)] = (unsigned char)rnd();
            break;
        }
    }
    return n;
}

static void mutation_run(const char *argv0, double seconds)
{
    const char *s = getenv("XC_FUZZ_SEED"), *ml = getenv("XC_FUZZ_MAXLEN"), *cd = getenv("XC_FUZZ_CRASH_DIR");
    rng_state = s && *s ? strtoull(s, NULL, 10) | 1 : 1;
    size_t maxlen = ml && *ml ? strtoull(ml, NULL, 10) : 65536;
    const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
    snprintf(crash_path, sizeof crash_path, "%s/crash-%s-%ld", cd && *cd ? cd : ".", base, (long)getpid());
    signal(SIGSEGV, on_fatal);
    signal(SIGBUS, on_fatal);
    signal(SIGFPE, on_fatal);
    signal(SIGILL, on_fatal);
    signal(SIGABRT, on_fatal);
    signal(SIGALRM, on_fatal);
    if (!nseeds)
        keep_seed((const unsigned char *)"", 0);
    unsigned char *buf = malloc(maxlen + 64);
    if (!buf)
        abort();
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long runs = 0;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) >= seconds)
            break;
        size_t j = below(nseeds), n = seedlen[j] < maxlen ? seedlen[j] : maxlen;
        memcpy(buf, seeds[j], n);
        n = mutate(buf, n, maxlen);
        /* a private copy of exactly n bytes, so ASan sees overreads */
        unsigned char *in = malloc(n ? n : 1);
        if (!in)
            abort();
        memcpy(in, buf, n);
        cur = in;
        curlen = n;
        alarm(20);
        LLVMFuzzerTestOneInput(in, n);
        alarm(0);
        /* the test of this driver: a failure planted at the first mutated input */
        if (getenv("XC_FUZZ_SELFTEST"))
            abort();
        cur = NULL;
        curlen = 0;
        free(in);
        runs++;
    }
    free(buf);
    printf("%s: %ld mutated inputs in %.1f s (seed %llu), properties held\n", argv0, runs, seconds,
           (unsigned long long)(s && *s ? strtoull(s, NULL, 10) : 1));
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
    const char *mu = getenv("XC_FUZZ_MUTATE");
    if (!bad && mu && *mu && atof(mu) > 0)
        mutation_run(argv[0], atof(mu));
    for (size_t i = 0; i < nseeds; i++)
        free(seeds[i]);
    free(seeds);
    free(seedlen);
    return bad ? 1 : 0;
}
