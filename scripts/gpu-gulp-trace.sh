#!/bin/sh
# Device timelines of `crosscheck bench gpu` without Nsight Systems:
# scripts/cupti_trace.c (CUPTI activity tracing, loaded by the driver through
# CUDA_INJECTION64_PATH) records every kernel and copy (with the copies'
# memory kinds), and scripts/gpu_gulp_summary.py splits the device's work into
# one segment per run or gulp (the bench poisons the plane between them) and
# says what bounds each: kernel and copy busy and idle time, fill and drain;
# the segments whose kernels ran on two or more streams (the pipeline's
# gulps) are listed event by event.  On the device machine, with build/dev/bin
# carried:
#   run(command="sh scripts/gpu-gulp-trace.sh", carry=["build/dev/bin"])
# XC_TRACE_NBITS (default 8), XC_TRACE_NCHANS (default 512,1024,8192), XC_BIN
# (default build/dev/bin/crosscheck).  A libcupti.so.13 and a prebuilt tracer
# in $XC_TRACE_LIBS are used where the machine's toolkit has no CUPTI to
# build against.
set -u
OUTDIR=${OUT:-/tmp/gpu-gulp-trace}
mkdir -p "$OUTDIR"
X=${XC_BIN:-build/dev/bin/crosscheck}
. scripts/cupti-tracer.sh
NB=${XC_TRACE_NBITS:-8}
NC=${XC_TRACE_NCHANS:-512,1024,8192}
echo "== trace: bench gpu -nbits $NB -nchans $NC -reps 1"
XC_TRACE_OUT=/tmp/gulp-trace.txt CUDA_INJECTION64_PATH=$TR timeout "${XC_TRACE_TIMEOUT:-120}" \
    "$X" bench gpu -nbits "$NB" -nchans "$NC" -reps 1 -json "$OUTDIR/bench.json" > "$OUTDIR/bench.txt" 2>&1
echo "exit $?"
grep -E "^nbits|^ +(8|16) " "$OUTDIR/bench.txt"
python3 scripts/gpu_gulp_summary.py /tmp/gulp-trace.txt 15 piped "${XC_TRACE_ROWS:-70}" > "$OUTDIR/summary.txt" 2>&1
sed -n '/^segments/,/^$/p' "$OUTDIR/summary.txt"
gzip -c /tmp/gulp-trace.txt > "$OUTDIR/trace.txt.gz"
