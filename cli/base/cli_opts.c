/* The table-driven option parser of the subcommands (cli_opts.h). */
#include "cli/base/cli_opts.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/plugin/cli_plugin.h"
#include "core/base/xc_fmt.h"

/* getopt's val for entry k of the flattened table; below it: '?', ':' and help. */
#define VAL_HELP 256
#define VAL_FIRST 257

/* An entry of the flattened table and whether it belongs to a LATER table. */
typedef struct {
    const xc_opt *o;
    int later;
} flat_opt;

/* Flattens table t (nested TABLE and LATER tables in place) into out, which
 * may be NULL to count.  Returns the new count. */
static int flatten(const xc_opt *t, int later, flat_opt *out, int n)
{
    for (; t->kind != XC_OPTK_END; t++) {
        if (t->kind == XC_OPTK_TABLE || t->kind == XC_OPTK_LATER) {
            n = flatten(t->dest, later || t->kind == XC_OPTK_LATER, out, n);
            continue;
        }
        if (out)
            out[n] = (flat_opt){t, later};
        n++;
    }
    return n;
}

int xc_cli_choice(const char *opt, const char *val, const char *choices, xc_error *err)
{
    size_t len = strlen(val);
    int k = 0;
    for (const char *w = choices;; k++) {
        size_t wl = strcspn(w, "|");
        if (wl == len && !strncmp(w, val, len))
            return k;
        if (!w[wl])
            break;
        w += wl + 1;
    }
    /* "a or b", "a, b or c" */
    char list[256] = "";
    size_t at = 0;
    int i = 0;
    for (const char *w = choices; at < sizeof list; i++) {
        size_t wl = strcspn(w, "|");
        int n = snprintf(list + at, sizeof list - at, "%s%.*s", i == 0 ? "" : i == k ? " or " : ", ", (int)wl, w);
        if (n < 0)
            break;
        at += (size_t)n;
        if (!w[wl])
            break;
        w += wl + 1;
    }
    xc_error_set(err, XC_EINVAL, "%s: '%s' is not %s", opt, val, list);
    return -1;
}

static xc_status apply(const xc_opt *o, const char *val, xc_error *err)
{
    char opt[128];
    snprintf(opt, sizeof opt, "-%s", o->name);
    if (o->given)
        *o->given = 1;
    switch (o->kind) {
    case XC_OPTK_FLAG:
        *(int *)o->dest = (int)o->lo;
        return XC_OK;
    case XC_OPTK_STR:
        *(const char **)o->dest = val;
        return XC_OK;
    case XC_OPTK_INT:
        return xc_cli_int(opt, val, o->lo, o->hi, o->dest, err);
    case XC_OPTK_DOUBLE:
        return xc_cli_double(opt, val, o->dest, err);
    case XC_OPTK_NONNEG: {
        double *d = o->dest;
        xc_status st = xc_cli_double(opt, val, d, err);
        if (!st && (!(*d >= 0) || !isfinite(*d)))
            st = xc_error_set(err, XC_EINVAL, "option %s: %s must be a finite number >= 0", opt, val);
        return st;
    }
    case XC_OPTK_U64:
        return xc_cli_u64(opt, val, o->dest, err);
    case XC_OPTK_INTS: {
        xc_cli_ints *l = o->dest;
        char buf[256];
        if (strlen(val) >= sizeof buf)
            return xc_error_set(err, XC_EINVAL, "option %s: list too long", opt);
        strcpy(buf, val);
        l->n = 0;
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (l->n == l->max)
                return xc_error_set(err, XC_EINVAL, "option %s: more than %d values", opt, l->max);
            xc_status st = xc_cli_int(opt, tok, o->lo, o->hi, &l->v[l->n], err);
            if (st)
                return st;
            l->n++;
        }
        if (l->n == 0)
            return xc_error_set(err, XC_EINVAL, "option %s: empty list", opt);
        return XC_OK;
    }
    case XC_OPTK_CHOICE: {
        int k = xc_cli_choice(opt, val, o->choices, err);
        if (k < 0)
            return XC_EINVAL;
        *(int *)o->dest = k;
        return XC_OK;
    }
    case XC_OPTK_CALL:
        return o->fn(o, opt, val, err);
    case XC_OPTK_END:
    case XC_OPTK_TABLE:
    case XC_OPTK_LATER:
        break;
    }
    return xc_error_set(err, XC_EINVAL, "option %s: no parser for it", opt);
}

/* "-name ARG" of an entry. */
static int opt_label(const xc_opt *o, char *buf, size_t n)
{
    const char *arg = o->arg ? o->arg : o->kind == XC_OPTK_FLAG ? NULL : "X";
    return snprintf(buf, n, "-%s%s%s", o->name, arg ? " " : "", arg ? arg : "");
}

/* The options' column: the widest "-name ARG" up to 18, then two blanks. */
#define HELP_COL_MAX 18

/* A help text's lines after a label of width w: each line's text two spaces
 * on, the lines after the first indented to w + 2. */
static void put_text(int w, const char *h)
{
    for (;;) {
        size_t len = strcspn(h, "\n");
        if (len)
            printf("  %.*s", (int)len, h);
        if (!h[len])
            break;
        h += len + 1;
        printf("\n  %-*s", w, "");
    }
}

void xc_opts_help(const xc_optspec *s, const xc_opt *opts)
{
    printf("usage: crosscheck %s %s\n", s->cmd, s->usage ? s->usage : "[options]");
    if (s->about)
        printf("\n%s", s->about);
    int n = flatten(opts, 0, NULL, 0);
    flat_opt *flat = malloc(((size_t)n + 1) * sizeof *flat);
    if (flat) {
        flatten(opts, 0, flat, 0);
        int w = 2;   /* "-h" */
        char label[128];
        for (int k = 0; k < n; k++) {
            int l = opt_label(flat[k].o, label, sizeof label);
            if (flat[k].o->help && l > w && l <= HELP_COL_MAX)
                w = l;
        }
        printf("\noptions:\n");
        for (int k = 0; k < n; k++) {
            const xc_opt *o = flat[k].o;
            if (!o->help)   /* taken, but not this command's (gate dedisperse and search share a table) */
                continue;
            int l = opt_label(o, label, sizeof label);
            printf("  %-*s", w, label);
            if (l > w)   /* a long label: its text on the next line */
                printf("\n  %-*s", w, "");
            put_text(w, o->help);
            if (o->def)
                printf(" [%s]", o->def);
            printf("\n");
        }
        printf("  %-*s  this help\n", w, "-h");
        free(flat);
    }
    if (s->after)
        printf("\n%s", s->after);
    if (s->more)
        s->more();
}

/* One pass over argv: pass 0 applies the options outside LATER tables and
 * checks the positional arguments; pass 1 applies only the LATER ones. */
static int run(const xc_optspec *s, const xc_opt *opts, int argc, char **argv, int *first, int pass)
{
    int n = flatten(opts, 0, NULL, 0);
    flat_opt *flat = malloc(((size_t)n + 1) * sizeof *flat);
    struct option *lo = malloc(((size_t)n + 3) * sizeof *lo);
    if (!flat || !lo) {
        free(flat);
        free(lo);
        return xc_cli_failf(s->cmd, "out of memory");
    }
    flatten(opts, 0, flat, 0);
    for (int k = 0; k < n; k++) {
        int arg = flat[k].o->kind == XC_OPTK_FLAG ? no_argument : required_argument;
        lo[k] = (struct option){flat[k].o->name, arg, NULL, VAL_FIRST + k};
    }
    lo[n] = (struct option){"h", no_argument, NULL, VAL_HELP};
    lo[n + 1] = (struct option){"help", no_argument, NULL, VAL_HELP};
    lo[n + 2] = (struct option){NULL, 0, NULL, 0};

    xc_cli_getopt_reset();
    xc_error err;
    xc_error_clear(&err);
    int rc = XC_OPTS_GO, c;
    while (rc == XC_OPTS_GO && (c = getopt_long_only(argc, argv, "", lo, NULL)) != -1) {
        if (c == VAL_HELP) {
            xc_opts_help(s, opts);
            xc_cli_common_help();
            rc = 0;
        } else if (c < VAL_FIRST || c >= VAL_FIRST + n) {
            rc = xc_cli_badopt(s->cmd, argc, argv);
        } else if (flat[c - VAL_FIRST].later == pass && apply(flat[c - VAL_FIRST].o, optarg, &err)) {
            rc = xc_cli_fail(s->cmd, &err);
        }
    }
    if (rc == XC_OPTS_GO && pass == 0) {
        if (s->max_args != XC_OPTS_ANY_ARGS && argc - optind > s->max_args)
            rc = xc_cli_failf(s->cmd, "unexpected argument '%s'", argv[optind + s->max_args]);
        else if (first)
            *first = optind;
    }
    free(flat);
    free(lo);
    return rc;
}

int xc_opts_parse(const xc_optspec *s, const xc_opt *opts, int argc, char **argv, int *first)
{
    return run(s, opts, argc, argv, first, 0);
}

int xc_opts_parse_later(const xc_optspec *s, const xc_opt *opts, int argc, char **argv)
{
    return run(s, opts, argc, argv, NULL, 1);
}

/* What one types for sub: its name's last word ("pulscan" of "bench pulscan"). */
static const char *sub_word(const xc_cmd *sub)
{
    const char *sp = strrchr(sub->name, ' ');
    return sp ? sp + 1 : sub->name;
}

static void subcmd_help(const xc_optspec *s, const char *noun, const xc_cmd *subs, size_t n)
{
    printf("usage: crosscheck %s %s\n", s->cmd, s->usage ? s->usage : "NAME [options]");
    if (s->about)
        printf("\n%s", s->about);
    int w = 0;
    for (size_t k = 0; k < n; k++)
        if ((int)strlen(sub_word(&subs[k])) > w)
            w = (int)strlen(sub_word(&subs[k]));
    printf("\n%ss (crosscheck %s NAME -h for each one's options):\n", noun, s->cmd);
    for (size_t k = 0; k < n; k++) {
        printf("  %-*s", w, sub_word(&subs[k]));
        put_text(w, subs[k].what);
        printf("\n");
    }
    if (s->after)
        printf("\n%s", s->after);
}

int xc_subcmd_run(const xc_optspec *s, const char *noun, const xc_cmd *subs, size_t n, int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : NULL;
    if (!name || !strcmp(name, "-h") || !strcmp(name, "-help") || !strcmp(name, "--help")) {
        subcmd_help(s, noun, subs, n);
        if (!name)
            return 2;
        xc_cli_common_help();
        return 0;
    }
    for (size_t k = 0; k < n; k++)
        if (!strcmp(name, sub_word(&subs[k])))
            return subs[k].run(&subs[k], argc - 1, argv + 1);
    char names[512] = "";
    for (size_t k = 0; k < n; k++)
        xc_fmt(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", sub_word(&subs[k]));
    return xc_cli_failf(s->cmd, "unknown %s '%s' (there are: %s)", noun, name, names);
}

void xc_cli_defaults(char (*d)[XC_DEF_LEN], const xc_cli_defv *v, int n)
{
    for (int k = 0; k < n; k++)
        snprintf(d[k], XC_DEF_LEN, "%.*f", v[k].decimals, v[k].v);
}

/* -maxloss (cli.h) */
xc_status xc_cli_opt_maxloss(const struct xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    double v;
    xc_status st = xc_cli_double(opt, val, &v, err);
    if (!st && !(v > 0 && v <= 1))
        st = xc_error_set(err, XC_EINVAL, "option %s: '%s': the S/N-loss limit must be a fraction in (0, 1]", opt, val);
    if (!st)
        *(double *)o->dest = v;
    return st;
}
