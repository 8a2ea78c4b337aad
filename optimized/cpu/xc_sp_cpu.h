/* xc_sp_cpu.h: the CPU single-pulse searcher (optimized/cpu/sp_cpu.c):
 * OpenMP over DM trials, prefix sums, exact medians by sampled selection
 * (sp_cpu_stats.c). */
#ifndef XC_SP_CPU_H
#define XC_SP_CPU_H

#include "core/sp/xc_spsearch.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const xc_spsearcher xc_sp_cpu;

#ifdef __cplusplus
}
#endif
#endif
