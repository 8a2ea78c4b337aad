#!/bin/sh
# Build Pulscan's CPU program (github.com/jack-white1/pulscan) from a source
# tree you point at, as its own `make cpu` does (gcc -Ofast -fopenmp, no
# -march), into DEST (default: SRC/bin-crosscheck); no network.
#   sh examples/peers/pulscan/build.sh SRC [DEST]
# Its GPU programs (pulscan_gpu.cu) build with scripts/peer-pulscan.sh build.
set -eu
. "$(dirname "$0")/../build-common.sh"
SRC=$(cd "${1:?usage: build.sh PULSCAN_SRC [DEST]}" && pwd)
DEST=${2:-$SRC/bin-crosscheck}
peer_dest "$DEST"
CC=${CC:-gcc}
$CC -c "$SRC/localcdflib.c" -o "$DEST/localcdflib.o" -Ofast
$CC "$SRC/pulscan.c" "$DEST/localcdflib.o" -o "$DEST/pulscan" -lm -Ofast -fopenmp
peer_commit
echo "built $DEST/pulscan from Pulscan $(cat "$DEST/COMMIT")"
