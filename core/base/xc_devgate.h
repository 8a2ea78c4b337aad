/* xc_devgate.h: how searches that hold a large piece of device memory for
 * a while (the GPU accel searcher's whole plane: 22.5 GB at the Pulscan
 * paper's size) share one device with other callers.  The caller (a study's
 * workers) owns K slots; a search takes one just around the time it holds
 * that memory and gives it back as soon as the device work is done, so at
 * most K such pieces exist at once and the search's host side (normalisation
 * before, scoring after) holds no slot.  A slot keeps its memory from search
 * to search: the next search that takes it reuses it where it is large
 * enough instead of allocating and freeing its own (a cudaFree waits for
 * every stream's queued work on the device, other callers' kernels too). */
#ifndef XC_DEVGATE_H
#define XC_DEVGATE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xc_devslot {
    void *mem;                     /* device memory kept in the slot (NULL: none yet) */
    size_t bytes;
    void (*release)(void *mem);    /* frees mem: set by whoever allocated it */
} xc_devslot;

typedef struct {
    void *ctx;                               /* NULL with take: no gate */
    xc_devslot *(*take)(void *ctx);          /* a free slot, waiting while every one is held */
    void (*give)(void *ctx, xc_devslot *s);  /* the slot back, its memory kept in it */
} xc_devgate;

#ifdef __cplusplus
}
#endif
#endif
