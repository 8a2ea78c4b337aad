/* crosscheck fft: a PRESTO .dat (+ .inf) to a PRESTO .fft (+ .inf), as realfft. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/xc_fft.h"

static void help(void)
{
    printf("usage: crosscheck fft -i X.dat -o Y [-precision single|double]\n\n"
           "Forward real FFT of a PRESTO time series, written exactly as PRESTO's realfft does:\n"
           "Y.fft holds N/2 complex float32 pairs, unnormalised, X_k = sum_j x_j exp(-2 pi i j k/N),\n"
           "with the DC term in the real slot and the Nyquist term in the imaginary slot of bin 0.\n"
           "Y.inf is X.inf with only the file name changed.  N must be even and equal X.inf's N.\n\n"
           "options:\n"
           "  -i X.dat           input time series (float32); X.inf must sit beside it\n"
           "  -o Y               output base name: writes Y.fft and Y.inf (a trailing .fft is dropped)\n"
           "  -precision P       single (FFTW fftw3f, default) or double (fftw3, the reference path;\n"
           "                     the output is float32 either way)\n"
           "  -h                 show this help\n");
}

int xc_cmd_fft(int argc, char **argv)
{
    enum { O_I = 1, O_O, O_PREC, O_HELP };
    static const struct option opts[] = {
        {"i", required_argument, 0, O_I},         {"o", required_argument, 0, O_O},
        {"precision", required_argument, 0, O_PREC}, {"h", no_argument, 0, O_HELP},
        {"help", no_argument, 0, O_HELP},         {0, 0, 0, 0}};
    const char *in = NULL, *out = NULL;
    xc_fft_precision prec = XC_FFT_SINGLE;
    xc_error err;
    xc_error_clear(&err);
    int c;
    while ((c = getopt_long_only(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_I: in = optarg; break;
        case O_O: out = optarg; break;
        case O_PREC:
            if (xc_fft_precision_parse(optarg, &prec, &err))
                return xc_cli_fail("fft", &err);
            break;
        case O_HELP: help(); return 0;
        default: return xc_cli_badopt("fft", argc, argv);
        }
    }
    if (optind < argc)
        return xc_cli_failf("fft", "unexpected argument '%s'", argv[optind]);
    if (!in || !out)
        return xc_cli_failf("fft", "both -i X.dat and -o Y are required (see crosscheck fft -h)");
    if (xc_fft_file(in, out, prec, &err))
        return xc_cli_fail("fft", &err);
    return 0;
}
