/* crosscheck run: PRESTO prepsubband's .dat series of a real file (the
 * spec's "prepsubband" object) against every subband dedisperser here,
 * under the presto convention (prepsubband's delays and rounding) with the
 * same nsub, nominal-DM spacing and highest-channel alignment: bit for bit.
 * The subband dedispersers are found by behaviour, not name: the entries
 * whose declared bound is the subband bound (core/dedisp/approx/xc_subband.h).
 * datasets/presto/README.md says how the fixture series were made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/run/run.h"
#include "core/base/xc_fs.h"
#include "core/io/xc_filterbank.h"
#include "core/base/xc_fmt.h"
#include "core/io/xc_presto.h"
#include "core/dedisp/approx/xc_ddapprox.h"
#include "core/dedisp/approx/xc_subband.h"

/* The samples of a .dat that are data: PRESTO pads a series to a good FFT
 * length and says so in the .inf beside it ("Any breaks in the data?" 1 and
 * the On/Off bin pairs; the fixtures' first pair is 0 .. 2399, the rest
 * padding).  The first pair's end + 1 when it starts at 0, else n (no .inf,
 * no breaks: the whole series). */
static size_t dat_valid(const char *datpath, size_t n)
{
    char path[2300];
    xc_fmt(path, sizeof path, "%s", datpath);
    char *dot = strrchr(path, '.');
    if (!dot || strcmp(dot, ".dat"))
        return n;
    strcpy(dot, ".inf");
    xc_inf inf;
    xc_error err;
    if (xc_inf_read(&inf, path, &err) != XC_OK || !inf.breaks || inf.onoff[0] != 0 || inf.onoff[1] >= (double)n)
        return n;
    return (size_t)inf.onoff[1] + 1;
}

/* The .dat of trial DM dm (root_DM<dm to 2 decimals>.dat) into *v (its data
 * samples in *n); *v NULL when there is none. */
static xc_status read_dat(const char *root, double dm, char *path, size_t np, float **v, size_t *n, xc_error *err)
{
    *v = NULL;
    *n = 0;
    xc_fmt(path, np, "%s_DM%.2f.dat", root, dm);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return XC_OK;
    fclose(fp);
    xc_status st = xc_dat_read(path, v, n, err);
    if (!st)
        *n = dat_valid(path, *n);
    return st;
}

/* The memory of the comparison, said and judged against -max_memory
 * (run_memory): the whole file as 16-bit samples, the plane of every trial
 * over the whole file (floats), and the reference subband dedisperser's
 * subband series of one range (nsub doubles per output sample, its largest
 * buffer; nsub 0, resolved by the dedisperser, counted as nchans).
 * Non-zero: the comparison does not run. */
static int ps_memory(runctx *c, const char *obs, const xc_dmplan *plan, size_t ns, size_t nc, int nsub)
{
    double in = (double)ns * (double)nc * sizeof(uint16_t), plane = 0, sub = 0;
    for (int k = 0; k < plan->nranges; k++) {
        const double n = (double)ns / (plan->r[k].ds > 0 ? plan->r[k].ds : 1);
        plane += (double)plan->r[k].ndm * n * sizeof(float);
        const double s = (double)(nsub > 0 ? (size_t)nsub : nc) * n * sizeof(double);
        sub = s > sub ? s : sub;
    }
    char what[128], bi[32], bp[32], bs[32];
    xc_fmt_bytes(bi, sizeof bi, in);
    xc_fmt_bytes(bp, sizeof bp, plane);
    xc_fmt_bytes(bs, sizeof bs, sub);
    xc_fmt(what, sizeof what, "the file's %s, the plane's %s, subbands' %s", bi, bp, bs);
    return run_memory(c, obs, "prepsubband comparison", in + plane + sub, what);
}

void run_prepsubband(runctx *c, const xc_rs_real *ob, const char *fil)
{
    if (!ob->ps_root)
        return;
    const char *obs = ob->name;
    const char *check0 = "equals PRESTO prepsubband";
    xc_error e;
    char root[4096];
    xc_fbreader *rd;
    if (xc_path_under(root, sizeof root, c->datasets, ob->ps_root, &e) || xc_fbreader_open(&rd, fil, NULL, &e)) {
        xc_vd_fail(&c->vd, obs, "-", check0, e.msg, "bit for bit");
        return;
    }
    const xc_fbheader *h = xc_fbreader_header(rd);
    const xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    const int nbits = h->nbits;
    const size_t ns = (size_t)h->nsamp, nc = (size_t)h->nchans;
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    xc_status st = xc_dmplan_parse(&plan, ob->ps_dmplan, "prepsubband.dmplan", &e);
    if (!st && ps_memory(c, obs, &plan, ns, nc, ob->ps_nsub)) {
        xc_fbreader_close(rd);
        xc_dmplan_free(&plan);
        return;
    }
    uint16_t *u = !st && nbits < 32 ? malloc(ns * nc * sizeof *u + 1) : NULL;
    if (!st)
        st = !u ? xc_error_set(&e, nbits < 32 ? XC_ENOMEM : XC_EINVAL, "%s: %s", fil,
                               nbits < 32 ? "out of memory" : "prepsubband comparison needs integer samples")
                : xc_fbreader_read_u16(rd, 0, ns, 0, u, &e);
    xc_fbreader_close(rd);
    if (st) {
        xc_vd_fail(&c->vd, obs, "-", check0, e.msg, "bit for bit");
        free(u);
        xc_dmplan_free(&plan);
        return;
    }
    xc_ddopts o;
    memset(&o, 0, sizeof o);
    o.threads = c->threads;
    o.nsub = ob->ps_nsub;
    o.dmsub = ob->ps_dmsub;
    o.subalign = XC_SUBALIGN_HIGHEST;   /* prepsubband's subbands: equal widths, referred to their highest channel */
    o.subsplit = XC_SUBSPLIT_WIDTH;
    const xc_block b = {(int)nc, ns, nbits, u, NULL};
    const xc_registry *reg = xc_cli_registry();
    int nimpl = 0;
    for (size_t i = 0; i < xc_registry_count(reg, XC_FAMILY_DEDISPERSE); i++) {
        const xc_impl *im = xc_registry_at(reg, XC_FAMILY_DEDISPERSE, i);
        const xc_dedisperser *d = xc_dedisperser_of(im);
        if (!d || xc_ddapprox_of(d) != &xc_ddapprox_subband || !run_wanted(c, im))
            continue;
        nimpl++;
        char why[256] = "";
        if (!xc_impl_available(im, why, sizeof why)) {
            run_skip_text(c, obs, check0, im->name, why);
            continue;
        }
        xc_ddplan *p = NULL;
        xc_plane pl = {0, NULL};
        st = xc_ddplan_create(&p, d, &g, nbits, &plan, xc_convention_get("presto"), NULL, &o, &e);
        if (!st)
            st = xc_ddplan_plane_alloc(p, ns, &pl, &e);
        if (!st)
            st = xc_ddplan_execute(p, &b, &pl, &e);
        if (st)
            xc_vd_fail(&c->vd, obs, im->name, check0, e.msg, "bit for bit");
        int found = 0;
        for (int k = 0; !st && k < plan.nranges; k++)
            for (size_t j = 0; j < plan.r[k].ndm; j++) {
                char path[2200], check[160];
                float *want;
                size_t nw;
                if ((st = read_dat(root, plan.r[k].dms[j], path, sizeof path, &want, &nw, &e))) {
                    xc_vd_fail(&c->vd, obs, im->name, check0, e.msg, "bit for bit");
                    break;
                }
                if (!want)
                    continue;
                found++;
                const char *base = strrchr(path, '/');
                xc_fmt(check, sizeof check, "%s %s", check0, base ? base + 1 : path);
                xc_vd_note(&c->vd, xc_check_series_equal(&c->vd.rows, obs, im->name, check,
                                                  pl.r[k].data + j * pl.r[k].nsamp, pl.r[k].nsamp, want, nw, &e),
                         &e);
                free(want);
            }
        if (!st && !found) {
            char why[2300];
            xc_fmt(why, sizeof why, "no %s_DM*.dat for the plan's trials", root);
            xc_vd_fail(&c->vd, obs, im->name, check0, why, "bit for bit");
        }
        st = XC_OK;
        xc_plane_free(&pl);
        xc_ddplan_destroy(p);
        xc_vd_emit(&c->vd);
    }
    if (!nimpl)
        xc_vd_fail(&c->vd, obs, "-", check0, "no subband dedisperser is registered", "bit for bit");
    xc_vd_emit(&c->vd);
    free(u);
    xc_dmplan_free(&plan);
}
