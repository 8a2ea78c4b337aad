/* cli_vdtable.c: the verdict table's layout (cli_verdict.h): fixed columns
 * that fit XC_VD_WIDTH, each cell cut to its column with "...", and a failed
 * row's whole message and rule on indented lines under it.  The report, the
 * JSON and JUnit keep every row's full text. */
#include "cli/base/cli_vdtable.h"

#include <string.h>

/* Columns: the verdict, the implementation (the longest built-in name,
 * "tree-padded-reference", is 21), the check, the measurement. */
enum { COL_STATE = 4, COL_IMPL = 21, COL_CHECK_IMPL = 44, COL_CHECK = 52 };

/* The display width of UTF-8 text: its characters (no wide ones in our messages). */
static size_t ucols(const char *s, size_t nbytes)
{
    size_t n = 0;
    for (size_t i = 0; i < nbytes && s[i]; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* The byte length of s's first w characters. */
static size_t ubytes(const char *s, size_t w)
{
    size_t i = 0, n = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80 && n++ == w)
            break;
    }
    return i;
}

size_t xc_vd_fit(char *dst, size_t cap, const char *src, size_t w, int pad)
{
    size_t len = strlen(src), o = 0;
    size_t cols = ucols(src, len);
    size_t take = cols <= w ? len : ubytes(src, w >= 3 ? w - 3 : 0);
    if (take + 4 + w > cap)   /* cap is the caller's bug; stay inside it */
        take = 0;
    memcpy(dst, src, take);
    o = take;
    if (cols > w)
        for (size_t k = 0; k < 3 && k < w; k++)
            dst[o++] = '.';
    size_t shown = cols > w ? w : cols;
    while (pad && shown < w && o + 1 < cap) {
        dst[o++] = ' ';
        shown++;
    }
    dst[o] = 0;
    return o;
}

void xc_vd_row_line(char *buf, size_t n, const xc_check_row *r, int with_impl)
{
    size_t o = 0;
    int wcheck = with_impl ? COL_CHECK_IMPL : COL_CHECK;
    size_t wmeas = XC_VD_WIDTH - COL_STATE - 1 - (size_t)wcheck - 1 - (with_impl ? COL_IMPL + 1 : 0);
    if (n < XC_VD_WIDTH * 4 + 8) {   /* room for every cell's bytes (UTF-8: up to 4 a column) */
        if (n)
            buf[0] = 0;
        return;
    }
    o += xc_vd_fit(buf + o, n - o, xc_check_state_name(r->state), COL_STATE, 1);
    buf[o++] = ' ';
    if (with_impl) {
        o += xc_vd_fit(buf + o, n - o, r->impl, COL_IMPL, 1);
        buf[o++] = ' ';
    }
    o += xc_vd_fit(buf + o, n - o, r->check, (size_t)wcheck, 1);
    buf[o++] = ' ';
    o += xc_vd_fit(buf + o, n - o, r->measured, wmeas, 0);
    while (o > 0 && buf[o - 1] == ' ')
        o--;
    buf[o] = 0;
}

void xc_vd_header_line(char *buf, size_t n, int with_impl)
{
    xc_check_row h;
    memset(&h, 0, sizeof h);
    snprintf(h.impl, sizeof h.impl, "impl");
    snprintf(h.check, sizeof h.check, "check");
    snprintf(h.measured, sizeof h.measured, "measured");
    xc_vd_row_line(buf, n, &h, with_impl);
    memcpy(buf, "    ", 4);   /* the verdict column has no heading */
}

/* Writes "label text" wrapped at XC_VD_WIDTH on spaces, continuation lines
 * indented as the first; a word longer than a line is cut. */
static void wrapped(FILE *fp, const char *label, const char *text)
{
    const size_t indent = 6, width = XC_VD_WIDTH;
    size_t col = (size_t)fprintf(fp, "%*s%s", (int)indent, "", label);
    const char *s = text;
    while (*s) {
        while (*s == ' ')
            s++;
        size_t wl = strcspn(s, " ");
        if (!wl)
            break;
        size_t wc = ucols(s, wl);
        if (col > indent + strlen(label) && col + 1 + wc > width) {
            fprintf(fp, "\n%*s", (int)(indent + strlen(label)), "");
            col = indent + strlen(label);
        } else if (col > indent + strlen(label)) {
            fputc(' ', fp);
            col++;
        }
        if (col + wc > width) {   /* a word too long for any line */
            size_t room = width - col;
            fwrite(s, 1, ubytes(s, room), fp);
            s += ubytes(s, room);
            col = width;
            continue;
        }
        fwrite(s, 1, wl, fp);
        col += wc;
        s += wl;
    }
    fputc('\n', fp);
}

void xc_vd_print_row(FILE *fp, const xc_check_row *r, int with_impl)
{
    char line[XC_VD_WIDTH * 4 + 16];
    xc_vd_row_line(line, sizeof line, r, with_impl);
    fprintf(fp, "%s\n", line);
    if (r->state != XC_CHECK_FAIL)
        return;
    wrapped(fp, "measured: ", r->measured);
    if (r->bound[0] && strcmp(r->bound, "-"))
        wrapped(fp, "bound:    ", r->bound);
}

void xc_vd_print_header(FILE *fp, int with_impl)
{
    char line[XC_VD_WIDTH * 4 + 16];
    xc_vd_header_line(line, sizeof line, with_impl);
    fprintf(fp, "%s\n", line);
}
