/* xc_spfile.c: which single-pulse reader a file takes (xc_spfiles.h). */
#include <stdio.h>
#include <string.h>

#include "core/sp/files/xc_spfiles.h"

static const struct {
    const char *name, *alias;
    xc_spformat f;
} names[] = {
    {"csv", "csv", XC_SPFMT_CSV},
    {"heimdall", "cand", XC_SPFMT_HEIMDALL},
    {"presto", "singlepulse", XC_SPFMT_PRESTO},
};
#define NNAMES (sizeof names / sizeof names[0])

xc_status xc_spformat_parse(const char *name, xc_spformat *f, xc_error *err)
{
    for (size_t i = 0; i < NNAMES; i++)
        if (!strcmp(name, names[i].name) || !strcmp(name, names[i].alias)) {
            *f = names[i].f;
            return XC_OK;
        }
    return xc_error_set(err, XC_EINVAL, "single-pulse format '%s' is not csv, heimdall (.cand) or presto "
                        "(.singlepulse)", name);
}

const char *xc_spformat_name(xc_spformat f)
{
    for (size_t i = 0; i < NNAMES; i++)
        if (names[i].f == f)
            return names[i].name;
    return "auto";
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

xc_spformat xc_spformat_of_path(const char *path)
{
    if (ends_with(path, ".cand"))
        return XC_SPFMT_HEIMDALL;
    if (ends_with(path, ".singlepulse"))
        return XC_SPFMT_PRESTO;
    if (!ends_with(path, ".csv"))
        return XC_SPFMT_AUTO;
    FILE *fp = fopen(path, "r");
    char head[8] = "";
    if (fp) {
        size_t n = fread(head, 1, sizeof head - 1, fp);
        head[n] = '\0';
        fclose(fp);
    }
    return !strncmp(head, "snr,", 4) ? XC_SPFMT_CSV : XC_SPFMT_AUTO;
}

xc_status xc_spcands_read(xc_spcandlist *l, const char *path, xc_spformat fmt, xc_error *err)
{
    if (fmt == XC_SPFMT_AUTO)
        fmt = xc_spformat_of_path(path);
    switch (fmt) {
    case XC_SPFMT_CSV: return xc_spcands_read_csv(l, path, err);
    case XC_SPFMT_HEIMDALL: return xc_spcands_read_heimdall(l, path, err);
    case XC_SPFMT_PRESTO: return xc_spcands_read_presto(l, path, err);
    default:
        l->n = 0;
        return xc_error_set(err, XC_EFORMAT, "%s: not a single-pulse candidate file by its name (.cand, "
                            ".singlepulse, or .csv starting 'snr,'): give the format (csv, heimdall, presto)", path);
    }
}
