#!/bin/sh
# sigpyproc's FilReader.dedisperse as a `crosscheck gate dedisperse -cmd`:
# one SIGPROC .tim per DM trial ({out}_DM<dm>.tim), which the gate reads.
#   crosscheck gate dedisperse -cmd \
#     'sh examples/peers/sigpyproc3/dedisperse.sh VENV {in} {out} {dmlist}'
# VENV: examples/peers/sigpyproc3/build.sh's.  Its delays are
# round(4148.808 DM (f^-2 - fch1^-2) / tsamp) (numpy's round: half to even),
# which the crosscheck preset gives on the gate's cases.
set -eu
VENV=$1
shift
exec "$VENV/bin/python" "$(cd "$(dirname "$0")" && pwd)/sigpyproc_glue.py" dedisperse "$@"
