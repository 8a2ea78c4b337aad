#!/bin/sh
# The least of PRESTO's python package that runs bin/single_pulse_search.py
# (no plotting), from a source tree you point at, into DEST/python:
# - presto/*.py: the pure-python modules (python/presto: infodata, Pgplot,
#   psr_utils, ...), as meson installs them;
# - presto/presto/: python/presto_src's __init__.py and prestoswig.py, and
#   _presto (its SWIG wrapper, python/presto_src/presto_wrap.c, linked with
#   the libpresto.a that examples/peers/presto/build.sh made in DEST/obj):
#   the script's rfft is PRESTO's own realfft through it;
# - DEST/single_pulse_search.py: the script, run by single-pulse.sh;
# - presto/ppgplot.py: a stand-in for the PGPLOT binding (not built; PGPLOT
#   is rarely installed): importing works, a plotting call raises.  Run the
#   script with -p (--noplot).
#   sh examples/peers/presto/build-python.sh SRC [DEST]
# PYTHON: an interpreter with numpy and scipy (its headers: python3-dev)
# [the first of python3, /usr/bin/python3 that imports both].
set -eu
. "$(dirname "$0")/../build-common.sh"
SRC=$(cd "${1:?usage: build-python.sh PRESTO_SRC [DEST]}" && pwd)
DEST=${2:-$SRC/bin-crosscheck}
peer_dest "$DEST"
HERE=$(cd "$(dirname "$0")" && pwd)
PY=$(sh "$HERE/python-of.sh") || exit 2
[ -f "$DEST/obj/libpresto.a" ] || sh "$HERE/build.sh" "$SRC" "$DEST"
PKG="glib-2.0 fftw3f gsl cfitsio erfa"
PD=$DEST/python
rm -rf "$PD"
mkdir -p "$PD/presto/presto"
cp "$SRC"/python/presto/*.py "$SRC"/python/presto/*.json "$PD/presto/"
cp "$SRC/python/presto_src/__init__.py" "$SRC/python/presto_src/prestoswig.py" "$PD/presto/presto/"
cat > "$PD/presto/ppgplot.py" <<'PY'
"""Stand-in for PRESTO's PGPLOT binding, not built here: importing works,
any plotting call raises (single_pulse_search.py -p plots nothing)."""
def __getattr__(name):
    raise ImportError("ppgplot." + name + ": PGPLOT is not built (run with -p)")
PY
NPINC=$($PY -c 'import numpy; print(numpy.get_include())')
PYINC=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
EXT=$($PY -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
[ -f "$PYINC/Python.h" ] || { echo "build-python.sh: no $PYINC/Python.h (python3-dev)" >&2; exit 2; }
# _presto lies at the top, as meson installs it (prestoswig does `import _presto`)
${CC:-gcc} -O2 -shared -fPIC -fopenmp -w -I"$SRC/include" -I"$NPINC" -I"$PYINC" \
    "$SRC/python/presto_src/presto_wrap.c" "$DEST/obj/libpresto.a" $(pkg-config --libs $PKG) -lm -o "$PD/_presto$EXT"
cp "$SRC/bin/single_pulse_search.py" "$DEST/"
PYTHONPATH=$PD $PY -c 'from presto.presto import rfft, next2_to_n; from presto import infodata' ||
    { echo "build-python.sh: $PD does not import" >&2; exit 2; }
peer_commit
echo "built $PD (PYTHONPATH) for $PY from PRESTO $(cat "$DEST/COMMIT")"
