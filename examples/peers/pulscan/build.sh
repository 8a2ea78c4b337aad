#!/bin/sh
# Build Pulscan's CPU program (github.com/jack-white1/pulscan) from a source
# tree you point at, as its own `make cpu` does (gcc -Ofast -fopenmp, no
# -march), into DEST (default: SRC/bin-crosscheck); no network.
#   sh examples/peers/pulscan/build.sh SRC [DEST]
# Its GPU programs (pulscan_gpu.cu) build with scripts/peer-pulscan.sh build.
set -eu
SRC=$(cd "${1:?usage: build.sh PULSCAN_SRC [DEST]}" && pwd)
DEST=${2:-$SRC/bin-crosscheck}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
CC=${CC:-gcc}
$CC -c "$SRC/localcdflib.c" -o "$DEST/localcdflib.o" -Ofast
$CC "$SRC/pulscan.c" "$DEST/localcdflib.o" -o "$DEST/pulscan" -lm -Ofast -fopenmp
(git -C "$SRC" log -1 --format='%H %cs' 2>/dev/null || echo unknown) > "$DEST/COMMIT"
echo "built $DEST/pulscan from Pulscan $(cat "$DEST/COMMIT")"
