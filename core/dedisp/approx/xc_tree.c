/* Tree plans: the channel -> position map, the line index and stage-2 delay
 * of every trial and subband, and the smearing bound of every trial.  The
 * semantics and the derivation of the bound are in core/dedisp/approx/xc_tree.h. */
#include "core/dedisp/approx/xc_tree.h"
#include "core/dedisp/approx/xc_ddloss.h"
#include "core/base/xc_grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int32_t xc_tree_line(int m, int n, int u)
{
    int32_t d = 0;
    for (int size = m; size > 1; size /= 2) {
        const int h = size / 2;
        if (u >= h) {             /* the lower half, shifted by ceil(n/2) */
            d += n / 2 + n % 2;
            u -= h;
        }
        n /= 2;
    }
    return d;
}

int32_t xc_tree_delay(int m, int32_t n, int u)
{
    if (m < 2)
        return 0;
    return (n / (m - 1)) * u + xc_tree_line(m, n % (m - 1), u);
}

/* T_M exactly, in O(M log M): with E(n, u) = (M-1) d_M(n, u) - n u (an
 * integer), T_M = (max E - min E) / (M-1).  d_M(n, u) adds ceil(n_l/2) at
 * each level l whose bit of u is set (n_l: n halved l times, h_l: half that
 * level's size, u = sum of the set bits' h_l), so E(n, u) is a sum of
 * independent per-level terms [bit set] ((M-1) ceil(n_l/2) - n h_l), and its
 * maximum and minimum over u take each term or 0, whichever is larger or
 * smaller.  (The plain enumeration over n and u was O(M^2 log M): seconds
 * per plan for the 16384-position grids of wide bands, paid by every plan.) */
double xc_tree_line_spread(int m)
{
    if (m < 2)
        return 0;
    int64_t hi = 0, lo = 0;
    for (int n = 0; n < m; n++) {
        int64_t emax = 0, emin = 0;
        int nl = n;
        for (int size = m; size > 1; size /= 2) {
            const int64_t t = (int64_t)(m - 1) * (nl / 2 + nl % 2) - (int64_t)n * (size / 2);
            emax += t > 0 ? t : 0;
            emin += t < 0 ? t : 0;
            nl /= 2;
        }
        hi = emax > hi ? emax : hi;
        lo = emin < lo ? emin : lo;
    }
    return (double)(hi - lo) / (double)(m - 1);
}

static double freq(const xc_geometry *g, int c) { return g->fch1 + c * g->foff; }

static void range_free(xc_treerange *r)
{
    xc_free_each(5, r->n, r->b, r->clamp, r->smear, r->bound);
    memset(r, 0, sizeof *r);
}

void xc_treeplan_free(xc_treeplan *tp)
{
    if (!tp)
        return;
    for (int k = 0; tp->r && k < tp->nranges; k++)
        range_free(&tp->r[k]);
    xc_free_each(4, tp->r, tp->chan, tp->pos, tp->ulast);
    memset(tp, 0, sizeof *tp);
}

static int is_pow2(long v) { return v > 0 && !(v & (v - 1)); }

static int next_pow2(long v)
{
    int p = 1;
    while (p < v)
        p *= 2;
    return p;
}

/* Positions of the channels (see core/dedisp/approx/xc_tree.h) and the sizes. */
/* A candidate nsub of the piecewise tree: its declared loss, and as cost
 * the number of subbands (fewer subbands are longer trees: fewer stage-2
 * additions for the same lines). */
static xc_status eval_nsub(const xc_ddjob *job, void *ctx, xc_ddloss *loss, double *cost, xc_error *err)
{
    (void)ctx;
    xc_treeplan tp;
    xc_status st = xc_treeplan_make(&tp, job, XC_TREE_PIECEWISE, err);
    if (st)
        return st;
    xc_ddloss_init(loss, &job->opts);
    for (int k = 0; k < tp.nranges; k++)
        for (size_t i = 0; i < tp.r[k].ndm; i++)
            xc_ddloss_add(loss, k, i, job->plan->r[k].dms[i], tp.r[k].bound[i], tp.r[k].smear[i]);
    *cost = tp.nsub;
    xc_treeplan_free(&tp);
    return XC_OK;
}

/* opts.nsub 0: the fewest subbands (a power of two up to npos) within the
 * loss limit (core/dedisp/approx/xc_ddloss.h). */
static xc_status default_nsub(const xc_ddjob *job, int npos, int *nsub, xc_error *err)
{
    int cand[32], n = 0;
    for (int s = 1; s <= npos && n < 32; s *= 2)
        cand[n++] = s;
    return xc_ddloss_choose(job, cand, n, eval_nsub, NULL, nsub, err);
}

static xc_status make_positions(xc_treeplan *tp, const xc_ddjob *job, xc_error *err)
{
    const xc_geometry *g = &job->geom;
    const int nc = g->nchans;
    double ftop = -INFINITY, flo = INFINITY;
    for (int c = 0; c < nc; c++) {
        ftop = fmax(ftop, freq(g, c));
        flo = fmin(flo, freq(g, c));
    }
    if (!(flo > 0))
        return xc_error_set(err, XC_EINVAL, "tree: channel frequencies must be positive (lowest %g MHz)", flo);
    if (!(tp->pos = malloc((size_t)nc * sizeof *tp->pos)))
        return xc_error_set(err, XC_ENOMEM, "tree: out of memory");
    long npos;
    if (tp->kind == XC_TREE_PADDED) {
        double q = INFINITY;   /* channels are equally spaced: the smallest 1/f^2 gap is at the top */
        for (int c = 0; c + 1 < nc; c++) {
            double f1 = freq(g, c), f2 = freq(g, c + 1);
            q = fmin(q, fabs(1 / (f1 * f1) - 1 / (f2 * f2)));
        }
        long last = 0;
        for (int c = 0; c < nc; c++) {
            double f = freq(g, c), v = nc > 1 ? (1 / (f * f) - 1 / (ftop * ftop)) / q : 0;
            if (!(v < XC_TREE_MAXPOS))
                return xc_error_set(err, XC_EINVAL, "tree-padded: the grid linear in 1/f^2 needs more than %d "
                                    "positions", XC_TREE_MAXPOS);
            tp->pos[c] = (int)floor(v + 0.5);
            last = tp->pos[c] > last ? tp->pos[c] : last;
        }
        npos = next_pow2(last + 1);
        tp->m = (int)npos;
        tp->nsub = 1;
    } else {
        for (int c = 0; c < nc; c++)
            tp->pos[c] = g->foff < 0 ? c : nc - 1 - c;
        npos = next_pow2(nc);
        int ns = job->opts.nsub;
        xc_status st;
        if (ns == 0 && (st = default_nsub(job, (int)npos, &ns, err)))
            return st;
        if (!is_pow2(ns) || ns > npos)
            return xc_error_set(err, XC_EINVAL, "tree: nsub %d must be a power of two at most %ld (the channels "
                                "padded to a power of two)", ns, npos);
        tp->nsub = ns;
        tp->m = (int)(npos / ns);
    }
    tp->npos = (int)npos;
    tp->chan = malloc((size_t)npos * sizeof *tp->chan);
    tp->ulast = malloc((size_t)tp->nsub * sizeof *tp->ulast);
    if (!tp->chan || !tp->ulast)
        return xc_error_set(err, XC_ENOMEM, "tree: out of memory for %ld positions", npos);
    for (long p = 0; p < npos; p++)
        tp->chan[p] = -1;
    for (int s = 0; s < tp->nsub; s++)
        tp->ulast[s] = -1;
    for (int c = 0; c < nc; c++) {
        int s = tp->pos[c] / tp->m, u = tp->pos[c] % tp->m;
        tp->chan[tp->pos[c]] = c;
        tp->ulast[s] = u > tp->ulast[s] ? u : tp->ulast[s];
    }
    return XC_OK;
}

static xc_status make_range(xc_treeplan *tp, const xc_ddjob *job, int k, xc_error *err)
{
    const xc_dmrange *r = &job->plan->r[k];
    const xc_geometry *g = &job->geom;
    const double kdm = job->conv->kdm, dt = g->tsamp * r->ds;
    const int ns = tp->nsub, M = tp->m;
    const int64_t L = job->max_delay / r->ds;
    xc_treerange *o = &tp->r[k];
    double ftop = -INFINITY;
    for (int c = 0; c < g->nchans; c++)
        ftop = fmax(ftop, freq(g, c));
    o->ds = r->ds;
    o->ndm = r->ndm;
    const size_t nd = r->ndm ? r->ndm : 1;
    o->n = malloc(nd * (size_t)ns * sizeof *o->n);
    o->b = malloc(nd * (size_t)ns * sizeof *o->b);
    o->clamp = calloc(nd, sizeof *o->clamp);
    o->smear = malloc(nd * sizeof *o->smear);
    o->bound = malloc(nd * sizeof *o->bound);
    double *beta = malloc((size_t)ns * sizeof *beta), *sigma = malloc((size_t)ns * sizeof *sigma);
    if (!o->n || !o->b || !o->clamp || !o->smear || !o->bound || !beta || !sigma) {
        free(beta);
        free(sigma);
        return xc_error_set(err, XC_ENOMEM, "tree: out of memory for the delays of range %d", k);
    }
#define RHO(c) (kdm * (1 / (freq(g, c) * freq(g, c)) - 1 / (ftop * ftop)) / dt)
    double q = 0;   /* padded: the 1/f^2 step of one position */
    if (tp->kind == XC_TREE_PADDED && g->nchans > 1) {
        q = INFINITY;
        for (int c = 0; c + 1 < g->nchans; c++) {
            double f1 = freq(g, c), f2 = freq(g, c + 1);
            q = fmin(q, fabs(1 / (f1 * f1) - 1 / (f2 * f2)));
        }
    }
    double steep = 0;   /* largest sweep per channel per unit DM */
    for (int s = 0; s < ns; s++) {
        beta[s] = sigma[s] = 0;
        if (tp->ulast[s] < 0)
            continue;
        if (tp->kind == XC_TREE_PADDED) {
            sigma[s] = kdm * q * (M - 1) / dt;
        } else {
            int c0 = tp->chan[s * M], cl = tp->chan[s * M + tp->ulast[s]];
            beta[s] = RHO(c0);
            sigma[s] = tp->ulast[s] > 0 ? (RHO(cl) - beta[s]) * (M - 1) / tp->ulast[s] : 0;
        }
        if (M > 1)
            steep = fmax(steep, sigma[s] / (M - 1));
    }
    double gmin = INFINITY, gmax = -INFINITY;
    for (int c = 0; c < g->nchans; c++) {
        int s = tp->pos[c] / M, u = tp->pos[c] % M;
        double gc = beta[s] + (M > 1 ? sigma[s] * u / (M - 1) : 0) - RHO(c);
        gmin = fmin(gmin, gc);
        gmax = fmax(gmax, gc);
    }
#undef RHO
    o->diag_dm = steep > 0 ? 1 / steep : INFINITY;
    xc_status st = XC_OK;
    for (size_t i = 0; i < r->ndm && !st; i++) {
        const double dm = r->dms[i];
        int32_t z = 0;
        for (int s = 0; s < ns; s++) {
            double nv = floor(sigma[s] * dm + 0.5), bv = floor(beta[s] * dm + 0.5);
            if (!(nv < 1e9 && bv < 1e9)) {
                st = xc_error_set(err, XC_EINVAL, "tree: delay at DM %g is out of range", dm);
                break;
            }
            int32_t n = (int32_t)nv, b = (int32_t)bv, zn = 0, zb = 0;
            const int ul = tp->ulast[s] > 0 ? tp->ulast[s] : 0;
            while (n > 0 && xc_tree_delay(M, n, ul) > L) {   /* only at the gulp's edge */
                n--;
                zn++;
            }
            int32_t hi = (int32_t)L - xc_tree_delay(M, n, ul);
            int32_t bc = b < 0 ? 0 : b > hi ? (hi > 0 ? hi : 0) : b;
            zb = bc > b ? bc - b : b - bc;
            o->n[i * (size_t)ns + (size_t)s] = n;
            o->b[i * (size_t)ns + (size_t)s] = bc;
            z = zn + zb > z ? zn + zb : z;
            if (M > 1 && n / (M - 1) > o->jmax)
                o->jmax = n / (M - 1);
        }
        o->clamp[i] = z;
        o->smear[i] = dm * (gmax - gmin);
        o->bound[i] = (int32_t)floor(o->smear[i] + tp->tm + 3 + 1e-9) + z;
    }
    free(beta);
    free(sigma);
    return st;
}

xc_status xc_treeplan_make(xc_treeplan *tp, const xc_ddjob *job, int kind, xc_error *err)
{
    memset(tp, 0, sizeof *tp);
    if (!job->plan || !job->conv || job->geom.nchans < 1)
        return xc_error_set(err, XC_EINVAL, "tree: the job is not prepared");
    if (job->opts.nsub < 0)
        return xc_error_set(err, XC_EINVAL, "tree: nsub: %d must be 0 (default) or a power of two", job->opts.nsub);
    tp->kind = kind;
    tp->nchans = job->geom.nchans;
    xc_status st = make_positions(tp, job, err);
    if (!st) {
        tp->tm = xc_tree_line_spread(tp->m);
        if (!(tp->r = calloc((size_t)job->plan->nranges, sizeof *tp->r)))
            st = xc_error_set(err, XC_ENOMEM, "tree: out of memory");
        else
            tp->nranges = job->plan->nranges;
    }
    for (int k = 0; k < tp->nranges && !st; k++)
        st = make_range(tp, job, k, err);
    if (st)
        xc_treeplan_free(tp);
    return st;
}
