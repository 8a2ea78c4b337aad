#!/bin/sh
# Heimdall's search as a `crosscheck gate singlepulse -cmd`:
#   crosscheck gate singlepulse -cmd 'sh examples/peers/heimdall/single-pulse.sh BIN {fil} {out}
#     {dmlo} {dmhi} {threshold} {maxwidth_s} {tsamp}'
# BIN holds heimdall and libdedisp.so (build.sh).  Heimdall picks its own DM
# trials over [dmlo, dmhi] (-dm_tol, default 1.25), boxcars of 1, 2, 4 ...
# up to -boxcar_max (here the largest power of two within {maxwidth_s}),
# -detect_thresh {threshold}, and writes <utc>_<beam>.cand files into
# -output_dir; they are joined into {out}.cand, the name the gate reads.
# HEIMDALL_ARGS adds options (e.g. -dm_nbits 8, -baseline_length 4).
set -eu
BIN=$(cd "$1" && pwd) FIL=$2 OUT=$3 DMLO=$4 DMHI=$5 THR=$6 WMAX=$7 TSAMP=$8
DIR=$(dirname "$OUT")/heimdall-out
rm -rf "$DIR" && mkdir -p "$DIR"
BOX=$(python3 -c "
w = int($WMAX / $TSAMP + 1e-9); b = 1
while b * 2 <= w: b *= 2
print(b)")
# shellcheck disable=SC2086
"$BIN/heimdall" -f "$FIL" -dm "$DMLO" "$DMHI" -detect_thresh "$THR" -boxcar_max "$BOX" -output_dir "$DIR" \
    ${HEIMDALL_ARGS:-} > "$OUT.log" 2>&1 || { tail -5 "$OUT.log" >&2; exit 1; }
cat "$DIR"/*.cand > "$OUT.cand" 2>/dev/null || : > "$OUT.cand"
