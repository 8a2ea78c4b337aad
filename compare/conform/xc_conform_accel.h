/* xc_conform_accel.h: the conformance cases of the matched-filter accel
 * family (core/search/xc_accel.h), judged by the implementation's tolerance class
 * against the family's reference; rows into the same report as the other
 * families' (compare/conform/xc_conform.h). */
#ifndef XC_CONFORM_ACCEL_H
#define XC_CONFORM_ACCEL_H

#include "compare/conform/xc_conform.h"
#include "core/search/xc_accel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cases: "class"; "hand/delta-z<z>": a single nonzero bin gives
 * P = |R(k0 - r; z)|^2 at every r (both templates' wings included);
 * "plane/<cfg>": the plane of a noisy spectrum with tones against the
 * reference's; "cands/<cfg>/<preset>": the candidate lists (same r, z, w,
 * numharm; power and sigma within the class); "threads/<cfg>": the list at 1
 * and 2 threads bit for bit; "noise/mean": the mean normalised power of pure
 * noise at z = 0 is sum |R|^2 within 5 standard errors; "noise/sigma0": pure
 * noise searched at sigma 0, the lists one for one (below).  Classes: exact
 * (bit for bit) or relative v.  Errors as xc_conform_searcher's. */
/* A spectrum of Gaussian noise (xc_conform_rng_gauss, from seed; unnormalised:
 * the search normalises) plus ntones tones {r, z, amplitude}, each the exact
 * z response over r +- 200 bins; dt 1 ms.  XC_ENOMEM. */
xc_status xc_conform_tone_spectrum(xc_spectrum *sp, size_t nbins, uint64_t seed, const double (*tones)[3],
                                   int ntones, xc_error *err);

xc_status xc_conform_accel(const xc_accel_searcher *impl, const xc_accel_searcher *ref, const xc_conform_opts *o,
                           xc_conform_report *rep, xc_error *err);

/* The borderline case alone, as `crosscheck run` and `gate` add it for
 * every accel searcher: "noise/sigma0", nsp pure-noise spectra of 4001 bins
 * (seeds seed...) searched at sigma 0 (zmax 16, numharm 4), each list
 * against the reference's one for one (xc_conform_accel runs it on up to 4
 * of its noise spectra).  Errors as xc_conform_accel's. */
xc_status xc_conform_accel_noise(const xc_accel_searcher *impl, const xc_accel_searcher *ref, size_t nsp,
                                 uint64_t seed, xc_conform_report *rep, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
