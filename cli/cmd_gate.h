/* cmd_gate.h: what the pieces of `crosscheck gate` share (private to cli/).
 *   cmd_gate.c         options, the work folder, external commands, the verdict table, JUnit/JSON, exit code
 *   cmd_gate_dd.c      gate dedisperse: the tiers' cases, reading a command's planes, the checks
 *   cmd_gate_search.c  gate search: the tiers' spectra, candidates against truth and the reference */
#ifndef CMD_GATE_H
#define CMD_GATE_H

#include <stddef.h>

#include "compare/xc_checks.h"
#include "core/dedisp/xc_dmplan.h"
#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"

/* The tolerance class the user declares (-exact, -float, -approx L), or the
 * implementation's own (a plugin's descriptor). */
typedef enum { GATE_CLASS_DEFAULT = 0, GATE_CLASS_EXACT, GATE_CLASS_FLOAT, GATE_CLASS_APPROX } gate_class;

enum { GATE_QUICK = 0, GATE_STANDARD, GATE_FULL };

typedef struct {
    const char *what;          /* "dedisperse" or "search" */
    int tier;                  /* GATE_QUICK.. */
    const char *tier_name;
    const char *impl_name;     /* -impl */
    const xc_impl *impl;       /* the implementation judged (NULL with -cmd) */
    const char *cmd;           /* -cmd TEMPLATE */
    gate_class cls;
    double loss;               /* -approx L */
    const xc_convention *cv;
    int format;                /* dedisperse: GATE_FMT_* */
    const char *junit, *json;
    double timeout;            /* seconds per external command */
    int keep, quiet;
    char work[4096];           /* the work folder (removed at the end unless -keep or -work) */
    int own_work;
    const char *label;         /* the name rows give the judged implementation */
    xc_checks rows;
    size_t shown;
    xc_status fatal;           /* an error that is no verdict (memory, the work folder) */
    xc_error fatal_err;
    int hint_done;             /* dedisperse: a failing case matched no other convention: stop looking */
    /* search */
    int family;                /* XC_FAMILY_PULSCAN or XC_FAMILY_ACCEL */
} gatectx;

enum { GATE_FMT_AUTO = 0, GATE_FMT_PLANE, GATE_FMT_NPY, GATE_FMT_DAT, GATE_FMT_TIM };
#define GATE_FORMATS "auto|plane|npy|dat|tim"

/* cmd_gate.c */
/* Remembers st (the first one wins) unless it is XC_OK; returns st. */
xc_status gate_note(gatectx *g, xc_status st, const xc_error *e);
/* A failed row for a check that could not be made. */
void gate_fail(gatectx *g, const char *obs, const char *check, const char *why, const char *bound);
/* Shows the rows added since the last call on stderr (unless -quiet). */
void gate_emit(gatectx *g);

/* A placeholder of a -cmd template and its value. */
typedef struct {
    const char *key;
    char val[4200];
} gate_kv;

/* Fills tmpl's {key} placeholders from kv[0..n) ({{ and }} are braces),
 * quoting values for the shell where they need it.  XC_EINVAL naming an
 * unknown placeholder and the ones there are. */
xc_status gate_expand(const char *tmpl, const gate_kv *kv, size_t n, char *out, size_t outn, xc_error *err);
/* Runs `sh -c cmd` with stdout and stderr into log, in its own process
 * group, at most g->timeout seconds.  XC_OK when it ran: *code is its exit
 * status, 128 + signal when killed, -1 when it overran (the group killed).
 * tail gets the last line of the log. */
xc_status gate_spawn(const gatectx *g, const char *cmd, const char *log, int *code, char *tail, size_t ntail,
                     xc_error *err);
/* One row for a command that did not run cleanly; returns 1 when it did not. */
int gate_cmd_failed(gatectx *g, const char *obs, const char *cmd, const char *log, int code, const char *tail);

/* cmd_gate_dd.c */
int gate_dedisperse(gatectx *g);
/* cmd_gate_search.c */
int gate_search(gatectx *g);

#endif
