/* cli_vdtable.h: the verdict table's layout (cli/base/cli_vdtable.c), what the
 * verdict (cli/base/cli_verdict.h) prints its rows with. */
#ifndef XC_CLI_VDTABLE_H
#define XC_CLI_VDTABLE_H

#include <stddef.h>
#include <stdio.h>

#include "compare/check/xc_checks.h"

/* Every line of the table fits this many columns. */
#define XC_VD_WIDTH 120

/* A row is one line of at most XC_VD_WIDTH columns, every cell cut to its
 * column with "..."; a failed row is followed by its whole message and its
 * bound, wrapped on indented lines.  The full text of every row is in the
 * report, the JSON and JUnit. */
void xc_vd_print_header(FILE *fp, int with_impl);
void xc_vd_print_row(FILE *fp, const xc_check_row *r, int with_impl);
/* The row's line (no newline) into buf (at least 4 * XC_VD_WIDTH + 8 bytes). */
void xc_vd_row_line(char *buf, size_t n, const xc_check_row *r, int with_impl);
void xc_vd_header_line(char *buf, size_t n, int with_impl);
/* src cut to w characters ("..." ending a cut), padded with spaces to w
 * when pad; returns the bytes written to dst (cap bytes at most). */
size_t xc_vd_fit(char *dst, size_t cap, const char *src, size_t w, int pad);

#endif
