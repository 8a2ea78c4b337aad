/* fuzz_dat.c: the PRESTO .dat (float32 series) and .fft (packed complex
 * spectrum) readers, xc_dat_read and xc_fft_read, with their writers.
 *
 * Properties of an accepted file:
 *  - the sizes fit the file: n * 4 bytes is exactly the file's size (.fft:
 *    a whole, non-zero number of 8-byte complex pairs);
 *  - write-then-read is the identity: the values written read back bit for
 *    bit and the file written has the input's bytes. */
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_fft.h"
#include "core/io/xc_presto.h"
#include "fuzz/fuzz_util.h"

static void check_copy(const char *what, const uint8_t *data, size_t size, const float *v, size_t n,
                       const char *written)
{
    XC_FUZZ_CHECK(n * sizeof(float) == size, "%s: %zu values accepted from %zu bytes", what, n, size);
    XC_FUZZ_CHECK(!n || !memcmp(v, data, size), "%s: the values read are not the file's bytes", what);
    uint8_t *b;
    size_t nb;
    xc_fuzz_slurp(written, &b, &nb);
    XC_FUZZ_CHECK(nb == size && (!size || !memcmp(b, data, size)), "%s: write-then-read changed the bytes", what);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_error e;
    float *v, *w;
    size_t n, m;
    const char *path = xc_fuzz_input("in.dat", data, size);
    if (xc_dat_read(path, &v, &n, &e) == XC_OK) {
        const char *out = xc_fuzz_path("out.dat");
        XC_FUZZ_CHECK(xc_dat_write(out, v, n, &e) == XC_OK, "dat: write failed: %s", e.msg);
        check_copy("dat", data, size, v, n, out);
        XC_FUZZ_CHECK(xc_dat_read(out, &w, &m, &e) == XC_OK && m == n && (!n || !memcmp(v, w, n * sizeof *v)),
                      "dat: what was written does not read back the same");
        free(w);
        free(v);
    }
    path = xc_fuzz_input("in.fft", data, size);
    if (xc_fft_read(path, &v, &n, &e) == XC_OK) {
        XC_FUZZ_CHECK(n >= 2 && n % 2 == 0, "fft: %zu floats accepted (pairs must be whole)", n);
        const char *out = xc_fuzz_path("out.fft");
        XC_FUZZ_CHECK(xc_fft_write(out, v, n, &e) == XC_OK, "fft: write failed: %s", e.msg);
        check_copy("fft", data, size, v, n, out);
        XC_FUZZ_CHECK(xc_fft_read(out, &w, &m, &e) == XC_OK && m == n && !memcmp(v, w, n * sizeof *v),
                      "fft: what was written does not read back the same");
        free(w);
        free(v);
    }
    return 0;
}
