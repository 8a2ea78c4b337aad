#!/bin/sh
# Build PRESTO's accelsearch, realfft, prepsubband and readfile from a PRESTO
# source tree you point at (github.com/scottransom/presto), without meson and
# without network: Debian 12's meson is older than PRESTO asks for, so this
# compiles the files PRESTO's own src/meson.build lists, with the flags it
# uses (accelsearch's four files with -DUSEMMAP, as meson does).
#
#   sh scripts/peers/build-presto.sh SRC      objects in SRC/build-xc, programs in SRC/bin
#
# Needs: gcc, pkg-config and the Debian packages libglib2.0-dev libfftw3-dev
# libgsl-dev libcfitsio-dev liberfa-dev.  No -march=native (PRESTO's meson
# comment says it speeds accelsearch up 1.5-2x on AVX2; set EXTRA_CFLAGS to
# add it) and no FFTW wisdom (accelsearch warns and goes on).
set -eu
SRC=${1:?usage: sh scripts/peers/build-presto.sh PRESTO_SOURCE_TREE}
[ -f "$SRC/src/meson.build" ] && [ -f "$SRC/src/accelsearch.c" ] ||
    { echo "build-presto.sh: $SRC is not a PRESTO source tree (no src/meson.build, src/accelsearch.c)" >&2; exit 2; }
SRC=$(cd "$SRC" && pwd)
PKG="glib-2.0 fftw3f gsl cfitsio erfa"
pkg-config --exists $PKG || { echo "build-presto.sh: pkg-config lacks one of: $PKG (apt-get install libglib2.0-dev libfftw3-dev libgsl-dev libcfitsio-dev liberfa-dev)" >&2; exit 2; }
CFLAGS="-O2 -fopenmp -fPIC -I$SRC/include $(pkg-config --cflags $PKG) -DUSE_FFTW_MALLOC -D_LARGEFILE_SOURCE"
CFLAGS="$CFLAGS -D_FILE_OFFSET_BITS=64 -Wno-unused-result ${EXTRA_CFLAGS:-}"
LIBS="$(pkg-config --libs $PKG) -lm"
O=$SRC/build-xc
mkdir -p "$O" "$SRC/bin"
# libpresto's sources: the .c names between "libpresto = library(" and its "dependencies:" line
LIBSRC=$(sed -n '/^libpresto = library(/,/dependencies:/p' "$SRC/src/meson.build" | grep -o "'[a-z_0-9]*\.c'" | tr -d "'")
[ -n "$LIBSRC" ] || { echo "build-presto.sh: no libpresto sources found in $SRC/src/meson.build" >&2; exit 2; }
JOBS=${JOBS:-2}
# compile_list EXTRA SUFFIX FILE...: SRC/src/FILE -> O/FILE%.c SUFFIX.o (skipped when up to date), JOBS at a time
compile_list() {
    extra=$1; sfx=$2; shift 2; n=0
    for f in "$@"; do
        b=${f%.c}; o="$O/$b$sfx.o"
        [ -f "$o" ] && [ ! "$SRC/src/$b.c" -nt "$o" ] && continue
        gcc $CFLAGS -DPRESTO_DATADIR="\"$SRC/lib\"" $extra -c "$SRC/src/$b.c" -o "$o" &
        n=$((n + 1)); [ $n -lt "$JOBS" ] || { wait; n=0; }
    done
    wait
}
compile_list "" "" $LIBSRC
rm -f "$O/libpresto.a"
ar rcs "$O/libpresto.a" $(for f in $LIBSRC; do echo "$O/${f%.c}.o"; done)
compile_list -DUSEMMAP -mmap accelsearch.c accelsearch_cmd.c accel_utils.c zapping.c
compile_list "" "" realfft.c realfft_cmd.c prepsubband.c prepsubband_cmd.c backend_common.c psrfits.c \
    sigproc_fb.c zerodm.c readfile.c readfile_cmd.c multibeam.c bpp.c spigot.c wapp.c wapp_head_parse.c wapp_y.tab.c
link() { out=$1; shift; gcc -fopenmp -o "$SRC/bin/$out" "$@" "$O/libpresto.a" $LIBS; }
link accelsearch "$O/accelsearch-mmap.o" "$O/accelsearch_cmd-mmap.o" "$O/accel_utils-mmap.o" "$O/zapping-mmap.o"
link realfft "$O/realfft.o" "$O/realfft_cmd.o"
INSTR="$O/backend_common.o $O/psrfits.o $O/sigproc_fb.o $O/zerodm.o"
link prepsubband "$O/prepsubband.o" "$O/prepsubband_cmd.o" $INSTR
link readfile "$O/readfile.o" "$O/readfile_cmd.o" "$O/multibeam.o" "$O/bpp.o" "$O/spigot.o" "$O/wapp.o" \
    "$O/wapp_head_parse.o" "$O/wapp_y.tab.o" $INSTR
COMMIT=$(git -C "$SRC" log -1 --format='%H %cs' 2>/dev/null || echo unknown)
echo "$COMMIT" > "$SRC/bin/COMMIT"
echo "built $SRC/bin/accelsearch realfft prepsubband readfile ($(echo $LIBSRC | wc -w) libpresto files; commit $COMMIT)"
