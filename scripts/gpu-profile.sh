#!/bin/sh
# Nsight Compute profiles of the GPU kernels whose speed docs/MEASUREMENTS.md reports, on the
# device machine (build/dev/bin carried, as for gpu-check.sh):
#   run(command="sh scripts/gpu-profile.sh", carry=["build/dev/bin"])
# Writes under $OUT: the shared-memory dedispersion kernel's sections (speed of
# light, pipes, scheduler, warp stalls, source counters) for 8-bit and 16-bit
# input at 1024 channels on the Table 2 plan's first range, the same for the
# Pulscan kernels, the kernels' SASS, and the host-device copy rates (pinned
# and pageable).  Clocks are left as found (--clock-control none).
set -u
OUTDIR=${OUT:-/tmp/gpu-profile}
mkdir -p "$OUTDIR"
B=build/dev/bin
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader | tee "$OUTDIR/device.txt"
SECT="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy
 --section SchedulerStats --section WarpStateStats --section InstructionStats --section LaunchStats"
for nb in ${XC_PROFILE_NBITS:-8 16}; do
    echo "== ncu: k_dd_smem, ${nb}-bit, 1024 channels"
    timeout 240 "$NCU" --clock-control none --kernel-name regex:k_dd_smem --launch-count 1 $SECT \
        --section SourceCounters --print-details all \
        $B/crosscheck bench gpu -json /tmp/prof.json -nchans 1024 -nbits $nb -reps 1 -seconds 5 \
        > "$OUTDIR/ncu-dd-$nb.txt" 2>&1
    grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Issue Slots Busy|Issued Warp Per|No Eligible|Stall|Block Limit|Shared Memory Configuration|Executed Ipc A|One or More|Dynamic Shared" \
        "$OUTDIR/ncu-dd-$nb.txt" | head -40
done
if [ "${XC_PROFILE_PULSCAN:-1}" = 1 ]; then
    echo "== ncu: Pulscan kernels (Table 4 size, one run)"
    timeout 240 "$NCU" --clock-control none --kernel-name regex:'k_(separate|power|normalise|borrow|decimate|screen|exact|logp)' \
        --launch-skip 0 --launch-count 12 --section SpeedOfLight --section Occupancy --section LaunchStats \
        $B/crosscheck bench gpu-pulscan -json /tmp/prof-ps.json -reps 1 > "$OUTDIR/ncu-pulscan.txt" 2>&1
    grep -E "^  k_|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Grid Size|Block Size" \
        "$OUTDIR/ncu-pulscan.txt" | head -80
fi
echo "== SASS of the 8-bit (q8) and 16-bit (w32) kernels, R = 8"
cuobjdump --dump-sass $B/crosscheck 2>/dev/null | awk '/Function : .*k_dd_smem/ {p = ($0 ~ /ILi1ELi8ELb0E|ILi3ELi8ELb0E/)} p' \
    > "$OUTDIR/sass-dd.txt"
wc -l "$OUTDIR/sass-dd.txt"
echo "== host-device copy rates"
cat > /tmp/bw.cu <<'EOF'
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    size_t n = (size_t)1 << 30; void *d, *h, *p; cudaEvent_t a, b; float ms;
    cudaMalloc(&d, n); cudaMallocHost(&p, n); h = malloc(n);
    for (size_t i = 0; i < n; i += 4096) { ((char *)h)[i] = 1; ((char *)p)[i] = 1; }
    cudaEventCreate(&a); cudaEventCreate(&b);
    const char *nm[4] = {"h2d pinned", "d2h pinned", "h2d pageable", "d2h pageable"};
    for (int k = 0; k < 4; k++) for (int r = 0; r < 3; r++) {
        void *hp = k < 2 ? p : h; int up = !(k & 1);
        cudaEventRecord(a); cudaMemcpy(up ? d : hp, up ? hp : d, n, up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
        cudaEventRecord(b); cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b);
        if (r == 2) printf("%-14s %6.1f GB/s\n", nm[k], n / (ms * 1e6));
    }
    return 0;
}
EOF
nvcc -O2 -o /tmp/bw /tmp/bw.cu && /tmp/bw | tee "$OUTDIR/copy-rates.txt"
