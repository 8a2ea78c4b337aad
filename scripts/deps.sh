#!/bin/sh
# Installs the Debian packages crosscheck builds against, when any is missing.
# Called by `make run`, `make test`, `make bench` and `make sanitize`, so a fresh
# Debian machine needs no other set-up step.  `sh scripts/deps.sh fuzz` (make
# fuzz) adds what the libFuzzer build needs: clang, its runtime libraries
# (libclang_rt.fuzzer, asan, ubsan: libclang-rt-14-dev on Debian 12) and the
# LLVM OpenMP runtime (libomp-14-dev); make test and make run never need them.
set -eu
# libcairo2-dev and fonts-dejavu-core: the report's plots (cairo, text in DejaVu Sans).
# libopenmpi-dev and openmpi-bin: `crosscheck study` over MPI ranks (the Makefile builds it in when mpicc is found).
# python3-numpy: the tests' stand-in for PRESTO's single_pulse_search.py (tests/peers/single-pulse/), which
# searches the .dat series with numpy and imports nothing else.  PRESTO's own script also needs scipy, whose
# Debian package installs about 200 MB with what it depends on (138 MB of it Boost's headers, for pythran);
# make test never runs that script (docs/PEERS.md: the peers' own builds).
PKGS="build-essential pkg-config libgsl-dev libfftw3-dev libcunit1-dev libjansson-dev libcairo2-dev fonts-dejavu-core"
PKGS="$PKGS libopenmpi-dev openmpi-bin python3-numpy"
if [ "${1:-}" = fuzz ]; then
    PKGS="$PKGS clang libclang-rt-14-dev libomp-14-dev"
fi
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "crosscheck: installing missing packages:$missing" >&2
if ! command -v apt-get >/dev/null 2>&1; then
    echo "crosscheck: apt-get not found; install these packages by hand:$missing" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "crosscheck: need root (or sudo) to install:$missing" >&2; exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
