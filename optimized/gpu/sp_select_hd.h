/* sp_select_hd.h: the block medians' keys and their bracket test (k_sp_medians,
 * sp_gpu_stats.cu), compiled by the host compiler and by nvcc alike
 * (core/base/xc_hd.h), so a host test checks the code the kernel runs.
 *
 * A float's key orders as its value: the sign-flipped bits, with -0 taken as
 * +0 (equal to it in the reference's sort); a NaN with the sign bit clear
 * sorts above +inf, one with it set below -inf.  The selection counts the
 * keys below a bracket [lo, hi] of keys and keeps those inside it.  Where lo
 * and hi are keys of numbers (not NaN), the same test is two float
 * comparisons against their values, since the key is strictly increasing
 * over the floats but for -0 = +0, which the comparisons also take as equal:
 * a key below lo is a value below lo's (or a NaN with the sign bit set), a
 * key in [lo, hi] a value in [lo's, hi's].  The pass then needs no key
 * arithmetic a sample, only the comparisons. */
#ifndef XC_SP_SELECT_HD_H
#define XC_SP_SELECT_HD_H

#include <stdint.h>
#include <string.h>

#include "core/base/xc_hd.h"

XC_HD static inline uint32_t xc_sp_float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

XC_HD static inline float xc_sp_bits_float(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The key of x. */
XC_HD static inline uint32_t xc_sp_fkey(float x)
{
    uint32_t u = xc_sp_float_bits(x);
    if (u == 0x80000000u)
        u = 0;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* The float whose key k is (+0 for the key of zero). */
XC_HD static inline float xc_sp_fkey_float(uint32_t k)
{
    return xc_sp_bits_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

/* Whether key k is a NaN's. */
XC_HD static inline int xc_sp_fkey_nan(uint32_t k)
{
    const float v = xc_sp_fkey_float(k);
    return v != v;
}

/* For vlo the value of a key lo of a number: whether key(x) < lo. */
XC_HD static inline int xc_sp_fkey_below(float x, float vlo)
{
    return x < vlo || (x != x && (xc_sp_float_bits(x) >> 31));
}

/* For vlo, vhi the values of keys lo <= hi of numbers: whether
 * lo <= key(x) <= hi. */
XC_HD static inline int xc_sp_fkey_inside(float x, float vlo, float vhi) { return x >= vlo && x <= vhi; }

#endif
