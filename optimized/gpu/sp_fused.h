/* sp_fused.h: the fused GPU pipeline (optimized/gpu/xc_gpu.h) over a whole
 * filterbank in gulps (core/sp/xc_spgulp.h).  Plain C, for the C callers
 * (the CLI, tests); the CUDA sources do not include it. */
#ifndef XC_SP_FUSED_H
#define XC_SP_FUSED_H

#include <stddef.h>

#include "core/sp/xc_spgulp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* xc_sp_search_fil with every gulp's search pass fused: one fused plan
 * (xc_sp_gpu_fused_create) for the run, each gulp's window dedispersed
 * into its device plane and searched there through device views; the
 * detections each gulp owns kept and clustered once, as on the host, so
 * the list is the host gulps' (and, integer-valued, the whole file's in
 * one gulp).  The passes gathering the whole rows' statistics (more than
 * one gulp: core/sp/xc_sprms.h) read host planes from the same
 * dedisperser plan.  a->source is replaced; a->dd and a->search must be a
 * pair xc_sp_gpu_fusable accepts (else XC_EINVAL naming both).
 * *plane_bytes (may be NULL) gets the device plane's largest size. */
xc_status xc_sp_gpu_search_fil(xc_fbreader *r, const xc_spgulp_args *a, xc_spcandlist *out, xc_spgulp_info *info,
                               size_t *plane_bytes, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
