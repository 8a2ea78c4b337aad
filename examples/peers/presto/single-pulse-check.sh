#!/bin/sh
# PRESTO single_pulse_search.py judged by crosscheck on a .dat set (the gate
# has no single-pulse family: `compare cands` judges its .singlepulse files).
#   sh examples/peers/presto/single-pulse-check.sh BIN CROSSCHECK WORK [its options]
# BIN as single-pulse.sh; its options (e.g. -b) are passed to the script
# after -p -m 0.0384 (boxes up to 150 samples).  The case: 16.384 s of
# 64 channels x 8 bits (1500..1248 MHz, 256 us), three pulses at DM 100 of
# 1, 4 and 10 ms with boxcar S/N about 19 (crosscheck synth -pulse),
# dedispersed by crosscheck at DM 90, 92, ... 108 into WORK/sp_DM*.dat.
# Checks, each a `compare cands` (exit 0 every one passes, 1 one fails, 2 an
# error):
#   finds every pulse   its candidates of the ten series, concatenated,
#                       against the truth: each pulse found within one DM
#                       step (2) and one width of its time
#   agrees with ours    its list of the DM 100 series against crosscheck
#                       singlepulse -preset presto on that one trial (same
#                       boxes, threshold 5): every candidate above S/N 7
#                       paired, S/N within RTOL_SNR [0.1] (the two
#                       normalise noise differently: docs/PEERS.md)
set -u
BIN=$(cd "$1" && pwd) XC=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") W=$3
shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$W" && mkdir -p "$W" || exit 2
cd "$W" || exit 2
"$XC" synth -o sp.fil -nchans 64 -nbits 8 -tsamp 256 -tobs 16.384 -fch1 1500 -foff -4 -seed 7 -quiet \
    -pulse 3.1,100,1,10 -pulse 7.7,100,4,5 -pulse 12.3,100,10,3 &&
    "$XC" dedisperse -i sp.fil -o sp -impl cpu -dmplan 90:110:2:1 -format presto > /dev/null &&
    "$XC" singlepulse -i sp.fil -dmplan 100:101:1:1 -preset presto -wmax 0.0384 -format presto \
        -o ours.singlepulse -quiet || exit 2
sh "$HERE/single-pulse.sh" "$BIN" -p -m 0.0384 "$@" sp_DM*.dat > peer.log 2>&1 ||
    { echo "single_pulse_search.py failed: $W/peer.log" >&2; exit 2; }
{ echo "# DM      Sigma      Time (s)     Sample    Downfact"; cat sp_DM*.singlepulse | grep -v '^#'; } > all.singlepulse
echo "bad blocks zeroed: $(grep -o 'identified [0-9]* bad blocks' peer.log | awk '{s += $2} END {print s + 0}')" \
    "in the ten series (single_pulse_search.py's outlier test)"
rc=0 failed=""
echo "finds every pulse:"
"$XC" compare cands all.singlepulse -truth sp.truth.json -tol_dm 2 > truth.txt; r=$?
grep -E 'pulse [0-9]|truth:' truth.txt
[ $r -le 1 ] || exit 2
[ $r = 0 ] || { rc=1; failed="$(grep -o '[0-9]* of [0-9]* pulses found' truth.txt)"; }
echo "agrees with ours at DM 100:"
"$XC" compare cands sp_DM100.00.singlepulse ours.singlepulse -tol_dm 0.5 -snr 7 -rtol_snr "${RTOL_SNR:-0.1}" > ours.txt; r=$?
grep -vE '^[AB]:' ours.txt
[ $r -le 1 ] || exit 2
[ $r = 0 ] || { rc=1; unmatched=$(grep -m1 '^matched' ours.txt | grep -o '([0-9]* above)' | tr -dc '0-9\n' | awk '{s += $1} END {print s + 0}')
    outside=$(grep -o '[0-9]* pairs outside' ours.txt || echo "0 pairs outside")
    failed="${failed:+$failed; }vs ours $(grep -o '^matched [0-9]*' ours.txt), $unmatched unmatched above S/N 7, $outside 1 +- ${RTOL_SNR:-0.1}"; }
if [ $rc = 0 ]; then echo "single_pulse_search.py agrees"; else echo "single_pulse_search.py DIFFERS: $failed"; fi
exit $rc
