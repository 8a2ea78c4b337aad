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
LIBS=${XC_TRACE_LIBS:-}
CU=/usr/local/cuda
export LD_LIBRARY_PATH=$CU/lib64:$CU/extras/CUPTI/lib64${LIBS:+:$LIBS}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
TR=/tmp/libcupti_trace.so
INC=$(dirname "$(ls $CU/include/cupti.h $CU/extras/CUPTI/include/cupti.h /usr/local/cuda*/targets/*/include/cupti.h 2>/dev/null | head -1)")
LIB=$(dirname "$(ls $CU/lib64/libcupti.so* $CU/extras/CUPTI/lib64/libcupti.so* /usr/local/cuda*/targets/*/lib/libcupti.so* 2>/dev/null | head -1)")
if ! gcc -O2 -shared -fPIC -I"$INC" -o $TR scripts/cupti_trace.c -L"$LIB" -lcupti -Wl,-rpath,"$LIB" 2>"$OUTDIR/build.txt"; then
    echo "tracer not built here (CUPTI at '$INC', '$LIB'): $(head -c 300 "$OUTDIR/build.txt")"
    TR=$LIBS/libcupti_trace.so
fi
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
