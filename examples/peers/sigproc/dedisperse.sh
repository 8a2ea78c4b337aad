#!/bin/sh
# SIGPROC dedisperse as a `crosscheck gate dedisperse -cmd`: one run per DM
# trial, each writing {out}_DM<dm>.tim (<dm> as %.2f), which the gate reads.
#   crosscheck gate dedisperse -convention sigproc -cmd \
#     'sh examples/peers/sigproc/dedisperse.sh BIN {in} {out} {dmlist}'
# BIN holds dedisperse (examples/peers/sigproc/build.sh).  -nobaseline: by
# default it subtracts a running baseline from the series, which no
# reference does.
set -eu
BIN=$1 IN=$2 OUT=$3 DMLIST=$4
while read -r dm; do
    [ -n "$dm" ] || continue
    "$BIN/dedisperse" "$IN" -d "$dm" -nobaseline -o "$(printf '%s_DM%.2f.tim' "$OUT" "$dm")"
done < "$DMLIST"
