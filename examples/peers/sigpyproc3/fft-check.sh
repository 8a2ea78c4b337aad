#!/bin/sh
# sigpyproc's TimeSeries.rfft (numpy's pocketfft, in double) against
# `crosscheck fft` (FFTW, float32) on one series, in realfft's layout, within
# the round-off bound of an FFT of N points (examples/peers/fft_compare.py).
#   sh examples/peers/sigpyproc3/fft-check.sh VENV CROSSCHECK SERIES.dat
# VENV: examples/peers/sigpyproc3/build.sh's.  Exit 0 within the bound, 1
# beyond it, 2 an error.
set -eu
VENV=$1 XC=$2 DAT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$VENV/bin/python" "$HERE/sigpyproc_glue.py" fft "$DAT" "$W/sigpyproc.fft" 2> "$W/glue.log" ||
    { cat "$W/glue.log" >&2; exit 2; }
"$XC" fft -i "$DAT" -o "$W/ours" || exit 2
"$VENV/bin/python" "$HERE/../fft_compare.py" "$W/sigpyproc.fft" "$W/ours.fft" "sigpyproc rfft" "crosscheck fft"
