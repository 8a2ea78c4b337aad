#!/bin/sh
# Build PRESTO's prepsubband, realfft and accelsearch from a source tree you
# point at (github.com/scottransom/presto), without meson and without network,
# into DEST (default: SRC/bin-crosscheck).  The recipe is meson's own
# (src/meson.build): libpresto from the files listed there, accelsearch's four
# files with -DUSEMMAP.  No -march=native, so the numbers are those of a
# generic x86-64 build.
#   sh examples/peers/presto/build.sh SRC [DEST]
# Needs: libglib2.0-dev libfftw3-dev libgsl-dev libcfitsio-dev liberfa-dev.
set -eu
. "$(dirname "$0")/../build-common.sh"
SRC=$(cd "${1:?usage: build.sh PRESTO_SRC [DEST]}" && pwd)
DEST=${2:-$SRC/bin-crosscheck}
peer_dest "$DEST"
mkdir -p "$DEST/obj"
PKG="glib-2.0 fftw3f gsl cfitsio erfa"
pkg-config --exists $PKG || { echo "build.sh: pkg-config cannot find one of: $PKG" >&2; exit 2; }
CC=${CC:-gcc}
CFLAGS="-O2 -fopenmp -fPIC -I$SRC/include $(pkg-config --cflags $PKG) -DUSE_FFTW_MALLOC -D_LARGEFILE_SOURCE \
 -D_FILE_OFFSET_BITS=64 -DPRESTO_DATADIR=\"$SRC/lib\" -Wno-unused-result"
# libpresto's sources: the quoted .c names of the `libpresto = library(` block
LIBSRC=$(sed -n '/^libpresto = library(/,/dependencies:/p' "$SRC/src/meson.build" | grep -o "'[a-z_0-9]*\.c'" | tr -d "'")
[ -n "$LIBSRC" ] || { echo "build.sh: no libpresto list in $SRC/src/meson.build" >&2; exit 2; }
cc1() { # cc1 FILE [extra flags]: compile src/FILE into obj/
    f=$1; shift
    $CC $CFLAGS "$@" -c "$SRC/src/$f" -o "$DEST/obj/${f%.c}.o"
}
for f in $LIBSRC; do cc1 "$f"; done
rm -f "$DEST/obj/libpresto.a"
ar rcs "$DEST/obj/libpresto.a" $(for f in $LIBSRC; do echo "$DEST/obj/${f%.c}.o"; done)
prog() { # prog NAME FILES...: link one program
    name=$1; shift
    objs=""
    for f in "$@"; do objs="$objs $DEST/obj/${f%.c}.o"; done
    $CC -fopenmp -o "$DEST/$name" $objs "$DEST/obj/libpresto.a" $(pkg-config --libs $PKG) -lm
}
for f in accelsearch.c accelsearch_cmd.c accel_utils.c zapping.c; do cc1 $f -DUSEMMAP; done
prog accelsearch accelsearch.c accelsearch_cmd.c accel_utils.c zapping.c
for f in realfft.c realfft_cmd.c; do cc1 $f; done
prog realfft realfft.c realfft_cmd.c
for f in prepsubband.c prepsubband_cmd.c backend_common.c psrfits.c sigproc_fb.c zerodm.c; do cc1 $f; done
prog prepsubband prepsubband.c prepsubband_cmd.c backend_common.c psrfits.c sigproc_fb.c zerodm.c
peer_commit
echo "built $DEST/prepsubband, realfft, accelsearch from PRESTO $(cat "$DEST/COMMIT")"
