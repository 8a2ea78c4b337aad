#!/bin/sh
# PRESTO realfft against `crosscheck fft` on one series: both transform the
# same .dat; the spectra are compared bin for bin (python3 with numpy).
#   sh examples/peers/presto/realfft-check.sh BIN CROSSCHECK SERIES.dat
# Both are float32 unnormalised forward transforms in realfft's packing (DC
# and Nyquist in bin 0), computed by different FFT codes (PRESTO's own
# ffts, FFTW here): they are judged within the float round-off bound of an
# FFT of N points, |diff| <= log2(N) * 2^-24 * max|X|.  Exit 0 within it,
# 1 beyond it, 2 an error.  PYTHON names the interpreter [python3].
set -eu
PY=${PYTHON:-python3}
$PY -c 'import numpy' 2>/dev/null || { echo "realfft-check.sh: $PY has no numpy (set PYTHON)" >&2; exit 2; }
BIN=$1 XC=$2 DAT=$3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
ROOT=${DAT%.dat}
cp "$DAT" "$W/presto.dat" && cp "$ROOT.inf" "$W/presto.inf"
(cd "$W" && "$BIN/realfft" -fwd presto.dat > realfft.log 2>&1) || { echo "realfft failed: $W/realfft.log" >&2; exit 2; }
"$XC" fft -i "$DAT" -o "$W/ours" || exit 2
$PY "$(dirname "$0")/../fft_compare.py" "$W/presto.fft" "$W/ours.fft" realfft "crosscheck fft"
