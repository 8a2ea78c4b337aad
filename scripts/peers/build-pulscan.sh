#!/bin/sh
# Build Pulscan's CPU program `pulscan` (White et al. 2024,
# github.com/jack-white1/pulscan) from a source tree you point at, with no
# network, the way its own Makefile's `cpu` target does (gcc -Ofast -fopenmp,
# no -march).  Its GPU programs are built by scripts/peer-pulscan.sh.
#
#   sh scripts/peers/build-pulscan.sh SRC      program: SRC/pulscan
set -eu
SRC=${1:?usage: sh scripts/peers/build-pulscan.sh PULSCAN_SOURCE_TREE}
[ -f "$SRC/pulscan.c" ] && [ -f "$SRC/localcdflib.c" ] && [ -f "$SRC/Makefile" ] ||
    { echo "build-pulscan.sh: $SRC is not a Pulscan source tree (no pulscan.c, localcdflib.c, Makefile)" >&2; exit 2; }
make -C "$SRC" cpu
COMMIT=$(git -C "$SRC" log -1 --format='%H %cs' 2>/dev/null || echo unknown)
echo "$COMMIT" > "$SRC/COMMIT"
echo "built $SRC/pulscan (commit $COMMIT)"
