#!/bin/sh
# Pulscan's GPU search as a `crosscheck gate search -family pulscan -cmd`:
#   crosscheck gate search -family pulscan -cmd \
#     'sh examples/peers/pulscan-gpu/pulscan-gpu.sh BIN {fft} {out} {T}'
# BIN holds pulscan_gpu (build.sh).  The program takes only the spectrum: its
# widths (1, 2, 4 ... 256 by its own loop), 4 harmonic stages and its
# threshold (ln p < -50) are fixed, so {zmax}, {numharm} and {sigma} have no
# effect.  It writes <root>.gpucand, CSV "r,z,power,logp,numharm" with r the
# first bin of the 256-bin block the peak lies in; gpucand.py turns it into
# {out}.pulscand, the name the gate reads.
set -eu
BIN=$1 FFT=$2 OUT=$3 T=$4
ROOT=${FFT%.fft}
rm -f "$ROOT.gpucand"
(cd "$(dirname "$FFT")" && "$BIN/pulscan_gpu" "$FFT") > "$OUT.log" 2>&1 || { tail -5 "$OUT.log" >&2; exit 1; }
[ -f "$ROOT.gpucand" ] || { echo "pulscan-gpu.sh: pulscan_gpu wrote no $ROOT.gpucand" >&2; exit 1; }
python3 "$(dirname "$0")/gpucand.py" "$ROOT.gpucand" "$T" > "$OUT.pulscand"
