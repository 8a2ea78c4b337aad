#!/bin/sh
# make test-large: inputs past 2^31 samples (not part of `make test`: about a
# minute on 2 cores, and 2 GiB + 16 GiB of sparse files that take no disk).
#
#  1. A filterbank of 2^31 + 2^20 spectra (8 channels x 1 bit, one byte per
#     spectrum: 2 GiB, sparse zeros) with one spectrum of ones at S = 2^31 +
#     12345, dedispersed at DM 0 with downsample 4096 by streaming: the output
#     holds 8 (the raw sum of 8 ones) at sample floor(S/4096) and 0 elsewhere
#     near it, so no index wrapped at 2^31; the process's peak memory stays
#     under 256 MiB (the bound: a gulp of about 64 MiB of input plus the
#     plane of the gulp).
#  2. A spectrum of 2^31 complex bins (N = 2^32 in its .inf, a 16 GiB .fft):
#     accel and pulscan refuse it before reading (exit 2, the limit named),
#     in well under a second.
set -eu
BIN=${1:-bin}
B=$BIN/crosscheck
D=$(mktemp -d "${TMPDIR:-/tmp}/crosscheck-large.XXXXXX")
trap 'rm -rf "$D"' EXIT INT TERM
fail=0
TIME=""
[ -x /usr/bin/time ] && TIME="/usr/bin/time -f %M -o $D/rss"

echo "== 1. filterbank of 2^31 + 2^20 spectra, streamed"
"$B" synth -o "$D/L.fil" -tobs 0.0064 -nchans 8 -nbits 1 -tsamp 64 -nonoise > /dev/null
HDR=$(( $(stat -c %s "$D/L.fil") - 100 ))
S=$(( 2147483648 + 12345 ))
NS=$(( 2147483648 + 1048576 ))
truncate -s $(( HDR + NS )) "$D/L.fil"
printf '\377' | dd of="$D/L.fil" bs=1 seek=$(( HDR + S )) conv=notrunc status=none
t0=$(date +%s)
$TIME "$B" dedisperse -i "$D/L.fil" -o "$D/P" -dmplan 0:1:1:4096 -threads 2
t1=$(date +%s)
# the value at sample floor(S/4096) and at its neighbours: the .npy header's
# length is bytes 8-9 (version 1)
NPY="$D/P.r0.npy"
HL=$(od -An -tu2 -j8 -N2 "$NPY" | tr -d ' ')
at() { od -An -tf4 -j $(( 10 + HL + 4 * $1 )) -N4 "$NPY" | tr -d ' '; }
I=$(( S / 4096 ))
V=$(at $I); VB=$(at $(( I - 1 ))); VA=$(at $(( I + 1 )))
echo "spectra $NS, sample $I (input $S): $V (expected 8); neighbours $VB, $VA (expected 0); $(( t1 - t0 )) s"
[ "$V" = "8" ] && [ "$VB" = "0" ] && [ "$VA" = "0" ] || { echo "FAIL: the value past 2^31 is wrong"; fail=1; }
if [ -n "$TIME" ]; then
    RSS=$(tail -1 "$D/rss")
    echo "peak memory $(( RSS / 1024 )) MiB (bound 256 MiB)"
    [ "$RSS" -lt 262144 ] || { echo "FAIL: peak memory over the bound"; fail=1; }
else
    echo "peak memory not measured (/usr/bin/time missing: apt-get install time)"
fi

echo "== 2. a spectrum of 2^31 complex bins is refused before reading"
sed -e 's/=  131072 */=  4294967296/' datasets/sigpyproc3/GBT_J1807-0847.inf > "$D/H.inf"
truncate -s $(( 4294967296 * 4 )) "$D/H.fft"
for cmd in accel pulscan; do
    t0=$(date +%s)
    if "$B" $cmd -i "$D/H.fft" -o "$D/H.csv" 2> "$D/err"; then rc=0; else rc=$?; fi
    t1=$(date +%s)
    echo "$cmd: exit $rc in $(( t1 - t0 )) s: $(head -1 "$D/err")"
    [ $rc -eq 2 ] && grep -q "2^31 - 1" "$D/err" && [ ! -e "$D/H.csv" ] && [ $(( t1 - t0 )) -le 2 ] ||
        { echo "FAIL: $cmd did not refuse the spectrum as expected"; fail=1; }
done
[ $fail -eq 0 ] && echo "test-large: passed" || echo "test-large: FAILED"
exit $fail
