/* xc_hd.h: marks inline functions that both the host compiler and nvcc
 * compile (__host__ __device__ under nvcc, nothing in C), so the GPU code
 * runs the same source as the CPU code instead of a copy of it. */
#ifndef XC_HD_H
#define XC_HD_H

#ifdef __CUDACC__
#define XC_HD __host__ __device__
#else
#define XC_HD
#endif

#endif
