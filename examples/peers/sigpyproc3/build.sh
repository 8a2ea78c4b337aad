#!/bin/sh
# sigpyproc (github.com/FRBs/sigpyproc3) from a source tree you point at,
# installed without network into a virtual environment DEST (outside the
# repository), which sees the system's packages:
#   sh examples/peers/sigpyproc3/build.sh SRC DEST
# Its dependencies come from the system (Debian 12: python3-numba
# python3-astropy python3-h5py python3-bottleneck python3-attr python3-click
# python3-rich python3-bidict python3-typing-extensions python3-venv).
# v1.2.0 (2024-05) is the newest that these fit: 2.0 needs numpy >= 2,
# numba >= 0.61 and rocket-fft, which Debian 12 lacks.  Debian 12's
# typing_extensions (4.4) has no Buffer, which v1.2.0 imports for type
# hints only: the glue (sigpyproc_glue.py) gives it one (the object type)
# where it is missing, before importing sigpyproc.  PYTHON: the interpreter [/usr/bin/python3].
set -eu
. "$(dirname "$0")/../build-common.sh"
SRC=$(cd "${1:?usage: build.sh SIGPYPROC_SRC DEST}" && pwd)
PY=${PYTHON:-/usr/bin/python3}
rm -rf "${2:?usage: build.sh SIGPYPROC_SRC DEST}"
"$PY" -m venv --system-site-packages "$2"
peer_dest "$2"
"$DEST/bin/python" -m pip install -q --no-deps --no-build-isolation --no-index "$SRC"
"$DEST/bin/python" "$(dirname "$0")/sigpyproc_glue.py" check ||
    { echo "build.sh: sigpyproc does not import in $DEST (its dependencies above)" >&2; exit 2; }
peer_commit
[ "$(cat "$DEST/COMMIT")" != unknown ] || [ ! -f "$SRC/COMMIT" ] || cp "$SRC/COMMIT" "$DEST/COMMIT"
echo "built $DEST: sigpyproc $("$DEST/bin/python" -c 'import sigpyproc; print(sigpyproc.__version__)') ($(cat "$DEST/COMMIT"))"
