# Sourced by scripts/gpu-trace.sh and scripts/gpu-gulp-trace.sh: builds
# scripts/cupti_trace.c against the machine's CUPTI into $TR (falling back to a
# prebuilt tracer in $XC_TRACE_LIBS, with its libcupti.so.13, where the toolkit
# has no CUPTI to build against) and puts the CUDA and CUPTI libraries on
# LD_LIBRARY_PATH.  Needs OUTDIR (where build.txt goes).
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
