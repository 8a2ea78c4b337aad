/* What each field of a bench gpu document means (its "definitions"): the
 * rates, bounds and fractions bench_gpu_dd.c measures, in words, so that a
 * reader of the JSON needs no source (xc_bench_gpu.h). */
#ifdef XC_HAVE_CUDA

#include <jansson.h>

#include "bench/xc_bench_gpu.h"

json_t *xc_bench_gpu_definitions(void)
{
    json_t *def = json_object();
    json_object_set_new(def, "adds", json_string("sum over DM ranges of trials x output samples x channels"));
    json_object_set_new(def, "adds_per_s_kernel",
                        json_string("adds / summed CUDA-event time of the dedispersion kernels (median of runs)"));
    json_object_set_new(def, "adds_per_s_total",
                        json_string("adds / wall time of the whole call: allocation, host-to-device copy, "
                                    "transpose/scrunch/pack, kernels, device-to-host copy (median of runs)"));
    json_object_set_new(def, "setup_ms",
                        json_string("host clock of the first gulp's setup through a state: device allocation, "
                                    "delay upload and bounds, chunk plan, autotuning (xc_ddplan_stats: setup_ms)"));
    json_object_set_new(def, "first_gulp_ms",
                        json_string("wall time of the first gulp through the state, setup included"));
    json_object_set_new(def, "adds_per_s_gulp",
                        json_string("adds / wall time of a later gulp through the same state: host-to-device copy, "
                                    "transpose/scrunch/pack, kernels, device-to-host copy, no allocation or delay "
                                    "upload (median of runs, gulp_ms); gulp_exec_ms is the mean of its "
                                    "xc_ddplan_stats: exec_ms"));
    json_object_set_new(def, "kernel_adds_per_s", json_string("= adds_per_s_kernel (serial runs, kernels alone)"));
    json_object_set_new(def, "end_to_end_adds_per_s",
                        json_string("= adds_per_s_gulp: input in pageable host memory, planes back in pageable "
                                    "host memory, through a state whose time chunks go through the two-stream "
                                    "pipeline (pinned staging held by the state)"));
    json_object_set_new(def, "end_to_end_fraction", json_string("end_to_end_adds_per_s / kernel_adds_per_s"));
    json_object_set_new(def, "end_to_end_registered_adds_per_s",
                        json_string("as end_to_end_adds_per_s with tune.gpu_register: the dedisperser page-locks "
                                    "the caller's pageable input and planes for each gulp (cudaHostRegister, "
                                    "counted in the time) and copies straight to and from them, no staging"));
    json_object_set_new(def, "pcie_adds_per_s",
                        json_string("adds / max(input_bytes / h2d_bytes_per_s, plane_bytes / d2h_bytes_per_s): "
                                    "the rate at which a gulp's input and planes can cross PCIe, the two "
                                    "directions overlapped; bandwidths from 256 MiB page-locked copies (median "
                                    "of 3, CUDA events)"));
    json_object_set_new(def, "host_copy_bytes_per_s",
                        json_string("bytes/s of the staging's threaded host copy (xc_gpu_copy_bytes), 256 MiB "
                                    "from pageable to page-locked memory, median of 3: with pageable buffers "
                                    "every input and plane byte also takes this copy"));
    json_object_set_new(def, "pcie_bound_adds_per_s", json_string("min(kernel_adds_per_s, pcie_adds_per_s)"));
    json_object_set_new(def, "host_copy_adds_per_s",
                        json_string("adds / (input_bytes / host_copy_in_bytes_per_s + plane_bytes / "
                                    "host_copy_out_bytes_per_s): the rate a pageable gulp's host copies allow; "
                                    "in: the staging's copy of the input (narrowing to a byte a sample for at "
                                    "most 8 bits), out: page-locked staging into pageable memory; source "
                                    "bytes/s of 256 MiB, warm pages, median of 3, measured in the same run"));
    json_object_set_new(def, "host_memory_adds_per_s",
                        json_string("adds / (host_memory_traffic_bytes / host_memory_bytes_per_s): a pageable "
                                    "gulp's bytes cross host memory 3 times each way (plane: DMA write into "
                                    "staging, the copy's read and streaming write; input: the copy's read and "
                                    "write, the DMA's read, halved where narrowed), the host copies and the DMA "
                                    "share it; host_memory_bytes_per_s = the out copy's bytes read and written "
                                    "plus the DMA's both ways, per second, with both running "
                                    "(host_copy_out_during_dma_bytes_per_s, dma_during_host_copy_bytes_per_s)"));
    json_object_set_new(def, "pageable_bound_adds_per_s",
                        json_string("min(pcie_bound_adds_per_s, host_copy_adds_per_s, host_memory_adds_per_s): "
                                    "the bound of a gulp "
                                    "whose input and planes are pageable and staged, with "
                                    "end_to_end_fraction_of_pageable_bound = end_to_end_adds_per_s / it"));
    json_object_set_new(def, "pageable_schedule_bound_adds_per_s",
                        json_string("min(pcie_bound_adds_per_s, host_side_adds_per_s): host_side_adds_per_s = adds / "
                                    "the host side's seconds with the copies beside the DMA while it lasts (the "
                                    "larger direction's bytes at dma_during_host_copy_bytes_per_s; the copies at "
                                    "their during-DMA rates) and the rest of the copies alone (or the rest of the "
                                    "DMA at the link's rate); the bound that counts the host memory the copies and "
                                    "the DMA share; end_to_end_fraction_of_pageable_schedule_bound beside it"));
    json_object_set_new(def, "end_to_end_registered_kept_adds_per_s",
                        json_string("as end_to_end_registered_adds_per_s with tune.gpu_register = 2: the first "
                                    "gulp registers the caller's buffers (registered_kept_first_gulp_ms) and the "
                                    "plan keeps them page-locked for the later gulps into the same buffers; its "
                                    "fraction is of pcie_bound_adds_per_s (no host copy)"));
    json_object_set_new(def, "end_to_end_fraction_of_bound",
                        json_string("end_to_end_adds_per_s / pcie_bound_adds_per_s (and the registered one's)"));
    json_object_set_new(def, "end_to_end_pinned_fraction_of_bound",
                        json_string("end_to_end_pinned_adds_per_s / pcie_bound_adds_per_s: what a caller whose "
                                    "buffers are page-locked (or registered and kept by the plan) gets of the "
                                    "bound, no host copy"));
    json_object_set_new(def, "end_to_end_pinned_adds_per_s",
                        json_string("as end_to_end_adds_per_s with the input block and the planes in page-locked "
                                    "host memory (xc_gpu_host_alloc): no staging, copies straight to and from "
                                    "the caller's memory"));
    json_object_set_new(def, "pinned_gulp_chunks",
                        json_string("time chunks of the last page-locked gulp; 1 where pipeline_chunks is more: "
                                    "the gulp ran banded (each range's trials in bands over the whole time, each "
                                    "band's plane copied out in one piece; chosen where the copy out takes at "
                                    "least half the kernels' time by the last gulps' rates)"));
    json_object_set_new(def, "exposed_ms",
                        json_string("gulp_ms - kernel_ms: the time of a pipelined gulp that kernels did not "
                                    "cover (copies, staging and packing left exposed)"));
    json_object_set_new(def, "smem_fraction",
                        json_string("adds_per_s_kernel x shared-memory bytes loaded per add (4 bytes per "
                                    "32-bit word load / samples per word: 1 for q4/q8, 2 for p16/s16, 4 for w32) / "
                                    "(SMs x 32 banks x 4 bytes x peak SM clock), the paper's eq. (8); staging "
                                    "stores and shift-table loads are not counted"));
    json_object_set_new(def, "pulscan",
                        json_string("records of kind pulscan (also in results): the Pulscan paper's Table 4 case "
                                    "(bench gpu-pulscan's defaults) through one plan; kernel_ms = the stages' "
                                    "summed CUDA-event times, wall_ms = host clock from the copy of a page-locked "
                                    "spectrum to the peaks on the host (wall_pageable_ms: the spectrum in pageable "
                                    "memory), medians of the timed runs"));
    return def;
}

#endif
