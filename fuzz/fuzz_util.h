/* fuzz_util.h: what the fuzz targets (fuzz/fuzz_<reader>.c) share.
 *
 * Each target defines LLVMFuzzerTestOneInput.  It is linked two ways:
 *   - with libFuzzer under ASan + UBSan (`make fuzz`, clang), and
 *   - with fuzz/fuzz_main.c and the ordinary library (gcc), a driver that
 *     feeds it every file it is given: `make test` replays the seed corpora
 *     and datasets/fuzz-findings this way (tests/test_fuzz.c).
 *
 * Most readers take a path, so the input is written to a file in a private
 * directory made once per process (mkdtemp under TMPDIR, removed at exit)
 * and rewritten on every call.  A property that does not hold calls
 * xc_fuzz_fail, which prints the reason and aborts, so libFuzzer keeps the
 * input as a crash and the replay driver's exit status is non-zero. */
#ifndef XC_FUZZ_UTIL_H
#define XC_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The path of `name` inside this process's private directory (a static
 * buffer, one of eight used in turn: copy it to keep it longer). */
const char *xc_fuzz_path(const char *name);
/* Writes n bytes to path (replacing it); returns path.  An I/O failure aborts
 * (it is the harness's, not the reader's). */
const char *xc_fuzz_write(const char *path, const void *data, size_t n);
/* Writes the input to the private file `name` and returns its path. */
const char *xc_fuzz_input(const char *name, const uint8_t *data, size_t size);
/* The input as a NUL-terminated string (a fresh copy; the caller frees). */
char *xc_fuzz_cstr(const uint8_t *data, size_t size);
/* Size of a file in bytes (aborts if it cannot be found). */
uint64_t xc_fuzz_size(const char *path);
/* Reads a whole file (the caller frees *out; aborts on failure). */
void xc_fuzz_slurp(const char *path, uint8_t **out, size_t *n);
/* Removes the private file `name` if it exists. */
void xc_fuzz_remove(const char *name);

/* A property failed: prints "fuzz property failed: <message>" and aborts. */
void xc_fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define XC_FUZZ_CHECK(cond, ...) \
    do { \
        if (!(cond)) \
            xc_fuzz_fail(__VA_ARGS__); \
    } while (0)

/* Two doubles are the same value (NaN equals NaN; 0 and -0 differ). */
int xc_fuzz_same(double a, double b);

#endif
