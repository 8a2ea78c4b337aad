/* The synthesizer's main loop: chunks of spectra -> noise + pulses -> levels -> bytes. */
#include "core/base/xc_nbits.h"
#include "synth/model/xc_synth.h"
#include "synth/noise/synth_levels.h"
#include "synth/signal/synth_signal.h"
#include "synth/write/synth_truth.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_atomic.h"

static void fill_header(const xc_synth_params *p, xc_fbheader *h)
{
    xc_fbheader_init(h);
    /* fake's keywords in fake's order (SixByNine/sigproc src/fake.c and the SIGPROC header keywords).  fake
     * writes data_type 2 and refdm for one channel; ours stays a filterbank. */
    if (p->psr.period_ms > 0)
        snprintf(h->source_name, sizeof h->source_name, "P: %.12f ms, DM: %.3f", p->psr.period_ms, p->psr.dm);
    else
        snprintf(h->source_name, sizeof h->source_name, "crosscheck synth");
    xc_fbheader_set(h, XC_FB_SOURCE_NAME);
    h->machine_id = 10;
    xc_fbheader_set(h, XC_FB_MACHINE_ID);
    h->telescope_id = 4;
    xc_fbheader_set(h, XC_FB_TELESCOPE_ID);
    h->data_type = 1;
    xc_fbheader_set(h, XC_FB_DATA_TYPE);
    h->fch1 = p->fch1;
    xc_fbheader_set(h, XC_FB_FCH1);
    h->foff = xc_synth_foff(p);
    xc_fbheader_set(h, XC_FB_FOFF);
    h->nchans = p->nchans;
    xc_fbheader_set(h, XC_FB_NCHANS);
    h->nbits = p->nbits;
    xc_fbheader_set(h, XC_FB_NBITS);
    h->tstart = p->tstart;
    xc_fbheader_set(h, XC_FB_TSTART);
    h->tsamp = p->tsamp;
    xc_fbheader_set(h, XC_FB_TSAMP);
    h->nifs = 1;
    xc_fbheader_set(h, XC_FB_NIFS);
}

static int little_endian(void)
{
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* One thread's working memory: a part's floats (all zero between parts on the
 * exact path), its levels, and the exact path's table (nbits 0: not used). */
typedef struct {
    float *x;
    uint16_t *lev;
    xc_levels tab;
} part_mem;

static int exact_path(const xc_synth_params *p)
{
    return p->noise && p->noise_gen == XC_NOISE_EXACT && !xc_nbits_is_float(p->nbits);
}

/* One part of a chunk: noise, signal, levels, bytes of spectra first..first+n-1. */
static void make_part(const xc_synth_params *p, xc_signal *sig, uint64_t first, size_t n, part_mem *m, uint8_t *out,
                      int le)
{
    const size_t nch = (size_t)p->nchans, rowbytes = nch * (size_t)p->nbits / 8;
    float *x = m->x;
    xc_chunk ck = {x, first, n, p->nchans, p->tsamp};
    if (m->tab.nbits) {
        /* the signal alone into the zeroed floats, then the levels drawn around it */
        const int any = sig->has_psr || p->npulses;
        if (p->nbits == 8 && xc_signal_levels8_applies(sig)) {
            /* the table draws, then the pulsar's levels over them from its phase table */
            xc_levels_part(&m->tab, p->seed, first, n, p->nchans, NULL, m->lev, p->bitorder, out);
            xc_signal_levels8(sig, p->seed, first, n, out);
            return;
        }
        if (any)
            xc_signal_apply(sig, &ck, 1);
        xc_levels_part(&m->tab, p->seed, first, n, p->nchans, any ? x : NULL, m->lev, p->bitorder, out);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        float *row = x + i * nch;
        if (p->noise)
            xc_synth_noise_spectrum(p->seed, first + (uint64_t)i, p->nchans, row);
        else
            memset(row, 0, nch * sizeof *row);
    }
    xc_signal_apply(sig, &ck, 1);
    if (xc_nbits_is_float(p->nbits) && le) {
        memcpy(out, x, n * rowbytes);
    } else if (xc_nbits_is_float(p->nbits)) {
        for (size_t i = 0; i < n * nch; i++) {
            uint32_t u;
            memcpy(&u, &x[i], 4);
            for (int k = 0; k < 4; k++)
                out[4 * i + (size_t)k] = (uint8_t)(u >> (8 * k));
        }
    } else {
        xc_synth_quantise_pack(x, n * nch, p->nbits, p->bitorder, out);
    }
}

/* One chunk, made by one thread in parts of `part` spectra (x holds one part):
 * each part's floats are made, changed and packed while they are in cache.
 * The bytes do not depend on the part size (xc_signal_apply). */
static xc_status make_chunk(const xc_synth_params *p, xc_signal *sig, uint64_t first, size_t n, size_t part,
                            part_mem *x, uint8_t *out, int le, xc_error *err)
{
    const size_t rowbytes = (size_t)p->nchans * (size_t)p->nbits / 8;
    xc_status st = xc_signal_prepare(sig, first, n, p->tsamp, err);
    for (size_t r = 0; !st && r < n; r += part)
        make_part(p, sig, first + r, n - r < part ? n - r : part, x, out + r * rowbytes, le);
    return st;
}

xc_status xc_synth_stream(const xc_synth_params *p, xc_synth_sink_fn sink, void *ctx, xc_error *err)
{
    xc_status st = xc_synth_params_check(p, NULL, err);
    if (st)
        return st;
    const uint64_t nsamp = xc_synth_nsamp(p);
    const size_t nch = (size_t)p->nchans, rowbytes = nch * (size_t)p->nbits / 8;
    size_t csz = p->chunk;
    if (!csz) {
        csz = XC_SYNTH_CHUNK_VALUES / nch;
        csz = csz < 1 ? 1 : csz > XC_SYNTH_CHUNK_MAX ? XC_SYNTH_CHUNK_MAX : csz;
    }
    if (csz > nsamp)
        csz = (size_t)nsamp;
    const long nchunks = (long)((nsamp + csz - 1) / csz);
    /* Each thread makes whole chunks and they are written in order: one wait
     * per chunk, which matters on a shared machine where a barrier inside
     * every chunk leaves threads spinning.  fake's model carries its period
     * from sample to sample, so -fake_phase runs on one thread. */
    int nthreads = p->nthreads > 0 ? p->nthreads : omp_get_max_threads();
    if (p->fake_phase || nthreads < 1)
        nthreads = 1;
    if (nthreads > nchunks)
        nthreads = (int)nchunks;
    const int le = little_endian();
    size_t part = 0;   /* spectra per part, the same for every thread */
    part_mem *x = calloc((size_t)nthreads, sizeof *x);
    uint8_t **out = calloc((size_t)nthreads, sizeof *out);
    xc_signal *sig = calloc((size_t)nthreads, sizeof *sig);
    if (!x || !out || !sig) {
        st = xc_error_set(err, XC_ENOMEM, "out of memory for %d threads", nthreads);
        goto done;
    }
    for (int k = 0; k < nthreads; k++) {
        if ((st = xc_signal_init(&sig[k], p, err)))
            goto done;
        if (!part) {
            part = xc_signal_part_rows(&sig[k]);
            part = part < csz ? part : csz;
        }
        const int exact = exact_path(p);
        x[k].x = exact ? calloc(part * nch, sizeof *x[k].x) : malloc(part * nch * sizeof *x[k].x);
        x[k].lev = exact && p->nbits != 8 ? malloc(part * nch * sizeof *x[k].lev) : NULL;
        if (exact && (st = xc_levels_init(&x[k].tab, p->nbits, err)))
            goto done;
        out[k] = malloc(csz * rowbytes);
        if (!x[k].x || !out[k] || (exact && p->nbits != 8 && !x[k].lev)) {
            st = xc_error_set(err, XC_ENOMEM, "out of memory for a chunk of %zu spectra x %zu channels", csz, nch);
            goto done;
        }
    }
    int failed = 0;
#pragma omp parallel num_threads(nthreads)
    {
        const int k = omp_get_thread_num();
        xc_error e;
        xc_error_clear(&e);
#pragma omp for ordered schedule(static, 1)
        for (long ci = 0; ci < nchunks; ci++) {
            const uint64_t first = (uint64_t)ci * csz;
            const size_t n = (size_t)(nsamp - first < csz ? nsamp - first : csz);
            int stop;
#pragma omp atomic read
            stop = failed;
            xc_status cst = stop ? XC_OK : make_chunk(p, &sig[k], first, n, part, &x[k], out[k], le, &e);
#pragma omp ordered
            {
                if (!failed && !cst && sink(ctx, out[k], n * rowbytes))
                    cst = xc_error_set(&e, XC_EIO, "writing spectra %llu..%llu failed", (unsigned long long)first,
                                       (unsigned long long)(first + n));
                if (cst && !failed) {
                    st = cst;
                    if (err)
                        *err = e;
#pragma omp atomic write
                    failed = 1;
                }
                if (!failed && p->progress)
                    p->progress(p->progress_ctx, first + n, nsamp);
            }
        }
    }
done:
    for (int k = 0; x && out && sig && k < nthreads; k++) {
        free(x[k].x);
        free(x[k].lev);
        xc_levels_free(&x[k].tab);
        free(out[k]);
        xc_signal_free(&sig[k]);
    }
    free(x);
    free(out);
    free(sig);
    return st;
}

typedef struct {
    FILE *fp;
    int err;
} file_sink;

static int to_file(void *ctx, const uint8_t *b, size_t n)
{
    file_sink *f = ctx;
    if (fwrite(b, 1, n, f->fp) != n) {
        f->err = errno;
        return 1;
    }
    return 0;
}

/* The file's blocks reserved before its data are written (Linux fallocate,
 * the size left as it is): the kernel then finds the whole file's extent once
 * instead of block by block as the writes come, a quarter of the CPU time of
 * writing 80 MB to ext4 here (docs/PERFORMANCE.md).  Only a hint: where the
 * file system cannot, the writes allocate as before. */
static void reserve_blocks(const xc_synth_params *p, FILE *fp)
{
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
    const long at = ftell(fp);
    const double bytes = (double)xc_synth_nsamp(p) * p->nchans * p->nbits / 8;
    if (at >= 0 && bytes > 0 && bytes < 0x1p62)
        (void)fallocate(fileno(fp), FALLOC_FL_KEEP_SIZE, 0, (off_t)at + (off_t)bytes);
#else
    (void)p;
    (void)fp;
#endif
}

/* Writes the text of a truth file atomically, leaving it uncommitted in *a. */
static xc_status stage_text(xc_atomic *a, const char *path, const char *text, xc_error *err)
{
    xc_status st = xc_atomic_open(a, path, 0, err);
    if (st)
        return st;
    size_t len = strlen(text);
    if (fwrite(text, 1, len, a->fp) != len || fputc('\n', a->fp) == EOF) {
        xc_atomic_abort(a);
        return xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
    }
    return XC_OK;
}

xc_status xc_synth_write(const xc_synth_params *p, const char *path, const char *truth_path, const char *cmdline,
                         xc_error *err)
{
    xc_status st = xc_synth_params_check(p, NULL, err);
    if (st)
        return st;
    char tpath[4096];
    if (!truth_path) {
        if ((st = xc_synth_truth_path(path, tpath, sizeof tpath, err)))
            return st;
        truth_path = tpath;
    }
    if (!strcmp(truth_path, path))
        return xc_error_set(err, XC_EINVAL, "%s: the truth file must not be the filterbank itself", path);
    char *truth = xc_synth_truth_text(p, p->file_label ? p->file_label : path, cmdline, NULL, err);
    if (!truth)
        return err ? err->code : XC_ENOMEM;
    xc_atomic fa, ta;
    if ((st = xc_atomic_open(&fa, path, 0, err))) {
        free(truth);
        return st;
    }
    xc_fbheader h;
    fill_header(p, &h);
    st = xc_fbheader_write(&h, fa.fp, path, err);
    xc_fbheader_free(&h);
    file_sink fs = {fa.fp, 0};
    if (!st)
        reserve_blocks(p, fa.fp);
    if (!st && (st = xc_synth_stream(p, to_file, &fs, err)) && fs.err)
        st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(fs.err));
    /* Both files are complete under temporary names before either is renamed;
     * if the second rename fails the first file is removed again. */
    if (!st)
        st = stage_text(&ta, truth_path, truth, err);
    free(truth);
    if (st) {
        xc_atomic_abort(&fa);
        return st;
    }
    if ((st = xc_atomic_commit(&fa, err))) {
        xc_atomic_abort(&ta);
        return st;
    }
    if ((st = xc_atomic_commit(&ta, err))) {
        remove(path);
        return st;
    }
    return XC_OK;
}
