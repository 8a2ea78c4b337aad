/* xc_accel_ref.h: the reference matched-filter accel/jerk searcher (direct
 * correlation in double precision with exact templates). */
#ifndef XC_ACCEL_REF_H
#define XC_ACCEL_REF_H

#include "core/search/xc_accel.h"

extern const xc_accel_searcher xc_accel_reference;

#endif
