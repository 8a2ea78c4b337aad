#!/bin/sh
# PRESTO prepsubband as a `crosscheck gate dedisperse -cmd`: one .dat per DM
# trial, named as the gate reads them ({out}_DM<dm>.dat).
#   crosscheck gate dedisperse -convention presto -cmd \
#     'sh examples/peers/presto/prepsubband.sh BIN {in} {out} {dm_lo} {dm_step} {ndm} {nchans} {nbits}'
# BIN holds prepsubband (examples/peers/presto/build.sh).
#
# Two settings make it dedisperse the case as it is:
# - prepsubband reads SIGPROC data in blocks of 2400 spectra (sigproc_fb.c)
#   and writes floor(N / 2400) - 2 blocks of data (a partial last block is
#   zeroed, and the last whole block only primes the delays), then pads the
#   series to its "good" length with block averages.  A case of N spectra is
#   therefore given to it with 3 x 2400 spectra of zeros appended (a copy
#   beside {out}): every one of its N samples is then written from data;
#   what it writes past them is not compared.
# - -noclip: its default clipping (6 sigma, on raw data) would cut the
#   injected pulses.
# -nsub equal to the channel count: one channel a subband, so the subband
# stage shifts nothing and the result is direct dedispersion with PRESTO's
# delays.
set -eu
BIN=$1 IN=$2 OUT=$3 LO=$4 STEP=$5 NDM=$6 NCH=$7 NBITS=$8
PAD=7200
FIL=$OUT.padded.fil
trap 'rm -f "$FIL"' EXIT
cp "$IN" "$FIL"
head -c $((PAD * NCH * NBITS / 8)) /dev/zero >> "$FIL"
"$BIN/prepsubband" -nobary -noclip -lodm "$LO" -dmstep "$STEP" -numdms "$NDM" -nsub "$NCH" -o "$OUT" "$FIL"
