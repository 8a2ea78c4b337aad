/* xc_bench_gpu.h: the GPU benchmarks (CUDA builds; without CUDA nothing
 * here is defined).  bench_gpu_dd.c: the gpu dedisperser on the Table 2
 * plan, kernels alone, the whole call, and gulps through one plan with the
 * data pageable and page-locked.  bench_gpu_pulscan.c: the GPU Pulscan searcher's stage
 * times on the Pulscan paper's Table 4 size (T = 600 s at 128 us, zmax 256,
 * 4 harmonics), its candidates checked against the CPU searcher's, and the
 * paper's approximations (median of medians, log p polynomial) compared with
 * the exact search. */
#ifndef XC_BENCH_GPU_H
#define XC_BENCH_GPU_H

#include <stddef.h>

#include "bench/xc_bench.h"
#include "core/search/xc_search.h"
#include "optimized/gpu/xc_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t;

/* ---- dedispersion ----------------------------------------------------------- */

/* One nbits x nchans configuration, medians of the timed runs. */
typedef struct {
    int nbits, nchans;
    double adds, kernel_ms, total_ms, h2d_ms, d2h_ms, prep_ms;
    double adds_kernel, adds_total, smem_frac, bytes_per_add;
    double setup_ms, first_gulp_ms, gulp_ms, gulp_exec_ms, adds_gulp;   /* through one plan */
    int gulp_chunks;
    size_t pinned_bytes;
    double gulp_pinned_ms;   /* gulps with input and planes page-locked */
    int pinned_chunks;       /* chunks of the last of them (1: one banded chunk, for a job of several) */
    double gulp_reg_ms;      /* gulps into pageable buffers registered for each job (tune.gpu_register) */
    double h2d_bps, d2h_bps; /* page-locked copy bandwidth, bytes/s */
    double gulp_kept_ms, first_kept_ms;   /* the same, registrations kept by the plan (tune.gpu_register = 2):
                                              later gulps, and the first (which registers) */
    double hostcopy_bps;     /* pageable to page-locked host copy (the staging's), bytes/s */
    double hostcopy_in_bps[2], hostcopy_out_bps[2];   /* the staging's copy in for this nbits (narrowing for
                                                         <= 8 bits), and out of it into pageable memory, source
                                                         bytes/s: alone, and beside DMA both ways */
    double dma_busy_bps, mem_bps;   /* the DMA's rate each way beside the copy; host memory throughput then */
    double mem_traffic;             /* host memory bytes a pageable gulp moves */
    double in_bytes, plane_bytes;   /* what crosses PCIe per gulp each way */
    double adds_pcie, adds_bound;   /* the rate the gulp's copies allow; min(kernel, that) */
    double adds_hostcopy;           /* the rate a pageable gulp's host copies (in, then out) allow */
    double adds_mem;                /* the rate host memory allows a pageable gulp */
    double adds_pageable_bound;     /* min(adds_bound, adds_hostcopy, adds_mem) */
    double adds_host_side;          /* the rate the host copies beside and after the DMA allow */
    double adds_schedule_bound;     /* min(adds_bound, adds_host_side) */
    xc_gpu_ddinfo info;
    int tuned_spt, tuned_dy, tuned_spb, tuned_cs;
} xc_bench_gpu_dd;

/* Times the gpu dedisperser on seconds of random nbits x nchans data with
 * the Table 2 plan: serial runs (kernels alone, the whole call; autotune:
 * the untimed run's choice of settings for the rest), then gulps through one
 * plan, pageable (staged, and registered for each job) and page-locked;
 * the host-device bandwidth and the rate it bounds the gulps to; 64 outputs
 * of each are checked against exact host sums (XC_EMISMATCH naming the
 * first that differs). */
xc_status xc_bench_gpu_dd_one(int nbits, int nchans, double seconds, int reps, int autotune,
                              const xc_gpu_props *props, xc_bench_gpu_dd *res, xc_error *err);
/* r as a record of kind dedisperse. */
struct json_t *xc_bench_gpu_dd_json(const xc_bench_gpu_dd *r);
/* The document: the device (desc, props), the settings, the definitions,
 * results (every record) and pulscan (the Pulscan records); takes results
 * and psrecs. */
/* The definitions of the document's fields (bench_gpu_defs.c). */
struct json_t *xc_bench_gpu_definitions(void);
struct json_t *xc_bench_gpu_doc(const char *desc, const xc_gpu_props *props, const char *command, double seconds,
                                int reps, struct json_t *results, struct json_t *psrecs);

/* ---- the fused single-pulse pipeline (bench_sp_gpu.c) ------------------------ */

/* One configuration: random nbits data of nchans channels over bw MHz
 * centred on fc, tsamp seconds, tobs seconds, under dmplan. */
typedef struct {
    const char *name;
    int nchans, nbits;
    double fc, bw, tsamp, tobs;
    const char *dmplan;
} xc_bench_spgpu_case;

/* The AstroAccelerate paper's three pipeline scenarios (Novotny et al.
 * 2023, Table 3: low 400 MHz, mid 800 MHz, high 1400 MHz), 8-bit. */
extern const xc_bench_spgpu_case xc_bench_spgpu_scenarios[3];

/* c through the fused pipeline (xc_sp_gpu_fused: the gpu dedisperser's
 * plane searched on the device by the gpu searcher, heimdall preset, widths
 * 1, 2, 4, ... 2^(nwidths-1)): the dedispersion kernels alone (serial path,
 * CUDA events) and the fused call's host clock from the block in host
 * memory to the candidates (pipelined path), medians of reps after an
 * untimed run; one record of kind singlepulse-fused with both rates, their
 * ratio and the real-time factors (observation seconds per second). */
xc_status xc_bench_sp_fused(const xc_bench_spgpu_case *c, int nwidths, int reps, struct json_t **rec, xc_error *err);

/* ---- Pulscan ----------------------------------------------------------------- */

/* The stages of a GPU Pulscan search as the benchmark reports them, in
 * order: h2d, separate, normalise, power, decimate, boxcar, logp, d2h,
 * kernels. */
#define XC_BENCH_PS_NSTAGE 9

typedef struct {
    double tobs, tsamp;        /* seconds */
    int zmax, numharm, zlog;
    int reps;                  /* timed runs, 1..64 */
    unsigned long long seed;   /* noise seed */
    const char *fft;           /* also write the spectrum as a PRESTO .fft there; NULL: no */
    const char *command;       /* the command line, for the document */
} xc_bench_gpups_opts;

typedef struct {
    /* xc_bench_gpups_prepare */
    char device[512];
    int sms;
    double clock_khz;
    size_t N, nbins;
    xc_spectrum sp;
    xc_psopts o;
    struct json_t *doc;        /* the document being filled (owned; "injected" so far) */
    /* xc_bench_gpups_measure: medians of the timed runs, ms */
    double med[XC_BENCH_PS_NSTAGE], screen, exact, wall_pageable, wall, h2d_pinned, kernels_pinned, setup;
    size_t flagged_groups, peaks, device_bytes;
    double adds, rate, fp32;   /* the screen's float additions, their rate, the device's FP32 add rate */
    size_t ncpu, ngpu;         /* candidates */
    int same;                  /* the gpu list equals the cpu's within the entry's tolerance */
    double maxrel, rtol, cpu_s;
    /* the paper's approximations against the exact cpu list */
    size_t na, nb, npairs, na_only, nb_only;
    double max_abs_dsigma, max_rel_dpower, approx_kernels_ms;
} xc_bench_gpups;

/* The device (XC_EDEVICE when none is available: "gpu unavailable: ..."),
 * the spectrum of o->tobs / o->tsamp samples with eight drifting pulsars,
 * written to o->fft when given.  Free r with xc_bench_gpups_free. */
xc_status xc_bench_gpups_prepare(const xc_bench_gpups_opts *o, xc_bench_gpups *r, xc_error *err);
/* The cpu search, the gpu search timed through one plan (pageable, then
 * page-locked), the search with the paper's approximations compared with
 * the exact cpu list; fills r and completes r->doc.  A gpu list other than
 * the cpu's is a result (r->same 0), not an error. */
xc_status xc_bench_gpups_measure(const xc_bench_gpups_opts *o, xc_bench_gpups *r, xc_error *err);
void xc_bench_gpups_free(xc_bench_gpups *r);

/* bench gpu's Pulscan record: the Table 4 case through a plan, its
 * candidates checked against the cpu's. */
xc_status xc_bench_gpu_pulscan_record(int reps, struct json_t **rec, xc_error *err);

#ifdef __cplusplus
}
#endif

#endif
