#include "compare/xc_compare.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *or_unknown(const char *s)
{
    return s && *s ? s : "?";
}

static void print_side(FILE *fp, const char *role, const char *name, const char *impl,
                            const char *conv, int nbits)
{
    fprintf(fp, "  %-15s %s  (implementation %s, convention %s, nbits %d)\n", role, name,
            or_unknown(impl), or_unknown(conv), nbits);
}

static void print_peak(FILE *fp, const char *role, const xc_cmppeak *p)
{
    if (!p->found) {
        fprintf(fp, "  peak %s: no finite value\n", role);
        return;
    }
    fprintf(fp, "  peak %s: %.9g at range %d, DM %.6g (trial %zu), t %zu; S/N %.2f\n", role,
            p->value, p->range, p->dm, p->idm, p->t, p->snr);
}

xc_status xc_cmpresult_print(const xc_cmpresult *res, FILE *fp, xc_error *err)
{
    clearerr(fp);
    fprintf(fp, "compare planes\n");
    print_side(fp, "A (candidate):", res->name_a, res->impl_a, res->conv_a, res->nbits_a);
    print_side(fp, "B (reference):", res->name_b, res->impl_b, res->conv_b, res->nbits_b);
    if (strcmp(res->conv_a, res->conv_b) != 0)
        fprintf(fp, "  note: the conventions differ (%s vs %s)\n", or_unknown(res->conv_a),
                or_unknown(res->conv_b));
    if (res->cls == XC_CLASS_EXACT)
        fprintf(fp, "  tolerance class: exact (integer input: every sample must be equal)\n");
    else if (res->rtol_given)
        fprintf(fp, "  tolerance class: bound |A-B| <= rtol*max|B| + atol, rtol %.6g (given), atol %.6g\n",
                res->r[0].rtol, res->atol);
    else
        fprintf(fp, "  tolerance class: bound |A-B| <= N*2^-24*max|B| + atol, N = nchans_used*ds, atol %.6g\n",
                res->atol);

    fprintf(fp, "  %-5s %4s %9s %9s %14s %11s %12s %14s %10s %10s\n", "range", "ds", "trials", "samples",
            "max|B|", "rtol", "bound", "max|A-B|", "differ", "over");
    for (int k = 0; k < res->nranges; k++) {
        const xc_cmprange *r = &res->r[k];
        char rtol[32] = "-", bound[32] = "0 (exact)";
        if (res->cls == XC_CLASS_BOUND) {
            snprintf(rtol, sizeof rtol, "%.4g", r->rtol);
            snprintf(bound, sizeof bound, "%.6g", r->bound);
        }
        fprintf(fp, "  %-5d %4d %9zu %9zu %14.7g %11s %12s %14.7g %10llu %10llu\n", k, r->ds, r->ndm,
                r->nsamp, r->max_abs_b, rtol, bound, r->max_abs, (unsigned long long)r->n_diff,
                (unsigned long long)r->n_over);
    }
    fprintf(fp, "  samples compared: %llu, differing: %llu, outside the tolerance: %llu",
            (unsigned long long)res->n_total, (unsigned long long)res->n_diff,
            (unsigned long long)res->n_over);
    if (res->n_nonfinite)
        fprintf(fp, ", non-finite differences: %llu", (unsigned long long)res->n_nonfinite);
    if (res->n_diff)
        fprintf(fp, "; in %llu DM trials", (unsigned long long)res->n_trials_diff);
    fputc('\n', fp);
    fprintf(fp, "  max |A-B| %.9g, max |A-B|/|B| %.6g, rms %.6g\n", res->max_abs, res->max_rel,
            res->rms);
    if (res->n_diff) {
        const xc_cmploc *f = &res->first, *w = &res->worst;
        fprintf(fp, "  first difference: range %d, trial %zu (DM %.6g), t %zu: A %.9g vs B %.9g\n",
                f->range, f->idm, f->dm, f->t, f->a, f->b);
        fprintf(fp, "  largest difference: range %d, trial %zu (DM %.6g), t %zu: A %.9g vs B %.9g\n",
                w->range, w->idm, w->dm, w->t, w->a, w->b);
    }
    print_peak(fp, "A", &res->peak_a);
    print_peak(fp, "B", &res->peak_b);
    if (res->has_dm)
        fprintf(fp, "  at DM %.6g (nearest trial: range %d, trial %zu, DM %.6g): 100*(A-B)/max|B| "
                    "max %.6g %%, rms %.6g %% (max|B| %.7g)\n",
                res->dm_asked, res->dmrow.range, res->dmrow.idm, res->dmrow.dm, res->pct_max,
                res->pct_rms, res->dm_max_abs_b);
    if (res->agree)
        fprintf(fp, "verdict: AGREE (%s)\n", xc_cmpclass_name(res->cls));
    else if (!res->n_total)
        fprintf(fp, "verdict: DISAGREE (%s): no sample compared (the planes hold no output: no DM trial, or no "
                    "output sample per trial)\n", xc_cmpclass_name(res->cls));
    else
        fprintf(fp, "verdict: DISAGREE (%s): %llu of %llu samples %s\n", xc_cmpclass_name(res->cls),
                (unsigned long long)res->n_over, (unsigned long long)res->n_total,
                res->cls == XC_CLASS_EXACT ? "differ" : "exceed the bound");
    if (fflush(fp) != 0 || ferror(fp))
        return xc_error_set(err, XC_EIO, "writing the comparison report: %s", strerror(errno));
    return XC_OK;
}

/* JSON has no inf/NaN: those become null so a reader sees "no number". */
static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static int put(json_t *o, const char *key, json_t *v)
{
    return v ? json_object_set_new(o, key, v) : -1;
}

static json_t *jloc(const xc_cmploc *l, int with_values)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = put(o, "range", json_integer(l->range)) | put(o, "dm_index", json_integer((json_int_t)l->idm)) |
              put(o, "dm", jnum(l->dm));
    if (with_values)
        bad |= put(o, "t", json_integer((json_int_t)l->t)) | put(o, "a", jnum(l->a)) |
               put(o, "b", jnum(l->b));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *jpeak(const xc_cmppeak *p)
{
    if (!p->found)
        return json_null();
    json_t *o = json_object();
    if (!o)
        return NULL;
    if (put(o, "range", json_integer(p->range)) | put(o, "dm_index", json_integer((json_int_t)p->idm)) |
        put(o, "dm", jnum(p->dm)) | put(o, "t", json_integer((json_int_t)p->t)) |
        put(o, "value", jnum(p->value)) | put(o, "snr", jnum(p->snr))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *jranges(const xc_cmpresult *res)
{
    json_t *a = json_array();
    if (!a)
        return NULL;
    for (int k = 0; k < res->nranges; k++) {
        const xc_cmprange *r = &res->r[k];
        json_t *o = json_object();
        if (!o || json_array_append_new(a, o)) {
            json_decref(a);
            return NULL;
        }
        if (put(o, "ds", json_integer(r->ds)) | put(o, "ndm", json_integer((json_int_t)r->ndm)) |
            put(o, "nsamp", json_integer((json_int_t)r->nsamp)) | put(o, "n_terms", jnum(r->n_terms)) |
            put(o, "max_abs_b", jnum(r->max_abs_b)) |
            put(o, "rtol", res->cls == XC_CLASS_EXACT ? json_null() : jnum(r->rtol)) |
            put(o, "bound", res->cls == XC_CLASS_EXACT ? json_null() : jnum(r->bound)) |
            put(o, "max_abs", jnum(r->max_abs)) | put(o, "n_diff", json_integer((json_int_t)r->n_diff)) |
            put(o, "n_over", json_integer((json_int_t)r->n_over))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

xc_status xc_cmpresult_json(const xc_cmpresult *res, json_t *obj, xc_error *err)
{
    if (!json_is_object(obj))
        return xc_error_set(err, XC_EINVAL, "comparison JSON: target is not an object");
    int bad = put(obj, "a", json_string(res->name_a)) | put(obj, "b", json_string(res->name_b)) |
              put(obj, "impl_a", json_string(res->impl_a)) | put(obj, "impl_b", json_string(res->impl_b)) |
              put(obj, "convention_a", json_string(res->conv_a)) |
              put(obj, "convention_b", json_string(res->conv_b)) |
              put(obj, "nbits_a", json_integer(res->nbits_a)) | put(obj, "nbits_b", json_integer(res->nbits_b)) |
              put(obj, "class", json_string(xc_cmpclass_name(res->cls))) |
              put(obj, "rtol_given", json_boolean(res->rtol_given)) | put(obj, "atol", jnum(res->atol)) |
              put(obj, "ranges", jranges(res)) |
              put(obj, "n_total", json_integer((json_int_t)res->n_total)) |
              put(obj, "n_diff", json_integer((json_int_t)res->n_diff)) |
              put(obj, "n_over", json_integer((json_int_t)res->n_over)) |
              put(obj, "n_nonfinite", json_integer((json_int_t)res->n_nonfinite)) |
              put(obj, "n_trials_diff", json_integer((json_int_t)res->n_trials_diff)) |
              put(obj, "max_abs", jnum(res->max_abs)) | put(obj, "max_rel", jnum(res->max_rel)) |
              put(obj, "rms", jnum(res->rms)) |
              put(obj, "first_diff", res->n_diff ? jloc(&res->first, 1) : json_null()) |
              put(obj, "max_diff", res->n_diff ? jloc(&res->worst, 1) : json_null()) |
              put(obj, "peak_a", jpeak(&res->peak_a)) | put(obj, "peak_b", jpeak(&res->peak_b));
    if (res->has_dm) {
        json_t *d = jloc(&res->dmrow, 0);
        if (d)
            bad |= put(d, "dm_asked", jnum(res->dm_asked)) | put(d, "max_abs_b", jnum(res->dm_max_abs_b)) |
                   put(d, "pct_max", jnum(res->pct_max)) | put(d, "pct_rms", jnum(res->pct_rms));
        bad |= put(obj, "dm_row", d);
    } else {
        bad |= put(obj, "dm_row", json_null());
    }
    bad |= put(obj, "agree", json_boolean(res->agree));
    if (bad)
        return xc_error_set(err, XC_ENOMEM, "comparison JSON: out of memory");
    return XC_OK;
}
