/* xc_fmt.h: snprintf for text that may be cut (labels, JSON paths in
 * messages, table cells).  Through a va_list, so that GCC's
 * -Wformat-truncation, which -Werror would make fatal, does not flag the
 * cuts these callers accept. */
#ifndef XC_FMT_H
#define XC_FMT_H

#include <stddef.h>

void xc_fmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A size in bytes for people: "20.5 KiB", "812.0 MiB", "4.80 GiB". */
void xc_fmt_bytes(char *buf, size_t n, double bytes);

#endif
