#!/bin/sh
# Build dedisp (github.com/ajameson/dedisp) from a source tree you point at,
# no network: the tree is copied to DEST (default: SRC/../dedisp-crosscheck)
# and its own Makefile run there with GPU_ARCH (default sm_90: its
# Makefile.inc still says sm_30, which CUDA 12 and later refuse).
#   sh examples/peers/dedisp/build.sh SRC [DEST]
# Gives DEST/lib/libdedisp.so and DEST/include/dedisp.h.
# CUDA 13's Thrust (CCCL 3) no longer has thrust::unary_function, which
# dedisp's functors derive from; a two-line header forced in with -include
# gives it back (the typedefs the C++98 base provided), so dedisp's sources
# stay as they are.
set -eu
. "$(dirname "$0")/../build-common.sh"
SRC=$(cd "${1:?usage: build.sh DEDISP_SRC [DEST]}" && pwd)
peer_copy "${2:-$SRC/../dedisp-crosscheck}"
CUDA=${CUDA_PATH:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
cat > "$DEST/thrust_compat.h" <<'H'
#include <thrust/version.h>
#if THRUST_VERSION >= 300000
namespace thrust { template <class A, class R> struct unary_function { typedef A argument_type; typedef R result_type; }; }
#endif
H
make -C "$DEST" CUDA_PATH="$CUDA" GPU_ARCH="${GPU_ARCH:-sm_90}" NVCC="$CUDA/bin/nvcc -include $DEST/thrust_compat.h" > "$DEST/build.log" 2>&1 ||
    { tail -30 "$DEST/build.log" >&2; exit 1; }
echo "built $DEST/lib/libdedisp.so from dedisp $(cat "$DEST/COMMIT")"
