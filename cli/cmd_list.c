/* crosscheck list: every registered implementation, by family. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/xc_dedisperse.h"
#include "core/xc_search.h"

int xc_cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {{"h", no_argument, 0, 'h'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long_only(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("usage: crosscheck list\n\n"
                   "Prints every registered implementation: family, name, whether it is available on\n"
                   "this machine (and why not), and what it is.\n");
            return 0;
        }
        return xc_cli_badopt("list", argc, argv);
    }
    /* Rows first, so the status column is as wide as its longest entry
     * (a CUDA runtime's reason can be long). */
    enum { MAXROWS = 32 };
    struct {
        const char *family, *name, *desc;
        char status[240];
    } row[MAXROWS];
    int n = 0;
    const xc_dedisperser *const *dd = xc_dedisperser_list();
    for (size_t i = 0; dd[i] && n < MAXROWS; i++, n++) {
        char why[200] = "";
        row[n].family = "dedisperse";
        row[n].name = dd[i]->name;
        row[n].desc = dd[i]->desc;
        if (dd[i]->available(why, sizeof why))
            snprintf(row[n].status, sizeof row[n].status, "available");
        else
            snprintf(row[n].status, sizeof row[n].status, "unavailable: %s", why);
    }
    const xc_searcher *const *ps = xc_searcher_list();
    for (size_t i = 0; ps[i] && n < MAXROWS; i++, n++) {
        char why[200] = "";
        row[n].family = "pulscan";
        row[n].name = ps[i]->name;
        row[n].desc = ps[i]->desc;
        if (ps[i]->available(why, sizeof why))
            snprintf(row[n].status, sizeof row[n].status, "available");
        else
            snprintf(row[n].status, sizeof row[n].status, "unavailable: %s", why);
    }
    int sw = (int)strlen("status");
    for (int k = 0; k < n; k++)
        sw = (int)strlen(row[k].status) > sw ? (int)strlen(row[k].status) : sw;
    printf("%-11s %-10s %-*s  %s\n", "family", "name", sw, "status", "description");
    for (int k = 0; k < n; k++)
        printf("%-11s %-10s %-*s  %s\n", row[k].family, row[k].name, sw, row[k].status, row[k].desc);
    return 0;
}
