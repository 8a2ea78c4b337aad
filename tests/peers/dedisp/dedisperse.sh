#!/bin/sh
# A stand-in for dedisp (ajameson/dedisp@0f763a3) as a `crosscheck gate
# dedisperse -cmd`, with its confirmed fault planted: dedisp_execute_guru
# (src/dedisp.cu) reads a spectrum as 32-bit words of 32/nbits channels and
# uses nchan_words = nchans / (32/nbits) whole words, so when nchans x nbits
# is not a multiple of 32 the last channels are never read (on an H200:
# 4 bits, 42 channels, channels 40 and 41 unread; docs/PEERS.md).
# crosscheck's own dedisperser with exactly those channels dropped
# (-zap_chans), under the convention CONV (dedisp's, to judge as the device
# run was judged):
#   crosscheck gate dedisperse -convention dedisp -cmd \
#     'sh tests/peers/dedisp/dedisperse.sh CROSSCHECK dedisp {in} {out} {nbits} {nchans} {dm_lo}:{dm_end}:{dm_step}'
set -eu
[ $# -eq 7 ] || { echo "usage: dedisperse.sh CROSSCHECK CONV IN OUT NBITS NCHANS DMLO:DMEND:DMSTEP" >&2; exit 2; }
per_word=$((32 / $5))
used=$(($6 / per_word * per_word))
if [ "$used" -lt "$6" ]; then
    set -- "$@" -zap_chans "$used-$(($6 - 1))"
fi
xc=$1 conv=$2 in=$3 out=$4 plan=$7
shift 7
exec "$xc" dedisperse -i "$in" -o "$out" -impl cpu -convention "$conv" -dmplan "$plan:1" -format npy -quiet "$@"
