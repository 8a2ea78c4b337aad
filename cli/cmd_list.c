/* crosscheck list: every registered implementation, by family. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "xc_dedisperse.h"
#include "xc_search.h"

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
    printf("%-11s %-10s %-40s %s\n", "family", "name", "status", "description");
    const xc_dedisperser *const *dd = xc_dedisperser_list();
    for (size_t i = 0; dd[i]; i++) {
        char why[200] = "", status[240];
        if (dd[i]->available(why, sizeof why))
            snprintf(status, sizeof status, "available");
        else
            snprintf(status, sizeof status, "unavailable: %s", why);
        printf("%-11s %-10s %-40s %s\n", "dedisperse", dd[i]->name, status, dd[i]->desc);
    }
    const xc_searcher *const *ps = xc_searcher_list();
    for (size_t i = 0; ps[i]; i++) {
        char why[200] = "", status[240];
        if (ps[i]->available(why, sizeof why))
            snprintf(status, sizeof status, "available");
        else
            snprintf(status, sizeof status, "unavailable: %s", why);
        printf("%-11s %-10s %-40s %s\n", "pulscan", ps[i]->name, status, ps[i]->desc);
    }
    return 0;
}
