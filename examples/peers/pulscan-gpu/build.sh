#!/bin/sh
# Build Pulscan's GPU program (github.com/jack-white1/pulscan-gpu, White et
# al. 2024) from a source tree you point at, no network, into DEST (default
# SRC/../pulscan-gpu-crosscheck): nvcc -O3 for GPU_ARCH (default sm_90), its
# one source unchanged, the CUDA runtime linked statically.
#   sh examples/peers/pulscan-gpu/build.sh SRC [DEST]
set -eu
. "$(dirname "$0")/../build-common.sh"
SRC=$(cd "${1:?usage: build.sh PULSCAN_GPU_SRC [DEST]}" && pwd)
peer_dest "${2:-$SRC/../pulscan-gpu-crosscheck}"
peer_commit
ARCH=${GPU_ARCH:-sm_90}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$NVCC" -O3 -gencode "arch=compute_${ARCH#sm_},code=$ARCH" -cudart static -o "$DEST/pulscan_gpu" "$SRC/pulscan_gpu.cu" -lm
echo "built $DEST/pulscan_gpu from pulscan-gpu $(cat "$DEST/COMMIT")"
