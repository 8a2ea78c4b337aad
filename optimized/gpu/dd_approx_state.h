/* dd_approx_state.h: the GPU subband and tree dedispersers' state, shared by
 * the host tables made from core's plans (dd_approx_plan.cu) and the gulp's
 * execution (dd_approx_gpu.cu).  C++ (nvcc) only, internal to optimized/gpu. */
#ifndef XC_DD_APPROX_STATE_H
#define XC_DD_APPROX_STATE_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/approx/xc_subband.h"
#include "core/dedisp/approx/xc_tree.h"

namespace xc_ap {

const size_t AP_SCRATCH = (size_t)512 << 20;
const size_t AP_MIN_TC = 256;

enum { AK_SUBBAND = 0, AK_TREE_PW, AK_TREE_PAD };

/* Trials a group of the tree's shared-row stage 2 (dd_approx_treeg.cu),
 * and the pairs of outputs a thread adds from one shared-memory load. */
const int AP_TG = 16;
const int AP_TG_NP = 2;

/* The tree's stage-2 groups of one range (dd_approx_treeg.cu): AP_TG
 * consecutive trials each, and per group and four subbands the distinct rows
 * (entries) those trials read. */
struct ap_tgroups {
    int ng, nent;                 /* 0 groups: none (stage 2 reads L2) */
    int32_t *h_first, *d_first;   /* [ng + 1]: the group's trials */
    int32_t *h_len, *d_len;       /* [ng]: words an entry stages (256 + the group's largest spread of shifts) */
    int32_t *h_ent, *d_ent;       /* [ng nsub/4 + 1]: first entry of group j, subbands [4c, 4c + 4) */
    int32_t *h_row, *d_row;       /* [nent]: the entry's row */
    int32_t *h_lo, *d_lo;         /* [nent]: the smallest shift into it */
    int32_t *h_off, *d_off;       /* [ndm][nsub]: 4 AP_TG_NP ((entry - the group's first) len + shift - lo), bytes */
};

struct ap_range {
    int ds;
    size_t ndm;
    size_t span;             /* largest spread of stage-2 delays within one stage-1 row's trials */
    /* subband: groups */
    int ngroups;
    const size_t *first;     /* the subplan's */
    int64_t *h_lo;           /* [ngroups][nsub]: smallest b of the group's trials */
    int32_t *d_a;            /* [ngroups][nchans] */
    int64_t *d_lo;
    unsigned long long *h_first, *d_first;   /* [ngroups + 1]: the group's trials (first) */
    int32_t *h_gspan, *d_gspan;              /* [ngroups]: the group's largest stage-2 shift */
    int32_t dwin;            /* largest spread of lo[j][s] + a[j][c] over AP_RUN consecutive groups */
    /* tree: (subband, block) pairs, s-major */
    int nq;
    int *qfirst;             /* [nsub + 1]: pairs of subband s are [qfirst[s], qfirst[s+1]) */
    int *h_qs, *h_qj;
    int64_t *h_qlo;
    int *d_qs, *d_qj;
    int64_t *d_qlo;
    /* both: per trial and subband, the stage-1 row and the shift into it */
    int32_t *h_rowid, *h_shift, *d_rowid, *d_shift;
    ap_tgroups tg;           /* tree: stage 2's groups */
};

} // namespace xc_ap

struct xc_gpu_apstate {
    int kind;
    double kernel_ms;          /* the last execute's kernels (stats) */
    const char *name;
    xc_subplan sp;
    xc_treeplan tp;
    int have_plan;
    int nchans, nuse, nsub, M, npos, nranges;
    int *h_chan, *h_row, *h_prow;
    xc_ap::ap_range *r;
    int ready;
    int *d_chan, *d_row, *d_prow, *d_subfirst;
    void *d_raw, *d_Y, *d_buf, *d_buf2, *d_acc;
    float *d_out;
    size_t cap_raw, cap_Y, cap_buf, cap_buf2, cap_acc, cap_out;
    cudaEvent_t e0, e1;
    int have_ev;
    size_t smem_optin;       /* shared memory one block may opt in to */
};

namespace xc_ap {

/* The state of kind (AK_*) for jobs like proto: core's plan and its host
 * tables (device tables come with the first execution). */
xc_status plan_kind(const xc_ddjob *proto, void **out, int kind, xc_error *err);
/* Frees everything the state holds, host and device; NULL is fine. */
void state_free(xc_gpu_apstate *s);
/* Tree range r's stage-2 groups (after its rowid and shift tables); none
 * where nsub is not a multiple of 4. */
xc_status tg_make(ap_tgroups *g, const ap_range *r, int nsub);
void tg_free(ap_tgroups *g);

} // namespace xc_ap

/* The tree kernels of dd_approx_treeg.cu for rows of 16 bits (8-bit input:
 * every row value fits): ap_launch_tree_fused with b16 and sample type
 * AP_U32_U32 where ap_tree_rb_ok(M); and stage 2 (mode 2, every subband at
 * once, rows numbered from pair 0) for every trial of range r through its
 * groups, sc subbands at a time (a multiple of 4 dividing nsub, whose rows'
 * sum fits 16 bits), ap_tree_s2_smem bytes of shared memory a block. */
int ap_tree_rb_ok(int M);
cudaError_t ap_launch_tree_rb(const uint32_t *Y, size_t pitch, size_t nsd, const int *prow, int M, const int *qs,
                              const int *qj, const int64_t *lo, int q0, int nq, size_t t0, size_t W, uint16_t *buf,
                              cudaStream_t st);
size_t ap_tree_s2_smem(const xc_ap::ap_tgroups *g, int nsub, int sc);
cudaError_t ap_launch_tree_s2(const xc_ap::ap_tgroups *g, const uint16_t *buf, size_t W, int nsub, int sc, size_t smem,
                              size_t nt, float *out, size_t opitch, size_t col, cudaStream_t st);

namespace xc_ap {

} // namespace xc_ap

#endif
