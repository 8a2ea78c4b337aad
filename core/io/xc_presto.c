/* xc_presto.c: PRESTO .inf text and .dat float32 series.
 * The line table mirrors src/ioinf.c writeinf (radio band): label, format,
 * and whether "None (Artificial Data Set)" leaves the line out.  Reading goes
 * by label rather than by position, so both layouts come out of one table. */
#include "core/io/xc_presto.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/xc_atomic.h"

#define XC_INF_ARTIFICIAL "None (Artificial Data Set)"
#define XC_INF_NOTES "Any additional notes:"
#define XC_INF_PAIR "On/Off bin pair #"
/* '=' sits at this byte of a standard line; the value starts two bytes later. */
#define XC_INF_EQ 40

typedef enum { IT_STR, IT_DOUBLE, IT_INT, IT_MJD } itype;

typedef struct {
    const char *label;
    itype type;
    size_t offset;
    size_t size;        /* buffer size for strings */
    const char *fmt;    /* printf format for numbers */
    int observation;    /* left out for artificial data (PRESTO makedata) */
    int required;
} infline;

#define O(f) offsetof(xc_inf, f), sizeof(((xc_inf *)0)->f)
static const infline inftab[] = {
    {"Data file name without suffix", IT_STR, O(name), NULL, 0, 1},
    {"Telescope used", IT_STR, O(telescope), NULL, 0, 1},
    {"Instrument used", IT_STR, O(instrument), NULL, 1, 0},
    {"Object being observed", IT_STR, O(object), NULL, 1, 0},
    {"J2000 Right Ascension (hh:mm:ss.ssss)", IT_STR, O(ra), NULL, 1, 0},
    {"J2000 Declination     (dd:mm:ss.ssss)", IT_STR, O(dec), NULL, 1, 0},
    {"Data observed by", IT_STR, O(observer), NULL, 1, 0},
    {"Epoch of observation (MJD)", IT_MJD, O(mjd), NULL, 1, 0},
    {"Barycentered?           (1 yes, 0 no)", IT_INT, O(barycentered), "%d", 1, 0},
    {"Number of bins in the time series", IT_DOUBLE, O(n), "%-11.0f", 0, 1},
    {"Width of each time series bin (sec)", IT_DOUBLE, O(dt), "%.15g", 0, 1},
    {"Any breaks in the data? (1 yes, 0 no)", IT_INT, O(breaks), "%d", 0, 0},
    {"Type of observation (EM band)", IT_STR, O(band), NULL, 1, 0},
    {"Beam diameter (arcsec)", IT_DOUBLE, O(beam_diam), "%.0f", 1, 0},
    {"Dispersion measure (cm-3 pc)", IT_DOUBLE, O(dm), "%.12g", 1, 0},
    {"Central freq of low channel (MHz)", IT_DOUBLE, O(freq_low), "%.12g", 1, 0},
    {"Total bandwidth (MHz)", IT_DOUBLE, O(bw), "%.12g", 1, 0},
    {"Number of channels", IT_INT, O(nchan), "%d", 1, 0},
    {"Channel bandwidth (MHz)", IT_DOUBLE, O(chan_wid), "%.12g", 1, 0},
    {"Data analyzed by", IT_STR, O(analyzer), NULL, 0, 0},
};
#undef O
#define NINF (sizeof inftab / sizeof inftab[0])
#define BREAKS_LINE 11   /* inftab's "Any breaks in the data?" */

void xc_inf_init(xc_inf *inf)
{
    memset(inf, 0, sizeof *inf);
    strcpy(inf->telescope, "Unknown");
    strcpy(inf->instrument, "Unknown");
    strcpy(inf->object, "Unknown");
    strcpy(inf->ra, "00:00:00.0000");
    strcpy(inf->dec, "00:00:00.0000");
    strcpy(inf->observer, "Unknown");
    strcpy(inf->band, "Radio");
    strcpy(inf->analyzer, "crosscheck");
}

/* Compares labels ignoring how many blanks separate words, as hand-edited
 * files differ there. */
static int label_eq(const char *a, const char *b)
{
    for (;;) {
        while (*a == ' ' && a[1] == ' ')
            a++;
        while (*b == ' ' && b[1] == ' ')
            b++;
        if (*a != *b)
            return 0;
        if (!*a)
            return 1;
        a++;
        b++;
    }
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Splits a line into label and value the way PRESTO's read_inf_line_valstr
 * does: the value follows byte 41 when '=' is at byte 40, else the last '='. */
static int split_line(char *line, char **label, char **value)
{
    size_t n = strlen(line);
    char *eq = (n > XC_INF_EQ && line[XC_INF_EQ] == '=') ? line + XC_INF_EQ : strrchr(line, '=');
    if (!eq)
        return -1;
    *eq = '\0';
    *label = trim(line);
    *value = trim(eq + 1);
    return 0;
}

static xc_status store(xc_inf *inf, const infline *L, const char *v, const char *path, int lineno,
                       xc_error *err)
{
    char *base = (char *)inf;
    char *end = NULL;
    if (L->type == IT_STR) {
        /* PRESTO turns an empty value into "Unknown". */
        const char *s = *v ? v : "Unknown";
        if (strlen(s) >= L->size)
            return xc_error_set(err, XC_EFORMAT, "%s: line %d: %s: '%s' is longer than %zu bytes",
                                path, lineno, L->label, s, L->size - 1);
        memcpy(base + L->offset, s, strlen(s) + 1);
        return XC_OK;
    }
    errno = 0;
    if (L->type == IT_INT) {
        long x = strtol(v, &end, 10);
        if (end == v || *end || errno || x < -2147483647L || x > 2147483647L)
            return xc_error_set(err, XC_EFORMAT, "%s: line %d: %s: '%s' is not an integer", path,
                                lineno, L->label, v);
        int i = (int)x;
        memcpy(base + L->offset, &i, sizeof i);
        return XC_OK;
    }
    double d = strtod(v, &end);
    if (end == v || *end || !isfinite(d))
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: %s: '%s' is not a number", path,
                            lineno, L->label, v);
    memcpy(base + L->offset, &d, sizeof d);
    return XC_OK;
}

/* Notes are what writeinf's "    %s\n\n" wrapped: undo exactly that, so a
 * read-write round trip gives the same bytes. */
static xc_status read_notes(xc_inf *inf, FILE *fp, const char *path, xc_error *err)
{
    char buf[sizeof inf->notes + 8];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    if (ferror(fp))
        return xc_error_set(err, XC_EIO, "%s: read failed: %s", path, strerror(errno));
    buf[n] = '\0';
    if (fgetc(fp) != EOF || strlen(buf) != n)
        return xc_error_set(err, XC_EFORMAT,
                            "%s: notes: longer than %zu bytes or not text", path,
                            sizeof inf->notes - 1);
    char *s = buf;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    if (len >= 2 && s[len - 1] == '\n' && s[len - 2] == '\n')
        s[len -= 2] = '\0';
    else
        while (len && s[len - 1] == '\n')
            s[--len] = '\0';
    if (len >= sizeof inf->notes)
        return xc_error_set(err, XC_EFORMAT, "%s: notes: %zu bytes, more than %zu", path, len,
                            sizeof inf->notes - 1);
    memcpy(inf->notes, s, len + 1);
    return XC_OK;
}

/* One " On/Off bin pair #%3d = %-11.0f, %-11.0f" line (writeinf); read
 * as readinf's sscanf "%lf %*[ ,] %lf", the pair number checked too. */
static xc_status read_pair(xc_inf *inf, const char *label, const char *value, const char *path,
                           int lineno, xc_error *err)
{
    char *end;
    long k = strtol(label + strlen(XC_INF_PAIR), &end, 10);
    if (inf->breaks != 1)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: %s: an on/off pair where '%s' is not 1 above it",
                            path, lineno, label, inftab[BREAKS_LINE].label);
    if (*end || k != inf->numonoff + 1)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: '%s': expected pair #%d", path, lineno, label,
                            inf->numonoff + 1);
    if (inf->numonoff + 1 >= XC_INF_MAXONOFF)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: %s: PRESTO reads fewer than %d on/off pairs",
                            path, lineno, label, XC_INF_MAXONOFF);
    double on, off;
    char sep[8];
    int used = 0;
    if (sscanf(value, "%lf %7[ ,] %lf%n", &on, sep, &off, &used) != 3 || value[used] ||
        !(on >= 0 && on == floor(on) && off == floor(off) && on <= 9007199254740992.0 &&
          off <= 9007199254740992.0))
        return xc_error_set(err, XC_EFORMAT, "%s: line %d: %s: '%s' is not two bin numbers 'on, off'", path,
                            lineno, label, value);
    inf->onoff[2 * inf->numonoff] = on;
    inf->onoff[2 * inf->numonoff + 1] = off;
    inf->numonoff++;
    return XC_OK;
}

/* The pairs as readinf needs them: in order, inside 0..N-1, the last one
 * ending at N-1 (readinf reads pairs until one does). */
static xc_status check_onoff(const xc_inf *inf, const char *path, xc_status code, xc_error *err)
{
    if (inf->breaks != 0 && inf->breaks != 1)
        return xc_error_set(err, code, "%s: %s: %d is neither 0 nor 1", path, inftab[BREAKS_LINE].label,
                            inf->breaks);
    if (!inf->breaks)
        return XC_OK;
    if (inf->numonoff < 1 || inf->numonoff >= XC_INF_MAXONOFF)
        return xc_error_set(err, code, "%s: %s: 1 needs 1 to %d On/Off bin pair lines, %d given", path,
                            inftab[BREAKS_LINE].label, XC_INF_MAXONOFF - 1, inf->numonoff);
    double prev = 0;
    for (int k = 0; k < inf->numonoff; k++) {
        double on = inf->onoff[2 * k], off = inf->onoff[2 * k + 1];
        if (!(on >= prev && off >= on && off <= inf->n - 1))
            return xc_error_set(err, code,
                                "%s: On/Off bin pair #%d: %.0f, %.0f is not in order inside 0..N-1 = %.0f "
                                "(previous off %.0f)", path, k + 1, on, off, inf->n - 1, prev);
        prev = off;
    }
    if (prev != inf->n - 1)
        return xc_error_set(err, code, "%s: On/Off bin pair #%d: ends at %.0f, not at N-1 = %.0f", path,
                            inf->numonoff, prev, inf->n - 1);
    return XC_OK;
}

double xc_inf_data_bins(const xc_inf *inf)
{
    if (!inf->breaks)
        return inf->n;
    double sum = 0;
    for (int k = 0; k < inf->numonoff; k++)
        sum += inf->onoff[2 * k + 1] - inf->onoff[2 * k] + 1;
    /* a last pair (N-1, N-1) after padding marks the end, not a datum */
    int k = inf->numonoff - 1;
    if (k > 0 && inf->onoff[2 * k] == inf->onoff[2 * k + 1] && inf->onoff[2 * k] > inf->onoff[2 * k - 1] + 1)
        sum -= 1;
    return sum;
}

void xc_inf_set_padding(xc_inf *inf, double ndata)
{
    inf->breaks = 0;
    inf->numonoff = 0;
    if (ndata >= inf->n)
        return;
    inf->breaks = 1;
    inf->numonoff = 2;
    inf->onoff[0] = 0;
    inf->onoff[1] = ndata - 1;
    inf->onoff[2] = inf->n - 1;
    inf->onoff[3] = inf->n - 1;
}

xc_status xc_inf_read(xc_inf *inf, const char *path, xc_error *err)
{
    int seen[NINF] = {0};
    char line[1024];
    int lineno = 0, notes = 0;
    xc_status st = XC_OK;
    xc_inf_init(inf);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", path, strerror(errno));
    while (!st && fgets(line, sizeof line, fp)) {
        lineno++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            st = xc_error_set(err, XC_EFORMAT, "%s: line %d: longer than %zu bytes", path, lineno,
                              sizeof line - 2);
            break;
        }
        /* fgets stopped at a newline, yet the string ends before it: a NUL
         * byte, which would drop the rest of the line unseen */
        if ((n == 0 || line[n - 1] != '\n') && !feof(fp)) {
            st = xc_error_set(err, XC_EFORMAT, "%s: line %d: holds a NUL byte (not a text file)", path, lineno);
            break;
        }
        if (label_eq(trim(line), XC_INF_NOTES)) {
            notes = 1;
            st = read_notes(inf, fp, path, err);
            break;
        }
        char *label, *value;
        if (split_line(line, &label, &value) != 0) {
            st = xc_error_set(err, XC_EFORMAT, "%s: line %d: '%s' has no '='", path, lineno,
                              trim(line));
            break;
        }
        if (!strncmp(label, XC_INF_PAIR, strlen(XC_INF_PAIR))) {
            st = read_pair(inf, label, value, path, lineno, err);
            continue;
        }
        size_t i = 0;
        while (i < NINF && !label_eq(label, inftab[i].label))
            i++;
        if (i == NINF) {
            st = xc_error_set(err, XC_EFORMAT, "%s: line %d: unknown label '%s' (value '%s')",
                              path, lineno, label, value);
            break;
        }
        seen[i] = 1;
        st = store(inf, &inftab[i], value, path, lineno, err);
        if (!st && inftab[i].offset == offsetof(xc_inf, breaks) && inf->breaks != 0 && inf->breaks != 1)
            st = xc_error_set(err, XC_EFORMAT, "%s: line %d: %s: '%s' is neither 0 nor 1", path,
                              lineno, inftab[i].label, value);
    }
    if (!st && ferror(fp))
        st = xc_error_set(err, XC_EIO, "%s: read failed: %s", path, strerror(errno));
    fclose(fp);
    for (size_t i = 0; !st && i < NINF; i++)
        if (inftab[i].required && !seen[i])
            st = xc_error_set(err, XC_EFORMAT, "%s: '%s' line missing (%d lines read)", path,
                              inftab[i].label, lineno);
    if (!st && !notes)
        st = xc_error_set(err, XC_EFORMAT, "%s: '%s' line missing (%d lines read)", path,
                          XC_INF_NOTES, lineno);
    /* the ranges the values' uses need: T = N dt for the searches and the
     * candidate readers, N a sample count; the writer's day.fraction layout
     * of the MJD holds only a non-negative epoch */
    if (!st && !(inf->n >= 1 && inf->n <= 9007199254740992.0 && inf->n == floor(inf->n)))
        st = xc_error_set(err, XC_EFORMAT, "%s: Number of bins in the time series: %.17g is not a whole number "
                          "in 1..2^53", path, inf->n);
    if (!st && !(inf->dt > 0))
        st = xc_error_set(err, XC_EFORMAT, "%s: Width of each time series bin (sec): %g must be > 0", path,
                          inf->dt);
    if (!st && !(inf->mjd >= 0))
        st = xc_error_set(err, XC_EFORMAT, "%s: Epoch of observation (MJD): %.17g must be >= 0", path, inf->mjd);
    if (!st)
        st = check_onoff(inf, path, XC_EFORMAT, err);
    return st;
}

/* writeinf's "%d.%s" of the integer day and 15 decimals of the fraction. */
static void format_mjd(char *out, size_t n, double mjd)
{
    double day = floor(mjd);
    char frac[32];
    snprintf(frac, sizeof frac, "%.15f", mjd - day);
    if (frac[0] == '1') {   /* the fraction rounded up to a whole day */
        day += 1.0;
        snprintf(frac, sizeof frac, "%.15f", 0.0);
    }
    snprintf(out, n, "%.0f.%s", day, frac + 2);
}

static int has_newline(const char *s)
{
    return strchr(s, '\n') != NULL || strchr(s, '\r') != NULL;
}

static xc_status format_line(const xc_inf *inf, const infline *L, char *val, size_t n,
                             const char *path, xc_error *err)
{
    const char *base = (const char *)inf;
    switch (L->type) {
    case IT_STR: {
        const char *s = base + L->offset;
        if (has_newline(s))
            return xc_error_set(err, XC_EINVAL, "%s: %s: the value holds a line break", path,
                                L->label);
        snprintf(val, n, "%s", *s ? s : "Unknown");
        break;
    }
    case IT_INT: {
        int i;
        memcpy(&i, base + L->offset, sizeof i);
        snprintf(val, n, L->fmt, i);
        break;
    }
    case IT_DOUBLE: {
        double d;
        memcpy(&d, base + L->offset, sizeof d);
        snprintf(val, n, L->fmt, d);
        break;
    }
    case IT_MJD: {
        double d;
        memcpy(&d, base + L->offset, sizeof d);
        format_mjd(val, n, d);
        break;
    }
    }
    return XC_OK;
}

xc_status xc_inf_write(const xc_inf *inf, const char *path, xc_error *err)
{
    int artificial = strcmp(inf->telescope, XC_INF_ARTIFICIAL) == 0;
    xc_status st = check_onoff(inf, path, XC_EINVAL, err);
    if (st)
        return st;
    if (!artificial && strcmp(inf->band, "Radio") != 0)
        return xc_error_set(err, XC_EINVAL, "%s: band: '%s' is not supported (only Radio)", path,
                            inf->band);
    if (strlen(inf->notes) >= sizeof inf->notes)
        return xc_error_set(err, XC_EINVAL, "%s: notes: not terminated", path);
    xc_atomic a;
    if ((st = xc_atomic_open(&a, path, 0, err)))
        return st;
    char val[600];
    for (size_t i = 0; i < NINF && !st; i++) {
        if (artificial && inftab[i].observation)
            continue;
        if ((st = format_line(inf, &inftab[i], val, sizeof val, path, err)))
            break;
        if (fprintf(a.fp, " %-*s=  %s\n", XC_INF_EQ - 1, inftab[i].label, val) < 0)
            st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
        for (int k = 0; !st && i == BREAKS_LINE && inf->breaks && k < inf->numonoff; k++)
            if (fprintf(a.fp, " %s%3d                   =  %-11.0f, %-11.0f\n", XC_INF_PAIR, k + 1,
                        inf->onoff[2 * k], inf->onoff[2 * k + 1]) < 0)
                st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
    }
    if (!st && fprintf(a.fp, " %s\n    %s\n\n", XC_INF_NOTES, inf->notes) < 0)
        st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
    if (st) {
        xc_atomic_abort(&a);
        return st;
    }
    return xc_atomic_commit(&a, err);
}

xc_status xc_dat_read(const char *path, float **data, size_t *n, xc_error *err)
{
    *data = NULL;
    *n = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    xc_status st = XC_OK;
    if (fstat(fileno(fp), &sb) != 0) {
        st = xc_error_set(err, XC_EIO, "%s: cannot stat: %s", path, strerror(errno));
        goto out;
    }
    uint64_t size = (uint64_t)sb.st_size;
    if (size % sizeof(float)) {
        st = xc_error_set(err, XC_EFORMAT,
                          "%s: size: %llu bytes is not a whole number of float32 samples: %llu "
                          "bytes left over",
                          path, (unsigned long long)size,
                          (unsigned long long)(size % sizeof(float)));
        goto out;
    }
    size_t count = (size_t)(size / sizeof(float));
    float *d = malloc(count ? count * sizeof *d : 1);
    if (!d) {
        st = xc_error_set(err, XC_ENOMEM, "%s: cannot allocate %zu samples", path, count);
        goto out;
    }
    if (fread(d, sizeof *d, count, fp) != count) {
        free(d);
        st = xc_error_set(err, XC_EIO, "%s: read failed: %s", path,
                          ferror(fp) ? strerror(errno) : "file shrank while reading");
        goto out;
    }
    *data = d;
    *n = count;
out:
    fclose(fp);
    return st;
}

xc_status xc_dat_write(const char *path, const float *data, size_t n, xc_error *err)
{
    return xc_atomic_write(path, data, n * sizeof *data, err);
}
