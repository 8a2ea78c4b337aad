/* synth_spec.h: JSON pieces of the synthesizer's spec shared with its writers (not installed API). */
#ifndef XC_SYNTH_SPEC_H
#define XC_SYNTH_SPEC_H

#include <stdint.h>

/* A seed as JSON: an integer, or above 2^63-1 (which does not fit a jansson
 * integer) a string of digits, which the loaders also accept.  NULL: no memory. */
struct json_t *xc_synth_seed_json(uint64_t seed);

#endif
