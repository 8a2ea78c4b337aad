#!/bin/sh
# SIGPROC fake judged by crosscheck's own checks, on fake's own claims.
#   sh examples/peers/sigproc/fake-check.sh BIN CROSSCHECK [WORK]
# BIN holds fake (examples/peers/sigproc/build.sh); WORK (default: a
# temporary folder, removed) keeps the files.  PYTHON: an interpreter with
# numpy [python3].  Exit 0 when every part behaves as fake's help says,
# 1 when one does not (each line says which), 2 on an error.
#
# 1. noise: 8-bit and 1-bit noise (no pulsar), quantised by fake's own rule
#    (src/scaledata.c: rint((x + 4)(2^b - 1)/8) over [-4, 4]): 8-bit mean
#    127.5 and rms 31.875, 1-bit half ones; each within 5 standard errors.
# 2. -accn and -binary: one channel, float32, no dispersion, so fake's file is
#    the dedispersed series itself.  crosscheck synth writes the series'
#    .inf and two truths for the same options: the physical one (phase
#    integrated over the Doppler-shifted period; light-travel delay) and the
#    one of fake's own model (-fake_phase, which synth makes only as a
#    filterbank: phase t/P(t)).  crosscheck fft and
#    accel search fake's series; `compare cands -truth` scores the
#    fundamental's r and z against each (within 2 bins and 4 in z).
set -u
BIN=$1 XC=$2
PY=${PYTHON:-python3}
$PY -c 'import numpy' 2>/dev/null || { echo "fake-check.sh: $PY has no numpy (set PYTHON)" >&2; exit 2; }
if [ -n "${3:-}" ]; then W=$3; mkdir -p "$W"; else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi
fail=0
hdr() { "$XC" header "$1" | awk '$1 == "headersize" {print $2}'; }

# 1. noise statistics
for b in 8 1; do
    "$BIN/fake" -nbits $b -nchans 64 -tsamp 64 -tobs 2 -period 0 -dm 0 -seed 7 > "$W/noise$b.fil" 2> "$W/noise$b.log" ||
        { echo "fake -nbits $b failed: $W/noise$b.log" >&2; exit 2; }
    $PY - "$W/noise$b.fil" "$(hdr "$W/noise$b.fil")" $b <<'PY' || fail=1
import sys
import numpy as np
path, hs, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
raw = np.fromfile(path, np.uint8, offset=hs)
x = (np.unpackbits(raw, bitorder="little") if b == 1 else raw).astype(np.float64)
if b == 8:
    want_mean, want_rms = 127.5, 255 / 8        # Gaussian over [-4, 4] onto 0..255
else:
    want_mean, want_rms = 0.5, 0.5              # x > (min + max)/2 = 0 half the time
mean, rms = x.mean(), x.std()
se = want_rms / np.sqrt(x.size)                 # standard error of the mean
ok = abs(mean - want_mean) <= 5 * se and abs(rms - want_rms) <= 5 * want_rms / np.sqrt(2 * x.size) + 0.01 * want_rms
print(f"noise {b}-bit: {x.size} samples, mean {mean:.4f} (expected {want_mean}, tolerance {5 * se:.2g}), "
      f"rms {rms:.4f} (expected {want_rms:.4f}): {'as expected' if ok else 'DIFFERS'}")
sys.exit(0 if ok else 1)
PY
done

# 2. the timing model, with acceleration and in a binary orbit: one channel,
#    float32, tsamp 500 us, 102400 samples (fake writes whole blocks of 512;
#    -tobs a half sample short of them, so no extra block is written)
signal() { # signal NAME ZMAX FAKE-AND-SYNTH-OPTIONS...
    name=$1 zmax=$2
    shift 2
    set -- -period 5 -width 10 -snrpeak 0.5 -dm 0 -nchans 1 -fch1 1400 -foff -1 -tsamp 500 "$@"
    "$BIN/fake" -nbits 32 -tobs 51.19975 -seed 11 "$@" > "$W/$name.fil" 2> "$W/$name.log" ||
        { echo "fake failed: $W/$name.log" >&2; exit 2; }
    "$XC" synth -dedispersed -quiet -nbits 32 -tobs 51.2 -convention sigproc "$@" -o "$W/$name-phys" &&
    "$XC" synth -quiet -nbits 32 -tobs 51.2 -convention sigproc -fake_phase "$@" -o "$W/$name-fakemodel.fil" ||
        exit 2
    tail -c +$(($(hdr "$W/$name.fil") + 1)) "$W/$name.fil" > "$W/$name.dat"
    cp "$W/$name-phys.inf" "$W/$name.inf"
    "$XC" fft -i "$W/$name.dat" -o "$W/$name" > /dev/null &&
    "$XC" accel -i "$W/$name.fft" -impl cpu -zmax "$zmax" -numharm 1 -sigma 6 -o "$W/$name.csv" > /dev/null || exit 2
    for t in phys fakemodel; do
        "$XC" compare cands "$W/$name.csv" -truth "$W/$name-$t.truth.json" -fundamental -truth_dr 2 -truth_dz 4 \
            > "$W/$name-vs-$t.txt" 2>&1
        rc=$?
        [ $rc -le 1 ] || { cat "$W/$name-vs-$t.txt" >&2; exit 2; }
        want=$(sed -n 's/^truth for .*, \(r [^,]*, z [^ ]*\) .*/\1/p' "$W/$name-vs-$t.txt")
        got=$(sed -n 's/^  fundamental .*best n = 1: \(.*\) f .*/\1/p' "$W/$name-vs-$t.txt")
        echo "$name vs the $t truth ($want): $([ $rc = 0 ] && echo agrees || echo DIFFERS); found ${got:-nothing}"
        [ $t = fakemodel ] || [ $rc = 0 ] || fail=1
    done
}
signal accn 80 -accn 10000
signal binary 80 -binary -bper 0.25 -bphase 0.25
exit $fail
