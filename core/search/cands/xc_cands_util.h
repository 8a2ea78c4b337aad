/* xc_cands_util.h: what the candidate file readers share (core/search/cands/xc_cands_util.c):
 * the text helpers below the reader of each format.  Internal to core. */
#ifndef XC_CANDS_UTIL_H
#define XC_CANDS_UTIL_H

#include "core/search/xc_cands.h"

/* the speed of light, m/s (accelerations from fdot) */
#define XC_SOL 299792458.0

void xc_cands_chomp_(char *s);
int xc_cands_split_ws_(char *s, char **tok, int max);
/* Whole-string numbers: 0, or -1 if s is not one. */
int xc_cands_parse_double_(const char *s, double *out);
int xc_cands_parse_long_(const char *s, long *out);
int xc_cands_parse_int_(const char *s, int *out);
/* T from a row's r and f. */
double xc_cands_T_from_rows_(const xc_candlist *l);
/* Empties l and sets its source. */
void xc_cands_reset_(xc_candlist *l, const char *source);

#endif
