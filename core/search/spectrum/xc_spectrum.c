/* A spectrum in PRESTO's .fft layout, read with the .inf beside it. */
#include "core/search/xc_spectrum.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/io/xc_fft.h"
#include "core/io/xc_presto.h"

/* ---- spectrum ------------------------------------------------------------ */

xc_status xc_spectrum_load(xc_spectrum *sp, const char *fftpath, xc_error *err)
{
    memset(sp, 0, sizeof *sp);
    size_t len = strlen(fftpath);
    if (len < 4 || strcmp(fftpath + len - 4, ".fft"))
        return xc_error_set(err, XC_EINVAL, "%s: the name must end in .fft (its .inf is found beside it)",
                            fftpath);
    /* the .fft itself first, so that a missing one is named, not its .inf */
    struct stat sb;
    if (stat(fftpath, &sb))
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", fftpath, strerror(errno));
    char *inf_path = malloc(len + 1);
    if (!inf_path)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", fftpath);
    memcpy(inf_path, fftpath, len - 3);
    strcpy(inf_path + len - 3, "inf");
    xc_inf inf;
    xc_status st = xc_inf_read(&inf, inf_path, err);
    if (st) {
        free(inf_path);
        return st;
    }
    if (!(inf.n >= 4) || inf.n != floor(inf.n) || fmod(inf.n, 2.0) != 0 || inf.n > 1e15) {
        st = xc_error_set(err, XC_EFORMAT, "%s: 'Number of bins in the time series' = %.17g: need an even count >= 4",
                          inf_path, inf.n);
        free(inf_path);
        return st;
    }
    if (!(inf.dt > 0) || !isfinite(inf.dt)) {
        st = xc_error_set(err, XC_EFORMAT, "%s: 'Width of each time series bin (sec)' = %g is not > 0", inf_path,
                          inf.dt);
        free(inf_path);
        return st;
    }
    if (inf.n / 2 > XC_SPECTRUM_MAX_BINS) {
        st = xc_error_set(err, XC_EINVAL,
                          "%s: 'Number of bins in the time series' = %.17g: %.17g complex bins, more than the %lld "
                          "(2^31 - 1) the searches are tested to; refused before reading (split the observation)",
                          inf_path, inf.n, inf.n / 2, (long long)XC_SPECTRUM_MAX_BINS);
        free(inf_path);
        return st;
    }
    free(inf_path);
    size_t N = (size_t)inf.n;
    if (stat(fftpath, &sb))
        return xc_error_set(err, XC_EIO, "%s: cannot stat: %s", fftpath, strerror(errno));
    if ((unsigned long long)sb.st_size != (unsigned long long)N * sizeof(float))
        return xc_error_set(err, XC_EFORMAT,
                            "%s: %lld bytes, but its .inf gives N = %zu samples, i.e. %zu bytes of float32 "
                            "(N/2 complex bins)",
                            fftpath, (long long)sb.st_size, N, N * sizeof(float));
    /* the one .fft reader; the size is checked again on what it read, in case
     * the file changed since the stat */
    float *d;
    size_t nf;
    if ((st = xc_fft_read(fftpath, &d, &nf, err)))
        return st;
    if (nf != N) {
        free(d);
        return xc_error_set(err, XC_EFORMAT,
                            "%s: %zu bytes read, but its .inf gives N = %zu samples, i.e. %zu bytes of float32 "
                            "(N/2 complex bins)",
                            fftpath, nf * sizeof(float), N, N * sizeof(float));
    }
    sp->data = d;
    sp->nbins = N / 2;
    sp->dt = inf.dt;
    sp->T = (double)N * inf.dt;
    sp->owned = 1;
    return XC_OK;
}

void xc_spectrum_free(xc_spectrum *sp)
{
    if (sp->owned)
        free(sp->data);
    memset(sp, 0, sizeof *sp);
}

