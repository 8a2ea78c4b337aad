#!/bin/sh
# PRESTO's single_pulse_search.py with the package build-python.sh made:
#   sh examples/peers/presto/single-pulse.sh BIN [its options] FILE.dat...
# BIN holds single_pulse_search.py and python/ (build-python.sh).  It writes
# FILE.singlepulse beside each FILE.dat.  PYTHON as python-of.sh says.
# As a `crosscheck bench singlepulse -peer_cmd`:
#   'sh examples/peers/presto/single-pulse.sh BIN -p -m {maxwidth_s} {dat}_DM*.dat'
set -eu
BIN=$(cd "${1:?usage: single-pulse.sh BIN [options] FILE.dat...}" && pwd)
shift
PY=$(sh "$(dirname "$0")/python-of.sh") || exit 2
PYTHONPATH=$BIN/python${PYTHONPATH:+:$PYTHONPATH} exec "$PY" "$BIN/single_pulse_search.py" "$@"
