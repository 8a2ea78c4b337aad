#!/bin/sh
# PRESTO single_pulse_search.py through `crosscheck gate singlepulse -cmd
# -input dat` (the gate's help and docs/PEERS.md give its cases and checks).
#   sh examples/peers/presto/single-pulse-check.sh BIN CROSSCHECK WORK [its options]
# BIN as single-pulse.sh; its options (e.g. -b) are passed to the script
# after -p, before the gate's -m (widest box, s) and -t (threshold).  The
# gate writes each case's filterbank and its PRESTO .dat/.inf series (DM 90,
# 92, ... 108) under WORK/CASE, runs the script on them, reads the
# .singlepulse files it writes, and judges them against the truth and
# crosscheck's search with -preset presto.  WORK/gate.xml: the JUnit rows.
# Exit status the gate's: 0 every check passes, 1 one fails, 2 an error.
set -u
BIN=$(cd "$1" && pwd) XC=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") W=$3
shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$W" && mkdir -p "$W" || exit 2
"$XC" gate singlepulse -input dat -work "$W" -junit "$W/gate.xml" -timeout 600 -quiet \
    -cmd "sh '$HERE/single-pulse.sh' '$BIN' -p $* -m {maxwidth_s} -t {threshold} {dat}_DM*.dat" > "$W/gate.txt" 2>&1
rc=$?
cat "$W/gate.txt"
case $rc in
0) echo "single_pulse_search.py agrees" ;;
1) echo "single_pulse_search.py DIFFERS: $(grep '^FAIL' "$W/gate.txt" | cut -c6- | sed 's/  .*//' | paste -sd ';' - |
       sed 's/;/; /g')" ;;
esac
exit $rc
