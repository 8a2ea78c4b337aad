/* The registry mechanism: lists of descriptors per family.  It names no
 * implementation; optimized/impls.c holds the built-in table. */
#include "core/base/xc_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct xc_registry {
    const xc_impl **e[XC_FAMILY_COUNT];
    size_t n[XC_FAMILY_COUNT], cap[XC_FAMILY_COUNT];
};

static const char *const family_names[XC_FAMILY_COUNT] = {"dedisperse", "pulscan", "accel", "singlepulse"};
static const char *const cap_names[] = {"reference", "threaded", "device", "approximate", "runtime"};
static const char *const tol_names[] = {"exact", "rounding", "relative", "signal-loss"};

const char *xc_family_name(xc_family f)
{
    return (unsigned)f < XC_FAMILY_COUNT ? family_names[f] : NULL;
}

const char *xc_cap_name(unsigned bit)
{
    for (size_t i = 0; i < sizeof cap_names / sizeof *cap_names; i++)
        if (bit == 1u << i)
            return cap_names[i];
    return NULL;
}

int xc_caps_format(unsigned caps, char *buf, size_t n)
{
    int k = 0;
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof cap_names / sizeof *cap_names; i++) {
        if (!(caps & (1u << i)))
            continue;
        if (used < n) {
            int w = snprintf(buf + used, n - used, "%s%s", k ? "," : "", cap_names[i]);
            used += w > 0 ? (size_t)w : 0;
        }
        k++;
    }
    return k;
}

const char *xc_tol_kind_name(xc_tol_kind k)
{
    return (unsigned)k < sizeof tol_names / sizeof *tol_names ? tol_names[k] : "unknown";
}

int xc_impl_available(const xc_impl *impl, char *why, size_t n)
{
    if (n)
        why[0] = '\0';
    return !impl->available || impl->available(impl, why, n);
}

xc_status xc_registry_create(xc_registry **reg, xc_error *err)
{
    *reg = calloc(1, sizeof **reg);
    return *reg ? XC_OK : xc_error_set(err, XC_ENOMEM, "registry: out of memory");
}

void xc_registry_destroy(xc_registry *reg)
{
    if (!reg)
        return;
    for (int f = 0; f < XC_FAMILY_COUNT; f++)
        free(reg->e[f]);
    free(reg);
}

xc_status xc_registry_add(xc_registry *reg, const xc_impl *impl, xc_error *err)
{
    if (!impl || !impl->name || !impl->name[0] || !impl->desc)
        return xc_error_set(err, XC_EINVAL, "registry: an implementation needs a name and a description");
    xc_family f = impl->family;
    if ((unsigned)f >= XC_FAMILY_COUNT)
        return xc_error_set(err, XC_EINVAL, "registry: %s: family %d is not one of the %d known", impl->name,
                            (int)f, XC_FAMILY_COUNT);
    if (!!(impl->caps & XC_CAP_APPROXIMATE) != (impl->tol.kind == XC_TOL_SIGNAL_LOSS))
        return xc_error_set(err, XC_EINVAL,
                            "registry: %s: tolerance: an approximate implementation (and only one) is judged by a "
                            "signal-loss bound, found '%s'",
                            impl->name, xc_tol_kind_name(impl->tol.kind));
    if (xc_registry_find(reg, f, impl->name))
        return xc_error_set(err, XC_EINVAL, "registry: %s: family %s already has an implementation of that name",
                            impl->name, family_names[f]);
    if (reg->n[f] == reg->cap[f]) {
        size_t cap = reg->cap[f] ? 2 * reg->cap[f] : 8;
        const xc_impl **e = realloc(reg->e[f], cap * sizeof *e);
        if (!e)
            return xc_error_set(err, XC_ENOMEM, "registry: out of memory");
        reg->e[f] = e;
        reg->cap[f] = cap;
    }
    reg->e[f][reg->n[f]++] = impl;
    return XC_OK;
}

size_t xc_registry_count(const xc_registry *reg, xc_family f)
{
    return (unsigned)f < XC_FAMILY_COUNT ? reg->n[f] : 0;
}

const xc_impl *xc_registry_at(const xc_registry *reg, xc_family f, size_t i)
{
    return i < xc_registry_count(reg, f) ? reg->e[f][i] : NULL;
}

const xc_impl *xc_registry_find(const xc_registry *reg, xc_family f, const char *name)
{
    for (size_t i = 0; name && i < xc_registry_count(reg, f); i++)
        if (!strcmp(reg->e[f][i]->name, name))
            return reg->e[f][i];
    return NULL;
}

const xc_impl *xc_registry_pick(const xc_registry *reg, xc_family f, unsigned want, unsigned avoid)
{
    for (size_t i = 0; i < xc_registry_count(reg, f); i++) {
        const xc_impl *e = reg->e[f][i];
        char why[8];
        if ((e->caps & want) == want && !(e->caps & avoid) && xc_impl_available(e, why, sizeof why))
            return e;
    }
    return NULL;
}
