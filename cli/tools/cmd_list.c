/* crosscheck list: every registered implementation, by family. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"

static int print_json(const xc_registry *reg)
{
    json_t *arr = json_array();
    for (int f = 0; f < XC_FAMILY_COUNT; f++)
        for (size_t i = 0; i < xc_registry_count(reg, (xc_family)f); i++) {
            const xc_impl *e = xc_registry_at(reg, (xc_family)f, i);
            char why[256];
            int ok = xc_impl_available(e, why, sizeof why);
            json_t *caps = json_array();
            for (unsigned b = 1; b; b <<= 1)
                if ((e->caps & b) && xc_cap_name(b))
                    json_array_append_new(caps, json_string(xc_cap_name(b)));
            json_array_append_new(
                arr, json_pack("{s:s, s:s, s:s, s:o, s:{s:s, s:f}, s:b, s:s}", "family", xc_family_name(e->family),
                               "name", e->name, "desc", e->desc, "caps", caps, "tolerance", "kind",
                               xc_tol_kind_name(e->tol.kind), "value", e->tol.value, "available", ok, "why", why));
        }
    int bad = json_dumpf(arr, stdout, JSON_INDENT(2)) != 0 || fputc('\n', stdout) == EOF;
    json_decref(arr);
    return bad ? xc_cli_failf("list", "cannot write to stdout") : 0;
}

int xc_cmd_list(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    int json = 0;
    const xc_opt opts[] = {
        XC_OPT_FLAG("json", &json,
                    .help = "one JSON array on stdout instead of the table: objects with \"family\",\n"
                            "\"name\", \"desc\", \"caps\" (array of names), \"tolerance\" ({\"kind\", \"value\"}),\n"
                            "\"available\" (bool) and \"why\" (\"\" when available)"),
        XC_OPT_END};
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    const xc_registry *reg = xc_cli_registry();
    if (json)
        return print_json(reg);
    /* Rows first, so the status column is as wide as its longest entry
     * (a CUDA runtime's reason can be long). */
    enum { MAXROWS = 64 };
    struct {
        const xc_impl *e;
        char status[240], caps[96];
    } row[MAXROWS];
    int n = 0, sw = (int)strlen("status"), cw = (int)strlen("caps"), nw = 10;
    for (int f = 0; f < XC_FAMILY_COUNT; f++)
        for (size_t i = 0; i < xc_registry_count(reg, (xc_family)f) && n < MAXROWS; i++, n++) {
            const xc_impl *e = row[n].e = xc_registry_at(reg, (xc_family)f, i);
            char why[200];
            if (xc_impl_available(e, why, sizeof why))
                snprintf(row[n].status, sizeof row[n].status, "available");
            else
                snprintf(row[n].status, sizeof row[n].status, "unavailable: %s", why);
            xc_caps_format(e->caps, row[n].caps, sizeof row[n].caps);
            sw = (int)strlen(row[n].status) > sw ? (int)strlen(row[n].status) : sw;
            cw = (int)strlen(row[n].caps) > cw ? (int)strlen(row[n].caps) : cw;
            nw = (int)strlen(e->name) > nw ? (int)strlen(e->name) : nw;   /* subband-reference */
        }
    printf("%-11s %-*s %-*s %-*s  %s\n", "family", nw, "name", cw, "caps", sw, "status", "description");
    for (int k = 0; k < n; k++)
        printf("%-11s %-*s %-*s %-*s  %s\n", xc_family_name(row[k].e->family), nw, row[k].e->name, cw, row[k].caps, sw,
               row[k].status, row[k].e->desc);
    return 0;
}
