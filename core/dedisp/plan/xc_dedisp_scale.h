/* xc_dedisp_scale.h: dedisp's float output scale (the convention scaling
 * XC_SCALE_DEDISP of core/dedisp/plan/xc_dmplan.h), defined once for every
 * implementation.  dedisp (Barsdell et al. 2012; src/kernels.cuh of
 * github.com/ajameson/dedisp) writes a 32-bit output sample as
 *     sum * 1 / (in_range * nchans) * XC_DEDISP_SCALE,
 * in_range = 2^nbits - 1 the largest input value (xc_dedisp_in_range), and
 * the factor 3 * 1024 / 255 / 16 its kernel's fixed constant.  The float
 * expressions are dedisp's, so that every path rounds as it does. */
#ifndef XC_DEDISP_SCALE_H
#define XC_DEDISP_SCALE_H

#define XC_DEDISP_SCALE ((3.f * 1024.f) / 255.f / 16.f)

/* dedisp's in_range: 2^nbits - 1.  Float input has no integer range; we take 1
 * (dedisp itself would read 32-bit input as uint32). */
static inline float xc_dedisp_in_range(int nbits)
{
    return nbits >= 32 ? 1.0f : (float)((1u << nbits) - 1u);
}

#endif
