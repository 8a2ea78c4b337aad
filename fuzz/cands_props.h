/* cands_props.h: the properties the three candidate-file targets share
 * (fuzz_cands_csv.c, fuzz_pulscand.c, fuzz_accel.c). */
#ifndef XC_FUZZ_CANDS_PROPS_H
#define XC_FUZZ_CANDS_PROPS_H

#include "core/search/xc_cands.h"

/* Every accepted candidate passes xc_cand_check, and the list written as
 * our CSV (with w) reads back with the same values, bit for bit, and the
 * same T.  The .pulscand writer either refuses (a clear error) or writes a
 * file that reads back and, written again, gives the same bytes. */
void xc_fuzz_cands_props(const char *what, const xc_candlist *l);

/* A candidate-file reader with the shape of xc_cands_read_csv. */
typedef xc_status (*xc_fuzz_cands_reader)(xc_candlist *l, const char *path, xc_error *err);

/* Reads path with read: an accepted list must have the properties above, a
 * refusal must leave the list empty (what names the target in a failure). */
void xc_fuzz_cands_read(const char *what, const char *path, xc_fuzz_cands_reader read);

#endif
