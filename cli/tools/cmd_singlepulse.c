/* crosscheck singlepulse: a filterbank (dedispersed here) or a plane file
 * through a single-pulse searcher into a candidate list (CSV). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_meter.h"
#include "cli/base/cli_opts.h"
#include "cli/base/cli_plan.h"
#include "core/base/xc_mem.h"
#include "core/base/xc_nbits.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/io/xc_filterbank.h"
#include "core/sp/xc_spfiles.h"
#include "core/sp/xc_spsearch.h"
#ifdef XC_HAVE_CUDA
#include "optimized/gpu/xc_gpu.h"
#endif

/* The plane searched, with what it came from. */
typedef struct {
    xc_dmplan plan;           /* the ranges' DMs and ds */
    xc_plane plane;
    double tsamp;             /* of the series, s */
    xc_planefile pf;          /* a plane file's (owns plan and plane then) */
    int from_file;
    int fused;                /* searched on the device already (no plane on the host) */
} sp_input;

/* The default dedisperser: the first available exact one on a device, else
 * the threaded CPU one (capabilities, never names). */
static const xc_dedisperser *pick_dd(const char *cmd, const char *name)
{
    const xc_impl *im = NULL;
    if (!name)
        im = xc_registry_pick(xc_cli_registry(), XC_FAMILY_DEDISPERSE, XC_CAP_DEVICE,
                              XC_CAP_APPROXIMATE | XC_CAP_RUNTIME);
    if (!im)
        im = xc_cli_impl(cmd, XC_FAMILY_DEDISPERSE, name);
    return xc_dedisperser_of(im);
}

/* 1 when dd leaves its plane on the device and s searches it there. */
static int fusable(const xc_dedisperser *dd, const xc_spsearcher *s)
{
#ifdef XC_HAVE_CUDA
    return xc_sp_gpu_fusable(dd, s);
#else
    (void)dd, (void)s;
    return 0;
#endif
}

/* The block through p into a plane on the device, searched there by s:
 * only the candidates come back (optimized/gpu/xc_gpu.h). */
static xc_status fused(xc_ddplan *p, const xc_block *b, const xc_spsearcher *s, const xc_spopts *o, sp_input *in,
                       xc_spcandlist *l, xc_error *err)
{
    in->fused = 1;
#ifdef XC_HAVE_CUDA
    return xc_sp_gpu_fused(p, &in->plan, b, in->tsamp, s, o, l, NULL, err);
#else
    (void)p, (void)b, (void)s, (void)o, (void)l;
    return xc_error_set(err, XC_EINVAL, "the fused search needs the CUDA build");
#endif
}

/* Reads the whole filterbank and dedisperses it with dd under po's plan;
 * when dd and s are the GPU pair, searches it on the device into l. */
static xc_status from_fil(const char *path, const xc_cli_planopts *po, const xc_convention *cv,
                          const xc_dedisperser *dd, int threads, const xc_spsearcher *s, const xc_spopts *so,
                          sp_input *in, xc_spcandlist *l, xc_error *err)
{
    xc_fbopts fo = {XC_BITORDER_LSB, 0};
    xc_fbreader *r;
    xc_status st = xc_fbreader_open(&r, path, &fo, err);
    if (st)
        return st;
    const xc_fbheader *h = xc_fbreader_header(r);
    const char *warn = xc_fbreader_warning(r);
    if (warn && *warn)
        fprintf(stderr, "crosscheck singlepulse: warning: %s\n", warn);
    xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    in->tsamp = h->tsamp;
    size_t nvals = (size_t)h->nsamp * (size_t)h->nchans;
    int isf = xc_nbits_is_float(h->nbits);
    void *buf = NULL;
    xc_ddplan *p = NULL;
    if ((st = xc_cli_plan_build(po, &g, &in->plan, err)))
        goto done;
    /* the input and a plane as long as it, held at once (the fused search's plane is on the device) */
    const int fuse = fusable(dd, s);
    double bytes = (double)nvals * (isf ? 4 : 2) + (fuse ? 0 : 4.0 * (double)xc_dmplan_ndm(&in->plan) * (double)h->nsamp);
    if ((st = xc_mem_check(bytes, path, "its samples and their plane",
                           "search a shorter part of the file (it is read whole)", err)))
        goto done;
    if (!(buf = malloc(nvals * (isf ? sizeof(float) : sizeof(uint16_t))))) {
        st = xc_error_set(err, XC_ENOMEM, "%s: out of memory for %zu samples", path, nvals);
        goto done;
    }
    st = isf ? xc_fbreader_read_f32(r, 0, (size_t)h->nsamp, 0, buf, err)
             : xc_fbreader_read_u16(r, 0, (size_t)h->nsamp, 0, buf, err);
    xc_block b = {h->nchans, (size_t)h->nsamp, h->nbits, isf ? NULL : buf, isf ? buf : NULL};
    xc_ddopts o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    if (!st)
        st = xc_ddplan_create(&p, dd, &g, h->nbits, &in->plan, cv, NULL, &o, err);
    if (!st && (int64_t)h->nsamp <= xc_ddplan_max_delay(p))
        st = xc_error_set(err, XC_EINVAL, "%s: nsamp %llu is not longer than the plan's largest delay, %lld samples",
                          path, (unsigned long long)h->nsamp, (long long)xc_ddplan_max_delay(p));
    if (!st && fuse)
        st = fused(p, &b, s, so, in, l, err);
    else if (!st)
        st = xc_ddplan_plane_alloc(p, (size_t)h->nsamp, &in->plane, err);
    if (!st && !fuse)
        st = xc_ddplan_execute(p, &b, &in->plane, err);
done:
    xc_ddplan_destroy(p);
    free(buf);
    xc_fbreader_close(r);
    return st;
}

static void input_free(sp_input *in)
{
    if (in->from_file) {
        xc_planefile_free(&in->pf);
        return;
    }
    xc_plane_free(&in->plane);
    xc_dmplan_free(&in->plan);
}

/* One view per range, and every trial's DM in plan order. */
static xc_status search(const xc_spsearcher *s, const xc_spopts *o, const sp_input *in, xc_spcandlist *out,
                        xc_error *err)
{
    const xc_dmplan *plan = in->from_file ? &in->pf.plan : &in->plan;
    const xc_plane *pl = in->from_file ? &in->pf.plane : &in->plane;
    double tsamp = in->from_file ? in->pf.meta.tsamp : in->tsamp;
    size_t ndms = xc_dmplan_ndm(plan);
    double *dms = malloc((ndms ? ndms : 1) * sizeof *dms);
    xc_spplane *v = calloc((size_t)(plan->nranges ? plan->nranges : 1), sizeof *v);
    xc_status st = XC_OK;
    if (!dms || !v)
        st = xc_error_set(err, XC_ENOMEM, "out of memory for %zu DM trials", ndms);
    else
        xc_spplane_views(plan, pl, tsamp, v, dms);
    if (!st)
        st = xc_sp_search(s, o, v, pl->nranges, tsamp, dms, ndms, out, err);
    free(dms);
    free(v);
    return st;
}

/* -widths: copies the list into the options (ints in samples). */
static xc_status take_widths(const xc_cli_ints *w, xc_spopts *o)
{
    o->nwidths = w->n;
    for (int i = 0; i < w->n; i++)
        o->widths[i] = w->v[i];
    return XC_OK;
}

int xc_cmd_singlepulse(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    const char *input = NULL, *out = NULL, *impl_name = NULL, *dd_name = NULL;
    xc_cli_planopts po;
    xc_cli_planopts_init(&po);
    int preset = 0, format = 0, quiet = 0, progress = 0, threads = 0;
    double threshold = 0, wmax = 0, baseline = 0;
    int wv[XC_SP_MAXW];
    xc_cli_ints widths = {wv, 0, XC_SP_MAXW};
    const xc_opt opts[] = {
        XC_OPT_STR("i", &input, .arg = "FILE", .help = "a filterbank (.fil), dedispersed here, or a plane written by\n"
                                                       "`crosscheck dedisperse` (OUT.json)"),
        XC_OPT_STR("o", &out, .arg = "OUT.csv", .help = "the candidates (written atomically)"),
        XC_OPT_STR("impl", &impl_name, .arg = "NAME",
                   .help = "single-pulse searcher (crosscheck list): reference, cpu, gpu; gpu with\n"
                           "a GPU dedisperser (gpu, gpu-direct) on a filterbank is the fused\n"
                           "pipeline: the plane stays on the device, only candidates come back",
                   .def = "the threaded CPU one"),
        XC_OPT_STR("ddimpl", &dd_name, .arg = "NAME", .help = "dedisperser for a filterbank (crosscheck list)",
                   .def = "an exact one on a device if available, else the threaded CPU one"),
        XC_OPT_TABLE(po.table),
        XC_OPT_CHOICE("preset", &preset, "heimdall|presto|astroaccelerate", .arg = "P",   /* the xc_sp_preset order */
                      .help = "heimdall: 2 s median baseline, MAD rms, widths 1, 2, 4, ... ; presto:\n"
                              "single_pulse_search.py's 1000-sample blocks, downfactors 1..150,\n"
                              "threshold 5; astroaccelerate: mean and sd of each trial, its boxcar\n"
                              "widths 1..32 then steps of 2, 4, ... (docs/SINGLEPULSE.md)",
                      .def = "heimdall"),
        XC_OPT_NONNEG("threshold", &threshold, .arg = "S", .help = "S/N threshold", .def = "6 (presto: 5)"),
        XC_OPT_NONNEG("wmax", &wmax, .arg = "SEC", .help = "the widest box, seconds",
                      .def = "4096 samples (presto: 150)"),
        XC_OPT_INTS("widths", &widths, 1, 1 << 24, .arg = "LIST",
                    .help = "box widths in samples of each range, ascending, instead of the preset's"),
        XC_OPT_NONNEG("baseline", &baseline, .arg = "SEC", .help = "baseline (median) block length, seconds",
                      .def = "2 (presto: 1000 samples)"),
        XC_OPT_INT("threads", &threads, 0, 4096, .arg = "N", .help = "threads", .def = "all"),
        XC_OPT_CHOICE("format", &format, "csv|heimdall|presto", .arg = "F",
                      .help = "csv: snr,time_s,sample,width,dm,dm_index,members,begin,end,dm_lo,dm_hi;\n"
                              "heimdall: Heimdall's .cand columns (widths must be powers of two);\n"
                              "presto: PRESTO's .singlepulse (docs/SINGLEPULSE.md: Candidate files)",
                      .def = "csv"),
        XC_OPT_METER(&quiet, &progress, "no progress meter, no summary line"),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    if (!input || !out)
        return xc_cli_failf("singlepulse", "-i FILE and -o OUT are required (see -h)");
    const xc_spsearcher *s = xc_spsearcher_of(xc_cli_impl("singlepulse", XC_FAMILY_SINGLEPULSE, impl_name));
    if (!s)
        return 2;
    xc_spopts o;
    xc_spopts_default(&o, (xc_sp_preset)preset);
    o.threshold = threshold;
    o.wmax_s = wmax;
    o.baseline_s = baseline;
    o.threads = threads;
    take_widths(&widths, &o);
    sp_input in;
    memset(&in, 0, sizeof in);
    xc_dmplan_init(&in.plan);
    const char *dot = strrchr(input, '.');
    in.from_file = dot && !strcmp(dot, ".json");
    xc_error err;
    xc_error_clear(&err);
    xc_spcandlist l;
    xc_spcandlist_init(&l);
    xc_progress meter;
    xc_progress_start(&meter, "singlepulse", 2, xc_progress_want(quiet, progress));
    double t0 = xc_now();
    xc_status st;
    if (in.from_file) {
        st = xc_planefile_read(&in.pf, input, &err);
    } else {
        const xc_convention *cv = xc_cli_plan_convention("singlepulse", &po);
        const xc_dedisperser *dd = cv ? pick_dd("singlepulse", dd_name) : NULL;
        if (!dd)
            return 2;
        st = from_fil(input, &po, cv, dd, threads, s, &o, &in, &l, &err);
    }
    xc_progress_update(&meter, 1);
    if (!st && !in.fused)
        st = search(s, &o, &in, &l, &err);
    if (!st)
        st = format == 1   ? xc_spcands_write_heimdall(&l, out, &err)
             : format == 2 ? xc_spcands_write_presto(&l, out, &err)
                           : xc_spcands_write_csv(&l, out, &err);
    if (!st) {
        xc_progress_update(&meter, 2);
        xc_progress_end(&meter);
        if (!quiet)
            fprintf(stderr, "crosscheck singlepulse: %s%s, preset %s: %zu candidates in %.3f s -> %s\n", s->impl.name,
                    in.fused ? " (fused: the plane stayed on the device)" : "", xc_sp_preset_name(o.preset), l.n,
                    xc_now() - t0, out);
    }
    xc_spcandlist_free(&l);
    input_free(&in);
    return st ? xc_cli_fail("singlepulse", &err) : 0;
}
