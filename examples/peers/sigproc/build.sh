#!/bin/sh
# Build SIGPROC's fake and dedisperse (github.com/SixByNine/sigproc) from a
# source tree you point at, no network.  The tree is copied to DEST (default:
# SRC/../sigproc-crosscheck) and built there, so the source stays clean.
# `make fake` alone fails (src/sigproc.h is made only by `make all`), hence
# the two steps.  Needs: autoconf automake libtool csh gfortran libcfitsio-dev.
#   sh examples/peers/sigproc/build.sh SRC [DEST]
set -eu
. "$(dirname "$0")/../build-common.sh"
SRC=$(cd "${1:?usage: build.sh SIGPROC_SRC [DEST]}" && pwd)
peer_copy "${2:-$SRC/../sigproc-crosscheck}"
cd "$DEST"
./bootstrap > build.log 2>&1 && ./configure >> build.log 2>&1 &&
    make -C src sigproc.h >> build.log 2>&1 && make -C src fake dedisperse >> build.log 2>&1 ||
    { tail -20 build.log >&2; exit 1; }
mkdir -p bin && cp src/fake src/dedisperse bin/
echo "built $DEST/bin/fake and dedisperse from SIGPROC $(cat COMMIT)"
