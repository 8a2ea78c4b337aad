#!/bin/sh
# AstroAccelerate's FDAS (Fourier-domain acceleration search) as a
# `crosscheck gate search -cmd`:
#   crosscheck gate search -cmd \
#     'sh examples/peers/astroaccelerate/fdas.sh BIN {dat} {out} {T} {tsamp}'
# BIN holds aa_fdas (build.sh; aa_fdas.cpp calls its acceleration_fdas on
# the series {dat}).  Its zmax (96), z step (2) and threshold (S/N 10 of its
# plane) are fixed when it is compiled and it sums no harmonics, so {zmax},
# {numharm} and {sigma} have no effect.  AA_FDAS (default -norm): its
# options (-norm: fdas_norm, -inbin: fdas_inbin, -customfft:
# fdas_custom_fft, -sigma_constant S).  It writes acc_list_0.000000.dat into
# its folder; aafdas.py turns it into {out}.csv at the gate's T.
# It writes no list when no point of its plane reaches S/N 10, and also when
# a CUDA call failed: it checks no kernel launch or cuFFT call, logs a failed
# copy or allocation ("- ERROR" lines) and goes on to a plane of zeros, whose
# S/N is 0/0.  No list with such a line in its log (or aa_fdas's own report
# of a pending CUDA error) is a failed run here, not an empty search.
set -eu
BIN=$(cd "$1" && pwd) DAT=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") OUT=$3 T=$4 TSAMP=$5
FLAGS=${AA_FDAS:--norm}
DIR=$(dirname "$OUT")/aa-fdas-run
rm -rf "$DIR" && mkdir -p "$DIR"
# shellcheck disable=SC2086  # FLAGS: options, split on purpose
(cd "$DIR" && "$BIN/aa_fdas" "$DAT" "$TSAMP" $FLAGS) > "$OUT.log" 2>&1 || { tail -5 "$OUT.log" >&2; exit 1; }
LIST=$DIR/acc_list_0.000000.dat
if [ ! -f "$LIST" ] && ERR=$(grep -E -m1 ' - ERROR |^aa_fdas: CUDA error' "$OUT.log"); then
    echo "fdas.sh: aa_fdas wrote no candidate list and logged: $ERR (log $OUT.log)" >&2
    exit 1
fi
NSAMP=$(( $(wc -c < "$DAT") / 4 ))
INBIN=0 NORM=0
case " $FLAGS " in *" -inbin "*) INBIN=1 ;; esac
case " $FLAGS " in *" -norm "*) NORM=1 ;; esac
python3 "$(dirname "$0")/aafdas.py" "$LIST" "$T" "$TSAMP" "$NSAMP" $INBIN $NORM > "$OUT.csv"
