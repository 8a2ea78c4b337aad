/* xc_strlist.h: comma-separated lists of names, as options take them
 * (-impl cpu,gpu; XC_TEST_ONLY=case,case). */
#ifndef XC_STRLIST_H
#define XC_STRLIST_H

/* 1 if name is one of the comma-separated names of list (whole names only;
 * NULL or "" is the empty list). */
int xc_strlist_has(const char *list, const char *name);

#endif
