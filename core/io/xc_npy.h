/* xc_npy.h: NumPy .npy version 1.0 files (little-endian float32, C order),
 * the layout numpy.load reads without options. */
#ifndef XC_NPY_H
#define XC_NPY_H

#include <stddef.h>
#include <stdio.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the header of a 2-D float32 array [rows][cols]; the total header is
 * padded to a multiple of 64 bytes.  *hdr_bytes gets the data offset. */
xc_status xc_npy_write_header(FILE *fp, size_t rows, size_t cols, size_t *hdr_bytes,
                              const char *path, xc_error *err);
/* Writes a whole 2-D float32 array atomically. */
xc_status xc_npy_write_f32(const char *path, const float *data, size_t rows, size_t cols,
                           xc_error *err);
/* Reads a 1-D or 2-D '<f4' C-order array (1-D gives rows = 1); caller frees *data. */
xc_status xc_npy_read_f32(const char *path, float **data, size_t *rows, size_t *cols,
                          xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
