/* xc_accel_cpu.h: the CPU matched-filter accel/jerk searcher (overlap-save
 * correlation with single-precision FFTW, OpenMP over templates). */
#ifndef XC_ACCEL_CPU_H
#define XC_ACCEL_CPU_H

#include "core/search/xc_accel.h"

extern const xc_accel_searcher xc_accel_cpu;

#endif
