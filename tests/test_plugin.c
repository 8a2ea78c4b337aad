/* Plugin ABI 2.2 (include/crosscheck/xc_plugin.h).
 *
 * - The layout of every view, descriptor and table is pinned (_Static_assert
 *   on offsetof and sizeof below): a change that moves a member fails the
 *   build; an appended one changes only sizeof and the pins of the sizes.
 * - The probe plugin (tests/plugin_probe.c) is built at run time against
 *   that header alone with cc, c++ (-x c++) and, where nvcc exists, nvcc
 *   (-x cu; without nvcc that case is skipped, never passed), loaded, and
 *   run through the internal descriptors the host registered: its plane,
 *   powers and peaks are checked, and the views it recorded are compared
 *   member by member with the internal structs they were made from.
 * - This program and the plugin host (cli/base/plugin/cli_plugin*.c) are built with the
 *   internal option structs grown (XC_TEST_GROW, see the Makefile: members
 *   at their start and their end, filled here with junk), the plugin is not:
 *   a view that leaked an internal layout would show the plugin junk.
 * - What the host refuses: another ABI version, a descriptor too small, a
 *   reference, a missing method, a name twice, a peak or a single-pulse
 *   detection outside the search; and no cap on the number of plugin
 *   implementations.  Plugins of ABI 2.0 and 2.1 still load and run.
 * - The single-pulse example (examples/plugin-dedisp/sp.c) built as C++
 *   passes its family's conformance suite; its planted bug fails it. */
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/base/plugin/cli_plugin.h"
#include "cli/base/plugin/cli_plugin_reg.h"
#include "core/base/xc_impl.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "compare/conform/xc_conform_sp.h"
#include "core/search/xc_search.h"
#include "core/sp/xc_spsearch.h"
#include "include/crosscheck/xc_plugin.h"
#include "reference/xc_sp_ref.h"
#include "tests/plugin_probe.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- the layout, pinned (LP64: x86-64, aarch64) ----------------------------------- */

#define PIN(T, m, off) _Static_assert(offsetof(T, m) == (off), #T "." #m " moved")
#define SIZE(T, n) _Static_assert(sizeof(T) == (n), "sizeof(" #T ") changed")
#if UINTPTR_MAX == UINT64_MAX
PIN(xcp_error, code, 0); PIN(xcp_error, msg, 4); SIZE(xcp_error, 1028);
PIN(xcp_ddrange, ds, 0); PIN(xcp_ddrange, ndm, 8); PIN(xcp_ddrange, dms, 16); PIN(xcp_ddrange, delays, 24);
SIZE(xcp_ddrange, 32);
PIN(xcp_ddjob, size, 0); PIN(xcp_ddjob, nchans, 8); PIN(xcp_ddjob, nbits, 12); PIN(xcp_ddjob, nsamp, 16);
PIN(xcp_ddjob, u16, 24); PIN(xcp_ddjob, f32, 32); PIN(xcp_ddjob, fch1, 40); PIN(xcp_ddjob, foff, 48);
PIN(xcp_ddjob, tsamp, 56); PIN(xcp_ddjob, convention, 64); PIN(xcp_ddjob, kdm, 72); PIN(xcp_ddjob, rounding, 80);
PIN(xcp_ddjob, precision, 84); PIN(xcp_ddjob, scaling, 88); PIN(xcp_ddjob, threads, 92); PIN(xcp_ddjob, nranges, 96);
PIN(xcp_ddjob, range, 104); PIN(xcp_ddjob, max_delay, 112); PIN(xcp_ddjob, nout, 120); PIN(xcp_ddjob, killmask, 128);
SIZE(xcp_ddjob, 136);
PIN(xcp_planerange, ds, 0); PIN(xcp_planerange, ndm, 8); PIN(xcp_planerange, nsamp, 16);
PIN(xcp_planerange, data, 24); SIZE(xcp_planerange, 32);
PIN(xcp_plane, size, 0); PIN(xcp_plane, nranges, 8); PIN(xcp_plane, range, 16); SIZE(xcp_plane, 24);
PIN(xcp_ddbound, smear, 0); PIN(xcp_ddbound, bound, 8); PIN(xcp_ddbound, nominal, 16); SIZE(xcp_ddbound, 24);
PIN(xcp_dedisperser, size, 0); PIN(xcp_dedisperser, name, 8); PIN(xcp_dedisperser, desc, 16);
PIN(xcp_dedisperser, tol_kind, 24); PIN(xcp_dedisperser, caps, 28); PIN(xcp_dedisperser, tol_value, 32);
PIN(xcp_dedisperser, data, 40); PIN(xcp_dedisperser, available, 48); PIN(xcp_dedisperser, run, 56);
PIN(xcp_dedisperser, plan, 64); PIN(xcp_dedisperser, execute, 72); PIN(xcp_dedisperser, destroy, 80);
PIN(xcp_dedisperser, bound, 88); SIZE(xcp_dedisperser, 96);
PIN(xcp_spectrum, size, 0); PIN(xcp_spectrum, nbins, 8); PIN(xcp_spectrum, data, 16); PIN(xcp_spectrum, dt, 24);
PIN(xcp_spectrum, T, 32); SIZE(xcp_spectrum, 40);
PIN(xcp_psopts, size, 0); PIN(xcp_psopts, zmax, 8); PIN(xcp_psopts, numharm, 12); PIN(xcp_psopts, zstep, 16);
PIN(xcp_psopts, zlog, 20); PIN(xcp_psopts, rblock, 24); PIN(xcp_psopts, nosift, 28); PIN(xcp_psopts, norm, 32);
PIN(xcp_psopts, logp, 36); PIN(xcp_psopts, threads, 40); PIN(xcp_psopts, chunkwidth, 48);
PIN(xcp_psopts, normwidth, 56); PIN(xcp_psopts, sigma, 64); SIZE(xcp_psopts, 72);
PIN(xcp_peak, size, 0); PIN(xcp_peak, i, 8); PIN(xcp_peak, width, 16); PIN(xcp_peak, numharm, 20);
PIN(xcp_peak, filled, 24); PIN(xcp_peak, power, 32); PIN(xcp_peak, logp, 40); SIZE(xcp_peak, 48);
PIN(xcp_searcher, size, 0); PIN(xcp_searcher, name, 8); PIN(xcp_searcher, desc, 16); PIN(xcp_searcher, tol_kind, 24);
PIN(xcp_searcher, caps, 28); PIN(xcp_searcher, own_powers, 32); PIN(xcp_searcher, tol_value, 40);
PIN(xcp_searcher, data, 48); PIN(xcp_searcher, available, 56); PIN(xcp_searcher, powers, 64);
PIN(xcp_searcher, peaks, 72); SIZE(xcp_searcher, 80);
PIN(xcp_host, size, 0); PIN(xcp_host, abi_major, 8); PIN(xcp_host, abi_minor, 12); PIN(xcp_host, ctx, 16);
PIN(xcp_host, add_dedisperser, 24); PIN(xcp_host, add_searcher, 32); PIN(xcp_host, error_set, 40);
PIN(xcp_host, scale_int, 48); PIN(xcp_host, scale_real, 56); PIN(xcp_host, peaks_push, 64);
PIN(xcp_host, add_spsearcher, 72); PIN(xcp_host, spdets_push, 80); PIN(xcp_host, sp_row_stats, 88);
PIN(xcp_host, sp_box_baseline, 96); SIZE(xcp_host, 104);
PIN(xcp_spconf, size, 0); PIN(xcp_spconf, stat, 8); PIN(xcp_spconf, nwidths, 12); PIN(xcp_spconf, threshold, 16);
PIN(xcp_spconf, block, 24); PIN(xcp_spconf, widths, 32); PIN(xcp_spconf, threads, 40); SIZE(xcp_spconf, 48);
PIN(xcp_spplane, size, 0); PIN(xcp_spplane, data, 8); PIN(xcp_spplane, nrows, 16); PIN(xcp_spplane, nsamp, 24);
PIN(xcp_spplane, stride, 32); PIN(xcp_spplane, tsamp, 40); PIN(xcp_spplane, ds, 48); PIN(xcp_spplane, dms, 56);
PIN(xcp_spplane, row_s, 64); PIN(xcp_spplane, row_m, 72); SIZE(xcp_spplane, 80);
PIN(xcp_spdet, size, 0); PIN(xcp_spdet, snr, 8); PIN(xcp_spdet, sample, 16); PIN(xcp_spdet, width, 24);
PIN(xcp_spdet, windex, 28); PIN(xcp_spdet, dm_index, 32); PIN(xcp_spdet, begin, 40); PIN(xcp_spdet, end, 48);
SIZE(xcp_spdet, 56);
PIN(xcp_spsearcher, size, 0); PIN(xcp_spsearcher, name, 8); PIN(xcp_spsearcher, desc, 16);
PIN(xcp_spsearcher, tol_kind, 24); PIN(xcp_spsearcher, caps, 28); PIN(xcp_spsearcher, tol_value, 32);
PIN(xcp_spsearcher, data, 40); PIN(xcp_spsearcher, available, 48); PIN(xcp_spsearcher, detect, 56);
PIN(xcp_spsearcher, row_stats, 64); SIZE(xcp_spsearcher, 72);
PIN(xcp_info, abi_major, 0); PIN(xcp_info, abi_minor, 4); PIN(xcp_info, size, 8); PIN(xcp_info, name, 16);
PIN(xcp_info, version, 24); PIN(xcp_info, init, 32); SIZE(xcp_info, 40);
#endif
_Static_assert(XC_PLUGIN_ABI_MAJOR == 2 && XC_PLUGIN_ABI_MINOR == 2, "ABI 2.2");
_Static_assert(XCP_SP_MEDIAN_MAD == 0 && XCP_SP_MEAN_SD == 1, "single-pulse row statistics");
_Static_assert(XCP_OK == 0 && XCP_EINVAL == 1 && XCP_EFORMAT == 2 && XCP_EIO == 3 && XCP_ENOMEM == 4 &&
                   XCP_EUNAVAIL == 5 && XCP_EMISMATCH == 6 && XCP_EDEVICE == 7,
               "status codes");
_Static_assert(XCP_CAP_THREADED == 2 && XCP_CAP_DEVICE == 4 && XCP_CAP_APPROXIMATE == 8 && XCP_CAP_RUNTIME == 16 &&
                   XCP_TOL_EXACT == 0 && XCP_TOL_ROUNDING == 1 && XCP_TOL_RELATIVE == 2 && XCP_TOL_SIGNAL_LOSS == 3,
               "caps and tolerance kinds");
_Static_assert(XCP_ROUND_HALF_AWAY == 0 && XCP_ROUND_HALF_EVEN == 1 && XCP_ROUND_TRUNC == 2 && XCP_PREC_DOUBLE == 0 &&
                   XCP_PREC_FLOAT == 1 && XCP_SCALE_SUM == 0 && XCP_SCALE_DEDISP == 1 && XCP_SCALE_MEAN_AA == 2 &&
                   XCP_NORM_EXACT == 0 && XCP_NORM_MOM == 1 && XCP_LOGP_EXACT == 0 && XCP_LOGP_POLY == 1,
               "convention and search values");

#ifndef XC_TEST_GROW
#error "tests/test_plugin.c is built with the internal option structs grown (XC_TEST_GROW, the Makefile)"
#endif

XC_TEST(test_layout, "plugin ABI: the views are pinned; this host's internal option structs have grown")
{
    /* The grown members stand before the first and after the last of each
     * options struct: every member a leaked layout would read has moved. */
    CU_ASSERT_EQUAL(offsetof(xc_psopts, zmax), XC_TEST_GROW * sizeof(double));
    CU_ASSERT_EQUAL(offsetof(xc_ddopts, threads), XC_TEST_GROW * sizeof(double));
    CU_ASSERT_EQUAL(XCP_HAS(&(xcp_psopts){.size = sizeof(xcp_psopts)}, xcp_psopts, sigma), 1);
    CU_ASSERT_EQUAL(XCP_HAS(&(xcp_psopts){.size = offsetof(xcp_psopts, sigma)}, xcp_psopts, sigma), 0);
}

/* ---- building the probe ------------------------------------------------------------ */

/* Runs a shell command, its output into out; returns its exit status. */
static int shell(char *out, size_t n, const char *cmd)
{
    char full[4096];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t got = 0, r;
    while (got + 1 < n && (r = fread(out + got, 1, n - 1 - got, p)) > 0)
        got += r;
    out[got] = 0;
    char sink[1024];
    while (fread(sink, 1, sizeof sink, p) > 0)
        ;
    return pclose(p);
}

typedef enum { LANG_C, LANG_CXX, LANG_CUDA } lang;

static const char *nvcc_path(void)
{
    static char buf[1024];
    const char *env = getenv("NVCC");
    if (env && *env && access(env, X_OK) == 0)
        return env;
    char out[1024];
    if (shell(out, sizeof out, "command -v nvcc") == 0 && out[0]) {
        out[strcspn(out, "\n")] = 0;
        snprintf(buf, sizeof buf, "%s", out);
        return buf;
    }
    return access("/usr/local/cuda/bin/nvcc", X_OK) == 0 ? "/usr/local/cuda/bin/nvcc" : NULL;
}

static int skip_no_nvcc(char *why, size_t n)
{
    if (nvcc_path())
        return 0;
    snprintf(why, n, "no nvcc (NVCC, PATH, /usr/local/cuda/bin): the CUDA-built plugin is not tested here");
    return 1;
}

/* Builds src (relative to the repository root, the current folder) with
 * the language's compiler and defs into the test's folder as name; the
 * path, or NULL after a failed assertion holding the compiler's output. */
static const char *build(lang l, const char *src, const char *defs, const char *name)
{
    static char path[8][1024];
    static int k;
    char *out = path[k++ % 8];
    snprintf(out, sizeof path[0], "%s", xc_fx_tmp(name));
    const char *warn = "-Wall -Wextra -Werror";
    char cmd[3072], log[8192];
    if (l == LANG_C)
        snprintf(cmd, sizeof cmd, "cc -std=c11 -pedantic %s -O1 -fPIC -shared -Iinclude/crosscheck %s -o '%s' '%s' -lm",
                 warn, defs, out, src);
    else if (l == LANG_CXX)
        /* designated initialisers leave members out on purpose */
        snprintf(cmd, sizeof cmd, "c++ -x c++ -std=c++20 -pedantic %s -Wno-missing-field-initializers -O1 -fPIC "
                 "-shared -Iinclude/crosscheck %s -o '%s' '%s' -lm", warn, defs, out, src);
    else
        snprintf(cmd, sizeof cmd, "'%s' -x cu -O1 -shared -Xcompiler -fPIC,-Wall,-Wextra,-Werror,"
                 "-Wno-missing-field-initializers -Iinclude/crosscheck %s -o '%s' '%s'", nvcc_path(), defs, out, src);
    int rc = shell(log, sizeof log, cmd);
    if (rc != 0)
        fprintf(stderr, "\n%s\n%s\n", cmd, log);
    CU_ASSERT_EQUAL(rc, 0);
    return rc == 0 ? out : NULL;
}

/* ---- an internal job and the plane it must give ------------------------------------- */

#define NCH 8
#define NSAMP 300

typedef struct {
    uint16_t data[NSAMP * NCH];
    uint8_t mask[NCH];
    double dms0[3], dms1[2];
    xc_dmrange r[2];
    xc_dmplan plan;
    xc_block in;
    xc_ddjob job;
    xc_plane plane, want;
    xc_planerange pr[2], wr[2];
} ddcase;

/* Two ranges (the second downsampled by 2), one channel killed, 8-bit
 * data; the job's options hold junk but for threads.  Made by hand: the
 * library's job functions were built with the structs not grown. */
static void dd_case(ddcase *c)
{
    memset(c, 0, sizeof *c);
    uint64_t s = 7;
    for (size_t i = 0; i < NSAMP * NCH; i++)
        c->data[i] = (uint16_t)(xc_fx_rng_next(&s) >> 56);
    memset(c->mask, 1, sizeof c->mask);
    c->mask[3] = 0;
    c->dms0[0] = 0, c->dms0[1] = 40, c->dms0[2] = 80;
    c->dms1[0] = 100, c->dms1[1] = 150;
    c->r[0] = (xc_dmrange){.lo = 0, .hi = 120, .step = 40, .ds = 1, .ndm = 3, .dms = c->dms0};
    c->r[1] = (xc_dmrange){.lo = 100, .hi = 200, .step = 50, .ds = 2, .ndm = 2, .dms = c->dms1};
    c->plan = (xc_dmplan){.nranges = 2, .r = c->r, .kind = "ranges"};
    c->in = (xc_block){.nchans = NCH, .nsamp = NSAMP, .nbits = 8, .u16 = c->data};
    xc_ddjob *j = &c->job;
    memset(&j->opts, 0xA5, sizeof j->opts);
    j->opts.threads = 3;
    j->in = &c->in;
    j->plan = &c->plan;
    j->conv = xc_convention_get("crosscheck");
    j->geom = (xc_geometry){.nchans = NCH, .fch1 = 1400, .foff = -20, .tsamp = 1e-3};
    j->nbits = 8;
    j->killmask = c->mask;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_max_delay(j->conv, &j->geom, &c->plan, &j->max_delay, &e), XC_OK);
    j->nout = NSAMP - (size_t)j->max_delay;
    j->delays = calloc(2, sizeof *j->delays);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j->delays);
    for (int k = 0; k < 2; k++) {
        j->delays[k] = calloc(c->r[k].ndm * NCH, sizeof **j->delays);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j->delays[k]);
        CU_ASSERT_EQUAL_FATAL(xc_delays_compute(j->conv, &j->geom, &c->r[k], j->delays[k], &e), XC_OK);
        size_t n = j->nout / (size_t)c->r[k].ds;
        c->pr[k] = (xc_planerange){c->r[k].ds, c->r[k].ndm, n, calloc(c->r[k].ndm * n, sizeof(float))};
        c->wr[k] = (xc_planerange){c->r[k].ds, c->r[k].ndm, n, calloc(c->r[k].ndm * n, sizeof(float))};
        CU_ASSERT_FATAL(c->pr[k].data && c->wr[k].data);
        for (size_t dm = 0; dm < c->r[k].ndm; dm++)
            for (size_t t = 0; t < n; t++) {
                uint64_t sum = 0;
                for (int ch = 0; ch < NCH; ch++)
                    for (int i = 0; c->mask[ch] && i < c->r[k].ds; i++)
                        sum += c->data[((t + (size_t)j->delays[k][dm * NCH + ch]) * (size_t)c->r[k].ds +
                                        (size_t)i) * NCH + (size_t)ch];
                c->wr[k].data[dm * n + t] = xc_scale_int(j->conv, sum, NCH, c->r[k].ds, 8);
            }
    }
    c->plane = (xc_plane){2, c->pr};
    c->want = (xc_plane){2, c->wr};
}

static void dd_case_free(ddcase *c)
{
    for (int k = 0; k < 2; k++) {
        free(c->job.delays[k]);
        free(c->pr[k].data);
        free(c->wr[k].data);
    }
    free(c->job.delays);
}

static int planes_equal(const xc_plane *a, const xc_plane *b)
{
    for (int k = 0; k < a->nranges; k++)
        if (memcmp(a->r[k].data, b->r[k].data, a->r[k].ndm * a->r[k].nsamp * sizeof(float)))
            return 0;
    return 1;
}

/* The job's view as the plugin recorded it, member by member against the
 * internal job. */
static void assert_job_view(const xcp_ddjob *v, const ddcase *c, int with_block)
{
    const xc_ddjob *j = &c->job;
    const double got[] = {v->size, v->nchans, v->nbits, v->nsamp, v->fch1, v->foff, v->tsamp, v->kdm, v->rounding,
                          v->precision, v->scaling, v->threads, v->nranges, v->max_delay, v->nout};
    const double want[] = {sizeof(xcp_ddjob), NCH, 8, with_block ? NSAMP : 0, 1400, -20, 1e-3, j->conv->kdm,
                           j->conv->rounding, j->conv->precision, j->conv->scaling, 3, 2, j->max_delay,
                           with_block ? j->nout : 0};
    xc_fx_assert_fields("size nchans nbits nsamp fch1 foff tsamp kdm rounding precision scaling threads nranges "
                        "max_delay nout", got, want, sizeof got / sizeof got[0]);
    CU_ASSERT_PTR_EQUAL(v->u16, with_block ? c->data : NULL);
    CU_ASSERT_PTR_NULL(v->f32);
    CU_ASSERT_STRING_EQUAL(v->convention, "crosscheck");
    CU_ASSERT_PTR_EQUAL(v->killmask, c->mask);
}

static void assert_ranges(const xcp_probe_record *seen, const ddcase *c)
{
    for (int k = 0; k < 2; k++) {
        const xcp_ddrange *r = &seen->range[k];
        const xcp_planerange *o = &seen->prange[k];
        const double got[] = {r->ds, r->ndm, o->ds, o->ndm, o->nsamp};
        const double want[] = {c->r[k].ds, c->r[k].ndm, c->pr[k].ds, c->pr[k].ndm, c->pr[k].nsamp};
        xc_fx_assert_fields("ds ndm plane.ds plane.ndm plane.nsamp", got, want, 5);
        CU_ASSERT(r->dms == c->r[k].dms && r->delays == c->job.delays[k] && o->data == c->pr[k].data);
    }
    CU_ASSERT(seen->plane.size == sizeof(xcp_plane) && seen->plane.nranges == 2);
}

/* ---- a spectrum and options ------------------------------------------------------------ */

#define NBINS 64

typedef struct {
    float data[2 * NBINS];
    xc_spectrum sp;
    xc_psopts o;
    double P[NBINS], thr[2 * 6];
} pscase;

static void ps_case(pscase *c)
{
    memset(c, 0, sizeof *c);
    uint64_t s = 11;
    for (size_t i = 0; i < 2 * NBINS; i++)
        c->data[i] = (float)((double)(xc_fx_rng_next(&s) >> 11) / 9007199254740992.0 * 4 - 2);
    c->sp = (xc_spectrum){.data = c->data, .nbins = NBINS, .dt = 1e-3, .T = 2 * NBINS * 1e-3};
    memset(&c->o, 0x5A, sizeof c->o);   /* junk in the grown members */
    c->o.zmax = 4, c->o.numharm = 2, c->o.sigma = 2.5, c->o.zstep = 2, c->o.zlog = 0;
    c->o.chunkwidth = 32768, c->o.normwidth = 6000, c->o.rblock = 0, c->o.nosift = 1;
    c->o.norm = XC_NORM_MOM, c->o.logp = XC_LOGP_POLY, c->o.threads = 2, c->o.tile = 7;
    for (size_t i = 0; i < sizeof c->thr / sizeof c->thr[0]; i++)
        c->thr[i] = 1.5;
}

static void assert_ps_views(const xcp_probe_record *seen, const pscase *c)
{
    const xcp_spectrum *sp = &seen->sp;
    const xcp_psopts *o = &seen->opts;
    const double got[] = {sp->size, sp->nbins, sp->dt, sp->T, o->size, o->zmax, o->numharm, o->sigma, o->zstep,
                          o->zlog, o->chunkwidth, o->normwidth, o->rblock, o->nosift, o->norm, o->logp, o->threads};
    const double want[] = {sizeof(xcp_spectrum), NBINS, 1e-3, c->sp.T, sizeof(xcp_psopts), 4, 2, 2.5, 2, 0, 32768,
                           6000, 0, 1, XCP_NORM_MOM, XCP_LOGP_POLY, 2};
    xc_fx_assert_fields("sp.size nbins dt T opts.size zmax numharm sigma zstep zlog chunkwidth normwidth rblock "
                        "nosift norm logp threads", got, want, sizeof got / sizeof got[0]);
    CU_ASSERT_PTR_EQUAL(sp->data, c->data);
}

/* ---- a DM-time plane ------------------------------------------------------------------- */

#define SPROWS 3
#define SPN 20
#define SPSTRIDE 24

typedef struct {
    float x[SPROWS * SPSTRIDE];
    double dms[SPROWS], rs[SPROWS], rm[SPROWS];
    xc_spconf c;
    xc_spplane pl;
} spcase;

/* Rows SPSTRIDE apart (the plane's stride is not its length), two widths. */
static void sp_case(spcase *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < SPROWS * SPSTRIDE; i++)
        c->x[i] = (float)(i % 7) - 2.5f;
    for (int r = 0; r < SPROWS; r++)
        c->dms[r] = 5.0 * r;
    c->c = (xc_spconf){.stat = XC_SP_MEAN_SD, .threshold = 4.5, .block = 17, .nwidths = 2, .widths = {3, 8},
                       .threads = 2};
    c->pl = (xc_spplane){c->x, SPROWS, SPN, SPSTRIDE, 0, 2e-3, 2, 4, c->dms, c->rs, c->rm};
}

/* The probe's detections (one per row: the first box of width 3, snr the
 * row's first value) and the views it recorded. */
static void check_sp(const xc_spsearcher *sp, xcp_probe_record *seen)
{
    spcase c;
    sp_case(&c);
    xc_spdets out = {0};
    xc_error e;
    CU_ASSERT_EQUAL(xc_sp_detect(sp, &c.c, &c.pl, &out, &e), XC_OK);
    CU_ASSERT_EQUAL_FATAL(out.n, SPROWS);
    for (size_t r = 0; r < SPROWS; r++) {
        const xc_spdet *d = &out.d[r];
        const double got[] = {d->snr, d->sample, d->width, d->windex, d->dm_index, d->begin, d->end};
        const double want[] = {c.x[r * SPSTRIDE], 0, 3, 0, (double)r, 0, 3};
        xc_fx_assert_fields("snr sample width windex dm_index begin end", got, want, 7);
    }
    xc_spdets_free(&out);
    const xcp_spconf *v = &seen->spconf;
    const xcp_spplane *p = &seen->spplane;
    const double got[] = {v->size, v->stat, v->nwidths, v->threshold, v->block, v->threads, p->size, p->nrows,
                          p->nsamp, p->stride, p->tsamp, p->ds};
    const double want[] = {sizeof(xcp_spconf), XCP_SP_MEAN_SD, 2, 4.5, 17, 2, sizeof(xcp_spplane), SPROWS, SPN,
                           SPSTRIDE, 2e-3, 2};
    xc_fx_assert_fields("conf.size stat nwidths threshold block threads plane.size nrows nsamp stride tsamp ds", got,
                        want, sizeof got / sizeof got[0]);
    CU_ASSERT(v->widths == c.c.widths && p->data == c.x && p->dms == c.dms);
    CU_ASSERT(p->row_s == c.rs && p->row_m == c.rm);   /* ABI 2.2: the given row statistics, where they lie */
    /* a plane in device memory is refused, naming the searcher */
    c.pl.device = 1;
    CU_ASSERT_EQUAL(xc_sp_detect(sp, &c.c, &c.pl, &out, &e), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "probe-sp: the plane is in device memory"));
    xc_spdets_free(&out);
}

/* ---- loading and running the probe ------------------------------------------------------- */

static xcp_probe_record *record_of(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    xcp_probe_record *r = dlsym(h, XCP_PROBE_SYMBOL);
    dlclose(h);   /* the host's handle keeps it loaded */
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    return r;
}

static xc_registry *load(const char *path)
{
    xc_registry *reg;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_registry_create(&reg, &e), XC_OK);
    xc_status st = xc_cli_plugin_load(reg, path, &e);
    if (st)
        fprintf(stderr, "\n%s\n", e.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    return reg;
}

/* The C probe built with defs as so and loaded (the case ends if it does
 * not build): its registry; its file into *path unless path is NULL. */
static xc_registry *probe(const char *defs, const char *so, const char **path)
{
    const char *p = build(LANG_C, "tests/plugin_probe.c", defs, so);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    if (path)
        *path = p;
    return load(p);
}

static const xc_dedisperser *dd_named(const xc_registry *reg, const char *name)
{
    const xc_dedisperser *dd = xc_dedisperser_of(xc_registry_find(reg, XC_FAMILY_DEDISPERSE, name));
    CU_ASSERT_PTR_NOT_NULL_FATAL(dd);
    return dd;
}

/* Runs dd on a fresh case c and checks its plane; the caller frees c. */
static void run_dd(const xc_dedisperser *dd, ddcase *c)
{
    dd_case(c);
    xc_error e;
    xc_status st = dd->run(dd, &c->job, &c->plane, &e);
    if (st)
        fprintf(stderr, "\n%s\n", e.msg);
    CU_ASSERT_EQUAL(st, XC_OK);
    CU_ASSERT(planes_equal(&c->plane, &c->want));
}

/* Loads the probe at path and runs its dedisperser and searcher in-process
 * (the views are recorded in this process), checking results and views. */
static void check_probe(const char *path)
{
    if (!path)
        return;
    xc_registry *reg = load(path);
    const xc_dedisperser *dd = dd_named(reg, "probe-dd");
    const xc_searcher *ps = xc_searcher_of(xc_registry_find(reg, XC_FAMILY_PULSCAN, "probe-ps"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(ps);
    CU_ASSERT_EQUAL(dd->impl.caps, XC_CAP_THREADED | XC_CAP_RUNTIME);
    CU_ASSERT_EQUAL(ps->impl.tol.kind, XC_TOL_RELATIVE);
    CU_ASSERT_EQUAL(ps->impl.tol.value, 1e-6);
    CU_ASSERT_STRING_EQUAL(xc_cli_plugin_file(&dd->impl), path);
    xcp_probe_record *seen = record_of(path);
    memset(seen, 0, sizeof *seen);
    seen->self_ok = 1;
    setenv("CROSSCHECK_PLUGIN_ISOLATE", "0", 1);
    char why[64];
    CU_ASSERT_EQUAL(xc_impl_available(&dd->impl, why, sizeof why), 1);
    CU_ASSERT_EQUAL(xc_impl_available(&ps->impl, why, sizeof why), 1);

    ddcase c;
    run_dd(dd, &c);
    assert_job_view(&seen->plan_job, &c, 0);
    assert_job_view(&seen->job, &c, 1);
    assert_ranges(seen, &c);
    dd_case_free(&c);

    pscase p;
    ps_case(&p);
    xc_error e;
    CU_ASSERT_EQUAL(ps->powers(ps, &p.sp, &p.o, p.P, &e), XC_OK);
    assert_ps_views(seen, &p);
    size_t above = 0;
    for (size_t k = 1; k < NBINS; k++) {
        double want = (double)p.data[2 * k] * p.data[2 * k] + (double)p.data[2 * k + 1] * p.data[2 * k + 1];
        CU_ASSERT_EQUAL(p.P[k], want);
        above += want > 1.5;
    }
    memset(&seen->opts, 0, sizeof seen->opts);
    xc_pspeaks pk;
    xc_pspeaks_init(&pk);
    CU_ASSERT_EQUAL(ps->peaks(ps, &p.sp, &p.o, p.P, p.thr, &pk, &e), XC_OK);
    assert_ps_views(seen, &p);
    CU_ASSERT_PTR_EQUAL(seen->thr, p.thr);
    CU_ASSERT(above > 0);
    CU_ASSERT_EQUAL(pk.n, above);
    for (size_t i = 0; i < pk.n; i++) {
        CU_ASSERT(pk.p[i].width == 1 && pk.p[i].numharm == 1 && pk.p[i].power == p.P[pk.p[i].i]);
        CU_ASSERT(isnan(pk.p[i].logp) && pk.p[i].filled == -1);   /* crosscheck scores them */
    }
    xc_pspeaks_free(&pk);

    const xc_spsearcher *sp = xc_spsearcher_of(xc_registry_find(reg, XC_FAMILY_SINGLEPULSE, "probe-sp"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    CU_ASSERT(sp->impl.tol.kind == XC_TOL_EXACT && sp->impl.caps == XC_CAP_RUNTIME);
    CU_ASSERT_EQUAL(sp->row_stats, 1);   /* ABI 2.2: it takes the whole rows' statistics in gulps */
    CU_ASSERT_STRING_EQUAL(xc_cli_plugin_file(&sp->impl), path);
    check_sp(sp, seen);
    CU_ASSERT_EQUAL(seen->self_ok, 1);
    CU_ASSERT_EQUAL(*(const int *)seen->data, 0);
    CU_ASSERT(seen->calls >= 8);
    unsetenv("CROSSCHECK_PLUGIN_ISOLATE");
    xc_registry_destroy(reg);
}

XC_TEST(test_probe_c, "plugin ABI: a plugin built with cc sees the views crosscheck's structs hold")
{
    check_probe(build(LANG_C, "tests/plugin_probe.c", "", "libprobe_c.so"));
}

XC_TEST(test_probe_cxx, "plugin ABI: a plugin built with c++ exports an unmangled entry and works alike")
{
    check_probe(build(LANG_CXX, "tests/plugin_probe.c", "", "libprobe_cxx.so"));
}

XC_TEST_IF(test_probe_cuda, "plugin ABI: a plugin built with nvcc -x cu exports an unmangled entry and works alike",
           skip_no_nvcc)
{
    check_probe(build(LANG_CUDA, "tests/plugin_probe.c", "", "libprobe_cu.so"));
}

/* The probe's raw peaks and single-pulse detections, each list sent back
 * from the child process. */
static void isolated_lists(const xc_registry *reg)
{
    const xc_searcher *ps = xc_searcher_of(xc_registry_find(reg, XC_FAMILY_PULSCAN, "probe-ps"));
    const xc_spsearcher *sp = xc_spsearcher_of(xc_registry_find(reg, XC_FAMILY_SINGLEPULSE, "probe-sp"));
    CU_ASSERT_FATAL(ps && sp);
    pscase p;
    ps_case(&p);
    xc_error e;
    CU_ASSERT_EQUAL(ps->powers(ps, &p.sp, &p.o, p.P, &e), XC_OK);
    size_t above = 0;
    for (size_t k = 1; k < NBINS; k++)
        above += p.P[k] > 1.5;
    xc_pspeaks pk;
    xc_pspeaks_init(&pk);
    CU_ASSERT_EQUAL(ps->peaks(ps, &p.sp, &p.o, p.P, p.thr, &pk, &e), XC_OK);
    CU_ASSERT(above > 0 && pk.n == above);
    for (size_t i = 0; i < pk.n; i++)
        CU_ASSERT(pk.p[i].power == p.P[pk.p[i].i]);
    xc_pspeaks_free(&pk);
    spcase c;
    sp_case(&c);
    xc_spdets out = {0};
    CU_ASSERT_EQUAL(xc_sp_detect(sp, &c.c, &c.pl, &out, &e), XC_OK);
    CU_ASSERT_EQUAL(out.n, SPROWS);
    for (size_t r = 0; r < out.n; r++)
        CU_ASSERT(out.d[r].snr == c.x[r * SPSTRIDE] && out.d[r].dm_index == (int32_t)r && out.d[r].width == 3);
    xc_spdets_free(&out);
}

/* Calls run in a child process: the plane comes back, the probe's record of
 * the call stays in the child.  The same for the example plugin (a user's
 * dedisperser, with delays of its own) built as C++. */
XC_TEST(test_isolated, "plugin ABI: isolated calls return the plane, peaks and detections (the probe; the example "
                       "built with c++)")
{
    const struct {
        lang l;
        const char *src, *so, *impl;
    } runs[2] = {{LANG_C, "tests/plugin_probe.c", "libprobe_iso.so", "probe-dd"},
                 {LANG_CXX, "examples/plugin-dedisp/dedisp.c", "libexample_cxx.so", "mydedisp"}};
    for (int i = 0; i < 2; i++) {
        const char *path = build(runs[i].l, runs[i].src, "", runs[i].so);
        if (!path)
            continue;
        xc_registry *reg = load(path);
        xcp_probe_record *seen = i == 0 ? record_of(path) : NULL;
        if (seen)
            memset(seen, 0, sizeof *seen);
        ddcase c;
        run_dd(dd_named(reg, runs[i].impl), &c);
        dd_case_free(&c);
        if (seen)
            isolated_lists(reg);
        CU_ASSERT(!seen || seen->calls == 0);
        xc_registry_destroy(reg);
    }
}

/* Any number of plugin implementations per family: each internal
 * descriptor reaches its own plugin descriptor through impl.data. */
XC_TEST(test_many, "plugin ABI: 40 dedispersers and 40 searchers of one plugin, each called with its own self")
{
    const char *path;
    xc_registry *reg = probe("-DPROBE_MANY=40", "libprobe_many.so", &path);
    CU_ASSERT_EQUAL(xc_registry_count(reg, XC_FAMILY_DEDISPERSE), 40);
    CU_ASSERT_EQUAL(xc_registry_count(reg, XC_FAMILY_PULSCAN), 40);
    xcp_probe_record *seen = record_of(path);
    setenv("CROSSCHECK_PLUGIN_ISOLATE", "0", 1);
    for (int i = 0; i < 40; i += 13) {
        char name[32];
        snprintf(name, sizeof name, "probe-dd-%d", i);
        memset(seen, 0, sizeof *seen);
        seen->self_ok = 1;
        ddcase c;
        run_dd(dd_named(reg, name), &c);
        CU_ASSERT_EQUAL(seen->self_ok, 1);
        CU_ASSERT_EQUAL(*(const int *)seen->data, i);
        dd_case_free(&c);
    }
    unsetenv("CROSSCHECK_PLUGIN_ISOLATE");
    xc_registry_destroy(reg);
}

/* Variants of the probe crosscheck refuses, with the message it gives. */
XC_TEST(test_refused, "plugin ABI: other versions, small or reference descriptors, missing methods are refused")
{
    /* the -D that plants it, and what the message says */
    static const char *const bad[][2] = {
        {"-DPROBE_ABI1", "was built against plugin ABI 1.0; this crosscheck has plugin ABI 2.2: rebuild it"},
        {"-DPROBE_MINOR", "was built against plugin ABI 2.3; this crosscheck has plugin ABI 2.2 (a newer minor"},
        {"-DPROBE_SMALL", "a dedisperser descriptor of 88 bytes; plugin ABI 2.0's holds 96"},
        {"-DPROBE_REFERENCE", "a plugin cannot be a reference"},
        {"-DPROBE_NOMETHOD", "dedisperser 'probe-dd' gives neither run nor plan and execute"},
        {"-DPROBE_DUP", "already has an implementation of that name"},
        {"-DPROBE_SPSMALL", "a spsearcher descriptor of 56 bytes; plugin ABI 2.1's holds 64"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "libprobe_bad%zu.so", i);
        const char *path = build(LANG_C, "tests/plugin_probe.c", bad[i][0], name);
        xc_registry *reg;
        xc_error e;
        CU_ASSERT_EQUAL_FATAL(xc_registry_create(&reg, &e), XC_OK);
        CU_ASSERT(path && xc_cli_plugin_load(reg, path, &e) == XC_EINVAL);
        int named = path && strstr(e.msg, bad[i][1]) && strstr(e.msg, path);
        if (path && !named)
            fprintf(stderr, "\n%s: %s\n", bad[i][0], e.msg);
        CU_ASSERT(named);
        xc_registry_destroy(reg);
    }
}

XC_TEST(test_bad_peak, "plugin ABI: a peak outside the search is refused by peaks_push, naming it")
{
    xc_registry *reg = probe("-DPROBE_BADPEAK", "libprobe_badpeak.so", NULL);
    const xc_searcher *ps = xc_searcher_of(xc_registry_find(reg, XC_FAMILY_PULSCAN, "probe-ps"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(ps);
    pscase p;
    ps_case(&p);
    xc_error e;
    CU_ASSERT_EQUAL(ps->powers(ps, &p.sp, &p.o, p.P, &e), XC_OK);
    xc_pspeaks pk;
    xc_pspeaks_init(&pk);
    CU_ASSERT_EQUAL(ps->peaks(ps, &p.sp, &p.o, p.P, p.thr, &pk, &e), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "peaks_push: a peak outside the search"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "width 6"));
    CU_ASSERT_EQUAL(pk.n, 0);
    xc_pspeaks_free(&pk);
    xc_registry_destroy(reg);
}

XC_TEST(test_bad_det, "plugin ABI: a single-pulse detection outside the plane is refused by spdets_push, naming it")
{
    xc_registry *reg = probe("-DPROBE_BADDET", "libprobe_baddet.so", NULL);
    const xc_spsearcher *sp = xc_spsearcher_of(xc_registry_find(reg, XC_FAMILY_SINGLEPULSE, "probe-sp"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    spcase c;
    sp_case(&c);
    xc_spdets out = {0};
    xc_error e;
    CU_ASSERT_EQUAL(xc_sp_detect(sp, &c.c, &c.pl, &out, &e), XC_EINVAL);   /* in the child, isolated */
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "spdets_push: a detection outside the search (sample 18, width 3"));
    CU_ASSERT_EQUAL(out.n, 0);
    xc_spdets_free(&out);
    xc_registry_destroy(reg);
}

/* A plugin built against ABI 2.0 (its xcp_info says 2.0; its descriptors
 * are 2.0's sizes, which 2.1 left as they were) loads and runs. */
XC_TEST(test_abi20, "plugin ABI: a plugin built against ABI 2.0 loads into 2.2 and runs")
{
    xc_registry *reg = probe("-DPROBE_ABI20", "libprobe_abi20.so", NULL);
    CU_ASSERT_EQUAL(xc_registry_count(reg, XC_FAMILY_DEDISPERSE), 1);
    CU_ASSERT_EQUAL(xc_registry_count(reg, XC_FAMILY_PULSCAN), 1);
    CU_ASSERT_EQUAL(xc_registry_count(reg, XC_FAMILY_SINGLEPULSE), 0);
    ddcase c;
    run_dd(dd_named(reg, "probe-dd"), &c);
    dd_case_free(&c);
    xc_registry_destroy(reg);
}

/* A plugin built against ABI 2.1 (its single-pulse descriptor ends at
 * detect; the member 2.2 appended, set in its memory, lies beyond its size)
 * loads and runs, and is handed no row statistics (row_stats reads 0). */
XC_TEST(test_abi21, "plugin ABI: a plugin built against ABI 2.1 loads into 2.2; its searcher takes no row statistics")
{
    const char *path;
    xc_registry *reg = probe("-DPROBE_ABI21", "libprobe_abi21.so", &path);
    const xc_spsearcher *sp = xc_spsearcher_of(xc_registry_find(reg, XC_FAMILY_SINGLEPULSE, "probe-sp"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    CU_ASSERT_EQUAL(sp->row_stats, 0);
    setenv("CROSSCHECK_PLUGIN_ISOLATE", "0", 1);   /* the probe's record in this process */
    check_sp(sp, record_of(path));
    unsetenv("CROSSCHECK_PLUGIN_ISOLATE");
    xc_registry_destroy(reg);
}

/* The single-pulse example through the conformance suite of its family (the
 * cases the built-in cpu and gpu pass), each call in a child process. */
static xc_conform_report sp_conform(lang l, const char *defs, const char *so, const char *name)
{
    xc_conform_report rep;
    xc_conform_report_init(&rep);
    const char *path = build(l, "examples/plugin-dedisp/sp.c", defs, so);
    if (!path)
        return rep;
    xc_registry *reg = load(path);
    const xc_spsearcher *sp = xc_spsearcher_of(xc_registry_find(reg, XC_FAMILY_SINGLEPULSE, name));
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    xc_conform_opts o;
    xc_conform_opts_default(&o);
    xc_error e;
    xc_status st = xc_conform_spsearcher(sp, &xc_sp_reference, &o, &rep, &e);
    if (st)
        fprintf(stderr, "\n%s\n", e.msg);
    CU_ASSERT_EQUAL(st, XC_OK);
    xc_registry_destroy(reg);
    return rep;
}

XC_TEST(test_sp_example, "plugin ABI: the single-pulse example (c++) passes the conformance suite; its bug fails it")
{
    xc_conform_report ok = sp_conform(LANG_CXX, "", "libxcsp_cxx.so", "mysp");
    CU_ASSERT(ok.n > 20);
    for (size_t i = 0; i < ok.n; i++)
        if (!ok.rows[i].pass)
            fprintf(stderr, "\n  mysp FAILS %s\n    observed:  %s\n    expected:  %s\n    tolerance: %s\n",
                    ok.rows[i].name, ok.rows[i].observed, ok.rows[i].expected, ok.rows[i].tolerance);
    CU_ASSERT_EQUAL(ok.nfail, 0);
    xc_conform_report_free(&ok);
    /* every box misses its last sample: the planted boxes' candidates differ */
    xc_conform_report bug = sp_conform(LANG_C, "-DPLANTED_BUG", "libxcsp_bug.so", "mysp-buggy");
    const xc_conform_row *f = NULL;
    for (size_t i = 0; i < bug.n && !f; i++)
        if (!bug.rows[i].pass && !strcmp(bug.rows[i].name, "planted/heimdall-1x997"))
            f = &bug.rows[i];
    CU_ASSERT_PTR_NOT_NULL(f);
    CU_ASSERT(bug.nfail >= 10);
    xc_conform_report_free(&bug);
}

XC_TEST_MAIN("plugin")
