#!/bin/sh
# SIGPROC fake's -accn / -binary timing model (phase t/P(t), P updated at
# each wrap: docs/PEERS.md) as a planted case, with no fake: `crosscheck
# synth -fake_phase` writes fake's model (tests/test_orbit.c holds it to
# fake's pulse times), synth without it the physical signal and truth.
# Each series is searched (fft, accel -zmax 80) and scored by `compare cands
# -truth` (fundamental within 2 bins and 4 in z) against both truths.
#   sh fake-model.sh CROSSCHECK WORK NAME [synth options: -accn A | -binary ...]
# Prints "NAME SERIES vs TRUTH: rc N" per pair (0 agrees, 1 differs) and
# each scoring's fundamental line; exit 2 on an error.
set -u
XC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") W=$2 NAME=$3
shift 3
set -- -period 5 -width 10 -snrpeak 0.5 -dm 0 -nchans 1 -fch1 1400 -foff -1 -tsamp 500 -seed 11 -nbits 32 \
    -tobs 51.2 -convention sigproc "$@"
mkdir -p "$W" && cd "$W" || exit 2
"$XC" synth -quiet -dedispersed "$@" -o "$NAME-phys" &&
    "$XC" synth -quiet -fake_phase "$@" -o "$NAME-fake.fil" &&
    "$XC" dedisperse -i "$NAME-fake.fil" -o "$NAME-fake" -dmplan 0:1:1:1 -format presto -quiet &&
    mv "$NAME-fake_DM0.00.dat" "$NAME-fake.dat" && mv "$NAME-fake_DM0.00.inf" "$NAME-fake.inf" || exit 2
for s in phys fake; do
    "$XC" fft -i "$NAME-$s.dat" -o "$NAME-$s" > /dev/null &&
        "$XC" accel -i "$NAME-$s.fft" -impl cpu -zmax 80 -numharm 1 -sigma 6 -o "$NAME-$s.csv" > /dev/null || exit 2
    for t in phys fake; do
        "$XC" compare cands "$NAME-$s.csv" -truth "$NAME-$t.truth.json" -fundamental -truth_dr 2 -truth_dz 4 \
            > "$NAME-$s-$t.txt" 2>&1
        rc=$?
        [ $rc -le 1 ] || { cat "$NAME-$s-$t.txt" >&2; exit 2; }
        echo "$NAME $s vs $t: rc $rc; $(grep '^  fundamental' "$NAME-$s-$t.txt" | sed 's/^  *//')"
    done
done
