/* dedisp (github.com/ajameson/dedisp, Barsdell et al. 2012) as a crosscheck
 * plugin: the library itself, called through its C API (dedisp.h), judged by
 *   crosscheck gate dedisperse -convention dedisp -plugin libxcdedisp.so [-impl dedisp|dedisp-out8]
 * Two implementations: "dedisp" asks for dedisp's 32-bit (float) output,
 * "dedisp-out8" for its 8-bit output, converted to float here unchanged.
 * Built against a dedisp build by build.sh (`plugin` step); nothing of
 * dedisp is in this file but calls of its public API.
 *
 * What the glue does, and no more:
 *   - packs the job's samples (u16, nbits each) into dedisp's input: time
 *     major, channel fastest, nchans * nbits / 8 bytes a spectrum, read as
 *     nbits-wide subwords of 32-bit words with the first channel in the low
 *     bits (kernels.cuh extract_subword);
 *   - dedisp takes the highest frequency first (it forces df negative,
 *     dedisp.cu dedisp_create_plan); a job with foff > 0 is handed over with
 *     its channels reversed (the sums are the same integers);
 *   - one dedisp plan per range of the job's DM plan, its DM list the range's
 *     DMs as float (dedisp_set_dm_list), the kill mask as given;
 *   - copies dedisp's output trials into the plane.  dedisp writes
 *     nsamps - its own max_delay samples per trial; when that is fewer than
 *     the job's nout the call fails with both numbers.
 * dedisp reads 32-bit input as unsigned integers, so a float32 filterbank
 * is refused (XCP_EUNAVAIL, with that reason), and it has no downsampling:
 * a range with ds > 1 is refused too. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <dedisp.h>

#include "xc_plugin.h"

static const xcp_host *host;

/* Whether a CUDA device is there, asked in a child process: available() is
 * called in crosscheck's own process, and a CUDA context made there before
 * the fork that isolates each run is unusable in the child. */
static int gpu_available(char *why, size_t n)
{
    pid_t pid = fork();
    if (pid == 0) {
        int count = 0;
        _exit(cudaGetDeviceCount(&count) == cudaSuccess && count > 0 ? 0 : 1);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        if (why && n)
            snprintf(why, n, "no CUDA device (cudaGetDeviceCount in a child process found none)");
        return 0;
    }
    return 1;
}

static int dd_available(const xcp_dedisperser *self, char *why, size_t n)
{
    (void)self;
    return gpu_available(why, n);
}

/* The job's samples in dedisp's packing: nchans * nbits / 8 bytes a
 * spectrum (dedisp_execute's in_stride), read by dedisp as 32-bit words with
 * the first channel in the low bits (little-endian: the low bits of the
 * first byte); channel order reversed when rev. */
static unsigned char *pack(const xcp_ddjob *job, int rev)
{
    int nb = job->nbits, nc = job->nchans;
    size_t stride = (size_t)nc * (size_t)nb / 8;
    unsigned char *w = (unsigned char *)calloc(stride * job->nsamp + 4, 1);
    if (!w)
        return NULL;
    for (size_t t = 0; t < job->nsamp; t++) {
        const uint16_t *s = job->u16 + t * (size_t)nc;
        unsigned char *o = w + t * stride;
        for (int c = 0; c < nc; c++) {
            uint32_t v = s[rev ? nc - 1 - c : c];
            size_t bit = (size_t)c * (size_t)nb;
            for (int k = 0; k < nb; k += 8 < nb ? 8 : nb) {
                size_t at = bit + (size_t)k;
                o[at / 8] |= (unsigned char)(((v >> k) & ((1u << (nb < 8 ? nb : 8)) - 1)) << (at % 8));
            }
        }
    }
    return w;
}

static xcp_status dd_fail(xcp_error *err, dedisp_error de, const char *what)
{
    return host->error_set(err, de == DEDISP_MEM_ALLOC_FAILED ? XCP_ENOMEM : XCP_EDEVICE, "dedisp: %s: %s", what,
                           dedisp_get_error_string(de));
}

/* One range through one dedisp plan. */
static xcp_status run_range(const xcp_ddjob *job, int rev, const unsigned char *in, const xcp_ddrange *r,
                            xcp_planerange *o, int out_nbits, xcp_error *err)
{
    int nc = job->nchans;
    double df = job->foff < 0 ? job->foff : -job->foff;
    double f0 = rev ? job->fch1 + (nc - 1) * job->foff : job->fch1;
    dedisp_plan plan = NULL;
    dedisp_error de = dedisp_create_plan(&plan, (dedisp_size)nc, (dedisp_float)job->tsamp, (dedisp_float)f0,
                                         (dedisp_float)df);
    if (de)
        return dd_fail(err, de, "dedisp_create_plan");
    xcp_status st = XCP_OK;
    float *dms = (float *)malloc(r->ndm * sizeof *dms);
    int *kill = (int *)malloc((size_t)nc * sizeof *kill);
    unsigned char *out = NULL;
    if (!dms || !kill) {
        st = host->error_set(err, XCP_ENOMEM, "dedisp plugin: out of memory for %zu DMs", r->ndm);
        goto done;
    }
    for (size_t j = 0; j < r->ndm; j++)
        dms[j] = (float)r->dms[j];
    for (int c = 0; c < nc; c++)
        kill[c] = job->killmask ? job->killmask[rev ? nc - 1 - c : c] != 0 : 1;
    if ((de = dedisp_set_dm_list(plan, dms, r->ndm)) || (de = dedisp_set_killmask(plan, kill))) {
        st = dd_fail(err, de, "setting the DM list and kill mask");
        goto done;
    }
    size_t maxd = dedisp_get_max_delay(plan);
    if (maxd >= job->nsamp) {
        st = host->error_set(err, XCP_EINVAL, "dedisp: its max delay %zu samples is not below the block's %zu", maxd,
                             job->nsamp);
        goto done;
    }
    size_t nd = job->nsamp - maxd, ob = (size_t)out_nbits / 8;
    if (nd < o->nsamp) {
        st = host->error_set(err, XCP_EMISMATCH,
                             "dedisp: writes %zu samples per trial (its max delay %zu), the plane wants %zu", nd, maxd,
                             o->nsamp);
        goto done;
    }
    out = (unsigned char *)malloc(nd * r->ndm * ob);
    if (!out) {
        st = host->error_set(err, XCP_ENOMEM, "dedisp plugin: out of memory for the output");
        goto done;
    }
    de = dedisp_execute(plan, job->nsamp, in, (dedisp_size)job->nbits, out,
                        (dedisp_size)out_nbits, DEDISP_USE_DEFAULT);
    if (de) {
        st = dd_fail(err, de, "dedisp_execute");
        goto done;
    }
    for (size_t j = 0; j < r->ndm; j++)
        for (size_t t = 0; t < o->nsamp; t++) {
            size_t i = j * nd + t;
            o->data[j * o->nsamp + t] = out_nbits == 32 ? ((const float *)out)[i] : (float)out[i];
        }
done:
    free(out);
    free(kill);
    free(dms);
    dedisp_destroy_plan(plan);
    return st;
}

static xcp_status dd_run(const xcp_dedisperser *self, const xcp_ddjob *job, xcp_plane *out, xcp_error *err)
{
    int out_nbits = *(const int *)self->data;
    if (job->nbits == 32)
        return host->error_set(err, XCP_EUNAVAIL,
                               "dedisp: 32-bit input is read as unsigned integers (kernels.cuh); float32 "
                               "filterbanks are not supported");
    for (int k = 0; k < job->nranges; k++)
        if (job->range[k].ds != 1)
            return host->error_set(err, XCP_EUNAVAIL, "dedisp: no downsampling (range %d has ds %d)", k,
                                   job->range[k].ds);
    if ((size_t)job->nchans * (size_t)job->nbits % 8)
        return host->error_set(err, XCP_EUNAVAIL, "dedisp: %d channels of %d bits are not whole bytes a spectrum",
                               job->nchans, job->nbits);
    int rev = job->foff > 0;
    unsigned char *in = pack(job, rev);
    if (!in)
        return host->error_set(err, XCP_ENOMEM, "dedisp plugin: out of memory packing %zu spectra", job->nsamp);
    xcp_status st = XCP_OK;
    for (int k = 0; k < job->nranges && !st; k++)
        st = run_range(job, rev, in, &job->range[k], &out->range[k], out_nbits, err);
    free(in);
    return st;
}

static const int bits32 = 32, bits8 = 8;

static const xcp_dedisperser dd32 = {
    .size = sizeof(xcp_dedisperser),
    .name = "dedisp",
    .desc = "dedisp (ajameson/dedisp) on the GPU, float output (peer plugin)",
    .tol_kind = XCP_TOL_ROUNDING,
    .caps = XCP_CAP_DEVICE,
    .tol_value = 1.0,
    .data = &bits32,
    .available = dd_available,
    .run = dd_run,
};

static const xcp_dedisperser dd8 = {
    .size = sizeof(xcp_dedisperser),
    .name = "dedisp-out8",
    .desc = "dedisp (ajameson/dedisp) on the GPU, 8-bit output (peer plugin)",
    .tol_kind = XCP_TOL_ROUNDING,
    .caps = XCP_CAP_DEVICE,
    .tol_value = 1.0,
    .data = &bits8,
    .available = dd_available,
    .run = dd_run,
};

static xcp_status init(const xcp_host *h, xcp_error *err)
{
    host = h;
    xcp_status st = h->add_dedisperser(h, &dd32, err);
    return st ? st : h->add_dedisperser(h, &dd8, err);
}

XC_PLUGIN_DEFINE("dedisp", "1.0", init)
