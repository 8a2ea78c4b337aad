/* crosscheck singlepulse: a filterbank (dedispersed here) or a plane file
 * through a single-pulse searcher into a candidate list (CSV). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_memory.h"
#include "cli/base/cli_meter.h"
#include "cli/base/cli_opts.h"
#include "cli/base/cli_plan.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/io/xc_filterbank.h"
#include "core/sp/files/xc_spfiles.h"
#include "core/sp/xc_spgulp.h"
#include "core/sp/xc_spsearch.h"
#ifdef XC_HAVE_CUDA
#include "optimized/gpu/sp_fused.h"
#include "optimized/gpu/xc_gpu.h"
#endif

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

/* The meter of a gulped search: one line per pass (the whole rows'
 * statistics, then the search), each under its stage's label. */
typedef struct {
    xc_progress *meter;
    int want;
    char label[48];
} pass_meter;

static void on_pass(void *ctx, const char *label, uint64_t done, uint64_t total)
{
    pass_meter *pm = ctx;
    if (strcmp(label, pm->label)) {
        int first = !pm->label[0];   /* the meter started as "singlepulse", nothing shown yet */
        if (!first)
            xc_progress_end(pm->meter);
        snprintf(pm->label, sizeof pm->label, "%s", label);
        if (first)
            pm->meter->label = pm->label;
        else
            xc_progress_start(pm->meter, pm->label, total ? total : 1, pm->want);
    }
    xc_progress_callback(pm->meter).fn(pm->meter, label, done, total);
}

/* The summary line on stderr: searcher, preset, candidates, gulps and the
 * passes of the trials' whole rms, time and output. */
static void summary(const xc_spsearcher *s, const xc_spopts *o, int fused, size_t n, const xc_spgulp_info *info,
                    double seconds, const char *out)
{
    char gulps[160] = "";
    if (info->ngulps > 1) {
        int k = snprintf(gulps, sizeof gulps, " (%zu gulps of %zu samples)", info->ngulps, info->gulp);
        if (info->rms_passes && k > 0 && (size_t)k < sizeof gulps)
            snprintf(gulps + k, sizeof gulps - (size_t)k, " after %d passes for the trials' whole rms",
                     info->rms_passes);
    }
    const char *how = !fused              ? ""
                      : info->rms_passes ? " (fused: the search's planes stayed on the device)"
                                         : " (fused: the plane stayed on the device)";
    fprintf(stderr, "crosscheck singlepulse: %s%s, preset %s: %zu candidates%s in %.3f s -> %s\n", s->impl.name, how,
            xc_sp_preset_name(o->preset), n, gulps, seconds, out);
}

/* Searches the filterbank under po's plan in gulps (core/sp/xc_spgulp.h),
 * each gulp's search fused on the device (fuse: optimized/gpu/sp_fused.h),
 * with a meter per gulp of each pass. */
static xc_status from_fil(const char *path, const xc_cli_planopts *po, const xc_convention *cv, xc_spgulp_args *a,
                          int fuse, pass_meter *pm, xc_spcandlist *l, xc_spgulp_info *info, xc_error *err)
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
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    if (!(st = xc_cli_plan_build(po, &g, &plan, err))) {
        a->conv = cv;
        a->plan = &plan;
        a->input_name = path;
        a->progress = (xc_progress_cb){on_pass, pm};
#ifdef XC_HAVE_CUDA
        if (fuse)
            st = xc_sp_gpu_search_fil(r, a, l, info, NULL, err);
        else
#else
        (void)fuse;
#endif
            st = xc_sp_search_fil(r, a, l, info, err);
    }
    xc_dmplan_free(&plan);
    xc_fbreader_close(r);
    return st;
}

/* One view per range of a plane file, and every trial's DM in plan order. */
static xc_status search(const xc_spsearcher *s, const xc_spopts *o, const xc_planefile *in, xc_spcandlist *out,
                        xc_error *err)
{
    const xc_dmplan *plan = &in->plan;
    const xc_plane *pl = &in->plane;
    double tsamp = in->meta.tsamp;
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
    double threshold = 0, wmax = 0, baseline = 0, max_memory = 0;
    uint64_t gulp = 0;
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
        XC_CLI_OPT_DDPLAN(po),
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
        XC_OPT_U64("gulp", &gulp, .arg = "N",
                     .help = "dedispersed samples each gulp of a filterbank searches, as Heimdall's\n"
                             "-nsamps_gulp (at least the largest delay plus the widest box);\n"
                             "docs/SINGLEPULSE.md: Gulps",
                     .def = "the whole file when it fits in memory"),
        XC_CLI_OPT_MAX_MEMORY(&max_memory, "a filterbank's search"),
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
    xc_planefile pf;
    memset(&pf, 0, sizeof pf);
    const char *dot = strrchr(input, '.');
    int from_file = dot && !strcmp(dot, ".json");
    xc_error err;
    xc_error_clear(&err);
    xc_progress meter;
    xc_progress_start(&meter, "singlepulse", 1, xc_progress_want(quiet, progress));
    pass_meter pm = {&meter, xc_progress_want(quiet, progress), ""};   /* its label lives as long as the meter */
    double t0 = xc_now();
    xc_status st;
    xc_spcandlist l;
    xc_spcandlist_init(&l);
    xc_spgulp_info info = {0};
    int fused = 0;
    if (from_file && (gulp || max_memory > 0))
        return xc_cli_failf("singlepulse", "-gulp, -max_memory: %s is a plane (read whole); they apply to a filterbank",
                            input);
    if (from_file) {
        if (!(st = xc_planefile_read(&pf, input, &err)))
            st = search(s, &o, &pf, &l, &err);
        xc_planefile_free(&pf);
        xc_progress_update(&meter, 1);
    } else {
        const xc_convention *cv = xc_cli_plan_convention("singlepulse", &po);
        xc_spgulp_args a = {.search = s, .opts = &o, .dd = cv ? pick_dd("singlepulse", dd_name) : NULL,
                            .threads = threads, .gulp = (size_t)gulp, .max_memory = max_memory};
        if (!a.dd)
            return 2;
        /* the GPU pair: every gulp's plane stays on the device */
        fused = fusable(a.dd, s);
        st = from_fil(input, &po, cv, &a, fused, &pm, &l, &info, &err);
    }
    if (!st)
        st = format == 1   ? xc_spcands_write_heimdall(&l, out, &err)
             : format == 2 ? xc_spcands_write_presto(&l, out, &err)
                           : xc_spcands_write_csv(&l, out, &err);
    if (!st) {
        xc_progress_end(&meter);
        if (!quiet)
            summary(s, &o, fused, l.n, &info, xc_now() - t0, out);
    }
    xc_spcandlist_free(&l);
    return st ? xc_cli_fail("singlepulse", &err) : 0;
}
