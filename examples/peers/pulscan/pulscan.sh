#!/bin/sh
# Pulscan's CPU search as a `crosscheck gate search -family pulscan -cmd`.
#   crosscheck gate search -family pulscan -cmd \
#     'sh examples/peers/pulscan/pulscan.sh BIN {fft} {out} {zmax} {numharm} {sigma}'
# BIN holds pulscan (examples/peers/pulscan/build.sh).  Pulscan writes
# <root>_ZMAX_<zmax>_NUMHARM_<h>_TURBO_0.pulscand beside the spectrum,
# opened for appending; it is removed first and moved to {out}.pulscand,
# the name the gate reads.  Pulscan sums 1 to 4 harmonics: a case asking for
# more is searched with 4 (its largest) and says so in its log.
# NCPUS (default 1): its -ncpus.
set -eu
BIN=$1 FFT=$2 OUT=$3 ZMAX=$4 NUMHARM=$5 SIGMA=$6
if [ "$NUMHARM" -gt 4 ]; then
    echo "pulscan.sh: Pulscan sums at most 4 harmonics; searching with 4 instead of $NUMHARM"
    NUMHARM=4
fi
ROOT=${FFT%.fft}
FILE=${ROOT}_ZMAX_${ZMAX}_NUMHARM_${NUMHARM}_TURBO_0.pulscand
rm -f "$FILE"
(cd "$(dirname "$FFT")" && "$BIN/pulscan" "$FFT" -ncpus "${NCPUS:-1}" -zmax "$ZMAX" -numharm "$NUMHARM" -sigma "$SIGMA")
[ -f "$FILE" ] || { echo "pulscan.sh: pulscan wrote no $FILE" >&2; exit 1; }
mv "$FILE" "$OUT.pulscand"
