#!/bin/sh
# A single-pulse tool for `crosscheck gate singlepulse -cmd` (tests/test_gate.c)
# that needs no python: crosscheck's own search, presto preset, as CSV.
#   sh xc-singlepulse.sh CROSSCHECK FIL DMPLAN WMAX_S THRESHOLD OUT.csv
# XC_SHIFT=N: every candidate written N samples late (a planted bug).
# XC_SNR_SCALE=F: the S/N of every candidate at S/N 8 or above (the bursts';
# the noise events stay) times F.
set -eu
"$1" singlepulse -i "$2" -dmplan "$3" -preset presto -wmax "$4" -threshold "$5" -format csv -o "$6" -quiet
[ "${XC_SHIFT:-0}" = 0 ] && [ "${XC_SNR_SCALE:-1}" = 1 ] && exit 0
# columns: snr,time_s,sample,width,dm,dm_index,members,begin,end,dm_lo,dm_hi
awk -F, -v s="${XC_SHIFT:-0}" -v f="${XC_SNR_SCALE:-1}" 'BEGIN { OFS = "," } NR == 1 { print; next }
    { t = $2 / $3; $3 += s; $2 = sprintf("%.9f", $3 * t); $8 += s; $9 += s; if (f != 1 && $1 >= 8) $1 = sprintf("%.6f", $1 * f); print }' \
    "$6" > "$6.tmp"
mv "$6.tmp" "$6"
