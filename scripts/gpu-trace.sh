#!/bin/sh
# Device timelines of the fused single-pulse pipeline without Nsight Systems:
# scripts/cupti_trace.c (CUPTI activity tracing, loaded by the driver through
# CUDA_INJECTION64_PATH) records every kernel, copy and runtime call of
# `crosscheck bench singlepulse -fused -repeat 1` at the channel counts given
# (XC_TRACE_NCHANS, default "512 8192"; XC_TRACE_NBITS, default 8), and
# scripts/gpu_trace_summary.py accounts for each execute's dedispersion half
# (packing, kernels, copies, idle device) and search.  On the device machine,
# with build/dev/bin carried:
#   run(command="sh scripts/gpu-trace.sh", carry=["build/dev/bin"])
# A libcupti.so.13 and a prebuilt tracer in $XC_TRACE_LIBS are used where the
# machine's toolkit has no CUPTI to build against.
set -u
OUTDIR=${OUT:-/tmp/gpu-trace}
mkdir -p "$OUTDIR"
B=${XC_BIN:-build/dev/bin}
. scripts/cupti-tracer.sh
for nb in ${XC_TRACE_NBITS:-8}; do
    for nc in ${XC_TRACE_NCHANS:-512 8192}; do
        echo "== trace: ${nb}-bit, $nc channels"
        f=$OUTDIR/trace-$nb-$nc.txt
        XC_TRACE_OUT=/tmp/trace.txt CUDA_INJECTION64_PATH=$TR timeout "${XC_TRACE_TIMEOUT:-60}" \
            $B/crosscheck bench singlepulse -fused -repeat 1 -nchans "$nc" -nbits "$nb" -json /tmp/trace.json 2>&1 | tail -4
        python3 scripts/gpu_trace_summary.py /tmp/trace.txt "${XC_TRACE_ROWS:-70}" > "$f.sum" 2>&1
        cat "$f.sum"
        gzip -c /tmp/trace.txt > "$f.gz"
    done
done
