/* xc_devpick.h: which of a node's devices one of several processes on it
 * takes (MPI ranks, one device each): the node-local rank modulo the devices
 * the process sees, named as a CUDA_VISIBLE_DEVICES value. */
#ifndef XC_DEVPICK_H
#define XC_DEVPICK_H

#include <stddef.h>

/* visible: CUDA_VISIBLE_DEVICES as the process found it (NULL: unset, every
 * device of the node visible; then ndev is the node's count).  Its entries
 * are comma-separated indices, UUIDs or MIG names, taken as they are; as the
 * CUDA runtime does, the list ends at the first empty entry or one that
 * starts with '-' ("-1" hides every device).  Writes entry local_rank % count
 * into pick (n bytes; "" when there are none) and returns the count of
 * devices seen: 0 when none are (pick ""), -1 when the entry does not fit
 * in pick. */
int xc_devpick(const char *visible, int ndev, int local_rank, char *pick, size_t n);

#endif
