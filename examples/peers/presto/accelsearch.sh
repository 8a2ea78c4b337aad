#!/bin/sh
# PRESTO accelsearch as a `crosscheck gate search -cmd`; it writes
# {root}_ACCEL_{zmax} beside the spectrum, which the gate reads.
#   crosscheck gate search -cmd \
#     'sh examples/peers/presto/accelsearch.sh BIN {fft} {dat} {zmax} {numharm} {sigma}'
# BIN holds accelsearch and realfft (examples/peers/presto/build.sh).
# REALFFT=1: the spectrum searched is PRESTO realfft's transform of {dat}
#   (it replaces crosscheck's {fft}, same name), so the gate judges the two
#   programs together.
# NCPUS (default 1): accelsearch's -ncpus.
set -eu
BIN=$1 FFT=$2 DAT=$3 ZMAX=$4 NUMHARM=$5 SIGMA=$6
if [ "${REALFFT:-0}" = 1 ]; then
    rm -f "$FFT"
    "$BIN/realfft" -fwd "$DAT"
    [ -s "$FFT" ] || { echo "accelsearch.sh: realfft wrote no $FFT" >&2; exit 1; }
fi
"$BIN/accelsearch" -ncpus "${NCPUS:-1}" -zmax "$ZMAX" -numharm "$NUMHARM" -sigma "$SIGMA" "$FFT"
