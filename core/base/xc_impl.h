/* xc_impl.h: the head every implementation's descriptor starts with, and the
 * registry that holds them.
 *
 * Every kernel family (dedispersion, the Pulscan boxcar search, and the ones
 * to come) describes an implementation with a struct whose first member is an
 * xc_impl, so one registry holds them all and every caller chooses by
 * capability (xc_registry_pick), never by name.  A name is only looked up when
 * a person typed it (`-impl gpu`).  The registry knows no implementation
 * itself: the table of built-in ones lives above core (optimized/xc_impls.h),
 * and a loaded plugin or a test adds its own at run time (xc_registry_add).
 *
 * The registry is an object, not a global, so two threads or two tests can
 * hold different ones (FFTW's planner keeps its solver list the same way). */
#ifndef XC_IMPL_H
#define XC_IMPL_H

#include <stddef.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Test builds only (tests/test_plugin.c; nothing else may be built so):
 * XC_TEST_GROW=N gives the internal option structs N doubles before their
 * first member and after their last, as a later version might add, to show
 * that a plugin's views do not depend on their layout. */
#ifdef XC_TEST_GROW
#define XC_GROWN(where) double xc_grown_##where[XC_TEST_GROW];
#else
#define XC_GROWN(where)
#endif

typedef enum {
    XC_FAMILY_DEDISPERSE = 0,  /* xc_dedisperser (core/dedisp/xc_dedisperse.h) */
    XC_FAMILY_PULSCAN,         /* xc_searcher (core/search/xc_search.h) */
    XC_FAMILY_ACCEL,           /* xc_accel_searcher (core/search/xc_accel.h) */
    XC_FAMILY_SINGLEPULSE,     /* xc_spsearcher (core/sp/xc_spsearch.h) */
    XC_FAMILY_COUNT
} xc_family;

/* "dedisperse", "pulscan", "accel", "singlepulse"; NULL for a value out of range. */
const char *xc_family_name(xc_family f);

/* Capabilities: what the callers choose by. */
enum {
    XC_CAP_REFERENCE = 1u << 0,   /* defines the semantics; the others are compared with it */
    XC_CAP_THREADED = 1u << 1,    /* uses several CPU threads (OpenMP) */
    XC_CAP_DEVICE = 1u << 2,      /* runs on an accelerator; may be unavailable here */
    XC_CAP_APPROXIMATE = 1u << 3, /* judged by a signal-loss bound, not equality (subband, tree) */
    XC_CAP_RUNTIME = 1u << 4      /* added at run time (a plugin, a test), not built in */
};

/* Writes the names of the bits of caps ("reference", "threaded", ...), comma
 * separated, into buf.  Returns the number of names. */
int xc_caps_format(unsigned caps, char *buf, size_t n);
/* The name of one bit, NULL for an unknown one. */
const char *xc_cap_name(unsigned bit);

/* How far an implementation may stand from the reference. */
typedef enum {
    XC_TOL_EXACT = 0,   /* bit for bit, every input */
    XC_TOL_ROUNDING,    /* integer input bit for bit; float input within value x the family's
                           rounding bound (dedispersion: N 2^-24 max|ref|, N = channels x ds) */
    XC_TOL_RELATIVE,    /* same candidates; power and sigma within value, relative */
    XC_TOL_SIGNAL_LOSS  /* peak S/N at most a fraction `value` below the reference's */
} xc_tol_kind;

typedef struct {
    xc_tol_kind kind;
    double value;
} xc_tolerance;

/* "exact", "rounding", "relative", "signal-loss". */
const char *xc_tol_kind_name(xc_tol_kind k);

typedef struct xc_impl {
    xc_family family;
    const char *name;          /* what -impl takes: "reference", "cpu", "gpu", a plugin's own */
    const char *desc;          /* one line */
    xc_tolerance tol;
    unsigned caps;
    /* 1 if usable here, else 0 with the reason in why.  NULL: always.  self:
     * this head (the descriptor it starts). */
    int (*available)(const struct xc_impl *self, char *why, size_t n);
    /* The implementation's own constants, for its methods to read through
     * self (a variant, an algorithm, a wrapped plugin's record); NULL: none.
     * Members are only ever appended after this one: write descriptors with
     * designated initialisers. */
    const void *data;
} xc_impl;

/* xc_impl->available, or 1 for NULL; why is "" when available. */
int xc_impl_available(const xc_impl *impl, char *why, size_t n);

typedef struct xc_registry xc_registry;

/* An empty registry.  XC_ENOMEM. */
xc_status xc_registry_create(xc_registry **reg, xc_error *err);
void xc_registry_destroy(xc_registry *reg);
/* Adds impl (not copied: it must outlive the registry), after the entries of
 * its family already there.  XC_EINVAL for a family out of range, a missing
 * name or descriptor, a name already in the family, or an approximate entry
 * whose tolerance is not a signal-loss bound (and the reverse). */
xc_status xc_registry_add(xc_registry *reg, const xc_impl *impl, xc_error *err);
size_t xc_registry_count(const xc_registry *reg, xc_family f);
/* The i-th entry of family f in the order added; NULL past the end. */
const xc_impl *xc_registry_at(const xc_registry *reg, xc_family f, size_t i);
/* The entry a person named; NULL if none has that name. */
const xc_impl *xc_registry_find(const xc_registry *reg, xc_family f, const char *name);
/* The first entry of f, in the order added, that has every capability in
 * `want`, none in `avoid`, and is available here; NULL if none. */
const xc_impl *xc_registry_pick(const xc_registry *reg, xc_family f, unsigned want, unsigned avoid);

#ifdef __cplusplus
}
#endif
#endif
