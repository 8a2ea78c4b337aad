#!/bin/sh
# AstroAccelerate's dedispersion as a `crosscheck gate dedisperse -cmd`:
#   crosscheck gate dedisperse -convention astroaccelerate -format npy -cmd \
#     'sh examples/peers/astroaccelerate/dedisperse.sh BIN {in} {out} {dm_lo} {dm_end} {dm_step} {ndm}'
# BIN holds aa_dedisperse (build.sh); it writes {out}.npy.
set -eu
BIN=$1 IN=$2 OUT=$3
"$BIN/aa_dedisperse" "$IN" "$4" "$5" "$6" "$7" "$OUT.npy" > "$OUT.log" 2>&1 || { tail -5 "$OUT.log" >&2; exit 1; }
