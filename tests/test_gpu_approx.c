/* The GPU subband and tree dedispersers against their references: bit for
 * bit on integer input (every nbits, every convention preset, awkward
 * channel counts, kill masks, scrunched ranges, every subband alignment, the
 * 64-bit-sum path), with the stage-1 scratch cut small so that the chunk and
 * batch loops run many times; float input against the reference's double
 * sums (subband: the same order, so equal; trees: within the float bound);
 * and the CPU versions
 * agreeing with the GPU on a case large enough for every kernel's grid
 * loops.  Gulps through one plan: the conformance suite, which runs every
 * registered dedisperser.  Every case is skipped (never passed) in a build without CUDA or on
 * a machine without a usable device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/conform/xc_conform.h"
#include "core/dedisp/approx/xc_subband.h"
#include "core/dedisp/approx/xc_tree.h"
#include "optimized/cpu/xc_cpu.h"
#include "reference/xc_reference.h"
#ifdef XC_HAVE_CUDA
#include "optimized/gpu/xc_gpu.h"
#endif
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#ifdef XC_HAVE_CUDA
static const xc_dedisperser *const gpu_of[3] = {&xc_dd_subband_gpu, &xc_dd_tree_gpu, &xc_dd_tree_padded_gpu};
#else
static const xc_dedisperser *const gpu_of[3] = {NULL, NULL, NULL};
#endif
static const xc_dedisperser *const ref_of[3] = {&xc_dd_subband_reference, &xc_dd_tree_reference,
                                                &xc_dd_tree_padded_reference};
static const xc_dedisperser *const cpu_of[3] = {&xc_dd_subband_cpu, &xc_dd_tree_cpu, &xc_dd_tree_padded_cpu};

/* nsub as each kind takes it: subband any count up to the channels (an
 * explicit nsub above them is refused; a case of more asks for one channel
 * per subband), tree a power of two (0: default). */
static int nsub_for(int kind, const xc_fx_ddcase *c)
{
    return kind == 0 ? (c->nsub < c->nchans ? c->nsub : c->nchans) : xc_fx_tree_nsub(c->nsub);
}

/* Every config, kind and (subband) alignment, at the default scratch and at
 * a scratch of max_bytes / 4 (many chunks and batches): planes equal. */
static void equal_all(size_t max_bytes)
{
    int ncmp = 0;
    for (size_t q = 0; q < xc_fx_nddcases; q++) {
        xc_conform_ddinput in;
        xc_error err;
        xc_fx_ddcase_input(&in, &xc_fx_ddcases[q], 2500, 100 + q);
        for (int kind = 0; kind < 3; kind++)
            for (int al = 0; al < (kind ? 1 : 3); al++) {
                xc_ddopts o = xc_fx_ddopts(nsub_for(kind, &xc_fx_ddcases[q]), kind ? 0 : xc_fx_ddcases[q].dmsub, al, 1);
                const xc_ddtune t = {.gpu_max_bytes = max_bytes};
                xc_plane want, got;
                xc_status rst = xc_conform_dd_run(ref_of[kind], &in, &o, &want, &err);
                if (rst)
                    printf("\n  config %zu, %s: %s", q, ref_of[kind]->impl.name, err.msg);
                CU_ASSERT_EQUAL_FATAL(rst, XC_OK);
                xc_status st = xc_conform_dd_run_tuned(gpu_of[kind], &in, &o, &t, &got, &err);
                CU_ASSERT_EQUAL(st, XC_OK);
                if (st) {
                    printf("\n  %s: %s", gpu_of[kind]->impl.name, err.msg);
                } else {
                    int same = xc_fx_planes_equal(&want, &got, "gpu vs reference");
                    CU_ASSERT(same);
                    if (!same)
                        printf("\n  differs: config %zu, %s, alignment %d, max_bytes %zu", q, gpu_of[kind]->impl.name,
                               al, max_bytes);
                    xc_plane_free(&got);
                    ncmp++;
                }
                xc_plane_free(&want);
            }
        xc_conform_ddinput_free(&in);
    }
    printf("\n  %d gpu planes equal to their references bit for bit", ncmp);
}

XC_TEST_IF(test_gpu_equals_reference, "gpu_equals_reference", xc_fx_skip_gpu)
{
    equal_all(0);
}

/* 64 KiB: 16 KiB of stage-1 scratch, so time is cut into chunks of the
 * smallest length and groups / subbands into batches of one or a few (the
 * tree then adds across batches in its exact accumulator). */
XC_TEST_IF(test_gpu_small_scratch, "gpu_small_scratch", xc_fx_skip_gpu)
{
    equal_all((size_t)64 << 10);
}

/* Float input: subband-gpu adds in the reference's order (samples
 * scrunched in double, channels then subbands in ascending order), so its
 * plane is the reference's; the trees add along their butterflies, in
 * another order, and are held to the float bound (the CPU trees scrunch in
 * float, so they are not the GPU's bit for bit either). */
XC_TEST_IF(test_gpu_float, "gpu_float", xc_fx_skip_gpu)
{
    xc_conform_ddinput in;
    xc_error err;
    xc_fx_float_input(&in);
    for (int kind = 0; kind < 3; kind++) {
        xc_ddopts o = xc_fx_ddopts(kind ? 4 : 32, 0, XC_SUBALIGN_HIGHEST, 1);
        xc_plane want, got;
        CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(ref_of[kind], &in, &o, &want, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(gpu_of[kind], &in, &o, &got, &err), XC_OK);
        if (kind == 0) {
            CU_ASSERT(xc_fx_planes_equal(&want, &got, "subband-gpu float vs reference"));
        }
        CU_ASSERT_EQUAL(xc_fx_float_bound(&want, &got, xc_conform_ddinput_nkept(&in), "gpu float vs reference"), 0);
        xc_plane_free(&want);
        xc_plane_free(&got);
    }
    xc_conform_ddinput_free(&in);
}

/* 1024 channels, 8-bit, a plan of 600 trials over three ranges (the grids'
 * loops over rows and trials, the u32 path at its widest): gpu equal to cpu
 * (which test_subband and test_tree hold to the references). */
XC_TEST_IF(test_gpu_large, "gpu_large", xc_fx_skip_gpu)
{
    xc_conform_ddinput in;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_ddinput_make(&in, 1024, 8, 1500, -300.0 / 1024, 6.4e-5,
                                                  "0:100:0.5,100:200:1:2,200:300:1:4", "crosscheck", 30000, &err),
                          XC_OK);
    xc_conform_ddinput_random(&in, 11);
    for (int kind = 0; kind < 3; kind++) {
        xc_ddopts o = xc_fx_ddopts(0, 0, XC_SUBALIGN_HIGHEST, 0);
        xc_plane cpu, got;
        CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(cpu_of[kind], &in, &o, &cpu, &err), XC_OK);
        xc_status st = xc_conform_dd_run(gpu_of[kind], &in, &o, &got, &err);
        CU_ASSERT_EQUAL_FATAL(st, XC_OK);
        int same = xc_fx_planes_equal(&cpu, &got, "gpu vs cpu, 1024 channels");
        CU_ASSERT(same);
        if (!same)
            printf("\n  differs: %s", gpu_of[kind]->impl.name);
        xc_plane_free(&cpu);
        xc_plane_free(&got);
    }
    xc_conform_ddinput_free(&in);
}

XC_TEST_MAIN("gpu_approx")
