#!/bin/sh
# A CPU stand-in for Heimdall through `crosscheck gate singlepulse -cmd`,
# with examples/peers/heimdall/single-pulse.sh's placeholders:
#   sh tests/peers/heimdall/single-pulse.sh CROSSCHECK {fil} {out} {dmlo} {dmhi} {threshold} {maxwidth_s} [DM_TOL]
# crosscheck's own search with Heimdall's conventions: its DM trials (the
# dedisp tolerance list over [dmlo, dmhi], -dm_tol DM_TOL, default 1.25, for
# pulses of 40 us), dedisp's delays, the heimdall preset (2 s median
# baseline, MAD rms, boxes 1, 2, 4 ... up to {maxwidth_s}, friends-of-friends
# clusters), written as Heimdall's .cand.
set -eu
XC=$1 FIL=$2 OUT=$3 DMLO=$4 DMHI=$5 THR=$6 WMAX=$7 TOL=${8:-1.25}
"$XC" singlepulse -i "$FIL" -lodm "$DMLO" -hidm "$DMHI" -dm_tol "$TOL" -dm_pulse_width 40 -convention dedisp \
    -preset heimdall -threshold "$THR" -wmax "$WMAX" -format heimdall -o "$OUT.cand" -quiet -threads 1
