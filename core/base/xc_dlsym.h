/* A function of a library opened with dlopen, into a function pointer. */
#ifndef XC_DLSYM_H
#define XC_DLSYM_H
#include <stddef.h>

/* dlsym(lib, name) stored into the function pointer at slot (size: its
 * size), without a cast between object and function pointers (ISO C
 * leaves that undefined; POSIX's dlsym promises the representation is the
 * same).  1 when found; 0, and "LIBNAME has no NAME" in why[0..nwhy), when not. */
int xc_dlsym(void *lib, const char *libname, const char *name, void *slot, size_t size, char *why, size_t nwhy);
#endif
