#!/bin/sh
# A stand-in for sigpyproc's FilReader.dedisperse (FRBs/sigpyproc3 v1.2.0) as
# a `crosscheck gate dedisperse -cmd`, with its confirmed fault planted: it
# unpacks 2- and 4-bit SIGPROC data high bits first (sigpyproc/io/bits.py,
# default_bitorder = {1: "little", 2: "big", 4: "big"}), where SIGPROC's
# writers put the first sample in the low bits.  crosscheck's own dedisperser
# reads the file with -bitorder msb for those widths, lsb otherwise, so only
# the sub-byte cases differ from the reference (docs/PEERS.md).
#   crosscheck gate dedisperse -cmd \
#     'sh tests/peers/sigpyproc/dedisperse.sh CROSSCHECK {in} {out} {nbits} {dm_lo}:{dm_end}:{dm_step}'
set -eu
[ $# -eq 5 ] || { echo "usage: dedisperse.sh CROSSCHECK IN OUT NBITS DMLO:DMEND:DMSTEP" >&2; exit 2; }
case $4 in
2 | 4) order=msb ;;
*) order=lsb ;;
esac
exec "$1" dedisperse -i "$2" -o "$3" -impl cpu -dmplan "$5:1" -bitorder "$order" -format npy -quiet
