/* crosscheck header: every key of a SIGPROC filterbank or time series, a
 * PRESTO .inf (or the .inf beside a .dat or .fft), a DM-time plane's JSON
 * manifest or an .npy, with the geometry derived from them; as text or
 * JSON.  Key names are SIGPROC's (src/read_header.c) for SIGPROC files, and
 * its `header` program's for the derived ones it prints (tobs, headersize,
 * datasize, nsamples, telescope, machine). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/base/cli_plan.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/io/xc_fb_json.h"
#include "core/io/xc_fb_names.h"
#include "core/io/xc_filterbank.h"
#include "core/io/xc_npy.h"
#include "core/io/xc_presto.h"

typedef struct {
    xc_cli_planopts po;
    double dm;
    int dm_given;
} delayopts;

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

static void set_real(json_t *o, const char *k, double v) { json_object_set_new(o, k, json_real(v)); }
static void set_int(json_t *o, const char *k, long long v) { json_object_set_new(o, k, json_integer(v)); }
static void set_str(json_t *o, const char *k, const char *v) { json_object_set_new(o, k, json_string(v)); }

/* The size of a file in bytes, or an error naming it. */
static xc_status file_size(const char *path, unsigned long long *size, xc_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", path, strerror(errno));
    *size = (unsigned long long)sb.st_size;
    return XC_OK;
}

/* The largest delay of the plan given (-dmplan..., or -dm D as one trial). */
static xc_status add_delays(json_t *o, const delayopts *d, const xc_fbheader *h, xc_error *err)
{
    int plan_given = d->po.dmplan || d->po.dmplanfile || d->po.tol_given;
    if (!plan_given && !d->dm_given)
        return XC_OK;
    if (plan_given && d->dm_given)
        return xc_error_set(err, XC_EINVAL, "-dm %g: give either -dm or a DM plan, not both", d->dm);
    const xc_convention *cv = xc_convention_get(d->po.convention);
    if (!cv)
        return xc_error_set(err, XC_EINVAL, "-convention: '%s' is not a convention (crosscheck plan -h)",
                            d->po.convention);
    xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    xc_status st;
    if (d->dm_given) {
        char text[128];
        snprintf(text, sizeof text, "%.17g:%.17g:1", d->dm, d->dm + 1);
        st = xc_dmplan_parse(&plan, text, "-dm", err);
    } else {
        st = xc_cli_plan_build(&d->po, &g, &plan, err);
    }
    int64_t maxd = 0;
    if (!st)
        st = xc_dmplan_max_delay(cv, &g, &plan, &maxd, err);
    if (!st) {
        set_str(o, "convention", cv->name);
        set_int(o, "ndm", (long long)xc_dmplan_ndm(&plan));
        set_real(o, "dm_max", plan.r[plan.nranges - 1].dms[plan.r[plan.nranges - 1].ndm - 1]);
        set_int(o, "max_delay_samples", (long long)maxd);
        set_real(o, "max_delay_s", (double)maxd * h->tsamp);
        /* what dedisperse can give: the samples every channel's delayed sample exists for */
        set_int(o, "output_samples", (long long)h->nsamp - (long long)maxd);
    }
    xc_dmplan_free(&plan);
    return st;
}

static xc_status sigproc_keys(const char *path, const delayopts *d, json_t *o, xc_error *err)
{
    xc_fbreader *r;
    xc_status st = xc_fbreader_open(&r, path, NULL, err);
    if (st)
        return st;
    const xc_fbheader *h = xc_fbreader_header(r);
    set_str(o, "kind", h->nchans == 1 && h->data_type == 2 ? "SIGPROC time series" : "SIGPROC filterbank");
    xc_fbheader_to_json(h, o);
    if (h->present[XC_FB_TELESCOPE_ID])
        set_str(o, "telescope", xc_fb_telescope_name(h->telescope_id));
    if (h->present[XC_FB_MACHINE_ID])
        set_str(o, "machine", xc_fb_machine_name(h->machine_id));
    uint64_t bps = xc_fbheader_bytes_per_spectrum(h);
    set_int(o, "headersize", (long long)h->header_bytes);
    set_int(o, "datasize", (long long)(h->nsamp * bps));
    set_int(o, "nsamples", (long long)h->nsamp);
    set_int(o, "bytes_per_spectrum", (long long)bps);
    set_real(o, "tobs", (double)h->nsamp * h->tsamp);
    /* a time series keeps the band's fch1 and foff (sigpyproc3 does), so
     * edges computed from its one channel would mean nothing */
    if (h->data_type != 2) {
        double f0 = xc_fbheader_freq(h, 0), f1 = xc_fbheader_freq(h, h->nchans - 1);
        double half = 0.5 * fabs(h->foff);
        set_real(o, "ftop", fmax(f0, f1) + half);
        set_real(o, "fbottom", fmin(f0, f1) - half);
        set_real(o, "fcentre", 0.5 * (f0 + f1));
        set_real(o, "bandwidth", fmax(f0, f1) - fmin(f0, f1) + 2 * half);
    }
    const char *warn = xc_fbreader_warning(r);
    if (warn && *warn)
        set_str(o, "warning", warn);
    st = add_delays(o, d, h, err);
    xc_fbreader_close(r);
    return st;
}

/* X.inf beside X.dat or X.fft (or X.inf itself): its fields, and for a
 * .dat/.fft the check that the file holds the .inf's N samples (N float32,
 * or N/2 complex float32 pairs: N*4 bytes either way). */
static xc_status presto_keys(const char *path, json_t *o, xc_error *err)
{
    char inf_path[4200];
    snprintf(inf_path, sizeof inf_path, "%.*s.inf", (int)strlen(path) - 4, path);
    xc_inf inf;
    xc_status st = xc_inf_read(&inf, inf_path, err);
    if (st)
        return st;
    int fft = has_suffix(path, ".fft"), dat = has_suffix(path, ".dat");
    set_str(o, "kind", fft ? "PRESTO .fft" : dat ? "PRESTO .dat" : "PRESTO .inf");
    set_str(o, "inf", inf_path);
    const char *sk[] = {"name", "telescope", "instrument", "object", "ra", "dec", "observer"};
    const char *sv[] = {inf.name, inf.telescope, inf.instrument, inf.object, inf.ra, inf.dec, inf.observer};
    for (size_t i = 0; i < sizeof sk / sizeof sk[0]; i++)
        set_str(o, sk[i], sv[i]);
    set_real(o, "mjd", inf.mjd);
    set_int(o, "barycentered", inf.barycentered);
    set_real(o, "N", inf.n);
    set_real(o, "dt", inf.dt);
    set_int(o, "breaks", inf.breaks);
    if (inf.breaks) {
        json_t *pairs = json_array();
        for (int k = 0; k < inf.numonoff; k++)
            json_array_append_new(pairs, json_pack("[f,f]", inf.onoff[2 * k], inf.onoff[2 * k + 1]));
        json_object_set_new(o, "onoff", pairs);
    }
    set_str(o, "band", inf.band);
    const char *nk[] = {"beam_diam", "dm", "freq_low", "bw", "chan_wid"};
    const double nv[] = {inf.beam_diam, inf.dm, inf.freq_low, inf.bw, inf.chan_wid};
    for (size_t i = 0; i < sizeof nk / sizeof nk[0]; i++)
        set_real(o, nk[i], nv[i]);
    set_int(o, "nchan", inf.nchan);
    set_str(o, "analyzer", inf.analyzer);
    set_str(o, "notes", inf.notes);
    double T = inf.n * inf.dt;
    set_real(o, "tobs", T);
    set_real(o, "data_bins", xc_inf_data_bins(&inf));
    set_real(o, "padding_bins", inf.n - xc_inf_data_bins(&inf));
    set_real(o, "fbottom", inf.freq_low - 0.5 * inf.chan_wid);
    set_real(o, "ftop", inf.freq_low - 0.5 * inf.chan_wid + inf.bw);
    if (fft) {
        set_real(o, "fft_bins", inf.n / 2);
        set_real(o, "df", 1.0 / T);
        set_real(o, "fnyquist", 0.5 / inf.dt);
    }
    if (fft || dat) {
        unsigned long long size = 0;
        if ((st = file_size(path, &size, err)))
            return st;
        if ((double)size != inf.n * 4)
            return xc_error_set(err, XC_EFORMAT, "%s: size: %llu bytes, but N = %.0f in %s needs %.0f", path,
                                size, inf.n, inf_path, inf.n * 4);
        set_int(o, "bytes", (long long)size);
    }
    return XC_OK;
}

/* A plane: its manifest read and checked in full, then every key of it. */
static xc_status plane_keys(const char *path, json_t *o, xc_error *err)
{
    xc_planefile pf;
    xc_status st = xc_planefile_read(&pf, path, err);
    if (st)
        return st;
    double bytes = 0;
    st = xc_planefile_disk_bytes(path, &bytes, err);
    json_error_t je;
    json_t *root = st ? NULL : json_load_file(path, 0, &je);
    if (!st && !root)
        st = xc_error_set(err, XC_EFORMAT, "%s: line %d: %s", path, je.line, je.text);
    if (!st) {
        set_str(o, "kind", "DM-time plane");
        json_object_update(o, root);
        set_int(o, "ndm_total", (long long)xc_dmplan_ndm(&pf.plan));
        set_real(o, "tobs", (double)pf.meta.nsamp_in * pf.meta.tsamp);
        set_real(o, "disk_bytes", bytes);
        json_decref(root);
    }
    xc_planefile_free(&pf);
    return st;
}

static xc_status npy_keys(const char *path, json_t *o, xc_error *err)
{
    float *data = NULL;
    size_t rows = 0, cols = 0;
    xc_status st = xc_npy_read_f32(path, &data, &rows, &cols, err);
    free(data);
    if (st)
        return st;
    set_str(o, "kind", "npy float32");
    set_int(o, "rows", (long long)rows);
    set_int(o, "cols", (long long)cols);
    return XC_OK;
}

/* Text: "key  value", nested objects as dotted keys, long lists shortened. */
static void print_value(const char *key, json_t *v)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) {
            char sub[256];
            snprintf(sub, sizeof sub, "%s.%s", key, k);
            print_value(sub, x);
        }
        return;
    }
    printf("%-20s ", key);
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        for (; *s; s++)   /* multi-line notes stay on the key's line */
            putchar(*s == '\n' ? ' ' : *s);
        putchar('\n');
    } else if (json_is_array(v) && json_array_size(v) > 8) {
        size_t n = json_array_size(v);
        char *a = json_dumps(json_array_get(v, 0), JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(12));
        char *z = json_dumps(json_array_get(v, n - 1), JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(12));
        printf("[%s ... %s] (%zu values)\n", a ? a : "?", z ? z : "?", n);
        free(a);
        free(z);
    } else {
        char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
        printf("%s\n", s ? s : "?");
        free(s);
    }
}

int xc_cmd_header(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self, .max_args = 1);
    const char *input = NULL;
    int as_json = 0;
    delayopts d;
    memset(&d, 0, sizeof d);
    xc_cli_planopts_init(&d.po);
    const xc_opt opts[] = {
        XC_OPT_STR("i", &input, .arg = "FILE", .help = "the file (or give it as the argument)"),
        XC_OPT_FLAG("json", &as_json, .help = "print one JSON object instead of text"),
        {.name = "dm", .kind = XC_OPTK_DOUBLE, .dest = &d.dm, .given = &d.dm_given, .arg = "D",
         .help = "a filterbank's largest delay at DM D (pc cm^-3)"},
        XC_OPT_TABLE(d.po.table),
        XC_OPT_END,
    };
    int first = 0;
    int rc = xc_opts_parse(&spec, opts, argc, argv, &first);
    if (rc != XC_OPTS_GO)
        return rc;
    if (first < argc) {
        if (input)
            return xc_cli_failf("header", "give the file once: -i %s or %s", input, argv[first]);
        input = argv[first];
    }
    if (!input)
        return xc_cli_failf("header", "no file: crosscheck header FILE (see -h)");
    xc_error err;
    xc_error_clear(&err);
    json_t *o = json_object();
    set_str(o, "file", input);
    xc_status st;
    if (has_suffix(input, ".inf") || has_suffix(input, ".dat") || has_suffix(input, ".fft"))
        st = presto_keys(input, o, &err);
    else if (has_suffix(input, ".json"))
        st = plane_keys(input, o, &err);
    else if (has_suffix(input, ".npy"))
        st = npy_keys(input, o, &err);
    else
        st = sigproc_keys(input, &d, o, &err);
    if (!st && (d.dm_given || d.po.dmplan || d.po.dmplanfile || d.po.tol_given) && !json_object_get(o, "ndm"))
        st = xc_error_set(&err, XC_EINVAL, "%s: -dm and DM plans apply to filterbanks only", input);
    if (st) {
        json_decref(o);
        return xc_cli_fail("header", &err);
    }
    if (as_json) {
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        printf("%s\n", s ? s : "{}");
        free(s);
    } else {
        const char *k;
        json_t *v;
        json_object_foreach(o, k, v)
            print_value(k, v);
    }
    json_decref(o);
    return 0;
}
