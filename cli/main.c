/* crosscheck: one program, one subcommand per step of the pipeline. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/base/cli.h"
#include "cli/base/plugin/cli_plugin.h"
#include "core/base/xc_atomic.h"

/* SIGINT/SIGTERM/SIGHUP: the temporaries being written are removed (no
 * output appears under a final name: those are renamed into place only
 * when complete), one line says so, and the signal is raised again with
 * its default action, so the exit status is the usual 128 + signal.  Only
 * async-signal-safe calls: unlink, fork, execve, waitpid (inside
 * xc_atomic_remove_live), write. */
static void put_int(char *buf, size_t *n, long v)
{
    char d[24];
    int k = 0;
    do
        d[k++] = (char)('0' + v % 10);
    while ((v /= 10) > 0 && k < 23);
    while (k > 0)
        buf[(*n)++] = d[--k];
}

static void put_str(char *buf, size_t *n, const char *s)
{
    while (*s)
        buf[(*n)++] = *s++;
}

static void on_signal(int sig)
{
    int removed = xc_atomic_remove_live();
    char msg[160];
    size_t n = 0;
    put_str(msg, &n, "crosscheck: interrupted by signal ");
    put_int(msg, &n, sig);
    put_str(msg, &n, "; removed ");
    put_int(msg, &n, removed);
    put_str(msg, &n, " temporary file(s) or folder(s); no partial output was left\n");
    ssize_t w = write(2, msg, n);
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: crosscheck <command> [options]   (crosscheck <command> -h for its options;\n"
                "       crosscheck --version prints the version)\n\n"
                "crosscheck checks that fast pulsar/FRB search kernels compute what exact references compute.\n\n"
                "commands:\n");
    for (size_t i = 0; i < xc_ncommands; i++)
        fprintf(fp, "  %-12s %s\n", xc_commands[i].name, xc_commands[i].what);
    fprintf(fp, "\nEvery command takes -plugin LIB.so (repeatable; or CROSSCHECK_PLUGINS=a.so:b.so): the plugin's\n"
                "implementations join the built-in ones (xc_plugin.h, docs/ci.md).\n"
                "Exit codes: 0 pass, 1 a check failed (disagreement), 2 error (bad input, unreadable file).\n");
}

#ifndef XC_VERSION   /* the Makefile passes its XC_VERSION */
#define XC_VERSION "unknown"
#endif

int main(int argc, char **argv)
{
    xc_cli_set_cmdline(argc, argv);
    catch_signals();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-version")) {
        printf("crosscheck %s\n", XC_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < xc_ncommands; i++)
        if (!strcmp(argv[1], xc_commands[i].name)) {
            /* -plugin belongs to every command: taken out here, loaded now
             * (a bad plugin is an error even for a command that would not
             * have looked at the registry). */
            int sub_argc = argc - 1;
            if (xc_cli_plugin_args(argv[1], &sub_argc, argv + 1))
                return 2;
            if (xc_cli_plugin_queued())
                (void)xc_cli_registry();
            xc_cli_getopt_reset();
            return xc_commands[i].run(&xc_commands[i], sub_argc, argv + 1);
        }
    fprintf(stderr, "crosscheck: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
