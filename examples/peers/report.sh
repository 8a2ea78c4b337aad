#!/bin/sh
# The peer report (`make peers-report`): crosscheck's gate and checks over
# the real programs of the field, each built from a source tree you point at
# (never fetched, never copied into this repository).  One variable per peer:
#   PEER_PRESTO   PRESTO source tree (github.com/scottransom/presto), or a
#                 folder holding prepsubband, realfft and accelsearch (and
#                 single_pulse_search.py with python/, build-python.sh's)
#   PEER_PULSCAN  Pulscan source tree (github.com/jack-white1/pulscan), or a
#                 folder holding pulscan
#   PEER_SIGPROC  SIGPROC source tree (github.com/SixByNine/sigproc), or a
#                 folder holding fake and dedisperse
#   PEER_SIGPYPROC  sigpyproc source tree (github.com/FRBs/sigpyproc3, v1.2.0
#                 with Debian 12's numpy), installed into build/peers/sigpyproc
#                 (a venv), or such a venv already made (examples/peers/
#                 sigpyproc3/build.sh)
#   PEER_DEDISP   dedisp source tree (github.com/ajameson/dedisp): built with
#                 nvcc; it runs only where a CUDA device is
# A peer not given is skipped with a line saying so.  Builds go to
# build/peers/<peer>/, each run's files to build/peers-report/<row>/, and the
# table to build/peers-report/table.txt.  PYTHON: an interpreter with numpy
# (realfft and fake checks) [python3].  Exit 0 when every row ran (whatever
# its verdict), 2 when a build or a run failed.
#   sh examples/peers/report.sh [CROSSCHECK]
set -u
XC=$(cd "$(dirname "${1:-bin/crosscheck}")" && pwd)/$(basename "${1:-bin/crosscheck}")
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=build/peers-report
mkdir -p "$OUT" build/peers
OUT=$(cd "$OUT" && pwd)
TABLE=$OUT/table.txt
: > "$TABLE"
err=0

# bin_of PEER DIR PROGRAM BUILD-SCRIPT: DIR itself when it holds PROGRAM, else
# DIR built into build/peers/PEER (once); prints the folder, "" on failure.
bin_of() {
    peer=$1 dir=$2 prog=$3 script=$4
    if [ -x "$dir/$prog" ]; then echo "$dir"; return; fi
    b=build/peers/$peer
    for sub in "$b" "$b/bin"; do
        if [ -x "$sub/$prog" ]; then (cd "$sub" && pwd); return; fi
    done
    sh "$HERE/$script" "$dir" "$b" > "build/peers/$peer.log" 2>&1 || { echo ""; return; }
    for sub in "$b" "$b/bin"; do
        if [ -x "$sub/$prog" ]; then (cd "$sub" && pwd); return; fi
    done
    echo ""
}
commit_of() { # the source tree's commit, or the COMMIT file a build wrote
    git -C "$1" log -1 --format=%h 2>/dev/null || cut -c1-7 "$2/COMMIT" 2>/dev/null ||
        cut -c1-7 "$2/../COMMIT" 2>/dev/null || echo unknown
}
# row PEER PROGRAM KERNEL COMMIT NAME COMMAND...: runs the command, the verdict
# from its exit status (0 pass, 1 differs, else an error) and its last line
row() {
    peer=$1 prog=$2 kernel=$3 commit=$4 name=$5
    shift 5
    mkdir -p "$OUT/$name"
    "$@" > "$OUT/$name/log.txt" 2>&1
    rc=$?
    case $rc in
    0) v=pass ;;
    1) v=DIFFERS ;;
    *) v="error ($rc)"; err=1 ;;
    esac
    last=$(grep -E 'checks, [0-9]+ failed|bins:|DIFFERS|agrees' "$OUT/$name/log.txt" | tail -1 | cut -c1-90)
    printf '%-8s %-12s %-22s %-8s %-10s %s\n' "$peer" "$prog" "$kernel" "$commit" "$v" "$last" | tee -a "$TABLE"
}
skip() { printf 'skipped: %s not set (%s)\n' "$1" "$2" | tee -a "$TABLE"; }
# peer_bins NAME PEER DIR PROGRAM BUILD-SCRIPT: B := bin_of's folder; a line and
# status 1 when the build failed
peer_bins() {
    B=$(bin_of "$2" "$3" "$4" "$5")
    [ -n "$B" ] && return 0
    echo "$1: the build failed (build/peers/$2.log)"; err=1; return 1
}

# presto_single_pulse BIN COMMIT: single_pulse_search.py's rows, its python
# package built beside BIN (build-python.sh) when PEER_PRESTO is a source tree
presto_single_pulse() {
    if [ ! -d "$1/python" ]; then
        if [ ! -f "$PEER_PRESTO/python/presto_src/presto_wrap.c" ]; then
            echo "skipped: single_pulse_search.py needs PEER_PRESTO to be a source tree" | tee -a "$TABLE"; return
        fi
        if ! sh "$HERE/presto/build-python.sh" "$PEER_PRESTO" "$1" > build/peers/presto-python.log 2>&1; then
            echo "single_pulse_search.py: the build failed (build/peers/presto-python.log)" | tee -a "$TABLE"
            err=1; return
        fi
    fi
    row PRESTO single_pulse "single-pulse search" "$2" presto-single-pulse \
        sh "$HERE/presto/single-pulse-check.sh" "$1" "$XC" "$OUT/presto-single-pulse/work"
    row PRESTO "single_pulse -b" "single-pulse search" "$2" presto-single-pulse-b \
        sh "$HERE/presto/single-pulse-check.sh" "$1" "$XC" "$OUT/presto-single-pulse-b/work" -b
}

if [ -z "${PEER_PRESTO:-}" ]; then
    skip PEER_PRESTO "prepsubband, realfft, accelsearch, single_pulse_search.py"
elif peer_bins PRESTO presto "$PEER_PRESTO" prepsubband presto/build.sh; then
    C=$(commit_of "$PEER_PRESTO" "$B")
    row PRESTO prepsubband dedisperse "$C" presto-prepsubband "$XC" gate dedisperse -convention presto \
        -work "$OUT/presto-prepsubband/work" -quiet \
        -cmd "sh $HERE/presto/prepsubband.sh $B {in} {out} {dm_lo} {dm_step} {ndm} {nchans} {nbits}"
    "$XC" synth -dedispersed -quiet -nchans 64 -nbits 8 -tsamp 256 -tobs 16.8 -fch1 1500 -foff -2 \
        -period 7.3 -width 15 -snrpeak 0.6 -dm 40 -accn 20000 -seed 5 -o "$OUT/realfft-series"
    row PRESTO realfft fft "$C" presto-realfft sh "$HERE/presto/realfft-check.sh" "$B" "$XC" "$OUT/realfft-series.dat"
    row PRESTO accelsearch "accel search" "$C" presto-accelsearch "$XC" gate search -tier standard \
        -work "$OUT/presto-accelsearch/work" -quiet \
        -cmd "sh $HERE/presto/accelsearch.sh $B {fft} {dat} {zmax} {numharm} {sigma}"
    row PRESTO realfft+accel "fft + accel search" "$C" presto-realfft-accelsearch env REALFFT=1 "$XC" gate search \
        -tier standard -work "$OUT/presto-realfft-accelsearch/work" -quiet \
        -cmd "sh $HERE/presto/accelsearch.sh $B {fft} {dat} {zmax} {numharm} {sigma}"
    presto_single_pulse "$B" "$C"
fi

if [ -z "${PEER_PULSCAN:-}" ]; then
    skip PEER_PULSCAN "pulscan (CPU)"
elif peer_bins Pulscan pulscan "$PEER_PULSCAN" pulscan pulscan/build.sh; then
    row Pulscan pulscan "boxcar search" "$(commit_of "$PEER_PULSCAN" "$B")" pulscan "$XC" gate search \
        -family pulscan -tier standard -work "$OUT/pulscan/work" -quiet \
        -cmd "sh $HERE/pulscan/pulscan.sh $B {fft} {out} {zmax} {numharm} {sigma}"
fi

if [ -z "${PEER_SIGPROC:-}" ]; then
    skip PEER_SIGPROC "fake, dedisperse"
elif peer_bins SIGPROC sigproc "$PEER_SIGPROC" dedisperse sigproc/build.sh; then
    C=$(commit_of "$PEER_SIGPROC" "$B")
    row SIGPROC dedisperse dedisperse "$C" sigproc-dedisperse "$XC" gate dedisperse -convention sigproc \
        -work "$OUT/sigproc-dedisperse/work" -quiet -cmd "sh $HERE/sigproc/dedisperse.sh $B {in} {out} {dmlist}"
    row SIGPROC fake synthesis "$C" sigproc-fake sh "$HERE/sigproc/fake-check.sh" "$B" "$XC" "$OUT/sigproc-fake/work"
fi

if [ -z "${PEER_SIGPYPROC:-}" ]; then
    skip PEER_SIGPYPROC "sigpyproc dedisperse and rfft"
else
    V=$PEER_SIGPYPROC
    if [ ! -x "$V/bin/python" ]; then
        V=build/peers/sigpyproc
        [ -x "$V/bin/python" ] || sh "$HERE/sigpyproc3/build.sh" "$PEER_SIGPYPROC" "$V" > build/peers/sigpyproc.log 2>&1 ||
            { echo "sigpyproc: the build failed (build/peers/sigpyproc.log)" | tee -a "$TABLE"; err=1; V=""; }
    fi
    if [ -n "$V" ]; then
        V=$(cd "$V" && pwd)
        C=$(cut -c1-7 "$V/COMMIT" 2>/dev/null || echo unknown)
        row sigpyproc dedisperse dedisperse "$C" sigpyproc-dedisperse "$XC" gate dedisperse \
            -work "$OUT/sigpyproc-dedisperse/work" -quiet -cmd "sh $HERE/sigpyproc3/dedisperse.sh $V {in} {out} {dmlist}"
        [ -f "$OUT/realfft-series.dat" ] || "$XC" synth -dedispersed -quiet -nchans 64 -nbits 8 -tsamp 256 -tobs 16.8 \
            -fch1 1500 -foff -2 -period 7.3 -width 15 -snrpeak 0.6 -dm 40 -accn 20000 -seed 5 -o "$OUT/realfft-series"
        row sigpyproc rfft fft "$C" sigpyproc-rfft sh "$HERE/sigpyproc3/fft-check.sh" "$V" "$XC" "$OUT/realfft-series.dat"
    fi
fi

if [ -n "${PEER_DEDISP:-}" ]; then
    if command -v nvcc > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
        if [ -f build/peers/dedisp/lib/libdedisp.so ] ||
           sh "$HERE/dedisp/build.sh" "$PEER_DEDISP" build/peers/dedisp > build/peers/dedisp.log 2>&1; then
            echo "dedisp: built build/peers/dedisp/lib/libdedisp.so ($(commit_of "$PEER_DEDISP" build/peers/dedisp));" \
                 "judging it needs a CUDA device and a plugin around the library (docs/PEERS.md)" | tee -a "$TABLE"
        else
            echo "dedisp: the build failed (build/peers/dedisp.log)" | tee -a "$TABLE"; err=1
        fi
    else
        echo "skipped: dedisp needs nvcc" | tee -a "$TABLE"
    fi
else
    skip PEER_DEDISP "libdedisp, GPU"
fi
echo "table: $TABLE"
[ $err = 0 ] || exit 2
