/* fuzz_npy.c: the NumPy .npy reader (xc_npy_read_f32) and writer.
 *
 * Properties of an accepted file:
 *  - the sizes fit the file: header + rows * cols * 4 bytes is exactly its size;
 *  - no dimension is a negative number wrapped round (each below 2^63);
 *  - the values are the file's bytes after the header;
 *  - write-then-read is the identity: the writer's file reads back with the
 *    same shape and the same bits. */
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_npy.h"
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = xc_fuzz_input("in.npy", data, size);
    float *v, *w;
    size_t rows, cols, r2, c2;
    xc_error e;
    if (xc_npy_read_f32(path, &v, &rows, &cols, &e) != XC_OK) {
        XC_FUZZ_CHECK(v == NULL, "npy: refused, but data left allocated");
        return 0;
    }
    XC_FUZZ_CHECK(cols == 0 || rows <= size / 4 / cols, "npy: shape (%zu, %zu) accepted from %zu bytes", rows, cols,
                  size);
    XC_FUZZ_CHECK(rows < (size_t)1 << 63 && cols < (size_t)1 << 63, "npy: shape (%zu, %zu) accepted", rows, cols);
    size_t bytes = rows * cols * 4;
    XC_FUZZ_CHECK(bytes < size, "npy: shape (%zu, %zu) leaves no room for a header in %zu bytes", rows, cols, size);
    XC_FUZZ_CHECK(!bytes || !memcmp(v, data + (size - bytes), bytes), "npy: values are not the bytes after the header");
    const char *out = xc_fuzz_path("out.npy");
    XC_FUZZ_CHECK(xc_npy_write_f32(out, v, rows, cols, &e) == XC_OK, "npy: the writer refuses shape (%zu, %zu): %s",
                  rows, cols, e.msg);
    XC_FUZZ_CHECK(xc_npy_read_f32(out, &w, &r2, &c2, &e) == XC_OK, "npy: the writer's file does not read: %s", e.msg);
    XC_FUZZ_CHECK(r2 == rows && c2 == cols, "npy: shape (%zu, %zu) reads back as (%zu, %zu)", rows, cols, r2, c2);
    XC_FUZZ_CHECK(!bytes || !memcmp(v, w, bytes), "npy: values change in write-then-read");
    free(v);
    free(w);
    return 0;
}
