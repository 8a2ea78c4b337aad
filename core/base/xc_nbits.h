/* xc_nbits.h: the sample widths of SIGPROC filterbank data and what kind of
 * sample each one is, written once.  SIGPROC's filterbank format allows
 * nbits 1, 2, 4 and 8 (unsigned, sub-byte samples packed into bytes), 16
 * (unsigned) and 32 (IEEE float32); see SIGPROC's header.c and sigpyproc's
 * Header.dtype.  Everything that checks an nbits or chooses between the
 * integer and the float path asks these two functions. */
#ifndef XC_NBITS_H
#define XC_NBITS_H

#include "core/base/xc_hd.h"

/* nbits of float32 samples; every other valid width is an unsigned integer. */
#define XC_NBITS_FLOAT 32

/* 1 if nbits is a width SIGPROC data can have: 1, 2, 4, 8, 16 or 32. */
static inline XC_HD int xc_nbits_valid(long long nbits)
{
    return nbits == 1 || nbits == 2 || nbits == 4 || nbits == 8 || nbits == 16 || nbits == XC_NBITS_FLOAT;
}

/* 1 if samples of nbits are float32 (held in a float array), 0 if they are
 * unsigned integers (held in a uint16_t array). */
static inline XC_HD int xc_nbits_is_float(long long nbits)
{
    return nbits == XC_NBITS_FLOAT;
}

/* 1 if nbits is a valid integer width: 1, 2, 4, 8 or 16. */
static inline XC_HD int xc_nbits_is_int(long long nbits)
{
    return xc_nbits_valid(nbits) && !xc_nbits_is_float(nbits);
}

#endif
