/* xc_fft.h: PRESTO-compatible forward FFT of a real time series (`realfft`).
 *
 * Layout of a .fft file (PRESTO src/fastffts.c realfft, FAQ.md): for N real
 * samples (N even), N float32 values = N/2 complex pairs (re, im), native
 * endian.  Pair k (k = 1..N/2-1) holds X_k = sum_j x_j exp(-2 pi i j k / N),
 * unnormalised; pair 0 holds (X_0, X_{N/2}): the DC and Nyquist terms, both
 * real, packed into the real and imaginary slots of bin 0.
 *
 * Two precisions: single (fftw3f, the product path) and double (fftw3, the
 * reference path: the sum is formed in double and rounded to float32 once).
 *
 * Threads: FFTW's planner is not thread safe; these functions plan inside
 * XC_FFTW_PLANNER (below), so they may run concurrently from several
 * threads (plans are made with FFTW_ESTIMATE, which
 * is deterministic: the same size and alignment give the same plan and the
 * same bits on every run). */
#ifndef XC_FFT_H
#define XC_FFT_H

#include <stddef.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FFTW's planner (plan creation and destruction) is not thread safe; every
 * call to it in this code base goes through this one named critical
 * section, so searches may run side by side in threads (the study runner
 * searches several pulsars at once).  Executing plans needs no lock. */
#define XC_FFTW_PLANNER(stmt)                        \
    do {                                             \
        _Pragma("omp critical(xc_fftw_planner)") { stmt; } \
    } while (0)

typedef enum { XC_FFT_SINGLE = 0, XC_FFT_DOUBLE = 1 } xc_fft_precision;

/* "single" / "double"; XC_EINVAL naming the value otherwise. */
xc_status xc_fft_precision_parse(const char *s, xc_fft_precision *p, xc_error *err);
const char *xc_fft_precision_name(xc_fft_precision p);

/* Transforms n real samples x into out (n floats, the packed layout above).
 * x and out may be the same array.  Odd or zero n: XC_EINVAL naming n. */
xc_status xc_realfft_forward(const float *x, size_t n, xc_fft_precision prec, float *out,
                             xc_error *err);

/* One length's forward transform kept for many series (single precision):
 * FFTW's plan and its two buffers made once, so a series costs only the
 * transform (at the Pulscan paper's 4 687 500 samples, planning and the
 * first touch of fresh buffers cost more than the transform itself).  The
 * plan is the one xc_realfft_forward makes (FFTW_ESTIMATE, same size and
 * alignment): the same bits.  One caller at a time per object. */
typedef struct xc_realfft xc_realfft;
/* A transform of n samples (even, > 0: XC_EINVAL naming n); XC_ENOMEM,
 * XC_EUNAVAIL when FFTW cannot plan it. */
xc_status xc_realfft_new(size_t n, xc_realfft **f, xc_error *err);
size_t xc_realfft_len(const xc_realfft *f);
/* Plans f for n samples instead (even, > 0: XC_EINVAL naming n), keeping
 * its buffers when they hold n (no fresh pages to touch), else new ones; the
 * plan is xc_realfft_new(n)'s.  Nothing to do when n is f's length already. */
xc_status xc_realfft_resize(xc_realfft *f, size_t n, xc_error *err);
/* x[0..n-1] into out (n floats, the packed layout above); x and out may be
 * the same array. */
void xc_realfft_run(xc_realfft *f, const float *x, float *out);
/* The input buffer (n floats): a series written here is transformed by
 * xc_realfft_exec without a copy. */
float *xc_realfft_input(xc_realfft *f);
/* The input buffer's series into out (out_len floats, at least n; the
 * packed layout in out[0..n-1]).  With out_len >= n + 2 and out aligned as
 * fftwf_malloc aligns (a page-aligned or 64-byte-aligned buffer), FFTW
 * writes into out directly, out[n] and out[n + 1] its scratch; else through
 * the kept buffer.  The same bits either way.  out may be the input buffer
 * itself (then through the kept buffer), and must not otherwise overlap it. */
void xc_realfft_exec(xc_realfft *f, float *out, size_t out_len);
void xc_realfft_free(xc_realfft *f);

/* Reads a whole .fft file: *data gets *nfloats floats (2 per complex bin);
 * the caller frees *data.  A size that is not a whole number of complex
 * pairs (8 bytes) or is empty: XC_EFORMAT naming the file and the size. */
xc_status xc_fft_read(const char *path, float **data, size_t *nfloats, xc_error *err);
/* Writes nfloats floats atomically. */
xc_status xc_fft_write(const char *path, const float *data, size_t nfloats, xc_error *err);

/* The `crosscheck fft` step: reads in_dat (a .dat) and the .inf beside it
 * (same name, suffix .inf), writes out_base.fft and out_base.inf.  The .inf
 * written is the input's text with only the "Data file name without suffix"
 * value changed to out_base, as PRESTO's realfft leaves the .inf alone.
 * The sample count must be even and equal the .inf's N (XC_EINVAL /
 * XC_EMISMATCH naming the file and N).  Both outputs are committed only
 * after both were written; on failure neither is left behind. */
xc_status xc_fft_file(const char *in_dat, const char *out_base, xc_fft_precision prec,
                      xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
