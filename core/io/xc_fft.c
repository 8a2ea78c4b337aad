/* xc_fft.c: PRESTO realfft layout on top of FFTW's r2c transform.
 * FFTW returns X_0..X_{N/2} (N/2+1 complex values); PRESTO keeps N floats by
 * storing the purely real X_{N/2} in the imaginary slot of X_0. */
#include "core/io/xc_fft.h"

#include <errno.h>
#include <fftw3.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/xc_atomic.h"
#include "core/io/xc_presto.h"

xc_status xc_fft_precision_parse(const char *s, xc_fft_precision *p, xc_error *err)
{
    if (s && !strcmp(s, "single")) {
        *p = XC_FFT_SINGLE;
        return XC_OK;
    }
    if (s && !strcmp(s, "double")) {
        *p = XC_FFT_DOUBLE;
        return XC_OK;
    }
    return xc_error_set(err, XC_EINVAL, "precision: '%s' is not single or double", s ? s : "");
}

const char *xc_fft_precision_name(xc_fft_precision p)
{
    return p == XC_FFT_DOUBLE ? "double" : "single";
}

/* The double-precision forward transform (`-precision double`); single
 * precision goes through the kept plan below (xc_realfft_new/run), one
 * plan and one packing for both uses.  The output is PRESTO's realfft
 * layout in float32 (DC and Nyquist real parts in bin 0).  The guru64
 * interface takes the length as ptrdiff_t, so series beyond 2^31 samples need
 * no special case; planning comes before filling `in` (FFTW_ESTIMATE never
 * touches the arrays). */
static xc_status forward_double(const float *x, size_t n, float *out, xc_error *err)
{
    double *in = fftw_malloc(n * sizeof *in);
    fftw_complex *X = fftw_malloc((n / 2 + 1) * sizeof *X);
    fftw_plan plan = NULL;
    xc_status st = XC_OK;
    if (!in || !X) {
        st = xc_error_set(err, XC_ENOMEM, "fft: cannot allocate buffers for %zu samples", n);
        goto out;
    }
    fftw_iodim64 dim = {(ptrdiff_t)n, 1, 1};
    XC_FFTW_PLANNER(plan = fftw_plan_guru64_dft_r2c(1, &dim, 0, NULL, in, X, FFTW_ESTIMATE));
    if (!plan) {
        st = xc_error_set(err, XC_EUNAVAIL, "fft: FFTW (double) could not plan %zu samples", n);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        in[i] = x[i];
    fftw_execute(plan);
    out[0] = (float)X[0][0];
    out[1] = (float)X[n / 2][0];
    for (size_t k = 1; k < n / 2; k++) {
        out[2 * k] = (float)X[k][0];
        out[2 * k + 1] = (float)X[k][1];
    }
out:
    if (plan)
        XC_FFTW_PLANNER(fftw_destroy_plan(plan));
    fftw_free(in);
    fftw_free(X);
    return st;
}

static xc_status check_len(size_t n, xc_error *err)
{
    if (n == 0 || n % 2)
        return xc_error_set(err, XC_EINVAL,
                            "fft: N = %zu samples: PRESTO's realfft layout needs an even N > 0", n);
    if (n > (size_t)PTRDIFF_MAX / sizeof(double))
        return xc_error_set(err, XC_EINVAL, "fft: N = %zu samples is too large", n);
    return XC_OK;
}

xc_status xc_realfft_forward(const float *x, size_t n, xc_fft_precision prec, float *out,
                             xc_error *err)
{
    xc_status st = check_len(n, err);
    if (st || prec == XC_FFT_DOUBLE)
        return st ? st : forward_double(x, n, out, err);
    xc_realfft *f = NULL;
    if ((st = xc_realfft_new(n, &f, err)) == XC_OK)
        xc_realfft_run(f, x, out);
    xc_realfft_free(f);
    return st;
}

struct xc_realfft {
    size_t n, cap;     /* the planned length; the buffers' length */
    float *in;
    fftwf_complex *X;
    fftwf_plan plan;
};

/* A plan for f->n on f's buffers (planning reads only their addresses'
 * alignment: FFTW_ESTIMATE never touches the arrays). */
static xc_status plan_kept(xc_realfft *f, xc_error *err)
{
    fftwf_iodim64 dim = {(ptrdiff_t)f->n, 1, 1};
    XC_FFTW_PLANNER(f->plan = fftwf_plan_guru64_dft_r2c(1, &dim, 0, NULL, f->in, f->X, FFTW_ESTIMATE));
    if (!f->plan)
        return xc_error_set(err, XC_EUNAVAIL, "fft: FFTW (single) could not plan %zu samples", f->n);
    return XC_OK;
}

xc_status xc_realfft_new(size_t n, xc_realfft **f, xc_error *err)
{
    *f = NULL;
    xc_realfft *q = calloc(1, sizeof *q);
    if (!q)
        return xc_error_set(err, XC_ENOMEM, "fft: cannot allocate buffers for %zu samples", n);
    xc_status st = xc_realfft_resize(q, n, err);
    if (st) {
        xc_realfft_free(q);
        return st;
    }
    *f = q;
    return XC_OK;
}

xc_status xc_realfft_resize(xc_realfft *f, size_t n, xc_error *err)
{
    xc_status st = check_len(n, err);
    if (st)
        return st;
    if (f->plan && f->n == n)
        return XC_OK;
    if (f->plan)
        XC_FFTW_PLANNER(fftwf_destroy_plan(f->plan));
    f->plan = NULL;
    if (n > f->cap) {   /* new buffers: fftwf_malloc's alignment, as before */
        fftwf_free(f->in);
        fftwf_free(f->X);
        f->cap = 0;
        f->in = fftwf_malloc(n * sizeof *f->in);
        f->X = fftwf_malloc((n / 2 + 1) * sizeof *f->X);
        if (!f->in || !f->X)
            return xc_error_set(err, XC_ENOMEM, "fft: cannot allocate buffers for %zu samples", n);
        f->cap = n;
    }
    f->n = n;
    return plan_kept(f, err);
}

size_t xc_realfft_len(const xc_realfft *f) { return f && f->plan ? f->n : 0; }

float *xc_realfft_input(xc_realfft *f) { return f->in; }

void xc_realfft_exec(xc_realfft *f, float *out, size_t out_len)
{
    const size_t n = f->n;
    /* FFTW writes X_0..X_{N/2} straight into out when out can hold them, is
     * aligned as the planned X and is not the input (FFTW's rule for new
     * arrays: the same alignment and placement, the same plan, so the same
     * bits); then only X_{N/2}'s real part moves to bin 0. */
    if (out != f->in && out_len >= n + 2 && fftwf_alignment_of(out) == fftwf_alignment_of((float *)f->X)) {
        fftwf_execute_dft_r2c(f->plan, f->in, (fftwf_complex *)out);
        out[1] = out[n];
        return;
    }
    fftwf_execute(f->plan);
    out[0] = f->X[0][0];
    out[1] = f->X[n / 2][0];
    memcpy(out + 2, f->X + 1, (n - 2) * sizeof *out);
}

void xc_realfft_run(xc_realfft *f, const float *x, float *out)
{
    memcpy(f->in, x, f->n * sizeof *x);
    xc_realfft_exec(f, out, f->n);
}

void xc_realfft_free(xc_realfft *f)
{
    if (!f)
        return;
    if (f->plan)
        XC_FFTW_PLANNER(fftwf_destroy_plan(f->plan));
    fftwf_free(f->in);
    fftwf_free(f->X);
    free(f);
}

xc_status xc_fft_read(const char *path, float **data, size_t *nfloats, xc_error *err)
{
    /* A .fft is a .dat of complex pairs: read it as floats, then check the pairing. */
    xc_status st = xc_dat_read(path, data, nfloats, err);
    if (st)
        return st;
    if (*nfloats == 0 || *nfloats % 2) {
        st = xc_error_set(err, XC_EFORMAT,
                          "%s: size: %llu bytes is not a positive whole number of complex "
                          "float32 pairs (8 bytes each)",
                          path, (unsigned long long)(*nfloats * sizeof(float)));
        free(*data);
        *data = NULL;
        *nfloats = 0;
    }
    return st;
}

static xc_status write_floats(xc_atomic *a, const float *data, size_t n, xc_error *err)
{
    if (n && fwrite(data, sizeof *data, n, a->fp) != n)
        return xc_error_set(err, XC_EIO, "%s: write failed: %s", a->path, strerror(errno));
    return XC_OK;
}

xc_status xc_fft_write(const char *path, const float *data, size_t nfloats, xc_error *err)
{
    /* A .fft is written as a .dat of its floats. */
    return xc_dat_write(path, data, nfloats, err);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* "X.dat" -> "X<suffix>"; a name without .dat gets the suffix appended. */
static xc_status swap_suffix(char *out, size_t n, const char *path, const char *drop,
                             const char *add, xc_error *err)
{
    size_t len = strlen(path);
    if (ends_with(path, drop))
        len -= strlen(drop);
    if (len + strlen(add) + 1 > n)
        return xc_error_set(err, XC_EINVAL, "%s: path too long", path);
    memcpy(out, path, len);
    strcpy(out + len, add);
    return XC_OK;
}

/* PRESTO's reader takes the value after byte 41 when '=' is at byte 40, else
 * after the last '='; the label is what precedes it, blanks trimmed. */
static int is_name_line(const char *line, size_t *eq)
{
    static const char label[] = "Data file name without suffix";
    size_t len = strcspn(line, "\n");
    const char *e = NULL;
    if (len > 40 && line[40] == '=')
        e = line + 40;
    else
        for (const char *p = line; p < line + len; p++)
            if (*p == '=')
                e = p;
    if (!e)
        return 0;
    const char *a = line, *b = e;
    while (a < b && (*a == ' ' || *a == '\t'))
        a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
        b--;
    if ((size_t)(b - a) != sizeof label - 1 || memcmp(a, label, sizeof label - 1))
        return 0;
    *eq = (size_t)(e - line);
    return 1;
}

/* Writes the input .inf text with the name value replaced; every other byte
 * is copied, so the output differs from the input in that one value only. */
static xc_status write_inf_copy(xc_atomic *a, const char *in_inf, const char *name,
                                xc_error *err)
{
    FILE *fp = fopen(in_inf, "r");
    if (!fp)
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", in_inf, strerror(errno));
    char line[4096];
    int done = 0, lineno = 0;
    xc_status st = XC_OK;
    while (!st && fgets(line, sizeof line, fp)) {
        lineno++;
        size_t eq;
        if (!done && is_name_line(line, &eq)) {
            if (fprintf(a->fp, "%.*s  %s\n", (int)(eq + 1), line, name) < 0)
                st = xc_error_set(err, XC_EIO, "%s: write failed: %s", a->path, strerror(errno));
            done = 1;
            /* A line longer than the buffer continues in the next read: skip it. */
            while (!strchr(line, '\n') && fgets(line, sizeof line, fp))
                ;
            continue;
        }
        if (fputs(line, a->fp) == EOF)
            st = xc_error_set(err, XC_EIO, "%s: write failed: %s", a->path, strerror(errno));
    }
    if (!st && ferror(fp))
        st = xc_error_set(err, XC_EIO, "%s: read failed: %s", in_inf, strerror(errno));
    if (!st && !done)
        st = xc_error_set(err, XC_EFORMAT, "%s: no 'Data file name without suffix' line in %d lines",
                          in_inf, lineno);
    fclose(fp);
    return st;
}

xc_status xc_fft_file(const char *in_dat, const char *out_base, xc_fft_precision prec,
                      xc_error *err)
{
    char in_inf[4200], base[4096], out_fft[4200], out_inf[4200];
    xc_status st;
    if ((st = swap_suffix(in_inf, sizeof in_inf, in_dat, ".dat", ".inf", err)) ||
        (st = swap_suffix(base, sizeof base, out_base, ".fft", "", err)) ||
        (st = swap_suffix(out_fft, sizeof out_fft, base, "", ".fft", err)) ||
        (st = swap_suffix(out_inf, sizeof out_inf, base, "", ".inf", err)))
        return st;
    xc_inf inf;
    if (strlen(base) >= sizeof inf.name || strpbrk(base, "\r\n"))
        return xc_error_set(err, XC_EINVAL,
                            "%s: output name must be one line shorter than %zu bytes (the .inf "
                            "name field)", base, sizeof inf.name);
    if ((st = xc_inf_read(&inf, in_inf, err)))
        return st;

    float *x = NULL;
    size_t n = 0;
    if ((st = xc_dat_read(in_dat, &x, &n, err)))
        return st;
    if (n == 0 || n % 2) {
        st = xc_error_set(err, XC_EINVAL,
                          "%s: N = %zu samples is odd or zero: PRESTO's realfft needs an even N > 0 "
                          "(write an even length, as PRESTO's prepdata and prepsubband do)",
                          in_dat, n);
        goto out;
    }
    if (inf.n != (double)n) {
        st = xc_error_set(err, XC_EMISMATCH, "%s: N = %zu samples but %s says N = %.0f", in_dat, n,
                          in_inf, inf.n);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) {
            st = xc_error_set(err, XC_EINVAL, "%s: sample %zu is %g: the series must be finite", in_dat, i,
                              (double)x[i]);
            goto out;
        }
    if ((st = xc_realfft_forward(x, n, prec, x, err))) {
        /* The transform's message names only N; add the file. */
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
        st = xc_error_set(err, st, "%s: %s", in_dat, msg);
        goto out;
    }
    xc_atomic af, ai;
    if ((st = xc_atomic_open(&af, out_fft, 0, err)))
        goto out;
    if ((st = write_floats(&af, x, n, err)) || (st = xc_atomic_open(&ai, out_inf, 0, err))) {
        xc_atomic_abort(&af);
        goto out;
    }
    if ((st = write_inf_copy(&ai, in_inf, base, err))) {
        xc_atomic_abort(&ai);
        xc_atomic_abort(&af);
        goto out;
    }
    if ((st = xc_atomic_commit(&af, err))) {
        xc_atomic_abort(&ai);
        goto out;
    }
    if ((st = xc_atomic_commit(&ai, err)))
        remove(out_fft);
out:
    free(x);
    return st;
}
