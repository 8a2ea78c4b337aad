/* crosscheck fft: a PRESTO .dat (+ .inf) to a PRESTO .fft (+ .inf), as realfft. */
#include <stdio.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "core/io/xc_fft.h"

/* -precision single|double (dest: xc_fft_precision). */
static xc_status opt_precision(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    (void)opt;
    return xc_fft_precision_parse(val, o->dest, err);
}

int xc_cmd_fft(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    const char *in = NULL, *out = NULL;
    xc_fft_precision prec = XC_FFT_SINGLE;
    const xc_opt opts[] = {
        XC_OPT_STR("i", &in, .arg = "X.dat", .help = "input time series (float32); X.inf must sit beside it"),
        XC_OPT_STR("o", &out, .arg = "Y", .help = "output base name: writes Y.fft and Y.inf (a trailing .fft is dropped)"),
        XC_OPT_CALL("precision", opt_precision, &prec, .arg = "P",
                    .help = "single (FFTW fftw3f) or double (fftw3, the reference path;\n"
                            "the output is float32 either way)", .def = "single"),
        XC_OPT_END,
    };
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    if (!in || !out)
        return xc_cli_failf("fft", "both -i X.dat and -o Y are required (see crosscheck fft -h)");
    xc_error err;
    xc_error_clear(&err);
    if (xc_fft_file(in, out, prec, &err))
        return xc_cli_fail("fft", &err);
    return 0;
}
