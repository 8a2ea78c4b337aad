#!/bin/sh
# Build SIGPROC's `fake` (Lorimer; github.com/SixByNine/sigproc) from a source
# tree you point at, with no network: ./bootstrap, ./configure, then src's
# generated header and `fake` alone (`make fake` by itself fails: sigproc.h is
# generated only by `make all`).
#
#   sh scripts/peers/build-sigproc.sh SRC      program: SRC/src/fake
#
# Needs the Debian packages csh libtool libcfitsio-dev gfortran (and autoconf, automake).
set -eu
SRC=${1:?usage: sh scripts/peers/build-sigproc.sh SIGPROC_SOURCE_TREE}
[ -f "$SRC/bootstrap" ] && [ -f "$SRC/src/fake.c" ] ||
    { echo "build-sigproc.sh: $SRC is not a SIGPROC source tree (no bootstrap, src/fake.c)" >&2; exit 2; }
cd "$SRC"
[ -f configure ] || ./bootstrap
[ -f Makefile ] || ./configure
make -C src sigproc.h
make -C src fake
COMMIT=$(git log -1 --format='%H %cs' 2>/dev/null || echo unknown)
echo "$COMMIT" > src/COMMIT
echo "built $PWD/src/fake (commit $COMMIT)"
