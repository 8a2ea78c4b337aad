#!/bin/sh
# AstroAccelerate's dedispersion as a `crosscheck gate dedisperse -cmd`:
#   crosscheck gate dedisperse -convention astroaccelerate -format npy -cmd \
#     'sh examples/peers/astroaccelerate/dedisperse.sh BIN {in} {out} {dm_lo} {dm_end} {dm_step} {ndm} {nchans} {nbits}'
# BIN holds aa_dedisperse (build.sh); it writes {out}.npy.  AstroAccelerate
# dedisperses only whole chunks of its own size (on the quick tier's cases
# 4032 of 4415 output samples, 17024 of 17344), so the glue hands it a copy
# of the input with PAD (default 8192) spectra of zeros appended, as
# examples/peers/presto/prepsubband.sh does for prepsubband: output sample t
# sums input samples t + delay < nsamp only, so the samples the gate judges
# (t < nsamp - max delay) hold data alone.
# AA_ALONE_FROM k: trials k.. each dedispersed by a plan of its own starting
# at its DM (aa_dedisperse.cpp ALONE_FROM): AstroAccelerate's shift of a
# trial is then its whole delay truncated, not the sum of its 64-trial
# block's base shift and the rest, each truncated.
set -eu
BIN=$1 IN=$2 OUT=$3 NCHANS=$8 NBITS=$9
cp "$IN" "$OUT.padded.fil"
head -c $(( ${PAD:-8192} * NCHANS * NBITS / 8 )) /dev/zero >> "$OUT.padded.fil"
"$BIN/aa_dedisperse" "$OUT.padded.fil" "$4" "$5" "$6" "$7" "$OUT.npy" ${AA_ALONE_FROM:-} > "$OUT.log" 2>&1 || { tail -5 "$OUT.log" >&2; exit 1; }
rm -f "$OUT.padded.fil"
